package ptxgen

import "strings"

// Shrink: structural test-case reduction.
//
// A generated program keeps its validity under deleting any statement
// (see Program), so reduction can work on the statement tree instead of
// the text: no candidate is ever an invalid program, and every test
// answers the real question (does the failure persist?) rather than "is
// this still PTX?". Shrink is greedy and goes top-down:
//
//  1. the launch: one CTA, then one warp (when the block is whole warps);
//  2. statements in preorder over every function, each deletion kept when
//     the failure persists (so a whole loop goes before its body is
//     tried statement by statement), repeated until a pass deletes
//     nothing;
//  3. state variables defined as zero rather than from the inputs;
//  4. setup sections (the local array's fill, the shared counters'
//     initialisation) that no remaining statement uses;
//  5. device functions no one calls any more.
//
// keep reports whether a candidate still fails the same way; Shrink
// stops after maxTests calls to keep.

// Shrink returns the smallest program it finds for which keep holds, and
// the number of calls to keep it made. p itself must satisfy keep.
func Shrink(p *Program, keep func(*Program) bool, maxTests int) (*Program, int) {
	tests := 0
	try := func(q *Program) bool {
		if tests >= maxTests {
			return false
		}
		tests++
		return keep(q)
	}
	// 1. The launch.
	if p.Launch.CTAs() > 1 {
		q := p.clone()
		q.setLaunch([3]int{1, 1, 1}, q.Launch.Block)
		if try(q) {
			p = q
		}
	}
	if t := p.Launch.Threads(); t > 32 && t%32 == 0 {
		q := p.clone()
		q.setLaunch(q.Launch.Grid, [3]int{32, 1, 1})
		if try(q) {
			p = q
		}
	}
	// 2. Statements.
	for changed := true; changed && tests < maxTests; {
		changed = false
		for i := 0; i < p.countStmts() && tests < maxTests; {
			q := p.clone()
			q.deleteNth(i)
			if try(q) {
				p, changed = q, true
				continue
			}
			i++
		}
	}
	// 3. State variables defined as zero instead of from inputs.
	for fi := 0; fi <= len(p.Funcs) && tests < maxTests; fi++ {
		for k := range p.funcAt(fi).Inits {
			if tests >= maxTests {
				break
			}
			in := p.funcAt(fi).Inits[k]
			if len(in.Lines) == 1 && in.Lines[0] == in.ZeroLine() {
				continue
			}
			q := p.clone()
			q.funcAt(fi).Inits[k] = &Init{Var: in.Var, Class: in.Class, Lines: []string{in.ZeroLine()}}
			if try(q) {
				p = q
			}
		}
	}
	// 4. Setup sections no statement needs any more.
	for fi := 0; fi <= len(p.Funcs) && tests < maxTests; fi++ {
		for k := 0; k < len(p.funcAt(fi).Setup) && tests < maxTests; {
			f := p.funcAt(fi)
			if f.setupUsed(f.Setup[k].Kind) {
				k++
				continue
			}
			q := p.clone()
			g := q.funcAt(fi)
			g.dropSetup(k)
			if try(q) {
				p = q
				continue
			}
			k++
		}
	}
	// 5. Functions no one calls.
	for i := len(p.Funcs) - 1; i >= 0 && tests < maxTests; i-- {
		if p.calls(p.Funcs[i].Name) {
			continue
		}
		q := p.clone()
		q.Funcs = append(q.Funcs[:i:i], q.Funcs[i+1:]...)
		if try(q) {
			p = q
		}
	}
	return p, tests
}

// setLaunch changes the launch and resizes the out buffer to match (each
// thread owns the same number of words).
func (p *Program) setLaunch(grid, block [3]int) {
	old := p.Launch.Threads() * p.Launch.CTAs()
	p.Launch.Grid, p.Launch.Block = grid, block
	now := p.Launch.Threads() * p.Launch.CTAs()
	for i := range p.Params {
		if p.Params[i].Name == "out" {
			p.Params[i].Count = p.Params[i].Count / old * now
		}
	}
}

