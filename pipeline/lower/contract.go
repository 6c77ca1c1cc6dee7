package lower

// Contraction of a floating-point multiply and add into one fused
// multiply-add (FFMA, DFMA, HFMA2), as ptxas does by default (--fmad=true).
//
// PTX allows it: "mul/add/sub ... without a rounding modifier may be
// optimized aggressively by the code generator, e.g., mul and add may be
// contracted into fma"; an explicit .rn (or any rounding modifier) on
// either instruction forbids it. The fused result is rounded once, so it
// differs in the last bit from the two-step one: this is a change of
// meaning, not an optimization, and orilab makes it in one place, here.
//
// Decision: contraction happens at lowering, at every -O level, although
// ptxas 13.0.88 contracts only from -O1 on. Measured on this machine
// (ptxas -O0/-O1/-O3, -arch sm_80 and sm_90, cuobjdump -sass) on probe
// kernels of one mul feeding one add: -O0 keeps FMUL+FADD, DMUL+DADD,
// HMUL2+HADD2; -O1 and -O3 give FFMA, DFMA, HFMA2 (HFMA2.MMA for
// f16x2/bf16x2). orilab's executable IR needs one meaning per program:
// the oracle of the differential tester, bisection and every kernel
// spec compare each -O level with the IR right after lowering, and a
// fusion phase that runs at -O1 and above would make every mul+add
// program "miscompile" there. So orilab contracts what ptxas contracts
// at -O1 and above, at -O0 too; its -O0 code then has FFMA where ptxas's
// has FMUL+FADD. ptxas's default -O3 (what NVIDIA's JIT compiles with,
// and so what the hardware-truth programs ran) is the one matched. The
// FMAContraction knob (compile's --fmad=false sets it to false) turns
// contraction off at every level, as ptxas --fmad=false does.
//
// What ptxas 13.0 contracts (same probes, -O1 and -O3, sm_80 and sm_90):
//   - mul and add (or sub) of the same type, f32, f64, f16, f16x2, bf16
//     or bf16x2, neither with a rounding modifier (.rn on either, or .rz
//     on the add, keeps both);
//   - .ftz on both or on neither (mul.ftz with a plain add, or the other
//     way round, keeps both); the fused op carries .ftz;
//   - .sat on the add is kept on the fused op (FFMA.SAT, HFMA2.SAT);
//     .sat on the mul keeps both;
//   - sub: "a*b - c" is FFMA a, b, -c and "c - a*b" is FFMA -a, b, c;
//   - a product used by several adds is folded into each of them (the
//     FMUL disappears); a product with any other use (a store, or "add d,
//     p, p") keeps the FMUL and every FADD;
//   - an add of two products folds its first operand's product;
//   - the mul and the add may sit in different blocks.
// Not modelled: "neg.f32 n, p; add.f32 d, n, c", which ptxas also folds
// (FFMA -a, b, c); orilab keeps the three instructions there.
//
// ptxas decides on SSA form; the PTX here is not in SSA, so the plan
// asks for what makes the fold safe in the text: the product register
// has one definition in the function (the mul, unguarded) and it
// reaches every use; every statement on a path from the mul to an add
// leaves the mul's source registers alone, so the FFMA at the add reads
// the values the mul would have read; the mul comes first in the text,
// so its lowered operands are at hand when the add is lowered; no
// nested { } block declares a register of the same name (the analysis
// works on names).

