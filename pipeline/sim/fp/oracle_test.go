package fp

// The reference implementation the tests compare against: every finite
// result is computed exactly (or, for division and square root, to the
// exact target precision) with math/big, and rounded to the format by
// roundBig, which models gradual underflow, overflow and flush-to-zero
// itself. Operand decoding and the special-value rules are written again
// here, independently of the package code.

import (
	"math/big"
	"math/rand"
)

// tf is a test view of a format.
type tf struct {
	name  string
	p     int // precision including the hidden bit
	ebits int
	f     format // the package's format, for calling the code under test
}

var (
	tf16   = tf{"f16", 11, 5, fmt16}
	tfBF16 = tf{"bf16", 8, 8, fmtBF16}
	tf32   = tf{"f32", 24, 8, fmt32}
	tf64   = tf{"f64", 53, 11, fmt64}
)

func (t tf) bias() int          { return 1<<(t.ebits-1) - 1 }
func (t tf) emin() int          { return 1 - t.bias() }
func (t tf) emax() int          { return t.bias() }
func (t tf) width() int         { return t.p + t.ebits }
func (t tf) sign(x uint64) bool { return x>>(t.width()-1)&1 != 0 }
func (t tf) expField(x uint64) int {
	return int(x >> (t.p - 1) & (1<<t.ebits - 1))
}
func (t tf) frac(x uint64) uint64 { return x & (1<<(t.p-1) - 1) }
func (t tf) isNaN(x uint64) bool {
	return t.expField(x) == 1<<t.ebits-1 && t.frac(x) != 0
}
func (t tf) isInf(x uint64) bool {
	return t.expField(x) == 1<<t.ebits-1 && t.frac(x) == 0
}
func (t tf) isZero(x uint64) bool { return t.expField(x) == 0 && t.frac(x) == 0 }
func (t tf) isSub(x uint64) bool  { return t.expField(x) == 0 && t.frac(x) != 0 }
func (t tf) signBit() uint64      { return 1 << (t.width() - 1) }
func (t tf) inf(neg bool) uint64 {
	v := uint64(1<<t.ebits-1) << (t.p - 1)
	if neg {
		v |= t.signBit()
	}
	return v
}
func (t tf) zero(neg bool) uint64 {
	if neg {
		return t.signBit()
	}
	return 0
}
func (t tf) maxFinite(neg bool) uint64 { return t.inf(neg) - 1 }

// ftzIn is the input flush of .ftz.
func (t tf) ftzIn(x uint64) uint64 {
	if t.isSub(x) {
		return x & t.signBit()
	}
	return x
}

// expectNaN is the NaN the package promises for an operation whose
// operands are ops: f64 returns a NaN operand quieted (b, a, c), or
// DefaultNaN64; the others their canonical NaN.
func (t tf) expectNaN(ops ...uint64) uint64 {
	if t.p == 53 {
		// b, then a, then c.
		order := []int{1, 0, 2}
		if len(ops) == 1 {
			order = []int{0}
		}
		for _, i := range order {
			if i < len(ops) && t.isNaN(ops[i]) {
				return ops[i] | 1<<51
			}
		}
		return DefaultNaN64
	}
	if t.p == 24 {
		return uint64(CanonicalNaN32)
	}
	return 0x7fff
}

// toBig returns the exact value of the finite x (signed zeros kept).
func (t tf) toBig(x uint64) *big.Float {
	neg := t.sign(x)
	e := t.expField(x)
	m := t.frac(x)
	z := new(big.Float)
	if e == 0 {
		z.SetMantExp(new(big.Float).SetUint64(m), t.emin()-(t.p-1))
	} else {
		m |= 1 << (t.p - 1)
		z.SetMantExp(new(big.Float).SetUint64(m), e-t.bias()-(t.p-1))
	}
	if neg {
		z.Neg(z)
	}
	return z
}

func bigMode(rm Round) big.RoundingMode {
	switch rm {
	case RZ:
		return big.ToZero
	case RM:
		return big.ToNegativeInf
	case RP:
		return big.ToPositiveInf
	}
	return big.ToNearestEven
}

