package opt

// Natural-loop analysis shared by the loop passes (loopsimplify.go,
// licm.go, unroll.go, strength.go).
//
// ptxas keeps no loop objects: AnalyzeControlFlow annotates blocks with a
// nesting depth, and every loop pass rediscovers headers, back edges and
// preheaders from the RPO array (wiki "Loop Passes", 001:11894-11966;
// "Basic Blocks & CFG", natural loops 7560-7589). orilab computes the same
// facts on demand from the dominator tree (ori.Dominators):
//
//   - a back edge is an edge B -> H whose target dominates its source;
//   - the natural loop of H is H plus every block that reaches a back-edge
//     source of H without passing through H (a backward walk over Preds);
//     back edges that share a header form one loop;
//   - loops nest by containment: the parent of a loop is the smallest loop
//     that contains its header and is not the loop itself;
//   - a preheader is the unique predecessor of H outside the loop when its
//     only successor is H;
//   - exiting blocks are the loop blocks with a successor outside the loop
//     or that leave the function (EXIT, RET) or the kernel (BPT.TRAP).
//
// A cycle whose entry does not dominate its other blocks (an irreducible
// region: a retreating edge whose target does not dominate its source) is
// not a natural loop. It is not reported as a loop; Irreducible says that
// one exists. Decision: the passes leave irreducible regions alone instead
// of making them single-entry by node splitting (ptxas's
// LoopMakeSingleEntry, 7576-7589): PTX from the compilers we test against
// is reducible, and duplication is a code-size risk for no measured gain.
//
// Example. For the clang loop shape
//
//	BB0: ...                     header BB1, latch BB3, body {BB1 BB3}
//	BB1: ... @%p3 BRA BB2        exiting BB1, exit BB2
//	BB3: BRA BB1                 preheader BB0 (its only successor is BB1)
//	BB2: ... EXIT
//
// The analysis needs current CFG edges (ComputeCFG) and is invalidated by
// any change to the control flow.

import (
	"cmp"
	"iter"
	"slices"
	"sort"

	"orilab/pipeline/ori"
)

// Loop is one natural loop.
type Loop struct {
	// Header is the loop's single entry block; it dominates every block
	// of the loop.
	Header *ori.Block
	// Blocks are the loop's blocks, header first, the others in layout
	// order. Blocks of nested loops are included.
	Blocks []*ori.Block
	// Latches are the sources of the back edges to Header, in layout order.
	Latches []*ori.Block
	// Exiting are the loop blocks that can leave it: a successor outside
	// the loop, or an EXIT, RET or BPT in the block. Layout order.
	Exiting []*ori.Block
	// Exits are the blocks outside the loop with a predecessor inside it,
	// in layout order.
	Exits []*ori.Block
	// Parent is the innermost loop that strictly contains this one, nil
	// for an outermost loop; Children are the loops it directly contains.
	Parent   *Loop
	Children []*Loop
	// Depth is 1 for an outermost loop, 2 for a loop nested in it, ...
	Depth int

	in map[*ori.Block]bool
}

// Contains reports whether b is one of the loop's blocks.
func (l *Loop) Contains(b *ori.Block) bool { return l.in[b] }

// Innermost reports whether the loop contains no other loop.
func (l *Loop) Innermost() bool { return len(l.Children) == 0 }

// Entering returns the predecessors of the header outside the loop, in
// the header's predecessor order.
func (l *Loop) Entering() []*ori.Block {
	var out []*ori.Block
	for _, p := range l.Header.Preds {
		if !l.in[p] {
			out = append(out, p)
		}
	}
	return out
}

// Preheader returns the loop's preheader: the only predecessor of the
// header outside the loop, provided its only successor is the header and
// it does not end with a guarded EXIT or RET (code the loop passes add at
// its end would run before the exit, for the threads that leave). Nil
// when the loop has none.
func (l *Loop) Preheader() *ori.Block {
	ent := l.Entering()
	if len(ent) != 1 {
		return nil
	}
	p := ent[0]
	if len(p.Succs) != 1 || p.Succs[0] != l.Header {
		return nil
	}
	if n := len(p.Insts); n > 0 && p.Insts[n-1].Op.Flags()&(ori.FExit|ori.FRet) != 0 {
		return nil
	}
	return p
}

// LoopForest is the set of natural loops of a function.
type LoopForest struct {
	// Loops lists every loop, outer loops before the loops they contain,
	// siblings in layout order of their headers.
	Loops []*Loop
	// Dom is the dominator tree the loops were computed from.
	Dom *ori.DomTree
	// Irreducible is set when the function has a cycle that is not a
	// natural loop.
	Irreducible bool
	// of maps each block to the innermost loop containing it.
	of map[*ori.Block]*Loop
	// pos is each block's layout index.
	pos map[*ori.Block]int
	// rpo is each reachable block's reverse-postorder index, computed
	// by LICM on first use (nil until then).
	rpo map[*ori.Block]int
}

