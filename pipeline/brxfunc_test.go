package pipeline

import (
	"path/filepath"
	"testing"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// TestBRXInFuncEncodes: testdata/kernels/brx_func calls a .func holding
// brx.idx twice. The lowering inlines it (lower/inlinebrx.go), so at -O0
// and -O3, for sm_80 and sm_90, the kernel is the only function, both
// BRXs read a jump table from bank 2, the simulator produces the spec's
// values, and nvdisasm prints every encoded instruction as orilab does,
// with none refused.
func TestBRXInFuncEncodes(t *testing.T) {
	tool := nvtools.Require(t, nvtools.Nvdisasm)
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels")
	s, err := spec.Load(filepath.Join(dir, "brx_func.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []int{80, 90} {
		for _, level := range []int{0, 3} {
			rep, err := RunSpec(s, RunOptions{Request: Request{Arch: arch, OptLevel: level}})
			if err != nil {
				t.Fatalf("sm_%d -O%d: %v", arch, level, err)
			}
			if !rep.Pass {
				t.Errorf("sm_%d -O%d: mismatch:\n%s", arch, level, spec.FormatResults(rep.Results))
			}
			funcs, skipped := compileFor(t, []string{filepath.Join(dir, "brx_func.ptx")}, arch, level)
			if skipped != 0 || len(funcs) != 1 || funcs[0].f.Name != "brx_func" {
				t.Fatalf("sm_%d -O%d: %d functions (%d files rejected), want only the kernel", arch, level, len(funcs), skipped)
			}
			tables := 0
			for _, b := range funcs[0].f.Blocks {
				for _, in := range b.Insts {
					if in.Op == ori.OpBRX && len(in.Srcs) > 1 && in.Srcs[1].Kind == ori.OpdCBank {
						tables++
					}
				}
			}
			if tables != 2 {
				t.Errorf("sm_%d -O%d: %d BRXs read a jump table, want 2", arch, level, tables)
			}
			st := nvdisasmCompare(t, tool, funcs, arch)
			if st.total == 0 || st.encoded != st.total || st.matched != st.total {
				t.Errorf("sm_%d -O%d: %d instructions, %d encoded, %d as nvdisasm prints them\nrefused:%s", arch, level, st.total, st.encoded, st.matched, st.refusals())
			}
		}
	}
}
