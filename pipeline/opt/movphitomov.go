package opt

import (
	"fmt"

	"orilab/pipeline/ori"
)

// ConvertAllMovPhiToMov (phase 81): leave the partial-SSA form.
//
// Every MOV.PHI becomes plain copies on the edges into its block. The
// wiki (5906-5958) describes the destructor as "insert a MOV R3, R7 at
// the end of bix1 and a MOV R3, R9 at the end of bix2, then delete the
// MovPhi", without interference-graph coalescing. Taken literally that
// is wrong in two cases the passes inside the window create, so orilab
// does the textbook version (Briggs et al., "Practical improvements to
// the construction and destruction of static single assignment form"):
//
//   - The phis of a block are one parallel copy per incoming edge: all
//     sources are read before any result is written. After copy
//     propagation a loop header can hold a = phi(b), b = phi(a) (the swap
//     problem); the copies are ordered so that no source is overwritten
//     before it is read, and a cycle is broken with a new temporary.
//   - A copy at the end of a predecessor with several successors also
//     runs on the other edges (the lost-copy problem: the phi's result
//     may still be live there, for example a loop variable read after
//     the loop). The copies go at the end of the predecessor, before its
//     terminator, only when no result is live into another successor or
//     read by another successor's phis on its edge from the predecessor
//     (those phis' copies may be placed in the same block), and the
//     terminator is a branch that reads no result (before a guarded EXIT
//     or RET stands the epilogue, which the allocator wants next to it);
//     otherwise the edge is split by a new block holding the copies. A
//     loop's back edge thus keeps its copies in the latch, before the
//     branch, instead of gaining a block. A split fallthrough edge puts
//     the block right after the predecessor; a split branch edge
//     retargets the branch to a block placed after the next block that
//     does not fall through, ending in BRA to the phi's block.
//
// Before any copy is placed, phi-related values are coalesced (Sreedhar
// et al.'s congruence classes, with the interference test of Budimlic et
// al.): a phi's result and each of its register sources join one class
// unless some member of one class is live right after the definition of
// a member of the other; every member of a class is then renamed to one
// register, and the phi's copies for those sources disappear. Only
// registers with one unguarded definition whose every mention is the
// whole scalar take part. Without this step every loop-carried value
// would cost a copy per iteration: after copy propagation the header's
// phi result, the value computed in the body and the phi after the loop
// are three registers, which in the source were one.
//
// Copies are MOV for R registers and PLOP3.LUT 0xf0 (the table for "a")
// for predicates. Copies whose source is the result itself are dropped;
// OriBackCopyPropagate (91) folds some of those that remain into the
// instruction computing their source.
//
// The phase is required: the simulator executes MOV.PHI, but register
// allocation, scheduling and SASS emission need plain instructions.
// ConvertAllMovPhiToMov leaves partial SSA: it turns every MOV.PHI into
// copies on its incoming edges (phase ConvertAllMovPhiToMov).
var ConvertAllMovPhiToMov = Pass{Run: convertAllMovPhiToMov}

// pcopy is one copy of a parallel copy.
type pcopy struct {
	dst  ori.Reg
	src  ori.Operand
	line int32
}

func convertAllMovPhiToMov(f *ori.Func, c *Context) (bool, error) {
	if !loopHasPhi(f) {
		return false, nil
	}
	mpCoalesce(f)
	live := ori.Liveness(f)
	byID := map[int32]*ori.Block{}
	for _, b := range f.Blocks {
		byID[b.ID] = b
	}
	// Collect the parallel copies per edge before changing anything, so
	// liveness and the phis' shape are those of the SSA form.
	type edge struct{ from, to *ori.Block }
	var edges []edge
	copies := map[edge][]pcopy{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if !in.IsPhi() {
				break
			}
			for j := 0; j+1 < len(in.Srcs); j += 2 {
				p := byID[in.Srcs[j+1].Block]
				if p == nil {
					return false, fmt.Errorf("ConvertAllMovPhiToMov: BB%d #%d names BB%d, which does not exist", b.ID, in.ID, in.Srcs[j+1].Block)
				}
				e := edge{p, b}
				if _, ok := copies[e]; !ok {
					edges = append(edges, e)
					copies[e] = nil
				}
				src := in.Srcs[j]
				if src.Kind == ori.OpdReg && src.Reg == in.Dsts[0].Reg && !src.Not && !src.Neg && !src.Abs {
					continue
				}
				copies[e] = append(copies[e], pcopy{dst: in.Dsts[0].Reg, src: src, line: in.Line})
			}
		}
	}
	for _, e := range edges {
		seq := mpSequentialize(f, copies[e])
		if len(seq) == 0 {
			continue
		}
		if mpCanPlaceAtEnd(e.from, e.to, copies[e], live) {
			mpInsertBeforeTerminator(e.from, seq)
			continue
		}
		if err := mpSplitEdge(f, e.from, e.to, seq); err != nil {
			return false, err
		}
	}
	for _, b := range f.Blocks {
		n := 0
		for n < len(b.Insts) && b.Insts[n].IsPhi() {
			n++
		}
		if n > 0 {
			b.Insts = append(b.Insts[:0:0], b.Insts[n:]...)
		}
	}
	return true, f.ComputeCFG()
}