// LoopOf returns the innermost loop that contains b, or nil.
func (lf *LoopForest) LoopOf(b *ori.Block) *Loop { return lf.of[b] }

// InnerFirst returns the loops with every loop after the loops it
// contains (a postorder of the nesting tree), siblings in layout order.
func (lf *LoopForest) InnerFirst() []*Loop {
	var out []*Loop
	var walk func(l *Loop)
	walk = func(l *Loop) {
		for _, c := range l.Children {
			walk(c)
		}
		out = append(out, l)
	}
	for _, l := range lf.Loops {
		if l.Parent == nil {
			walk(l)
		}
	}
	return out
}

// FindLoops computes the natural loops of f. The CFG edges must be
// current.
func FindLoops(f *ori.Func) *LoopForest {
	dom := ori.Dominators(f)
	// Maps sized up front: LICM, unrolling and strength reduction
	// rebuild the forest after every loop they change, and each rebuild
	// grew these maps block by block.
	nb := len(f.Blocks)
	lf := &LoopForest{Dom: dom, of: make(map[*ori.Block]*Loop, nb), pos: make(map[*ori.Block]int, nb)}
	for i, b := range f.Blocks {
		lf.pos[b] = i
	}
	// Back edges grouped by header, headers in layout order.
	latches := map[*ori.Block][]*ori.Block{}
	var headers []*ori.Block
	for _, b := range f.Blocks {
		if !dom.Reached(b) {
			continue
		}
		for _, s := range b.Succs {
			if dom.Dominates(s, b) {
				if _, seen := latches[s]; !seen {
					headers = append(headers, s)
				}
				latches[s] = append(latches[s], b)
			}
		}
	}
	// slices.SortStableFunc, not sort.SliceStable, whose reflective
	// swapper allocated on every rebuild; the order is the same.
	byPosStable := func(bs []*ori.Block) {
		slices.SortStableFunc(bs, func(x, y *ori.Block) int { return cmp.Compare(lf.pos[x], lf.pos[y]) })
	}
	byPosStable(headers)
	for _, h := range headers {
		// The body's blocks are collected by the walk and sorted by layout
		// position, not found by scanning the whole function: a scan per
		// loop made this quadratic in kernels with many small loops, and
		// LICM rebuilds the forest after every loop that hoists.
		l := &Loop{Header: h, in: map[*ori.Block]bool{h: true}}
		var body []*ori.Block
		work := append([]*ori.Block(nil), latches[h]...)
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if l.in[b] || !dom.Reached(b) {
				continue
			}
			l.in[b] = true
			body = append(body, b)
			work = append(work, b.Preds...)
		}
		byPos := func(bs []*ori.Block) {
			sort.Slice(bs, func(i, j int) bool { return lf.pos[bs[i]] < lf.pos[bs[j]] })
		}
		byPos(body)
		l.Blocks = append([]*ori.Block{h}, body...)
		l.Latches = append(l.Latches, latches[h]...)
		byPosStable(l.Latches)
		exitSeen := map[*ori.Block]bool{}
		for _, b := range l.Blocks {
			exiting := loopLeavesFunction(b)
			for _, s := range b.Succs {
				if !l.in[s] {
					exiting = true
					if !exitSeen[s] {
						exitSeen[s] = true
						l.Exits = append(l.Exits, s)
					}
				}
			}
			if exiting {
				l.Exiting = append(l.Exiting, b)
			}
		}
		byPos(l.Exiting)
		byPos(l.Exits)
		lf.Loops = append(lf.Loops, l)
	}
	// Nesting: the parent is the smallest other loop containing the header.
	for _, l := range lf.Loops {
		for _, o := range lf.Loops {
			// Natural loops with distinct headers are disjoint or nested,
			// so a loop containing l's header contains all of l.
			if o == l || !o.in[l.Header] {
				continue
			}
			if l.Parent == nil || len(o.Blocks) < len(l.Parent.Blocks) {
				l.Parent = o
			}
		}
	}
	for _, l := range lf.Loops {
		if l.Parent != nil {
			l.Parent.Children = append(l.Parent.Children, l)
		}
	}
	// Order outer before inner: by depth, then header layout position.
	for _, l := range lf.Loops {
		for p := l; p != nil; p = p.Parent {
			l.Depth++
		}
	}
	slices.SortStableFunc(lf.Loops, func(a, b *Loop) int {
		if a.Depth != b.Depth {
			return cmp.Compare(a.Depth, b.Depth)
		}
		return cmp.Compare(lf.pos[a.Header], lf.pos[b.Header])
	})
	for _, l := range lf.Loops { // outer first, so inner loops overwrite
		for b := range l.in {
			lf.of[b] = l
		}
	}
	lf.Irreducible = loopHasIrreducibleCycle(f, dom)
	return lf
}

