package ptxgen

// Memory statements. Loads read the input buffers (read-only for the
// whole launch), the thread's own scratch slots and its local array;
// stores write only the thread's own scratch slots and its local array.
// Every computed index is masked into its buffer and scaled by the access
// size, so addresses are in bounds and aligned by construction.

// addr returns lines that compute base + (x & mask) * scale as a 64-bit
// address, and the register holding it.
func (fg *fgen) addr(base string, mask, scale int) ([]string, string) {
	r := fg.r
	i, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
	lines := []string{sprintf("and.b32 %s, %s, %d;", i, fg.reg(ClassB32), mask)}
	switch r.intn(3) {
	case 0:
		lines = append(lines, sprintf("mul.wide.u32 %s, %s, %d;", a, i, scale),
			sprintf("add.s64 %s, %s, %s;", a, base, a))
	case 1:
		lines = append(lines, sprintf("mad.wide.u32 %s, %s, %d, %s;", a, i, scale, base))
	default:
		sh := 0
		for 1<<sh < scale {
			sh++
		}
		lines = append(lines, sprintf("cvt.u64.u32 %s, %s;", a, i),
			sprintf("shl.b64 %s, %s, %d;", a, a, sh),
			sprintf("add.u64 %s, %s, %s;", a, a, base))
	}
	return lines, a
}

func (fg *fgen) memLeaf() *Leaf {
	r := fg.r
	if r.percent(8) {
		return fg.memMisc()
	}
	if fg.kernel && r.percent(45) {
		return fg.inputLoad()
	}
	if fg.mid == "" {
		return nil
	}
	if r.percent(50) {
		return fg.slotStore()
	}
	return fg.slotLoad()
}

// memMisc generates the memory instructions without a value: fences,
// prefetches, and the state-space test of a generic address.
func (fg *fgen) memMisc() *Leaf {
	r := fg.r
	switch r.intn(3) {
	case 0:
		return leaf("mem.fence", r.pick("membar.cta;", "membar.gl;", "membar.sys;", "fence.sc.gpu;", "fence.acq_rel.cta;", "fence.acq_rel.sys;"))
	case 1:
		if fg.mid != "" {
			return leaf("mem.prefetch", sprintf("prefetch%s [%s+%d];", r.pick(".global.L1", ".global.L2", ".L1"), r.pick(fg.mid, fg.midG), 4*r.intn(midWords)))
		}
	}
	if fg.mid == "" {
		return nil
	}
	sp := r.pick("global", "shared", "local")
	return leaf("mem.isspacep", sprintf("isspacep.%s %s, %s;", sp, fg.sv(ClassPred), fg.mid))
}

