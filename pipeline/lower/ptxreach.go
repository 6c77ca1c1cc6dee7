package lower

// Reaching definitions over a function's PTX statements, for the places
// where the lowering follows what ptxas 13.0 derives from a value's
// definitions (ptxasfold.go): ptxas works on SSA form, so what it folds
// depends on every definition that can reach a use, not only on the last
// one in the text.

import (
	"orilab/pipeline/ptx"
)

// ptxFlow is the control flow of a function's statements, flattened
// (nested { } blocks inline, in order).
type ptxFlow struct {
	stmts []ptx.Stmt
	at    map[*ptx.Instr]int
	preds [][]int
	// scope is the innermost { } block holding each statement, parent
	// the block around each nested one, and decls each block's own
	// register declarations: a nested block's .reg shadows a register
	// of the same name outside it (the inlined .func of inlinebrx.go
	// declares its registers so), and a name means the variable that
	// the innermost declaration around the statement names.
	scope  []*ptx.Block
	parent map[*ptx.Block]*ptx.Block
	decls  map[*ptx.Block]func(string) bool
	// mark and stamp are reachingDefs' visited set, kept across calls:
	// statement i was visited in the current walk when mark[i] == stamp.
	// A fresh table per query was quadratic in the function's size (the
	// f64 operand ordering asks for every operand of every f64
	// instruction), and stack is its work list.
	mark  []uint32
	stamp uint32
	stack []int
}

// declScope returns the block whose declaration register name refers
// to at statement i (nil: none of the function's blocks declares it).
func (g *ptxFlow) declScope(i int, name string) *ptx.Block {
	for b := g.scope[i]; b != nil; b = g.parent[b] {
		d, ok := g.decls[b]
		if !ok {
			d = blockRegDecls(b)
			g.decls[b] = d
		}
		if d(name) {
			return b
		}
	}
	return nil
}

// flow returns the function's flow graph, built on first use.
func (c *fn) flow() *ptxFlow {
	if c.pflow != nil {
		return c.pflow
	}
	// The statements and instructions are counted first, so that the
	// tables are made at their size rather than grown.
	nstmts, ninsts := 0, 0
	var size func(b *ptx.Block)
	size = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Block:
				size(s)
				continue
			case *ptx.Instr:
				ninsts++
			}
			nstmts++
		}
	}
	if c.pf.Body != nil {
		size(c.pf.Body)
	}
	g := &ptxFlow{at: make(map[*ptx.Instr]int, ninsts), parent: map[*ptx.Block]*ptx.Block{}, decls: map[*ptx.Block]func(string) bool{},
		stmts: make([]ptx.Stmt, 0, nstmts), scope: make([]*ptx.Block, 0, nstmts)}
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			if nb, ok := s.(*ptx.Block); ok {
				g.parent[nb] = b
				walk(nb)
				continue
			}
			if in, ok := s.(*ptx.Instr); ok {
				g.at[in] = len(g.stmts)
			}
			g.stmts = append(g.stmts, s)
			g.scope = append(g.scope, b)
		}
	}
	if c.pf.Body != nil {
		walk(c.pf.Body)
	}
	labels := map[string]int{}
	targets := map[string][]string{}
	for i, s := range g.stmts {
		switch s := s.(type) {
		case *ptx.Label:
			labels[s.Name] = i
		case *ptx.Directive:
			if s.Label != "" {
				labels[s.Label] = i
				if s.Name == ".branchtargets" {
					targets[s.Label] = s.Args
				}
			}
		}
	}
	// The predecessor lists are carved from one slice: the edges are
	// counted first, then placed in the same order.
	n := len(g.stmts)
	edges := func(edge func(from, to int)) {
		for i, s := range g.stmts {
			in, ok := s.(*ptx.Instr)
			if !ok {
				edge(i, i+1)
				continue
			}
			falls := in.Guard != nil
			switch in.Op {
			case "bra":
				if len(in.Args) > 0 {
					if t, ok := labels[in.Args[0].Name]; ok {
						edge(i, t)
					}
				}
			case "brx":
				if len(in.Args) > 1 {
					for _, l := range targets[in.Args[1].Name] {
						if t, ok := labels[l]; ok {
							edge(i, t)
						}
					}
				}
			case "ret", "exit", "trap":
			default:
				falls = true
			}
			if falls {
				edge(i, i+1)
			}
		}
	}
	count := make([]int, n)
	total := 0
	edges(func(from, to int) {
		if to >= 0 && to < n {
			count[to]++
			total++
		}
	})
	all := make([]int, total)
	g.preds = make([][]int, n)
	off := 0
	for i, k := range count {
		g.preds[i] = all[off : off : off+k]
		off += k
	}
	edges(func(from, to int) {
		if to >= 0 && to < n {
			g.preds[to] = append(g.preds[to], from)
		}
	})
	c.pflow = g
	return g
}

