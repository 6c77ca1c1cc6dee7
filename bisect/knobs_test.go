package bisect

import (
	"context"
	"slices"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

func sampleSpec(t *testing.T) *spec.Spec {
	t.Helper()
	s, err := spec.Load("../testdata/sample/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKnobsModeFindsTheFlippingKnob(t *testing.T) {
	s := sampleSpec(t)
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", plant(breakStoreOff, -1))
	defer restore()
	good, err := ParseKnobSettings("--good", "DisablePhases=GeneralOptimizeMid+OriBranchOpt ~ DisablePragmaKnobs")
	if err != nil {
		t.Fatal(err)
	}
	bad, err := ParseKnobSettings("--bad", "DisablePhases=OriBranchOpt~DumpKnobs")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Knobs(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}}, good, bad)
	if err != nil {
		t.Fatal(err)
	}
	wantDelta := []string{"DisablePhases=OriBranchOpt", "DisablePragmaKnobs (unset)", "DumpKnobs"}
	if !r.Found || !slices.Equal(r.Delta, wantDelta) || !slices.Equal(r.Minimal, []string{"DisablePhases=OriBranchOpt"}) {
		t.Fatalf("delta %q minimal %q found %v: %s", r.Delta, r.Minimal, r.Found, r.Reason)
	}
	if r.Knob != "-knob 'DisablePhases=OriBranchOpt~DisablePragmaKnobs'" {
		t.Errorf("knob %q", r.Knob)
	}
	if !strings.Contains(r.Replay, "--mode knobs --good 'DisablePhases=GeneralOptimizeMid+OriBranchOpt~DisablePragmaKnobs' --bad 'DisablePhases=OriBranchOpt~DumpKnobs'") {
		t.Errorf("replay %q", r.Replay)
	}
	// good, bad, then ddmin over three items, then the guard's two re-runs.
	if r.Executions < 3 || r.Executions > 8 {
		t.Errorf("%d executions", r.Executions)
	}
}

func TestKnobsModeReasons(t *testing.T) {
	s := sampleSpec(t)
	for _, tc := range []struct{ good, bad, reason string }{
		{"DumpKnobs", "DumpKnobs", "the good and bad knob settings are the same"},
		{"", "DisablePhases=OriBranchOpt", "the kernel passes with the bad knob settings too: nothing to bisect"},
	} {
		g, _ := ParseKnobSettings("--good", tc.good)
		b, _ := ParseKnobSettings("--bad", tc.bad)
		r, err := Knobs(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}}, g, b)
		if err != nil {
			t.Fatal(err)
		}
		if r.Found || r.Reason != tc.reason {
			t.Errorf("good %q bad %q: found %v, reason %q", tc.good, tc.bad, r.Found, r.Reason)
		}
	}
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", plant(breakStoreOff, -1))
	defer restore()
	g, _ := ParseKnobSettings("--good", "")
	b, _ := ParseKnobSettings("--bad", "DumpKnobs")
	r, err := Knobs(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}}, g, b)
	if err != nil || r.Found || r.Reason != "the kernel already fails with the good knob settings" {
		t.Errorf("broken under both: %+v %v", r, err)
	}
}

func TestParseKnobSettingsErrors(t *testing.T) {
	_, err := ParseKnobSettings("--bad", "DisablePhase=OriBranchOpt")
	if err == nil || !strings.HasPrefix(err.Error(), "--bad: ") || !strings.Contains(err.Error(), "DisablePhase") {
		t.Errorf("misspelled knob: %v", err)
	}
}
