package opt

// dropDiverged: which uniform candidates of ConvertToUniformReg
// (uniformreg.go) may live in the warp-wide UR/UP files, given where the
// warp's threads can be apart.
//
// A uniform register holds one value for the whole warp, so the
// allocator's per-thread liveness is only right where no two groups of
// the warp's threads can write it at different times. After a divergent
// branch the groups need not meet again unless a convergence barrier
// makes them (Volta and later GPUs schedule them independently): one
// group can run a later ULDC into UR0 while the other is still in a loop
// that reads its own value from UR0 (fuzz seed 2003387 -O3, once block
// placement put the loop body after the loop's exit).
//
// A block is diverged when some divergent branch (BRA or BRX on a
// divergent condition) reaches it from one of its successors without
// passing the point where that branch's threads meet again for certain:
// the block J of a region that the convergence pass (convergence.go,
// phase FixUpTexDepBarAndSync) will bracket with BSSY/BSYNC, the
// branch's own or, for a branch without one (it does not dominate its
// meeting point: the second test of `if (a && b)`), the smallest region
// it lies in. The plan is taken on the code as it is here: J is the
// branch's immediate post-dominator, the branch dominates J, the region
// holds no RET, and the region has a barrier register; for a loop's
// exit, whose BSSY goes in front of the loop (hoistOpen), a block to put
// it in exists. With the knob DisableUregReconvergence no branch has a
// meeting point. A BSYNC at the top of J
// waits until every thread of the region has arrived (or exited), so
// from J on the warp runs together again and defines the UR registers
// together.
//
// A candidate leaves the set when one of its definitions is in a diverged
// block. Reading a uniform value there is safe: its definitions all ran
// with the whole warp, before the branch or after a meeting point, and
// no UR register is written in diverged code (the allocator spills no
// UR register, so it rematerializes none there either: the UR budget of
// ConvertToUniformReg stays under the file's size), so the value a group
// reads is the one every thread computed. ptxas does the same: in rodinia
// hotspot's calculate_temp it computes the block offsets in UR4-UR8 before
// the first `if` on the thread index, reads them inside it
// (`IADD3 R3, R9, UR7, RZ`) and after the BSYNC computes the loop bounds
// in UR5-UR9 (orilab: 41 registers with every read in diverged code
// forbidden and no meeting point, ptxas 32).
//
// With the knob DisableUregReconvergence the rule is the earlier one:
// every block reachable from a divergent branch is diverged, and a
// candidate defined, read or live on entry in one stays in R.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableUregReconvergence", Type: knobs.TypeBool,
		Doc:     "ConvertToUniformReg treats every block reachable from a divergent branch as diverged (no meeting point at a convergence barrier) and keeps every register defined, read or live there in R.",
		Readers: []string{"ConvertToUniformReg"}})
}

// dropDiverged removes from set the registers that may not move to the
// uniform files because of divergence (see the file comment). f's CFG
// must be current.
func dropDiverged(f *ori.Func, u *uniformity, set map[cmReg]bool, reconv bool) {
	var branches []*ori.Block
	for _, b := range f.Blocks {
		if len(b.Insts) == 0 {
			continue
		}
		last := b.Insts[len(b.Insts)-1]
		div := last.Op == ori.OpBRA && last.Guarded() && u.divergentReg(last.Guard) ||
			last.Op == ori.OpBRX && len(last.Srcs) > 0 && last.Srcs[0].Kind == ori.OpdReg && u.divergentReg(last.Srcs[0].Reg)
		if div {
			branches = append(branches, b)
		}
	}
	if len(branches) == 0 {
		return
	}
	meet := map[*ori.Block]*ori.Block{}
	if reconv {
		var regions []*convRegion
		for _, r := range (&barrierUse{memo: map[string]uint16{}, busy: map[string]bool{}}).plan(f) {
			if r.bar >= 0 {
				regions = append(regions, r)
			}
		}
		// A branch meets at its own region's J or, without a region of
		// its own, at the J of the smallest region it lies in: every
		// thread there was recorded by that region's BSSY.
		for _, x := range branches {
			var in *convRegion
			for _, r := range regions {
				if r.x == x {
					in = r
					break
				}
				if r.blocks[x] && (in == nil || len(r.blocks) < len(in.blocks)) {
					in = r
				}
			}
			if in != nil {
				meet[x] = in.j
			}
		}
	}
	// The branches without a meeting point share one search, which stops
	// at a block already marked (everything it reaches is marked too):
	// one search instead of one per branch, which was quadratic in
	// kernels with many divergent branches. A branch with a meeting point
	// searches on its own up to J, and stops at those blocks too.
	diverged := map[*ori.Block]bool{}
	var stack []*ori.Block
	for _, x := range branches {
		if meet[x] == nil {
			stack = append(stack, x.Succs...)
		}
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !diverged[b] {
			diverged[b] = true
			stack = append(stack, b.Succs...)
		}
	}
	closed := make(map[*ori.Block]bool, len(diverged))
	for b := range diverged {
		closed[b] = true
	}
	// seen is one search's visited set, emptied for the next (a map per
	// branch was most of this function's allocation).
	seen := map[*ori.Block]bool{}
	for _, x := range branches {
		j := meet[x]
		if j == nil {
			continue
		}
		clear(seen)
		stack = append(stack[:0], x.Succs...)
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if b == j || seen[b] || closed[b] {
				continue
			}
			seen[b] = true
			diverged[b] = true
			stack = append(stack, b.Succs...)
		}
	}
	if len(diverged) == 0 {
		return
	}
	drop := func(r ori.Reg) {
		if r.Virtual {
			delete(set, cmRegOf(r))
		}
	}
	var live *ori.LiveSets
	if !reconv {
		live = ori.Liveness(f)
	}
	for _, b := range f.Blocks {
		if !diverged[b] {
			continue
		}
		if !reconv {
			for _, r := range live.LiveInWords(b) {
				drop(r)
			}
		}
		for _, in := range b.Insts {
			if !reconv {
				cmReads(in, drop)
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg {
					drop(o.Reg)
				}
			}
		}
	}
}
