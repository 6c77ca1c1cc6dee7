package lower

// Results that ptxas 13.0 computes at compile time, differently from the
// instruction the PTX names. The H100 runs ptxas's code, so orilab
// computes what ptxas's folding gives wherever the hardware data shows
// it (issue 18: the fuzz programs recorded on an H100). Each fold needs
// the value's one definition, so it applies only to a register written
// by exactly one unguarded instruction of the function, which is what
// ptxas's SSA-based folding needs too.

import (
	"strconv"
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// soleDef returns the instruction that writes PTX register name, when
// exactly one instruction of the function names it as (part of) its
// first operand and that instruction is unguarded. Anything else that
// names it first (a store's address base, a second definition) makes it
// nil: the answer errs towards "not known".
func (c *fn) soleDef(name string) *ptx.Instr {
	if c.defs == nil {
		c.defs = map[string][]*ptx.Instr{}
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch s := s.(type) {
				case *ptx.Block:
					walk(s)
				case *ptx.Instr:
					if len(s.Args) == 0 {
						continue
					}
					a := s.Args[0]
					if a.Kind == ptx.OpName {
						c.defs[a.Name] = append(c.defs[a.Name], s)
					}
					for _, e := range a.Elems {
						if e.Kind == ptx.OpName {
							c.defs[e.Name] = append(c.defs[e.Name], s)
						}
					}
				}
			}
		}
		if c.pf.Body != nil {
			walk(c.pf.Body)
		}
	}
	ds := c.defs[name]
	if len(ds) != 1 || ds[0].Guard != nil {
		return nil
	}
	return ds[0]
}

// ptxasShlFolded reports whether "shl.b64 d, a, n" is one that ptxas 13.0
// folds to d = a: n an immediate of 64 or more, and a the product of a
// multiplication by an immediate (mul.wide.u32/.s32, mul.lo of 64 bits).
//
// Decision: d = a, as the H100 shows. PTX says a shift of 64 or more
// gives 0, and ptxas does so for a plain register (SHF with the clamped
// amount, or 0 stored directly); but it merges the shift into the
// multiplier and then drops a shift amount it cannot represent, so
// "mul.wide.u32 %rd16, %r14, 0xFFFF; shl.b64 %rd17, %rd16, 65" compiles
// to one IMAD.WIDE.U32 whose result is stored for both (ptxas -arch=sm_90
// SASS; the same for shift amounts 64, 66, 100 and 200, for
// mul.wide.s32 and for mul.lo.u64 by an immediate; 0 when the
// multiplier is a register). Evidence: fuzz5550794 (hwtruth), out[1282]
// (thread 32, word 2), the low word of %rd17: the H100 wrote 0x0000ffff,
// the value of %rd16, where PTX's rule gives 0.
func (c *fn) ptxasShlFolded(in *ptx.Instr) bool {
	if in.Op != "shl" || len(in.Args) != 3 || lastType(in) != ".b64" || in.Args[1].Kind != ptx.OpName || in.Args[1].Neg {
		return false
	}
	n, ok := in.Args[2].Int()
	if !ok || n < 64 {
		return false
	}
	def := c.soleDef(in.Args[1].Name)
	if def == nil || def.Op != "mul" || len(def.Args) != 3 {
		return false
	}
	switch t := lastType(def); {
	case def.HasMod(".wide") && (t == ".u32" || t == ".s32"):
	case def.HasMod(".lo") && (t == ".u64" || t == ".s64"):
	default:
		return false
	}
	return def.Args[1].Kind == ptx.OpInt || def.Args[2].Kind == ptx.OpInt
}

