package fp

import (
	"fmt"
	"math"
	"math/rand"
	"sync/atomic"
	"testing"
)

var modes = []Round{RN, RZ, RM, RP}

// caseCount accumulates the number of differential cases run per op.
var caseCount = map[string]*atomic.Int64{}

func count(op string) *atomic.Int64 {
	c, ok := caseCount[op]
	if !ok {
		panic("no counter for " + op)
	}
	return c
}

func init() {
	for _, op := range []string{"add", "mul", "fma", "div", "sqrt"} {
		caseCount[op] = new(atomic.Int64)
	}
}

// n scales the case counts down with -short.
func n(t *testing.T, full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

// binop and friends adapt the package functions to uint64 operands.
type binop func(a, b uint64, rm Round, ftz bool) uint64
type triop func(a, b, c uint64, rm Round, ftz bool) uint64
type unop func(a uint64, rm Round, ftz bool) uint64

var impl = map[string]map[string]any{
	"f32": {
		"add": binop(func(a, b uint64, rm Round, ftz bool) uint64 { return uint64(Add32(uint32(a), uint32(b), rm, ftz)) }),
		"mul": binop(func(a, b uint64, rm Round, ftz bool) uint64 { return uint64(Mul32(uint32(a), uint32(b), rm, ftz)) }),
		"div": binop(func(a, b uint64, rm Round, ftz bool) uint64 { return uint64(Div32(uint32(a), uint32(b), rm, ftz)) }),
		"fma": triop(func(a, b, c uint64, rm Round, ftz bool) uint64 {
			return uint64(Fma32(uint32(a), uint32(b), uint32(c), rm, ftz))
		}),
		"sqrt": unop(func(a uint64, rm Round, ftz bool) uint64 { return uint64(Sqrt32(uint32(a), rm, ftz)) }),
	},
	"f64": {
		"add":  binop(func(a, b uint64, rm Round, _ bool) uint64 { return Add64(a, b, rm) }),
		"mul":  binop(func(a, b uint64, rm Round, _ bool) uint64 { return Mul64(a, b, rm) }),
		"div":  binop(func(a, b uint64, rm Round, _ bool) uint64 { return Div64(a, b, rm) }),
		"fma":  triop(func(a, b, c uint64, rm Round, _ bool) uint64 { return Fma64(a, b, c, rm) }),
		"sqrt": unop(func(a uint64, rm Round, _ bool) uint64 { return Sqrt64(a, rm) }),
	},
	"f16": {
		"add": binop(func(a, b uint64, rm Round, ftz bool) uint64 { return uint64(Add16(uint16(a), uint16(b), rm, ftz)) }),
		"mul": binop(func(a, b uint64, rm Round, ftz bool) uint64 { return uint64(Mul16(uint16(a), uint16(b), rm, ftz)) }),
		"fma": triop(func(a, b, c uint64, rm Round, ftz bool) uint64 {
			return uint64(Fma16(uint16(a), uint16(b), uint16(c), rm, ftz))
		}),
	},
	"bf16": {
		"add": binop(func(a, b uint64, rm Round, _ bool) uint64 { return uint64(AddBF16(uint16(a), uint16(b), rm)) }),
		"mul": binop(func(a, b uint64, rm Round, _ bool) uint64 { return uint64(MulBF16(uint16(a), uint16(b), rm)) }),
		"fma": triop(func(a, b, c uint64, rm Round, _ bool) uint64 {
			return uint64(FmaBF16(uint16(a), uint16(b), uint16(c), rm))
		}),
	},
}

// hasFTZ reports whether the format's operations take an ftz flag.
func hasFTZ(t tf) bool { return t.p == 24 || t.p == 11 }

// plan is the number of differential cases per (format, op), split over
// the four modes and both ftz settings where they exist. Per op the total
// over the formats is at least 200k.
var plan = []struct {
	t   tf
	op  string
	cnt int
}{
	{tf32, "add", 80000}, {tf64, "add", 80000}, {tf16, "add", 40000}, {tfBF16, "add", 24000},
	{tf32, "mul", 80000}, {tf64, "mul", 80000}, {tf16, "mul", 40000}, {tfBF16, "mul", 24000},
	{tf32, "fma", 80000}, {tf64, "fma", 80000}, {tf16, "fma", 40000}, {tfBF16, "fma", 24000},
	{tf32, "div", 100000}, {tf64, "div", 100000},
	{tf32, "sqrt", 100000}, {tf64, "sqrt", 100000},
}

func TestDifferential(t *testing.T) {
	t.Run("group", func(t *testing.T) {
		for pi, pl := range plan {
			seed := int64(pi + 1)
			t.Run(pl.t.name+"/"+pl.op, func(t *testing.T) {
				t.Parallel()
				runDifferential(t, pl.t, pl.op, n(t, pl.cnt), seed)
			})
		}
	})
	// The parallel subtests have all finished here.
	for _, op := range []string{"add", "mul", "fma", "div", "sqrt"} {
		c := count(op).Load()
		t.Logf("%-4s %d differential cases", op, c)
		if !testing.Short() && c < 200000 {
			t.Errorf("%s: only %d differential cases", op, c)
		}
	}
}

func runDifferential(t *testing.T, tt tf, op string, total int, seed int64) {
	g := gen{tt, rand.New(rand.NewSource(seed))}
	ftzs := []bool{false}
	if hasFTZ(tt) {
		ftzs = []bool{false, true}
	}
	per := total / (len(modes) * len(ftzs))
	fails := 0
	report := func(rm Round, ftz bool, got, want uint64, ops ...uint64) {
		fails++
		if fails <= 10 {
			t.Errorf("%s %s(%s, ftz=%v) ops=%#x: got %#x want %#x", tt.name, op, rm, ftz, ops, got, want)
		}
	}
	fn := impl[tt.name][op]
	// The exported f32/f64 functions use the host FPU for RN; check the
	// integer engine behind them in RN too.
	generic := func(rm Round, ftz bool, want uint64, ops ...uint64) {
		if rm != RN || (tt.p != 24 && tt.p != 53) {
			return
		}
		var got uint64
		switch op {
		case "add":
			got = add(tt.f, ops[0], ops[1], rm, ftz)
		case "mul":
			got = mul(tt.f, ops[0], ops[1], rm, ftz)
		case "div":
			got = div(tt.f, ops[0], ops[1], rm, ftz)
		case "fma":
			got = fma(tt.f, ops[0], ops[1], ops[2], rm, ftz)
		case "sqrt":
			got = sqrt(tt.f, ops[0], rm, ftz)
		}
		if got != want {
			report(rm, ftz, got, want, ops...)
		}
	}
	for _, rm := range modes {
		for _, ftz := range ftzs {
			for i := 0; i < per; i++ {
				switch f := fn.(type) {
				case binop:
					a, b := g.pair(op)
					var want uint64
					switch op {
					case "add":
						want = refAdd(tt, a, b, rm, ftz)
					case "mul":
						want = refMul(tt, a, b, rm, ftz)
					case "div":
						want = refDiv(tt, a, b, rm, ftz)
					}
					if got := f(a, b, rm, ftz); got != want {
						report(rm, ftz, got, want, a, b)
					}
					generic(rm, ftz, want, a, b)
				case triop:
					a, b, c := g.triple(rm)
					want := refFma(tt, a, b, c, rm, ftz)
					if got := f(a, b, c, rm, ftz); got != want {
						report(rm, ftz, got, want, a, b, c)
					}
					generic(rm, ftz, want, a, b, c)
				case unop:
					a := g.value()
					if g.r.Intn(3) == 0 {
						a &^= tt.signBit()
					}
					want := refSqrt(tt, a, rm, ftz)
					if got := f(a, rm, ftz); got != want {
						report(rm, ftz, got, want, a)
					}
					generic(rm, ftz, want, a)
				}
			}
		}
	}
	count(op).Add(int64(per * len(modes) * len(ftzs)))
	if fails > 10 {
		t.Errorf("... %d failures in total", fails)
	}
}

// TestNativeRN checks the RN operations against the host's IEEE
// arithmetic (Go's float32/float64 operations and math.FMA), which is
// cheap enough for millions of cases. NaN results are compared by class.
func TestNativeRN(t *testing.T) {
	total := n(t, 1000000)
	r := rand.New(rand.NewSource(99))
	g32 := gen{tf32, r}
	g64 := gen{tf64, r}
	fails := 0
	check := func(what string, got, want uint64, isNaN bool, ops ...uint64) {
		if isNaN || got == want {
			return
		}
		fails++
		if fails <= 10 {
			t.Errorf("%s%#x: got %#x want %#x", what, ops, got, want)
		}
	}
	for i := 0; i < total; i++ {
		a, b := g32.pair([]string{"add", "mul", "div"}[i%3])
		fa, fb := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))
		s, p, q := fa+fb, fa*fb, fa/fb
		check("add32", uint64(Add32(uint32(a), uint32(b), RN, false)), uint64(math.Float32bits(s)), s != s, a, b)
		check("mul32", uint64(Mul32(uint32(a), uint32(b), RN, false)), uint64(math.Float32bits(p)), p != p, a, b)
		check("div32", uint64(Div32(uint32(a), uint32(b), RN, false)), uint64(math.Float32bits(q)), q != q, a, b)
		sq := float32(math.Sqrt(float64(fa))) // double rounding is innocuous for sqrt
		check("sqrt32", uint64(Sqrt32(uint32(a), RN, false)), uint64(math.Float32bits(sq)), sq != sq, a)

		A, B := g64.pair([]string{"add", "mul", "div"}[i%3])
		_, _, C := g64.triple(RN)
		da, db, dc := math.Float64frombits(A), math.Float64frombits(B), math.Float64frombits(C)
		S, P, Q, F := da+db, da*db, da/db, math.FMA(da, db, dc)
		check("add64", Add64(A, B, RN), math.Float64bits(S), S != S, A, B)
		check("mul64", Mul64(A, B, RN), math.Float64bits(P), P != P, A, B)
		check("div64", Div64(A, B, RN), math.Float64bits(Q), Q != Q, A, B)
		check("fma64", Fma64(A, B, C, RN), math.Float64bits(F), F != F, A, B, C)
		SQ := math.Sqrt(da)
		check("sqrt64", Sqrt64(A, RN), math.Float64bits(SQ), SQ != SQ, A)
	}
	t.Logf("%d native comparisons", total*9)
	if fails > 10 {
		t.Errorf("... %d failures in total", fails)
	}
}

