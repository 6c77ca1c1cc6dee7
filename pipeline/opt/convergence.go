package opt

import (
	"orilab/pipeline/ori"
)

// Convergence barriers: Volta and later GPUs have no implicit
// reconvergence stack, so the compiler brackets each divergent region with
// BSSY b, J (record the threads that enter and where they meet again) and
// BSYNC b at J (wait until every recorded thread has arrived or exited).
// This pass inserts the pairs.
//
// For each block X that ends in a conditional or indirect branch, J is X's
// immediate post-dominator: the first block every path from X must reach.
// The region is accepted when
//   - J exists (paths that all leave the function need no reconvergence)
//     and holds more than an EXIT (threads that meet only to exit need
//     no reconvergence either; see exitOnly),
//   - X dominates J, so every thread arriving at J's BSYNC came through
//     X's BSSY (a thread from elsewhere would wait on a stale thread mask),
//   - the region (the blocks reachable from X without passing J, and X
//     itself only when a loop comes back to it: otherwise X's
//     instructions before its branch run before the BSSY) contains no
//     RET. A guarded "@P0 RET" does not end its
//     block's paths (the block falls through), so the post-dominator tree
//     does not see the exit and J can post-dominate X although some
//     threads leave the function inside the region. Those threads never
//     reach the BSYNC, and unlike exited threads they are still alive, so
//     the others would wait for them forever (fuzz seed 31). An EXIT
//     inside the region is fine: BSYNC does not wait for exited threads.
//
// The BSSY goes right before X's branch, except when a loop comes back to
// X before J (X is a loop's exiting block): then it goes at the end of
// the nearest dominator of X that J post-dominates and that the loop does
// not run again, the loop's preheader in the common case, as ptxas places
// it (hoistOpen; fuzz seed 23310084: a BSSY run on every trip let the
// last threads to leave pass the BSYNC alone). Without such a block the
// region gets no pair.
//
// A barrier register holds one thread mask for the whole warp, so regions
// that can be open at the same time in one warp get different registers:
// nested regions (one's BSSY lies inside the other's region), and regions
// that both lie where the threads of some other divergent branch can be
// before they meet again (two arms of an if, or of a BRX, each with an if
// inside: one arm's threads may run their BSSY while the other arm's are
// still inside theirs). B0-B15 are allocated greedily in block order. A
// region also avoids every register used by a function called inside it,
// or called where other threads of the warp can be while it is open, and
// by anything that function calls: Ori has no BMOV to save the registers
// around a call, so a callee's BSSY on the caller's register would
// replace the caller's thread mask (barrierUse; an indirect or recursive
// call may use them all). A region that finds all sixteen taken is left
// without a pair: its threads still reconverge at the next enclosing
// BSYNC, only later.
// Decision: ptxas saves barrier registers around calls with BMOV (wiki
// opcode table, 001:6504); without it, partitioning the registers between
// caller and callee keeps regions with calls bracketed (fuzz seed 108: an
// activemask after "if (p) f();" saw only half the warp), which the old
// rule, no pair for a region with a CALL, did not.
//
// Decision: the wiki places BSSY/BSYNC insertion in the synchronization
// phases without naming the one (16139-16223); orilab does it in
// FixUpTexDepBarAndSync (130), which "repairs sync after scheduling", runs
// at every -O level (the pairs are needed at -O0 too), and comes after
// allocation, scheduling and block placement, so nothing later moves the
// branches the pairs are attached to. Barrier registers are outside the
// main allocator's classes (001:7772), so no allocation is disturbed.
//
// Decision: the phase is required (DisablePhases rejects it). Without the
// pairs nothing makes a warp reconverge after a divergent branch, so what
// the code computes changes wherever it observes convergence: an
// activemask or a vote after a loop with a thread-dependent trip count
// sees only the threads that happened to leave the loop together (fuzz
// seed 104542 with random knobs: 64 wrong words once block placement had
// moved the loop exit).
// Convergence brackets divergent regions with BSSY/BSYNC convergence
// barriers (phase FixUpTexDepBarAndSync).
var Convergence = Pass{Run: insertConvergence}

type convRegion struct {
	x, j *ori.Block
	// open is the block whose end holds the BSSY: X, or for a loop that
	// comes back to X before J, the nearest dominator of X that runs once
	// per entry into the region (hoistOpen).
	open   *ori.Block
	blocks map[*ori.Block]bool // open and the blocks reachable from it before J
	calls  uint16              // barriers the functions called inside the region use
	bar    int
}

