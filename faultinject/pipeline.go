package faultinject

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
	"orilab/pipeline/spec"
)

// PipelineTarget is the Target of a real compilation: the spec's PTX is
// compiled once up to the injection phase; every trial forks that
// compilation, corrupts the fork's IR, runs the verifiers, continues with
// the remaining phases (whose control-word phase runs the hazard checker)
// and executes the result.
//
// The execution oracle is the output of the same compilation without
// faults: a fault is masked when every buffer is bit-identical, whatever
// the spec expects. (The uncorrupted output is checked against the spec
// once, up front, so a campaign never measures a kernel that already
// fails.)
type PipelineTarget struct {
	spec     *spec.Spec
	sess     *pipeline.Session // stopped after the injection phase
	at       int
	arch     int
	steps    int64    // warp-step limit per execution
	baseline [][]byte // buffers of the uncorrupted compilation
	finals   sync.Map // *ori.Module (corrupted, as injected) -> *ori.Module (after the remaining phases)
}

// PipelineConfig configures NewPipelineTarget.
type PipelineConfig struct {
	// Request is the compilation to corrupt: target, -O, knobs (the
	// module's .pragma strings included), --maxrregcount. Its Fault must
	// be nil: the trials inject their own.
	Request pipeline.Request
	// At is the phase after which faults are injected; "" means
	// AllocateRegisters, ptxas's injection point.
	At string
	// MaxWarpSteps bounds each execution; 0 means 20 times the
	// uncorrupted run's warp-steps plus 100,000, so a hang is found fast.
	MaxWarpSteps int64
}

// DefaultInjectionPhase is where ptxas injects: right after register
// allocation.
const DefaultInjectionPhase = "AllocateRegisters"

// NewPipelineTarget compiles s up to the injection phase and runs the
// uncorrupted compilation to the end once, for the oracle.
func NewPipelineTarget(s *spec.Spec, src []byte, cfg PipelineConfig) (*PipelineTarget, error) {
	return newTarget(s, src, cfg, true)
}

// NewCompileTarget is NewPipelineTarget for a program without a kernel
// spec: the verifiers run, Execute cannot.
func NewCompileTarget(s *spec.Spec, src []byte, cfg PipelineConfig) (*PipelineTarget, error) {
	return newTarget(s, src, cfg, false)
}

func newTarget(s *spec.Spec, src []byte, cfg PipelineConfig, execute bool) (*PipelineTarget, error) {
	idx, err := injectionPhase(cfg.At)
	if err != nil {
		return nil, err
	}
	if cfg.Request.Fault != nil {
		return nil, fmt.Errorf("a fault-injection target plants its own faults; the request already plants one after %s", cfg.Request.Fault.After)
	}
	sess, err := cfg.Request.StartFile(s.PTXPath, src, pipeline.SessionControl{})
	if err != nil {
		return nil, err
	}
	if err := sess.RunTo(idx); err != nil {
		return nil, err
	}
	if sess.Backend() == nil || sess.Backend().PreRA == nil {
		return nil, fmt.Errorf("AllocateRegisters did not run before %s (disabled or left out by NamedPhases?): there is no post-allocation code to corrupt", pipeline.PhaseTable[idx].Name)
	}
	t := &PipelineTarget{spec: s, sess: sess, at: idx, arch: sess.Module().Arch}
	if !execute {
		return t, nil
	}
	clean := sess.Fork()
	if err := clean.RunAll(); err != nil {
		return nil, fmt.Errorf("the uncorrupted compilation fails: %v", err)
	}
	bufs, st, err := pipeline.ExecuteBuffers(clean.Module(), s, pipeline.RunOptions{MaxWarpSteps: cfg.MaxWarpSteps})
	if err != nil {
		return nil, fmt.Errorf("the uncorrupted kernel does not execute: %v", err)
	}
	if len(s.Expect) > 0 {
		for _, r := range s.Check(bufs) {
			if !r.Pass {
				return nil, fmt.Errorf("the uncorrupted kernel already fails its spec (%s): nothing to measure", r.Param)
			}
		}
	}
	t.baseline = bufs
	t.steps = cfg.MaxWarpSteps
	if t.steps == 0 {
		t.steps = 20*st.WarpSteps + 100_000
	}
	return t, nil
}

// Phase is the name of the injection phase.
func (t *PipelineTarget) Phase() string { return pipeline.PhaseTable[t.at].Name }

// Fresh returns a copy of the IR after the injection phase.
func (t *PipelineTarget) Fresh() (*ori.Module, error) { return t.sess.Module().Clone(), nil }

// Verify runs the verifiers on the corrupted IR: the structural verifier,
// the post-RA reaching-definitions verifier against the IR from before
// allocation, and, on code that already has control words, the hazard
// checker. When none objects it continues the compilation, whose
// control-word phase runs the hazard checker again on the final code.
func (t *PipelineTarget) Verify(m *ori.Module) (Outcome, string, error) {
	if ve := pipeline.VerifyPostRA(m, t.sess.Backend().PreRA, t.arch); ve != nil {
		return OutcomeOf(ve), ve.Err.Error(), nil
	}
	fork := t.sess.Fork()
	fork.Replace(m.Clone())
	if err := fork.RunAll(); err != nil {
		if ve := pipeline.AsVerifierError(err); ve != nil {
			return OutcomeOf(ve), err.Error(), nil
		}
		return OutcomeNone, "", fmt.Errorf("the compilation after the injection point fails: %v", err)
	}
	t.finals.Store(m, fork.Module())
	return OutcomeNone, "", nil
}

// Execute runs the final code of a corrupted compilation that passed the
// verifiers and compares every buffer with the uncorrupted run.
func (t *PipelineTarget) Execute(m *ori.Module) (Outcome, string, error) {
	if t.baseline == nil {
		return OutcomeNone, "", errors.New("this target has no kernel spec to execute")
	}
	v, ok := t.finals.LoadAndDelete(m)
	if !ok {
		return OutcomeNone, "", errors.New("Execute before Verify: the remaining phases have not run")
	}
	bufs, _, err := pipeline.ExecuteBuffers(v.(*ori.Module), t.spec, pipeline.RunOptions{MaxWarpSteps: t.steps})
	if err != nil {
		o, d := ClassifyRun(err, false)
		return o, d, nil
	}
	for i := range bufs {
		if !bytes.Equal(bufs[i], t.baseline[i]) {
			o, _ := ClassifyRun(nil, false)
			return o, fmt.Sprintf("%s differs from the uncorrupted run", t.spec.Params[i].Name), nil
		}
	}
	o, d := ClassifyRun(nil, true)
	return o, d, nil
}

// FinalSASS continues the compilation of a corrupted module to the end
// and returns its SASS text.
func (t *PipelineTarget) FinalSASS(m *ori.Module) (string, error) {
	fork := t.sess.Fork()
	fork.Replace(m.Clone())
	if err := fork.RunAll(); err != nil {
		return "", err
	}
	return sass.Text(fork.Module(), t.arch)
}
