package lower

// cvt.go lowers the PTX conversion instruction cvt (and cvt.pack) into
// the SASS conversion opcodes F2I, I2F, F2F, FRND and F2FP plus the
// integer ALU (SGXT, LOP3, IMNMX, ISETP, SEL, PRMT) for integer-to-integer
// conversions, which SASS does without a conversion unit.
//
// The strategy, per class of conversion (PTX semantics from the cvt page
// of the PTX ISA):
//
//   - integer -> integer: the source is brought to a 32-bit value with its
//     own signedness (SGXT for signed 8/16-bit sources, a LOP3 mask for
//     unsigned ones), then truncated/extended to the destination type; the
//     result register always holds the destination value sign- or
//     zero-extended to the register width, as PTX defines for registers
//     wider than the instruction type. .sat clamps with IMNMX (32-bit
//     sources) or with ISETP/SEL chains on the two words (64-bit sources).
//   - float -> integer: F2I, which rounds as the .rni/.rzi/.rmi/.rpi
//     modifier says, maps NaN to 0 and saturates to the (32- or 64-bit)
//     integer range; 8/16-bit destinations clamp the 32-bit result further
//     with IMNMX (clamping to nested ranges twice equals clamping once).
//     f16/bf16 sources are first widened to f32, which is exact.
//   - integer -> float: I2F with one rounding straight from the (32- or
//     64-bit) integer to the destination format (never through f32, which
//     would round twice). .sat on an integer source is decided in the
//     integer domain: the result is 1.0 when the integer is > 0, else 0.0.
//   - float -> float: widening is exact (F2F.F64.F32, F2F.F32.F16, or a
//     16-bit shift for bf16); narrowing is one F2F with the rounding
//     modifier; .rni-style rounding to an integral value is FRND in f32 or
//     f64 (16-bit values go through f32, exactly, and come back exactly,
//     because integral results stay representable); .sat clamps after the
//     conversion with FADD.SAT x, -RZ (x + -0.0 is x for every x) or, for
//     f64, with DSETP/SEL; .relu and .satfinite on f16/bf16 results are
//     fixed up on the 16-bit pattern with integer operations.
//   - packed: cvt.rn{.rz}.f16x2.f32 / .bf16x2.f32 d, a, b is F2FP.PACK_AB
//     d = a, b: PTX puts cvt(a) in the upper half and cvt(b) in the lower
//     half, which is exactly SASS's A-high/B-low packing. The fp8 forms use
//     the sm_89 F2FP variants defined below; e5m2 -> f16 is a byte move.
//   - cvt.pack.sat.{u8,s8,u4,s4,u2,s2,u16,s16}.s32.b32 clamps with IMNMX
//     and assembles the fields with LOP3/IMAD (PRMT for 16-bit fields).
//
// Semantics: conversion opcodes and modifiers emitted by this file. Every
// F2I/I2F/F2F/FRND/F2FP variant used is listed; modifiers appear in the
// order shown. "RND" stands for one of RN (round to nearest, ties to even;
// the default where rounding applies), RZ (toward zero), RM (toward -inf),
// RP (toward +inf). A 16-bit floating-point result is written to bits
// 15:0 of the destination with bits 31:16 cleared; a 16-bit
// floating-point source is read from bits 15:0 (bits 31:16 are ignored).
// .64 operands are register pairs, low word first. A NaN result of F2F or
// I2F is the canonical NaN of the destination format: f16 0x7fff, bf16
// 0x7fff, f32 0x7fffffff, f64 0x7fffffffffffffff.
//
//	F2I.<D>.<S>[.FTZ][.TRUNC|.FLOOR|.CEIL] d = a
//	    D in U32 S32 (d one word) U64 S64 (d a pair); S in F32 (a one
//	    word) F64 (a a pair). Rounds a to an integral value: no rounding
//	    modifier = to nearest even, TRUNC toward zero, FLOOR toward -inf,
//	    CEIL toward +inf; then converts: NaN gives 0, values below/above
//	    D's range give D's minimum/maximum (+-inf included). .FTZ (F32 only)
//	    first replaces a subnormal a by a zero of the same sign, so e.g.
//	    F2I.S32.F32.FTZ.CEIL of the smallest positive subnormal is 0 (1
//	    without .FTZ).
//	I2F.<D>.<S>.RND d = a
//	    S in U32 S32 (a one word) U64 S64 (a a pair); D in F16 BF16 F32 (d
//	    one word) F64 (d a pair). d = the integer a rounded once to D by
//	    RND; values beyond D's finite range round to +-inf or to the
//	    largest finite value as IEEE 754 directed rounding says (only
//	    possible for F16).
//	F2F.F32.F16 d = a          exact widening of the f16 in a[15:0].
//	F2F.F64.F32[.FTZ] d = a    exact widening; .FTZ first flushes a
//	                           subnormal a to a zero of the same sign.
//	F2F.F32.F64[.FTZ].RND d = a     a rounded to f32 by RND (overflow to
//	                           +-inf or the largest finite per IEEE
//	                           directed rounding); .FTZ flushes a subnormal
//	                           f32 result to a zero of the same sign.
//	F2F.<F16|BF16>.<F32|F64>[.FTZ].RND d = a
//	                           a rounded once to f16/bf16 by RND, IEEE
//	                           overflow and subnormal rules (f16 and bf16
//	                           results keep subnormals); .FTZ (F32 source
//	                           only) first flushes a subnormal a to a zero
//	                           of the same sign.
//	FRND[.F64][.FTZ].RND d = a
//	                           a rounded to an integral value in its own
//	                           format (f32, or f64 pairs with .F64); NaN
//	                           stays NaN, +-0 and +-inf are kept, a
//	                           negative value rounding to 0 gives -0. .FTZ
//	                           (f32 only) flushes a subnormal a to a zero of
//	                           the same sign first.
//	F2FP.PACK_AB[.RZ] d = a, b
//	                           d[31:16] = f16(a), d[15:0] = f16(b), each f32
//	                           rounded RN (RZ with .RZ), subnormals kept,
//	                           NaN -> 0x7fff (F2F.F16.F32 per half).
//	F2FP.BF16.PACK_AB[.RZ] d = a, b
//	                           as PACK_AB with bfloat16 halves.
//	F2FP.SATFINITE.<E4M3|E5M2>.F32.PACK_AB d = a, b
//	                           d[15:8] = fp8(a), d[7:0] = fp8(b),
//	                           d[31:16] = 0. Each f32 is rounded to nearest
//	                           even in the OCP fp8 format (E4M3: bias 7, no
//	                           infinities, max 448, NaN S.1111.111; E5M2:
//	                           bias 15, max 57344, IEEE-like inf/NaN),
//	                           subnormals kept; results of magnitude above
//	                           the largest finite value, and +-inf inputs,
//	                           become +-max finite (SATFINITE); NaN gives
//	                           0x7f.
//	F2FP.F16.E4M3.UNPACK_B d = RZ, b
//	                           source 0 must be RZ and is ignored;
//	                           d[31:16] = f16(e4m3 b[15:8]), d[15:0] =
//	                           f16(e4m3 b[7:0]), exact (every E4M3 value is
//	                           an f16 value); an E4M3 NaN gives 0x7fff.
//	F2FP.F16.E5M2.UNPACK_B d = RZ, b
//	                           the same for e5m2 bytes: d[31:16] =
//	                           b[15:8] << 8, d[15:0] = b[7:0] << 8 (an
//	                           e5m2 value is the f16 with that high byte;
//	                           used by mma_narrow.go, not by cvt).
//
// Generic ops used with fixed operands: FADD[.FTZ][.SAT] d = x, -RZ is
// x + (-0.0) = x exactly (with .FTZ flushing and .SAT clamping to [0, 1],
// NaN -> +0, per SEMANTICS.md); IMAD d = a, 0x10000, RZ is a << 16 (bf16 ->
// f32 widening).
import (
	"math"
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerCvt, "cvt")
}