// allBarriers is the barrier mask of a callee orilab cannot see into: an
// indirect call, a missing function, or recursion.
const allBarriers = 0xffff

func insertConvergence(f *ori.Func, c *Context) (bool, error) {
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	if bracketed(f) {
		return false, nil // already bracketed (a rerun through NamedPhases)
	}
	var m *ori.Module
	if c != nil {
		m = c.Module
	}
	u := &barrierUse{m: m, memo: map[string]uint16{}, busy: map[string]bool{}}
	regions := u.plan(f)
	inserted := false
	for _, r := range regions {
		term := r.x.Insts[len(r.x.Insts)-1]
		if r.bar < 0 || !c.Sites.Allow(f, term.ID, "bracket the region of this branch with BSSY/BSYNC") {
			continue
		}
		bssy := ori.NewInst(ori.OpBSSY)
		bssy.Srcs = []ori.Operand{ori.Imm(int64(r.bar)), ori.BlockRef(int(r.j.ID))}
		bssy.ID, bssy.Line = f.NewID(), term.Line
		// The BSSY goes right before the open block's branch, or at its
		// end when it falls through (a hoisted open block may).
		n := len(r.open.Insts)
		if n > 0 && r.open.Insts[n-1].Op.Flags()&(ori.FBranch|ori.FIndirect) != 0 {
			last := r.open.Insts[n-1]
			r.open.Insts = append(r.open.Insts[:n-1], bssy, last)
		} else {
			r.open.Insts = append(r.open.Insts, bssy)
		}
		bsync := ori.NewInst(ori.OpBSYNC)
		bsync.Srcs = []ori.Operand{ori.Imm(int64(r.bar))}
		bsync.ID = f.NewID()
		if len(r.j.Insts) > 0 {
			bsync.Line = r.j.Insts[0].Line
		}
		r.j.Insts = append([]*ori.Inst{bsync}, r.j.Insts...)
		inserted = true
	}
	return inserted, nil
}

// exitOnly reports whether b holds nothing but an unguarded EXIT. A
// region that meets again only there needs no pair: every thread that
// reaches the BSYNC exits right after it, and BSYNC does not wait for
// exited threads, so the threads that arrive first would wait only to
// exit together. ptxas 13.0.88 brackets no such region (a loop whose exit
// is the kernel's EXIT has no BSSY; an early return is one `@P0 EXIT`).
func exitOnly(b *ori.Block) bool {
	return len(b.Insts) == 1 && b.Insts[0].Op == ori.OpEXIT && !b.Insts[0].Guarded()
}

// bracketed reports whether f already has convergence barriers.
func bracketed(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpBSSY || in.Op == ori.OpBSYNC {
				return true
			}
		}
	}
	return false
}

// barrierUse answers which barrier registers a function may leave
// changed when it returns: those of its own regions and, transitively,
// of the functions it calls. A caller's region that is open across a
// CALL must avoid them: the barrier registers are per warp and Ori has no
// BMOV to save them around the call, so a callee's BSSY on the same
// register would replace the caller's thread mask.
//
// The answer for a function not yet bracketed is its plan, the same
// greedy assignment plan makes when the pass reaches that function, so
// it does not matter which of caller and callee the phase visits first
// (site bisection may leave some planned pairs out, which only makes the
// answer conservative).
type barrierUse struct {
	m    *ori.Module
	memo map[string]uint16
	busy map[string]bool // on the call stack of the computation: recursion
}

// of returns the barrier mask of the function named name.
func (u *barrierUse) of(name string) uint16 {
	if mask, ok := u.memo[name]; ok {
		return mask
	}
	if u.busy[name] || u.m == nil {
		return allBarriers
	}
	f := u.m.Func(name)
	if f == nil {
		return allBarriers
	}
	u.busy[name] = true
	defer delete(u.busy, name)
	var mask uint16
	if bracketed(f) {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpBSSY && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdImm {
					mask |= 1 << (in.Srcs[0].Imm & 15)
				}
			}
		}
	} else {
		if err := f.ComputeCFG(); err != nil {
			return allBarriers
		}
		for _, r := range u.plan(f) {
			if r.bar >= 0 {
				mask |= 1 << r.bar
			}
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op.Has(ori.FCall) {
				mask |= u.callee(in)
			}
		}
	}
	u.memo[name] = mask
	return mask
}

// callee returns the barrier mask of the function a CALL calls.
func (u *barrierUse) callee(in *ori.Inst) uint16 {
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdSym {
			return u.of(o.Name)
		}
	}
	return allBarriers // through a register
}

