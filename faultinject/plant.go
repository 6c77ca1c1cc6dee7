package faultinject

import (
	"fmt"

	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// Plant returns the fault that injects bs's faults with seed right after
// phase at. It is the one way a bugspec is planted into a compilation:
// orilab compile --bugspec, orilab bisect --bugspec and the workbench's
// Fault pane all plant with it, and the phase manager runs the same
// verifiers on the result (pipeline.VerifyPostRA) that PipelineTarget
// runs on a trial, so all of them give the same verdict as orilab inject.
func Plant(bs Spec, seed int64, at string) (*pipeline.Fault, error) {
	idx, err := injectionPhase(at)
	if err != nil {
		return nil, err
	}
	name := pipeline.PhaseTable[idx].Name
	return &pipeline.Fault{
		After: name,
		Inject: func(m *ori.Module) (any, error) {
			return Inject(m, bs, seed, Options{})
		},
		Args: []string{"--bugspec", bs.String(), "--seed", fmt.Sprint(seed), "--at", name},
	}, nil
}

// injectionPhase checks that at names AllocateRegisters or a later
// phase ("" is AllocateRegisters) and returns its index.
func injectionPhase(at string) (int, error) {
	if at == "" {
		at = DefaultInjectionPhase
	}
	idx, err := pipeline.LookupPhase(at)
	if err != nil {
		return 0, fmt.Errorf("--at: %v", err)
	}
	ra, _ := pipeline.LookupPhase(DefaultInjectionPhase)
	if idx < ra {
		return 0, fmt.Errorf("--at %s: phase %d comes before AllocateRegisters (%d); bugspec faults corrupt post-allocation code", pipeline.PhaseTable[idx].Name, idx, ra)
	}
	return idx, nil
}

// OutcomeOf maps a verifier's rejection to the outcome that names it.
func OutcomeOf(ve *pipeline.VerifierError) Outcome {
	switch ve.Verifier {
	case "structural":
		return CaughtStructural
	case "reaching-defs":
		return CaughtReachingDefs
	case "hazard":
		return CaughtHazard
	}
	return CompilerCrash
}