// cvtMods is the parsed modifier set of a cvt.
type cvtMods struct {
	irnd      string // FRND-style rounding from .rni .rzi .rmi .rpi, or ""
	frnd      string // RN RZ RM RP from .rn .rz .rm .rp, or ""
	ftz       bool
	sat       bool
	relu      bool
	satfinite bool
}

func cvtParseMods(in *ptx.Instr) (cvtMods, string) {
	var m cvtMods
	for _, x := range in.Mods {
		switch x {
		case ".rni":
			m.irnd = "RN"
		case ".rzi":
			m.irnd = "RZ"
		case ".rmi":
			m.irnd = "RM"
		case ".rpi":
			m.irnd = "RP"
		case ".rn":
			m.frnd = "RN"
		case ".rz":
			m.frnd = "RZ"
		case ".rm":
			m.frnd = "RM"
		case ".rp":
			m.frnd = "RP"
		case ".ftz":
			m.ftz = true
		case ".sat":
			m.sat = true
		case ".relu":
			m.relu = true
		case ".satfinite":
			m.satfinite = true
		case ".rna", ".rs":
			return m, x
		}
	}
	return m, ""
}

// cvtIsInt reports whether t is an integer (or untyped bit) type.
func cvtIsInt(t string) bool {
	switch t {
	case ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".b8", ".b16", ".b32", ".b64":
		return true
	}
	return false
}

func cvtIsScalarFloat(t string) bool {
	switch t {
	case ".f16", ".bf16", ".f32", ".f64":
		return true
	}
	return false
}

func lowerCvt(c *fn, in *ptx.Instr) error {
	if in.HasMod(".pack") {
		return lowerCvtPack(c, in)
	}
	if ts := types(in); len(ts) == 2 && ts[0] == ".tf32" {
		return c.cvtToTF32(in, ts[1])
	}
	m, bad := cvtParseMods(in)
	if bad != "" {
		return c.l.unsupported(in.OpPos, "cvt with %s rounding", bad)
	}
	ts := types(in)
	if len(ts) != 2 {
		return c.l.errorf(in.OpPos, "cvt needs a destination and a source type")
	}
	dt, at := ts[0], ts[1]
	switch {
	case (dt == ".f16x2" || dt == ".bf16x2") && at == ".f32":
		return c.cvtPackHalves(in, m, dt)
	case (dt == ".e4m3x2" || dt == ".e5m2x2") && (at == ".f32" || at == ".f16x2"):
		return c.cvtToFP8(in, m, dt, at)
	case dt == ".f16x2" && (at == ".e4m3x2" || at == ".e5m2x2"):
		return c.cvtFromFP8(in, m, at)
	}
	if len(in.Args) != 2 {
		return c.l.errorf(in.OpPos, "cvt%s%s takes two operands", dt, at)
	}
	if !(cvtIsInt(dt) || cvtIsScalarFloat(dt)) || !(cvtIsInt(at) || cvtIsScalarFloat(at)) {
		return c.l.unsupported(in.OpPos, "cvt from %s to %s", at, dt)
	}
	if (m.relu || m.satfinite) && dt != ".f16" && dt != ".bf16" {
		return c.l.unsupported(in.OpPos, "cvt .relu/.satfinite to %s", dt)
	}
	a, err := c.src(in.Args[1], at)
	if err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], dt)
	if err != nil {
		return err
	}
	if int(d.Words) < wordsOf(dt) {
		return c.l.errorf(in.Args[0].Pos, "destination register is narrower than %s", dt)
	}
	switch {
	case cvtIsInt(dt) && cvtIsInt(at):
		c.cvtIntInt(d, dt, at, a, m.sat)
	case cvtIsInt(dt):
		c.cvtFloatInt(d, dt, at, a, m)
	case cvtIsInt(at):
		if m.irnd != "" {
			return c.l.errorf(in.OpPos, "integer rounding %s is not valid for an integer-to-float cvt", m.irnd)
		}
		c.cvtIntFloat(d, dt, at, a, m)
	default:
		if err := c.cvtFloatFloat(in, d, dt, at, a, m); err != nil {
			return err
		}
	}
	// A register wider than the instruction type receives the value
	// extended per the destination type.
	if w := wordsOf(dt); int(d.Words) > w {
		c.extendTo(d, w, dt)
	}
	return nil
}