// plan finds f's regions and gives each a barrier register (bar -1: none
// free). f's CFG must be current.
func (u *barrierUse) plan(f *ori.Func) []*convRegion {
	dom := ori.Dominators(f)
	pdom := ori.PostDominators(f)
	var regions []*convRegion
	// spans are the blocks threads may be in after diverging at a branch
	// and before meeting again, for every divergent branch (with or
	// without a region of its own); spanOf the branch's block.
	var spans []map[*ori.Block]bool
	var spanOf []*ori.Block
	// callMask is, per block, what the functions called there use.
	callMask := map[*ori.Block]uint16{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op.Has(ori.FCall) {
				callMask[b] |= u.callee(in)
			}
		}
	}
	for _, x := range f.Blocks {
		if len(x.Succs) < 2 || !dom.Reached(x) || uniformBranch(x) {
			continue
		}
		j := pdom.Idom(x)
		if j == x {
			j = nil
		}
		blocks, reentered := divergentSpan(x, j)
		spans, spanOf = append(spans, blocks), append(spanOf, x)
		if j == nil || !dom.Dominates(x, j) || exitOnly(j) {
			continue
		}
		open := x
		if reentered {
			if open, blocks = hoistOpen(x, j, dom, pdom); open == nil {
				continue
			}
		}
		r := &convRegion{x: x, j: j, open: open, blocks: blocks}
		returns := false
		for b := range r.blocks {
			if b == open && (open != x || !reentered) {
				// The BSSY goes at the end of the open block: what that
				// block does before it (a CALL, say) runs before the
				// region opens.
				continue
			}
			r.calls |= callMask[b]
			for _, in := range b.Insts {
				if in.Op.Has(ori.FRet) {
					returns = true
				}
			}
		}
		if !returns {
			regions = append(regions, r)
		}
	}
	regions = dropCoveredRegions(regions, dom)
	// Two regions conflict when they can be open at the same time in one
	// warp, since a barrier register holds one thread mask for the whole
	// warp: when X of one lies in the other's region (nesting), or when
	// both lie in the span of a third divergent branch, where one group of
	// threads can run its BSSY while another group is still inside the
	// other region (fuzz seed 42: sibling regions in the two arms of an
	// if shared B1, and the second arm's BSSY replaced the mask the first
	// arm's BSYNC still had to wait for). A call that some threads make
	// while others are inside a region conflicts with the region the same
	// way (fuzz seed 198: a callee's B0 in one arm of a BRX, a region on B0
	// in another arm).
	together := func(a, b *ori.Block) bool {
		for i, sp := range spans {
			if d := spanOf[i]; d != a && d != b && sp[a] && sp[b] {
				return true
			}
		}
		return false
	}
	for _, r := range regions {
		for c, mask := range callMask {
			if !r.blocks[c] && together(r.open, c) {
				r.calls |= mask
			}
		}
	}
	for i, r := range regions {
		used := r.calls
		for _, o := range regions[:i] {
			if o.bar >= 0 && (o.blocks[r.open] || r.blocks[o.open] || together(o.open, r.open)) {
				used |= 1 << o.bar
			}
		}
		r.bar = -1
		for b := 0; b < 16; b++ {
			if used&(1<<b) == 0 {
				r.bar = b
				break
			}
		}
	}
	return regions
}

// dropCoveredRegions drops each region whose threads all belong to
// another region that meets again at the same block: the back-edge branch
// of a rotated loop (its region runs from the latch to the loop's exit)
// inside the region of the guard branch in front of the loop (which
// meets at the same exit). Every thread that runs the inner BSSY has run
// the outer one since it last passed the meeting block, so the outer
// BSYNC already waits for it there, and the inner pair would only repeat
// that, once per iteration. The conditions: the same J, the outer X
// strictly dominates the inner X and reaches it before J, and no path
// from J reaches the inner X without passing the outer X again (an
// enclosing loop goes through the guard).
func dropCoveredRegions(regions []*convRegion, dom *ori.DomTree) []*convRegion {
	var kept []*convRegion
	for _, r := range regions {
		covered := false
		for _, o := range regions {
			if o != r && o.j == r.j && o.x != r.x && o.blocks[r.x] && dom.Dominates(o.x, r.x) &&
				blocksWithin(r.blocks, o.blocks) && !reachesAvoiding(r.j, r.x, o.x) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, r)
		}
	}
	return kept
}