// roundBig rounds the exact value x to the format with gradual
// underflow; with ftz a subnormal result becomes a signed zero.
func (t tf) roundBig(x *big.Float, rm Round, ftz bool) uint64 {
	neg := x.Signbit()
	if x.Sign() == 0 {
		return t.zero(neg)
	}
	mant := new(big.Float)
	E := x.MantExp(mant) - 1 // |x| in [2^E, 2^(E+1))
	q := t.p
	if E < t.emin() {
		q = t.p - (t.emin() - E)
	}
	var y *big.Float
	if q >= 1 {
		y = new(big.Float).SetPrec(uint(q)).SetMode(bigMode(rm)).Set(x)
	} else {
		// |x| < smallest subnormal: the result is 0 or the smallest
		// subnormal.
		up := false
		switch rm {
		case RN:
			// Exactly half the smallest subnormal is a tie to 0.
			half := new(big.Float).SetMantExp(big.NewFloat(1), t.emin()-t.p)
			up = new(big.Float).Abs(x).Cmp(half) > 0
		case RP:
			up = !neg
		case RM:
			up = neg
		}
		if !up {
			return t.zero(neg)
		}
		if ftz {
			return t.zero(neg)
		}
		return t.zero(neg) | 1
	}
	// Encode y.
	E = y.MantExp(mant) - 1
	if E > t.emax() {
		switch {
		case rm == RZ, rm == RM && !neg, rm == RP && neg:
			return t.maxFinite(neg)
		}
		return t.inf(neg)
	}
	abs := new(big.Float).Abs(y)
	var bits uint64
	if E < t.emin() {
		if ftz {
			return t.zero(neg)
		}
		f, acc := new(big.Float).SetMantExp(abs, t.p-1-t.emin()).Uint64()
		if acc != big.Exact {
			panic("roundBig: inexact subnormal")
		}
		bits = f
	} else {
		f, acc := new(big.Float).SetMantExp(abs, t.p-1-E).Uint64()
		if acc != big.Exact {
			panic("roundBig: inexact")
		}
		bits = uint64(E+t.bias())<<(t.p-1) | f&^(1<<(t.p-1))
	}
	if neg {
		bits |= t.signBit()
	}
	return bits
}

const exactPrec = 4600 // enough for any exact sum involving f64 operands

// exactSum returns x+y exactly, with the IEEE sign of a zero sum: x+x
// keeps the sign of x, any other exact zero is +0, or -0 when rounding
// toward -inf. (big.Float gives -0 + +0 = +0 in every mode.)
func exactSum(x, y *big.Float, rm Round) *big.Float {
	z := new(big.Float).SetPrec(exactPrec).Add(x, y)
	if z.Acc() != big.Exact {
		panic("exactSum: inexact")
	}
	if z.Sign() == 0 {
		neg := rm == RM
		if x.Sign() == 0 && y.Sign() == 0 && x.Signbit() == y.Signbit() {
			neg = x.Signbit()
		}
		z.Abs(z)
		if neg {
			z.Neg(z)
		}
	}
	return z
}

func refAdd(t tf, a, b uint64, rm Round, ftz bool) uint64 {
	if ftz {
		a, b = t.ftzIn(a), t.ftzIn(b)
	}
	switch {
	case t.isNaN(a) || t.isNaN(b):
		return t.expectNaN(a, b)
	case t.isInf(a) && t.isInf(b) && t.sign(a) != t.sign(b):
		return t.expectNaN(a, b)
	case t.isInf(a):
		return a
	case t.isInf(b):
		return b
	}
	return t.roundBig(exactSum(t.toBig(a), t.toBig(b), rm), rm, ftz)
}

func refMul(t tf, a, b uint64, rm Round, ftz bool) uint64 {
	if ftz {
		a, b = t.ftzIn(a), t.ftzIn(b)
	}
	neg := t.sign(a) != t.sign(b)
	switch {
	case t.isNaN(a) || t.isNaN(b):
		return t.expectNaN(a, b)
	case t.isInf(a) && t.isZero(b) || t.isZero(a) && t.isInf(b):
		return t.expectNaN(a, b)
	case t.isInf(a) || t.isInf(b):
		return t.inf(neg)
	}
	z := new(big.Float).SetPrec(exactPrec).Mul(t.toBig(a), t.toBig(b))
	return t.roundBig(z, rm, ftz)
}