// ---------------------------------------------------------------------
// Integer helpers.

// cvtIntRange returns the value range of integer type t.
func cvtIntRange(t string) (lo int64, hi uint64) {
	n := uint(typeBits(t))
	if isSigned(t) {
		return -int64(1) << (n - 1), uint64(1)<<(n-1) - 1
	}
	if n == 64 {
		return 0, math.MaxUint64
	}
	return 0, uint64(1)<<n - 1
}

// cvtImmValue returns the value of an integer immediate as type t (the low
// typeBits(t) bits, sign- or zero-extended).
func cvtImmValue(v int64, t string) int64 {
	n := uint(typeBits(t))
	if n >= 64 {
		return v
	}
	if isSigned(t) {
		return v << (64 - n) >> (64 - n)
	}
	return int64(uint64(v) & (uint64(1)<<n - 1))
}

// cvtExt32 returns the 32-bit value of a source of integer type t of at
// most 32 bits: narrower registers are sign- or zero-extended from their
// low bits (their upper bits are unspecified). Immediates are folded.
func (c *fn) cvtExt32(a ori.Operand, t string) ori.Operand {
	n := typeBits(t)
	if a.Kind == ori.OpdImm {
		return ori.Imm(int64(int32(uint32(cvtImmValue(a.Imm, t)))))
	}
	a = word(a, 0)
	if n >= 32 {
		return a
	}
	r := c.newReg(1)
	c.cvtExtInto(r, a, n, isSigned(t))
	return ori.R(r)
}

// cvtExtInto sets r to the low n bits of a, sign-extended (SGXT) or
// zero-extended (LOP3 with the mask).
func (c *fn) cvtExtInto(r ori.Reg, a ori.Operand, n int, signed bool) {
	if signed {
		c.emit(ori.OpSGXT, nil, []ori.Operand{ori.R(r)}, c.asReg(a), ori.Imm(int64(n)))
		return
	}
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(r)}, a, ori.Imm(int64(uint32(1)<<uint(n)-1)), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
}

// cvtHiFromLo sets the high word of a 64-bit result from its low word:
// copies of bit 31 when signed, zero otherwise.
func (c *fn) cvtHiFromLo(hi, lo ori.Reg, signed bool) {
	if signed {
		c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(hi)}, ori.R(ori.RZ), ori.Imm(31), ori.R(lo))
		return
	}
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(hi)}, ori.R(ori.RZ))
}

// cvtSetp emits ISETP.<cmp>[.U32].<bool> p, PT = a, b, q and returns p:
// p = (a <cmp> b) <bool> q.
func (c *fn) cvtSetp(cmp string, unsigned bool, boolOp string, a, b ori.Operand, q ori.Operand) ori.Reg {
	p := c.newPred()
	mods := []string{cmp}
	if unsigned {
		mods = append(mods, "U32")
	}
	mods = append(mods, boolOp)
	c.emit(ori.OpISETP, mods, []ori.Operand{ori.R(p), ori.R(ori.PT)}, a, b, q)
	return p
}

func cvtImm32(v int64) ori.Operand { return ori.Imm(int64(int32(uint32(v)))) }

// cvtIntInt converts integer a of type at to integer type dt in d.
func (c *fn) cvtIntInt(d ori.Reg, dt, at string, a ori.Operand, sat bool) {
	A, D := typeBits(at), typeBits(dt)
	sa, sd := isSigned(at), isSigned(dt)
	if a.Kind == ori.OpdImm {
		// Fold: the value as the source type, then clamp or truncate.
		v := cvtImmValue(a.Imm, at)
		var r int64
		if sat {
			r = cvtSatConst(v, sa, dt)
		} else {
			r = cvtImmValue(v, dt)
		}
		c.mov(d, ori.Imm(r), wordsOf(dt))
		return
	}
	if !sat || !cvtNeedsClamp(at, dt) {
		switch {
		case D == 64 && A == 64:
			c.mov(d, a, 2)
		case D == 64:
			lo := d.Word(0)
			if A == 32 {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(lo)}, word(a, 0))
			} else {
				c.cvtExtInto(lo, word(a, 0), A, sa)
			}
			c.cvtHiFromLo(d.Word(1), lo, sa)
		case D == 32:
			if A >= 32 {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(0))}, word(a, 0))
			} else {
				c.cvtExtInto(d.Word(0), word(a, 0), A, sa)
			}
		default: // D is 8 or 16 bits: the low D bits of the value, extended per dt.
			switch {
			case A >= D:
				c.cvtExtInto(d.Word(0), word(a, 0), D, sd)
			case !sa:
				// A zero-extended narrower value has bit D-1 clear, so
				// it is its own D-bit extension either way.
				c.cvtExtInto(d.Word(0), word(a, 0), A, false)
			case sd:
				c.cvtExtInto(d.Word(0), word(a, 0), A, true)
			default:
				t := c.newReg(1)
				c.cvtExtInto(t, word(a, 0), A, true)
				c.cvtExtInto(d.Word(0), ori.R(t), D, false)
			}
		}
		return
	}
	lo, hi := cvtIntRange(dt)
	if A <= 32 {
		// One 32-bit value with the source's signedness: clamp with IMNMX
		// (p false selects max, p true min).
		v := c.cvtExt32(a, at)
		lower := sa && (!sd || D < A)
		_, hiA := cvtIntRange(at)
		upper := hi < hiA
		// The last clamp writes d directly.
		out := func(last bool) ori.Reg {
			if last {
				return d.Word(0)
			}
			return c.newReg(1)
		}
		if lower {
			bound := lo
			if !sd {
				bound = 0
			}
			t := out(!upper)
			c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(t)}, v, cvtImm32(bound), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
			v = ori.R(t)
		}
		if upper {
			var mods []string
			if !sa {
				mods = []string{"U32"}
			}
			c.emit(ori.OpIMNMX, mods, []ori.Operand{ori.R(d.Word(0))}, v, cvtImm32(int64(hi)), ori.R(ori.PT))
		}
		if D == 64 {
			c.cvtHiFromLo(d.Word(1), d.Word(0), sa && sd)
		}
		return
	}
	alo, ahi := word(a, 0), word(a, 1)
	if D == 64 {
		// s64 -> u64: negative becomes 0. u64 -> s64: values with bit 63
		// set become INT64_MAX.
		p := c.cvtSetp("LT", false, "AND", ahi, ori.R(ori.RZ), ori.R(ori.PT))
		if sa {
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(ori.RZ), alo, ori.R(p))
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(1))}, ori.R(ori.RZ), ahi, ori.R(p))
		} else {
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(0))}, ori.Imm(-1), alo, ori.R(p))
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(1))}, ori.Imm(0x7fffffff), ahi, ori.R(p))
		}
		return
	}
	// 64-bit source, destination of at most 32 bits. over: value > hi
	// (hi < 2^32); under: value < lo (signed sources only).
	var over, under ori.Reg
	hasUnder := false
	if sa {
		// over = hi > 0 || (hi == 0 && lo >u max)
		z := c.cvtSetp("EQ", false, "AND", ahi, ori.R(ori.RZ), ori.R(ori.PT))
		big := c.cvtSetp("GT", true, "AND", alo, cvtImm32(int64(hi)), ori.R(z))
		over = c.cvtSetp("GT", false, "OR", ahi, ori.R(ori.RZ), ori.R(big))
		hasUnder = true
		if lo == 0 {
			under = c.cvtSetp("LT", false, "AND", ahi, ori.R(ori.RZ), ori.R(ori.PT))
		} else {
			// under = hi < -1 || (hi == -1 && lo <u uint32(min)): with
			// hi == -1 the value is lo - 2^32.
			m1 := c.cvtSetp("EQ", false, "AND", ahi, ori.Imm(-1), ori.R(ori.PT))
			small := c.cvtSetp("LT", true, "AND", alo, cvtImm32(lo), ori.R(m1))
			under = c.cvtSetp("LT", false, "OR", ahi, ori.Imm(-1), ori.R(small))
		}
	} else {
		// over = hi != 0 || lo >u max
		big := c.cvtSetp("GT", true, "AND", alo, cvtImm32(int64(hi)), ori.R(ori.PT))
		over = c.cvtSetp("NE", true, "OR", ahi, ori.R(ori.RZ), ori.R(big))
	}
	r := c.newReg(1)
	if !hasUnder {
		r = d.Word(0)
	}
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(r)}, cvtImm32(int64(hi)), alo, ori.R(over))
	if hasUnder {
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(0))}, cvtImm32(lo), ori.R(r), ori.R(under))
	}
}

