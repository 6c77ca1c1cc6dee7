package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
	"orilab/pipeline/knobs"
	"orilab/pipeline/sass"
	"orilab/pipeline/spec"
)

// cpAsyncFiles are the PTX files with cp.async: testdata/lower's forms,
// the kernel spec, and ZLUDA's cp_async (outside testdata).
func cpAsyncFiles(t *testing.T) []string {
	root := testenv.RepoRoot(t)
	return []string{
		filepath.Join(root, "testdata", "lower", "mem_cp_async.ptx"),
		filepath.Join(root, "testdata", "kernels", "cp_async_srcsize.ptx"),
		filepath.Join(root, "testdata", "kernels", "cp_async_pipeline.ptx"),
		filepath.Join(testenv.Shared(t), "corpus", "ZLUDA", "ptx", "src", "test", "spirv_run", "cp_async.ptx"),
	}
}

// sassLine matches an instruction of sass.Text's output and captures its
// text without address, semicolon and control word.
var sassLine = regexp.MustCompile(`/\*[0-9a-f]{4}\*/\s+(.*?)\s*;`)

// TestCpAsyncLDGSTS: with CpAsyncLDGSTS on (the default) cp.async is the
// LDGSTS, LDGDEPBAR and DEPBAR ptxas 13.0.88 writes for
// testdata/lower/mem_cp_async.ptx at sm_80 -O3 (a register src-size as a
// zero-fill count in the address, ignore-src as the negated source
// predicate), in 7 registers as ptxas's code; off, it is the loads and
// masked stores it was, in 12. On sm_90 three @!PT LDS RZ, [RZ] precede
// the block's first LDGSTS, as in ptxas's code there (ldgstspad.go).
func TestCpAsyncLDGSTS(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "lower", "mem_cp_async.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arch  int
		knob  string
		level int
		regs  int
		want  []string // the cp.async instructions, in order
	}{
		{80, "", 3, 7, []string{
			"LDGSTS.E.64.ZFILL [R4], [R2.64], P1",
			"@P2 LDGSTS.E.64 [R4+0x10], [R2.64], !P3",
			"LDGDEPBAR",
			"DEPBAR.LE SB0, 0x0",
		}},
		{80, "", 0, -1, []string{
			"LDGSTS.E.64.ZFILL [R6], [R2.64], P0",
			"@P0 LDGSTS.E.64 [R6+0x10], [R4.64], !P1",
			"LDGDEPBAR",
			"DEPBAR.LE SB0, 0x0",
		}},
		{80, "CpAsyncLDGSTS=0", 3, 12, nil},
		{90, "", 3, -1, []string{
			"@!PT LDS RZ, [RZ]", "@!PT LDS RZ, [RZ]", "@!PT LDS RZ, [RZ]",
			"LDGSTS.E.64.ZFILL [R0], desc[UR4][R2.64], P1",
			"@P2 LDGSTS.E.64 [R0+0x10], desc[UR4][R2.64], !P3",
			"LDGDEPBAR",
			"DEPBAR.LE SB0, 0x0",
		}},
	} {
		var settings []string
		if tc.knob != "" {
			settings = append(settings, tc.knob)
		}
		r, err := CompileWith(path, src, Options{Arch: tc.arch}, PhaseOptions{OptLevel: tc.level, NoSnapshots: true, Knobs: outlineKnobs(t, settings...)})
		if err != nil {
			t.Fatalf("-O%d %s: %v", tc.level, tc.knob, err)
		}
		text, err := sass.Text(r.Final, tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range sassLine.FindAllStringSubmatch(text, -1) {
			if strings.Contains(m[1], "LDGSTS") || strings.Contains(m[1], "DEPBAR") || strings.Contains(m[1], "LDS RZ") {
				got = append(got, strings.Join(strings.Fields(m[1]), " "))
			}
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("sm_%d -O%d %s: cp.async is\n\t%s\nwant\n\t%s", tc.arch, tc.level, tc.knob, strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
		}
		if tc.want == nil && !strings.Contains(text, "LDG.E ") {
			t.Errorf("-O%d %s: no LDG: the synchronous copy is gone", tc.level, tc.knob)
		}
		if n := sass.UsedRegs(r.Final.Func("cp_async_forms")); tc.regs >= 0 && n != tc.regs {
			t.Errorf("-O%d %s: %d registers, want %d", tc.level, tc.knob, n, tc.regs)
		}
	}
}

// TestCpAsyncSpec runs testdata/kernels/cp_async_srcsize (src-size 0, 5,
// 10 and 15 of 16 bytes, ignore-src on odd threads) and cp_async_pipeline
// (a two-stage loop: wait_group 1, then 0, and bar.sync) with LDGSTS and with
// the synchronous copy, at -O0 and -O3, on sm_80 and sm_90 (whose shared
// addresses carry the CTA's rank), right after the lowering too.
func TestCpAsyncSpec(t *testing.T) {
	for _, name := range []string{"cp_async_srcsize", "cp_async_pipeline"} {
		s, err := spec.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		cpAsyncSpec(t, s)
	}
}

func cpAsyncSpec(t *testing.T, s *spec.Spec) {
	for _, arch := range []int{80, 90} {
		for _, knob := range []string{"CpAsyncLDGSTS=1", "CpAsyncLDGSTS=0"} {
			for _, run := range []struct {
				level int
				after string
			}{{0, "lowering"}, {0, ""}, {3, ""}} {
				rep, err := RunSpec(s, RunOptions{Request: Request{Arch: arch, OptLevel: run.level, Knobs: knobs.Sources{CLI: []string{knob}}}, After: run.after})
				if err != nil {
					t.Fatalf("%s sm_%d %s -O%d %s: %v", s.Name, arch, knob, run.level, run.after, err)
				}
				if !rep.Pass {
					t.Errorf("%s sm_%d %s -O%d %s: mismatch:\n%s", s.Name, arch, knob, run.level, run.after, spec.FormatResults(rep.Results))
				}
			}
		}
	}
}

// TestCpAsyncNvdisasm: every instruction of the four cp.async files,
// compiled for sm_80, sm_86, sm_89 and sm_90 at -O0 and -O3, encodes, and
// nvdisasm prints each word as orilab prints the instruction.
func TestCpAsyncNvdisasm(t *testing.T) {
	tool := nvtools.Require(t, nvtools.Nvdisasm)
	files := cpAsyncFiles(t)
	for _, arch := range []int{80, 86, 89, 90} {
		for _, level := range []int{0, 3} {
			funcs, skipped := compileFor(t, files, arch, level)
			if skipped != 0 || len(funcs) != len(files) {
				t.Fatalf("sm_%d -O%d: %d functions, %d files rejected", arch, level, len(funcs), skipped)
			}
			st := nvdisasmCompare(t, tool, funcs, arch)
			if st.encoded != st.total || st.matched != st.total || st.decMatched != st.total {
				t.Errorf("sm_%d -O%d: of %d instructions %d encode, nvdisasm prints %d as orilab does, the decoder agrees on %d\nrefused:%s\nmismatched:%s",
					arch, level, st.total, st.encoded, st.matched, st.decMatched, st.refusals(), topCounts(st.mismatched, 10))
			}
		}
	}
}

// TestLDGSTSPads: ptxas's three @!PT LDS RZ, [RZ] before an LDGSTS go
// where it puts them (ldgstspad.go): in cp_async_pipeline at sm_80
// before the loop's LDGSTS only (the bar.sync reaches it over the back
// edge; the first LDGSTS follows no shared access), at sm_90 before both.
func TestLDGSTSPads(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "cp_async_pipeline.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arch, pads int }{{80, 3}, {86, 3}, {90, 6}} {
		r, err := CompileWith(path, src, Options{Arch: tc.arch}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err != nil {
			t.Fatal(err)
		}
		text, err := sass.Text(r.Final, tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		pads := 0
		for _, m := range sassLine.FindAllStringSubmatch(text, -1) {
			if strings.Join(strings.Fields(m[1]), " ") == "@!PT LDS RZ, [RZ]" {
				pads++
			}
		}
		if pads != tc.pads || strings.Count(text, "LDGSTS") != 2 {
			t.Errorf("sm_%d: %d pads, %d LDGSTS; want %d and 2", tc.arch, pads, strings.Count(text, "LDGSTS"), tc.pads)
		}
	}
}
