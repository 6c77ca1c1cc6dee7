package regalloc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
)

// TestScratchReuse allocates every function of a few modules twice:
// each with an unused scratch, and all with one scratch in turn, largest
// module first, so that every buffer the allocator keeps between
// attempts, classes and functions (scratch.go) comes to each function
// dirty and larger than it needs. The code and the statistics must be the
// same: a buffer that is not reset before it is read changes them. It
// runs without a register limit and with --maxrregcount 24, where the
// SPILL attempts reuse the NOSPILL ones' buffers.
func TestScratchReuse(t *testing.T) {
	files := []string{
		filepath.Join(testenv.Shared(t), largestFile),
		filepath.Join(testenv.Shared(t), "corpus/gpuocelot/tests/ptx/sdk2.2/convolutionSeparable.ptx"),
	}
	more, err := filepath.Glob("testdata/*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	var mods []*ori.Module
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, preRA(t, file, src, 80, 3))
	}
	for _, maxRegs := range []int{0, 24} {
		opts := regalloc.Options{Arch: 80, OptLevel: 3, MaxRegs: maxRegs}
		// result prints the allocated function and its statistics.
		result := func(f *ori.Func, s *regalloc.Scratch) string {
			st, err := regalloc.AllocateScratch(f, opts, s)
			if err != nil {
				return "error: " + err.Error()
			}
			js, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			return f.String() + "\n" + string(js)
		}
		shared := regalloc.NewScratch()
		n := 0
		for _, m := range mods {
			fresh, reused := m.Clone(), m.Clone()
			for i, f := range fresh.Funcs {
				want := result(f, regalloc.NewScratch())
				if got := result(reused.Funcs[i], shared); got != want {
					t.Errorf("maxrregcount %d: %s: allocated with a used scratch:\n%s\nwith an unused one:\n%s", maxRegs, f.Name, got, want)
				}
				n++
			}
		}
		if n < 10 {
			t.Fatalf("only %d functions compared", n)
		}
	}
}
