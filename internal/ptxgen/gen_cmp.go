package ptxgen

// Comparisons and predicates: setp in all its forms (boolean combining,
// two results), predicate logic, selp, set and slct.

var (
	cmpSigned   = []string{"eq", "ne", "lt", "le", "gt", "ge"}
	cmpUnsigned = []string{"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}
	cmpFloat    = []string{"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}
)

// cmpOperands picks a comparison type and two operands of it.
func (fg *fgen) cmpOperands() (op, ty, a, b string) {
	r := fg.r
	switch r.intn(7) {
	case 0, 1:
		ty = r.pick("s32", "u32")
		a, b = fg.reg(ClassB32), fg.src(ClassB32)
	case 2:
		ty = r.pick("s64", "u64")
		a, b = fg.reg(ClassB64), fg.src(ClassB64)
	case 3, 4:
		ty = "f32"
		if r.percent(25) {
			ty = "ftz.f32"
		}
		a, b = fg.reg(ClassF32), fg.src(ClassF32)
	case 5:
		ty = "f64"
		a, b = fg.reg(ClassF64), fg.src(ClassF64)
	default:
		ty = "b32"
		a, b = fg.reg(ClassB32), fg.src(ClassB32)
	}
	switch ty[0] {
	case 's':
		op = cmpSigned[r.intn(len(cmpSigned))]
	case 'u':
		op = cmpUnsigned[r.intn(len(cmpUnsigned))]
	case 'f':
		op = cmpFloat[r.intn(len(cmpFloat))]
	default:
		op = r.pick("eq", "ne")
	}
	return op, ty, a, b
}

func notp(r *rng, p string) string {
	if r.percent(30) {
		return "!" + p
	}
	return p
}

func (fg *fgen) cmpLeaf() *Leaf {
	r := fg.r
	p := fg.sv(ClassPred)
	op, ty, a, b := fg.cmpOperands()
	switch r.intn(9) {
	case 0, 1:
		return leaf("cmp.setp."+ty, sprintf("setp.%s.%s %s, %s, %s;", op, ty, p, a, b))
	case 2:
		bop := r.pick("and", "or", "xor")
		return leaf("cmp.setp.bop", sprintf("setp.%s.%s.%s %s, %s, %s, %s;", op, bop, ty, p, a, b, notp(r, fg.sv(ClassPred))))
	case 3:
		q := fg.sv(ClassPred)
		if q == p {
			q = fg.tmp(ClassPred)
		}
		return leaf("cmp.setp.pair", sprintf("setp.%s.%s %s|%s, %s, %s;", op, ty, p, q, a, b))
	case 4:
		bop := r.pick("and", "or", "xor")
		return leaf("pred."+bop, sprintf("%s.pred %s, %s, %s;", bop, p, fg.sv(ClassPred), fg.sv(ClassPred)))
	case 5:
		return leaf("pred.not", sprintf("not.pred %s, %s;", p, fg.sv(ClassPred)))
	case 6:
		dt := r.pick("u32", "s32")
		if r.percent(30) {
			bop := r.pick("and", "or", "xor")
			return leaf("cmp.set.bop", sprintf("set.%s.%s.%s.%s %s, %s, %s, %s;", op, bop, dt, ty, fg.sv(ClassB32), a, b, notp(r, fg.sv(ClassPred))))
		}
		return leaf("cmp.set", sprintf("set.%s.%s.%s %s, %s, %s;", op, dt, ty, fg.sv(ClassB32), a, b))
	case 7:
		if r.percent(50) {
			return leaf("cmp.slct.s32", sprintf("slct.%s.s32 %s, %s, %s, %s;", r.pick("u32", "s32", "b32"), fg.sv(ClassB32), fg.src(ClassB32), fg.src(ClassB32), fg.reg(ClassB32)))
		}
		return leaf("cmp.slct.f32", sprintf("slct.f32.f32 %s, %s, %s, %s;", fg.sv(ClassF32), fg.src(ClassF32), fg.src(ClassF32), fg.reg(ClassF32)))
	}
	return leaf("cmp.selp", sprintf("selp.%s %s, %s, %s, %s;", r.pick("u32", "s32", "b32"), fg.sv(ClassB32), fg.src(ClassB32), fg.src(ClassB32), fg.sv(ClassPred)))
}
