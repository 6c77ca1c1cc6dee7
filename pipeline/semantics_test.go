package pipeline

import (
	"os"
	"strings"
	"testing"

	"orilab/pipeline/spec"
)

// TestOptimizedMatchesO0 is the optimizer's semantic-preservation test:
// every kernel spec (allSpecs: the ZLUDA conversions that pass at -O0,
// testdata/kernels, testdata/opt and the allocator's kernels) is compiled at -O1, -O2 and -O3 with the verifier on
// after every phase, and executed after every phase that changed the IR.
// Each execution must still match the expected buffers.
func TestOptimizedMatchesO0(t *testing.T) {
	specs := allSpecs(t)
	changedRuns := 0
	for _, s := range specs {
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []int{1, 2, 3} {
			sess, err := NewSession(s.PTXPath, src, Options{}, PhaseOptions{OptLevel: o, Verify: true})
			if err != nil {
				t.Errorf("%s -O%d: %v", s.Name, o, err)
				continue
			}
			if err := sess.RunAll(); err != nil {
				t.Errorf("%s -O%d: %v", s.Name, o, err)
				continue
			}
			for _, sn := range sess.Snapshots {
				if sn.Status != StatusChanged {
					continue
				}
				changedRuns++
				rep, err := Execute(sn.Module, s, RunOptions{MaxWarpSteps: 5_000_000})
				switch {
				case err != nil:
					t.Errorf("%s -O%d after phase %d %s: %v", s.Name, o, sn.Index, sn.Name, firstLine(err.Error()))
				case !rep.Pass:
					t.Errorf("%s -O%d after phase %d %s: %s", s.Name, o, sn.Index, sn.Name, strings.TrimSpace(spec.FormatResults(rep.Results)))
				}
			}
		}
	}
	t.Logf("%d specs × 3 levels; %d executions after phases that changed the IR", len(specs), changedRuns)
}
