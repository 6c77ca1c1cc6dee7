package ori

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Dominator and post-dominator trees, computed with the iterative
// algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
// Algorithm"): visit blocks in reverse postorder and intersect the
// candidates' paths up the partial tree until nothing changes. Real
// kernels are small and reducible, so two or three passes suffice; the
// algorithm needs no auxiliary forest, which keeps it short and easy to
// check. Post-dominators run the same algorithm on the reversed CFG with a
// virtual exit that every EXIT, RET and successor-less block leads to.

// DomTree maps each block to its immediate dominator (or post-dominator).
// The root maps to nil, and so do blocks the root does not reach (for
// post-dominators: blocks that cannot reach an exit, such as an infinite
// loop).
type DomTree struct {
	idom  map[*Block]*Block
	order map[*Block]int // reverse-postorder index of the reachable blocks
	// span numbers the reached blocks by a depth-first walk of the tree
	// itself: a dominates b exactly when b's interval lies inside a's.
	// Dominates answered by walking b's idom chain, one map lookup per
	// level; loop finding and LICM ask it for every edge and candidate,
	// and the chains of the large unrolled kernels are hundreds deep.
	span map[*Block]domSpan
}

// domSpan is a block's entry and exit number in a depth-first walk of the
// dominator tree (a forest for post-dominators).
type domSpan struct{ pre, post int32 }

// Idom returns b's immediate dominator, nil for the root and unreached
// blocks. For a post-dominator tree, nil also means "the virtual exit".
func (t *DomTree) Idom(b *Block) *Block { return t.idom[b] }

// Reached reports whether the tree's root reaches b.
func (t *DomTree) Reached(b *Block) bool { _, ok := t.order[b]; return ok }

// Dominates reports whether a dominates b (every block dominates itself).
func (t *DomTree) Dominates(a, b *Block) bool {
	sa, ok := t.span[a]
	if !ok {
		return false
	}
	sb, ok := t.span[b]
	return ok && sa.pre <= sb.pre && sb.post <= sa.post
}

