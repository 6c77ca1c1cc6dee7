package spec

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// elemInfo describes one element type of the spec format.
type elemInfo struct {
	size   int  // bytes
	float  bool // IEEE binary floating point
	signed bool // two's complement integer
	ebits  int  // floats: exponent bits
	mbits  int  // floats: stored mantissa bits
}

var elemTypes = map[string]elemInfo{
	"u8":   {size: 1},
	"u16":  {size: 2},
	"u32":  {size: 4},
	"u64":  {size: 8},
	"s8":   {size: 1, signed: true},
	"s16":  {size: 2, signed: true},
	"s32":  {size: 4, signed: true},
	"s64":  {size: 8, signed: true},
	"f16":  {size: 2, float: true, ebits: 5, mbits: 10},
	"bf16": {size: 2, float: true, ebits: 8, mbits: 7},
	"f32":  {size: 4, float: true, ebits: 8, mbits: 23},
	"f64":  {size: 8, float: true, ebits: 11, mbits: 52},
}

// elemList is the order element names are listed in messages.
const elemList = "u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64"

// ElemSize returns the size in bytes of an element type ("u8" … "f64") and
// whether the name is one of the spec's element types.
func ElemSize(elem string) (int, bool) {
	e, ok := elemTypes[elem]
	return e.size, ok
}

// IsFloat reports whether elem names a floating-point element type
// (f16, bf16, f32, f64).
func IsFloat(elem string) bool { return elemTypes[elem].float }

func (e elemInfo) bits() int { return 8 * e.size }

func (e elemInfo) mask() uint64 {
	if e.size == 8 {
		return math.MaxUint64
	}
	return 1<<uint(e.bits()) - 1
}

// putLE stores the low size bytes of v into b, little-endian.
func putLE(b []byte, v uint64, size int) {
	for i := 0; i < size; i++ {
		b[i] = byte(v >> (8 * uint(i)))
	}
}

