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

// TestMaxRegCountLowerBound: --maxrregcount below 24 is raised to 24 with
// a warning, as ptxas 13 does, instead of failing allocation with "0 of
// the usable registers R4-R1 are in use" (issue 22, defect 11).
func TestMaxRegCountLowerBound(t *testing.T) {
	src := "../../testdata/kernels/iadd.ptx"
	code, want, _ := runCLI(t, "compile", "--maxrregcount", "24", src)
	if code != 0 {
		t.Fatalf("--maxrregcount 24: exit %d", code)
	}
	for _, n := range []string{"2", "23"} {
		code, out, errs := runCLI(t, "compile", "--maxrregcount", n, src)
		w := "orilab compile: warning: adjusting --maxrregcount " + n + " to the lower bound of 24 registers per thread (as ptxas does)\n"
		if code != 0 || errs != w || out != want {
			t.Errorf("--maxrregcount %s: exit %d, stderr %q (want %q); SASS same as with 24: %v", n, code, errs, w, out == want)
		}
	}
}