// cvtNeedsClamp reports whether some value of type at lies outside dt.
func cvtNeedsClamp(at, dt string) bool {
	loA, hiA := cvtIntRange(at)
	loD, hiD := cvtIntRange(dt)
	return loA < loD || hiA > hiD
}

// cvtSatConst clamps v (signed per sa) to dt's range.
func cvtSatConst(v int64, sa bool, dt string) int64 {
	lo, hi := cvtIntRange(dt)
	if sa {
		if v < lo {
			return lo
		}
		if v >= 0 && uint64(v) > hi {
			return int64(hi)
		}
		return v
	}
	if uint64(v) > hi {
		return int64(hi)
	}
	return v
}

// ---------------------------------------------------------------------
// Float helpers.

// cvtRndF2I maps an FRND-style rounding to F2I's modifier.
func cvtRndF2I(r string) []string {
	switch r {
	case "RZ":
		return []string{"TRUNC"}
	case "RM":
		return []string{"FLOOR"}
	case "RP":
		return []string{"CEIL"}
	}
	return nil
}

// cvtWiden16 returns an f32 register holding the f16 or bf16 value in the
// low half of a (exact).
func (c *fn) cvtWiden16(a ori.Operand, t string) ori.Operand {
	r := c.newReg(1)
	c.cvtWiden16Into(r, a, t)
	return ori.R(r)
}

// cvtWiden16Into sets r to the f32 value of the f16 or bf16 in a's low
// half.
func (c *fn) cvtWiden16Into(r ori.Reg, a ori.Operand, t string) {
	if t == ".bf16" {
		// bf16 is the upper half of an f32: shift it into place.
		c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(r)}, c.asReg(word(a, 0)), ori.Imm(0x10000), ori.R(ori.RZ))
	} else {
		c.emit(ori.OpF2F, []string{"F32", "F16"}, []ori.Operand{ori.R(r)}, word(a, 0))
	}
}

// cvtFmt returns the SASS format name of a float type.
func cvtFmt(t string) string {
	switch t {
	case ".f16":
		return "F16"
	case ".bf16":
		return "BF16"
	case ".f64":
		return "F64"
	}
	return "F32"
}

// cvtIntFmt returns the SASS format name of a 32- or 64-bit integer type.
func cvtIntFmt(t string) string {
	s := "U"
	if isSigned(t) {
		s = "S"
	}
	if typeBits(t) == 64 {
		return s + "64"
	}
	return s + "32"
}

func negRZ() ori.Operand { o := ori.R(ori.RZ); o.Neg = true; return o }

// cvtSat32 emits FADD[.FTZ].SAT d = x, -RZ: x clamped to [0, 1], NaN -> 0.
func (c *fn) cvtSat32(d ori.Reg, x ori.Operand, ftz bool) {
	mods := []string{"SAT"}
	if ftz {
		mods = []string{"FTZ", "SAT"}
	}
	c.emit(ori.OpFADD, mods, []ori.Operand{ori.R(d)}, x, negRZ())
}

