package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
)

// TestPredicationKeptLiveness compiles kernels where if-conversion
// converts many regions and checks, for every region judged with
// liveness kept from before earlier conversions, each answer it can use
// against liveness computed afresh, and every liveness it recomputes
// from the last one (LiveSets.Recompute) against a fresh one (a
// difference panics inside the phase and fails the compile).
func TestPredicationKeptLiveness(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{"sdk2.2/MonteCarlo_SM13.ptx"}
	if !testing.Short() {
		files = append(files, "unstructured/mcx_core.ptx", "sdk2.2/dxtc.ptx", "rodinia/hwt.ptx")
	}
	checked, restore := opt.CheckPredicationLivenessForTest()
	defer restore()
	// The liveness recomputed after conversions must equal a fresh one
	// everywhere (a difference panics inside Recompute).
	ori.CheckLiveRecompute.Store(true)
	defer ori.CheckLiveRecompute.Store(false)
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
		t.Logf("%s: %d regions checked", rel, checked()-before)
	}
	if checked() == 0 {
		t.Error("no region was judged with kept liveness: the test checks nothing")
	}
}

// TestDeadCodeOneRound compiles large kernels with every dead-code
// elimination followed by a second round that must find nothing to
// remove or narrow (a rewrite panics inside the phase and fails the
// compile): dead-code elimination stops after one round.
func TestDeadCodeOneRound(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{"sdk2.2/MonteCarlo_SM13.ptx", "rodinia/hwt.ptx"}
	if !testing.Short() {
		files = append(files, "unstructured/mcx_core.ptx", "sdk2.2/dxtc.ptx", "sdk2.2/particleSystem.ptx", "sdk2.2/bisect_kernel_large_multi.ptx")
	}
	opt.CheckDeadCodeOneRound.Store(true)
	defer opt.CheckDeadCodeOneRound.Store(false)
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
}
