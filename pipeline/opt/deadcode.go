package opt

// Liveness-based dead code elimination: the OriPerformLiveDead phases
// (First to Fourth) and the two OriSimpleLiveDead positions of ptxas.
//
// What it does. ptxas's wiki (Liveness & DCE page) describes each
// instance as a global backward liveness fixed point over the CFG followed
// by a backward walk of every block that unlinks each instruction without
// side effects whose destinations are all dead, removing its sources from
// the live set so that chains of dead instructions fall in the same walk.
// This pass does that with one refinement: it uses strong ("faint
// variable") liveness, ori.StrongLiveness, in which an instruction's
// sources are only counted as reads when the instruction itself is needed.
// Solving that from empty sets gives the least fixed point, so dead
// cycles across loop back edges (an induction variable only feeding
// itself, a MOV.PHI web nobody reads) disappear too, which plain liveness
// plus a sweep cannot do. The pass repeats analysis and sweep until
// nothing changes (one round normally suffices).
//
// Needed instructions. An instruction stays when
//   - its opcode has FSideEffect, FStore, FAtomic, FBarrier, FWarp, FCall,
//     FBranch, FIndirect, FExit, FRet or FPseudo: memory writes, barriers,
//     warp collectives (which depend on which threads execute together),
//     calls and control flow are never removed;
//   - it is a load other than a weak LDG, LDS, LDL, LDC or LD (an
//     ordered load, LDSM, an atomic), or any load under the knob
//     DisableDeadLoadElim; deadload.go says which dead loads go and why
//     (ptxas deletes them; a deleted load cannot fault);
//   - it has no results at all (NOP and the like: nothing to gain), or a
//     result that is not a register;
//   - it writes a physical register other than RZ/URZ/PT/UPT: physical
//     registers are shared with callees and the ABI (R1, R4+ around CALL
//     and RET), so such writes are kept without asking whether they are
//     read;
//   - one of the virtual register words it writes is live after it. A
//     partial write (one word of a tuple, %r5[1]) is dead only when every
//     word it writes is dead.
//
// Dead results of instructions that stay. When an instruction that is not
// essential stays because one result is live, each other single-word
// virtual result that is dead after it (typically the carry-out predicate
// of an IADD3 whose IADD3.X was removed) is rewritten in place to the
// discarding register of its class (RZ, URZ, PT, UPT), freeing the
// register. Multi-word results are left alone (a tuple is written whole).
//
// Guarded instructions are removable when all their results are dead;
// they do not kill what they write in the liveness (the old value
// survives when the guard is false). MOV.PHI follows the SSA convention:
// its sources are read at the end of their predecessor blocks, so a phi
// whose result is dead is removed like any other copy. Only instructions
// are deleted: blocks, even empty or unreachable ones, are left to the
// branch optimizer.
//
// Example (after lowering, %r3 is initialised to RZ and then overwritten,
// and %p0 is a carry-out nobody tests):
//
//	MOV %r3 = RZ                      # removed: %r3 is redefined before any read
//	IADD3 %r3, %p0 = %r1, %r2, RZ    # kept, %r3 is stored; becomes IADD3 %r3, PT = ...
//	IADD3 %r4 = %r3, 0x1, RZ         # removed: %r4 never read
//	STG.E [%r0.64], %r3
//
// Needs: a current CFG (recomputed here). Works before and after
// register allocation, but after allocation every result is physical and
// the pass removes nothing.
//
// Known limits: dead ordered loads stay (see above); dead results of essential
// instructions (a load, an atomic, a physical-register write) and dead
// words of wide results are not narrowed; the EarlyOriSimpleLiveDead position runs the same global
// analysis as the others rather than a block-local one.

import (
	"fmt"
	"sync/atomic"

	"orilab/pipeline/ori"
)

// LiveDead removes instructions without side effects whose results are
// dead (strong liveness over virtual register words). It is every LiveDead
// phase: EarlyOriSimpleLiveDead, OriPerformLiveDeadFirst to Fourth and
// OriSimpleLiveDead.
var LiveDead = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		keepLoads := c.Bool("DisableDeadLoadElim")
		if c.Sites != nil {
			// Bisection numbers every proposal, and a refused one leaves
			// the function short of the fixed point: no memo.
			removed, narrowed, err := deadCode(f, c.Sites, keepLoads)
			return removed+narrowed > 0, err
		}
		// One run reaches the fixed point (see deadCode), so a function
		// that has not changed since the last run has nothing dead: skip
		// the liveness over the whole function.
		at, fp := f.AtFixedPoint("LiveDead")
		if at {
			return false, nil
		}
		removed, narrowed, err := deadCodeKeeping(f, nil, keepLoads, &fp)
		if err != nil {
			return removed+narrowed > 0, err
		}
		if removed+narrowed > 0 {
			fp = ori.Fingerprint(f)
		}
		f.NoteFixedPoint("LiveDead", fp)
		return removed+narrowed > 0, nil
	},
}

// keptFlags are the opcode properties that make an instruction stay
// whatever its results (a load also stays unless deadLoadRemovable).
const keptFlags = ori.FSideEffect | ori.FStore | ori.FAtomic | ori.FBarrier | ori.FWarp |
	ori.FCall | ori.FBranch | ori.FIndirect | ori.FExit | ori.FRet | ori.FPseudo | ori.FLoad

// essential reports whether in must stay whatever the liveness of its
// virtual results, with the dead loads of deadload.go removable.
func essential(in *ori.Inst) bool { return essentialKeeping(in, false) }

// essentialKeepingLoads is essential with every load kept
// (DisableDeadLoadElim).
func essentialKeepingLoads(in *ori.Inst) bool { return essentialKeeping(in, true) }

