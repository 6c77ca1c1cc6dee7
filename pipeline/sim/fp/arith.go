package fp

import (
	"math"
	"math/bits"
)

// add returns a+b rounded to f.
func add(f format, a, b uint64, rm Round, ftz bool) uint64 {
	ca, sa, ea, ma := unpack(f, a, ftz)
	cb, sb, eb, mb := unpack(f, b, ftz)
	if ca != clsFinite || cb != clsFinite {
		return addSpecial(f, a, b, ca, cb, sa, sb, rm)
	}
	// Leave bit 63 free for the carry. Significands have at least 10
	// trailing zero bits, so this shift is exact.
	ma >>= 1
	mb >>= 1
	if ea < eb || ea == eb && ma < mb {
		sa, ea, ma, sb, eb, mb = sb, eb, mb, sa, ea, ma
	}
	mb = shrJam(mb, uint(ea-eb))
	if sa == sb {
		return round(f, sa, ea+1, ma+mb, rm, ftz)
	}
	d := ma - mb
	if d == 0 {
		return zeroSum(0, 1, rm) << f.signShift()
	}
	return round(f, sa, ea+1, d, rm, ftz)
}

func addSpecial(f format, a, b uint64, ca, cb int, sa, sb uint64, rm Round) uint64 {
	switch {
	case ca == clsNaN || cb == clsNaN:
		return nan2(f, a, b)
	case ca == clsInf && cb == clsInf:
		if sa != sb {
			return nan2(f, a, b)
		}
		return a
	case ca == clsInf:
		return a
	case cb == clsInf:
		return b
	case ca == clsZero && cb == clsZero:
		return zeroSum(sa, sb, rm) << f.signShift()
	case ca == clsZero:
		return b
	}
	return a
}

// mul returns a*b rounded to f.
func mul(f format, a, b uint64, rm Round, ftz bool) uint64 {
	ca, sa, ea, ma := unpack(f, a, ftz)
	cb, sb, eb, mb := unpack(f, b, ftz)
	s := sa ^ sb
	if ca != clsFinite || cb != clsFinite {
		switch {
		case ca == clsNaN || cb == clsNaN:
			return nan2(f, a, b)
		case ca == clsInf && cb == clsZero || ca == clsZero && cb == clsInf:
			return nan2(f, a, b)
		case ca == clsInf || cb == clsInf:
			return s<<f.signShift() | f.infBits()
		}
		return s << f.signShift()
	}
	hi, lo := bits.Mul64(ma, mb)
	if lo != 0 {
		hi |= 1
	}
	return round(f, s, ea+eb+64, hi, rm, ftz)
}

// fma returns a*b+c with a single rounding to f.
func fma(f format, a, b, c uint64, rm Round, ftz bool) uint64 {
	ca, sa, ea, ma := unpack(f, a, ftz)
	cb, sb, eb, mb := unpack(f, b, ftz)
	cc, sc, ec, mc := unpack(f, c, ftz)
	sp := sa ^ sb
	if ca != clsFinite || cb != clsFinite || cc != clsFinite {
		switch {
		case ca == clsNaN || cb == clsNaN || cc == clsNaN:
			return nan3(f, a, b, c)
		case ca == clsInf && cb == clsZero || ca == clsZero && cb == clsInf:
			return nan3(f, a, b, c)
		case ca == clsInf || cb == clsInf:
			if cc == clsInf && sc != sp {
				return nan3(f, a, b, c)
			}
			return sp<<f.signShift() | f.infBits()
		case cc == clsInf:
			return c
		case ca == clsZero || cb == clsZero:
			if cc == clsZero {
				return zeroSum(sp, sc, rm) << f.signShift()
			}
			return c
		}
		// a and b finite, c zero: the product rounded once.
		hi, lo := bits.Mul64(ma, mb)
		if lo != 0 {
			hi |= 1
		}
		return round(f, sp, ea+eb+64, hi, rm, ftz)
	}
	// Exact product ph:pl * 2^ep, normalised to bit 127, then both
	// operands as 128-bit numbers with their top bit at 126 (room for
	// the carry). All shifts here drop only zero bits.
	ph, pl := bits.Mul64(ma, mb)
	ep := ea + eb
	if ph < 1<<63 {
		ph, pl = ph<<1|pl>>63, pl<<1
		ep--
	}
	ph, pl = ph>>1, pl>>1|ph<<63
	ep++
	ch, cl := mc>>1, mc<<63
	ecc := ec - 63
	// Align the smaller operand to the larger one.
	xs, xe, xh, xl := sp, ep, ph, pl
	ys, ye, yh, yl := sc, ecc, ch, cl
	if xe < ye || xe == ye && (xh < yh || xh == yh && xl < yl) {
		xs, xe, xh, xl, ys, ye, yh, yl = ys, ye, yh, yl, xs, xe, xh, xl
	}
	yh, yl = shr128Jam(yh, yl, uint(xe-ye))
	var rh, rl uint64
	if xs == ys {
		var carry uint64
		rl, carry = bits.Add64(xl, yl, 0)
		rh, _ = bits.Add64(xh, yh, carry)
	} else {
		var borrow uint64
		rl, borrow = bits.Sub64(xl, yl, 0)
		rh, _ = bits.Sub64(xh, yh, borrow)
		if rh|rl == 0 {
			return zeroSum(0, 1, rm) << f.signShift()
		}
	}
	sig, e := compress128(rh, rl, xe)
	return round(f, xs, e, sig, rm, ftz)
}

