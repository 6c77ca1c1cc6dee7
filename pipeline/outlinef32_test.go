package pipeline

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/knobs"
	"orilab/pipeline/sass"
	"orilab/pipeline/sim/fp"
	"orilab/pipeline/spec"
)

// slowDivF32PTX computes a/b rounded to nearest, toward zero and to
// nearest with subnormals flushed, and 1/b (rcp.rn.f32, which shares the
// RN subroutine with div.rn.f32).
const slowDivF32PTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry fdiv(.param .u64 a, .param .u64 b, .param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<10>;
	.reg .f32 %f<8>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 4;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	ld.global.f32 %f1, [%rd5];
	ld.global.f32 %f2, [%rd6];
	div.rn.f32 %f3, %f1, %f2;
	div.rz.f32 %f4, %f1, %f2;
	div.rn.ftz.f32 %f5, %f1, %f2;
	rcp.rn.f32 %f6, %f2;
	mul.wide.u32 %rd7, %r4, 16;
	add.s64 %rd8, %rd3, %rd7;
	st.global.f32 [%rd8], %f3;
	st.global.f32 [%rd8+4], %f4;
	st.global.f32 [%rd8+8], %f5;
	st.global.f32 [%rd8+12], %f6;
	ret;
}
`

// TestOutlineF32SlowPath: the slow path of the f32 division (what
// FCHK.DIVIDE sends off the fast path) is one subroutine per rounding and
// flush mode, called from each division and from rcp.rn.f32, at -O3 and
// -O0, when OutlineF32SlowPath is on; off (the default) keeps it inline. Every form computes the
// IEEE quotients of pipeline/sim/fp over operands that take the slow path
// (subnormals, huge and tiny quotients, specials) and random ones.
func TestOutlineF32SlowPath(t *testing.T) {
	for _, tc := range []struct {
		level        int
		knob         string
		funcs, calls int
	}{{3, "OutlineF32SlowPath=1", 3, 4}, {0, "OutlineF32SlowPath=1", 3, 4}, {3, "OutlineF32SlowPath=0", 0, 0}, {3, "", 0, 0}} {
		var settings []string
		if tc.knob != "" {
			settings = append(settings, tc.knob)
		}
		r, err := CompileWith("k.ptx", []byte(slowDivF32PTX), Options{}, PhaseOptions{OptLevel: tc.level, NoSnapshots: true, Knobs: outlineKnobs(t, settings...)})
		if err != nil {
			t.Fatalf("-O%d %s: %v", tc.level, tc.knob, err)
		}
		text := r.Final.String()
		if got := strings.Count(text, ".func __orilab.fdiv.slowpath."); got != tc.funcs {
			t.Errorf("-O%d %s: %d slow-path subroutines, want %d", tc.level, tc.knob, got, tc.funcs)
		}
		if got := strings.Count(text, "CALL.REL.NOINC `__orilab.fdiv.slowpath."); got != tc.calls {
			t.Errorf("-O%d %s: %d calls of a slow path, want %d", tc.level, tc.knob, got, tc.calls)
		}
		for _, name := range []string{"__orilab.fdiv.slowpath.RN", "__orilab.fdiv.slowpath.RZ", "__orilab.fdiv.slowpath.RN.ftz"} {
			if f := r.Final.Func(name); tc.funcs > 0 && (f == nil || !f.WholeSeen()) {
				t.Errorf("-O%d %s: no whole-seen subroutine %s", tc.level, tc.knob, name)
			}
		}
	}

	f32 := math.Float32bits
	edges := []uint32{0, 0x80000000, f32(1), f32(-1), f32(3), f32(0.1), f32(1.0 / 3), 1, 3, 0x007fffff, 0x00800000,
		0x80400001, f32(math.MaxFloat32), f32(-math.MaxFloat32), 0x7f800000, 0xff800000, 0x7fc00000, f32(0x1p126),
		f32(0x1p127), f32(-0x1p-126), f32(0x1p-100), f32(1e30), f32(1e-30)}
	var as, bs []uint32
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, a), append(bs, b)
		}
	}
	rng := rand.New(rand.NewSource(32))
	for len(as)%256 != 0 || len(as) < 768 {
		a := rng.Uint32()
		b := f32(float32(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(300)-150))))
		as, bs = append(as, a), append(bs, b)
	}
	var want []uint32
	for i := range as {
		want = append(want, fp.Div32(as[i], bs[i], fp.RN, false), fp.Div32(as[i], bs[i], fp.RZ, false),
			fp.Div32(as[i], bs[i], fp.RN, true), fp.Div32(f32(1), bs[i], fp.RN, false))
	}
	le := func(vs []uint32) []byte {
		out := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
		return out
	}
	n := len(as)
	want64 := make([]uint64, len(want))
	for i, v := range want {
		want64[i] = uint64(v)
	}
	sp := &spec.Spec{Name: "fdiv", PTX: "k.ptx", Kernel: "fdiv",
		Launch: spec.Launch{Grid: [3]int{n / 256, 1, 1}, Block: [3]int{256, 1, 1}},
		Params: []spec.Param{
			{Name: "a", Kind: spec.KindBuffer, Elem: "u32", Count: n, InitHexLE: le(as)},
			{Name: "b", Kind: spec.KindBuffer, Elem: "u32", Count: n, InitHexLE: le(bs)},
			{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: 4 * n, Init: spec.InitZero},
		},
		Expect: []spec.Expect{{Param: "out", Elem: "u32", Count: 4 * n, Values: want64}},
	}
	dir := t.TempDir()
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fdiv.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(slowDivF32PTX), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "fdiv.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		level int
		knob  string
	}{{3, "OutlineF32SlowPath=1"}, {0, "OutlineF32SlowPath=1"}, {3, "OutlineF32SlowPath=0"}} {
		req := Request{OptLevel: tc.level, Verify: true, Knobs: knobs.Sources{CLI: []string{tc.knob}}}
		rep, err := RunSpec(s, RunOptions{Request: req, MaxWarpSteps: 10_000_000})
		if err != nil {
			t.Fatalf("-O%d %s: %v", tc.level, tc.knob, err)
		}
		if !rep.Pass {
			t.Errorf("-O%d %s: %s", tc.level, tc.knob, spec.FormatResults(rep.Results))
		}
	}
}

