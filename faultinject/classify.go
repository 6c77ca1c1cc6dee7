package faultinject

import (
	"errors"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim"
)

// Helpers for Target implementations: the structural verifier, and the
// classification of a simulator run.

// VerifyStructural runs ori.Verify on every function of m and reports the
// first function it rejects as CaughtStructural, with the verifier's
// messages; OutcomeNone when all pass.
func VerifyStructural(m *ori.Module) (Outcome, string) {
	for _, f := range m.Funcs {
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			return CaughtStructural, err.Error()
		}
	}
	return OutcomeNone, ""
}

// ClassifyRun maps the end of an execution to an outcome: a *sim.Fault
// (bad address, misaligned access, trap) is CaughtMemFault, the step limit
// is CaughtHang, any other run error (the simulator refusing the IR) is a
// CompilerCrash; a run that finished is CaughtMismatch unless pass, then
// Masked. The detail is the error's text.
func ClassifyRun(runErr error, pass bool) (Outcome, string) {
	if runErr != nil {
		var f *sim.Fault
		switch {
		case errors.As(runErr, &f):
			return CaughtMemFault, runErr.Error()
		case errors.Is(runErr, sim.ErrStepLimit):
			return CaughtHang, runErr.Error()
		}
		return CompilerCrash, runErr.Error()
	}
	if !pass {
		return CaughtMismatch, "results differ from the expected values"
	}
	return Masked, ""
}