// cvtSat64 clamps the f64 pair x to [0, 1] (NaN -> +0) into d.
func (c *fn) cvtSat64(d ori.Reg, x ori.Operand) {
	x = c.regOperand(x, 2)
	pos := c.newPred()
	big := c.newPred()
	// pos: x > 0 (false for NaN, -0, +0); big: x > 1.
	c.emit(ori.OpDSETP, []string{"GT", "AND"}, []ori.Operand{ori.R(pos), ori.R(ori.PT)}, x, ori.F64(0), ori.R(ori.PT))
	c.emit(ori.OpDSETP, []string{"GT", "AND"}, []ori.Operand{ori.R(big), ori.R(ori.PT)}, x, ori.F64(1), ori.R(ori.PT))
	t := c.newReg(2)
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(t.Word(0))}, word(x, 0), ori.R(ori.RZ), ori.R(pos))
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(t.Word(1))}, word(x, 1), ori.R(ori.RZ), ori.R(pos))
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(ori.RZ), ori.R(t.Word(0)), ori.R(big))
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(1))}, ori.Imm(0x3ff00000), ori.R(t.Word(1)), ori.R(big))
}

// cvtFloatInt converts float a of type at to integer type dt.
func (c *fn) cvtFloatInt(d ori.Reg, dt, at string, a ori.Operand, m cvtMods) {
	x := a
	st := at
	ftz := m.ftz && at == ".f32"
	if at == ".f16" || at == ".bf16" {
		x = c.cvtWiden16(a, at)
		st = ".f32"
	}
	rnd := m.irnd
	if rnd == "" {
		rnd = m.frnd // not valid PTX for float->int; treat alike
	}
	D := typeBits(dt)
	mods := []string{cvtIntFmt(dt), cvtFmt(st)}
	if ftz {
		mods = append(mods, "FTZ")
	}
	mods = append(mods, cvtRndF2I(rnd)...)
	if D >= 32 {
		c.emit(ori.OpF2I, mods, []ori.Operand{ori.R(d.Wide(D / 32))}, x)
		return
	}
	// 8/16-bit destinations: saturate to 32 bits, then to the narrow
	// range (NaN is 0 already).
	r := c.newReg(1)
	c.emit(ori.OpF2I, mods, []ori.Operand{ori.R(r)}, x)
	lo, hi := cvtIntRange(dt)
	if isSigned(dt) {
		t := c.newReg(1)
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(t)}, ori.R(r), cvtImm32(lo), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(t), cvtImm32(int64(hi)), ori.R(ori.PT))
		return
	}
	c.emit(ori.OpIMNMX, []string{"U32"}, []ori.Operand{ori.R(d.Word(0))}, ori.R(r), cvtImm32(int64(hi)), ori.R(ori.PT))
}

// cvtOne returns the bit pattern of 1.0 in float type t (one word; the
// high word for f64).
func cvtOne(t string) int64 {
	switch t {
	case ".f16":
		return 0x3c00
	case ".bf16":
		return 0x3f80
	case ".f64":
		return 0x3ff00000
	}
	return 0x3f800000
}

// cvtIntFloat converts integer a of type at to float type dt.
func (c *fn) cvtIntFloat(d ori.Reg, dt, at string, a ori.Operand, m cvtMods) {
	A := typeBits(at)
	x := a
	st := at
	if A < 32 {
		x = c.cvtExt32(a, at)
		st = ".u32"
		if isSigned(at) {
			st = ".s32"
		}
	} else if A == 32 {
		x = word(a, 0)
	}
	if m.sat {
		// The integral result saturated to [0, 1] is 1.0 exactly when the
		// integer is positive.
		var pos ori.Reg
		switch {
		case typeBits(st) == 64 && isSigned(st):
			nz := c.cvtSetp("NE", true, "AND", word(x, 0), ori.R(ori.RZ), ori.R(ori.PT))
			z := c.cvtSetp("EQ", false, "AND", word(x, 1), ori.R(ori.RZ), ori.R(nz))
			pos = c.cvtSetp("GT", false, "OR", word(x, 1), ori.R(ori.RZ), ori.R(z))
		case typeBits(st) == 64:
			nz := c.cvtSetp("NE", true, "AND", word(x, 0), ori.R(ori.RZ), ori.R(ori.PT))
			pos = c.cvtSetp("NE", true, "OR", word(x, 1), ori.R(ori.RZ), ori.R(nz))
		case isSigned(st):
			pos = c.cvtSetp("GT", false, "AND", c.asReg(x), ori.R(ori.RZ), ori.R(ori.PT))
		default:
			pos = c.cvtSetp("NE", true, "AND", c.asReg(x), ori.R(ori.RZ), ori.R(ori.PT))
		}
		hiWord := d.Word(0)
		if dt == ".f64" {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(ori.RZ))
			hiWord = d.Word(1)
		}
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(hiWord)}, ori.Imm(cvtOne(dt)), ori.R(ori.RZ), ori.R(pos))
		return
	}
	rnd := m.frnd
	if rnd == "" {
		rnd = "RN"
	}
	if typeBits(st) == 64 && x.Kind != ori.OpdReg {
		// A 64-bit literal does not fit an instruction immediate.
		x = c.regOperand(x, 2)
	}
	c.emit(ori.OpI2F, []string{cvtFmt(dt), cvtIntFmt(st), rnd}, []ori.Operand{ori.R(d.Wide(wordsOf(dt)))}, x)
}

