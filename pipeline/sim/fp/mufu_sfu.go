package fp

import (
	"math"
	"math/bits"
	"sync"
)

// sfuDatapath is one binade of a MUFU function computed the way the
// H100's interpolator computes it, bit for bit (mufu_tables.go holds the
// coefficients, solved from the binade sweeps by TestGenerateMUFUTables).
// The 23-bit fraction m splits into a segment index (its top 23-bits
// bits) and the low bits x; segment i holds integers C0, C1, C2 and the
// result is, with h = max(k1, k2),
//
//	Y = (C0 + C1*x*2^(h-k1) + C2*sfuSquare(x, bits, sq)*2^(h-k2)) >> h
//
// C1 counts 2^-k1 of Y per step of x, C2 2^-k2 per unit of the truncated
// square, C0 2^-h. This is the multifunction interpolator of Oberman and
// Siu (ARITH 2005) with its truncated squarer; the H100's sweeps fix the
// details: no truncation of the two products shows in the data, and the
// squarer drops the partial products below 2^sq. RCP has 128 segments
// (bits 16, sq 17); RSQ, SQRT and EX2 have 64 (bits 17, sq 19).
type sfuDatapath struct {
	bits   uint // width of x
	sq     uint // the squarer keeps partial products of weight 2^sq and up
	k1, k2 uint // resolution of C1 and C2
	seg    []sfuCoef
	square []int64 // sfuSquare(x, bits, sq) for every x, set by sfuSquares
}

// sfuSquares fills the square tables of the built-in datapaths, once, on
// the first MUFU evaluation. Not in init: the tables take about 200 ms and
// 7 MB to build, which every orilab process paid at start-up (orilab knobs
// took 70 ms of CPU), while most compilations never evaluate a MUFU.
// Datapaths with the same width and squarer cut share one table.
var sfuSquares = sync.OnceFunc(func() {
	built := map[[2]uint][]int64{}
	tabs := append([]*sfuDatapath{&sfuRcp, &sfuRsqEven, &sfuRsqOdd, &sfuSqrtEven, &sfuSqrtOdd, &sfuEx2, &sfuLg2, &sfuSin}, tanhTables[:]...)
	for _, t := range tabs {
		key := [2]uint{t.bits, t.sq}
		sq, ok := built[key]
		if !ok {
			sq = make([]int64, 1<<t.bits)
			for x := range sq {
				sq[x] = sfuSquare(uint32(x), t.bits, t.sq)
			}
			built[key] = sq
		}
		t.square = sq
	}
})

// sfuCoef is one segment of an sfuDatapath.
type sfuCoef struct {
	c0     int64
	c1, c2 int32
}

// sfuSquare is the interpolator's truncated squarer: x*x for an n-bit x
// from the folded partial-product array (x_i*x_j for i < j once, at
// weight 2^(i+j+1); x_i at 2^(2i)), keeping only the partial products of
// weight 2^k and above, divided by 2^16 (k >= 16). A complete square
// misses the H100's reciprocal on thousands of inputs of the [1,2)
// sweep; this one reproduces all 2^23.
func sfuSquare(x uint32, n, k uint) int64 {
	var s int64
	for i := uint(0); i < n; i++ {
		if x>>i&1 == 0 {
			continue
		}
		if 2*i >= k {
			s += 1 << (2 * i)
		}
		// x_i*x_j (j > i) sits at 2^(i+j+1): kept from j = k-1-i up.
		j := i + 1
		if i+j < k {
			j = k - 1 - i
		}
		for ; j < n; j++ {
			if x>>j&1 != 0 {
				s += 1 << (i + j + 1)
			}
		}
	}
	return s >> 16
}

// eval returns Y for the 23-bit fraction m.
func (t *sfuDatapath) eval(m uint32) uint32 {
	return uint32(t.evalWide(m))
}

