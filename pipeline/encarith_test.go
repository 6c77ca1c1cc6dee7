package pipeline

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
	"orilab/pipeline/spec"
)

// funcConstsPTX has the two .func shapes whose constants the legalizer
// could not place while every register the function writes was live:
// bicubicTexture's w2 (FFMA R5 = R4, -3, 3 at -O3: two immediates) and
// particles_kernel's calcGridHash (SGXT R5 = c[0x3][0x4], 0x18: a
// constant in A). Both now take the instruction's own result register
// (scratchReg's fallback). out[2t] = w2(t), out[2t+1] = mul24(t, 7).
const funcConstsPTX = `.version 7.0
.target sm_80
.address_size 64

.const .align 4 .u32 scale[2] = {5, 7};

.func (.param .f32 r) w2(.param .f32 a)
{
	.reg .f32 %f<8>;
	ld.param.f32 %f1, [a];
	fma.rn.f32 %f2, %f1, 0fC0400000, 0f40400000;
	fma.rn.f32 %f3, %f1, %f2, 0f40400000;
	fma.rn.f32 %f4, %f1, %f3, 0f3F800000;
	mul.f32 %f5, %f4, 0f3E2AAAAB;
	st.param.f32 [r], %f5;
	ret;
}

.func (.param .u32 r) hash(.param .u32 a)
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [a];
	ld.const.u32 %r2, [scale+4];
	mul24.lo.s32 %r3, %r1, %r2;
	st.param.u32 [r], %r3;
	ret;
}

.visible .entry func_consts(.param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	cvt.rn.f32.u32 %f1, %r1;
	{
	.param .f32 pa;
	.param .f32 pr;
	st.param.f32 [pa], %f1;
	call.uni (pr), w2, (pa);
	ld.param.f32 %f2, [pr];
	}
	{
	.param .u32 qa;
	.param .u32 qr;
	st.param.u32 [qa], %r1;
	call.uni (qr), hash, (qa);
	ld.param.u32 %r2, [qr];
	}
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd2, %rd2, %rd3;
	st.global.f32 [%rd2], %f2;
	st.global.u32 [%rd2+4], %r2;
	ret;
}
`

// halfConvPTX converts integers and f64 to f16 and bf16 with every
// rounding (sm_90: cvt to bf16 from an integer or from f64 needs it),
// the I2F and F2F forms with the result type in bits 75-77.
const halfConvPTX = `.version 8.0
.target sm_90
.address_size 64

.visible .entry half_conv(.param .u64 p)
{
	.reg .b16 %h<12>;
	.reg .b32 %r<4>;
	.reg .f64 %fd<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	ld.global.u64 %rd2, [%rd1+8];
	ld.global.f64 %fd1, [%rd1+16];
	cvt.rn.bf16.s32 %h1, %r1;
	cvt.rz.bf16.u32 %h2, %r1;
	cvt.rn.f16.s64 %h3, %rd2;
	cvt.rp.f16.u64 %h4, %rd2;
	cvt.rn.bf16.s64 %h5, %rd2;
	cvt.rm.bf16.u64 %h6, %rd2;
	cvt.rn.f16.u32 %h7, %r1;
	cvt.rz.f16.f64 %h8, %fd1;
	cvt.rn.bf16.f64 %h9, %fd1;
	cvt.rm.bf16.f64 %h10, %fd1;
	st.global.v4.u16 [%rd1+24], {%h1, %h2, %h3, %h4};
	st.global.v4.u16 [%rd1+32], {%h5, %h6, %h7, %h8};
	st.global.v2.u16 [%rd1+40], {%h9, %h10};
	ret;
}
`