// cvtFloatFloat converts between f16, bf16, f32 and f64.
func (c *fn) cvtFloatFloat(in *ptx.Instr, d ori.Reg, dt, at string, a ori.Operand, m cvtMods) error {
	bits := func(t string) int { return typeBits(t) }
	is16 := func(t string) bool { return t == ".f16" || t == ".bf16" }
	ftz := m.ftz && (at == ".f32" || dt == ".f32")
	dw := d.Wide(wordsOf(dt))

	// The conversion into the destination format is exact when dt holds
	// every at value: same type, or widening (f16 and bf16 both widen
	// exactly to f32 and f64, but not to each other).
	exact := dt == at || bits(dt) > bits(at)
	if !exact {
		if m.irnd != "" {
			return c.l.unsupported(in.OpPos, "integral rounding (%s) in a narrowing cvt%s%s", m.irnd, dt, at)
		}
		x, st := a, at
		if is16(at) {
			x, st = c.cvtWiden16(a, at), ".f32"
		}
		rnd := m.frnd
		if rnd == "" {
			rnd = "RN"
		}
		mods := []string{cvtFmt(dt), cvtFmt(st)}
		if ftz {
			mods = append(mods, "FTZ")
		}
		mods = append(mods, rnd)
		post := m.sat || m.relu || m.satfinite
		r := dw
		if post {
			r = c.newReg(wordsOf(dt))
		}
		c.emit(ori.OpF2F, mods, []ori.Operand{ori.R(r)}, c.cvtF64Src(x, st))
		if !post {
			return nil
		}
		return c.cvtPost(d, dt, ori.R(r), m, ftz)
	}

	// Exact into dt: do the integral rounding and the saturation in the
	// working precision (f32 for 16-bit and f32 sources, f64 for f64),
	// where both are exact, then widen exactly.
	if dt == at && m.irnd == "" && !m.sat && !m.relu && !m.satfinite {
		if ftz && at == ".f32" {
			c.emit(ori.OpFADD, []string{"FTZ"}, []ori.Operand{ori.R(dw)}, a, negRZ())
			return nil
		}
		c.mov(dw, a, wordsOf(dt))
		return nil
	}
	if at == ".f64" { // and dt == .f64
		x := a
		if m.irnd != "" {
			r := c.newReg(2)
			if !m.sat {
				r = dw
			}
			c.emit(ori.OpFRND, []string{"F64", m.irnd}, []ori.Operand{ori.R(r)}, c.cvtF64Src(a, ".f64"))
			x = ori.R(r)
		}
		if m.sat {
			c.cvtSat64(dw, x)
		}
		return nil
	}
	// f16, bf16 or f32 source into f32 or f64 (or back into the same
	// 16-bit format). .ftz flushes f32 subnormals, which only an f32 or
	// bf16 value can be, on the f32 operations.
	steps := 0
	if m.irnd != "" {
		steps++
	}
	if m.sat {
		steps++
	}
	if dt == ".f32" && at == ".bf16" && ftz && steps == 0 {
		// bf16 subnormals are f32 subnormals: .ftz flushes the result.
		x := c.cvtWiden16(a, at)
		c.emit(ori.OpFADD, []string{"FTZ"}, []ori.Operand{ori.R(dw)}, x, negRZ())
		return nil
	}
	// The last f32 step writes d directly when d is f32.
	direct := dt == ".f32"
	next := func() ori.Reg {
		steps--
		if steps == 0 && direct {
			return dw
		}
		return c.newReg(1)
	}
	x := a
	if is16(at) {
		var r ori.Reg
		if steps == 0 && direct {
			r = dw
		} else {
			r = c.newReg(1)
		}
		c.cvtWiden16Into(r, a, at)
		x = ori.R(r)
	}
	if m.irnd != "" {
		mods := []string{m.irnd}
		if ftz {
			mods = []string{"FTZ", m.irnd}
		}
		r := next()
		c.emit(ori.OpFRND, mods, []ori.Operand{ori.R(r)}, x)
		x = ori.R(r)
	}
	if m.sat {
		r := next()
		c.cvtSat32(r, x, ftz)
		x = ori.R(r)
	}
	switch dt {
	case ".f32":
		if x.Kind != ori.OpdReg || x.Reg != dw {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(dw)}, x)
		}
	case ".f64":
		if ftz && at == ".f32" {
			// Decision: as ptxas, FMUL.FTZ t = a, 1 and then the exact
			// widening, so a NaN becomes 0x7fffffff (0x7fffffffe0000000 in
			// f64) before it widens. The H100 wrote 0x7fffffff_e0000000
			// for cvt.ftz.f64.f32 of NaNs (fuzz5550094, fuzz5550631),
			// where F2F alone keeps the payload.
			r := next()
			c.emit(ori.OpFMUL, []string{"FTZ"}, []ori.Operand{ori.R(r)}, x, ori.F32(1))
			x = ori.R(r)
		}
		c.emit(ori.OpF2F, []string{"F64", "F32"}, []ori.Operand{ori.R(dw)}, x)
	default:
		// Back to the same 16-bit format: the value is representable, so
		// the RN conversion is exact.
		c.emit(ori.OpF2F, []string{cvtFmt(dt), "F32", "RN"}, []ori.Operand{ori.R(dw)}, x)
	}
	return nil
}

// cvtF64Src makes an f64 source a register pair (immediates included),
// and leaves other sources alone.
func (c *fn) cvtF64Src(x ori.Operand, t string) ori.Operand {
	if t == ".f64" && x.Kind != ori.OpdReg {
		return c.regOperand(x, 2)
	}
	return x
}

// cvtPost applies .sat, .satfinite and .relu to a converted result r of
// type dt and writes d.
func (c *fn) cvtPost(d ori.Reg, dt string, r ori.Operand, m cvtMods, ftz bool) error {
	dw := d.Wide(wordsOf(dt))
	switch dt {
	case ".f64":
		c.cvtSat64(dw, r)
		return nil
	case ".f32":
		c.cvtSat32(dw, r, ftz)
		return nil
	}
	// f16 / bf16 pattern in the low half, upper half zero.
	// Infinity patterns; the largest finite value is one below (0x7bff,
	// 0x7f7f).
	inf := int64(0x7c00)
	if dt == ".bf16" {
		inf = 0x7f80
	}
	// Each step writes a fresh register, the last one d.
	steps := 0
	for _, on := range []bool{m.sat, m.satfinite, m.relu} {
		if on {
			steps++
		}
	}
	out := func() ori.Reg {
		steps--
		if steps == 0 {
			return dw
		}
		return c.newReg(1)
	}
	x := r
	if m.sat {
		// Clamp in f32 (exact widening), then narrow exactly.
		w := c.cvtWiden16(x, dt)
		s := c.newReg(1)
		c.cvtSat32(s, w, false)
		t := out()
		c.emit(ori.OpF2F, []string{cvtFmt(dt), "F32", "RN"}, []ori.Operand{ori.R(t)}, ori.R(s))
		x = ori.R(t)
	}
	if m.satfinite {
		// +-inf -> +-max finite, which is the pattern one below. NaN
		// stays NaN.
		mag := c.newReg(1)
		c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(mag)}, x, ori.Imm(0x7fff), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
		isInf := c.cvtSetp("EQ", true, "AND", ori.R(mag), ori.Imm(inf), ori.R(ori.PT))
		dec := c.newReg(1)
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(dec)}, x, ori.Imm(-1), ori.R(ori.RZ))
		t := out()
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(t)}, ori.R(dec), x, ori.R(isInf))
		x = ori.R(t)
	}
	if m.relu {
		// Sign set (-0 included) -> +0. A NaN result of F2F is already
		// the canonical 0x7fff (sign clear), which .relu requires.
		neg := c.cvtSetp("GE", true, "AND", x, ori.Imm(0x8000), ori.R(ori.PT))
		t := out()
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(t)}, ori.R(ori.RZ), x, ori.R(neg))
	}
	return nil
}

