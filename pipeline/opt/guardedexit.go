package opt

// OptimizeNestedCondBranches (phase 42), orilab's use: a branch to an
// exit block becomes a guarded EXIT.
//
// The lowering ends a kernel in one block holding EXIT, and every early
// return (`@%p bra $EXIT`) branches to it. SASS guards EXIT like any other
// instruction, and ptxas 13.0.88 writes the early return as one
// instruction, `@P0 EXIT` (313 of them over the corpus at -O3, orilab 6).
// Two shapes are rewritten:
//
//	BB0: ...                          BB0: ...
//	     @P0 BRA BB5          =>           @P0 EXIT
//	BB1: ...                          BB1: ...
//	BB5: EXIT                         BB5: EXIT   (deleted when nothing else reaches it)
//
// and, when the exit block is the fall-through of the branch and the
// branch target directly follows it,
//
//	BB0: @P0 BRA BB2                  BB0: @!P0 EXIT
//	BB1: EXIT                 =>      BB2: ...
//	BB2: ...
//
// The second shape saves the BRA; both save the convergence barrier that
// the branch into the exit block needs (BSSY/BSYNC around the early
// return), and the exiting threads stop at once instead of at the end of
// the kernel.
//
// Conditions: the branch's guard is a P register (SASS has no EXIT on a
// uniform predicate), the exit block holds exactly one unguarded EXIT and
// nothing but BRA names it (no BSSY, BRX or MOV.PHI operand). In the
// second shape the exit block's only predecessor is the branch's block.
//
// Warp semantics. A thread that takes the branch executes nothing
// observable before it exits: the exit block holds only EXIT. While it is
// parked there, a CTA barrier still waits for it, and the simulator runs
// it (the smallest program counter that is not waiting) until it exits,
// which is what an exited thread counts as at once. So the rewrite
// changes no result, only when the thread leaves.
//
// Decision: the wiki's OriBranchOpt (001:11553) lists four simplifications
// and none is this one, and the wiki does not say where ptxas makes its
// guarded EXITs. orilab makes them at OptimizeNestedCondBranches, the CFG
// simplification row between the mid-level GeneralOptimize and
// predication (whose flattening of nested conditions orilab does not
// build), so that predication no longer guards a whole kernel body under
// the early-return condition where one guarded EXIT does (ptxas keeps
// the body unguarded after `@P0 EXIT`).
//
// Knob: DisableGuardedExit switches it off (as DisablePhases does). Each
// rewritten branch is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableGuardedExit", Type: knobs.TypeBool,
		Doc:     "Switch off turning a branch to an exit block into a guarded EXIT (phase OptimizeNestedCondBranches).",
		Readers: []string{"OptimizeNestedCondBranches"}})
}

// GuardedExit is the OptimizeNestedCondBranches pass.
var GuardedExit = Pass{
	Run:  guardedExit,
	NoOp: offBy("DisableGuardedExit"),
}

func guardedExit(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableGuardedExit") || len(f.Blocks) < 2 {
		return false, nil
	}
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	// Blocks that some instruction other than a BRA names: never touched.
	pinned := map[int32]bool{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpBRA {
				continue
			}
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdBlock {
					pinned[o.Block] = true
				}
			}
		}
	}
	isExit := func(b *ori.Block) bool {
		return b != f.Blocks[0] && !pinned[b.ID] && len(b.Insts) == 1 &&
			b.Insts[0].Op == ori.OpEXIT && !b.Insts[0].Guarded()
	}
	changed := false
	drop := map[*ori.Block]bool{}
	for i, b := range f.Blocks {
		n := len(b.Insts)
		if n == 0 || drop[b] {
			continue
		}
		br := b.Insts[n-1]
		if br.Op != ori.OpBRA || !br.Guarded() || br.Guard.Class != ori.ClassP || br.Guard == ori.PT ||
			len(br.Srcs) != 1 || br.Srcs[0].Kind != ori.OpdBlock {
			continue
		}
		t := f.BlockByID(br.Srcs[0].Block)
		switch {
		case t != nil && isExit(t):
			if !c.Sites.Allow(f, br.ID, "turn a branch to an exit block into a guarded EXIT") {
				continue
			}
			b.Insts[n-1] = guardedExitInst(br, br.GuardNot)
			changed = true
		case i+2 < len(f.Blocks) && isExit(f.Blocks[i+1]) && !drop[f.Blocks[i+1]] &&
			len(f.Blocks[i+1].Preds) == 1 && f.Blocks[i+1].Preds[0] == b && f.Blocks[i+2] == t:
			if !c.Sites.Allow(f, br.ID, "turn a branch over an exit block into a guarded EXIT") {
				continue
			}
			b.Insts[n-1] = guardedExitInst(br, !br.GuardNot)
			drop[f.Blocks[i+1]] = true
			changed = true
		}
	}
	if !changed {
		return false, nil
	}
	if err := f.ComputeCFG(); err != nil {
		return true, err
	}
	// Exit blocks that nothing reaches any more go; their predecessors
	// were branches, so no fall-through changes.
	for _, b := range f.Blocks[1:] {
		if len(b.Preds) == 0 && isExit(b) {
			drop[b] = true
		}
	}
	kept := f.Blocks[:0]
	for _, b := range f.Blocks {
		if !drop[b] {
			kept = append(kept, b)
		}
	}
	f.Blocks = kept
	return true, f.ComputeCFG()
}

// guardedExitInst returns the EXIT that replaces branch br, under br's
// guard register, negated when not is set.
func guardedExitInst(br *ori.Inst, not bool) *ori.Inst {
	x := ori.NewInst(ori.OpEXIT)
	x.ID, x.Line = br.ID, br.Line
	x.Guard, x.GuardNot = br.Guard, not
	return x
}