// keptForest hands out the loop forest of a function again while its
// control flow is the same, for the passes that visit the loops one at a
// time and ask for the forest before every visit (strength reduction,
// unrolling): most visits change no edge, and rebuilding the forest each
// time was quadratic in kernels with many loops.
//
// The forest depends on the edges and the layout (ori.CFGGeneration
// changes with either) and, through Exiting, on which loop blocks end
// the thread or the function (loopLeavesFunction), which an edit of the
// instructions can change without touching an edge; leaves records that
// per block of the function, in layout order, for the loop blocks.
// Preheader and Entering are computed on demand from the current blocks.
type keptForest struct {
	lf     *LoopForest
	gen    uint64
	leaves []bool
}

// find returns the loop forest of f, whose CFG edges must be current.
func (k *keptForest) find(f *ori.Func) *LoopForest {
	if k.lf != nil && k.gen == f.CFGGeneration() && k.sameLeaves(f) {
		if ori.CheckAnalysisCache.Load() {
			loopCheckKept(f, k.lf, FindLoops(f))
		}
		return k.lf
	}
	k.lf, k.gen = FindLoops(f), f.CFGGeneration()
	k.leaves = k.leaves[:0]
	for _, b := range f.Blocks {
		if k.lf.of[b] != nil {
			k.leaves = append(k.leaves, loopLeavesFunction(b))
		}
	}
	return k.lf
}

// sameLeaves reports whether the loop blocks of f end the thread or the
// function as they did when the kept forest was built.
func (k *keptForest) sameLeaves(f *ori.Func) bool {
	i := 0
	for _, b := range f.Blocks {
		if k.lf.of[b] != nil {
			if i >= len(k.leaves) || k.leaves[i] != loopLeavesFunction(b) {
				return false
			}
			i++
		}
	}
	return i == len(k.leaves)
}

// loopCheckKept panics when a kept forest differs from a fresh one (under
// ori.CheckAnalysisCache, as the cached dominator trees are checked).
func loopCheckKept(f *ori.Func, kept, fresh *LoopForest) {
	same := len(kept.Loops) == len(fresh.Loops) && kept.Irreducible == fresh.Irreducible
	for i := 0; same && i < len(kept.Loops); i++ {
		a, b := kept.Loops[i], fresh.Loops[i]
		same = slices.Equal(a.Blocks, b.Blocks) && slices.Equal(a.Latches, b.Latches) &&
			slices.Equal(a.Exiting, b.Exiting) && slices.Equal(a.Exits, b.Exits) && a.Depth == b.Depth
	}
	if !same {
		panic("opt: stale kept loop forest of " + f.Name)
	}
}

// loopLeavesFunction reports whether b contains an instruction that ends
// the thread or the function (EXIT, RET) or the kernel (BPT).
func loopLeavesFunction(b *ori.Block) bool {
	for _, in := range b.Insts {
		if in.Op.Flags()&(ori.FExit|ori.FRet) != 0 || in.Op == ori.OpBPT {
			return true
		}
	}
	return false
}

// loopHasIrreducibleCycle reports whether a depth-first walk from the
// entry finds a retreating edge (to a block on the walk's stack) whose
// target does not dominate its source.
func loopHasIrreducibleCycle(f *ori.Func, dom *ori.DomTree) bool {
	if len(f.Blocks) == 0 {
		return false
	}
	const (
		unseen = iota
		onStack
		done
	)
	state := make(map[*ori.Block]int, len(f.Blocks))
	type frame struct {
		b *ori.Block
		i int
	}
	stack := []frame{{f.Blocks[0], 0}}
	state[f.Blocks[0]] = onStack
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i < len(top.b.Succs) {
			s := top.b.Succs[top.i]
			top.i++
			switch state[s] {
			case unseen:
				state[s] = onStack
				stack = append(stack, frame{s, 0})
			case onStack:
				if !dom.Dominates(s, top.b) {
					return true
				}
			}
			continue
		}
		state[top.b] = done
		stack = stack[:len(stack)-1]
	}
	return false
}

