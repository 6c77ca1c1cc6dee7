package opt

// OriLoopSimplification (ptxas phase 18): loop canonicalization, after the
// wiki's "Loop Passes" page, Phase 18 (001:11967-12054) and the
// LoopMakeSingleEntry description on the CFG page (7576-7589).
//
// For every natural loop, innermost first, the pass
//
//  1. canonicalizes the back edges: a loop with several latches gets one
//     new latch block that all of them branch to and that branches (or
//     falls through) to the header;
//  2. inserts a preheader when the loop has none (LoopMakeSingleEntry,
//     knob 487, default on): an empty block placed right before the
//     header in the layout, so the entering block that fell through into
//     the header now falls into it, and the entering branches are
//     retargeted to it.
//
// Example (two entering blocks, so no preheader):
//
//	BB0: @%p0 BRA BB2            BB0: @%p0 BRA BB4
//	BB1: IADD3 %r1 = ...         BB1: IADD3 %r1 = ...
//	BB2: ...                     BB4: (new preheader, empty)
//	     @%p1 BRA BB2     ==>    BB2: ...
//	BB3: EXIT                         @%p1 BRA BB2
//	                             BB3: EXIT
//
// When a latch falls through into the header, that slot is taken: all
// entering edges are then branches, and the preheader goes after a block
// that does not fall through (preferably an entering block), holding a
// BRA to the header. No instruction is ever added inside the loop for the
// preheader; merging several latches adds the new latch's BRA unless a
// latch fell into the header (then the new latch takes its place and
// falls through).
//
// MOV.PHI (partial SSA) is kept consistent: a header phi's operands for
// the predecessors that now reach the header through the new block are
// merged by a new phi in that block (or simply renamed when there was one
// such predecessor).
//
// The helpers loopInsertPreheader and loopMergeLatches are also used by
// LICM and strength reduction, which need a preheader to put code in:
// ptxas's LICM creates one on demand too (wiki 13020-13025), and at -O3
// this phase does not run (its O-level gate is 4-5 in the phase table).
//
// Decisions:
//   - A loop whose header is the entry block gets no preheader: the entry
//     must stay Blocks[0], and a kernel's entry starts with the stack
//     pointer setup. No compiler we test against emits such loops.
//   - Loop peeling at -O4/-O5 (wiki: sub_7753F0) is not implemented; the
//     phase only canonicalizes. Irreducible regions are left alone (see
//     loops.go).
//   - Switching LoopMakeSingleEntry off skips only the preheader insertion,
//     as in ptxas ("When disabled, only back-edge canonicalization runs");
//     DisablePhases=OriLoopSimplification turns the whole phase off.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{
		Name:    "LoopMakeSingleEntry",
		Type:    knobs.TypeBool,
		Default: "true",
		Doc:     "Master switch of the loop passes (OCG knob 487): preheader insertion in OriLoopSimplification, and OriLoopUnrolling and OriStrengthReduce as a whole.",
		Readers: []string{"OriLoopSimplification", "OriLoopUnrolling", "OriStrengthReduce"},
	})
}

// LoopSimplification is loop canonicalization: one latch per loop, and a
// preheader before every loop header (LoopMakeSingleEntry; phase
// OriLoopSimplification).
var LoopSimplification = Pass{Run: runLoopSimplification}

func runLoopSimplification(f *ori.Func, c *Context) (bool, error) {
	preheaders := c.Bool("LoopMakeSingleEntry")
	changed := false
	// Each loop, identified by its header, is handled once; the loop
	// forest is recomputed after every change to the CFG.
	latchDone := map[int32]bool{}
	headDone := map[int32]bool{}
	for {
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		lf := FindLoops(f)
		progress := false
		for _, l := range lf.InnerFirst() {
			id := l.Header.ID
			if !latchDone[id] {
				latchDone[id] = true
				if len(l.Latches) > 1 {
					site := loopSiteID(l.Latches[0])
					if loopMergeLatches(f, l, func() bool {
						return c.Sites.Allow(f, site, "merge the back edges of a loop into one latch block")
					}) != nil {
						changed, progress = true, true
						break
					}
				}
			}
			if !headDone[id] {
				headDone[id] = true
				if preheaders && l.Preheader() == nil {
					site := loopSiteID(l.Header)
					if loopInsertPreheader(f, l, func() bool {
						return c.Sites.Allow(f, site, "insert a loop preheader")
					}) != nil {
						changed, progress = true, true
						break
					}
				}
			}
		}
		if !progress {
			return changed, nil
		}
	}
}