// TestNaNResults pins the NaN encodings.
func TestNaNResults(t *testing.T) {
	const (
		qnan32 = 0x7fc00000
		snan32 = 0xff800001
		inf32  = 0x7f800000
		ninf32 = 0xff800000
		qnan64 = 0x7ff8000000000000
		pay64  = 0xfff0000000001234 // signalling, negative, payload
		inf64  = 0x7ff0000000000000
		ninf64 = 0xfff0000000000000
		one64  = 0x3ff0000000000000
	)
	for _, rm := range modes {
		for _, c := range []struct {
			name string
			got  uint32
		}{
			{"add(qnan,1)", Add32(qnan32, 0x3f800000, rm, false)},
			{"add(1,snan)", Add32(0x3f800000, snan32, rm, false)},
			{"add(inf,-inf)", Add32(inf32, ninf32, rm, false)},
			{"mul(0,inf)", Mul32(0, inf32, rm, false)},
			{"fma(inf,0,qnan)", Fma32(inf32, 0, qnan32, rm, false)},
			{"fma(inf,1,-inf)", Fma32(inf32, 0x3f800000, ninf32, rm, false)},
			{"div(0,0)", Div32(0, 0x80000000, rm, false)},
			{"sqrt(-1)", Sqrt32(0xbf800000, rm, false)},
			{"rint(snan)", Rint32(snan32, rm, false)},
		} {
			if c.got != CanonicalNaN32 {
				t.Errorf("%s %s = %#x, want %#x", c.name, rm, c.got, CanonicalNaN32)
			}
		}
		for _, c := range []struct {
			name      string
			got, want uint64
		}{
			{"add(1,pay)", Add64(one64, pay64, rm), pay64 | 1<<51},
			{"add(qnan,pay)", Add64(qnan64, pay64, rm), pay64 | 1<<51},
			{"add(pay,qnan)", Add64(pay64, qnan64, rm), qnan64},
			{"f64tof32(pay)", uint64(F64toF32(pay64, rm, false)), uint64(pay64>>63<<31 | 0x7fc00000 | pay64&(1<<52-1)>>29)},
			{"fma(1,1,pay)", Fma64(one64, one64, pay64, rm), pay64 | 1<<51},
			{"fma(inf,0,pay)", Fma64(inf64, 0, pay64, rm), pay64 | 1<<51},
			{"add(inf,-inf)", Add64(inf64, ninf64, rm), DefaultNaN64},
			{"mul(inf,0)", Mul64(inf64, 0, rm), DefaultNaN64},
			{"sqrt(-1)", Sqrt64(0xbff0000000000000, rm), DefaultNaN64},
			{"sqrt(pay)", Sqrt64(pay64, rm), pay64 | 1<<51},
		} {
			if c.got != c.want {
				t.Errorf("%s %s = %#x, want %#x", c.name, rm, c.got, c.want)
			}
		}
		if got := Add16(0x7c01, 0x3c00, rm, false); got != CanonicalNaN16 {
			t.Errorf("add16(snan,1) = %#x", got)
		}
		if got := FmaBF16(0x7f80, 0, 0x3f80, rm); got != CanonicalNaNBF16 {
			t.Errorf("fmabf16(inf,0,1) = %#x", got)
		}
	}
}

