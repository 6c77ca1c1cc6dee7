package fp

import (
	"math"
	"math/bits"
)

// sfuTable is a piecewise quadratic fitted to one binade of a MUFU
// function (mufu_tables.go): seg[i] serves the fractions m whose top 7
// bits are i.
type sfuTable struct {
	seg [128][3]float64
	// pop is subtracted once per one bit in the low 16 bits of m. The
	// unit's truncated partial products lose about that much for each
	// one bit of the multiplier (TestGenerateMUFUTables measures it).
	pop float64
}

// sfuU maps the low 16 bits of a 23-bit fraction onto [-1, 1).
func sfuU(m uint32) float64 {
	return float64(int32(m&0xffff)-0x8000) * 0x1p-15
}

// eval returns floor(c0 + c1*u + c2*u*u - pop*ones(u)) for the 23-bit
// fraction m. The conversions keep Go from fusing the operations, so
// that the result is the same on every platform.
func (t *sfuTable) eval(m uint32) uint32 {
	c := &t.seg[m>>16]
	u := sfuU(m)
	q := float64(u * u)
	p := float64(c[0]+float64(c[1]*u)) + float64(c[2]*q)
	p -= float64(t.pop * float64(bits.OnesCount32(m&0xffff)))
	return uint32(math.Floor(p))
}

// sfuDatapath is one binade of a MUFU function computed the way the
// H100's interpolator computes it, bit for bit (mufu_tables.go holds the
// coefficients, solved from the binade sweeps by TestGenerateMUFUTables).
// The 23-bit fraction m splits into a 7-bit segment index and the low 16
// bits x; segment i holds integers C0, C1, C2 and the result is
//
//	Y = (C0 + 2*C1*x + C2*sfuSquare(x)) >> 16
//
// C1 counts 2^-15 of Y per step of x, C2 2^-16 per unit of the truncated
// square, C0 2^-16. This is the multifunction interpolator of Oberman and
// Siu (ARITH 2005) with its truncated squarer; the H100's reciprocal
// sweep fixes the details: no truncation of the two products shows in
// the data, and the squarer drops every partial product below 2^17.
type sfuDatapath struct {
	seg [128]sfuCoef
}

// sfuCoef is one segment of an sfuDatapath.
type sfuCoef struct {
	c0     int64
	c1, c2 int32
}

// sfuSquare is the interpolator's truncated squarer: x*x for a 16-bit x
// from the folded partial-product array (x_i*x_j for i < j once, at
// weight 2^(i+j+1); x_i at 2^(2i)), keeping only the partial products of
// weight 2^17 and above, divided by 2^16. A complete square (or one
// truncated at 2^16) misses the H100's reciprocal on thousands of inputs
// of the [1,2) sweep; this one reproduces all 2^23.
func sfuSquare(x uint32) int64 {
	var s int64
	for i := 0; i < 16; i++ {
		if x>>i&1 == 0 {
			continue
		}
		if 2*i >= 17 {
			s += 1 << (2 * i)
		}
		for j := max(i+1, 16-i); j < 16; j++ {
			if x>>j&1 != 0 {
				s += 1 << (i + j + 1)
			}
		}
	}
	return s >> 16
}

// eval returns Y for the 23-bit fraction m.
func (t *sfuDatapath) eval(m uint32) uint32 {
	c := &t.seg[m>>16]
	x := m & 0xffff
	p := c.c0 + 2*int64(c.c1)*int64(x) + int64(c.c2)*sfuSquare(x)
	return uint32(p >> 16)
}

// sfuNormal splits a normal f32 into its unbiased exponent and 23-bit
// fraction.
func sfuNormal(x uint32) (e int, m uint32) {
	return int(x>>23&0xff) - 127, x & 0x7fffff
}

// sfuPack builds sign | y * 2^e for an integer y (a table value, near
// [2^23, 2^24]), flushing results below the normal range to zero and
// overflowing to infinity (MUFU results are never subnormal).
func sfuPack(sign uint32, y uint32, e int) uint32 {
	if y == 0 {
		return sign
	}
	for y >= 1<<24 {
		y, e = y>>1, e+1 // only 2^24 itself occurs: exact
	}
	for y < 1<<23 {
		y, e = y<<1, e-1
	}
	be := e + 23 + 127 // biased exponent of the result
	switch {
	case be <= 0:
		return sign
	case be >= 0xff:
		return sign | posInf32
	}
	return sign | uint32(be)<<23 | (y - 1<<23)
}

// RcpSFU32 models MUFU.RCP (rcp.approx.ftz.f32) with the H100's
// interpolator (sfuRcp, exact on all 2^23 fractions): the result depends
// only on the fraction of the operand, and the exponent is negated.
// Special values as Rcp32Approx.
func RcpSFU32(a uint32) uint32 {
	x, _, c, _ := mufuArg(a)
	if c != clsFinite {
		return Rcp32Approx(a)
	}
	e, m := sfuNormal(x)
	return sfuPack(x&0x80000000, sfuRcp.eval(m), -e-24)
}

