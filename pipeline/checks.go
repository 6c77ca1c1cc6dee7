package pipeline

import "orilab/pipeline/ori"

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
