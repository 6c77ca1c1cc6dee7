package pipeline

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline/knobs"
	"orilab/pipeline/sass"
	"orilab/pipeline/sim/fp"
	"orilab/pipeline/spec"
)

// slowDivPTX computes a/b rounded to nearest and toward zero and 1/b
// (rcp.rn.f64, which shares the RN subroutine with div.rn.f64).
const slowDivPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry slowdiv(.param .u64 a, .param .u64 b, .param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<10>;
	.reg .f64 %fd<6>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 8;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	ld.global.f64 %fd1, [%rd5];
	ld.global.f64 %fd2, [%rd6];
	div.rn.f64 %fd3, %fd1, %fd2;
	div.rz.f64 %fd4, %fd1, %fd2;
	rcp.rn.f64 %fd5, %fd2;
	mul.wide.u32 %rd7, %r4, 24;
	add.s64 %rd8, %rd3, %rd7;
	st.global.f64 [%rd8], %fd3;
	st.global.f64 [%rd8+8], %fd4;
	st.global.f64 [%rd8+16], %fd5;
	ret;
}
`

// outlineKnobs loads the default knobs with settings on top.
func outlineKnobs(t *testing.T, settings ...string) *knobs.Set {
	t.Helper()
	ks, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: settings})
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestOutlineF64SlowPath: at -O3 the exact slow path of f64 division
// is one subroutine per rounding mode, called from each division (and
// from rcp.rn.f64), and OutlineF64SlowPath=0 keeps it inline; both
// compute the IEEE quotients of pipeline/sim/fp over operands that take
// the slow path (subnormals, huge exponent gaps, specials) and random
// ones.
func TestOutlineF64SlowPath(t *testing.T) {
	for _, tc := range []struct {
		knob         string
		funcs, calls int
	}{{"OutlineF64SlowPath=1", 2, 3}, {"OutlineF64SlowPath=0", 0, 0}} {
		r, err := CompileWith("k.ptx", []byte(slowDivPTX), Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Knobs: outlineKnobs(t, tc.knob)})
		if err != nil {
			t.Fatalf("%s: %v", tc.knob, err)
		}
		text := r.Final.String()
		if got := strings.Count(text, ".func __orilab.ddiv.slowpath."); got != tc.funcs {
			t.Errorf("%s: %d slow-path subroutines, want %d", tc.knob, got, tc.funcs)
		}
		if got := strings.Count(text, "CALL.REL.NOINC `__orilab.ddiv.slowpath."); got != tc.calls {
			t.Errorf("%s: %d calls of a slow path, want %d", tc.knob, got, tc.calls)
		}
		for _, f := range r.Final.Funcs {
			if strings.HasPrefix(f.Name, "__orilab.ddiv.slowpath.") && !strings.Contains(f.String(), "RET.REL.NODEC R2.64") {
				t.Errorf("%s: %s does not return through R2:R3:\n%s", tc.knob, f.Name, f)
			}
		}
	}

	edges := []float64{0, math.Copysign(0, -1), 1, -1, 3, 0.1, 1.0 / 3, 1e300, -1e300, 1e-300,
		math.SmallestNonzeroFloat64, 3 * math.SmallestNonzeroFloat64, 0x1p-1022, 0x1.fffffffffffffp-1023,
		0x1p-1030, -0x1.8p-1060, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 0x1p1000, 0x1p-1000}
	var as, bs []uint64
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, math.Float64bits(a)), append(bs, math.Float64bits(b))
		}
	}
	rng := rand.New(rand.NewSource(33))
	for len(as)%256 != 0 || len(as) < 768 {
		a := math.Float64bits(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(2100)-1050)))
		b := math.Float64bits(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(2100)-1050)))
		as, bs = append(as, a), append(bs, b)
	}
	var want []uint64
	for i := range as {
		want = append(want, fp.Div64(as[i], bs[i], fp.RN), fp.Div64(as[i], bs[i], fp.RZ), fp.Div64(math.Float64bits(1), bs[i], fp.RN))
	}
	le := func(vs []uint64) []byte {
		out := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
		return out
	}
	n := len(as)
	sp := &spec.Spec{Name: "slowdiv", PTX: "k.ptx", Kernel: "slowdiv",
		Launch: spec.Launch{Grid: [3]int{n / 256, 1, 1}, Block: [3]int{256, 1, 1}},
		Params: []spec.Param{
			{Name: "a", Kind: spec.KindBuffer, Elem: "u64", Count: n, InitHexLE: le(as)},
			{Name: "b", Kind: spec.KindBuffer, Elem: "u64", Count: n, InitHexLE: le(bs)},
			{Name: "out", Kind: spec.KindBuffer, Elem: "u64", Count: 3 * n, Init: spec.InitZero},
		},
		Expect: []spec.Expect{{Param: "out", Elem: "u64", Count: 3 * n, Values: want}},
	}
	dir := t.TempDir()
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "slowdiv.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(slowDivPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "slowdiv.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, knob := range []string{"OutlineF64SlowPath=1", "OutlineF64SlowPath=0"} {
		req := Request{OptLevel: 3, Verify: true, Knobs: knobs.Sources{CLI: []string{knob}}}
		rep, err := RunSpec(s, RunOptions{Request: req, MaxWarpSteps: 10_000_000})
		if err != nil {
			t.Fatalf("%s: %v", knob, err)
		}
		if !rep.Pass {
			t.Errorf("%s: %s", knob, spec.FormatResults(rep.Results))
		}
	}
}

