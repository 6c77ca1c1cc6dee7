package pipeline

import (
	"errors"
	"fmt"

	"orilab/pipeline/ori"
	"orilab/pipeline/sched"
	"orilab/pipeline/verifyra"
)

// Fault is a fault to plant in the IR right after a phase: a bisection
// rehearsal with a known culprit (orilab bisect --bugspec ... --at PHASE),
// a fault-injection trial, or the workbench's Fault pane. Package
// faultinject builds Faults from bugspec lines (faultinject.Plant); the
// phase manager plants them and runs the verifiers on the result, so
// every front door gets the same verdict for the same fault.
type Fault struct {
	// After is the phase (by its table name) after which the fault is
	// planted, whether that phase ran or not. Disabling the phase with
	// DisablePhases disables the fault too, so that disable mode can find
	// it.
	After string
	// Inject corrupts m in place and returns its report (for bugspec
	// faults a *faultinject.Report).
	Inject func(m *ori.Module) (report any, err error)
	// Args are the command-line arguments that reproduce the fault, for
	// replay commands ("--bugspec", LINE, "--seed", S, "--at", PHASE),
	// unquoted.
	Args []string
}

// Planted is what became of a Fault in one compilation.
type Planted struct {
	Index  int    // the phase it was planted after
	Phase  string // its name
	Report any    // what Fault.Inject returned
	// Caught is the verifier that rejects the corrupted IR (nil when all
	// accept it). A caught fault ends the compilation with Caught as its
	// error, as a real bug caught by the same verifier would.
	Caught *VerifierError
	// Before is the IR the fault was planted into, and After the
	// corrupted IR.
	Before, After *ori.Module
}

// VerifierError is a verifier's rejection of the IR after a phase.
type VerifierError struct {
	// Verifier is "structural" (ori.Verify), "reaching-defs" (the post-RA
	// reaching-definitions verifier) or "hazard" (the control-word hazard
	// checker): the names faultinject's outcomes use.
	Verifier string
	Err      error
}

func (e *VerifierError) Error() string {
	return fmt.Sprintf("caught by the %s verifier: %v", e.Verifier, e.Err)
}

func (e *VerifierError) Unwrap() error { return e.Err }

// VerifyPostRA runs every verifier that can judge post-allocation code on
// m, in the fault injector's order: the structural verifier, the
// reaching-definitions verifier against pre (the IR right before
// allocation; skipped when nil), and, on code that already has control
// words, the hazard checker. It returns the first rejection, or nil.
func VerifyPostRA(m, pre *ori.Module, arch int) *VerifierError {
	for _, f := range m.Funcs {
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			return &VerifierError{Verifier: "structural", Err: err}
		}
	}
	if pre != nil {
		if err := verifyModule(pre, m); err != nil {
			return &VerifierError{Verifier: "reaching-defs", Err: err}
		}
	}
	for _, f := range m.Funcs {
		if controlWordsSet(f) {
			if err := sched.CheckHazards(f, arch); err != nil {
				return &VerifierError{Verifier: "hazard", Err: err}
			}
		}
	}
	return nil
}

// AsVerifierError returns the verifier rejection behind a compilation
// error: a planted fault that a verifier caught, or a hazard the
// control-word phases' checker found. Nil for other errors.
func AsVerifierError(err error) *VerifierError {
	var ve *VerifierError
	if errors.As(err, &ve) {
		return ve
	}
	var hz *sched.HazardError
	if errors.As(err, &hz) {
		return &VerifierError{Verifier: "hazard", Err: hz}
	}
	var rd *verifyra.ReachingDefsError
	if errors.As(err, &rd) {
		return &VerifierError{Verifier: "reaching-defs", Err: rd}
	}
	return nil
}

func controlWordsSet(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			return in.Ctrl.Set
		}
	}
	return false
}