// ---------------------------------------------------------------------
// Packed conversions.

// cvtPackHalves lowers cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d,
// a, b: cvt(a) goes to the upper half, cvt(b) to the lower half.
func (c *fn) cvtPackHalves(in *ptx.Instr, m cvtMods, dt string) error {
	if len(in.Args) != 3 {
		return c.l.unsupported(in.OpPos, "cvt%s with %d operands", dt, len(in.Args))
	}
	a, err := c.src(in.Args[1], ".f32")
	if err != nil {
		return err
	}
	b, err := c.src(in.Args[2], ".f32")
	if err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	rnd := m.frnd
	if rnd == "" {
		rnd = "RN"
	}
	half := ".f16"
	if dt == ".bf16x2" {
		half = ".bf16"
	}
	if !m.relu && !m.satfinite && !m.ftz && !m.sat && (rnd == "RN" || rnd == "RZ") {
		var mods []string
		if half == ".bf16" {
			mods = append(mods, "BF16")
		}
		mods = append(mods, "PACK_AB")
		if rnd == "RZ" {
			mods = append(mods, "RZ")
		}
		c.emit(ori.OpF2FP, mods, []ori.Operand{ori.R(d.Word(0))}, c.asReg(a), c.asReg(b))
		return nil
	}
	// General case: convert each value like a scalar cvt, then pack.
	hi := c.newReg(1)
	lo := c.newReg(1)
	if err := c.cvtFloatFloat(in, hi, half, ".f32", a, m); err != nil {
		return err
	}
	if err := c.cvtFloatFloat(in, lo, half, ".f32", b, m); err != nil {
		return err
	}
	c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(lo), ori.Imm(0x5410), ori.R(hi))
	return nil
}

// cvtToFP8 lowers cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b and
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2 d, a.
func (c *fn) cvtToFP8(in *ptx.Instr, m cvtMods, dt, at string) error {
	if m.frnd != "RN" || !m.satfinite || m.relu {
		return c.l.unsupported(in.OpPos, "cvt%s other than .rn.satfinite", dt)
	}
	format := "E4M3"
	if dt == ".e5m2x2" {
		format = "E5M2"
	}
	var a, b ori.Operand
	if at == ".f32" {
		if len(in.Args) != 3 {
			return c.l.errorf(in.OpPos, "cvt%s.f32 takes three operands", dt)
		}
		var err error
		if a, err = c.src(in.Args[1], ".f32"); err != nil {
			return err
		}
		if b, err = c.src(in.Args[2], ".f32"); err != nil {
			return err
		}
	} else {
		if len(in.Args) != 2 {
			return c.l.errorf(in.OpPos, "cvt%s.f16x2 takes two operands", dt)
		}
		x, err := c.src(in.Args[1], ".b32")
		if err != nil {
			return err
		}
		// Both halves widen exactly to f32; the upper half is a.
		xr := c.asReg(word(x, 0))
		up := c.newReg(1)
		c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(up)}, ori.R(ori.RZ), ori.Imm(16), xr)
		a = c.cvtWiden16(ori.R(up), ".f16")
		b = c.cvtWiden16(xr, ".f16")
	}
	d, err := c.dst(in.Args[0], ".b16")
	if err != nil {
		return err
	}
	c.emit(ori.OpF2FP, []string{"SATFINITE", format, "F32", "PACK_AB"}, []ori.Operand{ori.R(d.Word(0))}, c.asReg(a), c.asReg(b))
	return nil
}

// cvtFromFP8 lowers cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a.
func (c *fn) cvtFromFP8(in *ptx.Instr, m cvtMods, at string) error {
	if m.relu || len(in.Args) != 2 {
		return c.l.unsupported(in.OpPos, "this form of cvt.f16x2%s", at)
	}
	a, err := c.src(in.Args[1], ".b16")
	if err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	if at == ".e5m2x2" {
		// An e5m2 value is the upper byte of the f16 with the same value
		// (same exponent bias and width), infinities and NaNs included:
		// d = a.byte1 << 24 | a.byte0 << 8 (selector nibble 4 is a zero
		// byte of RZ).
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d.Word(0))}, c.asReg(word(a, 0)), ori.Imm(0x1404), ori.R(ori.RZ))
		return nil
	}
	c.emit(ori.OpF2FP, []string{"F16", "E4M3", "UNPACK_B"}, []ori.Operand{ori.R(d.Word(0))}, ori.R(ori.RZ), c.asReg(word(a, 0)))
	return nil
}

