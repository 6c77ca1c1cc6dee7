package opt

// OriPerformLiveDeadFourth (phase 92), first part: delete loops whose
// work nobody uses.
//
// A loop that only computes (no memory access, no call, barrier, warp
// collective or exit) and whose results are all dead where it leaves
// does nothing observable but take time. ptxas 13.0.88 deletes such a
// loop (and the load feeding it); orilab kept it (issue 21).
// The entering edge is sent straight to the loop's exit block:
//
//	BB0: #1 LDG.E %r1 = [%r0.64]          BB0: #1 LDG.E %r1 = [%r0.64]
//	BB1: #2 IADD3 %r2 = %r2, %r1, RZ  =>  BB2: ...   (BB0 falls through)
//	     #3 ISETP.LT.AND %p0, PT = ...
//	     #4 @%p0 BRA BB1
//	BB2: ...
//
// The load that fed the loop stays: orilab's dead-code elimination keeps
// dead loads on purpose (deadcode.go: a load may fault, and -O0 reports
// the fault), where ptxas deletes it too.
//
// Conditions: a natural loop of a reducible CFG with a preheader and one
// exit block; every instruction is a computation or a direct branch
// (loads are refused too: a loop that polls memory waits for another
// thread, and deleting it would break that synchronization); every
// register the loop writes is virtual and dead on entry to the exit
// block. Loops are tried outermost first, so a dead nest goes at once.
//
// Decision: deleting a loop also deletes its possible non-termination. A
// loop that only computes and never ends hangs the thread without any
// other effect, which C++ (whose forward-progress rule makes it
// undefined) and ptxas, which deletes such loops, both treat as
// removable; orilab follows them.
//
// Knob: DisableDeadLoopElim switches it off. Each deleted loop is one
// site (named by its back-edge branch).

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableDeadLoopElim", Type: knobs.TypeBool,
		Doc:     "Switch off deleting loops that only compute values nobody reads (phase OriPerformLiveDeadFourth).",
		Readers: []string{"OriPerformLiveDeadFourth"}})
}

// DeadLoops is the loop deletion of OriPerformLiveDeadFourth.
var DeadLoops = Pass{
	Run:  deleteDeadLoops,
	NoOp: offBy("DisableDeadLoopElim"),
}

// deadLoopForbidden are the flags of instructions a deleted loop must not
// contain.
const deadLoopForbidden = ori.FPseudo | ori.FIndirect | ori.FExit | ori.FRet | ori.FCall |
	ori.FLoad | ori.FStore | ori.FAtomic | ori.FBarrier | ori.FWarp

func deleteDeadLoops(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableDeadLoopElim") || len(f.Blocks) < 2 {
		return false, nil
	}
	changed := false
	for iter := 0; iter < 64; iter++ {
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		lf := FindLoops(f)
		if lf.Irreducible {
			break
		}
		// Liveness is asked for only when a loop passes the checks that
		// need none: most functions have no loop whose results could be
		// dead, and the phase runs several times per function.
		var live *ori.LiveSets
		liveness := func() *ori.LiveSets {
			if live == nil {
				live = ori.Liveness(f)
			}
			return live
		}
		done := true
		for _, l := range lf.Loops {
			if !deadLoop(l, liveness) {
				continue
			}
			latch := l.Latches[0]
			br := latch.Insts[len(latch.Insts)-1]
			if !c.Sites.Allow(f, br.ID, "delete a loop whose results nobody reads") {
				continue
			}
			removeLoop(f, l)
			changed, done = true, false
			break
		}
		if done {
			break
		}
	}
	return changed, f.ComputeCFG()
}

// deadLoop reports whether l may be deleted (see the conditions above).
func deadLoop(l *Loop, live func() *ori.LiveSets) bool {
	if len(l.Exits) != 1 || l.Preheader() == nil || len(l.Latches) == 0 {
		return false
	}
	if n := len(l.Latches[0].Insts); n == 0 || !l.Latches[0].Insts[n-1].EndsBlock() {
		return false
	}
	e := l.Exits[0]
	for _, b := range l.Blocks {
		for _, in := range b.Insts {
			fl := in.Op.Flags()
			if in.IsPhi() || fl&deadLoopForbidden != 0 || fl&ori.FSideEffect != 0 && fl&ori.FBranch == 0 {
				return false
			}
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg {
					return false
				}
				if o.Reg.IsZero() {
					continue
				}
				if !o.Reg.Virtual || live().LiveIn(e, o.Reg) {
					return false
				}
			}
		}
	}
	for _, in := range e.Insts {
		if in.IsPhi() {
			return false
		}
	}
	return true
}

// removeLoop sends l's preheader to its exit block and deletes the
// loop's blocks.
func removeLoop(f *ori.Func, l *Loop) {
	p, e := l.Preheader(), l.Exits[0]
	if n := len(p.Insts); n > 0 && p.Insts[n-1].Op == ori.OpBRA && !p.Insts[n-1].Guarded() {
		p.Insts[n-1].Srcs = []ori.Operand{ori.BlockRef(int(e.ID))}
	} else {
		br := ori.NewInst(ori.OpBRA)
		br.ID = f.NewID()
		br.Srcs = []ori.Operand{ori.BlockRef(int(e.ID))}
		p.Insts = append(p.Insts, br)
	}
	kept := f.Blocks[:0]
	for _, b := range f.Blocks {
		if !l.Contains(b) {
			kept = append(kept, b)
		}
	}
	f.Blocks = kept
	// A branch to the next block is not needed.
	for i, b := range f.Blocks {
		if b == p && i+1 < len(f.Blocks) && f.Blocks[i+1] == e {
			p.Insts = p.Insts[:len(p.Insts)-1]
		}
	}
}
