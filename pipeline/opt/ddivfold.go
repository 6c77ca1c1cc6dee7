package opt

// f64 division and square root of constants: a sub-pass of the
// GeneralOptimize bundles, next to fpfold.go.
//
// DDIV and DSQRT stay whole through the optimizer and are expanded by
// LateExpansionUnsupportedOps (phase 86) after the last GeneralOptimize,
// into a fast path, a check and a CALL of the slow path; with constant
// operands that check is never folded, and every value live across the
// expansion pays for its registers. When each operand word is known,
// the instruction becomes the two MOVs of the result:
//
//	DDIV.<RN|RZ|RM|RP> d.64 = a, b  ->  MOV d = lo ; MOV d[1] = hi
//	DSQRT.<RN|RZ|RM|RP> d.64 = a    ->  MOV d = lo ; MOV d[1] = hi
//
// (under the original's guard; the first keeps its ID). The value is what
// the simulator executes for the whole instruction (ori/SEMANTICS.md):
// sim/fp's Div64 and Sqrt64, except that a NaN dividend of DDIV gives
// itself quieted.
//
// An operand is known when it is an f64 immediate, or a register pair
// each of whose words is written last, on the way back from the
// instruction through its block and single-predecessor blocks before it,
// by an unguarded MOV of a 32-bit immediate or RZ. That is a reaching
// definition, not a sole one: the fuzz finding regtarget-mismatch writes
// its f64 register with 0 and then, in a branch, divides it by itself
// (div.rz.f64 %fd1, %fd1, %fd1), so the pair has three definitions but
// only the MOVs reach the division. ptxas 13.0.88 folds that 0/0 and
// uses 18 registers; orilab kept the expansion and its CALL, 23.
//
// Knob: DisableDDIVFold switches it off. Each folded instruction is one
// site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/sim/fp"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableDDIVFold", Type: knobs.TypeBool,
		Doc: "Switch off folding f64 division and square root (DDIV, DSQRT) of known operands into MOVs (GeneralOptimize phases).",
		Readers: []string{"GeneralOptimizeEarly", "GeneralOptimize", "GeneralOptimizeMid", "GeneralOptimizeMid2",
			"GeneralOptimizeLate", "GeneralOptimizeLate2"}})
}

// ddivFold folds every DDIV and DSQRT of f whose operands are known.
func ddivFold(f *ori.Func, s *Sites) bool {
	changed := false
	for _, b := range f.Blocks {
		for i := 0; i < len(b.Insts); i++ {
			in := b.Insts[i]
			if in.Op != ori.OpDDIV && in.Op != ori.OpDSQRT {
				continue
			}
			hi, ok := ddivValue(f, b, i)
			if !ok || !s.Allow(f, in.ID, "fold an f64 division or square root of constants") {
				continue
			}
			lo := uint32(hi)
			d := in.Dsts[0].Reg
			second := &ori.Inst{ID: f.NewID(), Op: ori.OpMOV, Guard: in.Guard, GuardNot: in.GuardNot,
				Dsts: []ori.Operand{ori.R(d.Word(1))}, Srcs: []ori.Operand{immOperand(uint32(hi >> 32))},
				Ctrl: ori.NoCtrl, Line: in.Line}
			in.Op, in.Mods = ori.OpMOV, nil
			in.Dsts = []ori.Operand{ori.R(d.Word(0))}
			in.Srcs = []ori.Operand{immOperand(lo)}
			b.Insts = append(b.Insts[:i+1], append([]*ori.Inst{second}, b.Insts[i+1:]...)...)
			i++
			changed = true
		}
	}
	return changed
}

// ddivValue returns the result of b.Insts[i], a DDIV or DSQRT, when its
// operands are known.
func ddivValue(f *ori.Func, b *ori.Block, i int) (uint64, bool) {
	in := b.Insts[i]
	n := 2
	if in.Op == ori.OpDSQRT {
		n = 1
	}
	if len(in.Srcs) != n || len(in.Dsts) != 1 || in.Dsts[0].Kind != ori.OpdReg || !in.Dsts[0].Reg.Virtual ||
		in.Dsts[0].Reg.Words != 2 || len(in.Mods) != 1 {
		return 0, false
	}
	var rm fp.Round
	switch in.Mods[0] {
	case "RN":
		rm = fp.RN
	case "RZ":
		rm = fp.RZ
	case "RM":
		rm = fp.RM
	case "RP":
		rm = fp.RP
	default:
		return 0, false
	}
	var v [2]uint64
	for j := 0; j < n; j++ {
		x, ok := ddivOperand(f, b, i, in.Srcs[j])
		if !ok {
			return 0, false
		}
		v[j] = x
	}
	switch {
	case in.Op == ori.OpDSQRT:
		return fp.Sqrt64(v[0], rm), true
	case v[0]&^(1<<63) > 0x7ff0000000000000:
		// A NaN dividend is the result, quieted (ori/SEMANTICS.md;
		// sim execDDIV).
		return v[0] | 1<<51, true
	}
	return fp.Div64(v[0], v[1], rm), true
}

// ddivOperand returns the 64-bit value of an f64 operand read at
// b.Insts[i] when it is known.
func ddivOperand(f *ori.Func, b *ori.Block, i int, o ori.Operand) (uint64, bool) {
	var v uint64
	switch o.Kind {
	case ori.OpdImm:
		if o.FKind != ori.ImmF64 {
			return 0, false
		}
		v = uint64(o.Imm)
	case ori.OpdReg:
		if !o.Reg.Virtual || o.Reg.Words != 2 || o.Not {
			return 0, false
		}
		for w := 0; w < 2; w++ {
			x, ok := reachingConst(b, i, o.Reg.Word(w))
			if !ok {
				return 0, false
			}
			v |= uint64(x) << (32 * w)
		}
	default:
		return 0, false
	}
	if o.Abs {
		v &^= 1 << 63
	}
	if o.Neg {
		v ^= 1 << 63
	}
	return v, true
}

// reachingConst returns the 32-bit value of word r at b.Insts[i] when the
// last write of it before that point, looking back through b and then
// through predecessors as long as a block has exactly one, is an
// unguarded MOV of an immediate or RZ.
func reachingConst(b *ori.Block, i int, r ori.Reg) (uint32, bool) {
	seen := map[*ori.Block]bool{}
	for {
		for j := i - 1; j >= 0; j-- {
			in := b.Insts[j]
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || !o.Reg.Virtual || o.Reg.Class != r.Class || o.Reg.N != r.N {
					continue
				}
				if r.Off < o.Reg.Off || r.Off >= o.Reg.Off+o.Reg.Words {
					continue
				}
				if in.Op != ori.OpMOV || in.Guarded() || in.IsPhi() || len(in.Srcs) != 1 || o.Reg.Words != 1 {
					return 0, false
				}
				return constVal(in.Srcs[0])
			}
		}
		seen[b] = true
		if len(b.Preds) != 1 {
			return 0, false
		}
		b = b.Preds[0]
		if seen[b] {
			return 0, false
		}
		i = len(b.Insts)
	}
}