// TestZLUDAExpect replays the real-GPU results of the ZLUDA test suite
// (ptx/src/test/spirv_run, expectations under
// ../shared/corpus/ZLUDA/expect) that exercise floating point.
func TestZLUDAExpect(t *testing.T) {
	eq := func(name string, got, want uint64) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %#x want %#x", name, got, want)
		}
	}
	// div_noftz / div_ftz: div.rn.f32 with a subnormal quotient, then
	// the product the kernel also stores.
	eq("div_noftz", uint64(Div32(0x16a2028d, 0x5e89f6ae, RN, false)), 0x26)
	eq("div_ftz", uint64(Div32(0x16a2028d, 0x5e89f6ae, RN, true)), 0)
	eq("div_*/mul", uint64(Mul32(0x16a2028d, 0x5e89f6ae, RN, false)), 0x35ae9ef4)
	// mul_ftz: a negative subnormal times 0.5 flushes to -0.
	eq("mul_ftz", uint64(Mul32(0x80400000, 0x3f000000, RN, true)), 0x80000000)
	// sqrt_rn_ftz: the smallest subnormal flushes to +0.
	eq("sqrt_rn_ftz", uint64(Sqrt32(1, RN, true)), 0)
	// call_rnd: add.rp and add.rm of 1 + 2^-24.
	eq("call_rnd/rp", uint64(Add32(0x3f800000, 0x33800000, RP, false)), 0x3f800001)
	eq("call_rnd/rm", uint64(Add32(0x3f800000, 0x33800000, RM, false)), 0x3f800000)
	eq("atom_add_float", uint64(Add32(0x3fa00000, 0x3f000000, RN, false)), 0x3fe00000)
	eq("div_approx", uint64(Div32(0x3f800000, 0x40000000, RN, false)), 0x3f000000)
	// fma_bf16x2: both lanes of fma.rn.bf16x2.
	eq("fma_bf16x2/hi", uint64(FmaBF16(0x4000, 0x4040, 0x40a0, RN)), 0x4130)
	eq("fma_bf16x2/lo", uint64(FmaBF16(0x4040, 0x4080, 0x4040, RN)), 0x4170)
	// min_f16: min(NaN, 123) = 123; fmax: max(+0, NaN) = +0.
	eq("min_f16", uint64(Min16(0x7e00, 0x57b0, false)), 0x57b0)
	eq("fmax", uint64(Max16(0x7e00, 0x0000, false)), 0)
	// setp_nan: setp.nan.f32 over (0.5,NaN) (NaN,NaN) (NaN,0.5) (0.5,0.5).
	for i, c := range []struct {
		a, b uint32
		want bool
	}{{0x3f000000, 0x7fc00000, true}, {0x7fc00000, 0x7fc00000, true}, {0x7fc00000, 0x3f000000, true}, {0x3f000000, 0x3f000000, false}} {
		if got := Cmp32(c.a, c.b, NAN, false); got != c.want {
			t.Errorf("setp_nan[%d]: got %v", i, got)
		}
	}
	// set_f16: set.gtu.f16 (NaN > NaN) true; f16x2 lanes (3.140625 > -0)
	// and (-inf > +0).
	if !Cmp16(0x7e00, 0x7e00, GTU, false) || !Cmp16(0x4248, 0x8000, GTU, false) || Cmp16(0xfc00, 0x0000, GTU, false) {
		t.Error("set_f16")
	}
	// Conversions.
	eq("cvt_f64_f32", F32toF64(0x3e000000, true), 0x3fc0000000000000)
	eq("cvt_f16x2_f32/hi", uint64(F32toF16(0x3f800000, RN, false)), 0x3c00)
	eq("cvt_f16x2_f32/lo", uint64(F32toF16(0x40000000, RN, false)), 0x4000)
	eq("cvt_rn_bf16x2_f32/hi", uint64(F32toBF16(0x3ed00000, RN)), 0x3ed0)
	eq("cvt_rn_bf16x2_f32/lo", uint64(F32toBF16(0x414e6666, RN)), 0x414e)
	eq("cvt_rni/9.5", uint64(Rint32(0x41180000, RN, false)), 0x41200000)
	eq("cvt_rni/10.5", uint64(Rint32(0x41280000, RN, false)), 0x41200000)
	eq("cvt_rni_u16_f32", F32toInt(0x477fff80, RN, false, 16, false), 0xffff)
	eq("cvt_s32_f32/-13.8", F32toInt(0xc15ccccd, RP, true, 32, true), 0xfffffff3)
	eq("cvt_s32_f32/12.9", F32toInt(0x414e6666, RP, true, 32, true), 0xd)
	// MUFU.
	eq("rcp", uint64(Rcp32Approx(0x40000000)), 0x3f000000)
	eq("sqrt", uint64(Sqrt32Approx(0x3e800000)), 0x3f000000)
	eq("lg2", uint64(Lg2Approx32(0x44000000)), 0x41100000)
	eq("sin", uint64(SinApprox32(0x3fc90fdb)), 0x3f800000)
	eq("cos", uint64(CosApprox32(0x40490fdb)), 0xbf800000)
	eq("tanh", uint64(TanhApprox32(0x7f800000)), 0x3f800000)
}

