// OriBranchOpt: branch simplification (ptxas phase 15).
//
// The pass follows the ptxas wiki page "Branch & Switch Optimization"
// (OriBranchOpt, sub_7917F0): four CFG-level simplifications applied to a
// fixed point.
//
//  1. Branch folding. A BRA guarded by !PT is never taken and is deleted;
//     one guarded by PT is already unconditional (the IR spells it without
//     a guard). A BRA (guarded or not) to the block that immediately
//     follows in layout order is deleted: both of its outcomes reach the
//     same instruction.
//
//  2. Equivalent targets. A guarded BRA whose taken target and
//     fall-through block lead (through trivial blocks, see 3) to the same
//     block becomes unconditional. Inversion: @P BRA X whose fall-through
//     block N holds only BRA Y (forward) and is directly followed by X
//     becomes @!P BRA Y when nothing else names N, and N is deleted.
//
//  3. Branch threading. A BRA to a trivial block — an empty block, which
//     falls through, or a block holding only an unguarded BRA — is
//     redirected to where the trivial block leads, following chains up to
//     a depth limit. Example:
//
//     BB0: @%p0 BRA BB4        BB0: @%p0 BRA BB5
//     ...                      ...
//     BB4: BRA BB5       =>    (BB4 is unreachable and deleted)
//     BB5: ...                 BB5: ...
//
//  4. Unreachable block removal. Blocks not reachable from the entry
//     (Blocks[0], which always stays first) are deleted, and so are empty
//     blocks that nothing names (their predecessors fall through to the
//     next block anyway).
//
// Kept blocks keep their IDs; every block operand (BRA, BRX, BSSY) still
// names an existing block afterwards.
//
// Warp semantics. The simulator (and Volta's independent thread
// scheduling as orilab models it) runs, at each step, the threads at the
// smallest program counter in layout order; which threads execute a warp
// collective or a barrier together depends on that order. Threading is
// only done along forward hops (the trivial block lies before the block
// it leads to in the layout). A thread parked at a forward trivial block T
// can do nothing observable until T is the smallest counter, at which
// point it moves to T's target; parking it at the target directly
// therefore yields the same groups at every other instruction. A backward
// hop would let the thread join threads it used to wait behind, so such
// chains are left alone. Deleting an instruction that only advances the
// counter (a BRA to the next block, a never-taken BRA) preserves the
// order of everything else for the same reason.
//
// Restrictions (known limits):
//   - BRX targets are never redirected, and blocks named by BSSY (the
//     reconvergence point) are neither threaded through nor deleted.
//   - In partial-SSA form (a MOV.PHI is present), only the transformations
//     that delete edges run (folding never-taken branches, removing
//     branches to the next block, deleting unreachable blocks); the
//     MOV.PHI pairs of deleted predecessors are dropped. Threading, which
//     would add predecessors, is skipped.
//   - Constant predicates computed by instructions (ISETP PT-style
//     tautologies) are left to GeneralOptimize's folding; only the PT
//     guard itself is recognized.
//   - Fall-through into a trivial block is not threaded (it would need a
//     new BRA).
package opt

import (
	"strconv"

	"orilab/pipeline/ori"
)

// BranchOpt folds branches to the next block and never-taken branches,
// threads branches through empty or BRA-only blocks and deletes
// unreachable blocks (phase OriBranchOpt).
var BranchOpt = Pass{Run: runBranchOpt}

// maxThreadDepth bounds chains of trivial blocks followed by threading.
const maxThreadDepth = 32

func runBranchOpt(f *ori.Func, c *Context) (bool, error) {
	if len(f.Blocks) == 0 {
		return false, nil
	}
	hasPhi := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() {
				hasPhi = true
			}
		}
	}
	changed := false
	for iter := 0; iter < 64; iter++ {
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		bo := newBranchOpt(f)
		bo.sites = c.Sites
		ch := bo.fold(!hasPhi)
		if !hasPhi {
			ch = bo.thread() || ch
		}
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		ch = removeDeadBlocks(f, !hasPhi, c.Sites) || ch
		if !ch {
			break
		}
		changed = true
	}
	if err := f.ComputeCFG(); err != nil {
		return changed, err
	}
	if hasPhi && changed {
		fixPhis(f)
	}
	return changed, nil
}