// evalWide is eval for tables whose Y exceeds 32 bits (sfuLg2).
func (t *sfuDatapath) evalWide(m uint32) int64 {
	c := &t.seg[m>>t.bits]
	x := m & (1<<t.bits - 1)
	h := max(t.k1, t.k2)
	sfuSquares()
	var sq int64
	if t.square != nil {
		sq = t.square[x]
	} else { // a table being solved (TestGenerateMUFUTables)
		sq = sfuSquare(x, t.bits, t.sq)
	}
	p := c.c0 + int64(c.c1)*int64(x)<<(h-t.k1) + int64(c.c2)*sq<<(h-t.k2)
	return p >> h
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

// RsqSFU32 models MUFU.RSQ (rsqrt.approx.ftz.f32) with two interpolator
// tables, for even and odd exponents (sfuRsqEven on [1,2), sfuRsqOdd on
// [2,4); rsqY). Special values as Rsq32Approx.
func RsqSFU32(a uint32) uint32 {
	x, _, c, neg := mufuArg(a)
	if c != clsFinite || neg {
		return Rsq32Approx(a)
	}
	e, m := sfuNormal(x)
	return sfuPack(0, rsqY(e, m), -(e-e&1)/2-24)
}

// rsqY is MUFU.RSQ's result for 2^e * (1 + m*2^-23) in units of 2^-24
// (times 2^-(e-e&1)/2). Decision: an even power of two gives its exact
// root, 1.0: the H100 returns 0x3f800000 for rsqrt(1) where the [1,2)
// table's first segment gives 0x3f7fffff, and that segment reproduces
// every other input of the sweep. The interpolator is bypassed there.
func rsqY(e int, m uint32) uint32 {
	if e&1 != 0 {
		return sfuRsqOdd.eval(m)
	}
	if m == 0 {
		return 1 << 24
	}
	return sfuRsqEven.eval(m)
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
// above -2^-23 is exactly 1. The fraction indexes the table solved on
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

// Lg2SFU32 models MUFU.LG2 (lg2.approx.ftz.f32). The unit computes
// log2(1 + f) as a fixed-point number with 36 fraction bits (sfuLg2,
// solved from the [1,2) sweep on which it matches every input: the
// output is that number truncated to f32), adds the exponent and
// truncates the sum to f32 (toward zero). Decision: lg2(1) is 0, where
// the table's first segment gives 7377*2^-36; other powers of two are
// not special: lg2(2^-126) is 0xc2fbffff on the H100, -126 + 7377*2^-36
// truncated, while positive powers truncate to their exponent.
// Special values as Lg2Approx32.
func Lg2SFU32(a uint32) uint32 {
	x, _, c, neg := mufuArg(a)
	if c != clsFinite || neg {
		return Lg2Approx32(a)
	}
	e, m := sfuNormal(x)
	if e == 0 && m == 0 {
		return 0
	}
	v := int64(e)<<36 + sfuLg2.evalWide(m)
	sign := uint32(0)
	if v < 0 {
		sign, v = 0x80000000, -v
	}
	return sign | truncToF32(uint64(v), -36)
}

// truncToF32 returns v * 2^exp truncated to f32 (v < 2^60, exp such that
// the result is normal or zero).
func truncToF32(v uint64, exp int) uint32 {
	if v == 0 {
		return 0
	}
	n := 63 - bits.LeadingZeros64(v) // v's top bit
	var frac uint64
	if n > 23 {
		frac = v >> (n - 23)
	} else {
		frac = v << (23 - n)
	}
	return uint32(n+exp+127)<<23 | uint32(frac)&0x7fffff
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
	// Decision: a negative operand that is not a NaN or a zero gives the
	// high word 0x7fffffff (fmt64hi's NaN, as MUFU.RSQ gives 0x7fffffff
	// for a negative f32): the H100's rsqrt.approx.ftz.f64, which ptxas
	// 13.0 compiles to MUFU.RSQ64H alone, wrote 0x7fffffff over a zero
	// low word for all 2,008 negative operands in the programs of
	// fuzz-h100.tgz (26 of them differed only there). The
	// 0xfff8000000000000 of rsqrt.approx.f64 (ops-h100.tgz) is a constant
	// of ptxas's fix-up path for negative operands, not the unit's
	// (pipeline/lower float.go, flRsqrtF64).
	c, s, _, _ := unpack(fmt64hi, hi, true)
	if c != clsFinite || s != 0 {
		return Rsq64H(a)
	}
	e := int(hi>>20&0x7ff) - 1023
	y := rsqY(e, uint32(hi&0xfffff)<<3)
	return sfuHigh(0, float64(y)*math.Ldexp(1, -(e-e&1)/2-24))
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
// of x, and on the [1,2) radian sweeps sin and cos are functions of the
// 25-bit turn: inputs whose turns differ only below 2^-25 give the same
// outputs (and at 24 bits they do not).
//
// The top two bits of the turn are the quadrant, the other 23 an index u
// into one table, sfuSin: T(u) = sin(π/2 * u * 2^-23) as a fixed-point
// number with 38 fraction bits (interpolated like the other functions,
// 64 segments), truncated to f32. A quadrant that needs the cosine
// reads T(^u): the index is complemented bit by bit, not subtracted from
// 2^23, as ex2 does for negative operands. So sin is T(u), T(^u), -T(u),
// -T(^u) in quadrants 0..3 and cos is T(^u), -T(u), -T(^u), T(u). The
// sweeps show it: sin in quadrant 1 equals sin in quadrant 0 at ^u on all
// 61,215 inputs where both are seen, and cos in quadrant 0 equals -cos in
// quadrant 1 at ^u on all 2,290,089 (cos of a quarter turn is -0, -T(0)).
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
	quad, u := q>>23, uint32(q)&(1<<23-1)
	tu := truncToF32(uint64(sfuSin.evalWide(u)), -38)
	tc := truncToF32(uint64(sfuSin.evalWide(^u&(1<<23-1))), -38)
	switch quad {
	case 0:
		return sign ^ tu, tc
	case 1:
		return sign ^ tc, 0x80000000 ^ tu
	case 2:
		return sign ^ 0x80000000 ^ tu, 0x80000000 ^ tc
	}
	return sign ^ 0x80000000 ^ tc, tu
}

// tanhTables[e+8] is MUFU.TANH's table for |a| in [2^e, 2^(e+1)),
// e = -8..2. Every table has segments of 2^17 steps: one segment per
// binade up to 2^-5, two up to 2^-3, four up to 1, then segments of 1/8
// up to 4 and of 1/2 up to 8 (tanhRead).
var tanhTables = [...]*sfuDatapath{
	&sfuTanhM8, &sfuTanhM7, &sfuTanhM6, &sfuTanhM5, &sfuTanhM4, &sfuTanhM3, &sfuTanhM2,
	&sfuTanhHalf, &sfuTanhOne, &sfuTanhTwo, &sfuTanhFour,
}

// MUFU.TANH's bounds: |a| below 2^-8 gives a itself, |a| from 8 gives ±1.
const (
	tanhIdentBelow uint32 = 0x3b800000
	tanhOneMin     uint32 = 0x41000000
)

// tanhRead returns the table of the binade 2^e of |a|, the fraction bits
// it reads (the top 17 + log2(segments) of m) and the unit of its result
// Y: output = Y * 2^-unit, with 2^-unit = 2^-25 from 1 up, and one bit
// below the result's ulp at the bottom of the binade, 2^(e-24), below 1.
func tanhRead(e int, m uint32) (t *sfuDatapath, idx uint32, unit int) {
	t = tanhTables[e+8]
	drop := 23 - t.bits - uint(bits.Len(uint(len(t.seg)))-1)
	unit = 25
	if e < 0 {
		unit = 24 - e
	}
	return t, m >> drop, unit
}

// TanhSFU32 models MUFU.TANH (tanh.approx.f32), bit for bit on every
// input the H100 has been seen to compute: a itself for |a| < 2^-8
// (subnormals included), ±1 for |a| >= 8, and in between the unit's
// interpolator on |a| (tanhRead), its value truncated to f32, with the
// sign of a.
//
// Decision: the tables below 0.5 and from 2 up (sfuTanhM8 to sfuTanhM2,
// sfuTanhTwo, sfuTanhFour) are solved from the structured sweep alone
// (mufu-tanh.approx.f32.bin, 512 inputs per binade; [0.5, 2) comes from
// the exhaustive binade sweeps). The datapath is the one of [0.5, 2):
// 17-bit steps, the same squarer and coefficient resolutions. What
// differs per binade was read from the error pattern of the correctly
// rounded tanh against the H100 over the sweep: it restarts at segment
// boundaries, every 512, 256 and 128 structured inputs in the binades
// from 2^-8, 2^-5 and 2^-3, every 32 in [2, 4) and every 64 in [4, 8).
// Below 1 the unit's result is relative to the binade: at 2^-8 the H100
// returns the operand minus 256 f^2 ulps (f the fraction), an error
// against tanh that grows like f^2, not like x^3/3. With that shape every
// segment has a solution; in 7 of the 39 segments solved from the sweep
// (six of [2, 4), one of [4, 8)) two or three (C1, C2) fit, and the one
// taken has both coefficients multiples of 4, like every uniquely solved
// segment of [2, 8). Evidence the tables were not solved from: the H100's
// results for 582 operands of the recorded programs, spread over the nine
// binades, 574 of them with low fraction bits the sweep's inputs lack
// (testdata/tanh-h100-fuzz.txt, TestTanhHardwareFuzz), all agree. That also confirms that the unit
// ignores the fraction bits below its steps (at 2^-8 the low 6 bits of
// the operand) and the squarer's cut: cut at 2^16, 2^18, 2^20 or 2^22
// instead of 2^19, the fits miss observations in every binade but [4, 8)
// (where a cut at 2^18 fits too). What the sweep leaves open: the
// solutions that reproduce every observed input disagree on none of
// 2^-8's inputs, on 0.4% to 1% of each binade's below 0.5, on 2.6% of
// [4, 8)'s and 7.9% of [2, 4)'s (openInputs, counted per table in
// mufu_tables.go). Exhaustive sweeps of those binades, like the [0.5, 1)
// and [1, 2) ones, would settle them.
func TanhSFU32(a uint32) uint32 {
	m := a & 0x7fffffff
	switch {
	case m > posInf32:
		return CanonicalNaN32
	case m < tanhIdentBelow:
		return a
	case m >= tanhOneMin:
		return a&0x80000000 | one32
	}
	e, f := sfuNormal(m)
	t, idx, unit := tanhRead(e, f)
	return a&0x80000000 | truncToF32(uint64(t.evalWide(idx)), -unit)
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
