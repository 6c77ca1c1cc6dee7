package opt

// LateArchOptimizeFirst (phase 83), loop inversion: a loop tested at the
// top becomes a guard in front of a loop tested at the bottom.
//
// The lowering keeps PTX's while-loop shape: the header tests and leaves,
// the latch jumps back to the header,
//
//	BB1: ISETP.GE.AND %p0, PT = %r5, c[0x0][0x168], PT
//	     @%p0 BRA BB3
//	BB2: IADD3 %r6 = %r6, %r5, RZ
//	     IADD3 %r5 = %r5, 0x20, RZ
//	     BRA BB1
//	BB3: ...
//
// so every iteration runs two branches, and the convergence pass puts a
// BSSY in the header, run once per iteration too. ptxas 13.0.88 inverts
// such loops (one `@P0 BRA` back edge per iteration). The header's test
// is copied to the end of the latch with the branch inverted, and the
// header stays in front of the loop as its guard:
//
//	BB1: ISETP.GE.AND %p0, PT = %r5, c[0x0][0x168], PT
//	     @%p0 BRA BB3
//	BB4:                                  (new, empty: the preheader)
//	BB2: IADD3 %r6 = %r6, %r5, RZ
//	     IADD3 %r5 = %r5, 0x20, RZ
//	     ISETP.GE.AND %p0, PT = %r5, c[0x0][0x168], PT
//	     @!%p0 BRA BB2
//	BB3: ...
//
// The test runs as often as before (once on entry, then once per
// iteration). The empty block keeps a dedicated preheader for the later
// LICM positions. The convergence pass brackets the guard's region only:
// the back edge's region lies inside it and meets at the same block
// (dropCoveredRegions in convergence.go).
//
// Conditions: a natural loop with one latch that ends in an unguarded BRA
// to the header and is directly followed in the layout by the exit block;
// the header ends in a branch on a P register to that exit block and
// falls through into the loop; the header holds at most
// loopInvertMaxInsts instructions besides its branch, none with memory
// writes, barriers, warp collectives, calls or pseudo-instructions (the
// copy executes the same number of times, but a warp collective would
// change which threads run it together); the loop has a preheader.
//
// Decision: the wiki puts loop inversion in OriLoopSimplification (knob
// LoopInversion, 001:12046). orilab inverts late, after the loop passes
// (unrolling, strength reduction, the first two LICM positions) that were
// written against the lowering's loop shapes and once the MOV.PHIs are
// gone, so that inverting changes only the control flow of the finished
// loop and not what those passes decide.
//
// Knob: LoopInversion (ptxas's name, default on); LoopInversion=0
// switches it off. Each inverted loop is one site (named by its header's
// branch).

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "LoopInversion", Type: knobs.TypeBool, Default: "1",
		Doc:     "Invert top-tested loops into a guard and a bottom-tested loop (phase LateArchOptimizeFirst); 0 switches it off.",
		Readers: []string{"LateArchOptimizeFirst"}})
}

// loopInvertMaxInsts bounds the header's instructions copied into the
// latch (each copy adds one instruction to the code).
const loopInvertMaxInsts = 4

// InvertLoops is the loop inversion of LateArchOptimizeFirst.
var InvertLoops = Pass{
	Run: invertLoops,
	NoOp: func(c *Context) string {
		if !c.Bool("LoopInversion") {
			return "switched off by LoopInversion=0"
		}
		return ""
	},
}

const loopInvertForbidden = ori.FPseudo | ori.FIndirect | ori.FExit | ori.FRet | ori.FCall |
	ori.FStore | ori.FAtomic | ori.FBarrier | ori.FWarp