// mpCanPlaceAtEnd reports whether the copies of the edge from -> to may
// go at the end of from: they then also run when from goes elsewhere.
func mpCanPlaceAtEnd(from, to *ori.Block, cs []pcopy, live *ori.LiveSets) bool {
	for _, s := range from.Succs {
		if s == to {
			continue
		}
		for _, c := range cs {
			if live.LiveIn(s, c.dst) || mpPhiReads(s, from, c.dst) {
				return false
			}
		}
	}
	if n := len(from.Insts); n > 0 && from.Insts[n-1].EndsBlock() {
		term := from.Insts[n-1]
		if term.Op != ori.OpBRA && term.Op != ori.OpBRX {
			// A guarded EXIT or RET: the instructions right before it
			// are the function's epilogue (frame release, return
			// values), which must stay next to it.
			return false
		}
		reads := false
		mpReadRefs(term, func(r *ori.Reg) {
			for _, c := range cs {
				if r.Overlaps(c.dst) {
					reads = true
				}
			}
		})
		if reads {
			return false
		}
	}
	return true
}

// mpPhiReads reports whether a phi of s reads r on the edge from p.
func mpPhiReads(s, p *ori.Block, r ori.Reg) bool {
	for _, in := range s.Insts {
		if !in.IsPhi() {
			break
		}
		for j := 0; j+1 < len(in.Srcs); j += 2 {
			if in.Srcs[j+1].Block == p.ID && in.Srcs[j].Kind == ori.OpdReg && in.Srcs[j].Reg.Overlaps(r) {
				return true
			}
		}
	}
	return false
}

// mpSequentialize orders a parallel copy: a copy is emitted once no
// remaining copy still reads its result; when every remaining copy's
// result is still needed (a cycle), one source is saved in a new
// temporary first.
func mpSequentialize(f *ori.Func, cs []pcopy) []*ori.Inst {
	pending := append([]pcopy(nil), cs...)
	var out []*ori.Inst
	readBy := func(r ori.Reg, except int) bool {
		for i, c := range pending {
			if i != except && c.src.Kind == ori.OpdReg && c.src.Reg.Overlaps(r) {
				return true
			}
		}
		return false
	}
	for len(pending) > 0 {
		progress := false
		for i := 0; i < len(pending); i++ {
			c := pending[i]
			if readBy(c.dst, i) {
				continue
			}
			out = append(out, mpCopy(f, c.dst, c.src, c.line))
			pending = append(pending[:i], pending[i+1:]...)
			i--
			progress = true
		}
		if progress {
			continue
		}
		// A cycle: save the first copy's result, which others still
		// read, and let them read the saved value.
		c := pending[0]
		t := f.NewVReg(c.dst.Class, 1)
		out = append(out, mpCopy(f, t, ori.R(c.dst), c.line))
		for i := range pending {
			if s := &pending[i].src; s.Kind == ori.OpdReg && s.Reg.Overlaps(c.dst) {
				s.Reg = t
			}
		}
	}
	return out
}

// mpCopy returns dst = src for an R or P register.
func mpCopy(f *ori.Func, dst ori.Reg, src ori.Operand, line int32) *ori.Inst {
	var in *ori.Inst
	if dst.Class == ori.ClassP || dst.Class == ori.ClassUP {
		in = ori.NewInst(ori.OpPLOP3, "LUT")
		in.Dsts = []ori.Operand{ori.R(dst), ori.R(ori.PT)}
		in.Srcs = []ori.Operand{src, ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0xf0), ori.Imm(0)}
	} else {
		in = ori.NewInst(ori.OpMOV)
		in.Dsts = []ori.Operand{ori.R(dst)}
		in.Srcs = []ori.Operand{src}
	}
	in.ID = f.NewID()
	in.Line = line
	return in
}

// mpInsertBeforeTerminator puts seq at the end of b, before its control
// transfer if it has one.
func mpInsertBeforeTerminator(b *ori.Block, seq []*ori.Inst) {
	at := len(b.Insts)
	if at > 0 && b.Insts[at-1].EndsBlock() {
		at--
	}
	rest := append([]*ori.Inst(nil), b.Insts[at:]...)
	b.Insts = append(append(b.Insts[:at], seq...), rest...)
}