import (
	"slices"
	"strconv"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// contraction is one add (or sub) that is lowered as a fused multiply-add.
type contraction struct {
	mul *ptx.Instr
	arg int // the add's operand (1 or 2) that is the product
}

// contractPlan is a function's contractions, found before it is lowered.
type contractPlan struct {
	adds map[*ptx.Instr]contraction
	// folded are the muls whose every use is contracted: they emit
	// nothing, and their lowered operands are kept in srcs for the adds.
	folded map[*ptx.Instr]bool
	srcs   map[*ptx.Instr][2]ori.Operand
}

// contractible reports whether in is a float mul, add or sub that PTX
// lets the code generator contract: no rounding modifier, of a type with
// a fused multiply-add.
func contractible(in *ptx.Instr) bool {
	if in.Op != "mul" && in.Op != "add" && in.Op != "sub" {
		return false
	}
	if len(in.Args) != 3 || flKind(lastType(in)) == 0 || flRnd(in) != "" {
		return false
	}
	for _, a := range in.Args {
		switch a.Kind {
		case ptx.OpName:
			if a.Neg || a.Not || a.Comp != "" || a.HasIdx || a.HasOff {
				return false
			}
		case ptx.OpInt, ptx.OpFloat:
		default:
			return false
		}
	}
	return in.Args[0].Kind == ptx.OpName
}

// contractions returns the function's plan, built on first use.
func (c *fn) contractions() *contractPlan {
	if c.cplan != nil {
		return c.cplan
	}
	p := &contractPlan{adds: map[*ptx.Instr]contraction{}, folded: map[*ptx.Instr]bool{}, srcs: map[*ptx.Instr][2]ori.Operand{}}
	c.cplan = p
	if c.l.opts.NoContract {
		return p
	}
	// Only the products of muls that may fold are asked about below: a
	// function without one has no contraction, and the counts are kept
	// for those names alone (counting every register of every function
	// was most of the lowering's map traffic).
	var prods map[string]bool
	var scan func(b *ptx.Block)
	scan = func(b *ptx.Block) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Block:
				scan(s)
			case *ptx.Instr:
				if mayFold(s) {
					if prods == nil {
						prods = map[string]bool{}
					}
					prods[s.Args[0].Name] = true
				}
			}
		}
	}
	if c.pf.Body != nil {
		scan(c.pf.Body)
	}
	if prods == nil {
		return p
	}
	g := c.flow()
	inner := innerRegDecls(c.pf.Body)
	// defs counts the definitions of each product; uses lists the
	// instructions that read it (once per instruction).
	defs := map[string]int{}
	uses := map[string][]*ptx.Instr{}
	var seen []string // the products in read so far
	for _, s := range g.stmts {
		in, ok := s.(*ptx.Instr)
		if !ok {
			continue
		}
		seen = seen[:0]
		for i, a := range in.Args {
			forNames(a, func(n string) {
				if !prods[n] {
					return
				}
				if i == 0 && ptxDefines(in, n) {
					defs[n]++
					return
				}
				if !slices.Contains(seen, n) {
					seen = append(seen, n)
					uses[n] = append(uses[n], in)
				}
			})
		}
		if in.Guard != nil && prods[in.Guard.Reg] && !slices.Contains(seen, in.Guard.Reg) {
			uses[in.Guard.Reg] = append(uses[in.Guard.Reg], in)
		}
	}
	// Candidate muls, in the order of the text, and the adds each would
	// fold into; byName finds a candidate by its product (which has one
	// definition, so the name is the mul's alone).
	var order []*ptx.Instr
	cand := map[*ptx.Instr][]*ptx.Instr{}
	byName := map[string]*ptx.Instr{}
	for _, s := range g.stmts {
		m, ok := s.(*ptx.Instr)
		if !ok || !mayFold(m) {
			continue
		}
		d := m.Args[0].Name
		if defs[d] != 1 || inner(d) || len(uses[d]) == 0 {
			continue
		}
		ok = true
		for _, a := range m.Args[1:] {
			if a.Kind == ptx.OpName && inner(a.Name) {
				ok = false
			}
		}
		for _, u := range uses[d] {
			if !ok {
				break
			}
			ok = c.canFold(m, u)
		}
		if ok {
			cand[m] = uses[d]
			byName[d] = m
			order = append(order, m)
		}
	}
	// An add of two products folds the first one that is a candidate: a
	// mul stays a candidate only while every add it feeds picks it. The
	// muls are visited in the order of the text, so the outcome does not
	// depend on map order.
	pick := func(u *ptx.Instr) *ptx.Instr {
		for _, a := range u.Args[1:] {
			if m := byName[a.Name]; a.Kind == ptx.OpName && m != nil {
				return m
			}
		}
		return nil
	}
	for changed := true; changed; {
		changed = false
		for _, m := range order {
			adds, ok := cand[m]
			if !ok {
				continue
			}
			for _, u := range adds {
				if pick(u) != m {
					delete(cand, m)
					delete(byName, m.Args[0].Name)
					changed = true
					break
				}
			}
		}
	}
	for _, m := range order {
		adds, ok := cand[m]
		if !ok {
			continue
		}
		p.folded[m] = true
		for _, u := range adds {
			arg := 1
			if u.Args[1].Kind != ptx.OpName || u.Args[1].Name != m.Args[0].Name {
				arg = 2
			}
			p.adds[u] = contraction{mul: m, arg: arg}
		}
	}
	return p
}

// mayFold reports whether m is a mul whose product may be folded into the
// adds that read it (contractions decides whether it is).
func mayFold(m *ptx.Instr) bool {
	return m.Op == "mul" && m.Guard == nil && contractible(m) && !m.HasMod(".sat")
}

