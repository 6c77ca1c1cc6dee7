package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/opt"
)

// TestRematIncrementalPressure compiles kernels where rematerialization
// tries many steps and checks the pressure it judges each step by, which
// it keeps up to date incrementally, against a measurement of the whole
// function from scratch.
func TestRematIncrementalPressure(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{"sdk2.2/quasirandomGenerator_SM13.ptx"}
	if !testing.Short() {
		files = append(files, "sdk2.2/MonteCarlo_SM13.ptx", "unstructured/mcx_core.ptx")
	}
	checked, restore := opt.CheckRematPressureForTest()
	defer restore()
	for _, rel := range files {
		file := filepath.Join(shared, "corpus/gpuocelot/tests/ptx", rel)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		before := checked()
		if _, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true}); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if checked() == before {
			t.Errorf("%s: rematerialization tried no step; the test checks nothing", rel)
		}
		t.Logf("%s: %d steps checked", rel, checked()-before)
	}
}
