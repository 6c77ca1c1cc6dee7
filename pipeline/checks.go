package pipeline

import "orilab/pipeline/ori"

// ReleaseVerifiers lists what a release compilation (PhaseOptions.Release)
// does not run, for the documentation and the no-op reason of the
// validation phases.
//
// Decision: orilab compile runs no verifier unless asked (--check, or
// --verify after every phase), as ptxas runs none in its release builds
// (its validation phases are debug-only: they print nothing and cost
// nothing measurable in ptxas -O3 timings). Together they were 13% of the
// CPU time of compiling the corpus files of 20 KB or more (the post-RA
// reaching definitions 7%, the IR verifier 4.5%, the hazard proof 1.7%),
// and they never judge a correct compilation differently: they only turn
// a compiler bug into an error instead of wrong code. The encoding round
// trip of MercEncodeAndDecode (every word decoded and encoded again) is
// one of them by the same reasoning: it was three quarters of the
// encoding phases' time, and its words are the ones encoded anyway. Everything that
// hunts compiler bugs keeps them: the zero value of PhaseOptions runs
// them, so every test, orilab run, fuzz, bisect, reduce and inject do,
// and TestReleaseSameOutput checks that a release compilation's SASS is
// the checked one's.
const ReleaseVerifiers = "the IR verifier after lowering and at OriCheckInitialProgram, OriSanitize and FinalInspectionPass, the reaching-definitions proof after AllocateRegisters, the hazard proof of the control words and the encoding round trip (each word decoded and encoded again)"

// validation is the code of ptxas's validation phases: the IR verifier,
// except in a release compilation.
var validation = PhaseFunc{Run: verifyIR, Skip: skipInRelease}

// skipInRelease is the no-op reason of the validation phases in a release
// compilation.
func skipInRelease(c *PhaseContext) string {
	if c.Release {
		return "release compilation: verifiers are off (orilab compile --check runs them)"
	}
	return ""
}

// verifyIR runs the IR verifier over every function: ptxas's validation
// phases (OriCheckInitialProgram, OriSanitize, FinalInspectionPass).
func verifyIR(c *PhaseContext) error {
	for _, f := range c.Module.Funcs {
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// analyzeControlFlow rebuilds every function's CFG edges from its
// terminators. Dominators and post-dominators are cached on the function
// (ori.Dominators) until the next ComputeCFG; loops are found on demand
// from the cached dominator tree. Every pass ends with ComputeCFG (the
// phase manager calls it after each), so the cache never outlives the
// edges it was computed from; TestAnalysisCacheIsInvalidated runs the
// pipeline with every cache hit checked against a fresh tree.
func analyzeControlFlow(c *PhaseContext) error {
	for _, f := range c.Module.Funcs {
		if err := f.ComputeCFG(); err != nil {
			return err
		}
	}
	return nil
}
