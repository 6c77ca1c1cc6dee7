package ptxgen

import "strconv"

// Integer statements: 32-bit arithmetic, bit operations, 64-bit
// arithmetic and carry chains. PTX defines every integer operation for
// every input (wrap-around, clamped shift amounts, bit-field positions
// past the msb) except division by zero and the most negative value
// divided by -1, whose results are unspecified: divisor() keeps the
// divisor's magnitude at 2 or more.

func (fg *fgen) intLeaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassB32)
	a, b, c := fg.src(ClassB32), fg.src(ClassB32), fg.src(ClassB32)
	ty := r.pick("u32", "s32")
	switch r.intn(16) {
	case 0:
		if ty == "s32" && r.percent(25) {
			return leaf("int.add.sat", sprintf("add.sat.s32 %s, %s, %s;", d, a, b))
		}
		return leaf("int.add", sprintf("add.%s %s, %s, %s;", ty, d, a, b))
	case 1:
		if ty == "s32" && r.percent(25) {
			return leaf("int.sub.sat", sprintf("sub.sat.s32 %s, %s, %s;", d, a, b))
		}
		return leaf("int.sub", sprintf("sub.%s %s, %s, %s;", ty, d, a, b))
	case 2:
		return leaf("int.mul", sprintf("mul.%s.%s %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b))
	case 3:
		return leaf("int.mul.wide", sprintf("mul.wide.%s %s, %s, %s;", ty, fg.sv(ClassB64), a, b))
	case 4:
		if ty == "s32" && r.percent(20) {
			return leaf("int.mad.hi.sat", sprintf("mad.hi.sat.s32 %s, %s, %s, %s;", d, a, b, c))
		}
		return leaf("int.mad", sprintf("mad.%s.%s %s, %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b, c))
	case 5:
		d64 := fg.sv(ClassB64)
		return leaf("int.mad.wide", sprintf("mad.wide.%s %s, %s, %s, %s;", ty, d64, a, b, fg.src(ClassB64)))
	case 6:
		if r.percent(50) {
			return leaf("int.mul24", sprintf("mul24.%s.%s %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b))
		}
		return leaf("int.mad24", sprintf("mad24.%s.%s %s, %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b, c))
	case 7:
		return leaf("int.sad", sprintf("sad.%s %s, %s, %s, %s;", ty, d, a, b, c))
	case 8, 9:
		op := r.pick("div", "rem")
		lines, dv := fg.divisor(ClassB32, ty)
		return leaf("int."+op, append(lines, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, dv))...)
	case 10:
		op := r.pick("min", "max")
		if ty == "s32" && fg.g.p.Target >= 90 && r.percent(25) {
			return leaf("int."+op+".relu", sprintf("%s.relu.s32 %s, %s, %s;", op, d, a, b))
		}
		return leaf("int."+op, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, b))
	case 11:
		op := r.pick("abs", "neg")
		return leaf("int."+op, sprintf("%s.s32 %s, %s;", op, d, fg.reg(ClassB32)))
	case 12:
		return leaf("int.mov", sprintf("mov.u32 %s, %s;", d, a))
	case 13:
		// Widen, combine and narrow: 32/64-bit conversions.
		t := fg.tmp(ClassB64)
		return leaf("int.cvt64", sprintf("cvt.%s64.%s32 %s, %s;", ty[:1], ty[:1], t, fg.reg(ClassB32)),
			sprintf("add.s64 %s, %s, %s;", t, t, fg.src(ClassB64)),
			sprintf("cvt.u32.u64 %s, %s;", d, t))
	case 14:
		// 8- and 16-bit conversions inside 32-bit registers: extension
		// from a narrow type, or saturating narrowing.
		narrow := r.pick("u8", "s8", "u16", "s16")
		if r.percent(40) {
			return leaf("int.cvt.sat", sprintf("cvt.sat.%s.%s %s, %s;", narrow, ty, d, fg.reg(ClassB32)))
		}
		return leaf("int.cvt.narrow", sprintf("cvt.%s.%s %s, %s;", ty, narrow, d, fg.reg(ClassB32)))
	}
	return leaf("int.add.imm", sprintf("add.%s %s, %s, %s;", ty, d, fg.reg(ClassB32), fg.imm(ClassB32)))
}

// divisor returns lines that compute a divisor of class c (B32 or B64)
// and type ty whose magnitude is at least 2, and the divisor.
func (fg *fgen) divisor(c Class, ty string) ([]string, string) {
	r := fg.r
	if r.percent(20) {
		// An immediate divisor (the lowering's constant paths).
		v := []int{2, 3, 7, 10, 16, 255, 1000, 65536}[r.intn(8)]
		if ty[0] == 's' && r.percent(30) {
			return nil, sprintf("%d", -v)
		}
		return nil, sprintf("%d", v)
	}
	w := "32"
	if c == ClassB64 {
		w = "64"
	}
	t := fg.tmp(c)
	mask := []string{"0xFF", "0xFFFF", "0x7FFFFFFF", "0xF"}[r.intn(4)]
	lines := []string{
		sprintf("and.b%s %s, %s, %s;", w, t, fg.reg(c), mask),
		sprintf("or.b%s %s, %s, 2;", w, t, t),
	}
	if ty[0] == 's' && r.percent(40) {
		lines = append(lines, sprintf("neg.s%s %s, %s;", w, t, t))
	}
	return lines, t
}

func (fg *fgen) bitsLeaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassB32)
	a, b, c := fg.src(ClassB32), fg.src(ClassB32), fg.src(ClassB32)
	switch r.intn(17) {
	case 0:
		op := r.pick("and", "or", "xor")
		return leaf("bits."+op, sprintf("%s.b32 %s, %s, %s;", op, d, a, b))
	case 1:
		op := r.pick("not", "cnot")
		return leaf("bits."+op, sprintf("%s.b32 %s, %s;", op, d, fg.reg(ClassB32)))
	case 2:
		amt := b
		if r.percent(60) {
			amt = sprintf("%d", r.intn(40))
		}
		if r.percent(50) {
			return leaf("bits.shl", sprintf("shl.b32 %s, %s, %s;", d, fg.reg(ClassB32), amt))
		}
		return leaf("bits.shr", sprintf("shr.%s %s, %s, %s;", r.pick("u32", "s32", "b32"), d, fg.reg(ClassB32), amt))
	case 3:
		pos, ln := bitfieldImm(b), bitfieldImm(c)
		if r.percent(50) {
			pos, ln = sprintf("%d", r.intn(36)), sprintf("%d", r.intn(36))
		}
		return leaf("bits.bfe", sprintf("bfe.%s %s, %s, %s, %s;", r.pick("u32", "s32"), d, fg.reg(ClassB32), pos, ln))
	case 4:
		pos, ln := bitfieldImm(c), fg.bitfieldSrc()
		if r.percent(50) {
			pos, ln = sprintf("%d", r.intn(36)), sprintf("%d", r.intn(36))
		}
		return leaf("bits.bfi", sprintf("bfi.b32 %s, %s, %s, %s, %s;", d, a, fg.reg(ClassB32), pos, ln))
	case 5:
		mode := r.pick("", "", "", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16")
		return leaf("bits.prmt"+mode, sprintf("prmt.b32%s %s, %s, %s, %s;", mode, d, a, b, c))
	case 6:
		op := r.pick("popc", "clz", "brev")
		return leaf("bits."+op, sprintf("%s.b32 %s, %s;", op, d, fg.reg(ClassB32)))
	case 7:
		sh := r.pick("", ".shiftamt")
		return leaf("bits.bfind"+sh, sprintf("bfind%s.%s %s, %s;", sh, r.pick("u32", "s32"), d, fg.reg(ClassB32)))
	case 8:
		return leaf("bits.lop3", sprintf("lop3.b32 %s, %s, %s, %s, 0x%02X;", d, a, b, c, r.intn(256)))
	case 9:
		amt := c
		if r.percent(50) {
			amt = sprintf("%d", r.intn(40))
		}
		dir, mode := r.pick("l", "r"), r.pick("wrap", "clamp")
		return leaf("bits.shf", sprintf("shf.%s.%s.b32 %s, %s, %s, %s;", dir, mode, d, a, b, amt))
	case 10:
		return leaf("bits.bmsk", sprintf("bmsk.%s.b32 %s, %s, %s;", r.pick("clamp", "wrap"), d, a, b))
	case 11:
		return leaf("bits.szext", sprintf("szext.%s.%s %s, %s, %s;", r.pick("clamp", "wrap"), r.pick("u32", "s32"), d, a, b))
	case 12:
		return leaf("bits.dp4a", sprintf("dp4a.%s.%s %s, %s, %s, %s;", r.pick("u32", "s32"), r.pick("u32", "s32"), d, a, b, c))
	case 13:
		return leaf("bits.dp2a", sprintf("dp2a.%s.%s.%s %s, %s, %s, %s;", r.pick("lo", "hi"), r.pick("u32", "s32"), r.pick("u32", "s32"), d, a, b, c))
	case 14:
		// fns reads mask[base]: keep base inside the word.
		t := fg.tmp(ClassB32)
		off := sprintf("%d", r.rangeIn(-4, 4))
		if r.percent(30) {
			off = fg.reg(ClassB32)
		}
		return leaf("bits.fns", sprintf("and.b32 %s, %s, 31;", t, fg.reg(ClassB32)),
			sprintf("fns.b32 %s, %s, %s, %s;", d, a, t, off))
	case 15:
		// A population count of a 64-bit value, and leading zeros.
		op := r.pick("popc", "clz")
		return leaf("bits."+op+"64", sprintf("%s.b64 %s, %s;", op, d, fg.reg(ClassB64)))
	}
	return leaf("bits.selp", sprintf("selp.b32 %s, %s, %s, %s;", d, a, b, fg.sv(ClassPred)))
}

func (fg *fgen) int64Leaf() *Leaf {
	r := fg.r
	d := fg.sv(ClassB64)
	a, b := fg.src(ClassB64), fg.src(ClassB64)
	ty := r.pick("u64", "s64")
	switch r.intn(13) {
	case 0:
		op := r.pick("add", "sub")
		return leaf("int64."+op, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, b))
	case 1:
		return leaf("int64.mul", sprintf("mul.%s.%s %s, %s, %s;", r.pick("lo", "hi"), ty, d, a, b))
	case 2:
		hl := r.pick("lo", "lo", "hi")
		return leaf("int64.mad."+hl, sprintf("mad.%s.%s %s, %s, %s, %s;", hl, ty, d, a, b, fg.src(ClassB64)))
	case 3, 4:
		op := r.pick("div", "rem")
		lines, dv := fg.divisor(ClassB64, ty)
		return leaf("int64."+op, append(lines, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, dv))...)
	case 5:
		op := r.pick("min", "max")
		return leaf("int64."+op, sprintf("%s.%s %s, %s, %s;", op, ty, d, a, b))
	case 6:
		op := r.pick("and", "or", "xor")
		return leaf("int64."+op, sprintf("%s.b64 %s, %s, %s;", op, d, a, b))
	case 7:
		amt := fg.src(ClassB32)
		if r.percent(60) {
			amt = sprintf("%d", r.intn(70))
		}
		if r.percent(50) {
			return leaf("int64.shl", sprintf("shl.b64 %s, %s, %s;", d, fg.reg(ClassB64), amt))
		}
		return leaf("int64.shr", sprintf("shr.%s %s, %s, %s;", r.pick("u64", "s64", "b64"), d, fg.reg(ClassB64), amt))
	case 8:
		return leaf("int64.bfe", sprintf("bfe.%s %s, %s, %s, %s;", ty, d, fg.reg(ClassB64), fg.bitfieldSrc(), fg.bitfieldSrc()))
	case 9:
		return leaf("int64.bfi", sprintf("bfi.b64 %s, %s, %s, %s, %s;", d, a, fg.reg(ClassB64), fg.bitfieldSrc(), fg.bitfieldSrc()))
	case 10:
		// Pack and unpack register pairs.
		lo, hi := fg.tmp(ClassB32), fg.tmp(ClassB32)
		return leaf("int64.pack", sprintf("mov.b64 {%s, %s}, %s;", lo, hi, fg.reg(ClassB64)),
			sprintf("%s %s, %s, %s;", r.pick("add.u32", "xor.b32", "sub.u32"), lo, lo, fg.src(ClassB32)),
			sprintf("mov.b64 %s, {%s, %s};", d, r.pick(lo, hi), r.pick(hi, lo)))
	case 11:
		op := r.pick("not", "brev", "neg", "abs", "bfind")
		if op == "bfind" {
			return leaf("int64.bfind", sprintf("bfind.%s %s, %s;", ty, fg.sv(ClassB32), fg.reg(ClassB64)))
		}
		t := "b64"
		if op == "neg" || op == "abs" {
			t = "s64"
		}
		return leaf("int64."+op, sprintf("%s.%s %s, %s;", op, t, d, fg.reg(ClassB64)))
	}
	return leaf("int64.selp", sprintf("selp.b64 %s, %s, %s, %s;", d, a, b, fg.sv(ClassPred)))
}

// carryLeaf generates an extended-precision chain: add.cc/addc,
// sub.cc/subc or mad.lo.cc/madc; the carry flag lives only inside the
// statement.
func (fg *fgen) carryLeaf() *Leaf {
	r := fg.r
	n := r.rangeIn(2, 4)
	var lines []string
	switch r.intn(3) {
	case 0, 1:
		op := r.pick("add", "sub")
		for i := 0; i < n; i++ {
			d := fg.tmp(ClassB32)
			if i == n-1 {
				d = fg.sv(ClassB32)
			}
			switch {
			case i == 0:
				lines = append(lines, sprintf("%s.cc.u32 %s, %s, %s;", op, d, fg.reg(ClassB32), fg.src(ClassB32)))
			case i == n-1:
				lines = append(lines, sprintf("%sc.u32 %s, %s, %s;", op, d, fg.reg(ClassB32), fg.src(ClassB32)))
			default:
				lines = append(lines, sprintf("%sc.cc.u32 %s, %s, %s;", op, d, fg.reg(ClassB32), fg.src(ClassB32)))
			}
		}
		return leaf("carry."+op, lines...)
	}
	t := fg.tmp(ClassB32)
	d := fg.sv(ClassB32)
	return leaf("carry.mad",
		sprintf("mad.lo.cc.u32 %s, %s, %s, %s;", t, fg.reg(ClassB32), fg.src(ClassB32), fg.src(ClassB32)),
		sprintf("madc.hi.u32 %s, %s, %s, %s;", d, fg.reg(ClassB32), fg.src(ClassB32), fg.src(ClassB32)))
}

// bitfieldSrc returns a position or length operand of bfe or bfi: fg.src's
// draw, passed through bitfieldImm.
func (fg *fgen) bitfieldSrc() string { return bitfieldImm(fg.src(ClassB32)) }

// bitfieldImm reduces an immediate position or length of bfe or bfi to its
// low 8 bits and returns any other operand unchanged. The instructions use
// only those bits of a register operand, so the result is the same, but
// ptxas rejects an immediate outside 0..255 ("value '1000' out of range,
// expected to be in range [0..255]"; 109 of the 677 programs of seed
// 5550000 that NVIDIA's JIT refused).
func bitfieldImm(s string) string {
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		return strconv.FormatUint(v&0xff, 10)
	}
	return s
}