// numberSpans fills t.span from t.idom: the reached blocks' children in
// reverse postorder, then an explicit-stack walk from every root (a
// reached block without an immediate dominator).
func (t *DomTree) numberSpans(rpo []*Block) {
	t.span = make(map[*Block]domSpan, len(rpo))
	kids := make(map[*Block][]*Block, len(rpo))
	var roots []*Block
	for _, b := range rpo {
		if d := t.idom[b]; d != nil {
			kids[d] = append(kids[d], b)
		} else {
			roots = append(roots, b)
		}
	}
	type frame struct {
		b *Block
		i int
	}
	var clock int32
	var stack []frame
	for _, r := range roots {
		t.span[r] = domSpan{pre: clock}
		clock++
		stack = append(stack[:0], frame{r, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if ks := kids[top.b]; top.i < len(ks) {
				k := ks[top.i]
				top.i++
				t.span[k] = domSpan{pre: clock}
				clock++
				stack = append(stack, frame{k, 0})
				continue
			}
			s := t.span[top.b]
			s.post = clock
			clock++
			t.span[top.b] = s
			stack = stack[:len(stack)-1]
		}
	}
}

// The analysis cache (AnalyzeControlFlow, phase 3: "CFG, RPO, dominators,
// post-dominators and loops, cached and invalidated correctly").
//
// A tree depends only on the CFG edges (Preds/Succs) and the entry block,
// and only ComputeCFG changes the edges: Clone builds a copy's edges and
// starts it with an empty cache, no other code assigns Preds or Succs.
// So a tree stays valid until a ComputeCFG finds different edges (or a
// different entry, or other block objects), which starts a new
// generation; a tree is reused when it was built in the current one. A pass that edits branches must call ComputeCFG
// before it asks for a tree, exactly as it had to before there was a
// cache (the trees were always computed from Preds/Succs).
//
// Decision: loops (opt.FindLoops) are not cached here. Passes restructure
// loops while they hold a LoopForest, and it is cheap once the dominator
// tree is cached; the dominator trees were the measured cost (8% of a
// whole -O3 compile of the largest corpus kernel). The passes that ask
// for the forest once per loop visited keep it themselves while
// CFGGeneration (and what else it depends on) stays the same.
type analysisCache struct {
	gen             uint64 // bumped by every ComputeCFG that changes an edge
	dom, pdom       *DomTree
	domGen, pdomGen uint64
	// edges is the CFG the current generation was computed for: every
	// block in layout order, each followed by its successors and a nil.
	// Most passes end with ComputeCFG without having changed control
	// flow; comparing keeps their trees (block identity included, as the
	// trees are keyed by *Block).
	edges, scratch []*Block
	// live is the last ordinary liveness computed for the function (see
	// Liveness), valid while the code has the Fingerprint liveFP, the
	// blocks and edges are liveEdges (flattened as edges is), and no
	// user has grown or consumed it.
	live                   *LiveSets
	liveFP                 uint64
	liveKeys               int
	liveEdges, liveScratch []*Block
	// press is the last MaxPressure of the function, valid (pressOK)
	// while the code has the Fingerprint pressFP and the blocks and
	// edges are pressEdges (flattened as edges is).
	press                    Pressure
	pressOK                  bool
	pressFP                  uint64
	pressEdges, pressScratch []*Block
	// byID is computeEdges's scratch: blocks by ID.
	byID []*Block
	// solve is the scratch of every liveness fixed point of the
	// function (see LiveSets.solve).
	solve solveScratch
	// spare is the memory of the last released strong liveness (see
	// LiveSets.Release), for the next liveness of the function.
	spare *liveMem
}

// noteEdges starts a new generation when f's edges differ from the ones
// the current generation was computed for.
func (c *analysisCache) noteEdges(f *Func) {
	flat := c.scratch[:0]
	for _, b := range f.Blocks {
		flat = append(flat, b)
		flat = append(flat, b.Succs...)
		flat = append(flat, nil)
	}
	if c.edges != nil && slices.Equal(flat, c.edges) {
		c.scratch = flat
		return
	}
	c.gen++
	c.edges, c.scratch = flat, c.edges
}

// CFGGeneration numbers f's control flow: it changes whenever a
// ComputeCFG finds edges (or blocks, or a layout) other than the ones the
// previous number was given for, and only then. An analysis of the CFG
// alone that was computed at the same number is still valid, provided
// ComputeCFG ran after the last edit of the branches.
func (f *Func) CFGGeneration() uint64 { return f.cache.gen }

// CheckAnalysisCache, when set, makes every cache hit recompute the tree
// and panic if it differs from the cached one: the tests run the whole
// pipeline over every kernel with it to show the invalidation is right.
var CheckAnalysisCache atomic.Bool

// Dominators returns the dominator tree of f from its entry block,
// computed or cached. The CFG edges must be current (ComputeCFG).
func Dominators(f *Func) *DomTree {
	return f.cache.tree(f, "dominator", &f.cache.dom, &f.cache.domGen, computeDominators)
}

// tree returns *t when it was built in the current generation (checked
// against a fresh tree under CheckAnalysisCache), or builds and keeps it.
func (c *analysisCache) tree(f *Func, what string, t **DomTree, gen *uint64, compute func(*Func) *DomTree) *DomTree {
	if *t != nil && *gen == c.gen {
		if CheckAnalysisCache.Load() {
			checkCached(f, what, *t, compute(f))
		}
		return *t
	}
	*t, *gen = compute(f), c.gen
	return *t
}

func computeDominators(f *Func) *DomTree {
	if len(f.Blocks) == 0 {
		return &DomTree{idom: map[*Block]*Block{}, order: map[*Block]int{}, span: map[*Block]domSpan{}}
	}
	succ := func(b *Block) []*Block { return b.Succs }
	pred := func(b *Block) []*Block { return b.Preds }
	return domTree([]*Block{f.Blocks[0]}, succ, pred)
}

// checkCached panics when a cached tree differs from a fresh one.
func checkCached(f *Func, what string, cached, fresh *DomTree) {
	for _, b := range f.Blocks {
		if cached.Idom(b) != fresh.Idom(b) || cached.Reached(b) != fresh.Reached(b) {
			panic(fmt.Sprintf("ori: stale cached %s tree of %s at BB%d: a pass changed the CFG edges without ComputeCFG", what, f.Name, b.ID))
		}
	}
}

// PostDominators returns the post-dominator tree of f, computed or
// cached. The roots are the blocks that leave the function (no
// successors); the virtual exit above them is represented by nil.
func PostDominators(f *Func) *DomTree {
	return f.cache.tree(f, "post-dominator", &f.cache.pdom, &f.cache.pdomGen, computePostDominators)
}

func computePostDominators(f *Func) *DomTree {
	var exits []*Block
	for _, b := range f.Blocks {
		if len(b.Succs) == 0 {
			exits = append(exits, b)
		}
	}
	succ := func(b *Block) []*Block { return b.Preds }
	pred := func(b *Block) []*Block { return b.Succs }
	return domTree(exits, succ, pred)
}

// domTree runs the iterative algorithm from roots, which hang off a
// virtual root. succ and pred give the direction of the walk.
func domTree(roots []*Block, succ, pred func(*Block) []*Block) *DomTree {
	// Postorder numbers by an explicit-stack DFS from the virtual root
	// (whose children are roots); the virtual root gets the highest.
	var post []*Block
	seen := map[*Block]bool{}
	type frame struct {
		b *Block
		i int
	}
	for _, r := range roots {
		if seen[r] {
			continue
		}
		seen[r] = true
		stack := []frame{{r, 0}}
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ss := succ(top.b)
			if top.i < len(ss) {
				n := ss[top.i]
				top.i++
				if !seen[n] {
					seen[n] = true
					stack = append(stack, frame{n, 0})
				}
				continue
			}
			post = append(post, top.b)
			stack = stack[:len(stack)-1]
		}
	}
	n := len(post)
	num := make(map[*Block]int, n)
	for i, b := range post {
		num[b] = i
	}
	const undef = -1
	virtual := n // postorder number of the virtual root
	doms := make([]int, n+1)
	for i := range doms {
		doms[i] = undef
	}
	doms[virtual] = virtual
	for _, r := range roots {
		doms[num[r]] = virtual
	}
	intersect := func(a, b int) int {
		for a != b {
			for a < b {
				a = doms[a]
			}
			for b < a {
				b = doms[b]
			}
		}
		return a
	}
	isRoot := map[*Block]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- { // reverse postorder
			b := post[i]
			if isRoot[b] {
				continue
			}
			nd := undef
			for _, p := range pred(b) {
				pi, ok := num[p]
				if !ok || doms[pi] == undef {
					continue
				}
				if nd == undef {
					nd = pi
				} else {
					nd = intersect(pi, nd)
				}
			}
			if nd != undef && doms[i] != nd {
				doms[i] = nd
				changed = true
			}
		}
	}
	t := &DomTree{idom: map[*Block]*Block{}, order: map[*Block]int{}}
	rpo := make([]*Block, n)
	for i, b := range post {
		t.order[b] = n - 1 - i
		rpo[n-1-i] = b
		if d := doms[i]; d != undef && d != virtual {
			t.idom[b] = post[d]
		}
	}
	t.numberSpans(rpo)
	return t
}