// loopSiteID names a block for the site log: the ID of its last
// instruction (its terminator when it has one), or 0 for an empty block.
func loopSiteID(b *ori.Block) int32 {
	if n := len(b.Insts); n > 0 {
		return b.Insts[n-1].ID
	}
	return 0
}

// loopFallsThrough reports whether control can leave b into the next
// block of the layout: b is empty, or does not end with a control
// transfer, or ends with a guarded one.
func loopFallsThrough(b *ori.Block) bool {
	n := len(b.Insts)
	if n == 0 {
		return true
	}
	last := b.Insts[n-1]
	return !last.EndsBlock() || last.Guarded()
}

// loopIndex returns b's layout index, or -1.
func loopIndex(f *ori.Func, b *ori.Block) int {
	for i, x := range f.Blocks {
		if x == b {
			return i
		}
	}
	return -1
}

// loopNewBlockAt creates an empty block and places it at layout index i.
func loopNewBlockAt(f *ori.Func, i int) *ori.Block {
	b := f.NewBlock("")
	f.Blocks = f.Blocks[:len(f.Blocks)-1]
	f.Blocks = append(f.Blocks, nil)
	copy(f.Blocks[i+1:], f.Blocks[i:])
	f.Blocks[i] = b
	return b
}

// loopBra returns an unconditional BRA to block id.
func loopBra(f *ori.Func, id int32, line int32) *ori.Inst {
	in := ori.NewInst(ori.OpBRA)
	in.ID = f.NewID()
	in.Srcs = []ori.Operand{ori.BlockRef(int(id))}
	in.Line = line
	return in
}

// loopRetarget makes the terminator of b (BRA or BRX) name block to
// instead of from. It reports whether it changed an operand.
func loopRetarget(b *ori.Block, from, to int32) bool {
	n := len(b.Insts)
	if n == 0 {
		return false
	}
	last := b.Insts[n-1]
	if last.Op != ori.OpBRA && last.Op != ori.OpBRX {
		return false
	}
	changed := false
	for i, o := range last.Srcs {
		if o.Kind == ori.OpdBlock && o.Block == from {
			last.Srcs[i].Block = to
			changed = true
		}
	}
	return changed
}

// loopPhis returns the MOV.PHI instructions of b.
func loopPhis(b *ori.Block) []*ori.Inst {
	var out []*ori.Inst
	for _, in := range b.Insts {
		if in.IsPhi() {
			out = append(out, in)
		}
	}
	return out
}

// loopLine is the source line new instructions of b take.
func loopLine(b *ori.Block) int32 {
	for _, in := range b.Insts {
		if in.Line != 0 {
			return in.Line
		}
	}
	return 0
}

// loopRoutePhis rewrites the phis of h after the edges from the blocks
// in from have been routed through the new block via: a phi's operands
// for those blocks become one operand for via, merged by a new phi in
// via when there were several.
func loopRoutePhis(f *ori.Func, h, via *ori.Block, from map[int32]bool) {
	var newPhis []*ori.Inst
	for _, phi := range loopPhis(h) {
		var kept, moved []ori.Operand
		for i := 0; i+1 < len(phi.Srcs); i += 2 {
			v, blk := phi.Srcs[i], phi.Srcs[i+1]
			if blk.Kind == ori.OpdBlock && from[blk.Block] {
				moved = append(moved, v, blk)
			} else {
				kept = append(kept, v, blk)
			}
		}
		switch len(moved) / 2 {
		case 0:
			continue
		case 1:
			kept = append(kept, moved[0], ori.BlockRef(int(via.ID)))
		default:
			dst := phi.Dsts[0].Reg
			nv := f.NewVReg(dst.Class, int(dst.Words))
			np := ori.NewInst(ori.OpMOV, "PHI")
			np.ID = f.NewID()
			np.Line = phi.Line
			np.Dsts = []ori.Operand{ori.R(nv)}
			np.Srcs = moved
			newPhis = append(newPhis, np)
			kept = append(kept, ori.R(nv), ori.BlockRef(int(via.ID)))
		}
		phi.Srcs = kept
	}
	via.Insts = append(newPhis, via.Insts...)
}