// inputLoad loads from one of the kernel's input buffers.
func (fg *fgen) inputLoad() *Leaf {
	r := fg.r
	nc := r.pick("", "", ".nc")
	switch r.intn(9) {
	case 0, 1:
		lines, a := fg.addr(fg.inU32, inU32N-1, 4)
		return leaf("mem.ld.u32", append(lines, sprintf("ld.global%s.%s %s, [%s];", nc, r.pick("u32", "s32", "b32"), fg.sv(ClassB32), a))...)
	case 2:
		// A constant offset past the masked index: the mask leaves room.
		lines, a := fg.addr(fg.inU32, inU32N/2-1, 4)
		off := 4 * r.intn(inU32N/2)
		return leaf("mem.ld.off", append(lines, sprintf("ld.global%s.u32 %s, [%s+%d];", nc, fg.sv(ClassB32), a, off))...)
	case 3:
		ty := r.pick("u8", "s8", "u16", "s16")
		size := 1
		if ty[1:] == "16" {
			size = 2
		}
		lines, a := fg.addr(fg.inU32, inU32N*4/size-1, size)
		d := fg.sv(ClassB32)
		if r.percent(30) {
			d = fg.sv(ClassB16)
		}
		return leaf("mem.ld."+ty, append(lines, sprintf("ld.global%s.%s %s, [%s];", nc, ty, d, a))...)
	case 4:
		if r.percent(50) {
			lines, a := fg.addr(fg.inU32, inU32N/2-1, 8)
			t0, t1 := fg.tmp(ClassB32), fg.tmp(ClassB32)
			return leaf("mem.ld.v2", append(lines, sprintf("ld.global%s.v2.u32 {%s, %s}, [%s];", nc, t0, t1, a),
				sprintf("xor.b32 %s, %s, %s;", fg.sv(ClassB32), t0, r.pick(t1, fg.sv(ClassB32))))...)
		}
		lines, a := fg.addr(fg.inU32, inU32N/4-1, 16)
		t := []string{fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32)}
		return leaf("mem.ld.v4", append(lines, sprintf("ld.global%s.v4.u32 {%s, %s, %s, %s}, [%s];", nc, t[0], t[1], t[2], t[3], a),
			sprintf("add.u32 %s, %s, %s;", fg.sv(ClassB32), t[r.intn(4)], t[r.intn(4)]),
			sprintf("mov.u32 %s, %s;", fg.sv(ClassB32), t[r.intn(4)]))...)
	case 5:
		lines, a := fg.addr(fg.inU32, inU32N/2-1, 8)
		return leaf("mem.ld.u64", append(lines, sprintf("ld.global%s.u64 %s, [%s];", nc, fg.sv(ClassB64), a))...)
	case 6:
		if r.percent(60) {
			lines, a := fg.addr(fg.inF32, inF32N-1, 4)
			return leaf("mem.ld.f32", append(lines, sprintf("ld.global%s.f32 %s, [%s];", nc, fg.sv(ClassF32), a))...)
		}
		lines, a := fg.addr(fg.inF32, inF32N/4-1, 16)
		t := []string{fg.tmp(ClassF32), fg.tmp(ClassF32), fg.tmp(ClassF32), fg.tmp(ClassF32)}
		return leaf("mem.ld.v4.f32", append(lines, sprintf("ld.global%s.v4.f32 {%s, %s, %s, %s}, [%s];", nc, t[0], t[1], t[2], t[3], a),
			sprintf("add.rn.f32 %s, %s, %s;", fg.sv(ClassF32), t[r.intn(4)], t[r.intn(4)]))...)
	case 7:
		if r.percent(30) {
			lines, a := fg.addr(fg.inF64, inF64N/2-1, 16)
			t0, t1 := fg.tmp(ClassF64), fg.tmp(ClassF64)
			return leaf("mem.ld.v2.f64", append(lines, sprintf("ld.global%s.v2.f64 {%s, %s}, [%s];", nc, t0, t1, a),
				sprintf("sub.rn.f64 %s, %s, %s;", fg.sv(ClassF64), t0, t1))...)
		}
		lines, a := fg.addr(fg.inF64, inF64N-1, 8)
		return leaf("mem.ld.f64", append(lines, sprintf("ld.global%s.f64 %s, [%s];", nc, fg.sv(ClassF64), a))...)
	}
	// ldu: the address is the same for every thread of the warp.
	i, a := fg.tmp(ClassB32), fg.tmp(ClassB64)
	return leaf("mem.ldu", sprintf("and.b32 %s, %s, %d;", i, fg.usrc(ClassB32), inU32N-1),
		sprintf("mul.wide.u32 %s, %s, 4;", a, i),
		sprintf("add.s64 %s, %s, %s;", a, fg.inU32, a),
		sprintf("ldu.global.u32 %s, [%s];", fg.sv(ClassB32), a))
}

// slotBase picks one of the ways to reach the thread's scratch slots:
// the generic pointer (plain ld/st), its global-window form (.global),
// or the aliasing parameter (generic).
func (fg *fgen) slotBase() (base, space string) {
	r := fg.r
	switch {
	case fg.midA != "" && r.percent(25):
		return fg.midA, ""
	case fg.midG != "" && r.percent(60):
		return fg.midG, ".global"
	}
	return fg.mid, ""
}

// slotAccess picks an access size and a slot index aligned to it.
func (fg *fgen) slotAccess() (vec, ty string, slot int, size int) {
	r := fg.r
	switch r.intn(8) {
	case 0:
		return "", r.pick("u8", "s8"), 0, 1
	case 1:
		return "", r.pick("u16", "s16"), 0, 2
	case 2:
		return ".v2", "u32", 2 * r.intn(midWords/2), 8
	case 3:
		return ".v4", "u32", 4 * r.intn(midWords/4), 16
	case 4:
		return "", r.pick("u64", "f64"), 2 * r.intn(midWords/2), 8
	case 5:
		return "", "f32", r.intn(midWords), 4
	}
	return "", r.pick("u32", "b32", "s32"), r.intn(midWords), 4
}

// value returns a register of the right class for a scalar access of ty.
func (fg *fgen) valueFor(ty string, load bool) string {
	switch ty {
	case "u64", "s64", "b64":
		return fg.sv(ClassB64)
	case "f64":
		return fg.sv(ClassF64)
	case "f32":
		return fg.sv(ClassF32)
	case "u8", "s8", "u16", "s16":
		if fg.r.percent(30) {
			return fg.sv(ClassB16)
		}
	}
	if load {
		return fg.sv(ClassB32)
	}
	return fg.reg(ClassB32)
}