func invertLoops(f *ori.Func, c *Context) (bool, error) {
	if !c.Bool("LoopInversion") || len(f.Blocks) < 3 || loopHasPhi(f) {
		return false, nil
	}
	changed := false
	for iter := 0; iter < 256; iter++ {
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		lf := FindLoops(f)
		if lf.Irreducible {
			break
		}
		done := true
		for _, l := range lf.InnerFirst() {
			if !invertible(f, l) {
				continue
			}
			h := l.Header
			if !c.Sites.Allow(f, h.Insts[len(h.Insts)-1].ID, "invert a top-tested loop") {
				continue
			}
			invertLoop(f, l)
			changed, done = true, false
			break
		}
		if done {
			break
		}
	}
	return changed, f.ComputeCFG()
}

// invertible reports whether l has the shape and contents inversion
// needs (see the conditions above).
func invertible(f *ori.Func, l *Loop) bool {
	h := l.Header
	if len(l.Latches) != 1 || l.Preheader() == nil || len(h.Insts) < 1 || len(h.Insts) > loopInvertMaxInsts+1 {
		return false
	}
	lt := l.Latches[0]
	if lt == h || len(lt.Insts) == 0 {
		return false
	}
	back := lt.Insts[len(lt.Insts)-1]
	if back.Op != ori.OpBRA || back.Guarded() || len(back.Srcs) != 1 || back.Srcs[0].Kind != ori.OpdBlock || back.Srcs[0].Block != h.ID {
		return false
	}
	br := h.Insts[len(h.Insts)-1]
	if br.Op != ori.OpBRA || !br.Guarded() || br.Guard.Class != ori.ClassP || br.Guard == ori.PT ||
		len(br.Srcs) != 1 || br.Srcs[0].Kind != ori.OpdBlock {
		return false
	}
	x := f.BlockByID(br.Srcs[0].Block)
	if x == nil || l.Contains(x) {
		return false
	}
	hi, li := -1, -1
	for i, b := range f.Blocks {
		switch b {
		case h:
			hi = i
		case lt:
			li = i
		}
	}
	if hi < 0 || li < 0 || hi+1 >= len(f.Blocks) || !l.Contains(f.Blocks[hi+1]) ||
		li+1 >= len(f.Blocks) || f.Blocks[li+1] != x {
		return false
	}
	for _, in := range h.Insts[:len(h.Insts)-1] {
		if in.IsPhi() || in.EndsBlock() || in.Op.Flags()&loopInvertForbidden != 0 {
			return false
		}
	}
	return true
}

// invertLoop copies l's header test to the end of its latch, inverted,
// and puts an empty preheader between the header and the loop body.
func invertLoop(f *ori.Func, l *Loop) {
	h, lt := l.Header, l.Latches[0]
	br := h.Insts[len(h.Insts)-1]
	var hi int
	for i, b := range f.Blocks {
		if b == h {
			hi = i
		}
	}
	body := f.Blocks[hi+1]
	tail := lt.Insts[:len(lt.Insts)-1]
	for _, in := range h.Insts[:len(h.Insts)-1] {
		cp := cloneInst(in)
		cp.ID = f.NewID()
		tail = append(tail, cp)
	}
	nb := ori.NewInst(ori.OpBRA)
	nb.ID, nb.Line = f.NewID(), br.Line
	nb.Guard, nb.GuardNot = br.Guard, !br.GuardNot
	nb.Srcs = []ori.Operand{ori.BlockRef(int(body.ID))}
	lt.Insts = append(tail, nb)
	// The new preheader: appended by NewBlock, then moved after h.
	ph := f.NewBlock("")
	blocks := f.Blocks[:len(f.Blocks)-1]
	out := make([]*ori.Block, 0, len(blocks)+1)
	out = append(out, blocks[:hi+1]...)
	out = append(out, ph)
	out = append(out, blocks[hi+1:]...)
	f.Blocks = out
}

// cloneInst returns a copy of in with its own operand slices.
func cloneInst(in *ori.Inst) *ori.Inst {
	cp := *in
	cp.Mods = append([]string(nil), in.Mods...)
	cp.Dsts = append([]ori.Operand(nil), in.Dsts...)
	cp.Srcs = append([]ori.Operand(nil), in.Srcs...)
	return &cp
}
