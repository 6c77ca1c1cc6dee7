package opt

// DoSwitchOptFirst (14) and DoSwitchOptSecond (31): switch lowering.
//
// The wiki ("Branch & Switch Optimization", DoSwitchOpt, seed lines
// 11431-11560) describes the input as a cascade of compare-and-branch
// pairs on one selector, which is how nvcc writes a C switch in PTX:
//
//	BB0:  ISETP.EQ.AND %p0, PT = %r3, 0x1, PT ; @%p0 BRA BB1
//	BB2:  ISETP.EQ.AND %p1, PT = %r3, 0x2, PT ; @%p1 BRA BB3
//	...
//	BB8:  ISETP.EQ.AND %p4, PT = %r3, 0x6, PT ; @%p4 BRA BB3
//	BB9:  (the default, where the last compare falls through)
//
// and the strategy choice as: keep the cascade for 4 cases or fewer;
// otherwise a jump table when the cases cover at least 40% of their
// range and the range is at most 1024 values; otherwise a binary search
// tree. The thresholds are hard-coded in ptxas (no knobs), and so they are
// here.
//
// The jump table replaces the cascade with a bounds check and an indexed
// branch:
//
//	BB0:  IADD3 %r9 = %r3, -0x1, RZ
//	      ISETP.GT.U32.AND %p9, PT = %r9, 0x5, PT
//	      @%p9 BRA BB9
//	BB13: BRX %r9, BB1, BB3, BB5, BB9, BB7, BB3
//
// (a value of the range no case names goes to the default). ptxas leaves
// the table address computation as a pseudo-instruction that
// ExpandJmxComputation expands late into LEA + BRX; orilab's BRX takes the
// index and the target list directly (pipeline/ori/SEMANTICS.md), so the
// table is complete here and ExpandJmxComputation has nothing to expand.
// The cascade's compare blocks become unreachable and are deleted here.
//
// Recognition, all required: each link is an "ISETP.EQ[.U32].AND p, PT =
// x, imm, PT" followed by "@p BRA target" (p not negated), with the same
// register x in every link; every link after the first is a block holding
// exactly those two instructions whose only predecessor is the previous
// link, which falls through into it; each p is read by its BRA and
// nowhere else. A case value that repeats an earlier one can never be
// taken (the earlier compare wins) and is ignored.
//
// Partial SSA: a MOV.PHI in a block the cascade reaches takes its value
// from the head or the table instead of the removed links; a switch whose
// links carry different values into one phi keeps its cascade (see
// swPhiValues).
//
// A sparse switch (five cases or more, too sparse for a table) keeps its
// cascade by default. The knob SwitchSearchTree lowers it to the wiki's
// balanced binary search tree instead (swLowerTree).
//
// Decision: the wiki says ptxas turns a large sparse switch into a binary
// search tree; ptxas 13.0.88 does not, for this input. Measured at sm_80
// -O3 on generated cascades of setp.eq + bra on one selector: with 5, 8,
// 12, 16, 24, 32 and 64 sparse cases (1,000 apart), on a per-thread
// (ld.global) and on a uniform (ld.param) selector, its SASS keeps one
// ISETP.NE + @!P0 BRA per case and no ordered compare; dense cascades
// (5 to 64 cases one apart) become a bounds check and a BRX, as here.
// The tree is also the worse code under divergence: a warp whose threads
// take different cases walks every path of the tree, which has more
// tests than the cascade (testdata/opt/switch_sparse: 104 warp-steps at
// -O3 with the tree against 94 at -O0 and 74 at -O3 with the cascade).
// orilab follows the compiler it measures itself against; the tree stays
// behind the knob for the uniform selector where it wins.
//
// Decisions: DoSwitchOptFirst is architecture-specific in ptxas (vtable
// dispatch) and DoSwitchOptSecond generic; orilab has one back end, so
// both positions run this algorithm, at -O1 and above (the wiki's table:
// "> 0"). The second position sees cascades that loop unrolling
// duplicated, and chains whose compares shared one predicate register
// until GenerateMovPhi renamed it. DisablePhases switches either off.

import (
	"fmt"
	"sort"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "SwitchSearchTree", Type: knobs.TypeBool,
		Doc:     "Lower a sparse switch of 5+ cases to a binary search tree, as the wiki describes (phases DoSwitchOptFirst, DoSwitchOptSecond); off by default: ptxas 13.0.88 keeps the cascade.",
		Readers: []string{"DoSwitchOptFirst", "DoSwitchOptSecond"}})
}

// Switch-lowering thresholds (wiki: "observed" values, not knobs).
const (
	switchMinCases     = 5    // 4 cases or fewer keep the cascade
	switchMinDensityPc = 40   // cases per 100 values of the range
	switchMaxTable     = 1024 // largest jump table
)

