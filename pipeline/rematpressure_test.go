package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/knobs"
	"orilab/pipeline/opt"
)

// TestRematIncrementalPressure compiles kernels where rematerialization
// tries many steps and checks the pressure it judges each step by, which
// it keeps up to date incrementally, against a measurement of the whole
// function from scratch. The knobs make remat try far more steps than by
// default (always, predicates too, at both positions, with a large
// budget): about 180 on quasirandomGenerator_SM13.
func TestRematIncrementalPressure(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{"sdk2.2/quasirandomGenerator_SM13.ptx"}
	if !testing.Short() {
		files = append(files, "sdk2.2/MonteCarlo_SM13.ptx", "sdk2.2/dct8x8_kernel_short.ptx")
	}
	ks, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: []string{"RematRegTargetFactor=0", "RematEnablePReg=1",
		"RematEarlyEnable=1", "RematInflationSlack=200", "RematMinDistance=2"}})
	if err != nil {
		t.Fatal(err)
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
		if _, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Knobs: ks}); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if checked()-before < 50 {
			t.Errorf("%s: rematerialization tried only %d steps; the test checks little", rel, checked()-before)
		}
		t.Logf("%s: %d steps checked", rel, checked()-before)
	}
}
