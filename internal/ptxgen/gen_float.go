package ptxgen

// Floating-point statements. Every add, sub, mul and fma carries a
// rounding modifier: without one PTX lets the compiler contract a mul and
// an add into an fma, which changes the result, and a differential test
// needs programs with exactly one right answer. Division, square root and
// reciprocal use the IEEE forms (.rn and friends) or, in approxLeaf, the
// approximate ones, whose results the simulator defines and the optimizer
// must reproduce when it folds them.

func rnd(r *rng) string { return r.pick(".rn", ".rn", ".rz", ".rm", ".rp") }

func (fg *fgen) f32Leaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassF32)
	a, b, c := fg.src(ClassF32), fg.src(ClassF32), fg.src(ClassF32)
	ftz := r.pick("", "", ".ftz")
	sat := r.pick("", "", "", ".sat")
	switch r.intn(17) {
	case 0, 1, 2:
		op := r.pick("add", "sub", "mul")
		return leaf("f32."+op, sprintf("%s%s%s%s.f32 %s, %s, %s;", op, rnd(r), ftz, sat, d, a, b))
	case 3:
		op := r.pick("fma", "fma", "mad")
		return leaf("f32."+op, sprintf("%s%s%s%s.f32 %s, %s, %s, %s;", op, rnd(r), ftz, sat, d, a, b, c))
	case 4:
		return leaf("f32.div", sprintf("div%s%s.f32 %s, %s, %s;", rnd(r), ftz, d, a, b))
	case 5:
		op := r.pick("sqrt", "rcp")
		return leaf("f32."+op, sprintf("%s%s%s.f32 %s, %s;", op, rnd(r), ftz, d, fg.reg(ClassF32)))
	case 6:
		op := r.pick("min", "max")
		nan := ""
		if fg.g.p.Target >= 80 && r.percent(30) {
			nan = ".NaN"
		}
		return leaf("f32."+op+nan, sprintf("%s%s%s.f32 %s, %s, %s;", op, ftz, nan, d, a, b))
	case 7:
		op := r.pick("abs", "neg")
		return leaf("f32."+op, sprintf("%s%s.f32 %s, %s;", op, ftz, d, fg.reg(ClassF32)))
	case 8:
		return leaf("f32.copysign", sprintf("copysign.f32 %s, %s, %s;", d, fg.reg(ClassF32), fg.reg(ClassF32)))
	case 9:
		// Integer to float.
		if r.percent(70) {
			return leaf("f32.cvt.from32", sprintf("cvt%s.f32.%s %s, %s;", rnd(r), r.pick("s32", "u32"), d, fg.reg(ClassB32)))
		}
		return leaf("f32.cvt.from64", sprintf("cvt%s.f32.%s %s, %s;", rnd(r), r.pick("s64", "u64"), d, fg.reg(ClassB64)))
	case 10:
		// Float to integer: saturating, NaN gives 0.
		ri := r.pick(".rni", ".rzi", ".rmi", ".rpi")
		if r.percent(70) {
			return leaf("f32.cvt.to32", sprintf("cvt%s%s.%s.f32 %s, %s;", ri, ftz, r.pick("s32", "u32"), fg.sv(ClassB32), fg.reg(ClassF32)))
		}
		return leaf("f32.cvt.to64", sprintf("cvt%s%s.%s.f32 %s, %s;", ri, ftz, r.pick("s64", "u64"), fg.sv(ClassB64), fg.reg(ClassF32)))
	case 11:
		// Round to an integral value.
		return leaf("f32.cvt.int", sprintf("cvt%s%s.f32.f32 %s, %s;", r.pick(".rni", ".rzi", ".rmi", ".rpi"), ftz, d, fg.reg(ClassF32)))
	case 12:
		// Reinterpret bits.
		if r.percent(50) {
			return leaf("f32.mov.from", sprintf("mov.b32 %s, %s;", d, fg.reg(ClassB32)))
		}
		return leaf("f32.mov.to", sprintf("mov.b32 %s, %s;", fg.sv(ClassB32), fg.reg(ClassF32)))
	case 13:
		op := r.pick("finite", "infinite", "number", "notanumber", "normal", "subnormal")
		return leaf("f32.testp", sprintf("testp.%s.f32 %s, %s;", op, fg.sv(ClassPred), fg.reg(ClassF32)))
	case 14:
		if r.percent(50) {
			return leaf("f32.cvt.f64", sprintf("cvt%s%s.f32.f64 %s, %s;", rnd(r), ftz, d, fg.reg(ClassF64)))
		}
		return leaf("f32.cvt.tof64", sprintf("cvt%s.f64.f32 %s, %s;", ftz, fg.sv(ClassF64), fg.reg(ClassF32)))
	case 15:
		return leaf("f32.set", sprintf("set.%s%s.f32.f32 %s, %s, %s;", r.pick("lt", "ge", "eq", "neu", "gtu", "nan"), ftz, d, a, b))
	}
	return leaf("f32.selp", sprintf("selp.f32 %s, %s, %s, %s;", d, a, b, fg.sv(ClassPred)))
}

