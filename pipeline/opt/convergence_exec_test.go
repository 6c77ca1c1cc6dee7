package opt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

// TestConvergenceKernels compiles the kernels of testdata/convergence
// through every phase at -O0 and -O3 and runs them: each once deadlocked
// on a BSYNC that FixUpTexDepBarAndSync placed.
func TestConvergenceKernels(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "convergence", "*.json"))
	if len(files) == 0 {
		t.Fatal("no kernels in testdata/convergence")
	}
	for _, file := range files {
		s, err := spec.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/O%d", s.Name, opt), func(t *testing.T) {
				res, err := pipeline.CompileWith(s.PTXPath, src, pipeline.Options{}, pipeline.PhaseOptions{OptLevel: opt, NoSnapshots: true, Verify: true})
				if err != nil {
					t.Fatal(err)
				}
				rep, err := pipeline.Execute(res.Final, s, pipeline.RunOptions{MaxWarpSteps: 1_000_000})
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Pass {
					t.Fatalf("wrong output:\n%s", spec.FormatResults(rep.Results))
				}
			})
		}
	}
}