func ExampleFma32() {
	// 0.1f*10 - 1 with a single rounding keeps the product's error:
	// 0.1f is 0.100000001490116..., so the result is 2^-26, not 0.
	r := Fma32(math.Float32bits(0.1), math.Float32bits(10), math.Float32bits(-1), RN, false)
	fmt.Printf("%#x %g\n", r, math.Float32frombits(r))
	// Output: 0x32800000 1.4901161e-08
}

// TestFmaProductGap covers the one place where bits shifted out of the
// exact product decide f64 FMA rounding: products of two 53-bit
// significands with a run of 77 or more zero bits inside (found by a
// search for A*B = H*2^81 + L, L < 16). Sweeping c's exponent moves c's
// rounding position across the run.
func TestFmaProductGap(t *testing.T) {
	pairs := [][2]uint64{
		{0x1b991df9b7ca0d, 0xe41b8ee346477},
		{0x15de522d83e86f, 0xa98f6e7b2768f},
		{0x15de522d83e86f, 0x1531edcf64ed1e},
		{0x15de522d83e86f, 0x1fcae4b71763ad},
	}
	cases := 0
	for _, p := range pairs {
		a := math.Float64bits(float64(p[0]) / (1 << 52))
		b := math.Float64bits(float64(p[1]) / (1 << 52))
		for e := -4; e <= 140; e++ {
			for _, cf := range []uint64{0, 1, 1<<52 - 1, 1 << 51} {
				c := uint64(1023+e)<<52 | cf
				for _, sign := range []uint64{0, 1 << 63} {
					for _, rm := range modes {
						want := refFma(tf64, a, b, c|sign, rm, false)
						if got := Fma64(a, b, c|sign, rm); got != want {
							t.Errorf("Fma64(%#x, %#x, %#x, %s) = %#x, want %#x", a, b, c|sign, rm, got, want)
						}
						if got := fma(fmt64, a, b, c|sign, rm, false); got != want {
							t.Errorf("fma(%#x, %#x, %#x, %s) = %#x, want %#x", a, b, c|sign, rm, got, want)
						}
						cases++
					}
				}
			}
		}
	}
	t.Logf("%d cases", cases)
}
