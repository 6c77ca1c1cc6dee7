package opt_test

import (
	"strings"
	"testing"

	"orilab/pipeline"
)

// TestLatePassesChangeTheirKernels checks that OriBackCopyPropagate,
// OriRemoveRedundantBarriers, ConvertToUniformReg, DoSwitchOpt* and
// (Late)Vectorization change the IR of the
// testdata kernel written for each at -O3, and that the knob named for
// each switches it off. (The kernels' specs run at every level in
// TestTestdataOptSpecsAllLevels.)
func TestLatePassesChangeTheirKernels(t *testing.T) {
	for _, c := range []struct {
		ptx, phase string
		on, off    []string
	}{
		{"testdata/opt/backcopy.ptx", "OriBackCopyPropagate", nil, []string{"BackCopyPropBudget=0"}},
		{"testdata/opt/barriers.ptx", "OriRemoveRedundantBarriers", nil, []string{"DisableRedundantBarrierRemoval"}},
		{"testdata/opt/backcopy.ptx", "ConvertToUniformReg", nil, []string{"DisableUreg"}},
		{"testdata/opt/vectorize.ptx", "Vectorization", nil, []string{"DisableReadVectorization", "DisableWriteVectorization"}},
		// The late position merges what the early one left: shown with the
		// early one switched off.
		{"testdata/opt/vectorize.ptx", "LateVectorization", []string{"DisablePhases=Vectorization"},
			[]string{"DisablePhases=Vectorization", "DisableReadVectorization", "DisableWriteVectorization"}},
		{"testdata/opt/switch_chain.ptx", "DoSwitchOptFirst", nil, []string{"DisablePhases=DoSwitchOptFirst"}},
		// The second position lowers what the first left: shown with the
		// first switched off.
		{"testdata/opt/switch_chain.ptx", "DoSwitchOptSecond", []string{"DisablePhases=DoSwitchOptFirst"},
			[]string{"DisablePhases=DoSwitchOptFirst+DoSwitchOptSecond"}},
	} {
		t.Run(c.phase, func(t *testing.T) {
			on := prsSnapshot(t, prsSession(t, c.ptx, 3, c.phase, c.on...), c.phase)
			if on.Status != pipeline.StatusChanged {
				t.Errorf("%s did not change %s (%s %s)", c.phase, c.ptx, on.Status, on.Reason)
			}
			off := prsSnapshot(t, prsSession(t, c.ptx, 3, c.phase, c.off...), c.phase)
			if off.Status == pipeline.StatusChanged {
				t.Errorf("%s still changed %s with -knob %s", c.phase, c.ptx, strings.Join(c.off, " "))
			}
		})
	}
}

// TestUniformLoopNeedsNoConvergenceBarrier: backcopy.ptx's loop counter
// moves to UR, its exit branch is on a UP, and the final code has no
// BSSY/BSYNC around it; with DisableUreg the branch is on a P register
// and gets them.
func TestUniformLoopNeedsNoConvergenceBarrier(t *testing.T) {
	count := func(cli ...string) (bssy, upBranch int) {
		s := prsSession(t, "testdata/opt/backcopy.ptx", 3, "DumpNVuCodeText", cli...)
		text := prsSnapshot(t, s, "DumpNVuCodeText").Module.String()
		return strings.Count(text, "BSSY"), strings.Count(text, "@UP0 BRA")
	}
	if bssy, up := count(); bssy != 0 || up != 1 {
		t.Errorf("uniform registers on: %d BSSY, %d branches on UP0; want 0 and 1", bssy, up)
	}
	if bssy, up := count("DisableUreg"); bssy != 1 || up != 0 {
		t.Errorf("DisableUreg: %d BSSY, %d branches on UP0; want 1 and 0", bssy, up)
	}
}