func (fg *fgen) f64Leaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassF64)
	a, b, c := fg.src(ClassF64), fg.src(ClassF64), fg.src(ClassF64)
	switch r.intn(13) {
	case 0, 1, 2:
		op := r.pick("add", "sub", "mul")
		return leaf("f64."+op, sprintf("%s%s.f64 %s, %s, %s;", op, rnd(r), d, a, b))
	case 3:
		return leaf("f64.fma", sprintf("fma%s.f64 %s, %s, %s, %s;", rnd(r), d, a, b, c))
	case 4:
		return leaf("f64.div", sprintf("div%s.f64 %s, %s, %s;", rnd(r), d, a, b))
	case 5:
		op := r.pick("sqrt", "rcp")
		return leaf("f64."+op, sprintf("%s%s.f64 %s, %s;", op, rnd(r), d, fg.reg(ClassF64)))
	case 6:
		op := r.pick("min", "max")
		return leaf("f64."+op, sprintf("%s.f64 %s, %s, %s;", op, d, a, b))
	case 7:
		op := r.pick("abs", "neg", "copysign")
		if op == "copysign" {
			return leaf("f64.copysign", sprintf("copysign.f64 %s, %s, %s;", d, fg.reg(ClassF64), fg.reg(ClassF64)))
		}
		return leaf("f64."+op, sprintf("%s.f64 %s, %s;", op, d, fg.reg(ClassF64)))
	case 8:
		if r.percent(50) {
			return leaf("f64.cvt.from32", sprintf("cvt%s.f64.%s %s, %s;", rnd(r), r.pick("s32", "u32"), d, fg.reg(ClassB32)))
		}
		return leaf("f64.cvt.from64", sprintf("cvt%s.f64.%s %s, %s;", rnd(r), r.pick("s64", "u64"), d, fg.reg(ClassB64)))
	case 9:
		ri := r.pick(".rni", ".rzi", ".rmi", ".rpi")
		if r.percent(50) {
			return leaf("f64.cvt.to32", sprintf("cvt%s.%s.f64 %s, %s;", ri, r.pick("s32", "u32"), fg.sv(ClassB32), fg.reg(ClassF64)))
		}
		return leaf("f64.cvt.to64", sprintf("cvt%s.%s.f64 %s, %s;", ri, r.pick("s64", "u64"), fg.sv(ClassB64), fg.reg(ClassF64)))
	case 10:
		if r.percent(50) {
			return leaf("f64.mov.from", sprintf("mov.b64 %s, %s;", d, fg.reg(ClassB64)))
		}
		return leaf("f64.mov.to", sprintf("mov.b64 %s, %s;", fg.sv(ClassB64), fg.reg(ClassF64)))
	case 11:
		op := r.pick("finite", "infinite", "number", "notanumber", "normal", "subnormal")
		return leaf("f64.testp", sprintf("testp.%s.f64 %s, %s;", op, fg.sv(ClassPred), fg.reg(ClassF64)))
	}
	return leaf("f64.selp", sprintf("selp.f64 %s, %s, %s, %s;", d, a, b, fg.sv(ClassPred)))
}

// approxLeaf generates the approximate math the MUFU unit computes.
func (fg *fgen) approxLeaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassF32)
	a := fg.reg(ClassF32)
	ftz := r.pick("", ".ftz")
	switch r.intn(6) {
	case 0, 1:
		op := r.pick("sin", "cos", "lg2", "ex2", "rcp", "rsqrt", "sqrt")
		return leaf("approx."+op, sprintf("%s.approx%s.f32 %s, %s;", op, ftz, d, a))
	case 2:
		return leaf("approx.tanh", sprintf("tanh.approx.f32 %s, %s;", d, a))
	case 3:
		kind := r.pick("approx", "full")
		return leaf("approx.div."+kind, sprintf("div.%s%s.f32 %s, %s, %s;", kind, ftz, d, a, fg.src(ClassF32)))
	case 4:
		return leaf("approx.rcp64", sprintf("rcp.approx.ftz.f64 %s, %s;", fg.sv(ClassF64), fg.reg(ClassF64)))
	}
	return leaf("approx.rsqrt64", sprintf("rsqrt.approx%s.f64 %s, %s;", ftz, fg.sv(ClassF64), fg.reg(ClassF64)))
}