// canFold reports whether u, a use of mul m's product, can become a fused
// multiply-add of m's operands.
func (c *fn) canFold(m, u *ptx.Instr) bool {
	if u.Op != "add" && u.Op != "sub" || !contractible(u) || lastType(u) != lastType(m) || u.HasMod(".ftz") != m.HasMod(".ftz") {
		return false
	}
	d := m.Args[0].Name
	n := 0
	for _, a := range u.Args[1:] {
		if a.Kind == ptx.OpName && a.Name == d {
			n++
		}
	}
	if n != 1 {
		return false
	}
	g := c.flow()
	mi, ui := g.at[m], g.at[u]
	if mi >= ui {
		return false
	}
	// Every statement between the mul and the add, on any path: walk
	// back from the add and stop at the mul (the only definition of the
	// product, so every path from the entry to the add passes it).
	var srcs []string
	for _, a := range m.Args[1:] {
		if a.Kind == ptx.OpName {
			srcs = append(srcs, a.Name)
		}
	}
	seen := map[int]bool{mi: true}
	stack := []int{ui}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range g.preds[i] {
			if seen[p] {
				continue
			}
			seen[p] = true
			if in, ok := g.stmts[p].(*ptx.Instr); ok {
				for _, s := range srcs {
					if ptxDefines(in, s) {
						return false
					}
				}
			}
			stack = append(stack, p)
		}
	}
	// A path from the entry that avoids the mul reads an undefined
	// product: leave such an add alone.
	return !seen[0] || mi == 0
}

// forNames calls f with every register name operand a mentions (in
// vectors, lists, pairs and addresses too).
func forNames(a *ptx.Operand, f func(string)) {
	if a.Kind == ptx.OpName {
		f(a.Name)
	}
	for _, e := range a.Elems {
		forNames(e, f)
	}
}

// innerRegDecls returns a test for the register names that a nested
// { } block of body declares (%r<N> declares %r0..%r(N-1)).
func innerRegDecls(body *ptx.Block) func(string) bool {
	exact := map[string]bool{}
	ranges := map[string]int{}
	var walk func(b *ptx.Block, nested bool)
	walk = func(b *ptx.Block, nested bool) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Block:
				walk(s, true)
			case *ptx.VarDecl:
				if !nested || s.Space != ".reg" {
					continue
				}
				for _, n := range s.Names {
					if n.Range > 0 {
						ranges[n.Name] = max(ranges[n.Name], n.Range)
					} else {
						exact[n.Name] = true
					}
				}
			}
		}
	}
	if body != nil {
		walk(body, false)
	}
	return declaredIn(exact, ranges)
}

// declaredIn returns the test of whether a register name is declared by
// the names in exact or the parameterized ranges (%r<N>: prefix -> N).
func declaredIn(exact map[string]bool, ranges map[string]int) func(string) bool {
	return func(name string) bool {
		if exact[name] {
			return true
		}
		if len(ranges) == 0 {
			return false
		}
		j := len(name)
		for j > 0 && name[j-1] >= '0' && name[j-1] <= '9' {
			j--
		}
		if j == len(name) || j == 0 {
			return false
		}
		r, ok := ranges[name[:j]]
		if !ok {
			return false
		}
		k, err := strconv.Atoi(name[j:])
		return err == nil && k < r
	}
}

// contractMul handles a mul of the plan: it records the lowered operands
// for the adds and emits nothing. It reports whether in was one.
func (c *fn) contractMul(in *ptx.Instr, t string) (bool, error) {
	p := c.contractions()
	if !p.folded[in] {
		return false, nil
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return true, err
	}
	a, b := flImmSecond(s[0], s[1])
	p.srcs[in] = [2]ori.Operand{a, b}
	return true, nil
}

// contractAdd lowers an add or sub of the plan as a fused multiply-add
// into d. It reports whether in was one.
func (c *fn) contractAdd(in *ptx.Instr, t string, d ori.Reg) (bool, error) {
	p := c.contractions()
	k, ok := p.adds[in]
	if !ok {
		return false, nil
	}
	ab, ok := p.srcs[k.mul]
	if !ok {
		return true, c.l.errorf(in.OpPos, "internal error: the product of %s is used before its mul was lowered", in.Args[k.arg].Name)
	}
	a, b := ab[0], ab[1]
	other, err := c.src(in.Args[3-k.arg], t)
	if err != nil {
		return true, err
	}
	if in.Op == "sub" {
		if k.arg == 1 {
			other = c.flNeg(other, t) // a*b - c
		} else {
			a = c.flNeg(a, t) // c - a*b
		}
	}
	ftz, sat := in.HasMod(".ftz"), in.HasMod(".sat")
	switch flKind(t) {
	case 32:
		c.flOp(ori.OpFFMA, flMods(ftz, "", sat), d, a, b, other)
	case 64:
		c.flOp(ori.OpDFMA, nil, d, a, b, other)
	default:
		c.flOp(ori.OpHFMA2, flHMods(t, ftz, sat, false), d, a, b, other)
	}
	return true, nil
}
