package lower

import (
	"fmt"
	"slices"
	"strings"

	"orilab/pipeline/ptx"
)

// inlineBRXFuncs returns m with every direct call of a .func that holds
// an indirect branch (brx.idx) replaced by the function's body, and such
// a function dropped once no call names it (or when none ever did). m
// itself is not changed.
//
// Decision: ptxas 13.0.88 (sm_80 and sm_90, -O0 and -O3, brx.idx in a
// .func or .visible .func called from a kernel; cuobjdump -sass and -elf)
// emits no .text.FUNC for such a function: one copy of it lies inside
// .text.KERNEL after the kernel's EXIT, reached by CALL.REL.NOINC, and its
// jump table is in .nv.constant2.KERNEL with the targets' offsets from
// the kernel's start and no relocation (testdata/kernels/brx_func.ptx:
// two calls, one BRX, only .text.brx_func, at both levels on both
// targets). Every calling kernel thus has its own copy, and the table is
// read from the launched kernel's bank 2, which a BRX in a separately
// emitted .func cannot do (see jumpTables in pipeline/mercfixup.go).
// orilab writes each .func once, in its own section, and has no
// per-kernel copy of a callee; it gives each caller its own copy by
// inlining instead, here in the lowering so that it happens at every -O
// level (ptxas's placement does not depend on the level either). The
// difference from ptxas: one copy per call, not per kernel, so a kernel
// that calls such a function n times holds n copies of its code and n
// tables where ptxas holds one. Only functions every call sees whole are
// inlined (privateFuncs: defined here, not .weak, not address-taken, not
// recursive), and only at calls whose arguments and results are .param
// variables of the call's own block and that carry no guard; any other
// call keeps the CALL, and the encoder's refusal of its BRX stands with
// its reason.
//
// The body goes into a nested block, so its declarations shadow the
// caller's as PTX scoping prescribes; its labels get a suffix that no
// label of the caller has, its parameters become the call's .param
// variables, and each ret becomes a branch to the block's end.
func inlineBRXFuncs(m *ptx.Module) *ptx.Module {
	private := privateFuncs(m)
	defs := map[string]*ptx.Func{}
	for _, f := range m.Funcs() {
		if f.Body != nil {
			defs[f.Name] = f
		}
	}
	want := map[string]bool{}
	for name := range private {
		if f := defs[name]; f != nil && hasBRX(f.Body) && inlinable(f) {
			want[name] = true
		}
	}
	if len(want) == 0 {
		return m
	}
	out := *m
	out.Items = slices.Clone(m.Items)
	seq := 0
	inlined := map[string]bool{}
	// A function may call another that is inlined; rounds repeat until
	// no call of a wanted function can be replaced (the call graph of
	// private functions is acyclic, so len(defs) rounds suffice).
	for round := 0; round <= len(defs); round++ {
		changed := false
		cur := map[string]*ptx.Func{}
		for _, it := range out.Items {
			if f, ok := it.(*ptx.Func); ok && f.Body != nil {
				cur[f.Name] = f
			}
		}
		// A function that gained a brx from an inlined callee is wanted
		// too when it is private.
		for name := range private {
			if f := cur[name]; f != nil && !want[name] && hasBRX(f.Body) && inlinable(f) {
				want[name] = true
			}
		}
		for i, it := range out.Items {
			f, ok := it.(*ptx.Func)
			if !ok || f.Body == nil {
				continue
			}
			labels := map[string]bool{}
			collectLabels(f.Body, labels)
			nb, did := inlineCalls(f.Body, cur, want, labels, &seq, inlined)
			if did {
				nf := *f
				nf.Body = nb
				out.Items[i] = &nf
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	// Drop the wanted functions no call names any more: those inlined
	// everywhere, and those nothing called (ptxas 13.0.88 -O0 and -O3,
	// sm_80 and sm_90, writes no .text section for an uncalled .func, nor
	// for an uncalled .visible .func: measured on
	// testdata/fuzzfindings/regalloc-implicit-argument/shrunk.ptx, whose
	// fn1 and fn2 nothing calls, with and without .visible on fn2).
	named := map[string]bool{}
	for _, it := range out.Items {
		if f, ok := it.(*ptx.Func); ok && f.Body != nil {
			namesIn(f.Body, named)
		}
	}
	out.Items = slices.DeleteFunc(out.Items, func(it ptx.Item) bool {
		f, ok := it.(*ptx.Func)
		return ok && want[f.Name] && !named[f.Name]
	})
	return &out
}

// hasBRX reports whether b holds a brx instruction.
func hasBRX(b *ptx.Block) bool {
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Block:
			if hasBRX(x) {
				return true
			}
		case *ptx.Instr:
			if x.Op == "brx" {
				return true
			}
		}
	}
	return false
}

// inlinable reports whether f's body can be copied into a caller: its
// parameters appear only as the address of ld.param/st.param, and it
// declares nothing outside registers, .local and .param variables
// (a .shared or .global declaration would be duplicated).
func inlinable(f *ptx.Func) bool {
	params := map[string]bool{}
	for _, p := range append(slices.Clone(f.Params), f.Rets...) {
		for _, n := range p.Names {
			params[n.Name] = true
		}
	}
	ok := true
	var operand func(o *ptx.Operand, addrOK bool)
	operand = func(o *ptx.Operand, addrOK bool) {
		if o == nil {
			return
		}
		if o.Kind == ptx.OpName && params[o.Name] && !addrOK {
			ok = false
		}
		for _, e := range o.Elems {
			operand(e, addrOK && o.Kind == ptx.OpAddr)
		}
	}
	var block func(b *ptx.Block)
	block = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch x := s.(type) {
			case *ptx.Block:
				block(x)
			case *ptx.VarDecl:
				switch x.Space {
				case ".reg", ".local", ".param":
				default:
					ok = false
				}
			case *ptx.Instr:
				for _, a := range x.Args {
					operand(a, x.Op == "ld" || x.Op == "st")
				}
			}
		}
	}
	block(f.Body)
	return ok
}

