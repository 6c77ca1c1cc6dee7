package opt

// LateArchOptimizeSecond (phase 89), second fold: a predicate combination
// folds into the comparison that feeds it.
//
// ISETP, FSETP and DSETP compare and then combine the result with a third
// predicate operand by AND, OR or XOR. PTX's and.pred/or.pred/xor.pred of a
// setp's result lower to a separate PLOP3:
//
//	ISETP.LT.AND %p0, PT = %r4, c[0x0][0x168], PT
//	PLOP3.LUT %p2, PT = %p0, %p1, PT, 0xc0, 0x0        (p0 AND p1)
//
// where ptxas 13.0.88 writes one comparison with the other predicate as
// its third operand, `ISETP.LT.AND P1, PT, R2, c[0x0][0x168], !P0` (370
// over the corpus at -O3, orilab 55). The pair becomes
//
//	ISETP.LT.AND %p2, PT = %r4, c[0x0][0x168], %p1
//
// The PLOP3's function of its inputs, with the constant inputs (PT, !PT)
// put in, must be d OP x or d OP !x for the comparison's result d, one
// predicate x and OP one of AND, OR, XOR; !x becomes a negated operand.
// A PLOP3 that reads d negated is left alone (the comparison would have
// to be inverted, which for floating point changes the unordered cases).
//
// Conditions: both instructions unguarded and in one block; the
// comparison plain (AND with PT, PT as second result, no .EX chain
// operand); d virtual and read only by the PLOP3; nothing between the two
// writes the comparison's sources, which are read at the PLOP3's place
// afterwards.
//
// Decision: as for the LEA fold (leafold.go), the wiki names the
// LateArchOptimize rows architecture-specific peephole hooks without
// listing their rules; this one runs after the late expansions, whose
// division and comparison sequences produce such pairs too.
//
// Knob: DisableSetpPredFold switches it off. Each fold is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableSetpPredFold", Type: knobs.TypeBool,
		Doc:     "Switch off folding a PLOP3 of a comparison's result into the ISETP/FSETP/DSETP (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// FoldSetpPred is the predicate fold of LateArchOptimizeSecond.
var FoldSetpPred = Pass{
	Run:  foldSetpPred,
	NoOp: offBy("DisableSetpPredFold"),
}

func foldSetpPred(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableSetpPredFold") {
		return false, nil
	}
	reads := virtualReads(f)
	changed := false
	for _, b := range f.Blocks {
		for i := 0; i < len(b.Insts); i++ {
			z := b.Insts[i]
			if !isPLOP3Fold(z) {
				continue
			}
			for k := 0; k < 3; k++ {
				d := z.Srcs[k]
				if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassP || d.Not || reads.of(cmRegOf(d.Reg)) != 1 {
					continue
				}
				yi := plainSetpDef(b, i, d.Reg)
				if yi < 0 {
					continue
				}
				op, x, ok := plop3AsCombine(z, k)
				if !ok {
					continue
				}
				y := b.Insts[yi]
				if !c.Sites.Allow(f, z.ID, "fold a predicate combination into the comparison") {
					continue
				}
				nw := ori.NewInst(y.Op, append(append([]string(nil), y.Mods[:len(y.Mods)-1]...), op)...)
				nw.ID, nw.Line = z.ID, z.Line
				nw.Dsts = []ori.Operand{z.Dsts[0], ori.R(ori.PT)}
				nw.Srcs = []ori.Operand{y.Srcs[0], y.Srcs[1], x}
				b.Insts[i] = nw
				b.Insts = append(b.Insts[:yi], b.Insts[yi+1:]...)
				i--
				changed = true
				break
			}
		}
	}
	return changed, nil
}

// isPLOP3Fold reports whether z is an unguarded PLOP3.LUT whose second
// result is PT.
func isPLOP3Fold(z *ori.Inst) bool {
	return z.Op == ori.OpPLOP3 && !z.Guarded() && len(z.Dsts) == 2 && len(z.Srcs) == 5 &&
		z.Dsts[0].Kind == ori.OpdReg && z.Dsts[1].Kind == ori.OpdReg && z.Dsts[1].Reg == ori.PT &&
		z.Srcs[3].Kind == ori.OpdImm && z.Srcs[4].Kind == ori.OpdImm && z.Srcs[4].Imm == 0
}

