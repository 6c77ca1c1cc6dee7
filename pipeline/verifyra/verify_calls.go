package verifyra

import "orilab/pipeline/ori"

// Calls to whole-seen callees (regalloc/interproc.go). The allocator
// allocates a .func that only direct calls reach, and that does not
// reach itself (ori.Func.WholeSeen), before its callers; each CALL to it
// may then change exactly the registers the callee's code writes,
// transitively (ori.Clobbers), and the callee saves nothing. The
// verifier takes those sets from the allocated callees themselves
// (ori.ModuleClobbers over the allocated module), not from the
// allocator, so a callee that writes a register its caller keeps a value
// in across the call shows as a read of a clobbered register in the
// caller:
//
//   - a CALL to a callee with a set redefines only the physical values
//     and resets only the register locations in it (callClobber); every
//     other location keeps what it held, callee-saved or not;
//   - a whole-seen .func owes its callers no callee-saved register: its
//     RETs are checked for the return address only (checkCalleeSaved),
//     and checkCalleeSaves expects no saves.
//
// A CALL to any other function (indirect, recursive, .weak, undefined)
// follows the ABI as before. VerifyReachingDefs, without the sets, takes
// every call to be under the ABI, which is what the allocator does when
// it allocates a function without them (regalloc.Options.Callees nil).

// VerifyReachingDefsCalls is VerifyReachingDefs for a function allocated
// with the clobber sets of its whole-seen callees: callees maps each
// whole-seen function of the allocated module to what a call to it may
// change (ori.ModuleClobbers).
func VerifyReachingDefsCalls(before, after *ori.Func, callees map[string]ori.RegSet) error {
	if callees == nil {
		callees = map[string]ori.RegSet{}
	}
	return verifyReachingDefs(before, after, callees)
}

// callSet returns what CALL in may change and whether it is a call under
// the ABI.
func (v *rdVerifier) callSet(in *ori.Inst) (ori.RegSet, bool) {
	if v.callees != nil {
		if name, ok := ori.CallTarget(in); ok {
			if s, ok := v.callees[name]; ok {
				return s, false
			}
		}
	}
	return ori.RegSet{}, true
}

// private reports whether the verified function is a whole-seen callee
// allocated as one: it preserves no register for its callers.
func (v *rdVerifier) private() bool { return v.callees != nil && v.f.WholeSeen() }
