package opt

// LateArchOptimizeFirst (phase 83), second step: fold a constant-bank
// addend into IMAD.WIDE at every add of a wide product, when the product
// is read by more than one add, or by one in another block.
//
// imadwide.go folds a wide product into the one 64-bit add that reads it,
// next to it. An element index is often scaled once and added to several
// bases, far apart; rodinia's needle kernels read and write two arrays at
// the same 16 offsets, with two loops between the loads and the stores:
//
//	BB2:  IMAD.WIDE %w.64 = %i, 0x4, RZ
//	      IADD3 %a, %p = %w, c[0x0][0x160], RZ
//	      IADD3.X %a[1] = %w[1], c[0x0][0x164], RZ, %p, !PT
//	      ...                                 (two loops with BAR.SYNC)
//	BB11: IADD3 %s, %q = %w, c[0x0][0x168], RZ
//	      IADD3.X %s[1] = %w[1], c[0x0][0x16c], RZ, %q, !PT
//
// The 64-bit product stays live from BB2 to BB11, two registers for each
// of the 16 offsets. ptxas 13.0.88 multiplies again at each add
// (`IMAD.WIDE R26, R13, R3, c[0x0][0x168]` after the loops), so only the
// 32-bit index is live across them: 32 registers against orilab's 48.
// This step does the same: each add pair becomes
//
//	MOV %t = 0x4                       (once per block and immediate)
//	IMAD.WIDE %a.64 = %i, %t, c[0x0][0x160]
//
// and the product's definition is deleted. Each add pair of two
// instructions becomes one IMAD.WIDE, so the code never grows by more
// than the shared MOVs, and the words live between the definition and
// the last add are the sources' (one for an immediate multiplier) instead
// of the product's two.
//
// Conditions: the IMAD.WIDE is unguarded with an RZ addend and the only
// definition of both words of its result; every read of the result is by
// an add pair imadWideAdd accepts, whose carry is read only by its
// IADD3.X, and the IMAD.WIDE dominates every pair. Each register word the
// IMAD.WIDE reads has a single definition, unguarded, that dominates the
// IMAD.WIDE. Then every add pair reads the same sources the IMAD.WIDE
// read: a definition executing again between the IMAD.WIDE's last
// execution and the add would give a path from the entry to the add
// that avoids the IMAD.WIDE (the path to that definition need not pass
// the IMAD.WIDE, which it dominates), and the IMAD.WIDE dominates the
// add.
//
// Knob: DisableIMADWideShared switches this step off (DisableIMADWideFold
// switches off both). Each product is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableIMADWideShared", Type: knobs.TypeBool,
		Doc:     "Switch off folding a constant-bank 64-bit add into IMAD.WIDE at each of several adds of one wide product, or at an add in another block (phase LateArchOptimizeFirst).",
		Readers: []string{"LateArchOptimizeFirst"}})
}

// iwSite is an add pair that reads a wide product: y at b.Insts[i], z
// right after it.
type iwSite struct {
	b  *ori.Block
	i  int
	cb ori.Operand
}

