package opt

// LateArchOptimizeSecond (phase 89), 64-bit LEA fold: a 64-bit
// shift-and-add becomes LEA plus LEA.HI.X.
//
// A 64-bit address base + (i << s) with a 64-bit index i is lowered as
// two shifts and a 64-bit add:
//
//	SHF.L.U64.HI %t[1] = %i, 0x2, %i[1]
//	SHF.L.U32 %t = %i, 0x2, RZ
//	IADD3 %d, %p = c[0x0][0x160], %t, RZ
//	IADD3.X %d[1] = c[0x0][0x164], %t[1], RZ, %p, !PT
//
// SASS has the pair LEA (low word, with the carry out) and LEA.HI.X (the
// high word of the shifted pair plus the addend's high word and the
// carry), which is what ptxas 13.0.88 emits (orilab had 309
// SHF.L.U64.HI over the corpus at -O3, ptxas 24). The four become
//
//	LEA %d, %p = %i, c[0x0][0x160], 0x2
//	LEA.HI.X %d[1] = %i, c[0x0][0x164], %i[1], 0x2, %p
//
// The addend is a constant-bank pair (words k and k+4 of one bank, k a
// multiple of 8) or the two words of one virtual register pair.
//
// Conditions: all four unguarded and in one block, the shift count an
// immediate 1-31 and the same in both shifts, the low shift by SHF.L.U32
// or IMAD.SHL with RZ addend (as the 32-bit fold, leafold.go); %t read
// only by the two adds and %p only by IADD3.X, which directly follows the
// IADD3; nothing between a shift and its add writes the shifted words.
//
// Knob: DisableLEAHIFold switches it off. Each fold is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableLEAHIFold", Type: knobs.TypeBool,
		Doc:     "Switch off folding a 64-bit shift-and-add into LEA and LEA.HI.X (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// FoldLEAHI is the 64-bit LEA fold of LateArchOptimizeSecond.
var FoldLEAHI = Pass{
	Run:  foldLEAHI,
	NoOp: offBy("DisableLEAHIFold"),
}

func foldLEAHI(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableLEAHIFold") {
		return false, nil
	}
	reads := virtualReads(f)
	changed := false
	for _, b := range f.Blocks {
		for i := 1; i+1 < len(b.Insts); i++ {
			y, z := b.Insts[i], b.Insts[i+1]
			lo, hi, t, ok := leaHIAdd(y, z)
			if !ok || reads.of(cmRegOf(t)) != 2 || reads.of(cmRegOf(y.Dsts[1].Reg)) != 1 {
				continue
			}
			xl, a, k := leaShift(b, i, t)
			if xl < 0 {
				continue
			}
			th := t
			th.Off = 1
			xh, ahi := leaHIShift(b, i+1, th, a.Reg, k)
			if xh < 0 || xh == xl {
				continue
			}
			if !c.Sites.Allow(f, y.ID, "fold a 64-bit shift-and-add into LEA and LEA.HI.X") {
				continue
			}
			l := ori.NewInst(ori.OpLEA)
			l.ID, l.Line = y.ID, y.Line
			l.Dsts = []ori.Operand{y.Dsts[0], y.Dsts[1]}
			l.Srcs = []ori.Operand{a, lo, ori.Imm(k)}
			h := ori.NewInst(ori.OpLEA, "HI", "X")
			h.ID, h.Line = z.ID, z.Line
			h.Dsts = []ori.Operand{z.Dsts[0]}
			h.Srcs = []ori.Operand{a, hi, ahi, ori.Imm(k), z.Srcs[3]}
			b.Insts[i], b.Insts[i+1] = l, h
			out := b.Insts[:0]
			for j, in := range b.Insts {
				if j != xl && j != xh {
					out = append(out, in)
				}
			}
			b.Insts = out
			i -= 2
			if i < 0 {
				i = 0
			}
			changed = true
		}
	}
	return changed, nil
}