// getLE reads size little-endian bytes.
func getLE(b []byte, size int) uint64 {
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// parseBits parses a bit pattern: hex digits with an optional 0x prefix,
// whose value must fit in the element's width.
func parseBits(s, elem string) (uint64, error) {
	e := elemTypes[elem]
	h := s
	if strings.HasPrefix(h, "0x") || strings.HasPrefix(h, "0X") {
		h = h[2:]
	}
	v, ok := parseHexDigits(h)
	if !ok {
		return 0, fmt.Errorf("%q is not a hex bit pattern", s)
	}
	if v&^e.mask() != 0 {
		return 0, fmt.Errorf("%s does not fit in %s (%d bits)", s, elem, e.bits())
	}
	return v, nil
}

// parseHexDigits parses 1 to 16 hex digits (leading zeros beyond 16 are
// accepted as long as the value fits in 64 bits).
func parseHexDigits(h string) (uint64, bool) {
	if h == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(h); i++ {
		c := h[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if v>>60 != 0 {
			return 0, false // overflow
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// parseValue parses a value for a const:V init or a scalar parameter and
// returns its bit pattern. Integers: a decimal number (negative only for
// signed types) or 0x hex bits, range-checked. Floats: a decimal literal
// (rounded to nearest even in the element type; overflow is an error) or 0x
// bits.
func parseValue(s, elem string) (uint64, error) {
	e := elemTypes[elem]
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return parseBits(s, elem)
	}
	if e.float {
		return parseFloatDecimal(s, elem)
	}
	if e.signed {
		n, err := strconv.ParseInt(s, 10, 64)
		lo, hi := int64(-1)<<(e.bits()-1), int64(1)<<(e.bits()-1)-1
		if !isDecimalInt(s) {
			return 0, fmt.Errorf("%q is not a valid %s (want a decimal or 0x hex number)", s, elem)
		}
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%s is out of range for %s (%d to %d)", s, elem, lo, hi)
		}
		return uint64(n) & e.mask(), nil
	}
	if !isDecimalInt(s) {
		return 0, fmt.Errorf("%q is not a valid %s (want a decimal or 0x hex number)", s, elem)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n&^e.mask() != 0 {
		return 0, fmt.Errorf("%s is out of range for %s (0 to %d)", s, elem, e.mask())
	}
	return n, nil
}

// isDecimalInt reports whether s is an optionally signed run of decimal
// digits.
func isDecimalInt(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimalFloat reports whether s is a decimal floating-point literal:
// [+-] digits [. digits] [e [+-] digits], with digits on at least one side
// of the point.
func isDecimalFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// parseFloatDecimal rounds a decimal literal to the element type, exactly
// (one rounding, to nearest even, from the literal's exact value).
func parseFloatDecimal(s, elem string) (uint64, error) {
	e := elemTypes[elem]
	if !isDecimalFloat(s) {
		return 0, fmt.Errorf("%q is not a valid %s (want a decimal literal or 0x bits)", s, elem)
	}
	// Huge exponents would make big.Rat build enormous numbers; anything
	// beyond ±400 decimal digits of exponent is certainly 0 or overflow for
	// every type up to f64, so clamp before exact parsing.
	mant, exp := s, 0
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		mant = s[:k]
		x, err := strconv.Atoi(s[k+1:])
		if err != nil || x > 100000 || x < -100000 {
			if strings.HasPrefix(s[k+1:], "-") {
				x = -100000
			} else {
				x = 100000
			}
		}
		exp = x
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimLeft(mant, "+-")
	// Count significant digits to bound the work.
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	r := new(big.Rat)
	if digits != "" {
		if len(digits) > 1000 {
			// Keep 1000 significant digits plus a sticky digit; more cannot
			// change rounding to at most 53 bits unless the literal sits
			// within 10^-999 of a tie, which the sticky digit keeps apart.
			sticky := strings.TrimRight(digits[1000:], "0") != ""
			exp += len(digits) - 1000
			digits = digits[:1000]
			if sticky {
				digits += "1"
				exp--
			}
		}
		if exp+len(digits) > 400 {
			return 0, fmt.Errorf("%s overflows %s", s, elem)
		}
		if exp+len(digits) < -400 {
			digits = "" // underflows to zero in every type
		}
	}
	if digits != "" {
		n, _ := new(big.Int).SetString(digits, 10)
		r.SetInt(n)
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
		if exp >= 0 {
			r.Mul(r, new(big.Rat).SetInt(p))
		} else {
			r.Quo(r, new(big.Rat).SetInt(p))
		}
	}
	b, overflow := roundRat(neg, r, e.ebits, e.mbits)
	if overflow {
		return 0, fmt.Errorf("%s overflows %s", s, elem)
	}
	return b, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// roundRat rounds the non-negative rational r (negated when neg) to the
// binary format with ebits exponent bits and mbits mantissa bits, to nearest
// even, with subnormals. overflow reports a finite value that rounds beyond
// the largest finite number.
func roundRat(neg bool, r *big.Rat, ebits, mbits int) (b uint64, overflow bool) {
	var sign uint64
	if neg {
		sign = 1 << uint(ebits+mbits)
	}
	if r.Sign() == 0 {
		return sign, false
	}
	bias := 1<<uint(ebits-1) - 1
	emin, emax := 1-bias, bias
	num, den := r.Num(), r.Denom()
	// e = floor(log2 r).
	e := num.BitLen() - den.BitLen()
	if cmpPow2(num, den, e) < 0 {
		e--
	}
	E := e
	if E < emin {
		E = emin
	}
	// q = r * 2^(mbits-E), rounded.
	k := mbits - E
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if k >= 0 {
		n.Lsh(n, uint(k))
	} else {
		d.Lsh(d, uint(-k))
	}
	q, rem := new(big.Int).QuoRem(n, d, new(big.Int))
	rem.Lsh(rem, 1)
	if c := rem.Cmp(d); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	if q.BitLen() > mbits+1 {
		q.Rsh(q, 1)
		E++
	}
	if E > emax {
		return 0, true
	}
	return assemble(sign, q.Uint64(), E, ebits, mbits), false
}

// cmpPow2 compares num/den with 2^e.
func cmpPow2(num, den *big.Int, e int) int {
	if e >= 0 {
		return num.Cmp(new(big.Int).Lsh(den, uint(e)))
	}
	return new(big.Int).Lsh(num, uint(-e)).Cmp(den)
}

// assemble builds the bits of sign * q * 2^(E-mbits), where q < 2^(mbits+1)
// and q < 2^mbits only if E is the minimum exponent (a subnormal).
func assemble(sign, q uint64, E, ebits, mbits int) uint64 {
	bias := 1<<uint(ebits-1) - 1
	if q < 1<<uint(mbits) {
		return sign | q
	}
	return sign | uint64(E+bias)<<uint(mbits) | q&(1<<uint(mbits)-1)
}

// fromFloat64 converts f to the binary format with ebits/mbits (at most
// f64's), rounding to nearest even. Overflow gives infinity; NaN stays a
// quiet NaN with the top payload bits kept.
func fromFloat64(f float64, ebits, mbits int) uint64 {
	fb := math.Float64bits(f)
	var sign uint64
	if fb>>63 != 0 {
		sign = 1 << uint(ebits+mbits)
	}
	expAll := uint64(1)<<uint(ebits) - 1
	switch {
	case math.IsNaN(f):
		payload := (fb & (1<<52 - 1)) >> uint(52-mbits)
		return sign | expAll<<uint(mbits) | 1<<uint(mbits-1) | payload
	case math.IsInf(f, 0):
		return sign | expAll<<uint(mbits)
	case f == 0:
		return sign
	}
	// f = m * 2^e exactly.
	m := fb & (1<<52 - 1)
	ef := int(fb>>52) & 0x7ff
	var e int
	if ef == 0 {
		e = -1074
	} else {
		m |= 1 << 52
		e = ef - 1075
	}
	bias := 1<<uint(ebits-1) - 1
	emin, emax := 1-bias, bias
	ex := e + bits.Len64(m) - 1 // floor(log2 |f|)
	E := ex
	if E < emin {
		E = emin
	}
	shift := E - mbits - e // low bits of m to drop
	var q uint64
	switch {
	case shift <= 0:
		q = m << uint(-shift)
	case shift > 54:
		q = 0 // |f| < half the smallest quantum
	default:
		q = m >> uint(shift)
		rem := m & (1<<uint(shift) - 1)
		half := uint64(1) << uint(shift-1)
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
	}
	if q >= 1<<uint(mbits+1) {
		q >>= 1
		E++
	}
	if E > emax {
		return sign | expAll<<uint(mbits)
	}
	return assemble(sign, q, E, ebits, mbits)
}

// toFloat64 converts a bit pattern of a float element type to float64
// (exact for every type).
func toFloat64(b uint64, elem string) float64 {
	switch elem {
	case "f64":
		return math.Float64frombits(b)
	case "f32":
		return float64(math.Float32frombits(uint32(b)))
	}
	e := elemTypes[elem]
	sign := b >> uint(e.ebits+e.mbits) & 1
	ef := int(b>>uint(e.mbits)) & (1<<uint(e.ebits) - 1)
	m := b & (1<<uint(e.mbits) - 1)
	bias := 1<<uint(e.ebits-1) - 1
	var v float64
	switch {
	case ef == 1<<uint(e.ebits)-1 && m != 0:
		v = math.NaN()
	case ef == 1<<uint(e.ebits)-1:
		v = math.Inf(1)
	case ef == 0:
		v = math.Ldexp(float64(m), 1-bias-e.mbits)
	default:
		v = math.Ldexp(float64(m|1<<uint(e.mbits)), ef-bias-e.mbits)
	}
	if sign != 0 {
		v = -v
	}
	return v
}

// fromFloat64Elem converts f to a float element type's bits.
func fromFloat64Elem(f float64, elem string) uint64 {
	switch elem {
	case "f64":
		return math.Float64bits(f)
	}
	e := elemTypes[elem]
	return fromFloat64(f, e.ebits, e.mbits)
}

// isNaNBits reports whether b is a NaN of the float element type.
func isNaNBits(b uint64, e elemInfo) bool {
	expAll := uint64(1)<<uint(e.ebits) - 1
	return b>>uint(e.mbits)&expAll == expAll && b&(1<<uint(e.mbits)-1) != 0
}

// FormatValue formats a bit pattern of elem as a value: a signed or
// unsigned decimal for integers; for floats the shortest decimal that reads
// back to the same bits, or NaN, +Inf, -Inf.
func FormatValue(b uint64, elem string) string {
	e, ok := elemTypes[elem]
	if !ok {
		return "?"
	}
	b &= e.mask()
	switch {
	case e.signed:
		shift := uint(64 - e.bits())
		return strconv.FormatInt(int64(b<<shift)>>shift, 10)
	case !e.float:
		return strconv.FormatUint(b, 10)
	}
	f := toFloat64(b, elem)
	switch {
	case math.IsNaN(f):
		return "NaN"
	case elem == "f64":
		return strconv.FormatFloat(f, 'g', -1, 64)
	case elem == "f32":
		return strconv.FormatFloat(f, 'g', -1, 32)
	}
	for p := 1; p < 17; p++ {
		s := strconv.FormatFloat(f, 'g', p, 64)
		if math.IsInf(f, 0) {
			return s
		}
		if r, err := parseFloatDecimal(s, elem); err == nil && r == b {
			// Print those digits the way 'g' with -1 precision does
			// ("65500", not "6.55e+04").
			v, _ := strconv.ParseFloat(s, 64)
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// FormatBits formats a bit pattern as 0x hex padded to the element width.
func FormatBits(b uint64, elem string) string {
	e, ok := elemTypes[elem]
	if !ok {
		return fmt.Sprintf("%#x", b)
	}
	return fmt.Sprintf("0x%0*x", 2*e.size, b&e.mask())
}