// RsqSFU32 models MUFU.RSQ (rsqrt.approx.ftz.f32) with two fitted
// tables, for even and odd exponents (sfuRsqEven on [1,2), sfuRsqOdd on
// [2,4)). Special values as Rsq32Approx.
func RsqSFU32(a uint32) uint32 {
	x, _, c, neg := mufuArg(a)
	if c != clsFinite || neg {
		return Rsq32Approx(a)
	}
	e, m := sfuNormal(x)
	t := &sfuRsqEven
	if e&1 != 0 {
		t, e = &sfuRsqOdd, e-1
	}
	return sfuPack(0, t.eval(m), -e/2-24)
}

// SqrtSFU32 models MUFU.SQRT (sqrt.approx.ftz.f32) like RsqSFU32
// (sfuSqrtEven, sfuSqrtOdd). Special values as Sqrt32Approx.
func SqrtSFU32(a uint32) uint32 {
	x, _, c, neg := mufuArg(a)
	if c != clsFinite || neg {
		return Sqrt32Approx(a)
	}
	e, m := sfuNormal(x)
	t := &sfuSqrtEven
	if e&1 != 0 {
		t, e = &sfuSqrtOdd, e-1
	}
	return sfuPack(0, t.eval(m), e/2-23)
}

// Ex2SFU32 models MUFU.EX2 (ex2.approx.ftz.f32). The operand becomes a
// fixed-point number i + f with 23 fraction bits (further bits are
// truncated). A negative operand -(i + f) with f != 0 becomes
// -(i+1) + ^f: the fraction is complemented bit by bit instead of
// subtracted from 1, which is 2^-23 less. The H100 shows it: on [-2,-1)
// each of the 2^23 outputs except that of -1 equals the [1,2) output of
// the complemented fraction times 2^-3, and ex2 of negative operands
// above -2^-23 is exactly 1. The fraction indexes the table fitted on
// [1,2) (sfuEx2 holds 2^(1+f) * 2^22), the integer part is the exponent.
// Special values as Ex2Approx32.
func Ex2SFU32(a uint32) uint32 {
	x, _, c, neg := mufuArg(a)
	if c != clsFinite {
		return Ex2Approx32(a)
	}
	e, m := sfuNormal(x)
	if e >= 8 { // |a| >= 256
		if neg {
			return 0
		}
		return posInf32
	}
	// |a| * 2^23, truncated.
	n := uint64(m | 1<<23)
	if e >= 0 {
		n <<= uint(e)
	} else if e > -25 {
		n >>= uint(-e)
	} else {
		n = 0
	}
	i, f := int(n>>23), uint32(n&0x7fffff)
	if neg {
		i = -i
		if f != 0 {
			i, f = i-1, ^f&0x7fffff
		}
	}
	return sfuPack(0, sfuEx2.eval(f), i-23)
}

// Rcp64HSFU models MUFU.RCP64H: the f32 reciprocal unit (sfuRcp) applied
// to the 20-bit fraction of the operand's high word, its 23-bit result
// truncated to the 20 fraction bits of the result's high word (the low
// word is zero). The H100 agrees on every normal input of the f64 sweep.
// f64 subnormal operands and results are flushed; special values as
// Rcp64H.
func Rcp64HSFU(a uint64) uint64 {
	hi := a >> 32
	c, s, _, _ := unpack(fmt64hi, hi, true)
	if c != clsFinite {
		return Rcp64H(a)
	}
	e := int(hi>>20&0x7ff) - 1023
	y := sfuRcp.eval(uint32(hi&0xfffff) << 3)
	return sfuHigh(s, float64(y)*math.Ldexp(1, -e-24))
}

// Rsq64HSFU models MUFU.RSQ64H like Rcp64HSFU, with the f32 reciprocal
// square root tables. Special values as Rsq64H.
func Rsq64HSFU(a uint64) uint64 {
	hi := a >> 32
	// Decision: a negative operand that is not a NaN or a zero (normal,
	// subnormal or -inf) gives the f64 default NaN, 0xfff80000 in the high
	// word: the H100's rsqrt.approx.f64 returns 0xfff8000000000000 for all
	// 130,944 negative normal, 63 negative subnormal and both -inf inputs
	// of ops-h100.tgz, and its refinement DFMAs pass a NaN operand through.
	if hi>>31 != 0 && hi&0x7fffffff != 0 && hi&0x7ff00000 != 0x7ff00000 || hi == 0xfff00000 {
		return 0xfff80000 << 32
	}
	c, s, _, _ := unpack(fmt64hi, hi, true)
	if c != clsFinite || s != 0 {
		return Rsq64H(a)
	}
	e := int(hi>>20&0x7ff) - 1023
	t := &sfuRsqEven
	if e&1 != 0 {
		t, e = &sfuRsqOdd, e-1
	}
	y := t.eval(uint32(hi&0xfffff) << 3)
	return sfuHigh(0, float64(y)*math.Ldexp(1, -e/2-24))
}