// ptxasNaNConst returns the bits of the NaN constant that operand a
// holds when it is one, for a float type of 32 or 64 bits: a float
// literal written by its bits (0f..., 0d...), or a register whose only
// definition moves one in (mov.f32 %f2, 0f7FC00000).
func (c *fn) ptxasNaNConst(a *ptx.Operand, bits int) (uint64, bool) {
	if a.Kind == ptx.OpName && !a.Neg {
		def := c.soleDef(a.Name)
		if def == nil || def.Op != "mov" || len(def.Args) != 2 {
			return 0, false
		}
		a = def.Args[1]
	}
	var v uint64
	switch {
	case a.Kind == ptx.OpFloat && bits == 32 && len(a.Text) == 10 && strings.EqualFold(a.Text[:2], "0f"):
		u, err := strconv.ParseUint(a.Text[2:], 16, 32)
		if err != nil {
			return 0, false
		}
		v = u
	case a.Kind == ptx.OpFloat && bits == 64 && len(a.Text) == 18 && strings.EqualFold(a.Text[:2], "0d"):
		u, err := strconv.ParseUint(a.Text[2:], 16, 64)
		if err != nil {
			return 0, false
		}
		v = u
	default:
		return 0, false
	}
	if bits == 32 {
		if v&0x7f800000 == 0x7f800000 && v&0x7fffff != 0 {
			return v, true
		}
		return 0, false
	}
	if v&0x7ff0000000000000 == 0x7ff0000000000000 && v&0xfffffffffffff != 0 {
		return v, true
	}
	return 0, false
}

// ptxasAbsNegNaN returns what ptxas 13.0 folds abs/neg of a NaN constant
// to: the sign cleared (abs) or flipped (neg), the payload kept, and an
// f32 signaling NaN quieted. ok is false where it does not fold, or where
// that is not known (an f64 signaling NaN).
//
// Decision: the folded bits, not what the instruction computes at run
// time (FADD of |a| and -0 gives the canonical 0x7fffffff for any f32
// NaN). ptxas -arch=sm_90 SASS of abs/neg of constants stores
// abs.f32(0fFFC00001) = 0x7fc00001, neg.f32(0fFFC00001) = 0x7fc00001,
// abs.f32(0f7FC00000) = 0x7fc00000, neg.f32(0f7FC00000) = 0xffc00000,
// abs.f32(0fFF800001) = 0x7fc00001, abs.f64(0dFFF8000000000001) and
// neg.f64 of it = 0x7ff8000000000001. Evidence on the H100: fuzz5551626
// (hwtruth), out[16] (thread 0, word 16) = "abs.f32 %f4, %f2" with %f2
// moved from 0f7FC00000: the H100 wrote 0x7fc00000, where the FADD gives
// 0x7fffffff.
func (c *fn) ptxasAbsNegNaN(in *ptx.Instr, t string) (uint64, bool) {
	bits := flKind(t)
	if flIsBF(t) || (bits != 32 && bits != 64) || len(in.Args) != 2 {
		return 0, false
	}
	v, ok := c.ptxasNaNConst(in.Args[1], bits)
	if !ok {
		return 0, false
	}
	sign := uint64(1) << (bits - 1)
	if in.Op == "neg" {
		v ^= sign
	} else {
		v &^= sign
	}
	if bits == 32 {
		return v | 0x400000, true // quiet
	}
	if v&0x8000000000000 == 0 {
		return 0, false // an f64 signaling NaN: not measured
	}
	return v, true
}

// ptxasFoldAbsNeg emits the folded result of abs/neg into d, when ptxas
// folds it.
func (c *fn) ptxasFoldAbsNeg(in *ptx.Instr, t string, d ori.Reg) bool {
	v, ok := c.ptxasAbsNegNaN(in, t)
	if !ok {
		return false
	}
	if flKind(t) == 32 {
		c.flOp(ori.OpMOV, nil, d, flImm32(uint32(v)))
		return true
	}
	c.flOp(ori.OpMOV, nil, d.Word(0), flImm32(uint32(v)))
	c.flOp(ori.OpMOV, nil, d.Word(1), flImm32(uint32(v>>32)))
	return true
}
