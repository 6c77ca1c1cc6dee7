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
// words are known: written last before the use in the same block by an
// unguarded MOV of a 32-bit immediate or RZ (mov.f64 %fd7, C; add.f64
// %fd7, %fd6, %fd7 redefines %fd7, and the add still reads C), or, where
// the block has not written the word before the use, with one definition
// in the function, such a MOV (fpKnownMovs). It sits in a slot that
// takes a constant: B of DADD, DMUL and DSETP, B or C of DFMA. At most one
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
	"orilab/internal/keep"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableF64ConstOperands", Type: knobs.TypeBool,
		Doc:     "Switch off putting an f64 constant held in a register pair (two MOVs) into the constant slot of the DADD, DMUL, DFMA or DSETP that reads it, for the literal pool (GeneralOptimize bundles).",
		Readers: []string{"GeneralOptimize*"}})
}

// f64ConstOperands folds the known f64 register pairs of f's f64
// operations into their constant slots. k holds f's known MOVs (built
// on the first lookup, or left by fpFold); the folds here only change
// sources of f64 operations, so they stay valid.
func f64ConstOperands(f *ori.Func, s *Sites, arch int, k *fpKnown) bool {
	if !f.Entry || arch < 75 || arch >= 90 {
		return false
	}
	has := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			has = has || f64Ops(in.Op)
		}
	}
	if !has {
		return false
	}
	local := f64LocalPool.Get()
	defer f64LocalPool.Put(local)
	changed := false
	for _, b := range f.Blocks {
		// Only a block's instructions up to its last f64 operation
		// matter: what the walk learns is dropped at the block's end.
		last := -1
		for j, in := range b.Insts {
			if f64Ops(in.Op) {
				last = j
			}
		}
		// local holds the words this block has written so far: the
		// immediate of an unguarded MOV, or ok false after any other
		// definition.
		local.reset()
		for _, in := range b.Insts[:last+1] {
			f64ConstInst(f, in, s, k, local, &changed)
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					for i := 0; i < max(int(o.Reg.Words), 1); i++ {
						local.set(wordKey(o.Reg, i), f64Word{})
					}
				}
			}
			if in.Op == ori.OpMOV && !in.Guarded() && !in.IsPhi() && len(in.Dsts) == 1 && len(in.Srcs) == 1 &&
				in.Dsts[0].Kind == ori.OpdReg && in.Dsts[0].Reg.Virtual && in.Dsts[0].Reg.Class == ori.ClassR && in.Dsts[0].Reg.Words == 1 {
				if v, ok := constVal(in.Srcs[0]); ok {
					local.set(wordKey(in.Dsts[0].Reg, 0), f64Word{v, true})
				}
			}
		}
	}
	return changed
}

// f64LocalPool keeps the per-block tables of f64ConstOperands between
// calls (see fpKnownPool).
var f64LocalPool keep.Pool[wordTable[f64Word]]

// f64Word is what a block knows of a register word it wrote.
type f64Word struct {
	v  uint32
	ok bool
}

// f64ConstInst folds one known source of in, an f64 operation, into its
// constant slot.
func f64ConstInst(f *ori.Func, in *ori.Inst, s *Sites, known *fpKnown, local *wordTable[f64Word], changed *bool) {
	if !f64Ops(in.Op) {
		return
	}
	slots := []int{1}
	if in.Op == ori.OpDFMA {
		slots = []int{2, 1}
	}
	if in.IsPseudo() || len(in.Srcs) <= slots[0] || f64HasConst(in) {
		return
	}
	word := func(k wkey) (uint32, bool) {
		if w, seen := local.get(k); seen {
			return w.v, w.ok
		}
		return known.words().get(k)
	}
	for _, j := range slots {
		imm, ok := f64Known(in.Srcs[j], word)
		if !ok {
			continue
		}
		if s.Try(f, in, "put an f64 constant into its operand slot", func() bool {
			in.Srcs[j] = imm
			return true
		}) {
			*changed = true
		}
		return
	}
}

// f64Ops are the operations with a constant slot for an f64 source.
func f64Ops(op ori.Opcode) bool {
	return op == ori.OpDADD || op == ori.OpDMUL || op == ori.OpDFMA || op == ori.OpDSETP
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
func f64Known(o ori.Operand, word func(wkey) (uint32, bool)) (ori.Operand, bool) {
	if o.Kind != ori.OpdReg || !o.Reg.Virtual || o.Reg.Class != ori.ClassR || o.Reg.Words != 2 || o.Not {
		return ori.Operand{}, false
	}
	lo, ok1 := word(wordKey(o.Reg, 0))
	hi, ok2 := word(wordKey(o.Reg, 1))
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
