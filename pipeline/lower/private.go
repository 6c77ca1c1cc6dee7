package lower

import (
	"slices"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// Calls orilab sees whole take the return address in R2:R3.
//
// Measured with ptxas 13.0 (sm_80, -O3): a .func that is defined in the
// module, only called directly and not recursive gets a private calling
// convention. Its callers load the return point into R2 and zero into R3
// (MOV R2, 0x40; CALL.REL.NOINC) and it returns with RET.REL.NODEC R2,
// for .func and .visible .func alike; recursive and indirectly called
// functions keep the ABI's R20:R21 (retAddrABI). ptxas's private
// convention goes further (its arguments need not start at R4, and
// caller and callee share one register assignment); orilab keeps the
// ABI's argument registers and callee-saved R16-R31 and changes only the
// return-address pair.
//
// Decision: R2:R3 is below every register orilab allocates (R0-R3 are
// reserved, regalloc's reservedR) and below the argument registers, so
// it costs no register in the count and frees R20:R21 for values that
// live across the call; under the ABI the caller's R20:R21 write made
// every kernel with a call count at least 22 registers. With ptxas -c
// (relocatable code) a .visible .func keeps the ABI (measured: RET.ABS.
// NODEC R20), because another module may call it; orilab produces no
// relocatable code (its -c output is the whole-program one), so it
// follows ptxas's whole-program choice. A .weak function keeps the ABI:
// a linker may replace its definition.
const retAddrPrivate = ori.PrivateRetAddr

// privateFuncs returns the names of the functions whose calls use the
// private return-address pair: .funcs with a body, not .weak or .extern,
// whose name appears only as the target of direct calls (not in a mov,
// an initializer or a .calltargets list, any of which lets an indirect
// call reach it) and that cannot reach themselves through direct calls.
func privateFuncs(m *ptx.Module) map[string]bool {
	defs := map[string]*ptx.Func{}
	for _, f := range m.Funcs() {
		if f.Body != nil {
			defs[f.Name] = f
		}
	}
	isFunc := map[string]bool{}
	for _, f := range m.Funcs() {
		isFunc[f.Name] = true
	}
	taken := map[string]bool{}
	calls := map[string][]string{}
	var operand func(o *ptx.Operand)
	operand = func(o *ptx.Operand) {
		if o == nil {
			return
		}
		if o.Kind == ptx.OpName && isFunc[o.Name] {
			taken[o.Name] = true
		}
		for _, e := range o.Elems {
			operand(e)
		}
	}
	var initExpr func(in *ptx.Init)
	initExpr = func(in *ptx.Init) {
		if in == nil {
			return
		}
		operand(in.Expr)
		for _, e := range in.Elems {
			initExpr(e)
		}
	}
	varDecl := func(v *ptx.VarDecl) {
		for _, n := range v.Names {
			initExpr(n.Init)
		}
	}
	directive := func(d *ptx.Directive) {
		for _, a := range d.Args {
			if isFunc[a] {
				taken[a] = true
			}
		}
	}
	var block func(caller string, b *ptx.Block)
	block = func(caller string, b *ptx.Block) {
		for _, s := range b.Stmts {
			switch x := s.(type) {
			case *ptx.Block:
				block(caller, x)
			case *ptx.VarDecl:
				varDecl(x)
			case *ptx.Directive:
				directive(x)
			case *ptx.Instr:
				args := x.Args
				if x.Op == "call" {
					if t := directTarget(x); t != nil {
						calls[caller] = append(calls[caller], t.Name)
						args = slices.DeleteFunc(slices.Clone(args), func(o *ptx.Operand) bool { return o == t })
					}
				}
				for _, a := range args {
					operand(a)
				}
			}
		}
	}
	for _, it := range m.Items {
		switch x := it.(type) {
		case *ptx.VarDecl:
			varDecl(x)
		case *ptx.Directive:
			directive(x)
		case *ptx.Func:
			if x.Body != nil {
				block(x.Name, x.Body)
			}
		}
	}
	private := map[string]bool{}
	for name, f := range defs {
		if f.Entry || taken[name] || slices.Contains(f.Linkage, ".weak") || slices.Contains(f.Linkage, ".extern") {
			continue
		}
		if !reaches(calls, name, name) {
			private[name] = true
		}
	}
	return private
}

// directTarget returns the target operand of a direct call, or nil for
// an indirect one (which names a prototype or .calltargets list after
// its arguments) or a malformed one (lowerCall reports it).
func directTarget(in *ptx.Instr) *ptx.Operand {
	i := 0
	if i < len(in.Args) && in.Args[i].Kind == ptx.OpList {
		i++
	}
	if i >= len(in.Args) || in.Args[i].Kind != ptx.OpName {
		return nil
	}
	t := i
	i++
	if i < len(in.Args) && in.Args[i].Kind == ptx.OpList {
		i++
	}
	if i < len(in.Args) {
		return nil
	}
	return in.Args[t]
}

// reaches reports whether a chain of one or more direct calls leads from
// from to to.
func reaches(calls map[string][]string, from, to string) bool {
	seen := map[string]bool{}
	stack := slices.Clone(calls[from])
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == to {
			return true
		}
		if !seen[n] {
			seen[n] = true
			stack = append(stack, calls[n]...)
		}
	}
	return false
}
