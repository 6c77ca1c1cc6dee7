// Package verifyra is the post-allocation reaching-definitions verifier,
// ptxas's "memcheck" (wiki, Fat-Point Allocation Algorithm,
// "Post-Allocation Verification"): given a function right before register
// allocation and the same function after allocation (and possibly later
// post-RA phases and spill code), VerifyReachingDefs proves that every
// register read of the allocated code reads a location holding the value
// the same read saw before allocation, or returns a *ReachingDefsError
// naming the first read that does not. In a .func it also proves that
// every RET gives the caller back its callee-saved R16-R31 and jumps
// through the return address it received. VerifyReachingDefsCalls does
// the same for a function allocated with the registers each of its
// whole-seen callees changes (verify_calls.go): a call to one changes
// only those, and such a callee owes its callers no register but the
// return address. verify.go explains the algorithm; verify_pre.go,
// verify_state.go, verify_role.go and verify_report.go are its parts;
// verify_calleesave.go checks the shape of the saves and restores of the
// callee-saved registers.
//
// It depends only on the IR (pipeline/ori), not on the allocator in
// pipeline/regalloc: the phase manager runs it after AllocateRegisters,
// and pipeline.VerifyPostRA runs it on planted faults, for the fault
// injector and every other front door that plants one.
package verifyra
