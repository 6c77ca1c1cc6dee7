package lower

// Results that ptxas 13.0 computes at compile time, differently from the
// instruction the PTX names. The H100 runs ptxas's code, so orilab
// computes what ptxas's folding gives wherever the hardware data shows
// it (issue 18: the fuzz programs recorded on an H100). ptxas decides
// from a value's definitions in SSA form, so each rule here asks that
// every definition reaching the use qualifies (ptxreach.go), and that no
// path leaves the register undefined.

import (
	"strconv"
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

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
// the value of %rd16, where PTX's rule gives 0; fuzz5551842, "shl.b64
// %rd17, %rd16, 69" where the definition of %rd16 that reaches it is
// "mul.lo.u64 %rd16, 0x8, %rd16" (others do not), out[2]: 0x00000010
// (%rd16), where PTX's rule gives 0.
func (c *fn) ptxasShlFolded(in *ptx.Instr) bool {
	if in.Op != "shl" || len(in.Args) != 3 || lastType(in) != ".b64" || in.Args[1].Kind != ptx.OpName || in.Args[1].Neg {
		return false
	}
	n, ok := in.Args[2].Int()
	if !ok || n < 64 {
		return false
	}
	return c.allReachingDefs(in, in.Args[1].Name, func(def *ptx.Instr) bool {
		if def.Guard != nil || def.Op != "mul" || len(def.Args) != 3 {
			return false
		}
		switch t := lastType(def); {
		case def.HasMod(".wide") && (t == ".u32" || t == ".s32"):
		case def.HasMod(".lo") && (t == ".u64" || t == ".s64"):
		default:
			return false
		}
		return def.Args[1].Kind == ptx.OpInt || def.Args[2].Kind == ptx.OpInt
	})
}

// ptxasNaNConst returns the bits of the NaN constant that operand a
// holds at in when it is one, for a float type of 32 or 64 bits: a float
// literal written by its bits (0f..., 0d...), or a register whose every
// reaching definition moves that literal in (mov.f32 %f2, 0f7FC00000).
func (c *fn) ptxasNaNConst(in *ptx.Instr, a *ptx.Operand, bits int) (uint64, bool) {
	if a.Kind == ptx.OpName && !a.Neg {
		var lit *ptx.Operand
		same := c.allReachingDefs(in, a.Name, func(def *ptx.Instr) bool {
			if def.Guard != nil || def.Op != "mov" || len(def.Args) != 2 || def.Args[1].Kind != ptx.OpFloat {
				return false
			}
			if lit == nil {
				lit = def.Args[1]
			}
			return def.Args[1].Text == lit.Text
		})
		if !same {
			return 0, false
		}
		a = lit
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
	v, ok := c.ptxasNaNConst(in, in.Args[1], bits)
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

// ptxasCvtTypes are the type modifiers of cvt.
var ptxasCvtTypes = map[string]bool{
	".u8": true, ".u16": true, ".u32": true, ".u64": true,
	".s8": true, ".s16": true, ".s32": true, ".s64": true,
	".f16": true, ".bf16": true, ".f32": true, ".f64": true,
	".f16x2": true, ".bf16x2": true, ".tf32": true,
	".e4m3x2": true, ".e5m2x2": true, ".e2m1x2": true, ".e2m3x2": true, ".e3m2x2": true, ".ue8m0x2": true,
}

// ptxasHalfResult returns ".f16" or ".bf16" when instruction def writes
// a scalar half-precision result, "" otherwise. Only the instructions
// whose ptxas code was checked count (ptxasByteStore).
func ptxasHalfResult(def *ptx.Instr) string {
	t := lastType(def)
	switch def.Op {
	case "neg", "abs":
		// With .ftz ptxas folds the sign into the conversion, which it
		// then makes F2I.FTZ without .TRUNC (rounding to nearest), and
		// at a merge with other definitions it stores the low byte
		// (fuzz5550534): not modelled, so the low byte is stored.
		if def.HasMod(".ftz") {
			return ""
		}
	case "add", "sub", "mul", "fma", "min", "max", "ex2":
	case "cvt":
		t = ""
		for _, m := range def.Mods {
			if ptxasCvtTypes[m] {
				t = m // the destination type comes first
				break
			}
		}
	default:
		return ""
	}
	if t == ".f16" || t == ".bf16" {
		return t
	}
	return ""
}

// ptxasHalfValue reports whether every definition of register name that
// reaches use computes a half-precision value of one type (returned).
// min/max of a register with itself is a copy, as ptxas compiles it, so
// it passes on what reaches its operand (fuzz5550534: "cvt.u16.u32 %rs1,
// %r19; max.f16 %rs1, %rs1, %rs1; @%p2 st.global.u8 [%rd13+10], %rs1"
// stores the low byte, STG.E.U8 without F2I).
func (c *fn) ptxasHalfValue(use *ptx.Instr, name string, seen map[*ptx.Instr]bool) (string, bool) {
	half := ""
	ok := c.allReachingDefs(use, name, func(def *ptx.Instr) bool {
		h := ptxasHalfResult(def)
		if (def.Op == "min" || def.Op == "max") && len(def.Args) == 3 && def.Args[1].Kind == ptx.OpName &&
			def.Args[2].Kind == ptx.OpName && def.Args[1].Name == def.Args[2].Name && !def.Args[1].Neg && !def.Args[2].Neg {
			if seen[def] {
				return false
			}
			seen[def] = true
			var ok bool
			h, ok = c.ptxasHalfValue(def, def.Args[1].Name, seen)
			if !ok {
				return false
			}
		}
		if half == "" {
			half = h
		}
		return h != "" && h == half
	})
	return half, ok
}

// ptxasByteStore returns the value an 8-bit store (type t) of operand e
// writes, given its lowered value val: when every definition of the
// register that reaches the store computes a scalar f16 (or bf16), ptxas
// stores the value converted to an 8-bit integer, not its low byte.
//
// Decision: as ptxas 13.0 compiles it. Its SASS for "add.f16 %rs2, ...;
// st.global.u8 [%rd1], %rs2" is F2I.U8.F16.TRUNC.NTZ and then STG.E.U8
// (F2I.S8 for st.s8, F2I.U8.BF16 for a bf16 value; the same for sub,
// mul, fma, min, max, neg, abs, ex2.approx, cvt.rn.f16.f32, for
// st.shared, st.local, generic st and each element of st.v2.u8). It
// stores the low byte where a reaching definition is an integer one
// (an extra "@%p add.u16 %rs2, %rs2, 1"), for mov.b16, selp.b16 and
// ld.b16, and for a 32-bit register (add.f16x2). PTX's manual says the
// store writes the low 8 bits. Evidence on the H100 (hwtruth):
// fuzz5551637, "max.ftz.f16 %rs2, %rs2, %rs1; ...; st.global.u8
// [%rd12+58], %rs2" with %rs2 = 0x4b6a (14.83): byte 2 of out[38] is 0x0e
// (14), where the low byte gives 0x6a.
func (c *fn) ptxasByteStore(in *ptx.Instr, e *ptx.Operand, t string, val ori.Operand) ori.Operand {
	if e.Kind != ptx.OpName || e.Neg || val.Kind != ori.OpdReg {
		return val
	}
	if r := c.lookupReg(e.Name); r == nil || r.pred || r.reg.Words != 1 {
		return val
	}
	half, ok := c.ptxasHalfValue(in, e.Name, map[*ptx.Instr]bool{})
	if !ok {
		return val
	}
	dt := ".u8"
	if t == ".s8" {
		dt = ".s8"
	}
	d := c.newReg(1)
	c.cvtFloatInt(d, dt, half, val, cvtMods{irnd: "RZ"})
	return ori.R(d)
}