// mpSplitEdge puts seq on the edge from -> to in a new block.
func mpSplitEdge(f *ori.Func, from, to *ori.Block, seq []*ori.Inst) error {
	i := loopIndex(f, from)
	fallsInto := loopFallsThrough(from) && i+1 < len(f.Blocks) && f.Blocks[i+1] == to
	branches := false
	if n := len(from.Insts); n > 0 && from.Insts[n-1].EndsBlock() {
		for _, o := range from.Insts[n-1].Srcs {
			branches = branches || o.Kind == ori.OpdBlock && o.Block == to.ID
		}
	}
	if fallsInto && branches {
		// Both edges of from lead to to: they are one CFG edge, and from
		// has no other successor, so the copies can stay in from.
		mpInsertBeforeTerminator(from, seq)
		return nil
	}
	line := int32(0)
	if len(seq) > 0 {
		line = seq[0].Line
	}
	if fallsInto {
		nb := loopNewBlockAt(f, i+1)
		nb.Insts = seq
		return nil
	}
	if !branches {
		return fmt.Errorf("ConvertAllMovPhiToMov: BB%d is a predecessor of BB%d but neither branches nor falls into it", from.ID, to.ID)
	}
	// Place the new block after the first block from from on (wrapping
	// around) that does not fall through, so no fallthrough edge changes.
	at := -1
	for k := 0; k < len(f.Blocks) && at < 0; k++ {
		if j := (i + k) % len(f.Blocks); !loopFallsThrough(f.Blocks[j]) {
			at = j + 1
		}
	}
	if at < 0 {
		return fmt.Errorf("ConvertAllMovPhiToMov: every block of %s falls through; there is no place for the copies of the edge BB%d -> BB%d", f.Name, from.ID, to.ID)
	}
	nb := loopNewBlockAt(f, at)
	nb.Insts = append(seq, loopBra(f, to.ID, line))
	loopRetarget(from, to.ID, nb.ID)
	return nil
}

// index returns the position of k's entry in x.list, or -1.
func (x *mpRegs) index(k mpKey) int32 {
	if x.dslot(k) {
		if d := x.dense[k.class]; int(k.n) < len(d) {
			return d[k.n] - 1
		}
		return -1
	}
	if i, ok := x.other[k]; ok {
		return i
	}
	return -1
}

