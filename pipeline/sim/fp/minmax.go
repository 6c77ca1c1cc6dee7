package fp

// Cmp is a floating-point comparison of PTX setp/set and SASS FSETP,
// DSETP and HSETP2.
type Cmp uint8

// Ordered comparisons are false when either operand is NaN; the
// unordered ones (suffix U) are true then. NUM is true when neither
// operand is NaN, NAN when either is.
const (
	LT Cmp = iota
	EQ
	LE
	GT
	NE
	GE
	LTU
	EQU
	LEU
	GTU
	NEU
	GEU
	NUM
	NAN
)

var cmpNames = [...]string{"lt", "eq", "le", "gt", "ne", "ge", "ltu", "equ", "leu", "gtu", "neu", "geu", "num", "nan"}

// String returns the PTX spelling of the comparison.
func (c Cmp) String() string {
	if int(c) < len(cmpNames) {
		return cmpNames[c]
	}
	return "Cmp(?)"
}

// order returns -1, 0 or +1 comparing the non-NaN values x and y of
// format f (+0 == -0).
func order(f format, x, y uint64) int {
	sb := f.signBit()
	if x&^sb == 0 && y&^sb == 0 {
		return 0
	}
	// Map sign-magnitude to a monotonic unsigned key.
	kx, ky := x^sb, y^sb
	if x&sb != 0 {
		kx = ^x
	}
	if y&sb != 0 {
		ky = ^y
	}
	// Only the low signShift()+1 bits are meaningful.
	m := sb<<1 - 1
	kx, ky = kx&m, ky&m
	switch {
	case kx < ky:
		return -1
	case kx > ky:
		return 1
	}
	return 0
}

func compare(f format, a, b uint64, c Cmp, ftz bool) bool {
	if ftz {
		a, b = f.flush(a), f.flush(b)
	}
	if f.isNaN(a) || f.isNaN(b) {
		return c >= LTU && c <= GEU || c == NAN
	}
	o := order(f, a, b)
	switch c {
	case LT, LTU:
		return o < 0
	case EQ, EQU:
		return o == 0
	case LE, LEU:
		return o <= 0
	case GT, GTU:
		return o > 0
	case NE, NEU:
		return o != 0
	case GE, GEU:
		return o >= 0
	case NUM:
		return true
	}
	return false
}

// Cmp32 compares two f32 values. With ftz, subnormal operands compare as
// zero.
func Cmp32(a, b uint32, c Cmp, ftz bool) bool {
	return compare(fmt32, uint64(a), uint64(b), c, ftz)
}

// Cmp64 compares two f64 values.
func Cmp64(a, b uint64, c Cmp) bool { return compare(fmt64, a, b, c, false) }

// Cmp16 compares two f16 values. With ftz, subnormal operands compare as
// zero.
func Cmp16(a, b uint16, c Cmp, ftz bool) bool {
	return compare(fmt16, uint64(a), uint64(b), c, ftz)
}

// minmax implements IEEE 754-2008 minNum/maxNum with -0 < +0.
func minmax(f format, a, b uint64, max, nanProp bool, canon uint64) uint64 {
	na, nb := f.isNaN(a), f.isNaN(b)
	switch {
	case na && nb, nanProp && (na || nb):
		return canon
	case na:
		return b
	case nb:
		return a
	}
	// Order with -0 < +0: compare the monotonic keys directly.
	sb := f.signBit()
	ka, kb := a^sb, b^sb
	if a&sb != 0 {
		ka = ^a & (sb<<1 - 1)
	}
	if b&sb != 0 {
		kb = ^b & (sb<<1 - 1)
	}
	if (ka < kb) != max {
		return a
	}
	return b
}

// Min32 returns the smaller of a and b (FMNMX): if exactly one is NaN the
// other is returned, if both are NaN CanonicalNaN32; -0 is smaller than
// +0. With nanProp (min.NaN) any NaN operand gives CanonicalNaN32.
func Min32(a, b uint32, nanProp bool) uint32 {
	return uint32(minmax(fmt32, uint64(a), uint64(b), false, nanProp, uint64(CanonicalNaN32)))
}

// Max32 returns the larger of a and b; see Min32.
func Max32(a, b uint32, nanProp bool) uint32 {
	return uint32(minmax(fmt32, uint64(a), uint64(b), true, nanProp, uint64(CanonicalNaN32)))
}

// Min64 returns the smaller of a and b; see Min32. When both are NaN it
// returns b, quieted. With nanProp any NaN operand gives DefaultNaN64.
//
// Decision: b quieted, not a canonical NaN. ptxas compiles min.f64 and
// max.f64 to DSETP.MIN/MAX, a SEL of each word and a LOP3 that sets the
// quiet bit in the high word when the result is a NaN; the H100 wrote b
// for max.f64 of a = 0x7ff8000000000000 and b = 0xfff8000000000000
// (fuzz5550195). (min and max of one register with itself never reach
// the unit: ptxas folds them to a copy, and so does the lowering.)
func Min64(a, b uint64, nanProp bool) uint64 {
	if isNaN64(a) && isNaN64(b) && !nanProp {
		return b | fmt64.quietBit()
	}
	return minmax(fmt64, a, b, false, nanProp, DefaultNaN64)
}

// Max64 returns the larger of a and b; see Min64.
func Max64(a, b uint64, nanProp bool) uint64 {
	if isNaN64(a) && isNaN64(b) && !nanProp {
		return b | fmt64.quietBit()
	}
	return minmax(fmt64, a, b, true, nanProp, DefaultNaN64)
}

// Min16 returns the smaller of two f16 values (HMNMX2, one lane); see
// Min32. The NaN returned is CanonicalNaN16: the H100 wrote 0x7fff for
// min.f16 of two 0xffff operands in different registers (fuzz5550312).
func Min16(a, b uint16, nanProp bool) uint16 {
	return uint16(minmax(fmt16, uint64(a), uint64(b), false, nanProp, uint64(CanonicalNaN16)))
}

// Max16 returns the larger of two f16 values; see Min16.
func Max16(a, b uint16, nanProp bool) uint16 {
	return uint16(minmax(fmt16, uint64(a), uint64(b), true, nanProp, uint64(CanonicalNaN16)))
}

// Sat32 clamps x to [+0, 1] (SASS .SAT, PTX .sat): NaN, negative values
// and -0 become +0, values above 1 (and +inf) become 1.
func Sat32(x uint32) uint32 {
	switch {
	case x >= 0x7f800001 || x>>31 != 0: // NaN (either sign) or negative
		return 0
	case x > 0x3f800000:
		return 0x3f800000
	}
	return x
}

// Sat16 clamps an f16 value to [+0, 1] like Sat32.
func Sat16(x uint16) uint16 {
	switch {
	case x >= 0x7c01 || x>>15 != 0:
		return 0
	case x > 0x3c00:
		return 0x3c00
	}
	return x
}

// Flush32 returns x, or a zero of x's sign when x is an f32 subnormal:
// the .FTZ treatment of an operand.
func Flush32(x uint32) uint32 { return uint32(fmt32.flush(uint64(x))) }

// Flush16 is Flush32 for f16.
func Flush16(x uint16) uint16 { return uint16(fmt16.flush(uint64(x))) }