// div returns a/b rounded to f.
func div(f format, a, b uint64, rm Round, ftz bool) uint64 {
	ca, sa, ea, ma := unpack(f, a, ftz)
	cb, sb, eb, mb := unpack(f, b, ftz)
	s := sa ^ sb
	if ca != clsFinite || cb != clsFinite {
		switch {
		case ca == clsNaN || cb == clsNaN:
			return nan2(f, a, b)
		case ca == cb: // inf/inf, 0/0
			return nan2(f, a, b)
		case ca == clsInf || cb == clsZero:
			return s<<f.signShift() | f.infBits()
		}
		return s << f.signShift() // 0/x, x/inf
	}
	// q = floor(ma * 2^63 / mb) lies in [2^62, 2^64).
	q, r := bits.Div64(ma>>1, ma<<63, mb)
	if r != 0 {
		q |= 1
	}
	return round(f, s, ea-eb-63, q, rm, ftz)
}

// sqrt returns the square root of a rounded to f.
func sqrt(f format, a uint64, rm Round, ftz bool) uint64 {
	ca, sa, ea, ma := unpack(f, a, ftz)
	switch {
	case ca == clsNaN:
		return nan1(f, a)
	case ca == clsZero:
		return sa << f.signShift()
	case sa != 0:
		return nan1(f, a)
	case ca == clsInf:
		return a
	}
	// value = ma * 2^ea. Radicand n = ma * 2^62 or 2^63 (making the
	// exponent even) so that n < 2^127 and sqrt(n) < 2^63.5.
	sh := uint(62)
	if (ea-62)&1 != 0 {
		sh = 63
	}
	nh, nl := ma>>(64-sh), ma<<sh
	e := ea - int(sh)
	r := isqrt128(nh, nl)
	hi, lo := bits.Mul64(r, r)
	if hi != nh || lo != nl {
		r |= 1
	}
	return round(f, 0, e/2, r, rm, ftz)
}

// isqrt128 returns floor(sqrt(nh:nl)) for 2^64 <= nh:nl < 2^127.
func isqrt128(nh, nl uint64) uint64 {
	x := math.Sqrt(float64(nh)*(1<<64) + float64(nl))
	r := uint64(x)
	// One Newton step from the 52-bit estimate, then exact correction.
	// nh < r holds because r ~ sqrt(n) > n/2^64 for n < 2^127.
	if r > nh {
		q, _ := bits.Div64(nh, nl, r)
		r = r>>1 + q>>1 + (r&q)&1
	}
	for {
		hi, lo := bits.Mul64(r, r)
		if hi > nh || hi == nh && lo > nl {
			r--
			continue
		}
		r1 := r + 1
		hi, lo = bits.Mul64(r1, r1)
		if hi < nh || hi == nh && lo <= nl {
			r = r1
			continue
		}
		return r
	}
}

