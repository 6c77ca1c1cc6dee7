package fp

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// Special-value tables of the PTX ISA for the .approx.ftz instructions
// (rcp, rsqrt, sqrt, ex2, lg2, sin, cos) and tanh.approx.f32.
func TestMUFUSpecials(t *testing.T) {
	const (
		ninf, nsub, nz, pz, psub, pinf, nan = 0xff800000, 0x807fffff, 0x80000000, 0, 0x00000001, 0x7f800000, 0x7fc00000
		one, negone, N                      = 0x3f800000, 0xbf800000, CanonicalNaN32
	)
	in := []uint32{ninf, nsub, nz, pz, psub, pinf, nan}
	for _, c := range []struct {
		name string
		fn   func(uint32) uint32
		want []uint32 // for -inf, -subnormal, -0, +0, +subnormal, +inf, NaN
	}{
		{"rcp", Rcp32Approx, []uint32{nz, ninf, ninf, pinf, pinf, pz, N}},
		{"rsqrt", Rsq32Approx, []uint32{N, ninf, ninf, pinf, pinf, pz, N}},
		{"sqrt", Sqrt32Approx, []uint32{N, nz, nz, pz, pz, pinf, N}},
		{"ex2", Ex2Approx32, []uint32{pz, one, one, one, one, pinf, N}},
		{"lg2", Lg2Approx32, []uint32{N, ninf, ninf, ninf, ninf, pinf, N}},
		{"sin", SinApprox32, []uint32{N, nz, nz, pz, pz, N, N}},
		{"cos", CosApprox32, []uint32{N, one, one, one, one, N, N}},
		{"sinrev", SinRevApprox32, []uint32{N, nz, nz, pz, pz, N, N}},
		{"cosrev", CosRevApprox32, []uint32{N, one, one, one, one, N, N}},
		{"tanh", TanhApprox32, []uint32{negone, nsub, nz, pz, psub, one, N}},
	} {
		for i, x := range in {
			if got := c.fn(x); got != c.want[i] {
				t.Errorf("%s(%#x) = %#x, want %#x", c.name, x, got, c.want[i])
			}
		}
	}
	// Negative normal inputs.
	for _, c := range []struct {
		name string
		got  uint32
	}{{"rsqrt(-1)", Rsq32Approx(negone)}, {"sqrt(-1)", Sqrt32Approx(negone)}, {"lg2(-1)", Lg2Approx32(negone)}} {
		if c.got != N {
			t.Errorf("%s = %#x", c.name, c.got)
		}
	}
	// Results outside the normal range flush; exact values stay exact.
	for _, c := range []struct {
		name      string
		got, want uint32
	}{
		{"rcp(2^127)", Rcp32Approx(0x7f000000), 0}, // 2^-127 is subnormal
		{"rcp(2^126)", Rcp32Approx(0x7e800000), 0x00800000},
		{"rcp(-2^127)", Rcp32Approx(0xff000000), nz},
		{"ex2(-127)", Ex2Approx32(0xc2fe0000), 0},
		{"ex2(-126)", Ex2Approx32(0xc2fc0000), 0x00800000},
		{"ex2(128)", Ex2Approx32(0x43000000), pinf},
		{"ex2(10)", Ex2Approx32(0x41200000), 0x44800000},
		{"lg2(1)", Lg2Approx32(one), 0},
		{"lg2(2^-126)", Lg2Approx32(0x00800000), 0xc2fc0000},
		{"rsqrt(4)", Rsq32Approx(0x40800000), 0x3f000000},
		{"sinrev(0.25)", SinRevApprox32(0x3e800000), one},
		{"sinrev(0.5)", SinRevApprox32(0x3f000000), 0},
		{"sinrev(-0.75)", SinRevApprox32(0xbf400000), one},
		{"cosrev(0.25)", CosRevApprox32(0x3e800000), 0},
		{"cosrev(0.5)", CosRevApprox32(0x3f000000), negone},
		{"cosrev(2^30)", CosRevApprox32(0x4e800000), one},
		{"tanh(10)", TanhApprox32(0x41200000), one},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

// ulp32 returns the spacing of f32 values at the magnitude of y.
func ulp32(y float64) float64 {
	y = math.Abs(y)
	if y < 0x1p-126 {
		return 0x1p-149
	}
	_, e := math.Frexp(y) // y in [2^(e-1), 2^e)
	return math.Ldexp(1, e-24)
}

// TestMUFUBounds checks every approximation against float64 math with
// the PTX error bounds of the matching instruction, and that the error
// never exceeds half an ulp by more than float64's own error (the
// results are the correctly rounded values of the float64 results).
func TestMUFUBounds(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	type fn struct {
		name string
		f    func(uint32) uint32
		ref  func(float64) float64
		ok   func(x, got, want float64) bool // the PTX bound
		gen  func() float32
	}
	anyNormal := func() float32 {
		for {
			x := math.Float32frombits(r.Uint32())
			if x == x && !math.IsInf(float64(x), 0) && math.Abs(float64(x)) >= 0x1p-126 {
				return x
			}
		}
	}
	pos := func() float32 { return float32(math.Abs(float64(anyNormal()))) }
	rel := func(b float64) func(x, got, want float64) bool {
		return func(x, got, want float64) bool { return math.Abs(got-want) <= b*math.Abs(want) }
	}
	fns := []fn{
		{"rcp", Rcp32Approx, func(x float64) float64 { return 1 / x },
			func(x, got, want float64) bool { return math.Abs(got-want) <= ulp32(want) }, anyNormal},
		{"rsqrt", Rsq32Approx, func(x float64) float64 { return 1 / math.Sqrt(x) }, rel(math.Exp2(-22.9)), pos},
		{"sqrt", Sqrt32Approx, math.Sqrt, rel(0x1p-23), pos},
		{"ex2", Ex2Approx32, math.Exp2,
			func(x, got, want float64) bool { return math.Abs(got-want) <= 2*ulp32(want) },
			func() float32 { return float32(r.Float64()*252 - 126) }},
		{"lg2", Lg2Approx32, func(x float64) float64 { return math.Log1p(x-1) / math.Ln2 },
			func(x, got, want float64) bool { return math.Abs(got-want) <= math.Exp2(-22.6) },
			func() float32 { return float32(1 + 3*r.Float64()) }}, // [1, 4)
		{"sin", SinApprox32, math.Sin,
			func(x, got, want float64) bool { return math.Abs(got-want) <= math.Exp2(-20.9) },
			func() float32 { return float32((2*r.Float64() - 1) * math.Pi) }},
		{"cos", CosApprox32, math.Cos,
			func(x, got, want float64) bool { return math.Abs(got-want) <= math.Exp2(-20.9) },
			func() float32 { return float32((2*r.Float64() - 1) * math.Pi) }},
		{"sin100π", SinApprox32, math.Sin,
			func(x, got, want float64) bool { return math.Abs(got-want) <= math.Exp2(-20.5) },
			func() float32 { return float32((2*r.Float64() - 1) * 100 * math.Pi) }},
		{"tanh", TanhApprox32, math.Tanh, rel(math.Exp2(-10.987)), func() float32 { return float32(r.NormFloat64() * 4) }},
		{"sinrev", SinRevApprox32, func(x float64) float64 { return math.Sin(2 * math.Pi * x) },
			func(x, got, want float64) bool { return math.Abs(got-want) <= math.Exp2(-20.9) },
			func() float32 { return float32(2*r.Float64() - 1) }},
	}
	for _, f := range fns {
		worst := 0.0
		for i := 0; i < n(t, 60000); i++ {
			x := f.gen()
			if x == 0 {
				continue
			}
			got := float64(math.Float32frombits(f.f(math.Float32bits(x))))
			want := f.ref(float64(x))
			if math.Abs(want) < 0x1p-126 || math.Abs(want) > math.MaxFloat32 {
				continue // flushed or overflowed; covered by the specials
			}
			if !f.ok(float64(x), got, want) {
				t.Errorf("%s(%v = %#x) = %v, want %v within the PTX bound", f.name, x, math.Float32bits(x), got, want)
				continue
			}
			if e := math.Abs(got-want) / ulp32(want); e > worst {
				worst = e
			}
		}
		// Half an ulp plus float64's error (a few ulp of f64 are ~2^-27
		// ulp of f32).
		if worst > 0.5+0x1p-20 {
			t.Errorf("%s: worst error %.9f ulp", f.name, worst)
		}
		t.Logf("%-8s worst error vs float64 math: %.9f ulp", f.name, worst)
	}
}

// TestLg2NearOne checks the region where math.Log2 cancels.
func TestLg2NearOne(t *testing.T) {
	for k := uint32(1); k < 1<<16; k++ {
		for _, x := range []uint32{0x3f800000 + k, 0x3f800000 - k} {
			v := float64(math.Float32frombits(x))
			want := math.Log1p(v-1) / math.Ln2
			got := float64(math.Float32frombits(Lg2Approx32(x)))
			if math.Abs(got-want) > 0.5000001*ulp32(want) {
				t.Fatalf("lg2(%#x) = %v, want %v", x, got, want)
			}
		}
	}
}

func TestRcpRsq64H(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"rcp(2)", Rcp64H(0x4000000000000000), 0x3fe0000000000000},
		{"rcp(+0)", Rcp64H(0), 0x7ff0000000000000},
		{"rcp(-0)", Rcp64H(1 << 63), 0xfff0000000000000},
		{"rcp(subnormal)", Rcp64H(0x000fffff00000000), 0x7ff0000000000000},
		{"rcp(inf)", Rcp64H(0xfff0000000000000), 1 << 63},
		{"rcp(nan)", Rcp64H(0x7ff8000000000000), 0x7fffffff00000000},
		{"rcp(2^1023)", Rcp64H(0x7fe0000000000000), 0}, // 2^-1023 is subnormal
		{"rcp ignores the low word", Rcp64H(0x4000000012345678), 0x3fe0000000000000},
		{"rsq(4)", Rsq64H(0x4010000000000000), 0x3fe0000000000000},
		{"rsq(-0)", Rsq64H(1 << 63), 0xfff0000000000000},
		{"rsq(-1)", Rsq64H(0xbff0000000000000), 0x7fffffff00000000},
		{"rsq(+inf)", Rsq64H(0x7ff0000000000000), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
	// Both are the correctly rounded 21-bit values.
	r := rand.New(rand.NewSource(3))
	for i := 0; i < n(t, 20000); i++ {
		hi := uint64(r.Uint32()&0x7fefffff|0x00100000) << 32
		if hi>>52&0x7ff == 0x7ff {
			continue
		}
		xb := tf64.toBig(hi)
		rcp := new(big.Float).SetPrec(21).Quo(big.NewFloat(1), xb)
		rsq := new(big.Float).SetPrec(21).Set(bigRsqrt(xb))
		if xb.Sign() > 0 {
			if want := tf64.roundBig(rsq, RN, true); Rsq64H(hi) != want {
				t.Fatalf("Rsq64H(%#x) = %#x, want %#x", hi, Rsq64H(hi), want)
			}
		}
		if want := tf64.roundBig(rcp, RN, true); want>>52&0x7ff != 0 && Rcp64H(hi) != want {
			t.Fatalf("Rcp64H(%#x) = %#x, want %#x", hi, Rcp64H(hi), want)
		}
	}
	for i := 0; i < n(t, 100000); i++ {
		hi := uint64(r.Uint32()&0x7fefffff|0x00100000) << 32
		x := math.Float64frombits(hi)
		for _, c := range []struct {
			got  uint64
			want float64
		}{{Rcp64H(hi), 1 / x}, {Rsq64H(hi), 1 / math.Sqrt(x)}} {
			if c.got&0xffffffff != 0 {
				t.Fatalf("low word not zero: %#x", c.got)
			}
			if math.Abs(c.want) < 0x1p-1022 {
				continue
			}
			if g := math.Float64frombits(c.got); math.Abs(g-c.want) > 0x1p-21*math.Abs(c.want) {
				t.Fatalf("x=%v: got %v want %v", x, g, c.want)
			}
		}
	}
}

// TestInvTwoPi checks the 256-bit constant against π from Machin's
// formula, and sin/cos with the exact reduction (|x| >= 1) against the
// 300-bit references.
func TestInvTwoPi(t *testing.T) {
	twoPi := new(big.Float).SetPrec(600).Mul(bigPi(), big.NewFloat(2))
	c := new(big.Float).SetPrec(600).Quo(big.NewFloat(1), twoPi)
	c.SetMantExp(c, 256)
	want, _ := c.Int(nil)
	got := new(big.Int)
	for _, w := range invTwoPi {
		got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(w))
	}
	if got.Cmp(want) != 0 {
		t.Fatalf("invTwoPi = %x, want %x", got, want)
	}
	r := rand.New(rand.NewSource(4))
	for i := 0; i < n(t, 3000); i++ {
		x := uint32(r.Intn(2))<<31 | uint32(127+r.Intn(128))<<23 | r.Uint32()&0x7fffff
		for _, c := range []struct {
			name string
			got  uint32
			ref  func(*big.Float) *big.Float
		}{{"sin", SinApprox32(x), bigSin}, {"cos", CosApprox32(x), bigCos}} {
			want := uint32(tf32.roundBig(c.ref(tf32.toBig(uint64(x))), RN, true))
			if c.got != want {
				t.Errorf("%s(%#x) = %#x, want %#x", c.name, x, c.got, want)
			}
		}
	}
}

// TestZiv pins the 8 inputs (of all 2^32, for every model) whose float64
// value rounds to the wrong f32 neighbour, as found by the exhaustive
// scan: only the math/big re-evaluation gets them right. It also checks
// roundBigF32 against the test's own rounding.
func TestZiv(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint32
	}{
		{"ex2(0xbcf3a937)", Ex2Approx32(0xbcf3a937), 0x3f7ac6b1},
		{"ex2(0x3b429d37)", Ex2Approx32(0x3b429d37), 0x3f804385},
		{"sin(0x46199998)", SinApprox32(0x46199998), 0xbeb1fa5d},
		{"sin(0xc6199998)", SinApprox32(0xc6199998), 0x3eb1fa5d},
		{"cos(0x6115cb11)", CosApprox32(0x6115cb11), 0x3f78142f},
		{"cos(0xe115cb11)", CosApprox32(0xe115cb11), 0x3f78142f},
		{"cos(0x5f18b878)", CosApprox32(0x5f18b878), 0x3f7f14bb},
		{"cos(0xdf18b878)", CosApprox32(0xdf18b878), 0x3f7f14bb},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
	r := rand.New(rand.NewSource(8))
	g := gen{tf64, r}
	for i := 0; i < n(t, 20000); i++ {
		x := wideGen(g, tf32)
		if tf64.isNaN(x) || tf64.isInf(x) {
			continue
		}
		v := tf64.toBig(x)
		for _, ftz := range []bool{false, true} {
			if got, want := uint64(roundBigF32(v, ftz)), tf32.roundBig(v, RN, ftz); got != want {
				t.Fatalf("roundBigF32(%#x, %v) = %#x, want %#x", x, ftz, got, want)
			}
		}
	}
}