// loopInsertPreheader gives l an empty preheader and returns it, after
// checking that it can (the header is not the entry block, and a layout
// slot exists) and asking allow; nil means nothing was changed. The
// preheader goes right before the header, where it falls into it, unless
// a latch already falls into the header from there: then the entering
// edges are all branches, and the preheader is placed after a block that
// does not fall through, ending with a BRA to the header. Either way no
// instruction is added inside the loop. The CFG edges are stale
// afterwards.
func loopInsertPreheader(f *ori.Func, l *Loop, allow func() bool) *ori.Block {
	h := l.Header
	pos, jump := loopPreheaderSlot(f, l)
	if pos < 0 {
		return nil
	}
	if allow != nil && !allow() {
		return nil
	}
	entering := l.Entering()
	p := loopNewBlockAt(f, pos)
	if jump {
		p.Insts = append(p.Insts, loopBra(f, h.ID, loopLine(h)))
	}
	from := map[int32]bool{}
	for _, e := range entering {
		loopRetarget(e, h.ID, p.ID)
		from[e.ID] = true
	}
	loopRoutePhis(f, h, p, from)
	return p
}

// loopPreheaderSlot returns the layout index where a new preheader of l
// goes and whether it needs a BRA to the header, or -1 when l cannot get
// one.
func loopPreheaderSlot(f *ori.Func, l *Loop) (int, bool) {
	h := l.Header
	hi := loopIndex(f, h)
	entering := l.Entering()
	if hi <= 0 || len(entering) == 0 {
		return -1, false
	}
	if lp := f.Blocks[hi-1]; !l.Contains(lp) || !loopFallsThrough(lp) {
		return hi, false
	}
	// A latch falls into the header. Prefer the slot after an entering
	// block, then the first slot after the header.
	for _, e := range entering {
		if !loopFallsThrough(e) {
			return loopIndex(f, e) + 1, true
		}
	}
	for i := hi + 1; i <= len(f.Blocks); i++ {
		if !loopFallsThrough(f.Blocks[i-1]) {
			return i, true
		}
	}
	return -1, false
}

// loopMergeLatches routes every back edge of l through one new latch
// block and returns it, or nil (nothing changed) when l has one latch,
// when allow refuses, or when no layout position is safe for the new
// block. The new block is placed right before the header when a latch
// falls through into the header (it then falls through too), otherwise
// after the first block past the last latch that does not fall through,
// ending with a BRA to the header. The CFG edges are stale afterwards.
func loopMergeLatches(f *ori.Func, l *Loop, allow func() bool) *ori.Block {
	if len(l.Latches) < 2 {
		return nil
	}
	h := l.Header
	hi := loopIndex(f, h)
	isLatch := map[*ori.Block]bool{}
	last := -1
	for _, b := range l.Latches {
		isLatch[b] = true
		last = max(last, loopIndex(f, b))
	}
	pos, jump := -1, true
	if hi > 0 && isLatch[f.Blocks[hi-1]] && loopFallsThrough(f.Blocks[hi-1]) {
		pos, jump = hi, false
	} else {
		for i := last + 1; i <= len(f.Blocks); i++ {
			if !loopFallsThrough(f.Blocks[i-1]) {
				pos = i
				break
			}
		}
	}
	if pos < 0 {
		return nil
	}
	if allow != nil && !allow() {
		return nil
	}
	line := loopLine(l.Latches[0])
	if n := len(l.Latches[0].Insts); n > 0 {
		line = l.Latches[0].Insts[n-1].Line
	}
	t := loopNewBlockAt(f, pos)
	if jump {
		t.Insts = append(t.Insts, loopBra(f, h.ID, line))
	}
	from := map[int32]bool{}
	for _, b := range l.Latches {
		loopRetarget(b, h.ID, t.ID)
		from[b.ID] = true
	}
	loopRoutePhis(f, h, t, from)
	return t
}

// loopCanHavePreheader reports whether l has a preheader or one can be
// inserted (checked without changing anything).
func loopCanHavePreheader(f *ori.Func, l *Loop) bool {
	if l.Preheader() != nil {
		return true
	}
	pos, _ := loopPreheaderSlot(f, l)
	return pos >= 0
}
