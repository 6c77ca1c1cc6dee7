package ptxgen

// Predicated partial definitions and more 16-bit scalar arithmetic: the
// statement kinds "partial.*" and "b16x.*".
//
// A partial definition is a register that only a guarded instruction
// defines ("@%p add.s16 %rs9, ..."), so that on the paths where the guard
// is false it holds no defined value, and that is then read:
//
//   - "partial.selp": unguarded, by a selp (or for a predicate, an
//     and/or with the guard) that takes it only where the guard was
//     true. The read itself is of an undefined value on some threads,
//     which PTX allows; the result never depends on it. This is what
//     testdata/lower/int_div.ptx and bits_logic.ptx do (without the
//     selp), and what the post-RA verifier once rejected at every -O
//     level, a class no generated program reached before;
//   - "partial.guarded": under the same guard, so it reads only the
//     defined value;
//   - "partial.complement": after a definition under the opposite guard,
//     so it is defined everywhere (the if-converted form of an if-else).
//
// The 16-bit statements ("b16x.*") add what the b16 family lacks:
// division and remainder (divisors kept at magnitude 2 or more, so never
// 0 or -1), mad, sad, abs, neg, not, cnot and selp on .u16/.s16.
//
// Decision: these statements are added to a function after its body is
// generated, at random places of its statement tree, drawing from a
// random stream of their own (Generate's fork 5, after everything else),
// rather than as a new family of the Profile. A new family would shift
// every later draw of stmt and change every program; this way a seed's
// program keeps every statement it had, and gains some of these in about
// two functions of three.

// partialFuncPercent is the share of functions that get these statements.
const partialFuncPercent = 65

// addPartials inserts partial definitions and 16-bit statements into
// every function of the program, drawing from r.
func (g *gen) addPartials(r *rng) {
	fns := append(append([]*Func(nil), g.p.Funcs...), g.p.Kernel)
	for i, f := range fns {
		fr := r.fork(uint64(i))
		if !fr.percent(partialFuncPercent) {
			continue
		}
		fg := &fgen{g: g, f: f, r: fr, kernel: f.Entry}
		for _, in := range f.Inits {
			fg.state[in.Class] = append(fg.state[in.Class], in.Var)
		}
		n := fr.rangeIn(1, 4)
		for k := 0; k < n; k++ {
			var l *Leaf
			if fr.percent(70) {
				l = fg.partialLeaf()
				if g.avoid["partial-definitions"] {
					// Drawn but left out, so that everything else
					// stays as it is without the option.
					continue
				}
			} else {
				l = fg.b16xLeaf()
			}
			lists := stmtLists(&f.Body)
			at := lists[fr.intn(len(lists))]
			i := fr.intn(len(*at) + 1)
			*at = append((*at)[:i], append([]Stmt{l}, (*at)[i:]...)...)
		}
	}
}

// stmtLists returns every statement list of a body, the body first.
func stmtLists(body *[]Stmt) []*[]Stmt {
	out := []*[]Stmt{body}
	for _, s := range *body {
		for _, c := range children(s) {
			out = append(out, stmtLists(c)...)
		}
	}
	return out
}

// partialClasses are the classes of partially defined registers, with
// weights: 16-bit and 32-bit integers most.
var partialClasses = []struct {
	c Class
	w int
}{{ClassB16, 35}, {ClassB32, 30}, {ClassB64, 12}, {ClassF32, 13}, {ClassPred, 10}}

