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
//   - J exists (paths that all leave the function need no reconvergence),
//   - X dominates J, so every thread arriving at J's BSYNC came through
//     X's BSSY (a thread from elsewhere would wait on a stale thread mask),
//   - the region (the blocks reachable from X without passing J) contains
//     no CALL: the barrier registers are per warp and orilab's calling
//     convention does not save them, so a callee's region could overwrite
//     the caller's.
//
// Regions that can be open at the same time (one's BSSY lies inside the
// other's region) get different barrier registers; B0-B15 are allocated
// greedily in block order. A region that finds all sixteen taken is left
// without a pair: its threads still reconverge at the next enclosing
// BSYNC, only later.
//
// Decision: the wiki places BSSY/BSYNC insertion in the synchronization
// phases without naming the one (16139-16223); orilab does it in
// FixUpTexDepBarAndSync (130), which "repairs sync after scheduling", runs
// at every -O level (the pairs are needed at -O0 too), and comes after
// allocation, scheduling and block placement, so nothing later moves the
// branches the pairs are attached to. Barrier registers are outside the
// main allocator's classes (001:7772), so no allocation is disturbed.
func init() {
	Register(Pass{Name: "FixUpTexDepBarAndSync", Doc: "brackets divergent regions with BSSY/BSYNC convergence barriers", Run: insertConvergence})
}

type convRegion struct {
	x, j   *ori.Block
	blocks map[*ori.Block]bool // X and the blocks reachable from it before J
	bar    int
}

func insertConvergence(f *ori.Func, c *Context) (bool, error) {
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpBSSY || in.Op == ori.OpBSYNC {
				return false, nil // already bracketed (a rerun through NamedPhases)
			}
		}
	}
	dom := ori.Dominators(f)
	pdom := ori.PostDominators(f)
	var regions []*convRegion
	for _, x := range f.Blocks {
		if len(x.Succs) < 2 || !dom.Reached(x) {
			continue
		}
		j := pdom.Idom(x)
		if j == nil || j == x || !dom.Dominates(x, j) {
			continue
		}
		r := &convRegion{x: x, j: j, blocks: map[*ori.Block]bool{x: true}}
		work := append([]*ori.Block(nil), x.Succs...)
		hasCall := false
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if b == j || r.blocks[b] && b != x {
				continue
			}
			if b == x {
				continue
			}
			r.blocks[b] = true
			work = append(work, b.Succs...)
		}
		for b := range r.blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpCALL {
					hasCall = true
				}
			}
		}
		if !hasCall {
			regions = append(regions, r)
		}
	}
	if len(regions) == 0 {
		return false, nil
	}
	// Two regions conflict when either's BSSY executes while the other is
	// open: X of one lies in the other's region.
	inserted := false
	for i, r := range regions {
		used := map[int]bool{}
		for _, o := range regions[:i] {
			if o.bar >= 0 && (o.blocks[r.x] || r.blocks[o.x]) {
				used[o.bar] = true
			}
		}
		r.bar = -1
		for b := 0; b < 16; b++ {
			if !used[b] {
				r.bar = b
				break
			}
		}
		term := r.x.Insts[len(r.x.Insts)-1]
		if r.bar < 0 || !c.Sites.Allow(f, term.ID, "bracket the region of this branch with BSSY/BSYNC") {
			r.bar = -1
			continue
		}
		bssy := ori.NewInst(ori.OpBSSY)
		bssy.Srcs = []ori.Operand{ori.Imm(int64(r.bar)), ori.BlockRef(int(r.j.ID))}
		bssy.ID, bssy.Line = f.NewID(), term.Line
		n := len(r.x.Insts)
		r.x.Insts = append(r.x.Insts[:n-1], bssy, term)
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