// The exported f32 and f64 operations take a fast path for RN: the
// host's IEEE 754 arithmetic, which Go defines as round-to-nearest-even
// with gradual underflow (it never enables flush-to-zero or
// denormals-are-zero). Each fast path is a single correctly rounded host
// operation, or one whose double rounding is provably innocuous (see
// fma32RN); NaN results and the directed modes go through the integer
// code above.

// isNaN32 reports whether x is an f32 NaN.
func isNaN32(x uint32) bool { return x&0x7fffffff > 0x7f800000 }

// isNaN64 reports whether x is an f64 NaN.
func isNaN64(x uint64) bool { return x&^(1<<63) > 0x7ff0000000000000 }

// fin32 canonicalises a NaN result and flushes a subnormal one (ftz).
func fin32(r uint32, ftz bool) uint32 {
	if isNaN32(r) {
		return CanonicalNaN32
	}
	if ftz && r&0x7f800000 == 0 {
		return r & 0x80000000
	}
	return r
}

func f32(x uint32) float32 { return math.Float32frombits(x) }
func f64(x uint64) float64 { return math.Float64frombits(x) }

// Add32 returns a+b as a correctly rounded IEEE binary32 in mode rm.
// With ftz, subnormal inputs and results are flushed to zero of the same
// sign (SASS .FTZ). Every NaN result is CanonicalNaN32.
func Add32(a, b uint32, rm Round, ftz bool) uint32 {
	if rm == RN {
		if ftz {
			a, b = Flush32(a), Flush32(b)
		}
		return fin32(math.Float32bits(f32(a)+f32(b)), ftz)
	}
	return uint32(add(fmt32, uint64(a), uint64(b), rm, ftz))
}

// Mul32 returns a*b as a correctly rounded binary32; see Add32.
func Mul32(a, b uint32, rm Round, ftz bool) uint32 {
	if rm == RN {
		if ftz {
			a, b = Flush32(a), Flush32(b)
		}
		return fin32(math.Float32bits(f32(a)*f32(b)), ftz)
	}
	return uint32(mul(fmt32, uint64(a), uint64(b), rm, ftz))
}

// Fma32 returns a*b+c computed exactly and rounded once to binary32
// (FFMA); see Add32.
func Fma32(a, b, c uint32, rm Round, ftz bool) uint32 {
	if rm == RN {
		if ftz {
			a, b, c = Flush32(a), Flush32(b), Flush32(c)
		}
		if r, ok := fma32RN(a, b, c); ok {
			return r
		}
	}
	return uint32(fma(fmt32, uint64(a), uint64(b), uint64(c), rm, ftz))
}

// fma32RN computes an RN f32 fma as y = fma(a, b, c) in float64, then
// y rounded to f32. For every f32 rounding midpoint m, y < m iff the
// exact result is < m, and y > m iff it is > m, because m is a float64
// and rounding is monotonic; so unless y is itself a midpoint, rounding
// y to f32 gives the correctly rounded exact result. The midpoints of
// the normal range are the float64 values whose low 29 bits are
// 1<<28. ok is false for those, for results below 2^-126 (where the
// midpoint spacing differs), and for zero, inf and NaN.
func fma32RN(a, b, c uint32) (uint32, bool) {
	y := math.Float64bits(math.FMA(float64(f32(a)), float64(f32(b)), float64(f32(c))))
	e := y >> 52 & 0x7ff
	if e < 1023-126 || e > 1023+127 || y&(1<<29-1) == 1<<28 {
		return 0, false
	}
	return math.Float32bits(float32(f64(y))), true
}

// Div32 returns a/b correctly rounded to binary32 (div.rnd.f32). SASS has
// no divide instruction; this is the reference the compiler's sequences
// are checked against.
func Div32(a, b uint32, rm Round, ftz bool) uint32 {
	if rm == RN {
		if ftz {
			a, b = Flush32(a), Flush32(b)
		}
		return fin32(math.Float32bits(f32(a)/f32(b)), ftz)
	}
	return uint32(div(fmt32, uint64(a), uint64(b), rm, ftz))
}