// loopWord identifies one 32-bit word of a register for the loop passes'
// def and use bookkeeping: a virtual register word, or a physical
// register (which has no words of its own beyond its number).
type loopWord struct {
	class   ori.RegClass
	virtual bool
	n       int32
	word    int32
}

// loopWords returns the words r covers. Zero registers (RZ, PT, ...)
// cover nothing.
func loopWords(r ori.Reg) []loopWord {
	if r.IsZero() {
		return nil
	}
	out := make([]loopWord, 0, r.Words)
	for w := 0; w < int(r.Words); w++ {
		if r.Virtual {
			out = append(out, loopWord{r.Class, true, r.N, int32(r.Off) + int32(w)})
		} else {
			out = append(out, loopWord{r.Class, false, r.N + int32(w), 0})
		}
	}
	return out
}

// loopWordSeq yields the words r covers, as loopWords lists them, without
// allocating the list: LICM and the loop passes ask for the words of
// every operand of every loop instruction, and the small slices were the
// most frequent allocation of the middle end.
func loopWordSeq(r ori.Reg) iter.Seq[loopWord] {
	return func(yield func(loopWord) bool) {
		if r.IsZero() {
			return
		}
		for w := 0; w < int(r.Words); w++ {
			var x loopWord
			if r.Virtual {
				x = loopWord{r.Class, true, r.N, int32(r.Off) + int32(w)}
			} else {
				x = loopWord{r.Class, false, r.N + int32(w), 0}
			}
			if !yield(x) {
				return
			}
		}
	}
}

// loopSrcRegs calls fn for every register in reads: the guard, register
// sources and address bases (of sources and of non-register results).
func loopSrcRegs(in *ori.Inst, fn func(r ori.Reg)) {
	if in.Guard.Class.IsPred() && !in.Guard.IsZero() {
		fn(in.Guard)
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(o.Reg)
		}
	}
	for _, o := range in.Dsts {
		if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(o.Reg)
		}
	}
}

// loopDstRegs calls fn for every register in writes.
func loopDstRegs(in *ori.Inst, fn func(r ori.Reg)) {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg {
			fn(o.Reg)
		}
	}
}

// loopDefs counts, for every register word, the instructions of the loop
// that write it, and records whether the loop has a CALL (which clobbers
// every physical register but R1). The tables are built on the first
// question: strength reduction makes a loopDefs for every loop but asks
// only about the loops that multiply (IMAD), and filling two maps with
// every word every loop writes was most of its time.
type loopDefs struct {
	l       *Loop
	built   bool
	counts  map[loopWord]int
	defs    map[loopWord]*ori.Inst // the writer when count is 1
	hasCall bool
}

func newLoopDefs(l *Loop) *loopDefs { return &loopDefs{l: l} }

func (d *loopDefs) build() {
	if d.built {
		return
	}
	d.built = true
	d.counts, d.defs = map[loopWord]int{}, map[loopWord]*ori.Inst{}
	for _, b := range d.l.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpCALL {
				d.hasCall = true
			}
			loopDstRegs(in, func(r ori.Reg) {
				for w := range loopWordSeq(r) {
					d.counts[w]++
					d.defs[w] = in
				}
			})
		}
	}
}

// count returns how many instructions of the loop write w.
func (d *loopDefs) count(w loopWord) int {
	d.build()
	return d.counts[w]
}

// def returns the last instruction of the loop that writes w (the writer
// when count is 1), nil for none.
func (d *loopDefs) def(w loopWord) *ori.Inst {
	d.build()
	return d.defs[w]
}

// loopWriters returns how many instructions of l write w and the last of
// them (as loopDefs's count and def), by a walk of l: for a question or
// two it is cheaper than a loopDefs.
func loopWriters(l *Loop, w loopWord) (n int, last *ori.Inst) {
	for _, b := range l.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg {
					continue
				}
				for x := range loopWordSeq(o.Reg) {
					if x == w {
						n++
						last = in
					}
				}
			}
		}
	}
	return n, last
}

// physInvariant reports whether a physical register keeps its value
// throughout the loop: no instruction of the loop writes it and, unless
// it is R1 (which a callee restores), the loop has no CALL.
func (d *loopDefs) physInvariant(r ori.Reg) bool {
	d.build()
	for w := range loopWordSeq(r) {
		if d.counts[w] > 0 {
			return false
		}
	}
	if d.hasCall && !(r.Class == ori.ClassR && r.N == 1 && r.Words == 1) {
		return false
	}
	return true
}

// loopHasPhi reports whether f is in partial-SSA form (has a MOV.PHI).
func loopHasPhi(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() {
				return true
			}
		}
	}
	return false
}