// partialLeaf defines a fresh register under a guard and reads it in one
// of the three ways the file comment lists.
func (fg *fgen) partialLeaf() *Leaf {
	r := fg.r
	ws := make([]int, len(partialClasses))
	for i, pc := range partialClasses {
		ws[i] = pc.w
	}
	c := partialClasses[r.weighted(ws)].c
	lines, p := fg.cond()
	neg := r.percent(40)
	g, ng := guard(p, neg), guard(p, !neg)
	t := fg.tmp(c)
	pre, def := fg.partialDef(c, t)
	lines = append(lines, pre...)
	lines = append(lines, g+" "+def)
	d := fg.sv(c)
	ty := partialType(c)
	switch r.intn(3) {
	case 0:
		if c == ClassPred {
			// Where the guard was false the result is the guard's
			// own value, whatever t holds.
			if neg {
				lines = append(lines, sprintf("or.pred %s, %s, %s;", d, t, p))
			} else {
				lines = append(lines, sprintf("and.pred %s, %s, %s;", d, t, p))
			}
		} else {
			other := fg.src(c)
			a, b := t, other
			if neg {
				a, b = other, t
			}
			lines = append(lines, sprintf("selp.%s %s, %s, %s, %s;", ty, d, a, b, p))
		}
		return leaf("partial.selp."+partialName(c), lines...)
	case 1:
		lines = append(lines, g+" "+fg.partialUse(c, d, t))
		return leaf("partial.guarded."+partialName(c), lines...)
	}
	if c == ClassPred {
		lines = append(lines, sprintf("%s setp.ne.u32 %s, %s, %s;", ng, t, fg.reg(ClassB32), fg.src(ClassB32)))
	} else {
		lines = append(lines, sprintf("%s mov.%s %s, %s;", ng, ty, t, fg.src(c)))
	}
	lines = append(lines, fg.partialUse(c, d, t))
	return leaf("partial.complement."+partialName(c), lines...)
}

// partialType is the PTX type of a mov or selp of class c.
func partialType(c Class) string {
	switch c {
	case ClassB16:
		return "b16"
	case ClassB64:
		return "b64"
	case ClassF32:
		return "f32"
	}
	return "b32"
}

func partialName(c Class) string {
	switch c {
	case ClassB16:
		return "b16"
	case ClassB64:
		return "b64"
	case ClassF32:
		return "f32"
	case ClassPred:
		return "pred"
	}
	return "b32"
}

// partialDef returns lines to run unguarded first (a divisor) and one
// instruction that defines t (class c) from state variables, inputs and
// immediates; the caller guards it.
func (fg *fgen) partialDef(c Class, t string) ([]string, string) {
	r := fg.r
	switch c {
	case ClassB16:
		ty := r.pick("u16", "s16")
		a, b := fg.src(ClassB16), fg.src(ClassB16)
		switch r.intn(9) {
		case 0:
			return nil, sprintf("%s.%s %s, %s, %s;", r.pick("add", "sub"), ty, t, a, b)
		case 1:
			return nil, sprintf("mul.%s.%s %s, %s, %s;", r.pick("lo", "hi"), ty, t, a, b)
		case 2:
			return nil, sprintf("mad.lo.%s %s, %s, %s, %s;", ty, t, a, b, fg.src(ClassB16))
		case 3:
			return nil, sprintf("%s.%s %s, %s, %s;", r.pick("min", "max"), ty, t, a, b)
		case 4:
			return nil, sprintf("%s.b16 %s, %s, %s;", r.pick("and", "or", "xor"), t, a, b)
		case 5:
			return nil, sprintf("%s.b16 %s, %s;", r.pick("not", "cnot"), t, fg.reg(ClassB16))
		case 6:
			pre, dv := fg.divisor16(ty)
			return pre, sprintf("%s.%s %s, %s, %s;", r.pick("div", "rem"), ty, t, a, dv)
		case 7:
			return nil, sprintf("cvt.%s.%s %s, %s;", ty, r.pick("u32", "s32"), t, fg.reg(ClassB32))
		}
		return nil, sprintf("shl.b16 %s, %s, %d;", t, fg.reg(ClassB16), r.intn(17))
	case ClassB32:
		ty := r.pick("u32", "s32")
		a, b := fg.src(ClassB32), fg.src(ClassB32)
		switch r.intn(6) {
		case 0:
			return nil, sprintf("%s.%s %s, %s, %s;", r.pick("add", "sub"), ty, t, a, b)
		case 1:
			return nil, sprintf("mad.lo.%s %s, %s, %s, %s;", ty, t, a, b, fg.src(ClassB32))
		case 2:
			pre, dv := fg.divisor(ClassB32, ty)
			return pre, sprintf("%s.%s %s, %s, %s;", r.pick("div", "rem"), ty, t, a, dv)
		case 3:
			return nil, sprintf("%s.b32 %s, %s;", r.pick("not", "cnot", "brev"), t, fg.reg(ClassB32))
		case 4:
			return nil, sprintf("lop3.b32 %s, %s, %s, %s, %s;", t, fg.reg(ClassB32), fg.reg(ClassB32), fg.reg(ClassB32), hex32(uint32(r.intn(256))))
		}
		return nil, sprintf("%s.b32 %s, %s;", r.pick("popc", "clz"), t, fg.reg(ClassB32))
	case ClassB64:
		a, b := fg.src(ClassB64), fg.src(ClassB64)
		switch r.intn(3) {
		case 0:
			return nil, sprintf("%s.s64 %s, %s, %s;", r.pick("add", "sub"), t, a, b)
		case 1:
			return nil, sprintf("mul.wide.%s %s, %s, %s;", r.pick("u32", "s32"), t, fg.reg(ClassB32), fg.src(ClassB32))
		}
		return nil, sprintf("xor.b64 %s, %s, %s;", t, a, b)
	case ClassF32:
		a, b := fg.src(ClassF32), fg.src(ClassF32)
		if r.percent(50) {
			return nil, sprintf("%s.rn.f32 %s, %s, %s;", r.pick("add", "sub", "mul"), t, a, b)
		}
		return nil, sprintf("fma.rn.f32 %s, %s, %s, %s;", t, a, b, fg.src(ClassF32))
	}
	return nil, sprintf("setp.%s.s32 %s, %s, %s;", r.pick("lt", "ge", "ne"), t, fg.reg(ClassB32), fg.src(ClassB32))
}

