package fp

import (
	"math"
	"math/big"
	"math/bits"
)

// f64toF32 rounds a float64 to f32 to nearest even, flushing subnormal
// results (MUFU results never are subnormal). NaN gives CanonicalNaN32.
func f64toF32(y float64, ftz bool) uint32 {
	return fin32(math.Float32bits(float32(y)), ftz)
}

// mufuArg flushes a MUFU operand and classifies it.
func mufuArg(a uint32) (x uint32, v float64, cls int, neg bool) {
	x = Flush32(a)
	c, s, _, _ := unpack(fmt32, uint64(x), false)
	return x, float64(math.Float32frombits(x)), c, s != 0
}

const (
	posInf32 uint32 = 0x7f800000
	negInf32 uint32 = 0xff800000
	one32    uint32 = 0x3f800000
)

// Rcp32Approx models MUFU.RCP (rcp.approx.ftz.f32): the correctly
// rounded f32 reciprocal. Subnormal inputs and results are flushed to
// zero of the same sign; 1/±0 = ±inf, 1/±inf = ±0, NaN gives
// CanonicalNaN32.
func Rcp32Approx(a uint32) uint32 {
	x, v, c, _ := mufuArg(a)
	switch c {
	case clsNaN:
		return CanonicalNaN32
	case clsZero:
		return x&0x80000000 | posInf32
	case clsInf:
		return x & 0x80000000
	}
	return f64toF32(1/v, true)
}

// Rsq32Approx models MUFU.RSQ (rsqrt.approx.ftz.f32): the f32 value of
// 1/sqrt(a) rounded to nearest. rsq(+0) = +inf, rsq(-0) = -inf (also for
// flushed subnormals), rsq(+inf) = +0, negative numbers and -inf give
// NaN.
func Rsq32Approx(a uint32) uint32 {
	x, v, c, neg := mufuArg(a)
	switch {
	case c == clsNaN:
		return CanonicalNaN32
	case c == clsZero:
		return x&0x80000000 | posInf32
	case neg:
		return CanonicalNaN32
	case c == clsInf:
		return 0
	}
	return round32Ziv(1/math.Sqrt(v), x, bigRsqrt, true)
}

// Sqrt32Approx models MUFU.SQRT (sqrt.approx.ftz.f32): the correctly
// rounded f32 square root. sqrt(±0) = ±0 (also for flushed subnormals),
// sqrt(+inf) = +inf, negative numbers and -inf give NaN.
func Sqrt32Approx(a uint32) uint32 {
	x, v, c, neg := mufuArg(a)
	switch {
	case c == clsNaN:
		return CanonicalNaN32
	case c == clsZero:
		return x
	case neg:
		return CanonicalNaN32
	case c == clsInf:
		return posInf32
	}
	return f64toF32(math.Sqrt(v), true)
}

// Ex2Approx32 models MUFU.EX2 (ex2.approx.ftz.f32): 2^a rounded to f32.
// ex2(±0) = 1 (also for flushed subnormals), ex2(-inf) = +0, ex2(+inf) =
// +inf; results below the normal range flush to +0 and results above it
// overflow to +inf.
func Ex2Approx32(a uint32) uint32 {
	x, v, c, neg := mufuArg(a)
	switch {
	case c == clsNaN:
		return CanonicalNaN32
	case c == clsZero:
		return one32
	case c == clsInf && neg:
		return 0
	case c == clsInf:
		return posInf32
	}
	return round32Ziv(math.Exp2(v), x, bigExp2, true)
}

// Lg2Approx32 models MUFU.LG2 (lg2.approx.ftz.f32): log2(a) rounded to
// f32. lg2(±0) = -inf (also for flushed subnormals), lg2(+inf) = +inf,
// negative numbers and -inf give NaN.
func Lg2Approx32(a uint32) uint32 {
	x, v, c, neg := mufuArg(a)
	switch {
	case c == clsNaN:
		return CanonicalNaN32
	case c == clsZero:
		return negInf32
	case neg:
		return CanonicalNaN32
	case c == clsInf:
		return posInf32
	}
	return round32Ziv(log2(v), x, bigLog2, true)
}