// SwitchOpt turns a cascade of compare-and-branch on one selector (5+
// dense cases) into a bounds check and a jump table (BRX), and a sparse
// one into a binary search tree under SwitchSearchTree (phases
// DoSwitchOptFirst and DoSwitchOptSecond).
var SwitchOpt = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		return switchOpt(f, c.Sites, c.Bool("SwitchSearchTree"))
	},
}

// swLink is one compare-and-branch of a cascade.
type swLink struct {
	block  *ori.Block
	value  int64
	target int32
}

func switchOpt(f *ori.Func, sites *Sites, tree bool) (bool, error) {
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	reads := swPredReads(f)
	changed := false
	for bi := 0; bi < len(f.Blocks); bi++ {
		head := f.Blocks[bi]
		x, links, deflt := swChain(f, bi, reads)
		if len(links) < switchMinCases {
			continue
		}
		// The table: the first compare of each value wins.
		first := map[int64]int32{}
		lo, hi := links[0].value, links[0].value
		for _, l := range links {
			if _, dup := first[l.value]; !dup {
				first[l.value] = l.target
			}
			lo, hi = min(lo, l.value), max(hi, l.value)
		}
		span := hi - lo + 1
		if len(first) < switchMinCases {
			continue
		}
		table := span <= switchMaxTable && int64(len(first))*100 >= span*switchMinDensityPc
		if !table && !tree {
			continue
		}
		phiVals, ok := swPhiValues(f, links, deflt)
		if !ok {
			continue
		}
		last := head.Insts[len(head.Insts)-1]
		what := fmt.Sprintf("lower the %d-case switch on %s to a %d-entry jump table", len(first), x, span)
		if !table {
			what = fmt.Sprintf("lower the %d-case switch on %s to a binary search tree", len(first), x)
		}
		if !sites.Allow(f, last.ID, what) {
			continue
		}
		var fresh map[*ori.Block]bool
		if table {
			fresh = swLower(f, bi, x, links, deflt, first, lo, span)
		} else {
			fresh = swLowerTree(f, bi, x, links, deflt, first)
		}
		changed = true
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		swFixPhis(f, links, phiVals, fresh)
		reads = swPredReads(f)
	}
	return changed, nil
}

// swChain recognizes the cascade that starts with the last two
// instructions of f.Blocks[bi]: its selector, its links and the default
// block (where the last link falls through).
func swChain(f *ori.Func, bi int, reads map[int32]int) (x ori.Reg, links []swLink, deflt *ori.Block) {
	for i := bi; i < len(f.Blocks); i++ {
		b := f.Blocks[i]
		if i > bi && (len(b.Insts) != 2 || len(b.Preds) != 1 || b.Preds[0] != f.Blocks[i-1]) {
			break
		}
		sel, v, t, ok := swLinkOf(b, reads)
		if !ok || len(links) > 0 && sel != x {
			break
		}
		x = sel
		links = append(links, swLink{block: b, value: v, target: t})
		if i+1 < len(f.Blocks) {
			deflt = f.Blocks[i+1]
		} else {
			deflt = nil
		}
	}
	if deflt == nil {
		return x, nil, nil
	}
	return x, links, deflt
}

// swLinkOf matches "ISETP.EQ p = x, imm ; @p BRA target" at the end of b.
func swLinkOf(b *ori.Block, reads map[int32]int) (x ori.Reg, v int64, target int32, ok bool) {
	n := len(b.Insts)
	if n < 2 {
		return x, 0, 0, false
	}
	cmp, br := b.Insts[n-2], b.Insts[n-1]
	if br.Op != ori.OpBRA || !br.Guarded() || br.GuardNot || len(br.Srcs) != 1 || br.Srcs[0].Kind != ori.OpdBlock {
		return x, 0, 0, false
	}
	if cmp.Op != ori.OpISETP || cmp.Guarded() || len(cmp.Dsts) != 2 || len(cmp.Srcs) != 3 {
		return x, 0, 0, false
	}
	switch {
	case len(cmp.Mods) == 2 && cmp.Mods[0] == "EQ" && cmp.Mods[1] == "AND":
	case len(cmp.Mods) == 3 && cmp.Mods[0] == "EQ" && cmp.Mods[1] == "U32" && cmp.Mods[2] == "AND":
	default:
		return x, 0, 0, false
	}
	p, q := cmp.Dsts[0], cmp.Dsts[1]
	a, imm, c := cmp.Srcs[0], cmp.Srcs[1], cmp.Srcs[2]
	if p.Kind != ori.OpdReg || !p.Reg.Virtual || p.Reg != br.Guard || q.Kind != ori.OpdReg || q.Reg != ori.PT ||
		a.Kind != ori.OpdReg || !a.Reg.Virtual || a.Reg.Words != 1 || a.Neg || a.Not || a.Abs ||
		imm.Kind != ori.OpdImm || imm.FKind != ori.ImmInt ||
		c.Kind != ori.OpdReg || c.Reg != ori.PT || c.Not || reads[p.Reg.N] != 1 {
		return x, 0, 0, false
	}
	return a.Reg, int64(int32(imm.Imm)), br.Srcs[0].Block, true
}