func (fg *fgen) slotStore() *Leaf {
	r := fg.r
	base, space := fg.slotBase()
	vec, ty, slot, size := fg.slotAccess()
	off := slot * 4
	if size < 4 {
		off = r.intn(midWords*4/size) * size
	}
	var lines []string
	addr := sprintf("[%s+%d]", base, off)
	if vec == "" && size == 4 && r.percent(40) {
		// A computed slot.
		ls, a := fg.addr(base, midWords-1, 4)
		lines, addr = ls, "["+a+"]"
	}
	switch vec {
	case ".v2":
		lines = append(lines, sprintf("st%s.v2.u32 %s, {%s, %s};", space, addr, fg.reg(ClassB32), fg.reg(ClassB32)))
	case ".v4":
		lines = append(lines, sprintf("st%s.v4.u32 %s, {%s, %s, %s, %s};", space, addr, fg.reg(ClassB32), fg.reg(ClassB32), fg.reg(ClassB32), fg.reg(ClassB32)))
	default:
		lines = append(lines, sprintf("st%s.%s %s, %s;", space, ty, addr, fg.valueFor(ty, false)))
	}
	return leaf("mem.st"+space+vec+"."+ty, lines...)
}

func (fg *fgen) slotLoad() *Leaf {
	r := fg.r
	base, space := fg.slotBase()
	vec, ty, slot, size := fg.slotAccess()
	off := slot * 4
	if size < 4 {
		off = r.intn(midWords*4/size) * size
	}
	var lines []string
	addr := sprintf("[%s+%d]", base, off)
	if vec == "" && size == 4 && r.percent(40) {
		ls, a := fg.addr(base, midWords-1, 4)
		lines, addr = ls, "["+a+"]"
	}
	switch vec {
	case ".v2":
		t0, t1 := fg.tmp(ClassB32), fg.tmp(ClassB32)
		lines = append(lines, sprintf("ld%s.v2.u32 {%s, %s}, %s;", space, t0, t1, addr),
			sprintf("sub.u32 %s, %s, %s;", fg.sv(ClassB32), t0, t1))
	case ".v4":
		t := []string{fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32)}
		lines = append(lines, sprintf("ld%s.v4.u32 {%s, %s, %s, %s}, %s;", space, t[0], t[1], t[2], t[3], addr),
			sprintf("lop3.b32 %s, %s, %s, %s, 0x96;", fg.sv(ClassB32), t[0], t[r.intn(4)], t[3]))
	default:
		lines = append(lines, sprintf("ld%s.%s %s, %s;", space, ty, fg.valueFor(ty, true), addr))
	}
	return leaf("mem.ld"+space+vec+"."+ty, lines...)
}

// localLeaf reads or writes the function's local array (which the
// prologue fills, so every load reads a defined value).
func (fg *fgen) localLeaf() *Leaf {
	r := fg.r
	if fg.loc == "" {
		return nil
	}
	store := r.percent(50)
	var lines []string
	var addr, space string
	switch r.intn(3) {
	case 0:
		addr, space = sprintf("[%s+%d]", fg.loc, 4*r.intn(locWords)), ".local"
	case 1:
		base := fg.tmp(ClassB64)
		lines = append(lines, sprintf("mov.u64 %s, %s;", base, fg.loc))
		ls, a := fg.addr(base, locWords-1, 4)
		lines = append(lines, ls...)
		addr, space = "["+a+"]", ".local"
	default:
		// Generic addressing of the local window.
		base := fg.tmp(ClassB64)
		lines = append(lines, sprintf("mov.u64 %s, %s;", base, fg.loc), sprintf("cvta.local.u64 %s, %s;", base, base))
		ls, a := fg.addr(base, locWords-1, 4)
		lines = append(lines, ls...)
		addr = "[" + a + "]"
	}
	ty := r.pick("u32", "b32", "f32", "s32")
	if store {
		lines = append(lines, sprintf("st%s.%s %s, %s;", space, ty, addr, fg.valueFor(ty, false)))
		return leaf("local.st"+space, lines...)
	}
	lines = append(lines, sprintf("ld%s.%s %s, %s;", space, ty, fg.valueFor(ty, true), addr))
	return leaf("local.ld"+space, lines...)
}