// leaHIAdd matches y, z as the 64-bit add of the virtual pair t to an
// addend pair: IADD3 d, p = lo, t, RZ and IADD3.X d[1] = hi, t[1], RZ, p,
// !PT (either order of the first two sources). It returns the addend's
// words and t's low word.
func leaHIAdd(y, z *ori.Inst) (lo, hi ori.Operand, t ori.Reg, ok bool) {
	if y.Op != ori.OpIADD3 || len(y.Mods) != 0 || y.Guarded() || len(y.Dsts) != 2 || len(y.Srcs) != 3 ||
		z.Op != ori.OpIADD3 || len(z.Mods) != 1 || z.Mods[0] != "X" || z.Guarded() || len(z.Dsts) != 1 || len(z.Srcs) != 5 {
		return
	}
	d, p, dh := y.Dsts[0], y.Dsts[1], z.Dsts[0]
	if d.Kind != ori.OpdReg || d.Reg.Class != ori.ClassR || d.Reg.Words != 1 ||
		p.Kind != ori.OpdReg || !p.Reg.Virtual || p.Reg.Class != ori.ClassP ||
		dh.Kind != ori.OpdReg || dh.Reg.Class != ori.ClassR || dh.Reg.Words != 1 {
		return
	}
	lo, t, ok1 := leaHISrcs(y.Srcs)
	hi, th, ok2 := leaHISrcs(z.Srcs[:3])
	if !ok1 || !ok2 || t.Off != 0 || th.N != t.N || th.Off != 1 {
		return
	}
	carry, last := z.Srcs[3], z.Srcs[4]
	if carry.Kind != ori.OpdReg || carry.Reg != p.Reg || carry.Not || last.Kind != ori.OpdReg || last.Reg != ori.PT || !last.Not {
		return
	}
	switch {
	case lo.Kind == ori.OpdCBank && hi.Kind == ori.OpdCBank:
		if lo.HasBase || hi.HasBase || hi.Bank != lo.Bank || hi.Imm != lo.Imm+4 || lo.Imm%8 != 0 {
			return
		}
	case lo.Kind == ori.OpdReg && hi.Kind == ori.OpdReg:
		if !lo.Reg.Virtual || hi.Reg.N != lo.Reg.N || !hi.Reg.Virtual || lo.Reg.Off+1 != hi.Reg.Off {
			return
		}
	default:
		return
	}
	return lo, hi, t, true
}

// leaHISrcs finds, among three IADD3 sources, RZ, one virtual R word t of
// a pair and one other operand (a constant-bank word or an R word), none
// negated. When both non-RZ operands are virtual words, the first is taken
// as t.
func leaHISrcs(srcs []ori.Operand) (ori.Operand, ori.Reg, bool) {
	var other ori.Operand
	var t ori.Reg
	rz, nt, no := 0, 0, 0
	for _, o := range srcs {
		switch {
		case o.Neg || o.Abs || o.Not:
			return other, t, false
		case o.Kind == ori.OpdReg && o.Reg.IsZero():
			rz++
		case o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.Words == 1 && nt == 0:
			t = o.Reg
			nt++
		case o.Kind == ori.OpdCBank || o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassR && o.Reg.Words == 1:
			other = o
			no++
		default:
			return other, t, false
		}
	}
	return other, t, rz == 1 && nt == 1 && no == 1
}

// leaHIShift finds, before index i of b, the unguarded SHF.L.U64.HI that
// writes th from the low word lo and a high word by the immediate k, when
// nothing between it and i writes lo or the high word. It returns its
// index and the high-word operand, or -1.
func leaHIShift(b *ori.Block, i int, th, lo ori.Reg, k int64) (int, ori.Operand) {
	var none ori.Operand
	for j := i - 1; j >= 0; j-- {
		x := b.Insts[j]
		writes := false
		for _, o := range x.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Overlaps(th) {
				writes = true
			}
		}
		if !writes {
			continue
		}
		if x.Op != ori.OpSHF || x.Guarded() || len(x.Mods) != 3 || x.Mods[0] != "L" || x.Mods[1] != "U64" || x.Mods[2] != "HI" ||
			len(x.Dsts) != 1 || x.Dsts[0].Reg != th || len(x.Srcs) != 3 {
			return -1, none
		}
		a, s, h := x.Srcs[0], x.Srcs[1], x.Srcs[2]
		if a.Kind != ori.OpdReg || a.Reg != lo || a.Neg || s.Kind != ori.OpdImm || s.Imm != k ||
			h.Kind != ori.OpdReg || h.Neg || h.Reg.Class != ori.ClassR || h.Reg.Words != 1 {
			return -1, none
		}
		for m := j + 1; m < i; m++ {
			for _, o := range b.Insts[m].Dsts {
				if o.Kind == ori.OpdReg && (o.Reg.Overlaps(lo) || o.Reg.Overlaps(h.Reg)) {
					return -1, none
				}
			}
		}
		return j, h
	}
	return -1, none
}