// blocksWithin reports whether every block of a is in b.
func blocksWithin(a, b map[*ori.Block]bool) bool {
	for x := range a {
		if !b[x] {
			return false
		}
	}
	return true
}

// reachesAvoiding reports whether a path from from reaches to without
// passing avoid.
func reachesAvoiding(from, to, avoid *ori.Block) bool {
	seen := map[*ori.Block]bool{from: true}
	work := []*ori.Block{from}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			if s == to {
				return true
			}
			if s != avoid && !seen[s] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	return false
}

// hoistOpen finds where the BSSY of X's region goes when a loop comes
// back to X before J: the nearest strict dominator D of X that J
// post-dominates and that no path from D reaches again before J. It
// returns D and the blocks reachable from D before J, or nil when no
// dominator qualifies (the region then gets no pair).
//
// A BSSY in X itself would run on every trip around the loop, each time
// by whichever threads are back at X then, and replace the thread mask
// that the threads already waiting at J's BSYNC were recorded against.
// When the loop body diverges (an inner loop with a thread-dependent trip
// count), the threads come back to X in groups: a group that is the last
// to leave records only itself, meets its BSYNC alone and passes it,
// while the threads that left earlier wait for members of the old mask
// that are gone (fuzz seed 23310084 at -O3: threads 16 and 24 of every
// warp waited at BSYNC forever). ptxas opens a loop's region before the
// loop (a BSSY in the preheader, the BSYNC at the exit), which is what D
// is: J post-dominating D means every thread recorded at D reaches J (or
// exits), D dominating X (and so J) means every thread waiting at J was
// recorded, and D not being reached again before J means each entry into
// the region records its threads once.
func hoistOpen(x, j *ori.Block, dom, pdom *ori.DomTree) (*ori.Block, map[*ori.Block]bool) {
	for d := dom.Idom(x); d != nil; d = dom.Idom(d) {
		if !pdom.Dominates(j, d) {
			continue
		}
		if blocks, reentered := divergentSpan(d, j); !reentered {
			return d, blocks
		}
	}
	return nil, nil
}

// uniformBranch reports whether x ends in a branch on a uniform
// predicate (ConvertToUniformReg makes them): the active threads of a
// warp all go the same way, so it needs no convergence barrier (the wiki,
// "Uniform Branches": no BSSY/BSYNC is needed). PostFixForMercTargets
// (129, before this pass) moves such a guard into a P register, as no
// BRA word holds a uniform predicate; the branch is still uniform when
// its guard's last definition in x is that copy.
func uniformBranch(x *ori.Block) bool {
	last := x.Insts[len(x.Insts)-1]
	if last.Op != ori.OpBRA || !last.Guarded() {
		return false
	}
	if last.Guard.Class == ori.ClassUP {
		return true
	}
	for k := len(x.Insts) - 2; k >= 0; k-- {
		in := x.Insts[k]
		for _, d := range in.Dsts {
			if d.Kind == ori.OpdReg && d.Reg == last.Guard {
				return uniformCopy(in)
			}
		}
	}
	return false
}

// uniformCopy reports whether in is PLOP3.LUT P = PT, PT, UPn, 0x80:
// a copy of a uniform predicate (a & b & c with a and b true), which
// PostFixForMercTargets writes for a branch guard.
func uniformCopy(in *ori.Inst) bool {
	if in.Op != ori.OpPLOP3 || in.Guarded() || len(in.Srcs) < 4 {
		return false
	}
	a, b, c := in.Srcs[0], in.Srcs[1], in.Srcs[2]
	return a.Kind == ori.OpdReg && a.Reg == ori.PT && !a.Not &&
		b.Kind == ori.OpdReg && b.Reg == ori.PT && !b.Not &&
		c.Kind == ori.OpdReg && c.Reg.Class == ori.ClassUP &&
		in.Srcs[3].Kind == ori.OpdImm && in.Srcs[3].Imm == 0x80
}

// divergentSpan returns x and the blocks reachable from x's successors
// without passing j (all reachable blocks when j is nil), and whether x
// itself is reached again (a loop) before j.

func divergentSpan(x, j *ori.Block) (map[*ori.Block]bool, bool) {
	blocks := map[*ori.Block]bool{x: true}
	reentered := false
	work := append([]*ori.Block(nil), x.Succs...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		switch {
		case b == j:
		case b == x:
			reentered = true
		case !blocks[b]:
			blocks[b] = true
			work = append(work, b.Succs...)
		}
	}
	return blocks, reentered
}
