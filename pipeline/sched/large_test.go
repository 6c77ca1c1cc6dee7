package sched_test

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/sched"
)

// largeModules are big gpuocelot modules (no expected outputs: old nvcc
// output from CUDA SDK samples and Rodinia). dxtc.ptx has the loop nest
// that once made AssignControlWords wait on a barrier no path had set.
var largeModules = []string{
	"tests/ptx/sdk2.2/dxtc.ptx",
	"tests/ptx/rodinia/hwt.ptx",
}

// TestControlWordsOnLargeKernels compiles large real kernels through the
// back end: both control-word forms must pass the hazard checker, and
// weakened words must be reported exactly as on the small kernels (at most
// 12 mutations per function, spread over it).
func TestControlWordsOnLargeKernels(t *testing.T) {
	root := filepath.Join(testenv.Shared(t), "corpus", "gpuocelot")
	funcs, mutated := 0, 0
	for _, rel := range largeModules {
		p := filepath.Join(root, rel)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := pipeline.NewSession(p, src, pipeline.Options{Arch: 75}, pipeline.PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if err := s.RunTo(preSchedPhase); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, pre := range s.Module().Funcs {
			f := pre.Clone()
			if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3}); err != nil {
				t.Fatal(err)
			}
			if _, err := regalloc.Allocate(f, regalloc.Options{Arch: 75, OptLevel: 3}); err != nil {
				t.Logf("%s %s: %v (skipped)", rel, f.Name, err)
				continue
			}
			if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, PostRA: true}); err != nil {
				t.Fatal(err)
			}
			funcs++
			o0 := f.Clone()
			if err := sched.AssignConservativeControlWords(o0, 75); err != nil {
				t.Fatal(err)
			}
			if err := sched.CheckHazards(o0, 75); err != nil {
				t.Errorf("%s -O0: %v", rel, err)
			}
			if err := sched.AssignControlWords(f, 75); err != nil {
				t.Fatal(err)
			}
			if err := sched.CheckHazards(f, 75); err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			ms := mutations(f)
			step := max(1, len(ms)/12)
			for i := 0; i < len(ms); i += step {
				c := (&ori.Module{Funcs: []*ori.Func{f}}).Clone().Funcs[0]
				ms[i].apply(c)
				mutated++
				if err := sched.CheckHazards(c, 75); err == nil || err.Error() != ms[i].want {
					t.Errorf("%s %s:\n got %v\nwant %s", rel, ms[i].kind, err, ms[i].want)
				}
			}
		}
	}
	if funcs < 5 || mutated < 40 {
		t.Errorf("only %d functions and %d mutations checked", funcs, mutated)
	}
	t.Logf("%d functions, %d mutations", funcs, mutated)
}