func refFma(t tf, a, b, c uint64, rm Round, ftz bool) uint64 {
	if ftz {
		a, b, c = t.ftzIn(a), t.ftzIn(b), t.ftzIn(c)
	}
	neg := t.sign(a) != t.sign(b)
	switch {
	case t.isNaN(a) || t.isNaN(b) || t.isNaN(c):
		return t.expectNaN(a, b, c)
	case t.isInf(a) && t.isZero(b) || t.isZero(a) && t.isInf(b):
		return t.expectNaN(a, b, c)
	case t.isInf(a) || t.isInf(b):
		if t.isInf(c) && t.sign(c) != neg {
			return t.expectNaN(a, b, c)
		}
		return t.inf(neg)
	case t.isInf(c):
		return c
	}
	p := new(big.Float).SetPrec(exactPrec).Mul(t.toBig(a), t.toBig(b))
	return t.roundBig(exactSum(p, t.toBig(c), rm), rm, ftz)
}

func refDiv(t tf, a, b uint64, rm Round, ftz bool) uint64 {
	if ftz {
		a, b = t.ftzIn(a), t.ftzIn(b)
	}
	neg := t.sign(a) != t.sign(b)
	switch {
	case t.isNaN(a) || t.isNaN(b):
		return t.expectNaN(a, b)
	case t.isInf(a) && t.isInf(b), t.isZero(a) && t.isZero(b):
		return t.expectNaN(a, b)
	case t.isInf(a), t.isZero(b):
		return t.inf(neg)
	case t.isZero(a), t.isInf(b):
		return t.zero(neg)
	}
	x, y := t.toBig(a), t.toBig(b)
	// The exponent of the exact quotient, from a truncated one.
	tq := new(big.Float).SetPrec(uint(t.p+8)).SetMode(big.ToZero).Quo(x, y)
	E := tq.MantExp(nil) - 1
	q := t.p
	if E < t.emin() {
		q = t.p - (t.emin() - E)
	}
	if q >= 1 {
		z := new(big.Float).SetPrec(uint(q)).SetMode(bigMode(rm)).Quo(x, y)
		return t.roundBig(z, rm, ftz) // exact at q bits: only encodes
	}
	// Below the smallest subnormal: decide against its half exactly.
	tiny := new(big.Float).SetPrec(exactPrec).SetMantExp(big.NewFloat(1), t.emin()-t.p)
	ay := new(big.Float).SetPrec(exactPrec).Abs(y)
	h := new(big.Float).SetPrec(exactPrec).Mul(tiny, ay)
	ax := new(big.Float).Abs(x)
	var up bool
	switch rm {
	case RN:
		up = ax.Cmp(h) > 0
	case RP:
		up = !neg
	case RM:
		up = neg
	}
	if !up || ftz {
		return t.zero(neg)
	}
	return t.zero(neg) | 1
}

func refSqrt(t tf, a uint64, rm Round, ftz bool) uint64 {
	if ftz {
		a = t.ftzIn(a)
	}
	switch {
	case t.isNaN(a):
		return t.expectNaN(a)
	case t.isZero(a):
		return a
	case t.sign(a):
		return t.expectNaN(a)
	case t.isInf(a):
		return a
	}
	// 300 bits >= 2*53+2: rounding the square root twice is innocuous,
	// and an inexact root is never within 2^-300 of a 53-bit number.
	z := new(big.Float).SetPrec(300).Sqrt(t.toBig(a))
	return t.roundBig(z, rm, ftz)
}

// gen draws operands biased toward the edges of format t.
type gen struct {
	t tf
	r *rand.Rand
}

func (g gen) bits(x uint64) uint64 { return x & (1<<g.t.width() - 1) }

// pack builds a value from a sign, a biased exponent field and a
// fraction.
func (g gen) pack(neg bool, e int, frac uint64) uint64 {
	t := g.t
	if e < 0 {
		e = 0
	}
	if e > 1<<t.ebits-1 {
		e = 1<<t.ebits - 1
	}
	v := uint64(e)<<(t.p-1) | frac&(1<<(t.p-1)-1)
	if neg {
		v |= t.signBit()
	}
	return v
}

// frac draws a fraction: uniform, sparse (few bits: exact results and
// ties) or with long runs of ones or zeros (carries).
func (g gen) frac() uint64 {
	t := g.t
	mask := uint64(1)<<(t.p-1) - 1
	switch g.r.Intn(6) {
	case 0, 1:
		return g.r.Uint64() & mask
	case 2: // sparse
		var f uint64
		for n := g.r.Intn(4); n > 0; n-- {
			f |= 1 << uint(g.r.Intn(t.p-1))
		}
		return f
	case 3: // top bits only
		k := g.r.Intn(t.p)
		return g.r.Uint64() & mask &^ (mask >> uint(k))
	case 4: // all ones low, random high
		k := g.r.Intn(t.p)
		return (g.r.Uint64() | mask>>uint(k)) & mask
	}
	if g.r.Intn(2) == 0 {
		return 0
	}
	return mask
}