// b16Leaf generates 16-bit integer arithmetic in .b16 registers.
func (fg *fgen) b16Leaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassB16)
	a, b := fg.src(ClassB16), fg.src(ClassB16)
	ty := r.pick("u16", "s16")
	switch r.intn(10) {
	case 0:
		op := r.pick("add", "sub")
		return leaf("b16."+op, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, b))
	case 1:
		return leaf("b16.mul", sprintf("mul.%s.%s %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b))
	case 2:
		return leaf("b16.mul.wide", sprintf("mul.wide.%s %s, %s, %s;", ty, fg.sv(ClassB32), fg.reg(ClassB16), b))
	case 3:
		op := r.pick("min", "max")
		return leaf("b16."+op, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, b))
	case 4:
		op := r.pick("and", "or", "xor")
		return leaf("b16."+op, sprintf("%s.b16 %s, %s, %s;", op, d, a, b))
	case 5:
		amt := sprintf("%d", r.intn(20))
		if r.percent(30) {
			amt = fg.reg(ClassB32)
		}
		if r.percent(50) {
			return leaf("b16.shl", sprintf("shl.b16 %s, %s, %s;", d, fg.reg(ClassB16), amt))
		}
		return leaf("b16.shr", sprintf("shr.%s %s, %s, %s;", ty, d, fg.reg(ClassB16), amt))
	case 6:
		return leaf("b16.cvt.from32", sprintf("cvt.%s.%s %s, %s;", ty, r.pick("u32", "s32"), d, fg.reg(ClassB32)))
	case 7:
		return leaf("b16.cvt.to32", sprintf("cvt.%s.%s %s, %s;", r.pick("u32", "s32"), ty, fg.sv(ClassB32), fg.reg(ClassB16)))
	case 8:
		lo, hi := fg.tmp(ClassB16), fg.tmp(ClassB16)
		return leaf("b16.unpack", sprintf("mov.b32 {%s, %s}, %s;", lo, hi, fg.reg(ClassB32)),
			sprintf("mov.b32 %s, {%s, %s};", fg.sv(ClassB32), r.pick(hi, lo), fg.reg(ClassB16)),
			sprintf("mov.b16 %s, %s;", d, r.pick(lo, hi)))
	}
	return leaf("b16.setp", sprintf("setp.%s.%s %s, %s, %s;", r.pick("lt", "ge", "eq", "ne", "gt"), ty, fg.sv(ClassPred), fg.reg(ClassB16), b))
}

// f16Leaf generates half-precision arithmetic: scalars in .b16
// registers, pairs in .b32 ones. PTX has no f16 immediates, so every
// operand is a register.
func (fg *fgen) f16Leaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassB16)
	a, b, c := fg.reg(ClassB16), fg.reg(ClassB16), fg.reg(ClassB16)
	ftz := r.pick("", "", ".ftz")
	sat := r.pick("", "", "", ".sat")
	switch r.intn(9) {
	case 0, 1:
		op := r.pick("add", "sub", "mul")
		return leaf("f16."+op, sprintf("%s.rn%s%s.f16 %s, %s, %s;", op, ftz, sat, d, a, b))
	case 2:
		return leaf("f16.fma", sprintf("fma.rn%s%s.f16 %s, %s, %s, %s;", ftz, sat, d, a, b, c))
	case 3:
		op := r.pick("neg", "abs")
		return leaf("f16."+op, sprintf("%s%s.f16 %s, %s;", op, ftz, d, a))
	case 4:
		if fg.g.p.Target < 80 {
			return nil
		}
		op := r.pick("min", "max")
		return leaf("f16."+op, sprintf("%s%s.f16 %s, %s, %s;", op, ftz, d, a, b))
	case 5:
		return leaf("f16.cvt.from", sprintf("cvt%s.f16.f32 %s, %s;", rnd(r), d, fg.reg(ClassF32)))
	case 6:
		return leaf("f16.cvt.to", sprintf("cvt.f32.f16 %s, %s;", fg.sv(ClassF32), a))
	case 7:
		op := r.pick("add", "mul", "sub")
		x := fg.sv(ClassB32)
		return leaf("f16x2."+op, sprintf("%s.rn%s.f16x2 %s, %s, %s;", op, ftz, x, fg.reg(ClassB32), fg.reg(ClassB32)))
	}
	return leaf("f16.setp", sprintf("setp.%s%s.f16 %s, %s, %s;", r.pick("lt", "ge", "eq", "neu", "gtu", "num"), ftz, fg.sv(ClassPred), a, b))
}