// partialUse returns an instruction that folds t into the state variable
// d of class c.
func (fg *fgen) partialUse(c Class, d, t string) string {
	r := fg.r
	switch c {
	case ClassB16:
		return sprintf("%s.u16 %s, %s, %s;", r.pick("add", "max", "min"), d, d, t)
	case ClassB32:
		return sprintf("%s.b32 %s, %s, %s;", r.pick("xor", "or"), d, d, t)
	case ClassB64:
		return sprintf("add.s64 %s, %s, %s;", d, d, t)
	case ClassF32:
		return sprintf("add.rn.f32 %s, %s, %s;", d, d, t)
	}
	return sprintf("xor.pred %s, %s, %s;", d, d, t)
}

// divisor16 returns lines that compute a 16-bit divisor of type ty whose
// magnitude is at least 2 (never 0, never -1), and the divisor.
func (fg *fgen) divisor16(ty string) ([]string, string) {
	r := fg.r
	if r.percent(25) {
		v := []int{2, 3, 7, 10, 16, 255, 1000}[r.intn(7)]
		if ty[0] == 's' && r.percent(30) {
			return nil, sprintf("%d", -v)
		}
		return nil, sprintf("%d", v)
	}
	t := fg.tmp(ClassB16)
	lines := []string{
		sprintf("and.b16 %s, %s, %s;", t, fg.reg(ClassB16), r.pick("0xFF", "0x7FFF", "0xF")),
		sprintf("or.b16 %s, %s, 2;", t, t),
	}
	if ty[0] == 's' && r.percent(40) {
		lines = append(lines, sprintf("neg.s16 %s, %s;", t, t))
	}
	return lines, t
}

// b16xLeaf is 16-bit scalar arithmetic the b16 family does not generate.
func (fg *fgen) b16xLeaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassB16)
	a, b := fg.src(ClassB16), fg.src(ClassB16)
	ty := r.pick("u16", "s16")
	switch r.intn(6) {
	case 0, 1:
		op := r.pick("div", "rem")
		pre, dv := fg.divisor16(ty)
		return leaf("b16x."+op, append(pre, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, dv))...)
	case 2:
		return leaf("b16x.mad", sprintf("mad.%s.%s %s, %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b, fg.src(ClassB16)))
	case 3:
		return leaf("b16x.sad", sprintf("sad.%s %s, %s, %s, %s;", ty, d, a, b, fg.src(ClassB16)))
	case 4:
		op := r.pick("abs", "neg")
		return leaf("b16x."+op, sprintf("%s.s16 %s, %s;", op, d, fg.reg(ClassB16)))
	}
	return leaf("b16x.selp", sprintf("selp.%s %s, %s, %s, %s;", ty, d, a, b, fg.sv(ClassPred)))
}