// collectLabels adds the labels defined in b to set.
func collectLabels(b *ptx.Block, set map[string]bool) {
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Block:
			collectLabels(x, set)
		case *ptx.Label:
			set[x.Name] = true
		case *ptx.Directive:
			if x.Label != "" {
				set[x.Label] = true
			}
		}
	}
}

// namesIn adds every name operand and directive argument in b to set.
func namesIn(b *ptx.Block, set map[string]bool) {
	var operand func(o *ptx.Operand)
	operand = func(o *ptx.Operand) {
		if o == nil {
			return
		}
		if o.Kind == ptx.OpName || o.Kind == ptx.OpGeneric {
			set[o.Name] = true
		}
		for _, e := range o.Elems {
			operand(e)
		}
	}
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Block:
			namesIn(x, set)
		case *ptx.Directive:
			for _, a := range x.Args {
				set[a] = true
			}
		case *ptx.Instr:
			for _, a := range x.Args {
				operand(a)
			}
		}
	}
}

// inlineCalls returns a copy of b with the replaceable calls of wanted
// functions inlined, and whether any was.
func inlineCalls(b *ptx.Block, defs map[string]*ptx.Func, want, labels map[string]bool, seq *int, inlined map[string]bool) (*ptx.Block, bool) {
	nb := &ptx.Block{Pos: b.Pos}
	did := false
	params := map[string]bool{}
	for _, s := range b.Stmts {
		if v, ok := s.(*ptx.VarDecl); ok && v.Space == ".param" {
			for _, n := range v.Names {
				params[n.Name] = true
			}
		}
	}
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Block:
			sub, d := inlineCalls(x, defs, want, labels, seq, inlined)
			nb.Stmts = append(nb.Stmts, sub)
			did = did || d
			continue
		case *ptx.Instr:
			if x.Op == "call" && x.Guard == nil {
				if t := directTarget(x); t != nil && want[t.Name] && defs[t.Name] != nil {
					if body := inlineBody(x, defs[t.Name], params, labels, seq); body != nil {
						nb.Stmts = append(nb.Stmts, body)
						inlined[t.Name] = true
						did = true
						continue
					}
				}
			}
		}
		nb.Stmts = append(nb.Stmts, s)
	}
	return nb, did
}