// sfuHigh returns sign | v with v's fraction truncated to 20 bits, or a
// zero of that sign for v below the f64 normal range.
func sfuHigh(sign uint64, v float64) uint64 {
	if v < 0x1p-1022 {
		return sign << 63
	}
	return sign<<63 | math.Float64bits(v)&^(1<<32-1)
}

// invTwoPi32 is 1/(2π) rounded to f32, the constant ptxas multiplies by.
const invTwoPi32 = 0x3e22f983

// SinRadSFU32 is sin.approx.f32 as SASS computes it: FMUL.RZ by 1/(2π)
// (invTwoPi32; subnormal products are kept) and MUFU.SIN of the result in
// revolutions (sinCosSFU). The simulator's MUFU.SIN takes radians
// (pipeline/lower/float.go), so the multiplication is part of it here.
// The .ftz and plain PTX forms compile to the same two instructions.
func SinRadSFU32(a uint32) uint32 {
	s, _ := sinCosSFU(Mul32(a, invTwoPi32, RZ, false))
	return s
}

// CosRadSFU32 is cos.approx.f32 as SASS computes it, like SinRadSFU32.
func CosRadSFU32(a uint32) uint32 {
	_, c := sinCosSFU(Mul32(a, invTwoPi32, RZ, false))
	return c
}

// sinCosSFU models MUFU.SIN and MUFU.COS of r revolutions. The unit
// works on |r| as a fixed-point fraction of a turn with 25 bits; further
// bits are truncated, the whole turns dropped, and sin gets the sign of
// r back. The H100 shows it: sin.approx.f32 is ±0 for every |x| with
// |x|/(2π) < 2^-25 and for |x| >= 2^25 (whole turns), keeping the sign
// of x, and for x = 2^-21 * 1.0 and 1.00049 (r = 2.54 and 2.55 * 2^-25)
// it returns the same value, sin(2π * 2 * 2^-25) within 2^-13 relative.
// The value of the truncated turn is then the correctly rounded sin or
// cos, which is not what the unit computes: its own approximation error
// is not modelled (the sweeps cover too little of a quarter turn to fit
// a table).
func sinCosSFU(r uint32) (s, c uint32) {
	x := Flush32(r)
	if x&0x7fffffff >= posInf32 {
		return CanonicalNaN32, CanonicalNaN32
	}
	sign := x & 0x80000000
	if x&0x7fffffff == 0 {
		return sign, one32
	}
	e, m := sfuNormal(x)
	// |r| * 2^25 = (m | 2^23) * 2^(e + 2); keep its low 25 bits.
	q := uint64(m | 1<<23)
	if sh := e + 2; sh >= 25 {
		q = 0
	} else if sh >= 0 {
		q <<= uint(sh)
	} else if sh > -64 {
		q >>= uint(-sh)
	} else {
		q = 0
	}
	q &= 1<<25 - 1
	if q == 0 {
		return sign, one32
	}
	sv, cv := sinCosRev(float64(q) * 0x1p-25)
	return sign ^ f64toF32(sv+0, true), f64toF32(cv+0, true)
}

// Observed bounds of MUFU.TANH on the H100's f32 sweep: every |a| up to
// tanhIdentMax gives a itself (also where tanh(a) is 42 ulps below a), the
// next sample (0x3b810000) does not; |a| >= 8 gives exactly ±1, the
// largest sample below (0x40ffc000) does not.
const (
	tanhIdentMax uint32 = 0x3b80c000
	tanhOneMin   uint32 = 0x41000000
)

// TanhSFU32 models MUFU.TANH (tanh.approx.f32): a itself for |a| <=
// tanhIdentMax, ±1 for |a| >= 8, and in between the correctly rounded
// tanh (TanhApprox32), which is not what the hardware returns there: its
// error reaches 2^-11 relative, and the two exhaustive binades are not
// enough to fit a table for the whole range.
func TanhSFU32(a uint32) uint32 {
	m := a & 0x7fffffff
	switch {
	case m > posInf32:
		return CanonicalNaN32
	case m <= tanhIdentMax:
		return a
	case m >= tanhOneMin:
		return a&0x80000000 | one32
	}
	return TanhApprox32(a)
}

// Ex2SFU16 models MUFU.EX2.F16 (ex2.approx.f16): the f32 unit's result
// (Ex2SFU32) truncated to f16, except that results of 2^16 and more
// overflow to +inf. This reproduces all 65,536 H100 results.
func Ex2SFU16(a uint16) uint16 {
	if a&0x7fff > 0x7c00 {
		return 0x7fff
	}
	r := Ex2SFU32(F16toF32(a))
	if r >= 0x47800000 && r <= posInf32 {
		return 0x7c00
	}
	return F32toF16(r, RZ, false)
}

// TanhSFU16 models MUFU.TANH.F16 (tanh.approx.f16): the f32 unit's result
// (TanhSFU32) truncated to f16.
func TanhSFU16(a uint16) uint16 {
	if a&0x7fff > 0x7c00 {
		return 0x7fff
	}
	return F32toF16(TanhSFU32(F16toF32(a)), RZ, false)
}