// funcConstsSpec writes funcConstsPTX and its spec into dir (32 threads;
// the expected values are computed here with the same fused operations)
// and returns the spec's path.
func funcConstsSpec(t *testing.T, dir string) string {
	t.Helper()
	ptxPath := filepath.Join(dir, "func_consts.ptx")
	if err := os.WriteFile(ptxPath, []byte(funcConstsPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	var vals []string
	for i := 0; i < 32; i++ {
		a := float32(i)
		f2 := float32(math.FMA(float64(a), -3, 3))
		f3 := float32(math.FMA(float64(a), float64(f2), 3))
		f4 := float32(math.FMA(float64(a), float64(f3), 1))
		f5 := f4 * math.Float32frombits(0x3e2aaaab)
		vals = append(vals, fmt.Sprintf("%q", fmt.Sprintf("0x%08x", math.Float32bits(f5))), fmt.Sprintf("%q", fmt.Sprintf("0x%08x", uint32(i*7))))
	}
	js := `{"name": "func_consts", "ptx": "func_consts.ptx", "kernel": "func_consts",
  "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
  "params": [{"name": "out", "kind": "buffer", "elem": "u32", "count": 64, "init": "zero"}],
  "expect": [{"param": "out", "elem": "u32", "count": 64, "values_hex": [` + strings.Join(vals, ", ") + `]}]}`
	p := filepath.Join(dir, "func_consts.json")
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// arithFormFiles are the kernels with the forms this file is about:
// FMNMX.FTZ.NAN, HFMA2.BF16_V2.RELU, I2F.F16 and .BF16, F2F.BF16.F32,
// F2F.F16.F64 and .BF16.F64, FLO.S32, F2FP.PACK_AB.RZ (testdata/lower),
// IADD3.X with ~UR and LOP3 with an immediate and a UR (testdata/opt's
// idiv64_loop and ddiv_loop at -O3), and the .func constants
// (funcConstsPTX; bicubicTexture and particles_kernel of the corpus),
// the conversions of halfConvPTX, and IDP with an immediate and IMAD
// by 0x10000 (bits_count's dp4a, cvt_float's cvt.f32.bf16).
func arithFormFiles(t *testing.T) []string {
	root := testenv.RepoRoot(t)
	files := []string{
		filepath.Join(root, "testdata", "lower", "bits_count.ptx"),
		filepath.Join(root, "testdata", "lower", "cvt_float.ptx"),
		filepath.Join(root, "testdata", "lower", "cvt_pack.ptx"),
		filepath.Join(root, "testdata", "lower", "float_arith.ptx"),
		filepath.Join(root, "testdata", "lower", "float_minmax.ptx"),
		filepath.Join(root, "testdata", "opt", "ddiv_loop.ptx"),
		filepath.Join(root, "testdata", "opt", "idiv64_loop.ptx"),
	}
	sdk := filepath.Join(testenv.Shared(t), "corpus", "gpuocelot", "tests", "ptx", "sdk2.2")
	files = append(files, filepath.Join(sdk, "bicubicTexture.ptx"), filepath.Join(sdk, "particles_kernel.ptx"))
	dir := t.TempDir()
	funcConstsSpec(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "half_conv.ptx"), []byte(halfConvPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(files, filepath.Join(dir, "func_consts.ptx"), filepath.Join(dir, "half_conv.ptx"))
}

// arithFormsWanted are mnemonics (Ori's, with modifiers) that must be
// among the compiled instructions, so that the tests below cannot pass
// by compiling something else; "~UR" marks an operand text.
var arithFormsWanted = []string{
	"FMNMX.FTZ.NAN", "HFMA2.BF16_V2.RELU", "I2F.F16.S32.RN", "I2F.BF16.S32.RN", "F2F.BF16.F32.RN",
	"F2F.F16.F64.RN", "F2F.BF16.F64.RN", "FLO.S32", "F2FP.PACK_AB.RZ", "IADD3.X ~UR", "I2F.BF16.S64.RN",
	"I2F.F16.U64.RP", "IDP.4A.S8.U8",
}

// TestArithFormsEncode: every instruction of arithFormFiles, at -O0 and
// -O3 for sm_80 and sm_90, encodes and decodes back to itself; before
// this the encoder refused the forms above (and the legalizer left the
// .func constants, the immediate-and-UR LOP3 and the UR pair in DMUL's A).
func TestArithFormsEncode(t *testing.T) {
	files := arithFormFiles(t)
	seen := map[string]bool{}
	for _, arch := range []int{80, 90} {
		for _, level := range []int{0, 3} {
			var st encodeStats
			bad := 0
			funcs := compileFor(t, files, arch, level)
			for _, c := range funcs {
				bad += roundTrip(t, c, arch, &st)
				for _, b := range c.f.Blocks {
					for _, in := range b.Insts {
						seen[in.Name()] = true
						text, _ := sass.InstText(in)
						if in.Op == ori.OpIADD3 && in.HasMod("X") && strings.Contains(text, "~UR") {
							seen["IADD3.X ~UR"] = true
						}
					}
				}
			}
			if st.total == 0 {
				t.Fatalf("sm_%d -O%d: nothing compiled", arch, level)
			}
			if st.encoded != st.total {
				t.Errorf("sm_%d -O%d: %d of %d instructions refused:%s", arch, level, st.total-st.encoded, st.total, topCounts(st.refused, 20))
			}
			if bad > 0 {
				t.Errorf("sm_%d -O%d: %d words do not decode back", arch, level, bad)
			}
		}
	}
	for _, w := range arithFormsWanted {
		if !seen[w] {
			t.Errorf("no %s among the compiled instructions", w)
		}
	}
}

// TestArithFormsNvdisasm: nvdisasm prints every word orilab encodes for
// arithFormFiles as orilab prints the instruction.
func TestArithFormsNvdisasm(t *testing.T) {
	tool := nvtools.Require(t, nvtools.Nvdisasm)
	files := arithFormFiles(t)
	for _, arch := range []int{80, 90} {
		for _, level := range []int{0, 3} {
			st := nvdisasmCompare(t, tool, compileFor(t, files, arch, level), arch)
			t.Logf("sm_%d -O%d: %d of %d instructions print as nvdisasm prints them", arch, level, st.matched, st.total)
			if st.matched != st.total || st.decMatched != st.encoded {
				t.Errorf("sm_%d -O%d: %d of %d match nvdisasm, %d decode to its text; refused:%s\nmismatched:%s\n%s",
					arch, level, st.matched, st.total, st.decMatched, topCounts(st.refused, 20), topCounts(st.mismatched, 20),
					strings.Join(append(st.examples, st.decExamples...), "\n"))
			}
		}
	}
}

// TestArithLegalizationRuns: the kernels whose legalization changed (a
// uniform register moved into an R register, a .func constant moved into
// the instruction's result register) compute the same buffers right
// before PostFixForMercTargets and after the last phase, and pass their
// specs, at -O0 and -O3 for sm_80 and sm_90.
func TestArithLegalizationRuns(t *testing.T) {
	root := testenv.RepoRoot(t)
	specs := []string{
		filepath.Join(root, "testdata", "opt", "ddiv_loop.json"),
		filepath.Join(root, "testdata", "opt", "idiv64_loop.json"),
		funcConstsSpec(t, t.TempDir()),
	}
	before, err := LookupPhase("PostFixForMercTargets")
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []int{80, 90} {
		for _, level := range []int{0, 3} {
			for _, file := range specs {
				name := strings.TrimSuffix(filepath.Base(file), ".json")
				s, err := spec.Load(file)
				if err != nil {
					t.Fatal(err)
				}
				src, err := os.ReadFile(s.PTXPath)
				if err != nil {
					t.Fatal(err)
				}
				req := Request{Arch: arch, OptLevel: level}
				sess, err := req.StartFile(s.PTXPath, src, SessionControl{})
				if err != nil {
					t.Fatalf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				if err := sess.RunTo(before - 1); err != nil {
					t.Fatalf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				pre := sess.Module().Clone()
				if err := sess.RunTo(len(PhaseTable) - 1); err != nil {
					t.Fatalf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				post := sess.Module()
				if _, err := encodeModule(post, arch); err != nil {
					t.Errorf("%s sm_%d -O%d: %v", name, arch, level, err)
				}
				b1, _, err := ExecuteBuffers(pre, s, RunOptions{})
				if err != nil {
					t.Fatalf("%s sm_%d -O%d before the fix-ups: %v", name, arch, level, err)
				}
				rep, err := Execute(post, s, RunOptions{})
				if err != nil {
					t.Fatalf("%s sm_%d -O%d after the fix-ups: %v", name, arch, level, err)
				}
				if !rep.Pass {
					t.Errorf("%s sm_%d -O%d: the legalized code fails its spec:\n%s", name, arch, level, spec.FormatResults(rep.Results))
				}
				b2, _, _ := ExecuteBuffers(post, s, RunOptions{})
				for i := range b1 {
					if !bytes.Equal(b1[i], b2[i]) {
						t.Errorf("%s sm_%d -O%d: buffer %d differs before and after the fix-ups", name, arch, level, i)
					}
				}
			}
		}
	}
}
