package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/opt"
)

// TestGeneralOptimizeSkips compiles large kernels with every
// GeneralOptimize sub-pass the bundle skips (its input unchanged since a
// run that changed nothing) run anyway: a skipped sub-pass that changes
// the function panics inside the phase and fails the compile.
func TestGeneralOptimizeSkips(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{"sdk2.2/MonteCarlo_SM13.ptx", "sdk2.2/convolutionSeparable.ptx"}
	if !testing.Short() {
		files = append(files, "unstructured/mcx_core.ptx", "sdk2.2/dxtc.ptx", "rodinia/hwt.ptx")
	}
	opt.CheckBundleSkips.Store(true)
	defer opt.CheckBundleSkips.Store(false)
	before := opt.BundleSkipsChecked.Load()
	for _, rel := range files {
		file := filepath.Join(shared, "corpus/gpuocelot/tests/ptx", rel)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []int{1, 3} {
			if _, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: o, NoSnapshots: true}); err != nil {
				t.Fatalf("%s -O%d: %v", rel, o, err)
			}
		}
	}
	n := opt.BundleSkipsChecked.Load() - before
	if n == 0 {
		t.Fatal("no sub-pass was skipped: the test checks nothing")
	}
	t.Logf("%d skipped sub-passes checked", n)
}
