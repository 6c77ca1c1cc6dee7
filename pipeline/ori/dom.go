package ori

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
}

// Idom returns b's immediate dominator, nil for the root and unreached
// blocks. For a post-dominator tree, nil also means "the virtual exit".
func (t *DomTree) Idom(b *Block) *Block { return t.idom[b] }

// Reached reports whether the tree's root reaches b.
func (t *DomTree) Reached(b *Block) bool { _, ok := t.order[b]; return ok }

// Dominates reports whether a dominates b (every block dominates itself).
func (t *DomTree) Dominates(a, b *Block) bool {
	if !t.Reached(a) || !t.Reached(b) {
		return false
	}
	for x := b; x != nil; x = t.idom[x] {
		if x == a {
			return true
		}
	}
	return false
}

// Dominators computes the dominator tree of f from its entry block. The
// CFG edges must be current (ComputeCFG).
func Dominators(f *Func) *DomTree {
	if len(f.Blocks) == 0 {
		return &DomTree{idom: map[*Block]*Block{}, order: map[*Block]int{}}
	}
	succ := func(b *Block) []*Block { return b.Succs }
	pred := func(b *Block) []*Block { return b.Preds }
	return domTree([]*Block{f.Blocks[0]}, succ, pred)
}

// PostDominators computes the post-dominator tree of f. The roots are the
// blocks that leave the function (no successors); the virtual exit above
// them is represented by nil.
func PostDominators(f *Func) *DomTree {
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
	for i, b := range post {
		t.order[b] = n - 1 - i
		if d := doms[i]; d != undef && d != virtual {
			t.idom[b] = post[d]
		}
	}
	return t
}
