// Package ori is orilab's one intermediate representation, named after
// ptxas's "Ori": SASS opcodes with modifiers, virtual registers before
// register allocation and physical ones after, explicit basic blocks, and
// per-instruction control words once the scheduler has run. Every phase of
// the pipeline reads and writes it, and the simulator executes it at any
// point, so it must mean the same thing in all of those states.
//
// The package stands alone: it imports nothing else of orilab's. It owns
//
//   - the data model (Module, Func, Block, Inst, Operand, Reg, Ctrl);
//   - the opcode table with each opcode's properties (opcode.go);
//   - a deterministic text form and a parser that reads it back exactly
//     (print.go, parse.go), in the spirit of ptxas's DUMPIR listings;
//   - the verifier that can run between any two phases (verify.go);
//   - what a call may change: the ABI's set, and the registers a
//     whole-seen callee's allocated code writes (clobbers.go);
//   - the analyses passes share, kept with the function while they stay
//     true: dominator trees until ComputeCFG changes an edge (dom.go),
//     liveness and the register pressure (MaxPressure; TrialPressure
//     for throwaway states skips the cache) while the code's
//     Fingerprint and edges stay the same (livesets.go, liveness.go),
//     the CFG generation that tells other CFG analyses whether the
//     edges changed (CFGGeneration), and per-pass fixed-point memos that let an
//     idempotent pass skip code it already settled (fingerprint.go);
//     strong live sets their owner releases (LiveSets.Release) lend their
//     memory to the function's next liveness; strong sets under which
//     every instruction is needed are the ordinary liveness and can be
//     handed to Liveness instead (LiveSets.AsLiveness), and the analyses whose
//     tables do not outlive them (MaxPressure, UndefinedReads) reuse
//     them from a pool. Both liveness solves number first the words some
//     block reads before writing them (or a phi reads): only those can be
//     live into or out of a block, so the per-block sets hold only them,
//     and the walks over a block's instructions track the rest.
//
// Instruction IDs are stable: a phase that rewrites an instruction in place
// keeps its ID, and new instructions get fresh IDs from Func.NewID. Diffs,
// cross-phase tracking, bisection and fault reports all key on them.
package ori