// lowerCvtPack lowers cvt.pack.sat.convertType.s32.b32 d, a, b{, c}:
// a and b are clamped to convertType, b's field is the low one, a's the
// next; for 2/4/8-bit types c's low bits fill the rest of d.
func lowerCvtPack(c *fn, in *ptx.Instr) error {
	var ct string
	for _, m := range in.Mods {
		switch m {
		case ".u2", ".s2", ".u4", ".s4", ".u8", ".s8", ".u16", ".s16":
			if ct == "" {
				ct = m
			}
		}
	}
	if ct == "" || !in.HasMod(".sat") {
		return c.l.unsupported(in.OpPos, "this form of cvt.pack")
	}
	size := 0
	switch ct[2:] {
	case "2":
		size = 2
	case "4":
		size = 4
	case "8":
		size = 8
	case "16":
		size = 16
	}
	want := 4
	if size == 16 {
		want = 3
	}
	if len(in.Args) != want {
		return c.l.errorf(in.OpPos, "cvt.pack%s takes %d operands", ct, want)
	}
	signed := ct[1] == 's'
	var lo, hi int64
	if signed {
		lo, hi = -(int64(1) << uint(size-1)), int64(1)<<uint(size-1)-1
	} else {
		lo, hi = 0, int64(1)<<uint(size)-1
	}
	clamp := func(o *ptx.Operand) (ori.Operand, error) {
		v, err := c.src(o, ".s32")
		if err != nil {
			return ori.Operand{}, err
		}
		v = word(v, 0)
		t := c.newReg(1)
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(t)}, c.asReg(v), cvtImm32(lo), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
		u := c.newReg(1)
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(u)}, ori.R(t), cvtImm32(hi), ori.R(ori.PT))
		return ori.R(u), nil
	}
	ta, err := clamp(in.Args[1])
	if err != nil {
		return err
	}
	tb, err := clamp(in.Args[2])
	if err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	if size == 16 {
		// Bytes 0-1 from tb, bytes 2-3 from ta's low half.
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d.Word(0))}, tb, ori.Imm(0x5410), ta)
		return nil
	}
	cv, err := c.src(in.Args[3], ".b32")
	if err != nil {
		return err
	}
	mask := int64(1)<<uint(size) - 1
	// Fields: d = c << 2*size | (ta & mask) << size | (tb & mask). The
	// pieces do not overlap, so IMAD's add acts as an OR.
	ma := c.newReg(1)
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(ma)}, ta, ori.Imm(mask), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
	mb := c.newReg(1)
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(mb)}, tb, ori.Imm(mask), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
	ab := c.newReg(1)
	c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(ab)}, ori.R(ma), ori.Imm(int64(1)<<uint(size)), ori.R(mb))
	c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(d.Word(0))}, c.asReg(word(cv, 0)), ori.Imm(int64(1)<<uint(2*size)), ori.R(ab))
	return nil
}

// cvtToTF32 lowers cvt.rna{.satfinite}.tf32.f32 and
// cvt.{rn,rz}{.relu}.tf32.f32. A tf32 is an f32 bit pattern whose low 13
// fraction bits are zero.
//
// .rna is the sequence ptxas 13.0 emits on sm_80 and sm_90: add half a
// tf32 ulp to the magnitude bits when the operand is finite (a carry into
// the exponent is the correct rounding, up to infinity), then clear the
// low 13 bits. .satfinite then takes an infinite result one tf32 ulp down,
// to the largest finite tf32 of its sign.
//
// Decision: a NaN keeps its sign and upper payload bits, so a NaN whose
// payload lies only in the low 13 bits becomes an infinity (and with
// .satfinite the largest finite value). That is what ptxas's code
// computes; the manual says nothing about NaN operands of .rna.
//
// .rn and .rz (sm_90) become F2FP.TF32.F32.PACK_B as ptxas emits them.
func (c *fn) cvtToTF32(in *ptx.Instr, at string) error {
	if at != ".f32" {
		return c.l.errorf(in.OpPos, "cvt to .tf32 takes an .f32 source")
	}
	if len(in.Args) != 2 {
		return c.l.errorf(in.OpPos, "cvt.tf32.f32 takes two operands")
	}
	rnd, satfinite, relu := "", false, false
	for _, m := range in.Mods {
		switch m {
		case ".rna", ".rn", ".rz":
			rnd = m
		case ".satfinite":
			satfinite = true
		case ".relu":
			relu = true
		case ".tf32", ".f32":
		default:
			return c.l.errorf(in.OpPos, "cvt.tf32.f32 does not take %s", m)
		}
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], ".f32")
	if err != nil {
		return err
	}
	a = c.bitsReg(word(a, 0))
	switch {
	case rnd == ".rna" && !relu:
		up := c.newReg(1)
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(up)}, a, bitsImm(0x1000), bitsRZ())
		notFinite := c.flSetp(ori.OpFSETP, []string{"GEU", "AND"}, c.flAbs(a, ".f32"), flF32(flInf32), flPT)
		r := c.newReg(1)
		c.bitsSel(r, a, ori.R(up), ori.R(notFinite))
		if !satfinite {
			c.bitsLop(d, nil, ori.R(r), bitsImm(0xffffe000), bitsRZ(), func(x, y, _ bool) bool { return x && y })
			return nil
		}
		t := c.newReg(1)
		c.bitsLop(t, nil, ori.R(r), bitsImm(0xffffe000), bitsRZ(), func(x, y, _ bool) bool { return x && y })
		big := c.flSetp(ori.OpFSETP, []string{"GEU", "AND"}, c.flAbs(ori.R(t), ".f32"), flF32(flInf32), flPT)
		down := c.newReg(1)
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(down)}, ori.R(t), bitsImm(0xffffe000), bitsRZ())
		c.bitsSel(d, ori.R(down), ori.R(t), ori.R(big))
	case (rnd == ".rn" || rnd == ".rz") && !satfinite:
		mods := []string{"TF32", "F32", "PACK_B"}
		if rnd == ".rz" {
			mods = append(mods, "RZ")
		}
		if relu {
			mods = append(mods, "RELU")
		}
		c.emit(ori.OpF2FP, mods, []ori.Operand{ori.R(d)}, bitsRZ(), a)
	case rnd == "":
		return c.l.errorf(in.OpPos, "cvt.tf32.f32 needs .rna, .rn or .rz")
	default:
		// .rn/.rz with .satfinite need sm_100 (ptxas 13.0 refuses them
		// for sm_90); .rna has no .relu form.
		return c.l.unsupported(in.OpPos, "cvt%s.tf32.f32", strings.Join(in.Mods[:len(in.Mods)-2], ""))
	}
	return nil
}