func foldIMADWideShared(f *ori.Func, c *Context) bool {
	if c.Bool("DisableIMADWideShared") {
		return false
	}
	var cands []*ori.Inst
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if iwProduct(in) {
				cands = append(cands, in)
			}
		}
	}
	if len(cands) == 0 {
		return false
	}
	// Only the words of the products and of their register sources are
	// asked about below (definitions, defining instruction), and only
	// the products' add pairs, the products and those definitions are
	// placed: the tables hold just them, not an entry per instruction
	// and per word of the function as they did.
	need := map[cmWord]bool{}
	prods := map[cmReg]bool{}
	for _, x := range cands {
		prods[cmRegOf(x.Dsts[0].Reg)] = true
		need[cmWordOf(x.Dsts[0].Reg, 0)], need[cmWordOf(x.Dsts[0].Reg, 1)] = true, true
		for _, o := range x.Srcs[:2] {
			if o.Kind == ori.OpdReg && o.Reg.Virtual {
				for k := 0; k < int(o.Reg.Words); k++ {
					need[cmWordOf(o.Reg, k)] = true
				}
			}
		}
	}
	defs := map[cmWord]int{}
	defBy := map[cmWord]*ori.Inst{}
	where := map[*ori.Inst]iwSite{}
	pairs := map[cmReg][]iwSite{}
	for _, b := range f.Blocks {
		for i, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					for k := 0; k < int(o.Reg.Words); k++ {
						if w := cmWordOf(o.Reg, k); need[w] {
							defs[w]++
							defBy[w] = in
							where[in] = iwSite{b: b, i: i}
						}
					}
				}
			}
			if i+1 < len(b.Insts) {
				if cb, w, ok := imadWideAdd(in, b.Insts[i+1]); ok && prods[cmRegOf(w)] {
					pairs[cmRegOf(w)] = append(pairs[cmRegOf(w)], iwSite{b: b, i: i, cb: cb})
					where[in] = iwSite{b: b, i: i}
				}
			}
		}
	}
	reads := virtualReads(f)
	var dom *ori.DomTree
	dominates := func(x, y *ori.Inst) bool {
		sx, sy := where[x], where[y]
		if sx.b == sy.b {
			return sx.i < sy.i
		}
		if dom == nil {
			dom = ori.Dominators(f)
		}
		return dom.Dominates(sx.b, sy.b)
	}
	// soleDominating: every word of r has one unguarded definition that
	// dominates x.
	soleDominating := func(r ori.Reg, x *ori.Inst) bool {
		for k := 0; k < int(r.Words); k++ {
			w := cmWordOf(r, k)
			d := defBy[w]
			if defs[w] != 1 || d.Guarded() || !dominates(d, x) {
				return false
			}
		}
		return true
	}
	// repl maps an add pair's IADD3 to the IMAD.WIDE that replaces the
	// pair; drop holds the IADD3.Xs and the deleted products.
	repl := map[*ori.Inst]*ori.Inst{}
	drop := map[*ori.Inst]bool{}
	for _, x := range cands {
		d := x.Dsts[0].Reg
		sites := pairs[cmRegOf(d)]
		if len(sites) == 0 || reads.of(cmRegOf(d)) != 2*len(sites) ||
			defs[cmWordOf(d, 0)] != 1 || defs[cmWordOf(d, 1)] != 1 {
			continue
		}
		ok := true
		for _, s := range sites {
			y := s.b.Insts[s.i]
			if reads.of(cmRegOf(y.Dsts[1].Reg)) != 1 || !dominates(x, y) {
				ok = false
				break
			}
		}
		for _, o := range x.Srcs[:2] {
			if o.Kind == ori.OpdReg && !o.Reg.IsZero() && (!o.Reg.Virtual || !soleDominating(o.Reg, x)) {
				ok = false
			}
		}
		if !ok || !c.Sites.Allow(f, x.ID, "fold a constant-bank 64-bit add into IMAD.WIDE at each add of a shared product") {
			continue
		}
		drop[x] = true
		for _, s := range sites {
			y, z := s.b.Insts[s.i], s.b.Insts[s.i+1]
			r := y.Dsts[0].Reg
			r.Words = 2
			nw := ori.NewInst(ori.OpIMAD, x.Mods...)
			nw.ID, nw.Line = y.ID, y.Line
			nw.Dsts = []ori.Operand{ori.R(r)}
			nw.Srcs = []ori.Operand{x.Srcs[0], x.Srcs[1], s.cb}
			repl[y] = nw
			drop[z] = true
		}
	}
	if len(drop) == 0 {
		return false
	}
	for _, b := range f.Blocks {
		edited := false
		for _, in := range b.Insts {
			if drop[in] || repl[in] != nil {
				edited = true
				break
			}
		}
		if !edited {
			continue
		}
		// One MOV per immediate multiplier and block: the first one
		// stays live to the block's last IMAD.WIDE that reads it.
		movs := map[ori.Operand]ori.Reg{}
		out := make([]*ori.Inst, 0, len(b.Insts))
		for _, in := range b.Insts {
			if drop[in] {
				continue
			}
			nw := repl[in]
			if nw == nil {
				out = append(out, in)
				continue
			}
			if m := nw.Srcs[1]; m.Kind == ori.OpdImm {
				t, ok := movs[m]
				if !ok {
					t = f.NewVReg(ori.ClassR, 1)
					mov := ori.NewInst(ori.OpMOV)
					mov.ID, mov.Line = f.NewID(), nw.Line
					mov.Dsts = []ori.Operand{ori.R(t)}
					mov.Srcs = []ori.Operand{m}
					out = append(out, mov)
					movs[m] = t
				}
				nw.Srcs[1] = ori.R(t)
			}
			out = append(out, nw)
		}
		b.Insts = out
	}
	return true
}

// iwProduct reports whether in is an unguarded IMAD.WIDE of a register
// and a register or immediate, with an RZ addend, into a virtual R pair.
func iwProduct(in *ori.Inst) bool {
	if in.Op != ori.OpIMAD || !in.HasMod("WIDE") || in.Guarded() || len(in.Dsts) != 1 || len(in.Srcs) != 3 {
		return false
	}
	d, a, m, c := in.Dsts[0], in.Srcs[0], in.Srcs[1], in.Srcs[2]
	return d.Kind == ori.OpdReg && d.Reg.Virtual && d.Reg.Class == ori.ClassR && d.Reg.Off == 0 && d.Reg.Words == 2 &&
		a.Kind == ori.OpdReg && a.Reg.Class == ori.ClassR && a.Reg.Words == 1 && !a.Neg &&
		(m.Kind == ori.OpdImm && m.FKind != ori.ImmF64 || m.Kind == ori.OpdReg && m.Reg.Class == ori.ClassR && m.Reg.Words == 1) && !m.Neg &&
		c.Kind == ori.OpdReg && c.Reg.IsZero()
}
