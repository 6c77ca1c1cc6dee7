package ptxgen

// Atomics, written so that the final memory contents do not depend on the
// order in which threads run:
//   - accumulators (the acc and acc64 buffers, and the shared counters):
//     one operation kind per region, all commutative and associative
//     (add, and, or, xor, min, max), or the same function applied every
//     time (inc and dec with one bound per program), or float adds of
//     small integers, which are exact in any order. Their results, which
//     do depend on the order, are never used;
//   - the thread's own scratch slots: any operation, with its result
//     used, since no other thread touches them.

// accOps are the regions of acc (accRegion words each): the operation,
// its type, and the initial word of the region.
var accOps = []struct {
	op, ty string
	init   uint32
}{
	{"add", "u32", 0}, {"and", "b32", 0xffffffff}, {"or", "b32", 0}, {"xor", "b32", 0},
	{"min", "u32", 0xffffffff}, {"max", "u32", 0}, {"min", "s32", 0x7fffffff}, {"max", "s32", 0x80000000},
	{"inc", "u32", 0}, {"dec", "u32", 0}, {"add", "f32", 0},
}

// acc64Ops are the regions of acc64.
var acc64Ops = []struct {
	op, ty string
	init   uint64
}{
	{"add", "u64", 0}, {"or", "b64", 0}, {"xor", "b64", 0}, {"max", "u64", 0}, {"min", "s64", 0x7fffffffffffffff}, {"and", "b64", ^uint64(0)},
}

// shcOps are the shared counters (one word each) and their initial values.
var shcOps = []struct {
	op, ty string
	init   uint32
}{
	{"add", "u32", 0}, {"or", "b32", 0}, {"xor", "b32", 0}, {"and", "b32", 0xffffffff},
	{"min", "u32", 0xffffffff}, {"max", "s32", 0x80000000}, {"inc", "u32", 0}, {"add", "f32", 0},
}

// semScope returns the optional memory-order and scope qualifiers of an
// atomic: never .cta, since threads of other CTAs use the same addresses.
func semScope(r *rng, red bool) string {
	if red {
		return r.pick("", "", "", ".relaxed.gpu", ".release.gpu", ".gpu", ".sys")
	}
	return r.pick("", "", "", ".relaxed.gpu", ".acq_rel.gpu", ".acquire.gpu", ".gpu", ".sys")
}

// accValue returns lines and an operand for the value of an accumulator
// operation of type ty; f32 values are small integers.
func (fg *fgen) accValue(ty string) ([]string, string) {
	switch ty {
	case "f32":
		t, f := fg.tmp(ClassB32), fg.tmp(ClassF32)
		return []string{sprintf("and.b32 %s, %s, 63;", t, fg.reg(ClassB32)), sprintf("cvt.rn.f32.u32 %s, %s;", f, t)}, f
	case "u64", "b64", "s64":
		return nil, fg.src(ClassB64)
	}
	return nil, fg.src(ClassB32)
}

func (fg *fgen) atomicLeaf() *Leaf {
	r := fg.r
	n := r.intn(10)
	switch {
	case n < 4 && fg.acc != "":
		return fg.accAtomic()
	case n < 6 && fg.shc != "":
		return fg.sharedAtomic()
	}
	return fg.slotAtomic()
}

// accAtomic updates an accumulator region of acc or acc64.
func (fg *fgen) accAtomic() *Leaf {
	r := fg.r
	red := r.percent(40)
	i, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
	var lines []string
	var op, ty, base, off string
	var size int
	if r.percent(75) {
		k := r.intn(len(accOps))
		op, ty, base, size = accOps[k].op, accOps[k].ty, fg.acc, 4
		off = sprintf("%d", k*accRegion*4)
	} else {
		k := r.intn(len(acc64Ops))
		op, ty, base, size = acc64Ops[k].op, acc64Ops[k].ty, fg.acc64, 8
		off = sprintf("%d", k*accRegion*8)
	}
	space := ".global"
	if r.percent(20) {
		// Generic addressing of the same global memory, through the
		// parameter's own (generic) address.
		space = ""
		if base == fg.acc {
			base = fg.accGen
		} else {
			base = fg.acc64Gen
		}
	}
	lines = append(lines, sprintf("and.b32 %s, %s, %d;", i, fg.reg(ClassB32), accRegion-1),
		sprintf("mad.wide.u32 %s, %s, %d, %s;", a, i, size, base))
	vl, v := fg.accValue(ty)
	if op == "inc" || op == "dec" {
		vl, v = nil, sprintf("%d", fg.g.incBound)
	}
	lines = append(lines, vl...)
	ss := semScope(r, red)
	if red && (op == "inc" || op == "dec" || ty == "f32" && space == "") {
		red = false
		ss = semScope(r, false)
	}
	if red {
		lines = append(lines, sprintf("red%s%s.%s.%s [%s+%s], %s;", ss, space, op, ty, a, off, v))
		return leaf("atomic.red."+op+"."+ty, lines...)
	}
	d := fg.tmp(classOfType(ty))
	lines = append(lines, sprintf("atom%s%s.%s.%s %s, [%s+%s], %s;", ss, space, op, ty, d, a, off, v))
	return leaf("atomic.acc."+op+"."+ty, lines...)
}