// swPredReads counts the reads of each virtual predicate register.
func swPredReads(f *ori.Func) map[int32]int {
	reads := map[int32]int{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			cmReads(in, func(r ori.Reg) {
				if r.Virtual && r.Class == ori.ClassP {
					reads[r.N]++
				}
			})
		}
	}
	return reads
}

// swPhiValues prepares partial-SSA form: for every MOV.PHI in a block
// the cascade branches to, the value it takes from the cascade. The jump
// table replaces the links' edges into a block by at most two (from the
// head's bounds check and from the table), so every link must carry the
// same value; ok is false (keep the cascade) when two links carry
// different ones. The links after the first define nothing but their
// predicate, so a value available at the end of a link is available at
// the end of the head and the table too.
func swPhiValues(f *ori.Func, links []swLink, deflt *ori.Block) (map[*ori.Inst]ori.Operand, bool) {
	inCascade := map[int32]bool{}
	for _, l := range links {
		inCascade[l.block.ID] = true
	}
	vals := map[*ori.Inst]ori.Operand{}
	seen := map[*ori.Block]bool{}
	visit := func(b *ori.Block) bool {
		if b == nil || seen[b] {
			return true
		}
		seen[b] = true
		for _, in := range b.Insts {
			if !in.IsPhi() {
				break
			}
			found := false
			for j := 0; j+1 < len(in.Srcs); j += 2 {
				if !inCascade[in.Srcs[j+1].Block] {
					continue
				}
				if found && in.Srcs[j] != vals[in] {
					return false
				}
				vals[in], found = in.Srcs[j], true
			}
		}
		return true
	}
	for _, l := range links {
		if !visit(f.BlockByID(l.target)) {
			return nil, false
		}
	}
	return vals, visit(deflt)
}

// swFixPhis rewrites the phis swPhiValues collected after the lowering:
// the operands naming the removed links go, and each block of the
// lowering (fresh: the head and the blocks it created) the phi's block is
// now reached from gets the value. The CFG must be current.
func swFixPhis(f *ori.Func, links []swLink, vals map[*ori.Inst]ori.Operand, fresh map[*ori.Block]bool) {
	if len(vals) == 0 {
		return
	}
	cascade := map[int32]bool{}
	for _, l := range links {
		cascade[l.block.ID] = true
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if !in.IsPhi() {
				break
			}
			v, ok := vals[in]
			if !ok {
				continue
			}
			var kept []ori.Operand
			for j := 0; j+1 < len(in.Srcs); j += 2 {
				if !cascade[in.Srcs[j+1].Block] {
					kept = append(kept, in.Srcs[j], in.Srcs[j+1])
				}
			}
			for _, p := range b.Preds {
				if fresh[p] {
					kept = append(kept, v, ori.BlockRef(int(p.ID)))
				}
			}
			in.Srcs = kept
		}
	}
}

// swLower rewrites the cascade starting in f.Blocks[bi] as a jump table
// and returns the head and the table block.
func swLower(f *ori.Func, bi int, x ori.Reg, links []swLink, deflt *ori.Block, first map[int64]int32, lo, span int64) map[*ori.Block]bool {
	head := links[0].block
	line := head.Insts[len(head.Insts)-2].Line
	head.Insts = head.Insts[:len(head.Insts)-2]
	idx := x
	if lo != 0 {
		idx = f.NewVReg(ori.ClassR, 1)
		sub := ori.NewInst(ori.OpIADD3)
		sub.Dsts = []ori.Operand{ori.R(idx)}
		sub.Srcs = []ori.Operand{ori.R(x), ori.Imm(int64(int32(-lo))), ori.R(ori.RZ)}
		sub.Line = line
		f.Add(head, sub)
	}
	p := f.NewVReg(ori.ClassP, 1)
	chk := ori.NewInst(ori.OpISETP, "GT", "U32", "AND")
	chk.Dsts = []ori.Operand{ori.R(p), ori.R(ori.PT)}
	chk.Srcs = []ori.Operand{ori.R(idx), ori.Imm(span - 1), ori.R(ori.PT)}
	chk.Line = line
	f.Add(head, chk)
	out := ori.NewInst(ori.OpBRA)
	out.Guard = p
	out.Srcs = []ori.Operand{ori.BlockRef(int(deflt.ID))}
	out.Line = line
	f.Add(head, out)

	// The table block goes right after the head; the other links go.
	table := f.NewBlock("")
	f.Blocks = f.Blocks[:len(f.Blocks)-1]
	brx := ori.NewInst(ori.OpBRX)
	brx.Srcs = []ori.Operand{ori.R(idx)}
	for v := lo; v < lo+span; v++ {
		t, ok := first[v]
		if !ok {
			t = deflt.ID
		}
		brx.Srcs = append(brx.Srcs, ori.BlockRef(int(t)))
	}
	brx.Line = line
	f.Add(table, brx)
	gone := map[*ori.Block]bool{}
	for _, l := range links[1:] {
		gone[l.block] = true
	}
	blocks := make([]*ori.Block, 0, len(f.Blocks)+1)
	for i, b := range f.Blocks {
		if gone[b] {
			continue
		}
		blocks = append(blocks, b)
		if i == bi {
			blocks = append(blocks, table)
		}
	}
	f.Blocks = blocks
	return map[*ori.Block]bool{head: true, table: true}
}

