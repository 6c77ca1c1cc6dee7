package fp

// The slow path of the MUFU models: 300-bit math/big evaluations of the
// exact functions, used when a float64 result is too close to an f32
// rounding midpoint for its own error to be ignored (see round32Ziv).
// Series and constants are evaluated lazily on first use.

import (
	"math"
	"math/big"
	"sync"
)

const hp = 300 // bits of the high-precision evaluations

// zivWindow is the distance, in float64 ulps, from an f32 rounding
// midpoint within which a float64 result is re-evaluated with math/big.
// Go's math functions are within 1.4 float64 ulps on every input the
// package's exhaustive test samples.
const zivWindow = 16

// round32Ziv rounds the float64 approximation y of f(x) to f32 (RN,
// flushing subnormal results when ftz), re-evaluating f with math/big
// when y is close to a rounding midpoint, so that the result is the
// correctly rounded f32 value of the exact f(x).
func round32Ziv(y float64, x uint32, ref func(*big.Float) *big.Float, ftz bool) uint32 {
	b := math.Float64bits(y)
	e := b >> 52 & 0x7ff
	d := int64(b&(1<<29-1)) - 1<<28
	near := e >= 1023-126 && e < 0x7ff && d >= -zivWindow && d <= zivWindow
	// Just below 2^-126 the RN boundary with the flushed side is the
	// subnormal midpoint 2^-126 - 2^-150.
	near = near || ftz && e == 1023-127
	if !near {
		return f64toF32(y, ftz)
	}
	return uint32(roundBigF32(ref(bigOf32(x)), ftz))
}

// bigOf32 returns the exact value of the finite f32 x.
func bigOf32(x uint32) *big.Float {
	return new(big.Float).SetPrec(hp).SetFloat64(float64(math.Float32frombits(x)))
}

// roundBigF32 rounds v to f32 (RN) with gradual underflow, or flushing
// subnormal results with ftz.
func roundBigF32(v *big.Float, ftz bool) uint32 {
	f, _ := v.Float32() // RN, IEEE gradual underflow and overflow
	r := math.Float32bits(f)
	if ftz && r&0x7f800000 == 0 {
		r &= 0x80000000
	}
	return r
}

func bf(x float64) *big.Float { return new(big.Float).SetPrec(hp).SetFloat64(x) }

// bigLn2 = 2 atanh(1/3).
var bigLn2 = sync.OnceValue(func() *big.Float {
	return new(big.Float).SetPrec(hp).Mul(bf(2), bigAtanh(new(big.Float).SetPrec(hp).Quo(bf(1), bf(3))))
})

// bigPi = 16 atan(1/5) - 4 atan(1/239) (Machin), with room for reducing
// arguments up to 2^128.
var bigPi = sync.OnceValue(func() *big.Float {
	p := uint(hp + 200)
	atanInv := func(n float64) *big.Float {
		x := new(big.Float).SetPrec(p).Quo(new(big.Float).SetPrec(p).SetFloat64(1), new(big.Float).SetPrec(p).SetFloat64(n))
		x2 := new(big.Float).SetPrec(p).Mul(x, x)
		sum := new(big.Float).SetPrec(p)
		term := new(big.Float).SetPrec(p).Set(x)
		for k := 0; k < 2000; k++ {
			q := new(big.Float).SetPrec(p).Quo(term, new(big.Float).SetPrec(p).SetFloat64(float64(2*k+1)))
			if k%2 == 0 {
				sum.Add(sum, q)
			} else {
				sum.Sub(sum, q)
			}
			term.Mul(term, x2)
			if term.MantExp(nil) < -int(p)-10 {
				break
			}
		}
		return sum
	}
	a := new(big.Float).SetPrec(p).Mul(new(big.Float).SetPrec(p).SetFloat64(16), atanInv(5))
	b := new(big.Float).SetPrec(p).Mul(new(big.Float).SetPrec(p).SetFloat64(4), atanInv(239))
	return a.Sub(a, b)
})

// bigAtanh sums the series for |x| <= 1/3.
func bigAtanh(x *big.Float) *big.Float {
	x2 := new(big.Float).SetPrec(hp).Mul(x, x)
	sum := new(big.Float).SetPrec(hp)
	term := new(big.Float).SetPrec(hp).Set(x)
	for k := 0; k < 1000 && term.Sign() != 0; k++ {
		sum.Add(sum, new(big.Float).SetPrec(hp).Quo(term, bf(float64(2*k+1))))
		term.Mul(term, x2)
		if term.MantExp(nil) < sum.MantExp(nil)-hp-10 {
			break
		}
	}
	return sum
}

