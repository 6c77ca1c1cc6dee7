package pipeline

import (
	"os"
	"regexp"
	"testing"

	"orilab/pipeline/knobs"
)

// TestIselFoldsInPipeline compiles testdata/kernels/isel_folds.ptx at -O3
// and checks that each issue-21 pass leaves its mark on the final code,
// and that the mark goes when the pass's knob switches it off (the spec
// itself, run by TestKernelSpecs at every -O level, checks the results).
func TestIselFoldsInPipeline(t *testing.T) {
	const path = "testdata/kernels/isel_folds.ptx"
	src, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	compile := func(settings ...string) string {
		t.Helper()
		ks, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: settings})
		if err != nil {
			t.Fatal(err)
		}
		r, err := CompileWith(path, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Knobs: ks})
		if err != nil {
			t.Fatalf("%v: %v", settings, err)
		}
		return r.Final.String()
	}
	backEdges := regexp.MustCompile(`BRA BB`)
	for _, tc := range []struct {
		knob string
		mark *regexp.Regexp
	}{
		{"DisableGuardedExit=1", regexp.MustCompile(`@!?P\d+ EXIT ;`)},
		{"DisableSetpPredFold=1", regexp.MustCompile(`ISETP\.[A-Z0-9.]+ P\d+, PT = [^;]*, !?P\d+ ;`)},
		{"DisableLEAHIFold=1", regexp.MustCompile(`LEA\.HI\.X `)},
		{"DisableOffsetFold=1", regexp.MustCompile(`\[R\d+\.64\+0x`)},
		{"LoopInversion=0", regexp.MustCompile(`@!P\d+ BRA `)},
	} {
		on, off := compile(), compile(tc.knob)
		if !tc.mark.MatchString(on) {
			t.Errorf("default knobs: no %s in\n%s", tc.mark, on)
		}
		if tc.mark.MatchString(off) {
			t.Errorf("%s: still %s in\n%s", tc.knob, tc.mark, off)
		}
	}
	// The dead loop's back edge is the branch that goes.
	on, off := compile(), compile("DisableDeadLoopElim=1")
	if n, m := len(backEdges.FindAllString(on, -1)), len(backEdges.FindAllString(off, -1)); m != n+1 {
		t.Errorf("branches: %d with the dead loop deleted, %d without (want one more)\n%s", n, m, on)
	}
}