// plop3AsCombine expresses PLOP3 z as d OP x where d is its input k: it
// returns OP and the operand x (PT when z ignores its other inputs is not
// accepted: that PLOP3 is a copy, for copy propagation).
func plop3AsCombine(z *ori.Inst, k int) (string, ori.Operand, bool) {
	var none ori.Operand
	xi := -1
	for j := 0; j < 3; j++ {
		if j == k {
			continue
		}
		o := z.Srcs[j]
		if o.Kind != ori.OpdReg || o.Reg.Class != ori.ClassP {
			return "", none, false
		}
		if o.Reg == ori.PT {
			continue
		}
		if xi >= 0 {
			return "", none, false // two other variable inputs
		}
		xi = j
	}
	if xi < 0 {
		return "", none, false
	}
	lut := z.Srcs[3].Imm
	// eval gives the PLOP3's value for d and x (x read as its register,
	// before the operand's own negation).
	eval := func(dv, xv bool) bool {
		idx := 0
		for j := 0; j < 3; j++ {
			o := z.Srcs[j]
			var v bool
			switch j {
			case k:
				v = dv
			case xi:
				v = xv
			default:
				v = true // PT
			}
			if o.Not {
				v = !v
			}
			if v {
				idx |= 1 << (2 - j)
			}
		}
		return lut>>idx&1 == 1
	}
	x := z.Srcs[xi]
	for _, neg := range []bool{false, true} {
		for _, op := range []string{"AND", "OR", "XOR"} {
			match := true
			for t := 0; t < 4; t++ {
				dv, xv := t&1 == 1, t&2 == 2
				xe := xv
				if x.Not {
					xe = !xe
				}
				if neg {
					xe = !xe
				}
				var want bool
				switch op {
				case "AND":
					want = dv && xe
				case "OR":
					want = dv || xe
				default:
					want = dv != xe
				}
				if eval(dv, xv) != want {
					match = false
					break
				}
			}
			if match {
				o := x
				o.Not = x.Not != neg
				return op, o, true
			}
		}
	}
	return "", none, false
}

// plainSetpDef returns the index before i in b of the unguarded plain
// ISETP/FSETP/DSETP (AND with PT, PT as second result) that writes d,
// when nothing between it and i writes its sources; -1 otherwise.
func plainSetpDef(b *ori.Block, i int, d ori.Reg) int {
	for j := i - 1; j >= 0; j-- {
		y := b.Insts[j]
		writes := false
		for _, o := range y.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Overlaps(d) {
				writes = true
			}
		}
		if !writes {
			continue
		}
		if y.Op != ori.OpISETP && y.Op != ori.OpFSETP && y.Op != ori.OpDSETP || y.Guarded() ||
			len(y.Mods) < 2 || y.Mods[len(y.Mods)-1] != "AND" || y.HasMod("EX") ||
			len(y.Dsts) != 2 || y.Dsts[0].Reg != d || y.Dsts[1].Kind != ori.OpdReg || y.Dsts[1].Reg != ori.PT ||
			len(y.Srcs) != 3 || y.Srcs[2].Kind != ori.OpdReg || y.Srcs[2].Reg != ori.PT || y.Srcs[2].Not {
			return -1
		}
		for k := j + 1; k < i; k++ {
			for _, o := range b.Insts[k].Dsts {
				if o.Kind != ori.OpdReg {
					continue
				}
				for _, s := range y.Srcs[:2] {
					if (s.Kind == ori.OpdReg || (s.Kind == ori.OpdMem || s.Kind == ori.OpdCBank) && s.HasBase) && o.Reg.Overlaps(s.Reg) {
						return -1
					}
				}
			}
		}
		return j
	}
	return -1
}