func (g gen) special() uint64 {
	t := g.t
	neg := g.r.Intn(2) == 0
	maxE := 1<<t.ebits - 1
	switch g.r.Intn(12) {
	case 0:
		return t.zero(neg)
	case 1:
		return t.inf(neg)
	case 2: // NaN with a random payload, quiet or signalling
		f := g.r.Uint64()&(1<<(t.p-1)-1) | 1
		return g.pack(neg, maxE, f)
	case 3:
		return g.pack(neg, 0, 1) // smallest subnormal
	case 4:
		return g.pack(neg, 0, 1<<(t.p-1)-1) // largest subnormal
	case 5:
		return g.pack(neg, 1, 0) // smallest normal
	case 6:
		return t.maxFinite(neg)
	case 7:
		return g.pack(neg, t.bias(), 0) // ±1
	case 8:
		return g.pack(neg, t.bias(), 1) // 1+ulp
	case 9:
		return g.pack(neg, t.bias()-1, 1<<(t.p-1)-1) // 1-ulp/2
	case 10:
		return g.pack(neg, 1, g.frac())
	}
	return g.pack(neg, maxE-1, g.frac())
}

// value draws one operand.
func (g gen) value() uint64 {
	t := g.t
	maxE := 1<<t.ebits - 1
	neg := g.r.Intn(2) == 0
	switch g.r.Intn(10) {
	case 0:
		return g.bits(g.r.Uint64())
	case 1, 2:
		return g.special()
	case 3: // subnormal or just above
		return g.pack(neg, g.r.Intn(3), g.frac())
	case 4: // near overflow
		return g.pack(neg, maxE-1-g.r.Intn(3), g.frac())
	}
	// Around 1.
	return g.pack(neg, t.bias()+g.r.Intn(9)-4, g.frac())
}

// near draws an operand whose exponent is within a few precisions of x's
// (cancellation, ties, alignment edge cases).
func (g gen) near(x uint64) uint64 {
	t := g.t
	d := g.r.Intn(2*t.p+7) - t.p - 3
	return g.pack(g.r.Intn(2) == 0, t.expField(x)+d, g.frac())
}

// pair draws two operands for add/mul/div.
func (g gen) pair(op string) (uint64, uint64) {
	t := g.t
	a := g.value()
	switch g.r.Intn(4) {
	case 0:
		return a, g.value()
	case 1:
		if op == "add" && t.expField(a) != 0 {
			// b close to -a: massive cancellation.
			b := a ^ t.signBit()
			return a, b ^ uint64(g.r.Intn(1<<uint(g.r.Intn(t.p-1)+1)))
		}
		if op == "mul" || op == "div" {
			// Put the result near the underflow or overflow boundary.
			ea := t.expField(a) - t.bias()
			var target int
			if g.r.Intn(2) == 0 {
				target = t.emin() - g.r.Intn(t.p+2)
			} else {
				target = t.emax() - 1 + g.r.Intn(3)
			}
			eb := target - ea
			if op == "div" {
				eb = ea - target
			}
			return a, g.pack(g.r.Intn(2) == 0, eb+t.bias(), g.frac())
		}
	}
	return a, g.near(a)
}

// triple draws three operands for fma.
func (g gen) triple(rm Round) (uint64, uint64, uint64) {
	t := g.t
	a, b := g.pair("mul")
	if g.r.Intn(3) == 0 {
		a, b = g.value(), g.value()
	}
	switch g.r.Intn(4) {
	case 0:
		return a, b, g.value()
	case 1:
		// c close to -(a*b): cancellation of the exact product.
		p := mul(t.f, a, b, rm, false)
		c := p ^ t.signBit()
		if g.r.Intn(2) == 0 {
			c ^= uint64(g.r.Intn(1 << uint(g.r.Intn(t.p-1)+1)))
		}
		return a, b, c
	case 2:
		p := mul(t.f, a, b, RZ, false)
		return a, b, g.near(p)
	}
	return a, b, g.near(a)
}