// ptxDefines reports whether in writes the PTX register name: its first
// operand names it (alone, or in a vector, pair or call result list).
func ptxDefines(in *ptx.Instr, name string) bool {
	if len(in.Args) == 0 || in.Op == "bra" || in.Op == "brx" {
		return false
	}
	a := in.Args[0]
	switch a.Kind {
	case ptx.OpName:
		return a.Name == name
	case ptx.OpVec, ptx.OpPair, ptx.OpList:
		for _, e := range a.Elems {
			if e.Kind == ptx.OpName && e.Name == name {
				return true
			}
		}
	}
	return false
}

// reachingDefs returns the instructions whose definition of register
// name can reach use (read before use executes); a definition of another
// register of that name, declared in a nested block, does not count. complete is false when
// some path from the function's entry reaches use without a definition,
// or use is not in the function's body.
func (c *fn) reachingDefs(use *ptx.Instr, name string) (defs []*ptx.Instr, complete bool) {
	g := c.flow()
	u, ok := g.at[use]
	if !ok {
		return nil, false
	}
	complete = true
	v := g.declScope(u, name)
	if len(g.mark) != len(g.stmts) {
		g.mark, g.stamp = make([]uint32, len(g.stmts)), 0
	}
	g.stamp++
	if g.stamp == 0 {
		clear(g.mark)
		g.stamp = 1
	}
	mark, stamp := g.mark, g.stamp
	stack := g.stack[:0]
	defer func() { g.stack = stack[:0] }()
	push := func(i int) {
		if i == 0 {
			complete = false // the entry: nothing defined the register
		}
		for _, p := range g.preds[i] {
			if mark[p] != stamp {
				mark[p] = stamp
				stack = append(stack, p)
			}
		}
	}
	push(u)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		in, ok := g.stmts[i].(*ptx.Instr)
		if ok && ptxDefines(in, name) && g.declScope(i, name) == v {
			defs = append(defs, in)
			if in.Guard == nil {
				continue // an unguarded definition ends the path
			}
		}
		push(i)
	}
	return defs, complete
}

// allReachingDefs reports whether use's register name has at least one
// reaching definition, every path from the entry defines it, and every
// definition satisfies ok.
func (c *fn) allReachingDefs(use *ptx.Instr, name string, ok func(*ptx.Instr) bool) bool {
	defs, complete := c.reachingDefs(use, name)
	if !complete || len(defs) == 0 {
		return false
	}
	for _, d := range defs {
		if !ok(d) {
			return false
		}
	}
	return true
}

// blockRegDecls returns a test for the register names that the .reg
// declarations directly in b declare (%r<N> declares %r0..%r(N-1)).
func blockRegDecls(b *ptx.Block) func(string) bool {
	exact := map[string]bool{}
	ranges := map[string]int{}
	for _, s := range b.Stmts {
		d, ok := s.(*ptx.VarDecl)
		if !ok || d.Space != ".reg" {
			continue
		}
		for _, n := range d.Names {
			if n.Range > 0 {
				ranges[n.Name] = max(ranges[n.Name], n.Range)
			} else {
				exact[n.Name] = true
			}
		}
	}
	return declaredIn(exact, ranges)
}