// TestOutlineF64SlowPathRegisters: out of line, the slow path no longer
// counts against float_div64's fast path: 20 registers counted as ptxas
// counts them, callee included (ptxas 13.0.88 -O3 sm_80: 25); inline, 34
// before the scheduler kept capped regions within their peak
// (SchedCapKeepInput: 36 without it), 20 with it, so out of line must be
// no worse than inline.
func TestOutlineF64SlowPathRegisters(t *testing.T) {
	const path = "testdata/lower/float_div64.ptx"
	src, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	regs := func(knob string) int {
		r, err := CompileWith(path, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Knobs: outlineKnobs(t, knob)})
		if err != nil {
			t.Fatalf("%s: %v", knob, err)
		}
		n := 0
		for _, f := range r.Final.Funcs {
			n = max(n, sass.UsedRegs(f))
		}
		return n
	}
	on, off := regs("OutlineF64SlowPath=1"), regs("OutlineF64SlowPath=0")
	if on > 25 {
		t.Errorf("out of line: %d registers, want at most ptxas's 25", on)
	}
	if on > off {
		t.Errorf("out of line: %d registers, inline %d: want no more out of line", on, off)
	}
	t.Logf("float_div64: %d registers out of line, %d inline", on, off)
}

// TestOutlineRsqrtF64SlowPath: rsqrt.approx.f64 keeps the refinement of
// positive normal operands inline and calls one subroutine for the
// others (its results over the H100's sweep: TestRsqrtF64AgainstH100);
// rsqrt_f64_nan.ptx's two rsqrt share it, and the kernel counts 18
// registers (ptxas 16; inline, 24), at -O0 too. With the knob off it
// stays inline.
func TestOutlineRsqrtF64SlowPath(t *testing.T) {
	const path = "testdata/kernels/rsqrt_f64_nan.ptx"
	src, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		level        int
		knob         string
		funcs, calls int
		maxRegs      int
	}{{3, "OutlineF64SlowPath=1", 1, 2, 18}, {3, "OutlineF64SlowPath=0", 0, 0, 24}, {0, "OutlineF64SlowPath=1", 1, 2, 0}} {
		r, err := CompileWith(path, src, Options{}, PhaseOptions{OptLevel: tc.level, NoSnapshots: true, Knobs: outlineKnobs(t, tc.knob)})
		if err != nil {
			t.Fatalf("-O%d %s: %v", tc.level, tc.knob, err)
		}
		text := r.Final.String()
		if got := strings.Count(text, ".func __orilab.drsqrt.slowpath"); got != tc.funcs {
			t.Errorf("-O%d %s: %d rsqrt subroutines, want %d", tc.level, tc.knob, got, tc.funcs)
		}
		if got := strings.Count(text, "CALL.REL.NOINC `__orilab.drsqrt.slowpath`"); got != tc.calls {
			t.Errorf("-O%d %s: %d calls, want %d", tc.level, tc.knob, got, tc.calls)
		}
		n := 0
		for _, f := range r.Final.Funcs {
			n = max(n, sass.UsedRegs(f))
		}
		if tc.maxRegs > 0 && n > tc.maxRegs {
			t.Errorf("-O%d %s: %d registers, want at most %d", tc.level, tc.knob, n, tc.maxRegs)
		}
	}
}

// leafDivPTX divides in a .func without calls (its return address stays
// in R2:R3 until its RET) and in the kernel that calls it.
const leafDivPTX = `.version 7.0
.target sm_80
.address_size 64
.func (.param .f64 r) leafdiv(.param .f64 a, .param .f64 b)
{
	.reg .f64 %fd<4>;
	ld.param.f64 %fd1, [a];
	ld.param.f64 %fd2, [b];
	div.rn.f64 %fd3, %fd1, %fd2;
	st.param.f64 [r], %fd3;
	ret;
}
.visible .entry leafk(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.reg .f64 %fd<6>;
	ld.param.u64 %rd1, [p];
	ld.global.f64 %fd1, [%rd1];
	ld.global.f64 %fd2, [%rd1+8];
	{
	.param .f64 pa;
	.param .f64 pb;
	.param .f64 pr;
	st.param.f64 [pa], %fd1;
	st.param.f64 [pb], %fd2;
	call (pr), leafdiv, (pa, pb);
	ld.param.f64 %fd3, [pr];
	}
	div.rn.f64 %fd4, %fd3, %fd2;
	st.global.f64 [%rd1], %fd4;
	ret;
}
`

// TestOutlineKeepsLeafReturnAddress: a .func without calls returns
// through the physical pair it received, so its division keeps the slow
// path inline (a CALL would overwrite R2:R3: the post-allocation
// verifier refused 102 fuzz programs of the hardware truth that way);
// the kernel's division calls the subroutine. The verifiers run.
func TestOutlineKeepsLeafReturnAddress(t *testing.T) {
	r, err := CompileWith("k.ptx", []byte(leafDivPTX), Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Final.Funcs {
		calls := strings.Count(f.String(), "CALL.REL.NOINC `__orilab.ddiv.slowpath.RN`")
		switch f.Name {
		case "leafdiv":
			if calls != 0 {
				t.Errorf("leafdiv calls the slow path %d times, want inline:\n%s", calls, f)
			}
		case "leafk":
			if calls != 1 {
				t.Errorf("leafk calls the slow path %d times, want 1", calls)
			}
		}
	}
}
