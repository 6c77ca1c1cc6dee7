package bisect

// The reducer's PTX rewriter: numbering a module's statements, copying it
// with statements replaced or deleted, and the operand edits the reducer
// tries. These functions know PTX and nothing of reduction; reduce.go
// decides what to try with them.

import (
	"strings"

	"orilab/pipeline/ptx"
)

// walk calls fn for every statement of every function body in source
// order, numbering them; a nested block counts as a statement before its
// own statements. The numbering is stable under rewrites that replace
// statements without deleting any.
func walk(m *ptx.Module, fn func(i int, s ptx.Stmt, list []ptx.Stmt, pos int)) {
	i := 0
	var block func(b *ptx.Block)
	block = func(b *ptx.Block) {
		for pos, s := range b.Stmts {
			fn(i, s, b.Stmts, pos)
			i++
			if sub, ok := s.(*ptx.Block); ok {
				block(sub)
			}
		}
	}
	for _, f := range m.Funcs() {
		if f.Body != nil {
			block(f.Body)
		}
	}
}

// rewrite returns a copy of m in which statement i (numbered as walk
// does) is replaced by edit(i, s), or deleted when edit returns nil.
// Nested blocks are never edited themselves, only their statements.
// Unchanged nodes are shared with m, which stays as it is.
func rewrite(m *ptx.Module, edit func(i int, s ptx.Stmt) ptx.Stmt) *ptx.Module {
	cp := *m
	cp.Items = make([]ptx.Item, len(m.Items))
	i := 0
	var block func(b *ptx.Block) *ptx.Block
	block = func(b *ptx.Block) *ptx.Block {
		nb := &ptx.Block{Pos: b.Pos}
		for _, s := range b.Stmts {
			k := i
			i++
			if sub, ok := s.(*ptx.Block); ok {
				nb.Stmts = append(nb.Stmts, block(sub))
				continue
			}
			if ns := edit(k, s); ns != nil {
				nb.Stmts = append(nb.Stmts, ns)
			}
		}
		return nb
	}
	for k, it := range m.Items {
		f, ok := it.(*ptx.Func)
		if !ok || f.Body == nil {
			cp.Items[k] = it
			continue
		}
		nf := *f
		nf.Body = block(f.Body)
		cp.Items[k] = &nf
	}
	return &cp
}

// countInstrs counts the instructions of every function body.
func countInstrs(m *ptx.Module) int {
	n := 0
	walk(m, func(_ int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		if _, ok := s.(*ptx.Instr); ok {
			n++
		}
	})
	return n
}

// keepsControl reports whether in must stay: ret and exit end the
// threads; without them a thread runs off the end of its function.
func keepsControl(in *ptx.Instr) bool { return in.Op == "ret" || in.Op == "exit" }

// referenced returns every name an instruction operand or a directive
// argument mentions (branch targets, branch-target tables, symbols).
func referenced(m *ptx.Module) map[string]bool {
	refs := map[string]bool{}
	var opnd func(o *ptx.Operand)
	opnd = func(o *ptx.Operand) {
		if o == nil {
			return
		}
		if o.Name != "" {
			refs[o.Name] = true
		}
		for _, e := range o.Elems {
			opnd(e)
		}
	}
	walk(m, func(_ int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		switch x := s.(type) {
		case *ptx.Instr:
			for _, a := range x.Args {
				opnd(a)
			}
		case *ptx.Directive:
			for _, a := range x.Args {
				refs[strings.TrimSpace(a)] = true
			}
		}
	})
	return refs
}

// immediatesFor returns the texts of 0 and 1 in the type of in's source
// operands (its last type modifier: the source type of a cvt), or nil
// when PTX has no immediate of that type.
func immediatesFor(in *ptx.Instr) []string {
	typ := ""
	for _, m := range in.Mods {
		switch m {
		case ".pred", ".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64",
			".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64":
			typ = m
		}
	}
	switch typ {
	case ".f32":
		return []string{"0f00000000", "0f3F800000"}
	case ".f64":
		return []string{"0d0000000000000000", "0d3FF0000000000000"}
	case ".pred", ".f16", ".f16x2", ".bf16", ".bf16x2", "":
		return nil
	}
	return []string{"0", "1"}
}

// replaceArg returns a copy of in whose argument k (element e of a
// vector when e >= 0) is the immediate text, or nil when that slot is
// not a name any more.
func replaceArg(in *ptx.Instr, k, e int, text string) *ptx.Instr {
	if k >= len(in.Args) {
		return nil
	}
	kind := ptx.OpInt
	if strings.HasPrefix(text, "0f") || strings.HasPrefix(text, "0d") {
		kind = ptx.OpFloat
	}
	imm := &ptx.Operand{Pos: in.Args[k].Pos, Kind: kind, Text: text}
	c := *in
	c.Args = append([]*ptx.Operand(nil), in.Args...)
	if e < 0 {
		if c.Args[k].Kind != ptx.OpName {
			return nil
		}
		c.Args[k] = imm
		return &c
	}
	v := *c.Args[k]
	if v.Kind != ptx.OpVec || e >= len(v.Elems) || v.Elems[e].Kind != ptx.OpName {
		return nil
	}
	v.Elems = append([]*ptx.Operand(nil), v.Elems...)
	v.Elems[e] = imm
	c.Args[k] = &v
	return &c
}
