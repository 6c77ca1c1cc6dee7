package ptxgen

// Shared memory and CTA barriers. Shared memory starts undefined, so a
// thread reads only words written since the last barrier by a known
// thread:
//   - an exchange writes the thread's own word of shx (or of the dynamic
//     array dsh), waits at a barrier, reads the word of thread
//     (tid + k) mod ntid, and waits again so the next exchange cannot
//     overwrite a word before it is read;
//   - the shared counters (initialised in the kernel's prologue) take
//     atomics anywhere, and are read only between two barriers;
//   - bar.red reduces a predicate over the CTA.
// All of these are barriers, so they appear only where ctx.converged.

func (fg *fgen) barrier() string {
	return fg.r.pick("bar.sync 0;", "bar.sync 0;", "barrier.sync 0;", "barrier.sync.aligned 0;", "bar.sync 1;")
}

func (fg *fgen) sharedLeaf(c ctx) Stmt {
	r := fg.r
	if !c.converged {
		if fg.shc == "" {
			return nil
		}
		return fg.sharedAtomic()
	}
	switch n := r.intn(10); {
	case n < 5:
		return fg.exchange()
	case n < 7 && fg.shc != "":
		k := r.intn(len(shcOps))
		d := fg.sv(ClassB32)
		if shcOps[k].ty == "f32" {
			d = fg.sv(ClassF32)
		}
		b1 := fg.barrier()
		return leaf("shared.counter", b1,
			sprintf("ld.shared.%s %s, [%s+%d];", shcOps[k].ty, d, fg.shc, 4*k),
			b1)
	case n < 9:
		op := r.pick("popc", "and", "or")
		lines, q := fg.cond()
		if op == "popc" {
			return leaf("shared.bar.red.popc", append(lines, sprintf("bar.red.popc.u32 %s, 0, %s;", fg.sv(ClassB32), notp(r, q)))...)
		}
		return leaf("shared.bar.red."+op, append(lines, sprintf("bar.red.%s.pred %s, 0, %s;", op, fg.sv(ClassPred), notp(r, q)))...)
	}
	if fg.shc == "" {
		return fg.exchange()
	}
	return fg.sharedAtomic()
}

// exchange writes the thread's own shared word, and after a barrier reads
// another thread's.
func (fg *fgen) exchange() *Leaf {
	r := fg.r
	arr := fg.shx
	if fg.g.p.Launch.DynamicShared > 0 && r.percent(50) {
		arr = "dsh"
	}
	nt := fg.uni[ClassB32][0] // threads per CTA
	base, own, other, j := fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32), fg.tmp(ClassB32)
	v := fg.reg(ClassB32)
	d := fg.sv(ClassB32)
	ty := "u32"
	if r.percent(25) {
		v, d, ty = fg.reg(ClassF32), fg.sv(ClassF32), "f32"
	}
	b1 := fg.barrier()
	lines := []string{
		sprintf("mov.u32 %s, %s;", base, arr),
		sprintf("shl.b32 %s, %s, 2;", own, fg.tid),
		sprintf("add.u32 %s, %s, %s;", own, base, own),
		sprintf("st.shared.%s [%s], %s;", ty, own, v),
		b1,
	}
	if r.percent(50) {
		lines = append(lines, sprintf("add.u32 %s, %s, %d;", j, fg.tid, r.rangeIn(1, 40)))
	} else {
		// A data-dependent partner: any word is written by someone.
		lines = append(lines, sprintf("add.u32 %s, %s, %s;", j, fg.tid, fg.reg(ClassB32)))
	}
	lines = append(lines,
		sprintf("rem.u32 %s, %s, %s;", j, j, nt),
		sprintf("shl.b32 %s, %s, 2;", other, j),
		sprintf("add.u32 %s, %s, %s;", other, base, other))
	if r.percent(30) {
		g := fg.tmp(ClassB64)
		lines = append(lines, sprintf("cvt.u64.u32 %s, %s;", g, other),
			sprintf("cvta.shared.u64 %s, %s;", g, g),
			sprintf("ld.%s %s, [%s];", ty, d, g))
	} else {
		lines = append(lines, sprintf("ld.shared.%s %s, [%s];", ty, d, other))
	}
	lines = append(lines, b1)
	return leaf("shared.exchange."+arr, lines...)
}
