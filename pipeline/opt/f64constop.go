package opt

// f64 constant operands: a sub-pass of the GeneralOptimize bundles, next
// to copy propagation (copyprop.go) and the folding of constfold.go and
// fpfold.go.
//
// PTX from older nvcc names an f64 constant through a register
// (mov.f64 %fd10, 0d40040d931b28620d; mad.rn.f64 %fd16, %fd9, %fd15,
// %fd10), and the lowering writes the register's two words with two MOVs.
// Copy propagation moves single words only, so the DFMA kept reading the
// pair: every polynomial coefficient of a kernel stayed in registers, all
// of them live together where the scheduler or LICM grouped their MOVs.
// ptxas 13.0.88 reads them from the kernel's literal pool instead
// (MonteCarlo_SM13's inverseCNDKernel: DFMA R4, R2, R4, c[0x2][0x20], 30
// registers against orilab's 44). This pass puts the constant back into
// the operand slot:
//
//	MOV %r2 = 0x1b28620d
//	MOV %r2[1] = 0x40040d93
//	DFMA %r6.64 = %r1.64, %r5.64, %r2.64  ==>  DFMA %r6.64 = %r1.64, %r5.64, 0d40040D931B28620D
//
// and the legalization (PostFixForMercTargets, poolLiteral in package
// pipeline) then gives it a c[0x2][] entry, or keeps it an immediate
// where its low word is zero (DSETP.GE P0, PT = R6.64, 1, PT). The MOVs
// are left for the dead-code phases.
//
// A source is folded when it is a virtual register pair both of whose
// words have one definition in the function, an unguarded MOV of a 32-bit
// immediate or RZ (fpKnownMovs), and it sits in a slot that takes a
// constant: B of DADD, DMUL and DSETP, B or C of DFMA. At most one
// constant per instruction, as the encoding has one constant slot: of a
// DFMA whose B and C are both known the addend C is folded, as ptxas
// does (its multiplier stays in registers). '|..|' and '-' on the source
// are applied to the constant's sign bit, except for a NaN, whose sign
// the units need not keep; such a source is left alone.
//
// Decision: only in kernels on sm_75 to sm_89, where the literal pool
// exists. A .func has no pool (bank 2 is the launched kernel's), and
// sm_90 has none (ptxas loads the pair with UMOVs there); in both a
// constant that no word holds would be moved into registers again after
// allocation, where a free pair may not exist.
//
// Knob: DisableF64ConstOperands switches it off. Each folded source is
// one site.

import (
	"math"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableF64ConstOperands", Type: knobs.TypeBool,
		Doc:     "Switch off putting an f64 constant held in a register pair (two MOVs) into the constant slot of the DADD, DMUL, DFMA or DSETP that reads it, for the literal pool (GeneralOptimize bundles).",
		Readers: []string{"GeneralOptimize*"}})
}

// f64ConstOperands folds the known f64 register pairs of f's f64
// operations into their constant slots.
func f64ConstOperands(f *ori.Func, s *Sites, arch int) bool {
	if !f.Entry || arch < 75 || arch >= 90 {
		return false
	}
	var known map[wkey]uint32
	changed := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			var slots []int
			switch in.Op {
			case ori.OpDADD, ori.OpDMUL, ori.OpDSETP:
				slots = []int{1}
			case ori.OpDFMA:
				slots = []int{2, 1}
			default:
				continue
			}
			if in.IsPseudo() || len(in.Srcs) <= slots[0] || f64HasConst(in) {
				continue
			}
			if known == nil {
				known = fpKnownMovs(f)
			}
			for _, j := range slots {
				imm, ok := f64Known(in.Srcs[j], known)
				if !ok {
					continue
				}
				if s.Try(f, in, "put an f64 constant into its operand slot", func() bool {
					in.Srcs[j] = imm
					return true
				}) {
					changed = true
				}
				break
			}
		}
	}
	return changed
}

// f64HasConst says whether an f64 operation already reads an immediate
// or constant-bank source.
func f64HasConst(in *ori.Inst) bool {
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdImm || o.Kind == ori.OpdCBank {
			return true
		}
	}
	return false
}

// f64Known returns the f64 immediate the unit reads from o, a virtual
// register pair whose words are known, with its modifiers applied.
func f64Known(o ori.Operand, known map[wkey]uint32) (ori.Operand, bool) {
	if o.Kind != ori.OpdReg || !o.Reg.Virtual || o.Reg.Class != ori.ClassR || o.Reg.Words != 2 || o.Not {
		return ori.Operand{}, false
	}
	lo, ok1 := known[wordKey(o.Reg, 0)]
	hi, ok2 := known[wordKey(o.Reg, 1)]
	if !ok1 || !ok2 {
		return ori.Operand{}, false
	}
	bits := uint64(hi)<<32 | uint64(lo)
	if o.Abs || o.Neg {
		if math.IsNaN(math.Float64frombits(bits)) {
			return ori.Operand{}, false
		}
		if o.Abs {
			bits &^= 1 << 63
		}
		if o.Neg {
			bits ^= 1 << 63
		}
	}
	return ori.Operand{Kind: ori.OpdImm, Imm: int64(bits), FKind: ori.ImmF64}, true
}
