package lower

import "orilab/pipeline/ptx"

// SharedUsage returns, per kernel of m, the static shared memory ptxas
// charges it in its -v line ("N bytes smem"): the .shared variables
// declared in the kernel and the functions it calls (transitively), then
// the module-scope .shared variables they name, each in declaration order
// and aligned. Module-scope variables no reachable code names cost
// nothing; .extern .shared arrays (dynamic shared memory) are not static,
// but in a module that declares one the static part is rounded up to 16. The order and the rules were measured with ptxas 13.0.88 -v:
// tile[100] (align 8) and odd[6] (align 2) give 106 bytes, a kernel's own
// [12] with tile gives 116 (own first), and a kernel's own unused [64]
// is still charged.
//
// Decision: this is ptxas's accounting, not orilab's layout. orilab gives
// every kernel the whole module's shared window (layoutShared), which is
// why -v used to charge every kernel of transposeNew.ptx 25,088 bytes
// where ptxas 13.0.88 reports 4,224, 4,096 or 0 (it counts only what the
// kernel uses; measured with `ptxas -arch=sm_80 -v` on the corpus). The
// report follows ptxas; the simulator's window is at least as large, so
// every offset the code uses is inside it.
func SharedUsage(m *ptx.Module) map[string]int64 {
	type svar struct {
		decl *ptx.VarDecl
		name *ptx.VarName
	}
	var module []svar
	moduleByName := map[string]int{}
	dynamic := false // the module declares dynamic shared memory
	isDynamic := func(v svar) bool { return isExtern(v.decl) && len(v.name.Dims) > 0 && v.name.Dims[0] < 0 }
	for _, it := range m.Items {
		if v, ok := it.(*ptx.VarDecl); ok && v.Space == ".shared" {
			for _, n := range v.Names {
				moduleByName[n.Name] = len(module)
				module = append(module, svar{v, n})
				dynamic = dynamic || isDynamic(svar{v, n})
			}
		}
	}
	funcs := map[string]*ptx.Func{}
	for _, f := range m.Funcs() {
		if f.Body != nil {
			funcs[f.Name] = f
		}
	}
	// Per function: the module variables it names, its own variables it
	// names (in declaration order) and the functions it names.
	type refs struct {
		module  map[int]bool
		own     []svar
		callees []string
	}
	per := map[string]*refs{}
	for name, f := range funcs {
		r := &refs{module: map[int]bool{}}
		own := map[string]svar{}
		var order []string
		named := map[string]bool{}
		var operand func(o *ptx.Operand)
		operand = func(o *ptx.Operand) {
			if o == nil {
				return
			}
			if o.Name != "" {
				named[o.Name] = true
			}
			for _, e := range o.Elems {
				operand(e)
			}
		}
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch x := s.(type) {
				case *ptx.VarDecl:
					if x.Space == ".shared" {
						for _, n := range x.Names {
							own[n.Name] = svar{x, n}
							order = append(order, n.Name)
						}
					}
				case *ptx.Instr:
					for _, a := range x.Args {
						operand(a)
					}
				case *ptx.Block:
					walk(x)
				}
			}
		}
		walk(f.Body)
		for _, n := range order {
			r.own = append(r.own, own[n])
		}
		for n := range named {
			if _, shadowed := own[n]; shadowed {
				continue
			}
			if i, ok := moduleByName[n]; ok {
				r.module[i] = true
			}
			if _, ok := funcs[n]; ok && n != name {
				r.callees = append(r.callees, n)
			}
		}
		per[name] = r
	}
	out := map[string]int64{}
	for name, f := range funcs {
		if !f.Entry {
			continue
		}
		reach := map[string]bool{name: true}
		work := []string{name}
		for len(work) > 0 {
			g := work[len(work)-1]
			work = work[:len(work)-1]
			for _, c := range per[g].callees {
				if !reach[c] {
					reach[c] = true
					work = append(work, c)
				}
			}
		}
		var size int64
		add := func(v svar) {
			if isDynamic(v) {
				return
			}
			size = alignUp(size, declAlign(v.decl)) + declSize(v.decl, v.name)
		}
		// Functions' own variables first, in the module's function order,
		// then the module's.
		for _, g := range m.Funcs() {
			if g.Body != nil && reach[g.Name] {
				for _, v := range per[g.Name].own {
					add(v)
				}
			}
		}
		for i, v := range module {
			for g := range reach {
				if per[g].module[i] {
					add(v)
					break
				}
			}
		}
		// Dynamic shared memory starts 16-aligned after the static part,
		// and ptxas charges the padding to every kernel of a module that
		// declares an .extern .shared array, named or not: ZLUDA's
		// shared_unify_local (8 bytes) and scanLargeArray's uniformAdd (4
		// bytes, the extern array named only by other kernels) report 16,
		// a kernel with 6 bytes reports 6 without the declaration and 16
		// with it, and one with none reports none either way.
		if dynamic {
			size = alignUp(size, 16)
		}
		out[name] = size
	}
	return out
}
