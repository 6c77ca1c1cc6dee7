package main

import (
	"strings"
	"testing"
)

// TestDiffFirstDifference: orilab diff names the phases where A and B
// part, shows the A-to-B diff where the IR first differs, and exits 0
// when the final IR is the same.
func TestDiffFirstDifference(t *testing.T) {
	code, out, errs := runCLI(t, "diff", twoFuncs, "--func", "second", "--b", "DisablePhases=GeneralOptimizeEarly")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	for _, want := range []string{
		"A: (none)\nB: DisablePhases=GeneralOptimizeEarly\ntestdata/twofuncs.ptx at -O3, second:\n",
		"  #13  GeneralOptimizeEarly             A changed    B disabled   4 lines differ\n",
		"    --- A after GeneralOptimizeEarly\n    +++ B after GeneralOptimizeEarly\n",
		"    -\t#7 IMAD %r4 = %r3, 0x3, RZ ; line 34\n    +\t#7 IMAD %r4 = %r2, 0x3, RZ ; line 34\n",
		"  #16  OriPerformLiveDeadFirst          A changed    B unchanged  5 lines differ\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "after the last phase (NOP): the IR is the same\n") {
		t.Errorf("output does not end with the final verdict:\n%s", out)
	}
}

// TestDiffFinalDiffers: a difference that lasts to the end is shown as
// the final A-to-B diff, with exit 1. (Without the scheduler alone the
// final IR of "first" is the same since PostSchedule reorders it alike
// and R0, R2 and R3 are allocated; allocating from R4 keeps it apart.)
func TestDiffFinalDiffers(t *testing.T) {
	code, out, errs := runCLI(t, "diff", twoFuncs, "--func", "first", "--b", "DisablePhases=ScheduleInstructions~RegAllocLowRegisters=0")
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	for _, want := range []string{
		"  #114 ScheduleInstructions             A changed    B disabled   2 lines differ\n",
		"  #122 AllocateRegisters                A changed    B changed    6 lines differ\n",
		"after the last phase (NOP): 5 lines differ\n\n--- A\n+++ B\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDiffErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{twoFuncs, "--a", "X=1", "--b", "X=1"}, "orilab diff: --a and --b are the same (\"X=1\"): nothing to compare\n"},
		{[]string{twoFuncs, "--b", "DisablePhases=Foo"}, "orilab diff: compilation B (\"DisablePhases=Foo\"): DisablePhases: unknown phase \"Foo\" (orilab phases lists them)\n"},
		{[]string{twoFuncs, "--b", "DisablePhases=OriBranchOpt", "--func", "secnd"}, "orilab diff: compilation A (\"\"): --func secnd: no such function (did you mean second?)\n"},
	} {
		code, out, errs := runCLI(t, append([]string{"diff"}, tc.args...)...)
		if code != 2 || out != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}
