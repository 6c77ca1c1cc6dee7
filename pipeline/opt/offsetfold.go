package opt

// LateArchOptimizeSecond (phase 89), offset fold: constant increments of
// a 64-bit address fold into the immediates of the loads and stores that
// use it.
//
// An unrolled loop that walks a pointer keeps the PTX's increment in
// every copy, so each copy pays a 64-bit add (IADD3 plus IADD3.X) per
// pointer:
//
//	LDG.E %r10 = [%r7.64]
//	IADD3 %r7, %p2 = %r7, 0x4, RZ
//	IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p2, !PT
//	LDG.E %r13 = [%r7.64]
//	IADD3 %r7, %p5 = %r7, 0x4, RZ
//	IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p5, !PT
//	BRA BB1
//
// where ptxas 13.0.88 addresses the copies from one register with
// immediates ([R4.64+0x4], [R4.64+0x8]...). The pass delays the
// increments: walking a block, it deletes each in-place 64-bit add of an
// immediate to a virtual pair and remembers the pending amount; a load or
// store (LDG, STG, LD, ST, ATOMG, RED) whose address is the pair gets the
// amount added to its immediate; any other read of the pair, a call, the
// block's terminator or its end first writes the amount back with one
// 64-bit add:
//
//	LDG.E %r10 = [%r7.64]
//	LDG.E %r13 = [%r7.64+0x4]
//	IADD3 %r7, %p10 = %r7, 0x8, RZ
//	IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p10, !PT
//	BRA BB1
//
// Conditions: the add is unguarded, its two halves adjacent, the
// immediate a sign-extended 32-bit value (the .X half adds its high
// word), its carry predicate read only by the .X half; the pair is
// virtual and written by nothing else while an amount is pending (a
// write that does not read it ends the pending amount: the old value is
// dead). An address immediate must stay within SASS's 24 signed bits;
// otherwise the amount is written back first.
//
// Decision: orilab folds the increments late, after unrolling and the
// last LICM position that could move them, at the LateArchOptimize hook
// (see leafold.go); OriPerformLiveDeadFourth follows.
//
// Knob: DisableOffsetFold switches it off. Each deleted add is one site.

import (
	"slices"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableOffsetFold", Type: knobs.TypeBool,
		Doc:     "Switch off folding constant increments of a 64-bit address into load/store immediates (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// FoldOffsets is the offset fold of LateArchOptimizeSecond.
var FoldOffsets = Pass{
	Run:  foldOffsets,
	NoOp: offBy("DisableOffsetFold"),
}

// offsetMemOps are the memory instructions whose address immediate the
// fold adjusts.
var offsetMemOps = map[ori.Opcode]bool{ori.OpLDG: true, ori.OpSTG: true, ori.OpLD: true, ori.OpST: true, ori.OpATOMG: true, ori.OpRED: true}

func foldOffsets(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableOffsetFold") {
		return false, nil
	}
	reads := virtualReads(f)
	changed := false
	for _, b := range f.Blocks {
		ch := foldOffsetsBlock(f, b, reads, c)
		changed = changed || ch
	}
	return changed, nil
}

func foldOffsetsBlock(f *ori.Func, b *ori.Block, reads *regReads, c *Context) bool {
	pending := map[int32]int64{} // pair register number -> amount not yet added
	changed := false
	out := make([]*ori.Inst, 0, len(b.Insts))
	flush := func(n int32, line int32) {
		amt, ok := pending[n]
		if !ok {
			return
		}
		delete(pending, n)
		if amt == 0 {
			return
		}
		out = append(out, offsetAdd(f, n, amt, line)...)
	}
	flushAll := func(line int32) {
		for _, n := range pendingRegs(pending) {
			flush(n, line)
		}
	}
	for i := 0; i < len(b.Insts); i++ {
		in := b.Insts[i]
		if i+1 < len(b.Insts) {
			if n, amt, ok := offsetIncrement(in, b.Insts[i+1], reads); ok &&
				c.Sites.Allow(f, in.ID, "fold an address increment into load/store immediates") {
				pending[n] += amt
				i++
				changed = true
				continue
			}
		}
		if in.EndsBlock() || in.Op.Has(ori.FCall) {
			flushAll(in.Line)
			out = append(out, in)
			continue
		}
		if len(pending) > 0 {
			// Loads and stores take the amount into their immediate.
			adjusted := int32(-1)
			if offsetMemOps[in.Op] && len(in.Srcs) > 0 {
				a := in.Srcs[0]
				if amt, ok := pending[a.Reg.N]; ok && a.Kind == ori.OpdMem && a.HasBase && offsetPair(a.Reg) {
					if off := a.Imm + amt; off >= -(1<<23) && off < 1<<23 && !offsetReadsElsewhere(in, a.Reg.N) {
						in.Srcs[0].Imm = off
						adjusted = a.Reg.N
					}
				}
			}
			// Any other read writes the amount back first.
			for _, n := range pendingRegs(pending) {
				if n != adjusted && offsetReads(in, n) {
					flush(n, in.Line)
				}
			}
			// A write ends it: a full write of the pair makes the old
			// value dead, a partial one needs it added first.
			for _, n := range pendingRegs(pending) {
				full, partial := offsetWrites(in, n)
				switch {
				case partial:
					flush(n, in.Line)
				case full:
					delete(pending, n)
				}
			}
		}
		out = append(out, in)
	}
	flushAll(0)
	b.Insts = out
	return changed
}