// uniformReg matches a uniform register or predicate in Ori text.
var uniformReg = regexp.MustCompile(`\bU(R[0-9Z]|P[0-9T])`)

// TestOutlineF32SlowPathKeepsUniform: hotspot's calculate_temp divides
// four times in f32; with the slow paths out of line (knob on) it calls, and
// ConvertToUniformReg still puts its block-uniform values in uniform
// registers (calls to slow-path subroutines do not block it), so it keeps
// the 36 registers it had with the slow paths inline (41 when every call
// blocked the uniform datapath; ptxas 13.0.88: 32). The subroutine
// itself uses no uniform register, so it clobbers none of the caller's.
func TestOutlineF32SlowPathKeepsUniform(t *testing.T) {
	path := filepath.Join(testenv.Shared(t), "corpus/gpuocelot/tests/ptx/rodinia/hotspot.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := CompileWith(path, src, Options{Arch: 80}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Knobs: outlineKnobs(t, "OutlineF32SlowPath=1")})
	if err != nil {
		t.Fatal(err)
	}
	const kernel = "_Z14calculate_tempiPfS_S_iiiiffffff"
	k := r.Final.Func(kernel)
	if k == nil {
		t.Fatalf("no kernel %s", kernel)
	}
	text := k.String()
	if !strings.Contains(text, "CALL.REL.NOINC `__orilab.fdiv.slowpath.RN`") {
		t.Fatalf("%s calls no f32 division slow path:\n%s", kernel, text)
	}
	if !uniformReg.MatchString(text) {
		t.Errorf("%s uses no uniform register:\n%s", kernel, text)
	}
	if n := sass.UsedRegs(k); n > 36 {
		t.Errorf("%s: %d registers, want at most 36", kernel, n)
	}
	for _, f := range r.Final.Funcs {
		if strings.HasPrefix(f.Name, "__orilab.") && uniformReg.MatchString(f.String()) {
			t.Errorf("%s uses uniform registers:\n%s", f.Name, f)
		}
	}
}
