package opt

// LateArchOptimizeSecond (phase 89): fold a shift-and-add into LEA.
//
// Address arithmetic scales an index and adds a base. orilab's lowering
// and the optimizer leave that as two instructions,
//
//	SHF.L.U32 %t = %i, 0x2, RZ          (or IMAD.SHL %t = %i, 0x2, RZ)
//	IADD3 %d = c[0x0][0x160], %t, RZ
//
// where SASS has one: LEA d = a, b, s computes (a << s) + b, b a
// register, an immediate or a constant-bank word (ptxas 13.0.88 emits
// 1,022 LEA/LEA.HI over the corpus at -O3, orilab none). The pair becomes
//
//	LEA %d = %i, c[0x0][0x160], 0x2
//
// Conditions: the shift is unguarded, by an immediate 1-31, with RZ as
// addend; its result %t is read only by the IADD3, which is unguarded, in
// the same block, adds %t to one other operand and RZ, none negated, and
// writes no carry (no predicate result, or PT); nothing between the two
// writes the shifted register. The 64-bit forms (LEA, LEA.HI.X pairs) are
// not folded.
//
// Decision: the wiki names LateArchOptimizeSecond as an architecture-
// specific late pass without listing its contents; orilab puts this fold
// there, after the late expansions (LateExpansionUnsupportedOps, whose
// divisions and remainders compute addresses too) and before allocation.
//
// Knob: DisableLEAFold switches it off (as DisablePhases does). Each fold
// is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableLEAFold", Type: knobs.TypeBool,
		Doc:     "Switch off folding a shift-and-add into LEA (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// FoldLEA is the LateArchOptimizeSecond pass.
var FoldLEA = Pass{
	Run:  foldLEA,
	NoOp: offBy("DisableLEAFold"),
}

func foldLEA(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableLEAFold") {
		return false, nil
	}
	reads := virtualReads(f)
	changed := false
	for _, b := range f.Blocks {
		for i := 0; i < len(b.Insts); i++ {
			y := b.Insts[i]
			t, other, ok := leaAdd(y)
			if !ok || reads.of(cmRegOf(t)) != 1 {
				continue
			}
			xi, a, k := leaShift(b, i, t)
			if xi < 0 {
				continue
			}
			x := b.Insts[xi]
			if !c.Sites.Allow(f, x.ID, "fold a shift-and-add into LEA") {
				continue
			}
			lea := ori.NewInst(ori.OpLEA)
			lea.ID, lea.Line = y.ID, y.Line
			lea.Dsts = []ori.Operand{y.Dsts[0]}
			lea.Srcs = []ori.Operand{a, other, ori.Imm(k)}
			b.Insts[i] = lea
			b.Insts = append(b.Insts[:xi], b.Insts[xi+1:]...)
			i--
			changed = true
		}
	}
	return changed, nil
}

// leaAdd matches y as IADD3 d = t + other + RZ with no carry out and
// returns t (a virtual R word) and the other operand.
func leaAdd(y *ori.Inst) (ori.Reg, ori.Operand, bool) {
	var none ori.Operand
	if y.Op != ori.OpIADD3 || len(y.Mods) != 0 || y.Guarded() || len(y.Srcs) != 3 || len(y.Dsts) == 0 || len(y.Dsts) > 2 {
		return ori.Reg{}, none, false
	}
	d := y.Dsts[0]
	if d.Kind != ori.OpdReg || d.Reg.Class != ori.ClassR || d.Reg.Words != 1 {
		return ori.Reg{}, none, false
	}
	for _, p := range y.Dsts[1:] {
		if p.Kind != ori.OpdReg || p.Reg != ori.PT {
			return ori.Reg{}, none, false
		}
	}
	var rz, regs []int
	for j, o := range y.Srcs {
		switch {
		case o.Neg || o.Abs || o.Not:
			return ori.Reg{}, none, false
		case o.Kind == ori.OpdReg && o.Reg.IsZero():
			rz = append(rz, j)
		case o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.Words == 1:
			regs = append(regs, j)
		}
	}
	if len(rz) != 1 || len(regs) == 0 {
		return ori.Reg{}, none, false
	}
	// t is the first virtual register source; the other non-RZ operand
	// (a register, an immediate or a constant-bank word) is the addend.
	tj := regs[0]
	oj := -1
	for j := range y.Srcs {
		if j != tj && j != rz[0] {
			oj = j
		}
	}
	o := y.Srcs[oj]
	switch o.Kind {
	case ori.OpdReg:
		if o.Reg.Class != ori.ClassR || o.Reg.Words != 1 {
			return ori.Reg{}, none, false
		}
	case ori.OpdImm, ori.OpdCBank:
	default:
		return ori.Reg{}, none, false
	}
	return y.Srcs[tj].Reg, o, true
}

// leaShift finds, before index i of b, the unguarded instruction that
// writes t as a left shift of a register by an immediate 1-31 with RZ as
// addend, when nothing in between writes that register. It returns its
// index, the shifted operand and the shift count, or -1.
func leaShift(b *ori.Block, i int, t ori.Reg) (int, ori.Operand, int64) {
	var none ori.Operand
	for j := i - 1; j >= 0; j-- {
		x := b.Insts[j]
		writes := false
		for _, o := range x.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Overlaps(t) {
				writes = true
			}
		}
		if !writes {
			continue
		}
		if x.Guarded() || len(x.Dsts) != 1 || x.Dsts[0].Reg != t || len(x.Srcs) != 3 {
			return -1, none, 0
		}
		a, k, z := x.Srcs[0], x.Srcs[1], x.Srcs[2]
		shift := x.Op == ori.OpSHF && len(x.Mods) == 2 && x.Mods[0] == "L" && x.Mods[1] == "U32" ||
			x.Op == ori.OpIMAD && len(x.Mods) >= 1 && x.Mods[0] == "SHL" && (len(x.Mods) == 1 || len(x.Mods) == 2 && x.Mods[1] == "U32")
		if !shift || a.Kind != ori.OpdReg || a.Neg || a.Reg.Class != ori.ClassR || a.Reg.Words != 1 ||
			k.Kind != ori.OpdImm || k.Imm < 1 || k.Imm > 31 || z.Kind != ori.OpdReg || !z.Reg.IsZero() {
			return -1, none, 0
		}
		for m := j + 1; m < i; m++ {
			for _, o := range b.Insts[m].Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Overlaps(a.Reg) {
					return -1, none, 0
				}
			}
		}
		return j, a, k.Imm
	}
	return -1, none, 0
}