// log2 is math.Log2 without its cancellation just above 1, where it adds
// 1 to log2(x/2) ~ -1.
func log2(v float64) float64 {
	if v >= 1 && v < 2 {
		return math.Log(v) / math.Ln2
	}
	return math.Log2(v)
}

// SinApprox32 is sin.approx.ftz.f32: sin(a) for a in radians, rounded
// to f32. sin(±0) = ±0 (also for flushed subnormals); ±inf and NaN give
// NaN. SASS computes it as MUFU.SIN of a*(1/2π); see SinRevApprox32.
func SinApprox32(a uint32) uint32 {
	x, _, c, _ := mufuArg(a)
	switch c {
	case clsNaN, clsInf:
		return CanonicalNaN32
	case clsZero:
		return x
	}
	s, _ := sinCos32(x)
	return round32Ziv(s, x, bigSin, true)
}

// CosApprox32 is cos.approx.ftz.f32: cos(a) for a in radians, rounded to
// f32. cos(±0) = 1; ±inf and NaN give NaN.
func CosApprox32(a uint32) uint32 {
	x, _, c, _ := mufuArg(a)
	switch c {
	case clsNaN, clsInf:
		return CanonicalNaN32
	case clsZero:
		return one32
	}
	_, co := sinCos32(x)
	return round32Ziv(co, x, bigCos, true)
}

// sinCos32 returns float64 approximations of sin(x) and cos(x) for a
// finite nonzero f32 x in radians. For |x| >= 1 the argument is reduced
// exactly (radToQuarters) instead of by math.Sin's own reduction, which
// loses accuracy on large arguments.
func sinCos32(x uint32) (s, c float64) {
	v := float64(math.Float32frombits(x))
	if math.Abs(v) < 1 {
		return math.Sin(v), math.Cos(v)
	}
	n, r := radToQuarters(x)
	s, c = quarterTurn(n, r*(2*math.Pi))
	if x>>31 != 0 {
		s = -s
	}
	return s, c
}

// quarterTurn returns sin and cos of n*π/2 + a.
func quarterTurn(n int, a float64) (s, c float64) {
	sa, ca := math.Sin(a), math.Cos(a)
	switch n & 3 {
	case 0:
		return sa, ca
	case 1:
		return ca, -sa
	case 2:
		return -sa, -ca
	}
	return -ca, sa
}

// invTwoPi holds the first 256 bits of the binary fraction 1/(2π).
var invTwoPi = [4]uint64{0x28be60db9391054a, 0x7f09d5f47d4d3770, 0x36d8a5664f10e410, 0x7f9458eaf7aef158}

// invTwoPiBits returns the 64 bits of 2^256/(2π) starting at bit pos
// (bit 0 is the least significant of the 256).
func invTwoPiBits(pos uint) uint64 {
	word := func(i uint) uint64 {
		if i > 3 {
			return 0
		}
		return invTwoPi[3-i]
	}
	w, sh := pos/64, pos%64
	r := word(w) >> sh
	if sh != 0 {
		r |= word(w+1) << (64 - sh)
	}
	return r
}

// radToQuarters reduces |x|/(2π) for an f32 x with |x| >= 1 to n quarter
// turns plus r revolutions, |r| <= 1/8, with r accurate to about 2^-100
// absolute. |x| = m*2^e with m < 2^24 and -23 <= e <= 104; only the
// bits of 1/(2π) after position e contribute to the fraction of a turn,
// so the fraction is m * (bits e+1 .. e+128) mod 2^128. The remainder is
// formed in fixed point before it is converted to float64, so that a
// remainder near zero keeps its relative accuracy.
func radToQuarters(x uint32) (n int, r float64) {
	m := uint64(x&0x7fffff | 0x800000)
	e := int(x>>23&0xff) - 127 - 23
	t := uint(128 - e) // in [24, 151]
	wl, wh := invTwoPiBits(t), invTwoPiBits(t+64)
	hi, lo := bits.Mul64(m, wl)
	hi += m * wh
	// The fraction F = hi:lo / 2^128; n = round(4F), R = F - n/4.
	q := (hi + 1<<61) >> 62
	rh, rl := hi-q<<62, lo
	neg := int64(rh) < 0
	if neg {
		rh, rl = ^rh, -rl
		if rl == 0 {
			rh++
		}
	}
	r = (float64(rh)*0x1p64 + float64(rl)) * 0x1p-128
	if neg {
		r = -r
	}
	return int(q & 3), r
}