// mpCoalesce merges non-interfering phi results and sources into one
// register each (see the file comment).
func mpCoalesce(f *ori.Func) {
	regs, _ := mpScan(f, nil)
	// cand[i] is the candidate number (plus one) of regs.list[i]: the
	// candidate sets, union-find and interference below are slices
	// indexed by candidate number, not maps keyed by register.
	cand := make([]int32, len(regs.list))
	candOf := func(r ori.Reg) int32 {
		if i := regs.index(mpKeyOf(r)); i >= 0 {
			return cand[i] - 1
		}
		return -1
	}
	// The candidates: phi results and register sources that qualify.
	var cands []mpKey
	add := func(r ori.Reg) {
		if !r.Virtual {
			return
		}
		i := regs.index(mpKeyOf(r))
		if i < 0 || cand[i] != 0 {
			return
		}
		if x := &regs.list[i]; x.defs == 1 && !x.partial && !x.guarded {
			cands = append(cands, mpKeyOf(r))
			cand[i] = int32(len(cands))
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if !in.IsPhi() {
				break
			}
			add(in.Dsts[0].Reg)
			for j := 0; j < len(in.Srcs); j += 2 {
				if o := in.Srcs[j]; o.Kind == ori.OpdReg && !o.Not && !o.Neg && !o.Abs {
					add(o.Reg)
				}
			}
		}
	}
	if len(cands) < 2 {
		return
	}
	// Interference: y is live right after the definition of x. A phi
	// result is defined after the whole phi group of its block.
	// The interfering pairs are collected in one slice (both orders; a
	// candidate has one definition, so a pair is entered at most twice
	// and needs no dedup) and then grouped by their first candidate:
	// inter[interAt[x]:interAt[x+1]] are the candidates interfering
	// with x. One slice instead of a list per candidate or a map.
	var pairs [][2]int32
	live := ori.Liveness(f)
	// A walk of b can only find live right after an instruction a word
	// that is live out of b or read in b. So each block is walked only
	// when it defines a candidate, and each definition is tested against
	// those candidates alone, not against all of them: testing every
	// candidate at every definition made this quadratic in the size of
	// large kernels in SSA form. mention[i] is the block (plus one) that
	// last named candidate i in an operand.
	mention := make([]int32, len(cands))
	var rel []int32
	var defined []int32
	for bi, b := range f.Blocks {
		nPhi := 0
		for nPhi < len(b.Insts) && b.Insts[nPhi].IsPhi() {
			nPhi++
		}
		defines := false
		stamp := int32(bi + 1)
		note := func(r ori.Reg) {
			if !r.Virtual {
				return
			}
			if i := candOf(r); i >= 0 {
				mention[i] = stamp
			}
		}
		for _, in := range b.Insts {
			note(in.Guard)
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdReg || o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank {
					note(o.Reg)
				}
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual && candOf(o.Reg) >= 0 {
					defines = true
				}
				if o.Kind == ori.OpdReg || o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank {
					note(o.Reg)
				}
			}
		}
		if !defines {
			continue
		}
		rel = rel[:0]
		for i, y := range cands {
			if mention[i] == stamp || live.LiveOut(b, ori.VReg(y.class, int(y.n), 1)) {
				rel = append(rel, int32(i))
			}
		}
		live.Walk(b, func(in *ori.Inst, liveAfter func(ori.Reg) bool, _ bool) {
			defined = defined[:0]
			switch {
			case in.IsPhi() && nPhi > 0 && in == b.Insts[nPhi-1]:
				for _, p := range b.Insts[:nPhi] {
					if k := candOf(p.Dsts[0].Reg); k >= 0 {
						defined = append(defined, k)
					}
				}
			case in.IsPhi():
				return
			default:
				for _, o := range in.Dsts {
					if o.Kind == ori.OpdReg && o.Reg.Virtual {
						if k := candOf(o.Reg); k >= 0 {
							defined = append(defined, k)
						}
					}
				}
			}
			for _, x := range defined {
				for _, y := range rel {
					if y != x && liveAfter(ori.VReg(cands[y].class, int(cands[y].n), 1)) {
						pairs = append(pairs, [2]int32{x, y}, [2]int32{y, x})
					}
				}
			}
		})
	}
	interAt := make([]int32, len(cands)+1)
	for _, p := range pairs {
		interAt[p[0]+1]++
	}
	for i := range cands {
		interAt[i+1] += interAt[i]
	}
	inter := make([]int32, len(pairs))
	fill := append([]int32(nil), interAt[:len(cands)]...)
	for _, p := range pairs {
		inter[fill[p[0]]] = p[1]
		fill[p[0]]++
	}
	// Union-find over the candidates, merging along phi operands. The
	// members of a class form a ring through ring[] (merging two classes
	// splices their rings), so no class needs a slice of its own.
	parent := make([]int32, 2*len(cands))
	ring := parent[len(cands):]
	parent = parent[:len(cands)]
	for i := range cands {
		parent[i] = int32(i)
		ring[i] = int32(i)
	}
	find := func(k int32) int32 {
		for parent[k] != k {
			k = parent[k]
		}
		return k
	}
	// interferes reports whether a member of class a interferes with a
	// member of class b (the members of b are those whose root is b).
	interferes := func(a, b int32) bool {
		for x := a; ; {
			for _, y := range inter[interAt[x]:interAt[x+1]] {
				if find(y) == b {
					return true
				}
			}
			if x = ring[x]; x == a {
				return false
			}
		}
	}
	merged := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if !in.IsPhi() {
				break
			}
			d := candOf(in.Dsts[0].Reg)
			if d < 0 {
				continue
			}
			for j := 0; j < len(in.Srcs); j += 2 {
				o := in.Srcs[j]
				if o.Kind != ori.OpdReg || o.Not || o.Neg || o.Abs || o.Reg.Class != in.Dsts[0].Reg.Class {
					continue
				}
				s := candOf(o.Reg)
				if s < 0 {
					continue
				}
				a, c := find(d), find(s)
				if a == c || interferes(a, c) {
					continue
				}
				if cands[c].n < cands[a].n {
					a, c = c, a
				}
				parent[c] = a
				ring[a], ring[c] = ring[c], ring[a]
				merged = true
			}
		}
	}
	if !merged {
		return
	}
	rename := func(r *ori.Reg) {
		if !r.Virtual {
			return
		}
		if k := candOf(*r); k >= 0 {
			r.N = cands[find(k)].n
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			mpReadRefs(in, rename)
			for i := range in.Dsts {
				if in.Dsts[i].Kind == ori.OpdReg {
					rename(&in.Dsts[i].Reg)
				}
			}
			if in.IsPhi() {
				for j := 0; j < len(in.Srcs); j += 2 {
					if in.Srcs[j].Kind == ori.OpdReg {
						rename(&in.Srcs[j].Reg)
					}
				}
			}
		}
	}
}