// inlineBody returns the block that replaces call to callee, or nil where
// the call's arguments or results are not .param variables of its block
// or the callee's declarations would hide them.
func inlineBody(call *ptx.Instr, callee *ptx.Func, params, labels map[string]bool, seq *int) *ptx.Block {
	var rets, args *ptx.Operand
	i := 0
	if i < len(call.Args) && call.Args[i].Kind == ptx.OpList {
		rets = call.Args[i]
		i++
	}
	i++ // the target
	if i < len(call.Args) && call.Args[i].Kind == ptx.OpList {
		args = call.Args[i]
	}
	subst := map[string]string{}
	bind := func(list *ptx.Operand, decls []*ptx.VarDecl) bool {
		n := 0
		if list != nil {
			n = len(list.Elems)
		}
		if n != len(decls) {
			return false
		}
		for k, d := range decls {
			e := list.Elems[k]
			if e.Kind != ptx.OpName || e.HasOff || e.HasIdx || !params[e.Name] || len(d.Names) != 1 {
				return false
			}
			subst[d.Names[0].Name] = e.Name
		}
		return true
	}
	if !bind(args, callee.Params) || !bind(rets, callee.Rets) {
		return nil
	}
	// The callee's own declarations must not hide the call's .param
	// variables that its parameters now name.
	hidden := false
	var decls func(b *ptx.Block)
	decls = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch x := s.(type) {
			case *ptx.Block:
				decls(x)
			case *ptx.VarDecl:
				for _, n := range x.Names {
					for _, a := range subst {
						if a == n.Name || (n.Range > 0 && strings.HasPrefix(a, n.Name) && strings.Trim(a[len(n.Name):], "0123456789") == "") {
							hidden = true
						}
					}
				}
			}
		}
	}
	decls(callee.Body)
	if hidden {
		return nil
	}
	var suffix string
	for {
		*seq++
		suffix = fmt.Sprintf("$inl%d", *seq)
		clash := false
		for l := range labels {
			if strings.HasSuffix(l, suffix) {
				clash = true
				break
			}
		}
		if !clash {
			break
		}
	}
	own := map[string]bool{}
	collectLabels(callee.Body, own)
	end := "$inl_end" + suffix
	labels[end] = true
	for l := range own {
		labels[l+suffix] = true
	}
	rename := func(name string) string {
		if own[name] {
			return name + suffix
		}
		if a, ok := subst[name]; ok {
			return a
		}
		return name
	}
	body := copyBlock(callee.Body, rename, end, call.Pos)
	body.Stmts = append(body.Stmts, &ptx.Label{Pos: call.Pos, Name: end})
	return body
}

// copyBlock copies b with names renamed and each ret turned into a
// branch to end.
func copyBlock(b *ptx.Block, rename func(string) string, end string, pos ptx.Pos) *ptx.Block {
	nb := &ptx.Block{Pos: b.Pos}
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.Block:
			nb.Stmts = append(nb.Stmts, copyBlock(x, rename, end, pos))
		case *ptx.Label:
			nb.Stmts = append(nb.Stmts, &ptx.Label{Pos: x.Pos, Name: rename(x.Name)})
		case *ptx.Directive:
			d := *x
			if d.Label != "" {
				d.Label = rename(d.Label)
			}
			d.Args = slices.Clone(x.Args)
			for k, a := range d.Args {
				d.Args[k] = rename(a)
			}
			nb.Stmts = append(nb.Stmts, &d)
		case *ptx.Instr:
			in := *x
			if x.Op == "ret" {
				in.Op = "bra"
				in.Mods = nil
				if slices.Contains(x.Mods, ".uni") {
					in.Mods = []string{".uni"}
				}
				in.Args = []*ptx.Operand{{Pos: x.Pos, Kind: ptx.OpName, Name: end}}
			} else {
				in.Args = make([]*ptx.Operand, len(x.Args))
				for k, a := range x.Args {
					in.Args[k] = copyOperand(a, rename)
				}
			}
			nb.Stmts = append(nb.Stmts, &in)
		default:
			nb.Stmts = append(nb.Stmts, s)
		}
	}
	return nb
}

func copyOperand(o *ptx.Operand, rename func(string) string) *ptx.Operand {
	if o == nil {
		return nil
	}
	n := *o
	if n.Kind == ptx.OpName {
		n.Name = rename(n.Name)
	}
	if o.Elems != nil {
		n.Elems = make([]*ptx.Operand, len(o.Elems))
		for k, e := range o.Elems {
			n.Elems[k] = copyOperand(e, rename)
		}
	}
	return &n
}