// sinCosRev returns sin(2πr) and cos(2πr) for a finite r, reducing r to
// a multiple of a quarter turn plus a remainder exactly, so that exact
// results (0, ±1) come out exact.
func sinCosRev(r float64) (s, c float64) {
	u := 4 * (r - math.Round(r)) // quarter turns in [-2, 2], exact
	n := math.Round(u)
	return quarterTurn(int(n), (u-n)*(math.Pi/2)) // |a| <= π/4
}

// SinRevApprox32 models MUFU.SIN as sm_70 and later define it: the
// operand is in revolutions (the compiler multiplies radians by 1/2π
// first), the result is sin(2πa) rounded to f32. Exact zeros come out
// as +0 except sin(-0) = -0.
func SinRevApprox32(a uint32) uint32 {
	x, v, c, _ := mufuArg(a)
	switch c {
	case clsNaN, clsInf:
		return CanonicalNaN32
	case clsZero:
		return x
	}
	s, _ := sinCosRev(v)
	return round32Ziv(s+0, x, bigSinRev, true) // +0 turns -0 into +0
}

// CosRevApprox32 models MUFU.COS with the operand in revolutions:
// cos(2πa) rounded to f32; exact zeros are +0.
func CosRevApprox32(a uint32) uint32 {
	x, v, c, _ := mufuArg(a)
	switch c {
	case clsNaN, clsInf:
		return CanonicalNaN32
	case clsZero:
		return one32
	}
	_, co := sinCosRev(v)
	return round32Ziv(co+0, x, bigCosRev, true)
}

// TanhApprox32 models MUFU.TANH (tanh.approx.f32): tanh(a) rounded to
// f32. It has no .ftz form and keeps subnormals: tanh of a subnormal is
// the subnormal itself. tanh(±inf) = ±1, tanh(±0) = ±0.
func TanhApprox32(a uint32) uint32 {
	c, s, _, _ := unpack(fmt32, uint64(a), false)
	switch c {
	case clsNaN:
		return CanonicalNaN32
	case clsZero:
		return a
	case clsInf:
		return uint32(s)<<31 | one32
	}
	return round32Ziv(math.Tanh(float64(math.Float32frombits(a))), a, bigTanh, false)
}

// Rcp64H models MUFU.RCP64H: only the high word of a (sign, exponent and
// the top 20 fraction bits) is read, and the result is the high word of
// 1/a rounded to nearest at that precision (21 significant bits),
// returned as an f64 whose low 32 bits are zero. f64 subnormal operands
// and results are flushed to zero; 1/±0 = ±inf, 1/±inf = ±0, and a NaN
// gives the high word 0x7fffffff.
func Rcp64H(a uint64) uint64 {
	const one = 0x3ff00000
	return div(fmt64hi, one, a>>32, RN, true) << 32
}

// Rsq64H models MUFU.RSQ64H like Rcp64H: the high word of 1/sqrt(a).
// rsq(±0) = ±inf, rsq(+inf) = +0, negative numbers give NaN.
func Rsq64H(a uint64) uint64 {
	hi := a >> 32
	c, s, _, _ := unpack(fmt64hi, hi, true)
	switch {
	case c == clsNaN:
		return fmt64hi.nan << 32
	case c == clsZero:
		return (s<<31 | fmt64hi.infBits()) << 32
	case s != 0:
		return fmt64hi.nan << 32
	case c == clsInf:
		return 0
	}
	v := math.Float64frombits(hi << 32)
	y := math.Float64bits(1 / math.Sqrt(v))
	// The result is never subnormal or infinite. Near a midpoint of the
	// 21-bit precision (bit 31 of y the half bit), use math/big.
	if d := int64(y&(1<<32-1)) - 1<<31; d >= -zivWindow && d <= zivWindow {
		z := new(big.Float).SetPrec(21).Set(bigRsqrt(new(big.Float).SetPrec(hp).SetFloat64(v)))
		f, _ := z.Float64()
		return math.Float64bits(f)
	}
	return convert(fmt64, fmt64hi, y, RN, false, true) << 32
}
