package regalloc_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
)

// TestClassLivenessMatchesOri checks the allocator's per-class liveness
// against ori.Liveness restricted to the class, block by block, on every
// function of a few large corpus files before allocation (loops, calls,
// tuples, predicates and uniform registers among them).
func TestClassLivenessMatchesOri(t *testing.T) {
	files := []string{
		largestFile,
		"corpus/gpuocelot/tests/ptx/sdk2.2/quasirandomGenerator_SM13.ptx",
		"corpus/gpuocelot/tests/ptx/sdk2.2/MonteCarlo_SM13.ptx",
	}
	shared := testenv.Shared(t)
	checked := 0
	for _, file := range files {
		path := filepath.Join(shared, file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := preRA(t, path, src, 80, 3)
		for _, f := range m.Funcs {
			if err := f.ComputeCFG(); err != nil {
				t.Fatal(err)
			}
			lv := ori.Liveness(f)
			for _, c := range []ori.RegClass{ori.ClassUP, ori.ClassP, ori.ClassUR, ori.ClassR} {
				got, err := regalloc.ClassLiveOut(f, c)
				if err != nil {
					t.Fatalf("%s %s: %v", f.Name, c, err)
				}
				for bi, b := range f.Blocks {
					var want []ori.Reg
					for _, w := range lv.LiveOutWords(b) {
						if w.Class == c {
							want = append(want, w)
						}
					}
					g := slices.Clone(got[bi])
					slices.SortFunc(g, func(x, y ori.Reg) int {
						if x.N != y.N {
							return int(x.N - y.N)
						}
						return int(x.Off) - int(y.Off)
					})
					if !slices.Equal(g, want) {
						t.Errorf("%s %s BB%d: live out %v, ori.Liveness says %v", f.Name, c, b.ID, g, want)
					}
					checked += len(want)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no live-out word compared")
	}
	t.Logf("%d live-out words compared", checked)
}