// pendingRegs returns the registers with a pending amount in increasing
// order, so that the output does not depend on map order.
func pendingRegs(pending map[int32]int64) []int32 {
	ns := make([]int32, 0, len(pending))
	for n := range pending {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// offsetPair reports whether r is a whole virtual R pair (the address
// registers the fold tracks).
func offsetPair(r ori.Reg) bool {
	return r.Virtual && r.Class == ori.ClassR && r.Off == 0 && r.Words == 2
}

// offsetIncrement matches y, z as the in-place 64-bit add of an immediate
// to a virtual pair: IADD3 %a, %p = %a, lo, RZ; IADD3.X %a[1] = %a[1],
// hi, RZ, %p, !PT with hi the sign extension of lo and %p read only
// there. It returns the pair's register number and the amount.
func offsetIncrement(y, z *ori.Inst, reads *regReads) (int32, int64, bool) {
	if y.Op != ori.OpIADD3 || len(y.Mods) != 0 || y.Guarded() || len(y.Dsts) != 2 || len(y.Srcs) != 3 ||
		z.Op != ori.OpIADD3 || len(z.Mods) != 1 || z.Mods[0] != "X" || z.Guarded() || len(z.Dsts) != 1 || len(z.Srcs) != 5 {
		return 0, 0, false
	}
	d, p, dh := y.Dsts[0].Reg, y.Dsts[1].Reg, z.Dsts[0].Reg
	if y.Dsts[0].Kind != ori.OpdReg || !d.Virtual || d.Class != ori.ClassR || d.Off != 0 || d.Words != 1 ||
		y.Dsts[1].Kind != ori.OpdReg || !p.Virtual || p.Class != ori.ClassP || reads.of(cmRegOf(p)) != 1 ||
		z.Dsts[0].Kind != ori.OpdReg || dh.N != d.N || !dh.Virtual || dh.Class != ori.ClassR || dh.Off != 1 || dh.Words != 1 {
		return 0, 0, false
	}
	lo, ok1 := offsetImmAdd(y.Srcs, d)
	hi, ok2 := offsetImmAdd(z.Srcs[:3], dh)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	carry, last := z.Srcs[3], z.Srcs[4]
	if carry.Kind != ori.OpdReg || carry.Reg != p || carry.Not || last.Kind != ori.OpdReg || last.Reg != ori.PT || !last.Not {
		return 0, 0, false
	}
	amt := int64(int32(uint32(lo)))
	if uint32(hi) != uint32(uint64(amt)>>32) {
		return 0, 0, false
	}
	return d.N, amt, true
}

// offsetImmAdd finds, among three IADD3 sources, exactly r itself, one
// integer immediate and RZ, none negated, and returns the immediate.
func offsetImmAdd(srcs []ori.Operand, r ori.Reg) (int64, bool) {
	var imm int64
	nr, ni, nz := 0, 0, 0
	for _, o := range srcs {
		switch {
		case o.Neg || o.Abs || o.Not:
			return 0, false
		case o.Kind == ori.OpdReg && o.Reg.IsZero():
			nz++
		case o.Kind == ori.OpdReg && o.Reg == r:
			nr++
		case o.Kind == ori.OpdImm && o.FKind == ori.ImmInt:
			imm = o.Imm
			ni++
		default:
			return 0, false
		}
	}
	return imm, nr == 1 && ni == 1 && nz == 1
}

// offsetReads reports whether in reads any word of virtual R register n
// (as a register, a guard, or an address base).
func offsetReads(in *ori.Inst, n int32) bool {
	found := false
	cmReads(in, func(r ori.Reg) {
		if r.Virtual && r.Class == ori.ClassR && r.N == n {
			found = true
		}
	})
	return found
}

// offsetReadsElsewhere reports whether in reads register n other than as
// the base of its first source (the address the fold adjusts).
func offsetReadsElsewhere(in *ori.Inst, n int32) bool {
	saved := in.Srcs[0]
	in.Srcs[0] = ori.Imm(0)
	r := offsetReads(in, n)
	in.Srcs[0] = saved
	return r
}

// offsetWrites reports whether in writes the whole pair n (full) or only
// part of it, or any of it under a guard (partial).
func offsetWrites(in *ori.Inst, n int32) (full, partial bool) {
	words := 0
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.N == n {
			for w := 0; w < int(o.Reg.Words); w++ {
				if x := int(o.Reg.Off) + w; x < 2 {
					words |= 1 << x
				}
			}
		}
	}
	switch {
	case words == 0:
		return false, false
	case words == 3 && !in.Guarded():
		return true, false
	}
	return false, true
}

// offsetAdd returns the 64-bit add of amt to virtual pair n.
func offsetAdd(f *ori.Func, n int32, amt int64, line int32) []*ori.Inst {
	lo := ori.VReg(ori.ClassR, int(n), 1)
	hi := lo
	hi.Off = 1
	p := f.NewVReg(ori.ClassP, 1)
	y := ori.NewInst(ori.OpIADD3)
	y.ID, y.Line = f.NewID(), line
	y.Dsts = []ori.Operand{ori.R(lo), ori.R(p)}
	y.Srcs = []ori.Operand{ori.R(lo), ori.Imm(int64(uint32(amt))), ori.R(ori.RZ)}
	z := ori.NewInst(ori.OpIADD3, "X")
	z.ID, z.Line = f.NewID(), line
	np := ori.R(ori.PT)
	np.Not = true
	z.Dsts = []ori.Operand{ori.R(hi)}
	z.Srcs = []ori.Operand{ori.R(hi), ori.Imm(int64(uint32(uint64(amt) >> 32))), ori.R(ori.RZ), ori.R(p), np}
	return []*ori.Inst{y, z}
}