// Sqrt32 returns the correctly rounded square root (sqrt.rnd.f32).
// sqrt(-0) = -0; the square root of any other negative number is NaN.
func Sqrt32(a uint32, rm Round, ftz bool) uint32 {
	if rm == RN {
		if ftz {
			a = Flush32(a)
		}
		// Rounding the float64 root again to f32 is innocuous
		// (53 >= 2*24+2), and a root is never subnormal.
		return fin32(math.Float32bits(float32(math.Sqrt(float64(f32(a))))), false)
	}
	return uint32(sqrt(fmt32, uint64(a), rm, ftz))
}

// Add64 returns a+b correctly rounded to binary64 (DADD). f64 has no
// flush-to-zero. NaN results follow the f64 rule of the package
// documentation.
func Add64(a, b uint64, rm Round) uint64 {
	if rm == RN {
		if r := math.Float64bits(f64(a) + f64(b)); !isNaN64(r) {
			return r
		}
	}
	return add(fmt64, a, b, rm, false)
}

// Mul64 returns a*b correctly rounded to binary64 (DMUL).
func Mul64(a, b uint64, rm Round) uint64 {
	if rm == RN {
		if r := math.Float64bits(f64(a) * f64(b)); !isNaN64(r) {
			return r
		}
	}
	return mul(fmt64, a, b, rm, false)
}

// Fma64 returns a*b+c with a single rounding to binary64 (DFMA).
func Fma64(a, b, c uint64, rm Round) uint64 {
	if rm == RN {
		if r := math.Float64bits(math.FMA(f64(a), f64(b), f64(c))); !isNaN64(r) {
			return r
		}
	}
	return fma(fmt64, a, b, c, rm, false)
}

// Div64 returns a/b correctly rounded to binary64 (div.rnd.f64).
func Div64(a, b uint64, rm Round) uint64 {
	if rm == RN {
		if r := math.Float64bits(f64(a) / f64(b)); !isNaN64(r) {
			return r
		}
	}
	return div(fmt64, a, b, rm, false)
}

// Sqrt64 returns the correctly rounded square root (sqrt.rnd.f64).
func Sqrt64(a uint64, rm Round) uint64 {
	if rm == RN {
		if r := math.Float64bits(math.Sqrt(f64(a))); !isNaN64(r) {
			return r
		}
	}
	return sqrt(fmt64, a, rm, false)
}

// Add16 returns a+b correctly rounded to binary16 (HADD2, one lane).
// With ftz, f16 subnormal inputs and results are flushed.
func Add16(a, b uint16, rm Round, ftz bool) uint16 {
	return uint16(add(fmt16, uint64(a), uint64(b), rm, ftz))
}

// Mul16 returns a*b correctly rounded to binary16 (HMUL2, one lane).
func Mul16(a, b uint16, rm Round, ftz bool) uint16 {
	return uint16(mul(fmt16, uint64(a), uint64(b), rm, ftz))
}

// Fma16 returns a*b+c with a single rounding to binary16 (HFMA2, one lane).
func Fma16(a, b, c uint16, rm Round, ftz bool) uint16 {
	return uint16(fma(fmt16, uint64(a), uint64(b), uint64(c), rm, ftz))
}

// AddBF16 returns a+b correctly rounded to bfloat16 (HADD2.BF16, one
// lane). bf16 has no flush-to-zero.
func AddBF16(a, b uint16, rm Round) uint16 {
	return uint16(add(fmtBF16, uint64(a), uint64(b), rm, false))
}

// MulBF16 returns a*b correctly rounded to bfloat16.
func MulBF16(a, b uint16, rm Round) uint16 {
	return uint16(mul(fmtBF16, uint64(a), uint64(b), rm, false))
}

// FmaBF16 returns a*b+c with a single rounding to bfloat16.
func FmaBF16(a, b, c uint16, rm Round) uint16 {
	return uint16(fma(fmtBF16, uint64(a), uint64(b), uint64(c), rm, false))
}
