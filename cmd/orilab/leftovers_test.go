package main

import (
	"strings"
	"testing"
)

// TestKnobOutOfRange: an integer knob set outside its range is refused
// before any compilation, naming the knob and the range (issue 22,
// defect 11: LoopUnrollFactor=-5 was accepted).
func TestKnobOutOfRange(t *testing.T) {
	p := writeFile(t, t.TempDir(), "k.ptx", kernelSrc("ret;"))
	for _, c := range []struct{ knob, want string }{
		{"LoopUnrollFactor=-5", "-knob LoopUnrollFactor=-5: LoopUnrollFactor=-5 is out of range: must be at least 0"},
		{"UnrollBudget=-1", "UnrollBudget=-1 is out of range: must be at least 0"},
		{"BackCopyPropBudget=-2", "BackCopyPropBudget=-2 is out of range: must be at least -1"},
		{"SchedTexBatchTargetSelectRegisterTarget=0", "SchedTexBatchTargetSelectRegisterTarget=0 is out of range: must be at least 1"},
		{"RegAllocNumNonSpillTrials=-3", "RegAllocNumNonSpillTrials=-3 is out of range: must be at least 0"},
	} {
		code, _, errs := runCLI(t, "compile", "--emit", "ir", "-knob", c.knob, p)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("-knob %s: exit %d, stderr %q; want exit 2 and %q", c.knob, code, errs, c.want)
		}
	}
	if code, _, errs := runCLI(t, "compile", "--emit", "ir", "-knob", "LoopUnrollFactor=0~BackCopyPropBudget=-1", p); code != 0 {
		t.Errorf("in-range knobs: exit %d, stderr %q", code, errs)
	}
}