type branchOpt struct {
	f      *ori.Func
	pos    map[int32]int  // block ID -> layout index
	pinned map[int32]bool // BSSY targets: never threaded through or deleted
	named  map[int32]bool // blocks some instruction names (any block operand)
	sites  *Sites
}

func (bo *branchOpt) index() {
	bo.pos = map[int32]int{}
	for i, b := range bo.f.Blocks {
		bo.pos[b.ID] = i
	}
}

func newBranchOpt(f *ori.Func) *branchOpt {
	bo := &branchOpt{f: f, pinned: map[int32]bool{}, named: map[int32]bool{}}
	bo.index()
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdBlock {
					bo.named[o.Block] = true
					if in.Op == ori.OpBSSY {
						bo.pinned[o.Block] = true
					}
				}
			}
		}
	}
	return bo
}

// step returns where a trivial block leads, moving forward in the layout,
// or -1 when the block is not trivial.
func (bo *branchOpt) step(id int32) int32 {
	i, ok := bo.pos[id]
	if !ok || i == 0 || bo.pinned[id] {
		return -1
	}
	b := bo.f.Blocks[i]
	switch len(b.Insts) {
	case 0:
		if i+1 < len(bo.f.Blocks) {
			return bo.f.Blocks[i+1].ID
		}
	case 1:
		in := b.Insts[0]
		if in.Op == ori.OpBRA && !in.Guarded() && len(in.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdBlock {
			if j, ok := bo.pos[in.Srcs[0].Block]; ok && j > i {
				return in.Srcs[0].Block
			}
		}
	}
	return -1
}

// resolve follows forward chains of trivial blocks from id.
func (bo *branchOpt) resolve(id int32) int32 {
	for d := 0; d < maxThreadDepth; d++ {
		n := bo.step(id)
		if n < 0 {
			break
		}
		id = n
	}
	return id
}

// neverTaken reports whether in is guarded by !PT.
func neverTaken(in *ori.Inst) bool { return in.Guard == ori.PT && in.GuardNot }

// fold deletes never-taken branches and branches to the next block, and
// (when equiv) makes guarded branches whose two outcomes meet
// unconditional.
func (bo *branchOpt) fold(equiv bool) bool {
	changed := false
	blocks := bo.f.Blocks
	drop := map[*ori.Block]bool{}
	for i, b := range blocks {
		if drop[b] {
			continue
		}
		n := len(b.Insts)
		if n == 0 {
			continue
		}
		in := b.Insts[n-1]
		if in.Op != ori.OpBRA || len(in.Srcs) != 1 || in.Srcs[0].Kind != ori.OpdBlock {
			continue
		}
		var next *ori.Block
		if i+1 < len(blocks) {
			next = blocks[i+1]
		}
		if (neverTaken(in) || (next != nil && in.Srcs[0].Block == next.ID)) && bo.sites.Allow(bo.f, in.ID, "delete a branch that is never taken or goes to the next block") {
			b.Insts = b.Insts[:n-1]
			changed = true
			continue
		}
		if equiv && in.Guarded() && next != nil && bo.resolve(next.ID) == bo.resolve(in.Srcs[0].Block) && bo.sites.Allow(bo.f, in.ID, "make a branch whose outcomes meet unconditional") {
			in.Guard, in.GuardNot = ori.PT, false
			changed = true
			continue
		}
		// Inversion: @P BRA X; N: BRA Y; X: ... becomes @!P BRA Y; X: ...
		// when nothing else names N, which then disappears.
		if equiv && in.Guarded() && next != nil && i+2 < len(blocks) && !drop[next] &&
			in.Srcs[0].Block == blocks[i+2].ID && len(next.Insts) == 1 && !bo.named[next.ID] {
			if y := bo.step(next.ID); y >= 0 && bo.sites.Allow(bo.f, in.ID, "invert a branch over a branch-only block") {
				in.GuardNot = !in.GuardNot
				in.Srcs[0].Block = y
				drop[next] = true
				changed = true
			}
		}
	}
	if len(drop) > 0 {
		var out []*ori.Block
		for _, b := range blocks {
			if !drop[b] {
				out = append(out, b)
			}
		}
		bo.f.Blocks = out
		bo.index()
	}
	return changed
}

// thread redirects BRA targets through trivial blocks.
func (bo *branchOpt) thread() bool {
	changed := false
	for _, b := range bo.f.Blocks {
		n := len(b.Insts)
		if n == 0 {
			continue
		}
		in := b.Insts[n-1]
		if in.Op != ori.OpBRA || len(in.Srcs) != 1 || in.Srcs[0].Kind != ori.OpdBlock {
			continue
		}
		if t := bo.resolve(in.Srcs[0].Block); t != in.Srcs[0].Block && bo.sites.Allow(bo.f, in.ID, "thread a branch through trivial blocks") {
			in.Srcs[0].Block = t
			changed = true
		}
	}
	return changed
}

// removeDeadBlocks deletes blocks unreachable from the entry, keeping
// every block some kept instruction names (BSSY targets, and what kept
// unreachable blocks branch to). With empties, it also deletes empty
// blocks that no instruction names and that have a next block to fall
// through to. The CFG must be current.
func removeDeadBlocks(f *ori.Func, empties bool, sites *Sites) bool {
	keep := map[*ori.Block]bool{}
	byID := map[int32]*ori.Block{}
	for _, b := range f.Blocks {
		byID[b.ID] = b
	}
	var work []*ori.Block
	add := func(b *ori.Block) {
		if b != nil && !keep[b] {
			keep[b] = true
			work = append(work, b)
		}
	}
	add(f.Blocks[0])
	named := map[int32]bool{}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			add(s)
		}
		for _, in := range b.Insts {
			if in.IsPhi() {
				continue // pairs naming deleted blocks are dropped by fixPhis
			}
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdBlock {
					named[o.Block] = true
					add(byID[o.Block])
				}
			}
		}
	}
	var out []*ori.Block
	changed := false
	for i, b := range f.Blocks {
		// Deleting unreachable code is not a site: it cannot change a
		// result, and keeping one unreachable block could leave it
		// branching to another that is deleted.
		if !keep[b] {
			changed = true
			continue
		}
		if empties && i > 0 && len(b.Insts) == 0 && i+1 < len(f.Blocks) && !named[b.ID] {
			// Predecessors fall through to the next kept block, which is
			// the next block in the layout: the blocks in between are
			// either also deleted empties or unreachable ones nothing
			// falls into.
			if hasLaterKept(f.Blocks[i+1:], keep) && sites.Allow(f, 0, "delete empty block BB"+strconv.Itoa(int(b.ID))) {
				changed = true
				continue
			}
		}
		out = append(out, b)
	}
	if changed {
		f.Blocks = out
	}
	return changed
}

func hasLaterKept(bs []*ori.Block, keep map[*ori.Block]bool) bool {
	for _, b := range bs {
		if keep[b] {
			return true
		}
	}
	return false
}

// fixPhis drops MOV.PHI pairs that name blocks that are no longer
// predecessors. The CFG must be current.
func fixPhis(f *ori.Func) {
	for _, b := range f.Blocks {
		preds := map[int32]bool{}
		for _, p := range b.Preds {
			preds[p.ID] = true
		}
		for _, in := range b.Insts {
			if !in.IsPhi() {
				continue
			}
			var srcs []ori.Operand
			for j := 0; j+1 < len(in.Srcs); j += 2 {
				if in.Srcs[j+1].Kind == ori.OpdBlock && !preds[in.Srcs[j+1].Block] {
					continue
				}
				srcs = append(srcs, in.Srcs[j], in.Srcs[j+1])
			}
			in.Srcs = srcs
		}
	}
}
