package pipeline

import (
	"fmt"

	"orilab/pipeline/ori"
	"orilab/pipeline/verifyra"
)

// verifyModule proves the allocation of every function of m that pre
// (the module right before allocation) has, with the reaching-definitions
// verifier. A call to a whole-seen callee may change what the callee's
// allocated code writes (regalloc/interproc.go), read from m itself.
func verifyModule(pre, m *ori.Module) error {
	callees, err := ori.ModuleClobbers(m)
	if err != nil {
		return fmt.Errorf("verify-ra: %w", err)
	}
	for _, f := range m.Funcs {
		if p := pre.Func(f.Name); p != nil {
			if err := verifyra.VerifyReachingDefsCalls(p, f, callees); err != nil {
				return err
			}
		}
	}
	return nil
}
