package opt

// LateArchOptimizeFirst (phase 83), header-exit loops: a loop whose
// header holds the whole body and leaves, followed by a latch that only
// jumps back, becomes one block that branches back at its end.
//
// clang writes counted loops with the exit test at the end of the header
// and a latch that is a lone BRA,
//
//	BB1: ...body...                       BB1: ...body...
//	     ISETP.EQ.AND %p0, PT = ...            ISETP.EQ.AND %p0, PT = ...
//	     @%p0 BRA BB2               =>         @!%p0 BRA BB1
//	BB3: BRA BB1                          BB3:                 (empty)
//	BB2: ...                              BB2: ...
//
// so every iteration runs two branches (and, once block placement moves
// the latch, a third). The unroller leaves such loops rolled, as ptxas
// does (unroll.go, rejection 13), and ptxas then turns them into the
// shape on the right: testdata/opt/loop_unroll.ptx's loop_sum8 and
// loop_poly end each iteration with one `@P0 BRA` back edge in ptxas
// 13.0.88's SASS. Loop inversion (looprotate.go) cannot do it: it copies
// the header's test into the latch and bounds the header's size, while
// here the test is already at the end of the only block that runs.
//
// Conditions: a natural loop whose header ends in a BRA guarded by a P
// register (not PT) to a block outside the loop, followed in the layout
// by the loop's only latch, which holds nothing but an unguarded BRA to
// the header and is followed in the layout by that exit block. The
// latch's BRA is deleted (the latch becomes empty and falls through to
// the exit; the branch optimizer and layout remove it) and the header's
// branch is inverted toward the header.
//
// Knob: DisableHeaderExitFold switches it off. Each loop is one site
// (named by the header's branch).

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableHeaderExitFold", Type: knobs.TypeBool,
		Doc:     "Switch off turning a loop whose header exits and whose latch only jumps back into one block with a back edge at its end (phase LateArchOptimizeFirst).",
		Readers: []string{"LateArchOptimizeFirst"}})
}

// FoldHeaderExitLoops is the header-exit loop rewrite of
// LateArchOptimizeFirst.
var FoldHeaderExitLoops = Pass{
	Run:  foldHeaderExitLoops,
	NoOp: offBy("DisableHeaderExitFold"),
}

func foldHeaderExitLoops(f *ori.Func, c *Context) (bool, error) {
	if len(f.Blocks) < 3 || loopHasPhi(f) {
		return false, nil
	}
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	lf := FindLoops(f)
	if lf.Irreducible {
		return false, nil
	}
	index := make(map[*ori.Block]int, len(f.Blocks))
	for i, b := range f.Blocks {
		index[b] = i
	}
	changed := false
	for _, l := range lf.InnerFirst() {
		h := l.Header
		if len(l.Latches) != 1 || len(h.Insts) == 0 {
			continue
		}
		lt := l.Latches[0]
		hi := index[h]
		if lt == h || hi+2 >= len(f.Blocks) || f.Blocks[hi+1] != lt || len(lt.Insts) != 1 {
			continue
		}
		back := lt.Insts[0]
		if back.Op != ori.OpBRA || back.Guarded() || len(back.Srcs) != 1 || back.Srcs[0].Kind != ori.OpdBlock || back.Srcs[0].Block != h.ID {
			continue
		}
		br := h.Insts[len(h.Insts)-1]
		if br.Op != ori.OpBRA || !br.Guarded() || br.Guard.Class != ori.ClassP || br.Guard == ori.PT ||
			len(br.Srcs) != 1 || br.Srcs[0].Kind != ori.OpdBlock {
			continue
		}
		x := f.BlockByID(br.Srcs[0].Block)
		if x == nil || l.Contains(x) || f.Blocks[hi+2] != x {
			continue
		}
		if !c.Sites.Allow(f, br.ID, "branch back at the end of a header-exit loop") {
			continue
		}
		br.GuardNot = !br.GuardNot
		br.Srcs[0] = ori.BlockRef(int(h.ID))
		lt.Insts = lt.Insts[:0]
		changed = true
	}
	if !changed {
		return false, nil
	}
	return true, f.ComputeCFG()
}