// sharedAtomic updates one of the CTA's shared counters.
func (fg *fgen) sharedAtomic() *Leaf {
	r := fg.r
	k := r.intn(len(shcOps))
	op, ty := shcOps[k].op, shcOps[k].ty
	vl, v := fg.accValue(ty)
	if op == "inc" {
		v = sprintf("%d", fg.g.incBound)
	}
	lines := vl
	addr := sprintf("[%s+%d]", fg.shc, 4*k)
	space := ".shared"
	if r.percent(25) && !fg.g.avoid["generic-shared-atomics"] {
		g := fg.tmp(ClassB64)
		lines = append(lines, sprintf("mov.u64 %s, %s;", g, fg.shc), sprintf("cvta.shared.u64 %s, %s;", g, g))
		addr, space = sprintf("[%s+%d]", g, 4*k), ""
	}
	if r.percent(40) && !(ty == "f32" && space == "") {
		lines = append(lines, sprintf("red%s.%s.%s %s, %s;", space, op, ty, addr, v))
		return leaf("atomic.shared.red."+op, lines...)
	}
	lines = append(lines, sprintf("atom%s.%s.%s %s, %s, %s;", space, op, ty, fg.tmp(classOfType(ty)), addr, v))
	return leaf("atomic.shared."+op, lines...)
}

// slotAtomic operates on one of the thread's own scratch slots and uses
// the result.
func (fg *fgen) slotAtomic() *Leaf {
	r := fg.r
	base, space := fg.slotBase()
	ss := r.pick("", "", ".relaxed.gpu", ".acq_rel.gpu", ".cta", ".sys")
	switch r.intn(6) {
	case 0:
		slot := 2 * r.intn(midWords/2)
		op := r.pick("add.u64", "exch.b64", "min.u64", "max.s64", "and.b64")
		return leaf("atomic.slot."+op, sprintf("atom%s%s.%s %s, [%s+%d], %s;", ss, space, op, fg.sv(ClassB64), base, 4*slot, fg.src(ClassB64)))
	case 1:
		slot := 2 * r.intn(midWords/2)
		return leaf("atomic.slot.cas.b64", sprintf("atom%s%s.cas.b64 %s, [%s+%d], %s, %s;", ss, space, fg.sv(ClassB64), base, 4*slot, fg.src(ClassB64), fg.src(ClassB64)))
	case 2:
		return leaf("atomic.slot.cas.b32", sprintf("atom%s%s.cas.b32 %s, [%s+%d], %s, %s;", ss, space, fg.sv(ClassB32), base, 4*r.intn(midWords), fg.src(ClassB32), fg.src(ClassB32)))
	case 3:
		if space == "" {
			break
		}
		return leaf("atomic.slot.add.f32", sprintf("atom%s%s.add.f32 %s, [%s+%d], %s;", ss, space, fg.sv(ClassF32), base, 4*r.intn(midWords), fg.src(ClassF32)))
	}
	op := r.pick("add.u32", "exch.b32", "inc.u32", "dec.u32", "min.u32", "max.s32", "and.b32", "or.b32", "xor.b32", "min.s32")
	return leaf("atomic.slot."+op, sprintf("atom%s%s.%s %s, [%s+%d], %s;", ss, space, op, fg.sv(ClassB32), base, 4*r.intn(midWords), fg.src(ClassB32)))
}

func classOfType(ty string) Class {
	switch ty {
	case "u64", "s64", "b64":
		return ClassB64
	case "f32":
		return ClassF32
	case "f64":
		return ClassF64
	}
	return ClassB32
}
