package fp

// An exhaustive check of the MUFU approximations over all 2^32 inputs,
// opt-in because it takes minutes:
//
//	FP_EXHAUSTIVE=1 go test -run TestMUFUExhaustive -timeout 1h -v ./pipeline/sim/fp
//
// For every input it checks that the result is within half an f32 ulp
// of the float64 value (plus float64's error) and collects the inputs
// whose float64 value lies within 256 float64 ulps of an f32 rounding
// midpoint: only there can the float64 error change the f32 rounding. A
// random sample first measures that error against 300-bit math/big
// references and checks it is far below 256 ulps. Each collected input is
// then settled with the math/big reference, and the inputs whose result
// is not the correctly rounded value are reported.

import (
	"math"
	"math/big"
	"math/rand"
	"os"
	"runtime"
	"sync"
	"testing"
)

func TestMUFUExhaustive(t *testing.T) {
	if os.Getenv("FP_EXHAUSTIVE") == "" {
		t.Skip("set FP_EXHAUSTIVE=1 to scan all 2^32 inputs")
	}
	type fn struct {
		name string
		f    func(uint32) uint32
		y    func(float64) float64       // the float64 value the code rounds
		ref  func(*big.Float) *big.Float // exact to hp bits
		ftz  bool
	}
	fns := []fn{
		{"rsqrt", Rsq32Approx, func(v float64) float64 { return 1 / math.Sqrt(v) }, bigRsqrt, true},
		{"ex2", Ex2Approx32, math.Exp2, bigExp2, true},
		{"lg2", Lg2Approx32, log2, bigLog2, true},
		{"sin", SinApprox32, sinY, bigSin, true},
		{"cos", CosApprox32, cosY, bigCos, true},
		{"sinrev", SinRevApprox32, func(v float64) float64 { s, _ := sinCosRev(v); return s }, bigSinRev, true},
		{"cosrev", CosRevApprox32, func(v float64) float64 { _, c := sinCosRev(v); return c }, bigCosRev, true},
		{"tanh", TanhApprox32, math.Tanh, bigTanh, false},
		// Correctly rounded float64 results with innocuous double
		// rounding: scanned for the bound only.
		{"rcp", Rcp32Approx, func(v float64) float64 { return 1 / v }, nil, true},
		{"sqrt", Sqrt32Approx, math.Sqrt, nil, true},
	}
	const window = 256 // float64 ulps around each f32 midpoint
	workers := runtime.GOMAXPROCS(0)
	for _, f := range fns {
		if f.ref != nil {
			// The float64 error on a sample, in float64 ulps.
			r := rand.New(rand.NewSource(1))
			worst := 0.0
			for i := 0; i < 20000; i++ {
				x := Flush32(r.Uint32())
				v := float64(math.Float32frombits(x))
				y := f.y(v)
				if ay := math.Abs(y); v != v || y != y || ay < 0x1p-126 || ay >= 0x1p128 || v == 0 || math.IsInf(v, 0) {
					continue // as in the scan below
				}
				ref := f.ref(tf32.toBig(uint64(x)))
				d := new(big.Float).SetPrec(hp).Sub(bf(y), ref)
				e := ref.MantExp(nil) - 53 // ulp exponent of the reference
				u, _ := d.SetMantExp(d, -e).Float64()
				worst = max(worst, math.Abs(u))
			}
			t.Logf("%-6s float64 error on 20000 random inputs: max %.3f ulp", f.name, worst)
			if worst > window/8 {
				t.Errorf("%s: float64 error %.1f ulp is too close to the %d-ulp window", f.name, worst, window)
			}
		}
		var mu sync.Mutex
		var amb []uint32
		var worst float64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				var local []uint32
				lw := 0.0
				for hi := uint64(w); hi < 1<<16; hi += uint64(workers) {
					for lo := uint64(0); lo < 1<<16; lo++ {
						x := uint32(hi<<16 | lo)
						got := f.f(x)
						xf := x
						if f.ftz {
							xf = Flush32(x)
						}
						v := float64(math.Float32frombits(xf))
						y := f.y(v)
						ay := math.Abs(y)
						if v != v || y != y || ay < 0x1p-126 || ay >= 0x1p128 || v == 0 || math.IsInf(v, 0) {
							continue // specials, flushed or overflowed results
						}
						e := math.Abs(float64(math.Float32frombits(got))-y) / ulp32(y)
						if e > lw {
							lw = e
						}
						if f.ref != nil {
							d := int64(math.Float64bits(ay)&(1<<29-1)) - 1<<28
							if d >= -window && d <= window {
								local = append(local, x)
							}
						}
					}
				}
				mu.Lock()
				amb = append(amb, local...)
				worst = max(worst, lw)
				mu.Unlock()
			}(w)
		}
		wg.Wait()
		if worst > 0.5+0x1p-24 {
			t.Errorf("%s: worst error %.9f ulp of the float64 value", f.name, worst)
		}
		bad, plain := 0, 0
		for _, x := range amb {
			xf := x
			if f.ftz {
				xf = Flush32(x)
			}
			want := uint32(tf32.roundBig(f.ref(tf32.toBig(uint64(xf))), RN, f.ftz))
			if got := f.f(x); got != want {
				bad++
				t.Errorf("%s(%#08x): got %#08x, correctly rounded %#08x", f.name, x, got, want)
			}
			// What rounding the float64 value alone would give.
			y := f.y(float64(math.Float32frombits(xf)))
			if p := f64toF32(y, f.ftz); p != want {
				plain++
				t.Logf("%s(%#08x): float64 route gives %#08x, correctly rounded %#08x", f.name, x, p, want)
			}
		}
		t.Logf("%-6s worst %.9f ulp vs float64; %d inputs near an f32 midpoint; not correctly rounded: %d (float64 route alone: %d)", f.name, worst, len(amb), bad, plain)
	}
}

// sinY and cosY are the float64 values SinApprox32 and CosApprox32
// round.
func sinY(v float64) float64 { s, _ := sinCos32(math.Float32bits(float32(v))); return s }
func cosY(v float64) float64 { _, c := sinCos32(math.Float32bits(float32(v))); return c }

// TestBigRefs sanity-checks the high-precision references against
// float64 math.
func TestBigRefs(t *testing.T) {
	for _, c := range []struct {
		name string
		ref  func(*big.Float) *big.Float
		f    func(float64) float64
		x    float64
	}{
		{"exp2", bigExp2, math.Exp2, -3.7}, {"exp2", bigExp2, math.Exp2, 100.25},
		{"log2", bigLog2, math.Log2, 1e-30}, {"log2", bigLog2, math.Log2, 3},
		// math.Sin(1e30) is 32 float64 ulps off the true
		// 0.0093314689311758240572...; hence revolutions().
		{"sin", bigSin, func(float64) float64 { return 0.0093314689311758240572 }, 1e30},
		{"cos", bigCos, math.Cos, -7.5}, {"sin", bigSin, math.Sin, 3},
		{"tanh", bigTanh, math.Tanh, 0.3}, {"tanh", bigTanh, math.Tanh, -1e-20},
		{"rsqrt", bigRsqrt, func(v float64) float64 { return 1 / math.Sqrt(v) }, 7},
		{"sinrev", bigSinRev, func(v float64) float64 { return math.Sin(2 * math.Pi * v) }, 0.1},
	} {
		got, _ := c.ref(bf(c.x)).Float64()
		if want := c.f(c.x); math.Abs(got-want) > 4e-16*math.Abs(want) {
			t.Errorf("%s(%v) = %v, want %v", c.name, c.x, got, want)
		}
	}
}