// swLowerTree rewrites the cascade starting in f.Blocks[bi] as the
// wiki's balanced binary search tree over the sorted case values (signed
// order, as the compares are 32-bit) and returns the head and the blocks
// it created:
//
//	node(lo, hi):  empty: BRA default
//	               one case: ISETP.EQ, @p BRA target; BRA default
//	               else, mid = (lo+hi)/2:
//	                 ISETP.LT x, v[mid]; @p BRA left   (left non-empty)
//	                 ISETP.EQ x, v[mid]; @p BRA target[mid]
//	                 node(mid+1, hi)
//	               left: node(lo, mid-1)
//
// The "less than" test is left out when the left subtree is empty: a
// smaller value then fails every compare of the right subtree and reaches
// the default anyway. A thread makes at most 2*ceil(log2(n+1)) compares
// instead of up to n. The BRA to a default that follows is removed later
// by OriBranchOpt.
func swLowerTree(f *ori.Func, bi int, x ori.Reg, links []swLink, deflt *ori.Block, first map[int64]int32) map[*ori.Block]bool {
	head := links[0].block
	line := head.Insts[len(head.Insts)-2].Line
	head.Insts = head.Insts[:len(head.Insts)-2]
	vals := make([]int64, 0, len(first))
	for v := range first {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })

	fresh := map[*ori.Block]bool{head: true}
	var order []*ori.Block
	cur := head
	detached := func() *ori.Block {
		b := f.NewBlock("")
		f.Blocks = f.Blocks[:len(f.Blocks)-1]
		fresh[b] = true
		return b
	}
	start := func(b *ori.Block) {
		order = append(order, b)
		cur = b
	}
	branch := func(cmp string, v int64, target int32) {
		p := f.NewVReg(ori.ClassP, 1)
		in := ori.NewInst(ori.OpISETP, cmp, "AND")
		in.Dsts = []ori.Operand{ori.R(p), ori.R(ori.PT)}
		in.Srcs = []ori.Operand{ori.R(x), ori.Imm(v), ori.R(ori.PT)}
		in.Line = line
		f.Add(cur, in)
		br := ori.NewInst(ori.OpBRA)
		br.Guard = p
		br.Srcs = []ori.Operand{ori.BlockRef(int(target))}
		br.Line = line
		f.Add(cur, br)
		start(detached())
	}
	toDefault := func() {
		br := ori.NewInst(ori.OpBRA)
		br.Srcs = []ori.Operand{ori.BlockRef(int(deflt.ID))}
		br.Line = line
		f.Add(cur, br)
	}
	var node func(lo, hi int)
	node = func(lo, hi int) {
		if lo > hi {
			toDefault()
			return
		}
		mid := (lo + hi) / 2
		var left *ori.Block
		if mid > lo {
			left = detached()
			branch("LT", vals[mid], left.ID)
		}
		branch("EQ", vals[mid], first[vals[mid]])
		node(mid+1, hi)
		if left != nil {
			start(left)
			node(lo, mid-1)
		}
	}
	node(0, len(vals)-1)

	gone := map[*ori.Block]bool{}
	for _, l := range links[1:] {
		gone[l.block] = true
	}
	blocks := make([]*ori.Block, 0, len(f.Blocks)+len(order))
	for i, b := range f.Blocks {
		if gone[b] {
			continue
		}
		blocks = append(blocks, b)
		if i == bi {
			blocks = append(blocks, order...)
		}
	}
	f.Blocks = blocks
	return fresh
}