// essentialKeeping is essential; keepLoads keeps every load.
func essentialKeeping(in *ori.Inst, keepLoads bool) bool {
	if len(in.Dsts) == 0 {
		return true
	}
	if fl := in.Op.Flags(); fl&keptFlags != 0 && (keepLoads || !deadLoadRemovable(in)) {
		return true
	}
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg {
			return true
		}
		if !o.Reg.Virtual && !o.Reg.IsZero() {
			return true
		}
	}
	return false
}

// DeadCode removes the dead instructions of f and points the dead
// single-word results of the instructions that stay at RZ/URZ/PT/UPT. It
// returns how many instructions it removed and how many results it
// narrowed.
func DeadCode(f *ori.Func) (removed, narrowed int, err error) { return deadCode(f, nil, false) }

// deadCode is DeadCode asking s before each removal or narrowing;
// keepLoads keeps every load (DisableDeadLoadElim).
func deadCode(f *ori.Func, sites *Sites, keepLoads bool) (removed, narrowed int, err error) {
	return deadCodeKeeping(f, sites, keepLoads, nil)
}

// deadCodeKeeping is deadCode; when keep is set and the run changes
// nothing, its strong liveness becomes the function's ordinary liveness
// (ori.LiveSets.AsLiveness, with *keep the Fingerprint or 0, set to the
// Fingerprint) instead of being released.
func deadCodeKeeping(f *ori.Func, sites *Sites, keepLoads bool, keep *uint64) (removed, narrowed int, err error) {
	ess := essential
	if keepLoads {
		ess = essentialKeepingLoads
	}
	for {
		if err := f.ComputeCFG(); err != nil {
			return removed, narrowed, err
		}
		live := ori.StrongLiveness(f, ess)
		n := 0
		// One list of dead instructions and one of dead results serve
		// every block (emptied after each), and one callback. The walk
		// visits a block's instructions last to first, so deadList is in
		// reverse program order and the sweep below matches it from its
		// end: no set of instructions to hash into.
		var deadList []*ori.Inst
		type slot struct {
			in *ori.Inst
			i  int
		}
		var narrow []slot
		visit := func(in *ori.Inst, liveAfter func(ori.Reg) bool, needed bool) {
			if !needed {
				deadList = append(deadList, in)
				return
			}
			if ess(in) || in.IsPhi() {
				return
			}
			for i, o := range in.Dsts {
				r := o.Reg
				if r.Virtual && r.Words == 1 && !liveAfter(r) {
					narrow = append(narrow, slot{in, i})
				}
			}
		}
		for _, b := range f.Blocks {
			deadList, narrow = deadList[:0], narrow[:0]
			// Each block is edited only after its own walk, so the words
			// the liveness indexed still describe the blocks it walks.
			live.WalkUnchanged(b, visit)
			for _, s := range narrow {
				if !sites.Allow(f, s.in.ID, "point a dead result at the zero register") {
					continue
				}
				s.in.Dsts[s.i].Reg = zeroReg(s.in.Dsts[s.i].Reg.Class)
				narrowed++
			}
			if len(deadList) == 0 {
				continue
			}
			kept := b.Insts[:0]
			next := len(deadList) - 1 // the next dead instruction in program order
			for _, in := range b.Insts {
				isDead := next >= 0 && deadList[next] == in
				if isDead {
					next--
				}
				if !isDead || !sites.Allow(f, in.ID, "delete a dead instruction") {
					kept = append(kept, in)
					continue
				}
				n++
			}
			if next >= 0 {
				panic(fmt.Sprintf("opt: dead-code walk of %s BB%d did not visit in reverse order", f.Name, b.ID))
			}
			for i := len(kept); i < len(b.Insts); i++ {
				b.Insts[i] = nil
			}
			b.Insts = kept
		}
		if keep != nil && n == 0 && narrowed == 0 && !sites.limited() {
			// Nothing dead: every instruction was needed, and the
			// strong sets are the ordinary liveness of this code.
			*keep = live.AsLiveness(*keep)
			return 0, 0, nil
		}
		live.Release() // its memory serves the function's next liveness
		removed += n
		if n == 0 {
			return removed, narrowed, nil
		}
		// One round removes every dead instruction: strong liveness is
		// the least fixed point, so what stays (needed, or kept by a
		// refused site) reads and writes what it did, and narrowing
		// leaves every needed instruction a live result. A second round
		// (a liveness computation over the whole function) found nothing
		// in any corpus or testdata kernel; it still runs under a site
		// limit, where bisection's numbering must not depend on that
		// argument, and under CheckDeadCodeOneRound, whose tests require
		// it to remove nothing.
		if !sites.limited() {
			if CheckDeadCodeOneRound.Load() {
				// A site range that refuses everything counts what a
				// second round would remove or narrow, changing nothing.
				probe := &Sites{Limit: true, Lo: 1, Hi: 0}
				if _, _, err := deadCode(f, probe, keepLoads); err != nil || probe.N != 0 {
					panic(fmt.Sprintf("opt: dead-code elimination left %d rewrites in %s after one round (err %v)", probe.N, f.Name, err))
				}
			}
			return removed, narrowed, f.ComputeCFG()
		}
	}
}

// CheckDeadCodeOneRound, when set, makes dead-code elimination run a
// second round after its first and panic if that removes anything: the
// tests compile large kernels with it, to show that one round suffices.
var CheckDeadCodeOneRound atomic.Bool

// zeroReg returns the register of class c whose writes are discarded.
func zeroReg(c ori.RegClass) ori.Reg {
	switch c {
	case ori.ClassUR:
		return ori.URZ
	case ori.ClassP:
		return ori.PT
	case ori.ClassUP:
		return ori.UPT
	}
	return ori.RZ
}