// calls reports whether any function body calls the named function.
func (p *Program) calls(name string) bool {
	found := false
	visit := func(s Stmt) {
		if l, ok := s.(*Leaf); ok && l.Kind == "call" {
			for _, line := range l.Lines {
				if len(line) > 4 && line[:4] == "call" && containsWord(line, name) {
					found = true
				}
			}
		}
	}
	for _, f := range append(append([]*Func(nil), p.Funcs...), p.Kernel) {
		walkStmts(f.Body, visit)
	}
	return found
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i == 0 || !identChar(s[i-1])) && (i+len(w) == len(s) || !identChar(s[i+len(w)])) {
			return true
		}
	}
	return false
}

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// countStmts counts the statements of every function (bodies, then the
// kernel's observations).
func (p *Program) countStmts() int {
	n := 0
	for _, f := range append(append([]*Func(nil), p.Funcs...), p.Kernel) {
		walkStmts(f.Body, func(Stmt) { n++ })
		n += len(f.Observe)
	}
	return n
}

// deleteNth deletes the n-th statement in preorder over the functions
// (device functions first, then the kernel).
func (p *Program) deleteNth(n int) {
	var del func(ss []Stmt) []Stmt
	del = func(ss []Stmt) []Stmt {
		for i := 0; i < len(ss) && n >= 0; i++ {
			if n == 0 {
				n = -1
				return append(ss[:i:i], ss[i+1:]...)
			}
			n--
			for _, c := range children(ss[i]) {
				*c = del(*c)
			}
		}
		return ss
	}
	for _, f := range append(append([]*Func(nil), p.Funcs...), p.Kernel) {
		f.Body = del(f.Body)
		f.Observe = del(f.Observe)
	}
}

// clone returns a deep copy of the program's functions and parameters
// (statement lines are immutable strings and are shared).
func (p *Program) clone() *Program {
	q := *p
	q.Params = append([]Param(nil), p.Params...)
	q.Funcs = nil
	for _, f := range p.Funcs {
		q.Funcs = append(q.Funcs, f.clone())
	}
	q.Kernel = p.Kernel.clone()
	return &q
}

func (f *Func) clone() *Func {
	g := *f
	g.Body = cloneStmts(f.Body)
	g.Observe = cloneStmts(f.Observe)
	g.Setup = append([]*Leaf(nil), f.Setup...)
	g.Inits = append([]*Init(nil), f.Inits...)
	g.Decls = append([]string(nil), f.Decls...)
	return &g
}

func cloneStmts(ss []Stmt) []Stmt {
	if ss == nil {
		return nil
	}
	out := make([]Stmt, len(ss))
	for i, s := range ss {
		switch s := s.(type) {
		case *If:
			c := *s
			out[i] = &c
		case *Loop:
			c := *s
			out[i] = &c
		case *Switch:
			c := *s
			c.Arms = append([][]Stmt(nil), s.Arms...)
			out[i] = &c
		default:
			out[i] = s // leaves, breaks and continues are never edited
		}
		for _, c := range children(out[i]) {
			*c = cloneStmts(*c)
		}
	}
	return out
}

// funcAt returns device function i, or the kernel for i == len(Funcs).
func (p *Program) funcAt(i int) *Func {
	if i == len(p.Funcs) {
		return p.Kernel
	}
	return p.Funcs[i]
}

// setupUsers are the statement-kind prefixes that need a setup section.
var setupUsers = map[string][]string{
	"setup.local":  {"local."},
	"setup.shared": {"atomic.shared", "shared.counter"},
}

// setupUsed reports whether a statement of f needs the setup section of
// the given kind.
func (f *Func) setupUsed(kind string) bool {
	used := false
	walkStmts(f.Body, func(s Stmt) {
		for _, pre := range setupUsers[kind] {
			if strings.HasPrefix(s.kind(), pre) {
				used = true
			}
		}
	})
	return used
}

// dropSetup removes setup section k and the declaration it fills.
func (f *Func) dropSetup(k int) {
	decl := map[string]string{"setup.local": " loc[", "setup.shared": " shc["}[f.Setup[k].Kind]
	f.Setup = append(f.Setup[:k:k], f.Setup[k+1:]...)
	var keep []string
	for _, d := range f.Decls {
		if decl == "" || !strings.Contains(d, decl) {
			keep = append(keep, d)
		}
	}
	f.Decls = keep
}