// bigExp computes e^x by reducing x = k ln2 + r, |r| <= ln2/2.
func bigExp(x *big.Float) *big.Float {
	kf, _ := new(big.Float).Quo(x, bigLn2()).Float64()
	k := math.Round(kf)
	r := new(big.Float).SetPrec(hp).Sub(x, new(big.Float).SetPrec(hp).Mul(bf(k), bigLn2()))
	sum := bf(1)
	term := bf(1)
	for i := 1; i < 400; i++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(i)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < -hp-10 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

func bigExp2(x *big.Float) *big.Float {
	return bigExp(new(big.Float).SetPrec(hp).Mul(x, bigLn2()))
}

// bigLog2: x = m 2^e, m in [1, 2), ln m = 2 atanh((m-1)/(m+1)).
func bigLog2(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(hp)
	e := x.MantExp(m) - 1
	m.SetMantExp(m, 1)
	num := new(big.Float).SetPrec(hp).Sub(m, bf(1))
	den := new(big.Float).SetPrec(hp).Add(m, bf(1))
	ln := bigAtanh(num.Quo(num, den))
	ln.Mul(ln, bf(2))
	ln.Quo(ln, bigLn2())
	return ln.Add(ln, bf(float64(e)))
}

// bigSinCos2 returns sin(r), cos(r) for |r| <= π by Taylor series.
func bigSinCos(r *big.Float) (*big.Float, *big.Float) {
	r2 := new(big.Float).SetPrec(hp).Mul(r, r)
	s, c := new(big.Float).SetPrec(hp), new(big.Float).SetPrec(hp)
	ts, tc := new(big.Float).SetPrec(hp).Set(r), bf(1)
	for k := 0; k < 400; k++ {
		if k%2 == 0 {
			s.Add(s, ts)
			c.Add(c, tc)
		} else {
			s.Sub(s, ts)
			c.Sub(c, tc)
		}
		ts.Mul(ts, r2)
		ts.Quo(ts, bf(float64((2*k+2)*(2*k+3))))
		tc.Mul(tc, r2)
		tc.Quo(tc, bf(float64((2*k+1)*(2*k+2))))
		if ts.Sign() == 0 || ts.MantExp(nil) < -hp-20 && tc.MantExp(nil) < -hp-20 {
			break
		}
	}
	return s, c
}

// reduce2π returns x - 2πk in [-π, π].
func reduce2π(x *big.Float) *big.Float {
	p := bigPi().Prec()
	twoPi := new(big.Float).SetPrec(p).Mul(bigPi(), new(big.Float).SetFloat64(2))
	q := new(big.Float).SetPrec(p).Quo(x, twoPi)
	k, _ := q.Int(nil)
	// round to nearest
	fr := new(big.Float).SetPrec(p).Sub(q, new(big.Float).SetInt(k))
	if fr.Cmp(big.NewFloat(0.5)) > 0 {
		k.Add(k, big.NewInt(1))
	} else if fr.Cmp(big.NewFloat(-0.5)) < 0 {
		k.Sub(k, big.NewInt(1))
	}
	r := new(big.Float).SetPrec(p).Mul(new(big.Float).SetPrec(p).SetInt(k), twoPi)
	r.Sub(new(big.Float).SetPrec(p).Set(x), r)
	return new(big.Float).SetPrec(hp).Set(r)
}

func bigSin(x *big.Float) *big.Float { s, _ := bigSinCos(reduce2π(x)); return s }
func bigCos(x *big.Float) *big.Float { _, c := bigSinCos(reduce2π(x)); return c }

// frac2π returns 2π(x - round(x)).
func frac2π(x *big.Float) *big.Float {
	k, _ := x.Int(nil)
	f := new(big.Float).SetPrec(hp).Sub(x, new(big.Float).SetInt(k)) // exact
	if f.Cmp(big.NewFloat(0.5)) > 0 {
		f.Sub(f, bf(1))
	} else if f.Cmp(big.NewFloat(-0.5)) < 0 {
		f.Add(f, bf(1))
	}
	f.Mul(f, bigPi())
	return f.Mul(f, bf(2))
}

func bigSinRev(x *big.Float) *big.Float { s, _ := bigSinCos(frac2π(x)); return s }
func bigCosRev(x *big.Float) *big.Float { _, c := bigSinCos(frac2π(x)); return c }

func bigRsqrt(x *big.Float) *big.Float {
	s := new(big.Float).SetPrec(hp).Sqrt(x)
	return s.Quo(bf(1), s)
}

// bigTanh = (e^2x - 1)/(e^2x + 1); 300 bits absorb the cancellation for
// any f32 x.
func bigTanh(x *big.Float) *big.Float {
	if v, _ := x.Float64(); math.Abs(v) > 20 {
		return bf(math.Copysign(1, v)) // within 2^-57 of ±1
	}
	e := bigExp(new(big.Float).SetPrec(hp).Mul(x, bf(2)))
	num := new(big.Float).SetPrec(hp).Sub(e, bf(1))
	return num.Quo(num, new(big.Float).SetPrec(hp).Add(e, bf(1)))
}
