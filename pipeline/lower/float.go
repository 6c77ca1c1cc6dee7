// Floating point: the float forms of add sub mul mad div min max abs neg
// (dispatched here by dispatch.go) and fma rcp sqrt rsqrt sin cos lg2 ex2
// tanh testp copysign (registered below).
//
// Mapping:
//
//	add/sub/mul .f32         FADD / FADD a, -b / FMUL [.FTZ][.RZ|.RM|.RP][.SAT]
//	add/sub/mul .f64         DADD / DMUL [.RZ|.RM|.RP]
//	add/sub/mul .f16/.bf16   HADD2 / HMUL2 [.BF16_V2][.FTZ][.SAT] (x2 and scalar;
//	                         a scalar lives in the low half, the high half
//	                         of the result is don't-care)
//	fma, mad                 FFMA / DFMA / HFMA2 [.RELU]; mad.f32 without a
//	                         rounding modifier is fused, as on sm_20 and later
//	min/max                  FMNMX [.FTZ][.NAN], HMNMX2; .xorsign.abs adds a
//	                         LOP3 on the sign; f64 is a DSETP/SEL sequence
//	abs/neg                  FADD/DADD/HADD2 [.FTZ] of -0 and the operand with
//	                         .neg/.abs (as ptxas; NaNs come out canonical);
//	                         bf16: LOP3 on the sign bit
//	copysign                 LOP3 on the sign bit (exact for NaN payloads)
//	testp                    FSETP / DSETP chains on |a|
//	div.approx.f32           MUFU.RCP + FMUL
//	div.full.f32             MUFU.RCP + FMUL with operand scaling
//	div.rnd.f32, rcp.rnd.f32 the ptxas template: MUFU.RCP, FFMA refinement,
//	                         FCHK.DIVIDE and a branch to an in-function slow
//	                         path that divides exactly in f64 (below)
//	div.rnd.f64, rcp.rnd.f64 MUFU.RCP64H + DFMA Newton steps + Markstein
//	                         correction; exponent range check and a slow
//	                         path for everything else (below)
//	sqrt.rnd.f32/.f64        MUFU.RSQ(64H) + Newton, then an exact choice
//	                         between the two neighbours of the estimate
//	sqrt/rsqrt/rcp/ex2/lg2/sin/cos/tanh .approx
//	                         MUFU, with scaling around it for the forms
//	                         without .ftz (MUFU flushes subnormals)
//	ex2/tanh .approx.f16(x2) MUFU.EX2.F16 / MUFU.TANH.F16 per half, PRMT to
//	                         pack a pair
//
// # Exactness of the IEEE sequences
//
// Notation: p is the precision (24 or 53), RN(x) round to nearest even,
// u = ulp. "Faithful" means one of the two floats around the exact value.
// Every claim below is about finite nonzero operands inside the ranges
// the sequence checks for; everything else takes the slow path or is
// selected away by a predicate.
//
// Reciprocal refinement (used by all divisions). Scale b to [1,2), so
// 1/b is in (1/2,1] with ulp u = 2^-p, and let y be faithful: y = 1/b + d,
// |d| < u. Then e = RN(1 - b*y) is exact and y + y*e = 1/b - b*d^2
// exactly. That rounds to RN(1/b) unless 1/b lies within b*d^2 of a
// midpoint m; then y is one of the two floats next to m, so
// |d| <= u/2 + |1/b - m|, while |1/b - m| >= u^2/b (1 - b*m is a nonzero
// multiple of 2^-2p). Working the inequality b*(u/2 + |1/b-m|)^2 <
// |1/b - m| out gives b^2 < 4 - 6*b*u, true for every b except the
// all-ones significand b = 2 - 2u; for that one RN(1/b) = 1/2 + u is
// known in closed form and substituted (flRcpFix; Markstein's exception).
//
// Quotient (fast paths). With y = RN(1/b) (|y - 1/b| <= ulp(1/b)/2) and
// u = ulp(x), x = a/b: q0 = RN(a*y) is within 1.5u of x; r0 = RN(a -
// b*q0); q1 = RN(q0 + r0*y) is within u/2 + 3u*2^-p of x, so it is
// faithful and, when x is near a midpoint, one of the two floats next to
// it; r1 = a - b*q1 is then exact; q = o(q1 + r1*y) is the correctly
// rounded a/b in every rounding mode o. Proof: q1 + r1*y = x + b*(x -
// q1)*(y - 1/b). Near a midpoint m (distance d) the error is at most
// b*(u/2 + d)*ulp(1/b)/2, and a/b is at least u*2^-p/b away from every
// midpoint (a - b*m is a nonzero multiple of u*2^-p) and at least
// u*2^(1-p)/b away from every float it is not equal to; for b < 2 both
// distances exceed the error. When x is a float, q1 = x and r1 = 0.
// (ptxas skips the q1 step and relies on a finer analysis; the extra
// FFMA pair makes the argument above unconditional.)
//
// f32 slow path. The operands are converted to f64 (exactly) and divided
// by the f64 fast path, which is exact for every pair of f32 values
// (their f64 exponents are far inside its range); the f64 quotient is
// then rounded to f32 with the same rounding mode by F2F. Directed modes
// compose (the f32 grid is a subset of the f64 grid); for round to
// nearest, double rounding is innocuous because 53 >= 2*24 + 2 and a
// quotient of two f32 values cannot be within 2^-53 (relative) of an f32
// midpoint without being on it. Zero, infinite and NaN operands use
// a * rcp(b') with b' = b for b in {0, inf, NaN} and +-1 otherwise,
// which gives every IEEE special result exactly.
//
// f64 slow path (subnormal operands or results, huge exponent gaps). The
// operands are normalized to ma, mb in [1,2) with exponents ea, eb
// (subnormals are first multiplied by 2^64), q1 ~ ma/mb comes from the
// fast-path steps, and the result is chosen exactly among floats of the
// real result grid: T = RZ(q1 * 2^k) (k = ea - eb clamped to [-1077,
// 1026], which does not change any result), and the floor F of the exact
// quotient is T-1, T or T+1, decided by the signs of ma - mb*T' and
// ma - mb*(T+1)' (C' is C*2^-k, exact, and a DFMA gives the exact sign
// of a - b*c). The rounding then only needs the sign of the remainder at
// the midpoint between F and its successor, r_F - mb*unit'/2, one more
// DFMA. r_F = ma - mb*F' is exact: F = 0 gives ma; otherwise unit' <=
// F' <= ma/mb < 2, so unit' <= 1 (a power of two), ma and mb*F' are
// multiples of 2^-52*unit', and |r_F| < mb*unit' < 2*unit' is fewer than
// 2^53 of them. Overflow falls out: T saturates at the largest finite
// value and its successor is the +inf pattern.
//
// Square root. c = RN(s + r*h) with s = a*y, h = y/2, r = a - s^2 and y
// ~ 1/sqrt(a) is faithful. With lo = c - [a < c^2] and hi = lo + 1
// (bit patterns), sqrt(a) lies in [lo, hi), and sqrt(a) is above the
// midpoint of lo and hi exactly when a - lo*hi > 0 (a - m^2 = (a -
// lo*hi) - (hi-lo)^2/4 and a - lo*hi is a multiple of (hi-lo)^2; sqrt
// is never exactly a midpoint). Directed modes only need the sign of
// a - c^2. All these signs come from one FFMA/DFMA each. Small inputs
// (and subnormals) are scaled by an even power of two first so that no
// remainder underflows.
//
// Semantics: readings of SEMANTICS.md this file relies on, and what it
// adds. Modifiers appear in the order shown.
//
//   - Rounding modifiers .RZ .RM .RP on FADD FMUL FFMA DADD DMUL DFMA
//     (absent = RN). .FTZ flushes subnormal operands and results of the
//     f32 and f16 operations to zero of the same sign; it never appears on
//     the internal steps of the IEEE sequences.
//   - FCHK.DIVIDE p = a, b (f32 bit patterns): with Ea, Eb the 8-bit
//     exponent fields, p is false exactly when 25 <= Ea <= 254,
//     2 <= Eb <= 252 and -125 <= Ea - Eb <= 126, and true otherwise
//     (every zero, subnormal, infinite and NaN operand gives true). The
//     f32 division fast path is exact under these conditions (1/b and
//     the quotient are normal, the remainders are multiples of 2^-149);
//     a p that is true more often would only cost time.
//   - MUFU.<RCP|RSQ|SQRT|EX2|LG2|SIN|COS>: f32 approximations that treat
//     a subnormal operand as zero of the same sign and flush a subnormal
//     result to zero, like the hardware (sim/fp/mufu_sfu.go: RcpSFU32,
//     RsqSFU32, SqrtSFU32, Ex2SFU32, Lg2SFU32, SinRadSFU32,
//     CosRadSFU32). MUFU.SIN and MUFU.COS take the angle in radians: the
//     FMUL.RZ by 1/2pi that real SASS issues first is part of them in the
//     simulator. MUFU.TANH keeps subnormals (TanhSFU32). Special values: rcp(+-0) = +-inf,
//     rcp(+-inf) = +-0, rsq(+-0) = +-inf, rsq(+inf) = +0, sqrt(+-0) =
//     +-0, sqrt(+inf) = +inf, ex2(-inf) = +0, lg2(+-0) = -inf; negative
//     operands of rsq/sqrt/lg2 and NaN give the canonical NaN 0x7fffffff.
//     The IEEE division and square root sequences need MUFU.RCP to be
//     faithful (within 1 ulp) and MUFU.RSQ within 2^-13 relative on normal
//     operands in their ranges.
//   - MUFU.RCP64H / MUFU.RSQ64H d = ahi: ahi is the high word of an f64 x
//     (the low word is not read); d is the high word of an f64
//     approximation of 1/x or 1/sqrt(x) whose low word is taken as 0
//     (Rcp64HSFU, Rsq64HSFU). Subnormal operands count as zero. The f64 sequences
//     need a relative error below 2^-9 for normal x in their ranges; the
//     hardware and sim/fp give about 2^-20.
//   - HADD2 HMUL2 HFMA2 HMNMX2 work lane by lane on two binary16 halves
//     (bfloat16 with .BF16_V2); -R and |R| on their operands apply to
//     each half (bit 15 and bit 31). .FTZ and .SAT as for f32, per lane.
//     HFMA2.RELU: a lane result that is negative (sign bit set, -0
//     included) becomes +0; a NaN lane becomes the canonical NaN 0x7fff.
//     HMNMX2 d = a, b, p: per lane minNum (p) or maxNum (!p), -0 < +0,
//     two NaNs give 0x7fff; .NAN makes any NaN give 0x7fff.
//   - FMNMX.NAN: any NaN operand gives 0x7fffffff (sim/fp Min32 nanProp).
//   - LOP3.LUT d, p = a, b, c, lut, !PT: p = (d != 0).
//   - F2F.F64.F32 and F2F.F32.F64[.FTZ].<RN|RZ|RM|RP> as defined in
//     cvt.go (.FTZ on the narrowing flushes a subnormal f32 result).
//   - Integer helpers as bits.go reads them: SHF.R.U32.HI d = RZ, n, x
//     is x >> n, SHF.R.S32.HI the arithmetic shift, SHF.L.U32 d = x, n,
//     RZ is x << n; IADD3 -x adds the two's complement; IMNMX is signed.
//   - DSETP compares like FSETP; NUM and NAN test both operands.
//   - The f64 NaN produced here for an invalid operation is whatever
//     DADD +inf, -inf gives, and a NaN operand is propagated by DADD a, a
//     or DMUL (sim/fp: quieted operand, default NaN 0xfff8000000000000).
//     min/max.f64 of two NaNs gives 0x7fffffffffffffff like sim/fp Min64.
package lower

import (
	"math"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerFma, "fma")
	register(lowerRcp, "rcp")
	register(lowerSqrt, "sqrt")
	register(lowerRsqrt, "rsqrt")
	register(lowerMufu, "sin", "cos", "lg2", "ex2", "tanh")
	register(lowerTestp, "testp")
	register(lowerCopysign, "copysign")
}

var (
	flPT    = ori.R(ori.PT)
	flNotPT = ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true}
	flRZ    = ori.R(ori.RZ)
)

// f32 and f64 constants used below.
const (
	flOne32   = 0x3f800000
	flInf32   = 0x7f800000
	flNaN32   = 0x7fffffff
	flMinN32  = 0x00800000 // 2^-126, the smallest normal f32
	flSign32  = 0x80000000
	flSignH2  = 0x80008000 // the sign bits of both halves
	flInfHi64 = 0x7ff00000
)

func flImm32(v uint32) ori.Operand { return ori.Imm(int64(int32(v))) }

// flF32 is an f32 immediate given by its bits.
func flF32(bits uint32) ori.Operand {
	return ori.Operand{Kind: ori.OpdImm, Imm: int64(bits), FKind: ori.ImmF32}
}

// flPow32 is the f32 immediate 2^e.
func flPow32(e int) ori.Operand { return flF32(uint32(e+127) << 23) }

// flPow64 is the f64 immediate 2^e.
func flPow64(e int) ori.Operand { return ori.F64(math.Ldexp(1, e)) }

func flNot(p ori.Reg) ori.Operand { o := ori.R(p); o.Not = true; return o }

// flKind classifies a float type: 32, 64, or 16 for the half types.
func flKind(t string) int {
	switch t {
	case ".f32":
		return 32
	case ".f64":
		return 64
	case ".f16", ".f16x2", ".bf16", ".bf16x2":
		return 16
	}
	return 0
}

func flIsBF(t string) bool { return t == ".bf16" || t == ".bf16x2" }

// flRnd returns the rounding modifier of a PTX float instruction: RN RZ
// RM RP, or "" when there is none.
func flRnd(in *ptx.Instr) string {
	for _, m := range in.Mods {
		switch m {
		case ".rn":
			return "RN"
		case ".rz":
			return "RZ"
		case ".rm":
			return "RM"
		case ".rp":
			return "RP"
		}
	}
	return ""
}

// flMods builds [FTZ][RZ|RM|RP][SAT] (RN is the default and omitted).
func flMods(ftz bool, rnd string, sat bool) []string {
	var m []string
	if ftz {
		m = append(m, "FTZ")
	}
	if rnd != "" && rnd != "RN" {
		m = append(m, rnd)
	}
	if sat {
		m = append(m, "SAT")
	}
	return m
}

// flHMods builds the modifiers of a half-precision op: [BF16_V2][FTZ][SAT][RELU].
func flHMods(t string, ftz, sat, relu bool) []string {
	var m []string
	if flIsBF(t) {
		m = append(m, "BF16_V2")
	}
	if ftz {
		m = append(m, "FTZ")
	}
	if sat {
		m = append(m, "SAT")
	}
	if relu {
		m = append(m, "RELU")
	}
	return m
}

// flOp emits op into d and returns d.
func (c *fn) flOp(op ori.Opcode, mods []string, d ori.Reg, srcs ...ori.Operand) ori.Reg {
	c.emit(op, mods, []ori.Operand{ori.R(d)}, srcs...)
	return d
}

// flNew emits op into a fresh register of words words.
func (c *fn) flNew(words int, op ori.Opcode, mods []string, srcs ...ori.Operand) ori.Reg {
	return c.flOp(op, mods, c.newReg(words), srcs...)
}

// flR32 emits a one-word op into a fresh register and returns it as an
// operand.
func (c *fn) flR32(op ori.Opcode, mods []string, srcs ...ori.Operand) ori.Operand {
	return ori.R(c.flNew(1, op, mods, srcs...))
}

// flR64 emits a pair op (DADD DMUL DFMA) into a fresh pair.
func (c *fn) flR64(op ori.Opcode, mods []string, srcs ...ori.Operand) ori.Operand {
	return ori.R(c.flNew(2, op, mods, srcs...))
}

// flSetp emits a predicate-producing op (FSETP DSETP ISETP HSETP2 PLOP3
// FCHK...) into a fresh predicate.
func (c *fn) flSetp(op ori.Opcode, mods []string, srcs ...ori.Operand) ori.Reg {
	p := c.newPred()
	dsts := []ori.Operand{ori.R(p), flPT}
	if op == ori.OpFCHK {
		dsts = dsts[:1]
	}
	c.emit(op, mods, dsts, srcs...)
	return p
}

// flLop emits LOP3.LUT of f into a fresh register.
func (c *fn) flLop(a, b, cc ori.Operand, f func(a, b, c bool) bool) ori.Operand {
	return c.flR32(ori.OpLOP3, []string{"LUT"}, a, b, cc, ori.Imm(int64(lut3(f))), flNotPT)
}

// flPlop combines predicates with PLOP3.LUT into a fresh predicate.
func (c *fn) flPlop(a, b, cc ori.Operand, f func(a, b, c bool) bool) ori.Reg {
	p := c.newPred()
	c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), flPT}, a, b, cc, ori.Imm(int64(lut3(f))), ori.Imm(0))
	return p
}

// flSel emits SEL (p ? a : b) into a fresh register.
func (c *fn) flSel(a, b, p ori.Operand) ori.Operand {
	return c.flR32(ori.OpSEL, nil, a, b, p)
}

// flSel64 selects a pair word by word into a fresh pair.
func (c *fn) flSel64(a, b, p ori.Operand) ori.Operand {
	d := c.newReg(2)
	for w := 0; w < 2; w++ {
		c.flOp(ori.OpSEL, nil, d.Word(w), word(a, w), word(b, w), p)
	}
	return ori.R(d)
}

// flPair builds a pair from two word operands.
func (c *fn) flPair(lo, hi ori.Operand) ori.Operand {
	d := c.newReg(2)
	c.flOp(ori.OpMOV, nil, d.Word(0), lo)
	c.flOp(ori.OpMOV, nil, d.Word(1), hi)
	return ori.R(d)
}

// flAdd64 adds a (non-negative or negative) 32-bit constant or register
// inc, sign-extended, to the 64-bit integer x.
func (c *fn) flAdd64(x, inc ori.Operand, incHi ori.Operand) ori.Operand {
	d := c.newReg(2)
	cy := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0)), ori.R(cy)}, word(x, 0), inc, flRZ)
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(d.Word(1))}, word(x, 1), incHi, flRZ, ori.R(cy), flNotPT)
	return ori.R(d)
}

// flMovTo copies words words of src into d.
func (c *fn) flMovTo(d ori.Reg, src ori.Operand, words int) {
	for w := 0; w < words; w++ {
		c.flOp(ori.OpMOV, nil, d.Word(w), word(src, w))
	}
}

// flPlain returns o as an operand without Neg/Abs/Not flags: registers
// with flags and special operands are materialized first.
func (c *fn) flPlain(o ori.Operand, words int) ori.Operand {
	if o.Kind == ori.OpdImm || o.Kind == ori.OpdReg && !o.Neg && !o.Abs && !o.Not {
		return o
	}
	if o.Kind == ori.OpdReg && words == 1 {
		return c.flR32(ori.OpMOV, nil, o)
	}
	d := c.newReg(words)
	if o.Kind == ori.OpdReg && words == 2 && (o.Neg || o.Abs) {
		// A negated or absolute f64 register: fix up the sign word.
		c.flOp(ori.OpMOV, nil, d.Word(0), ori.R(o.Reg.Word(0)))
		hi := ori.R(o.Reg.Word(1))
		switch {
		case o.Abs && o.Neg:
			c.flOp(ori.OpLOP3, []string{"LUT"}, d.Word(1), hi, flImm32(flSign32), flRZ, ori.Imm(int64(lut3(func(a, b, _ bool) bool { return a || b }))), flNotPT)
		case o.Abs:
			c.flOp(ori.OpLOP3, []string{"LUT"}, d.Word(1), hi, flImm32(0x7fffffff), flRZ, ori.Imm(int64(lut3(func(a, b, _ bool) bool { return a && b }))), flNotPT)
		default:
			c.flOp(ori.OpLOP3, []string{"LUT"}, d.Word(1), hi, flImm32(flSign32), flRZ, ori.Imm(int64(lut3(func(a, b, _ bool) bool { return a != b }))), flNotPT)
		}
		return ori.R(d)
	}
	c.flMovTo(d, o, words)
	return ori.R(d)
}

// flSignMask returns the sign bit mask of a float type's register word.
func flSignMask(t string) uint32 {
	if flKind(t) == 16 {
		return flSignH2
	}
	return flSign32
}

// flNeg returns -o for a float operand of type t: the Neg flag on a
// register, the flipped sign on an immediate.
func (c *fn) flNeg(o ori.Operand, t string) ori.Operand {
	switch o.Kind {
	case ori.OpdReg:
		o.Neg = !o.Neg
		return o
	case ori.OpdImm:
		switch flKind(t) {
		case 64:
			o.Imm ^= math.MinInt64
		case 32:
			o.Imm = int64(uint32(o.Imm) ^ flSign32)
		default:
			o.Imm = int64(int32(uint32(o.Imm) ^ flSignMask(t)))
		}
		return o
	}
	r := c.flPlain(o, wordsOf(t))
	r.Neg = true
	return r
}

// flAbs returns |o| for a float operand of type t.
func (c *fn) flAbs(o ori.Operand, t string) ori.Operand {
	switch o.Kind {
	case ori.OpdReg:
		o.Neg, o.Abs = false, true
		return o
	case ori.OpdImm:
		switch flKind(t) {
		case 64:
			o.Imm &^= math.MinInt64
		case 32:
			o.Imm = int64(uint32(o.Imm) &^ flSign32)
		default:
			o.Imm = int64(int32(uint32(o.Imm) &^ flSignMask(t)))
		}
		return o
	}
	r := c.flPlain(o, wordsOf(t))
	r.Abs = true
	return r
}

// flCheck verifies the operand count.
func (c *fn) flCheck(in *ptx.Instr, n int) error {
	if len(in.Args) != n {
		return c.l.errorf(in.OpPos, "%s needs %d operands", in.Op, n)
	}
	return nil
}

// flSrcs returns the sources Args[1:] of type t.
func (c *fn) flSrcs(in *ptx.Instr, t string) ([]ori.Operand, error) {
	var out []ori.Operand
	for _, a := range in.Args[1:] {
		o, err := c.src(a, t)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// flDst returns the destination register of type t, as wide as the type.
func (c *fn) flDst(in *ptx.Instr, t string) (ori.Reg, error) {
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return d, err
	}
	return d.Wide(wordsOf(t)), nil
}

// flBegin starts an expansion that contains branches. A guarded PTX
// instruction first branches around the whole expansion, which then runs
// unguarded; the returned function places the skip target and restores
// the guard.
func (c *fn) flBegin() func() {
	g, n := c.guard, c.gNot
	if g == ori.PT && !n {
		return func() {}
	}
	skip := c.f.NewBlock("")
	c.gNot = !n
	c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(skip.ID)))
	c.endBlock()
	c.guard, c.gNot = ori.PT, false
	return func() {
		c.setBlock(skip)
		c.guard, c.gNot = g, n
	}
}

// flBranchIf emits "@p BRA target" (or @!p with not) inside an
// expansion and starts the fall-through block.
func (c *fn) flBranchIf(p ori.Reg, not bool, target *ori.Block) {
	g, n := c.guard, c.gNot
	c.guard, c.gNot = p, not
	c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(target.ID)))
	c.guard, c.gNot = g, n
	c.endBlock()
}

// lowerFloatArith lowers the floating-point forms of add sub mul mad div
// min max abs neg.
func lowerFloatArith(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	if flKind(t) == 0 {
		return c.l.unsupported(in.OpPos, "%s%s", in.Op, t)
	}
	switch in.Op {
	case "add", "sub", "mul":
		return c.flAddMul(in, t)
	case "mad":
		return c.flFma(in, t)
	case "div":
		return c.flDiv(in, t)
	case "min", "max":
		return c.flMinMax(in, t)
	case "abs", "neg":
		return c.flAbsNeg(in, t)
	}
	return c.l.unsupported(in.OpPos, "floating-point %s", in.Op)
}

// flImmSecond puts an immediate operand of a commutative add or multiply
// second, where SASS encodes it.
//
// Decision: as ptxas 13.0 does, which matters for NaNs: the f64 units
// return the second operand's NaN first ("b, then a"), so in
// "add.rz.f64 %fd1, 0d7FF8000000000000, %fd1" the constant wins when
// %fd1 is a NaN too. ptxas -arch=sm_90 compiles that add to "DADD.RZ R2,
// R8, +QNAN" (and a mul by a NaN constant to DMUL with the constant
// second). Evidence: fuzz5551797 (hwtruth), out[2685] (thread 67, word
// 5), the high word of that sum of the default NaN 0xfff8000000000000 (a
// square root of a negative) and the constant: the H100 wrote 0x7ff80000
// (the constant), the operand order of the PTX gives 0xfff80000.
func flImmSecond(a, b ori.Operand) (ori.Operand, ori.Operand) {
	if a.Kind == ori.OpdImm && b.Kind != ori.OpdImm {
		return b, a
	}
	return a, b
}

func (c *fn) flAddMul(in *ptx.Instr, t string) error {
	if err := c.flCheck(in, 3); err != nil {
		return err
	}
	if in.Op == "mul" {
		if done, err := c.contractMul(in, t); done {
			return err
		}
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	if in.Op != "mul" {
		if done, err := c.contractAdd(in, t, d); done {
			return err
		}
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return err
	}
	a, b := s[0], s[1]
	ftz, sat, rnd := in.HasMod(".ftz"), in.HasMod(".sat"), flRnd(in)
	if in.Op == "sub" {
		b = c.flNeg(b, t)
	}
	if flKind(t) == 64 {
		if first, _ := c.f64Commute(in, 1, 2); first == 2 {
			a, b = b, a // commute.go: ptxas's order decides which NaN wins
		}
	}
	a, b = flImmSecond(a, b)
	add := in.Op != "mul"
	switch flKind(t) {
	case 32:
		op := ori.OpFMUL
		if add {
			op = ori.OpFADD
		}
		c.flOp(op, flMods(ftz, rnd, sat), d, a, b)
	case 64:
		op := ori.OpDMUL
		if add {
			op = ori.OpDADD
		}
		c.flOp(op, flMods(false, rnd, false), d, a, b)
	default:
		if rnd != "" && rnd != "RN" {
			return c.l.unsupported(in.OpPos, "%s with rounding %s on %s", in.Op, rnd, t)
		}
		op := ori.OpHMUL2
		if add {
			op = ori.OpHADD2
		}
		c.flOp(op, flHMods(t, ftz, sat, false), d, a, b)
	}
	return nil
}

// lowerFma lowers fma (and, through flFma, the float mad).
func lowerFma(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	if flKind(t) == 0 {
		return c.l.unsupported(in.OpPos, "fma%s", t)
	}
	return c.flFma(in, t)
}

func (c *fn) flFma(in *ptx.Instr, t string) error {
	if err := c.flCheck(in, 4); err != nil {
		return err
	}
	if in.HasMod(".oob") {
		return c.l.unsupported(in.OpPos, "fma.oob")
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return err
	}
	ftz, sat, relu, rnd := in.HasMod(".ftz"), in.HasMod(".sat"), in.HasMod(".relu"), flRnd(in)
	switch flKind(t) {
	case 32:
		if relu {
			return c.l.unsupported(in.OpPos, "%s.relu on .f32", in.Op)
		}
		c.flOp(ori.OpFFMA, flMods(ftz, rnd, sat), d, s[0], s[1], s[2])
	case 64:
		if first, _ := c.f64Commute(in, 1, 2); first == 2 {
			s[0], s[1] = s[1], s[0] // commute.go
		}
		s[0], s[1] = flImmSecond(s[0], s[1])
		c.flOp(ori.OpDFMA, flMods(false, rnd, false), d, s[0], s[1], s[2])
	default:
		if rnd != "" && rnd != "RN" {
			return c.l.unsupported(in.OpPos, "%s with rounding %s on %s", in.Op, rnd, t)
		}
		c.flOp(ori.OpHFMA2, flHMods(t, ftz, sat, relu), d, s[0], s[1], s[2])
	}
	return nil
}

// flMinMax lowers min/max, including .NaN, .xorsign.abs, .abs and the
// three-source form.
func (c *fn) flMinMax(in *ptx.Instr, t string) error {
	if len(in.Args) != 3 && len(in.Args) != 4 {
		return c.l.errorf(in.OpPos, "%s needs 3 or 4 operands", in.Op)
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return err
	}
	isMax := in.Op == "max"
	nan, ftz, xs, abs := in.HasMod(".NaN"), in.HasMod(".ftz"), in.HasMod(".xorsign"), in.HasMod(".abs")
	if in.HasMod(".relu") {
		return c.l.unsupported(in.OpPos, "%s.relu on %s", in.Op, t)
	}
	if xs && len(s) != 2 {
		return c.l.errorf(in.OpPos, "%s.xorsign takes two sources", in.Op)
	}
	if len(s) == 2 && !nan && !xs && !abs && !ftz && !flIsBF(t) && flSameReg(s[0], s[1]) {
		// Decision: min and max of a register with itself are a copy, as
		// ptxas folds them: the H100 returned x itself for min.f32 x, x
		// of 0x7fc00000 (fuzz5551626) and for min.f16 and max.f16 x, x of
		// the signalling NaN 0xfd01 (fuzz5550007), where the unit would
		// give its canonical NaN (as it does for two NaNs in different
		// registers, fuzz5550312). With .ftz ptxas keeps the instruction
		// (it flushes): max.ftz.f16 x, x of 0xffff gave 0x7fff.
		for k := 0; k < wordsOf(t); k++ {
			c.flOp(ori.OpMOV, nil, d.Word(k), word(c.flPlain(s[0], wordsOf(t)), k))
		}
		return nil
	}
	sel := flPT // FMNMX/HMNMX2 p: true = min
	if isMax {
		sel = flNotPT
	}
	kind := flKind(t)
	if kind == 64 {
		if nan || xs || abs || len(s) != 2 || ftz {
			return c.l.unsupported(in.OpPos, "%s with these modifiers on .f64", in.Op)
		}
		if first, _ := c.f64Commute(in, 1, 2); first == 2 {
			s[0], s[1] = s[1], s[0] // commute.go
		}
		c.flMinMax64(d, s[0], s[1], isMax)
		return nil
	}
	var op ori.Opcode
	var mods []string
	if kind == 32 {
		op = ori.OpFMNMX
		if ftz {
			mods = append(mods, "FTZ")
		}
	} else {
		op = ori.OpHMNMX2
		mods = flHMods(t, ftz, false, false)
	}
	if nan {
		mods = append(mods, "NAN")
	}
	ops := s
	if abs || xs {
		ops = make([]ori.Operand, len(s))
		for i := range s {
			ops[i] = c.flAbs(s[i], t)
		}
	}
	if !xs && len(ops) == 2 {
		c.flOp(op, mods, d, ops[0], ops[1], sel)
		return nil
	}
	// min(a, b, c) = min(min(a, b), c): minNum is associative, including
	// the NaN rules (a NaN pair gives NaN, which the next step ignores;
	// with .NaN any NaN propagates).
	m := c.flR32(op, mods, ops[0], ops[1], sel)
	if !xs {
		c.flOp(op, mods, d, m, ops[2], sel)
		return nil
	}
	// .xorsign.abs: the magnitude is min/max(|a|, |b|) (its sign is clear,
	// also for the canonical NaN) and the sign is sign(a) ^ sign(b).
	a, b := c.flPlain(s[0], 1), c.flPlain(s[1], 1)
	sign := c.flLop(a, b, flImm32(flSignMask(t)), func(a, b, c bool) bool { return (a != b) && c })
	c.flOp(ori.OpLOP3, []string{"LUT"}, d, m, sign, flRZ, ori.Imm(int64(lut3(func(a, b, _ bool) bool { return a || b }))), flNotPT)
	return nil
}

// flMinMax64 is min/max.f64 (IEEE minNum/maxNum, -0 < +0, two NaNs give
// b quieted): a is taken when a < b (a > b for max), when only b
// is NaN, or when a == b and a's sign decides the ±0 case.
func (c *fn) flMinMax64(d ori.Reg, a, b ori.Operand, isMax bool) {
	a, b = c.flPlain(a, 2), c.flPlain(b, 2)
	bNaN := c.flSetp(ori.OpDSETP, []string{"NAN", "AND"}, b, b, flPT)
	onlyB := c.flSetp(ori.OpDSETP, []string{"NUM", "AND"}, a, a, ori.R(bNaN))
	both := c.flSetp(ori.OpDSETP, []string{"NAN", "AND"}, a, a, ori.R(bNaN))
	signCmp, lt := "LT", "LT" // min: a negative, a < b
	if isMax {
		signCmp, lt = "GE", "GT"
	}
	aSign := c.flSetp(ori.OpISETP, []string{signCmp, "AND"}, word(a, 1), flRZ, flPT)
	zero := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, a, b, ori.R(aSign))
	less := c.flSetp(ori.OpDSETP, []string{lt, "OR"}, a, b, ori.R(onlyB))
	takeA := c.flPlop(ori.R(less), ori.R(zero), flPT, func(x, y, _ bool) bool { return x || y })
	r := c.flSel64(a, b, ori.R(takeA))
	// Two NaNs give b, quieted (fp.Min64 says why).
	qb := c.flLop(word(b, 1), flImm32(0x80000), flRZ, func(x, q, _ bool) bool { return x || q })
	c.flOp(ori.OpSEL, nil, d.Word(0), word(b, 0), word(r, 0), ori.R(both))
	c.flOp(ori.OpSEL, nil, d.Word(1), qb, word(r, 1), ori.R(both))
}

// flSameReg reports whether two operands read the same register with the
// same modifiers.
func flSameReg(a, b ori.Operand) bool {
	return a.Kind == ori.OpdReg && b.Kind == ori.OpdReg && a.Reg == b.Reg && a.Neg == b.Neg && a.Abs == b.Abs
}

// flAbsNeg lowers abs and neg as ptxas does: an add of -0 to the operand
// with its .neg or .abs modifier (FADD d = -a, -RZ; DADD d = -RZ, -a;
// HADD2 d = -a, -RZ), with .FTZ for .ftz. For numbers that is the sign-bit
// operation exactly (-x + -0 is -x for every x, +0 + -0 is +0); a NaN
// comes out as the unit makes it: the canonical NaN for f32 and f16, the
// quieted operand for f64. bf16, and a guarded abs or neg without .ftz,
// keep a LOP3 on the sign bits: ptxas if-converts a guarded one into FSEL with |a| or
// -a, which does not touch the payload (the H100 wrote 0x7fc00000 for
// @!p abs.f32 of 0x7fc00000, fuzz5551398).
//
// Decision: the adder, not a sign flip. The H100 wrote 0x7fffffff for
// neg.f32 and neg.ftz.f32 of 0x7fc00000 (fuzz5550048, fuzz5550280; PTX
// says neg "flips the sign", which would give 0xffc00000), and 0x7fff for
// neg.f16 and abs.f16 of f16 NaNs (fuzz5550016, fuzz5550382); ptxas 13.0
// compiles these to FADD/HADD2 with -RZ (cuobjdump of a one-instruction
// kernel), and neg.ftz.f16 to HADD2.FTZ, which also flushes subnormals.
func (c *fn) flAbsNeg(in *ptx.Instr, t string) error {
	if err := c.flCheck(in, 2); err != nil {
		return err
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return err
	}
	if c.ptxasFoldAbsNeg(in, t, d) {
		return nil
	}
	neg, ftz := in.Op == "neg", in.HasMod(".ftz")
	kind := flKind(t)
	if !flIsBF(t) && (in.Guard == nil || ftz) {
		x := c.flAbs(s[0], t)
		if neg {
			x = c.flNeg(s[0], t)
		}
		negRZ := flRZ
		negRZ.Neg = true
		switch kind {
		case 32:
			c.flOp(ori.OpFADD, flMods(ftz, "", false), d, x, negRZ)
		case 64:
			c.flOp(ori.OpDADD, nil, d, negRZ, x)
		default:
			c.flOp(ori.OpHADD2, flHMods(t, ftz, false, false), d, x, negRZ)
		}
		return nil
	}
	a := c.flPlain(s[0], wordsOf(t))
	mask := flSignMask(t)
	var f func(x, m, _ bool) bool
	var k uint32
	if neg {
		f, k = func(x, m, _ bool) bool { return x != m }, mask
	} else {
		f, k = func(x, m, _ bool) bool { return x && m }, ^mask
	}
	if kind == 64 {
		c.flOp(ori.OpMOV, nil, d.Word(0), word(a, 0))
		c.flOp(ori.OpLOP3, []string{"LUT"}, d.Word(1), word(a, 1), flImm32(k), flRZ, ori.Imm(int64(lut3(f))), flNotPT)
		return nil
	}
	c.flOp(ori.OpLOP3, []string{"LUT"}, d, a, flImm32(k), flRZ, ori.Imm(int64(lut3(f))), flNotPT)
	return nil
}

// lowerCopysign: d = magnitude of b with the sign of a.
func lowerCopysign(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 3); err != nil {
		return err
	}
	t := lastType(in)
	if t != ".f32" && t != ".f64" {
		return c.l.unsupported(in.OpPos, "copysign%s", t)
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return err
	}
	w := wordsOf(t)
	a, b := c.flPlain(s[0], w), c.flPlain(s[1], w)
	lut := ori.Imm(int64(lut3(func(a, b, c bool) bool {
		if c {
			return a
		}
		return b
	})))
	if w == 2 {
		c.flOp(ori.OpLOP3, []string{"LUT"}, d.Word(1), word(a, 1), word(b, 1), flImm32(flSign32), lut, flNotPT)
		c.flOp(ori.OpMOV, nil, d.Word(0), word(b, 0))
		return nil
	}
	c.flOp(ori.OpLOP3, []string{"LUT"}, d, a, b, flImm32(flSign32), lut, flNotPT)
	return nil
}

// lowerTestp: FSETP/DSETP on |a| (no .FTZ: subnormals are subnormal).
// Zeros count as normal numbers.
//
// Decision: a guarded testp runs unguarded, as ptxas 13.0 compiles it:
// its SASS for "@%p1 testp.normal.f32 %p1, %f3" (and for every property,
// .f32 and .f64, @p and @!p, and a destination other than the guard) is
// the ISETP chain without the guard, so the destination gets the test's
// result also where the guard is false; a guarded setp keeps its guard.
// Evidence on the H100 (hwtruth): fuzz5550054, whose fn0 has "@%p1
// testp.normal.f32 %p1, %f3" with %p1 false on even arguments, out[21]
// (thread 0, word 21), a hash with "selp.u32 1, 0, %p1" as its
// second-to-last term: 0xaa14c43d, where the guard gives 0xaa14c41e (31
// less: %p1 false); fuzz5551097 ("@%p2 testp.number.f32 %p2, %f2") out[698]
// 0xcf016f9d, guarded 0xcf016f5f (2*31 less). PTX's manual says a guard
// applies to every instruction; ptxas and the hardware decide here.
func lowerTestp(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 2); err != nil {
		return err
	}
	c.guard, c.gNot = ori.PT, false
	t := lastType(in)
	if t != ".f32" && t != ".f64" {
		return c.l.unsupported(in.OpPos, "testp%s", t)
	}
	p, err := c.dst(in.Args[0], ".pred")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	a = c.flPlain(a, wordsOf(t))
	op := ori.OpFSETP
	inf, minN, zero := flF32(flInf32), flF32(flMinN32), flF32(0)
	if t == ".f64" {
		op = ori.OpDSETP
		inf, minN, zero = ori.F64(math.Inf(1)), flPow64(-1022), ori.F64(0)
	}
	abs := c.flAbs(a, t)
	set := func(dst ori.Reg, cmp, b string, x, y, cc ori.Operand) {
		c.emit(op, []string{cmp, b}, []ori.Operand{ori.R(dst), flPT}, x, y, cc)
	}
	switch {
	case in.HasMod(".finite"):
		set(p, "LT", "AND", abs, inf, flPT)
	case in.HasMod(".infinite"):
		set(p, "EQ", "AND", abs, inf, flPT)
	case in.HasMod(".number"):
		set(p, "NUM", "AND", a, a, flPT)
	case in.HasMod(".notanumber"):
		set(p, "NAN", "AND", a, a, flPT)
	case in.HasMod(".normal"):
		fin := c.newPred()
		set(fin, "LT", "AND", abs, inf, flPT)
		big := c.newPred()
		set(big, "GE", "AND", abs, minN, ori.R(fin))
		set(p, "EQ", "OR", a, zero, ori.R(big))
	case in.HasMod(".subnormal"):
		small := c.newPred()
		set(small, "LT", "AND", abs, minN, flPT)
		set(p, "NE", "AND", a, zero, ori.R(small))
	default:
		return c.l.errorf(in.OpPos, "testp needs a property")
	}
	return nil
}

// lowerMufu lowers sin cos lg2 ex2 tanh (.approx.f32).
func lowerMufu(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	if (t == ".f16" || t == ".f16x2") && (in.Op == "ex2" || in.Op == "tanh") {
		return c.lowerMufuF16(in, t)
	}
	if t != ".f32" {
		return c.l.unsupported(in.OpPos, "%s%s", in.Op, t)
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	if c.ptxasFoldApprox(in, d) {
		return nil
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	a = c.flPlain(a, 1)
	ftz := in.HasMod(".ftz")
	mufu := func(fn string, x ori.Operand) ori.Operand { return c.flR32(ori.OpMUFU, []string{fn}, x) }
	switch in.Op {
	case "tanh":
		c.flOp(ori.OpMUFU, []string{"TANH"}, d, a)
	case "cos":
		// cos of a subnormal is 1 either way.
		c.flOp(ori.OpMUFU, []string{"COS"}, d, a)
	case "sin":
		// Decision: sin.approx.f32 without .ftz is MUFU.SIN too, as ptxas
		// 13.0 compiles it (FMUL.RZ by 1/2pi, then MUFU.SIN, for both
		// forms), so sin of a subnormal is a zero of its sign; the H100
		// returns 0 for sin.approx.f32(0x4000) (ops-h100.tgz).
		c.flOp(ori.OpMUFU, []string{"SIN"}, d, a)
	case "ex2":
		if ftz {
			c.flOp(ori.OpMUFU, []string{"EX2"}, d, a)
			return nil
		}
		// Results below 2^-126 are subnormal: 2^a = (2^(a/2))^2, the
		// square rounded by FMUL, as ptxas 13.0 compiles it. The scaling
		// decides the bits of the result (sim/fp Ex2SFU32 on a/2, then
		// the rounding of the square), so it follows ptxas exactly.
		lo := c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, a, flF32(math.Float32bits(-126)), flPT)
		as := c.flR32(ori.OpFMUL, nil, a, flF32(math.Float32bits(0.5)))
		x := c.flSel(as, a, ori.R(lo))
		r := mufu("EX2", x)
		rs := c.flR32(ori.OpFMUL, nil, r, r)
		c.flOp(ori.OpSEL, nil, d, rs, r, ori.R(lo))
	case "lg2":
		if ftz {
			c.flOp(ori.OpMUFU, []string{"LG2"}, d, a)
			return nil
		}
		// lg2(a) = lg2(a * 2^24) - 24 for subnormal a.
		tiny := c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, c.flAbs(a, t), flF32(flMinN32), flPT)
		as := c.flR32(ori.OpFMUL, nil, a, flPow32(24))
		x := c.flSel(as, a, ori.R(tiny))
		r := mufu("LG2", x)
		rs := c.flR32(ori.OpFADD, nil, r, flF32(math.Float32bits(-24)))
		c.flOp(ori.OpSEL, nil, d, rs, r, ori.R(tiny))
	}
	return nil
}

// lowerMufuF16 lowers ex2.approx.f16 and tanh.approx.f16 (and their
// .f16x2 forms) to MUFU.EX2.F16 / MUFU.TANH.F16, which read the low half
// of their operand and write the result to the low half. A pair is two
// MUFUs, the high half first moved down by a PRMT, and a PRMT that packs
// the two results.
//
// Decision: ptxas 13.0 emits the same MUFU.<fn>.F16 pair but reads the
// high half with the .H1 operand selector, which Ori has no operand form
// for; the PRMT computes the same bits (cuobjdump of ex2.approx.f16x2 and
// tanh.approx.f16x2 on sm_80: MUFU.EX2.F16 R7, R6; MUFU.EX2.F16 R8, R6.H1;
// PRMT R7, R7, 0x5410, R8).
func (c *fn) lowerMufuF16(in *ptx.Instr, t string) error {
	fn := map[string]string{"ex2": "EX2", "tanh": "TANH"}[in.Op]
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	mods := []string{fn, "F16"}
	if t == ".f16" {
		c.flOp(ori.OpMUFU, mods, d, a)
		return nil
	}
	lo := c.flR32(ori.OpMUFU, mods, a)
	hiIn := c.flR32(ori.OpPRMT, nil, a, ori.Imm(0x7632), flRZ)
	hi := c.flR32(ori.OpMUFU, mods, hiIn)
	c.flOp(ori.OpPRMT, nil, d, lo, ori.Imm(0x5410), hi)
	return nil
}

// flScaledMufu computes MUFU fn of a for an f32 operand keeping
// subnormals: operands below 2^-126 are multiplied by 2^24 first and the
// result by 2^outSmall; with big (rcp only, outSmall 24) operands of at
// least 2^126 are multiplied by 2^-24 and the result by 2^-24.
func (c *fn) flScaledMufu(d ori.Reg, fn string, a ori.Operand, outSmall int, big bool) {
	abs := c.flAbs(a, ".f32")
	tiny := c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, abs, flF32(flMinN32), flPT)
	in := c.flSel(flPow32(24), flF32(flOne32), ori.R(tiny))
	out := in // rcp: the same factor on both sides
	if outSmall != 24 {
		out = c.flSel(flPow32(outSmall), flF32(flOne32), ori.R(tiny))
	}
	if big {
		huge := c.flSetp(ori.OpFSETP, []string{"GE", "AND"}, abs, flPow32(126), flPT)
		in = c.flSel(flPow32(-24), in, ori.R(huge))
		out = in
	}
	x := c.flR32(ori.OpFMUL, nil, a, in)
	r := c.flR32(ori.OpMUFU, []string{fn}, x)
	c.flOp(ori.OpFMUL, nil, d, r, out)
}

func lowerRcp(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	if t != ".f32" && t != ".f64" {
		return c.l.unsupported(in.OpPos, "rcp%s", t)
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	if c.ptxasFoldApprox(in, d) {
		return nil
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	ftz, rnd := in.HasMod(".ftz"), flRnd(in)
	if t == ".f64" {
		a = c.flPlain(a, 2)
		if in.HasMod(".approx") {
			// rcp.approx.ftz.f64: the 20-bit MUFU.RCP64H estimate from
			// the high word; the low word of the result is zero.
			c.flOp(ori.OpMUFU, []string{"RCP64H"}, d.Word(1), word(a, 1))
			c.flOp(ori.OpMOV, nil, d.Word(0), flRZ)
			return nil
		}
		if rnd == "" {
			rnd = "RN"
		}
		// One DDIV 1/a for the optimizer, as div.rnd.f64; Expand
		// replaces it late (its slow path out of line, slowpath.go).
		c.emit(ori.OpDDIV, []string{rnd}, []ori.Operand{ori.R(d)}, ori.F64(1), a)
		return nil
	}
	a = c.flPlain(a, 1)
	if in.HasMod(".approx") {
		if ftz {
			c.flOp(ori.OpMUFU, []string{"RCP"}, d, a)
			return nil
		}
		c.flScaledMufu(d, "RCP", a, 24, true)
		return nil
	}
	if rnd == "" {
		rnd = "RN"
	}
	c.flDivF32(d, flF32(flOne32), a, rnd, ftz)
	return nil
}

func lowerSqrt(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	if t != ".f32" && t != ".f64" {
		return c.l.unsupported(in.OpPos, "sqrt%s", t)
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	if c.ptxasFoldApprox(in, d) {
		return nil
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	a = c.flPlain(a, wordsOf(t))
	ftz, rnd := in.HasMod(".ftz"), flRnd(in)
	if in.HasMod(".approx") {
		if t != ".f32" {
			return c.l.unsupported(in.OpPos, "sqrt.approx%s", t)
		}
		if ftz {
			c.flOp(ori.OpMUFU, []string{"SQRT"}, d, a)
			return nil
		}
		c.flScaledMufu(d, "SQRT", a, -12, false)
		return nil
	}
	if rnd == "" {
		rnd = "RN"
	}
	if t == ".f64" {
		// One DSQRT for the optimizer; Expand replaces it late.
		c.emit(ori.OpDSQRT, []string{rnd}, []ori.Operand{ori.R(d)}, a)
		return nil
	}
	c.flSqrtF32(d, a, rnd, ftz)
	return nil
}

func lowerRsqrt(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	if t != ".f32" && t != ".f64" {
		return c.l.unsupported(in.OpPos, "rsqrt%s", t)
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	if c.ptxasFoldApprox(in, d) {
		return nil
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	a = c.flPlain(a, wordsOf(t))
	ftz := in.HasMod(".ftz")
	if t == ".f32" {
		if ftz {
			c.flOp(ori.OpMUFU, []string{"RSQ"}, d, a)
			return nil
		}
		c.flScaledMufu(d, "RSQ", a, 12, false)
		return nil
	}
	c.flRsqrtF64(d, a, ftz)
	return nil
}

// flDiv lowers div.f32 (.approx, .full, .rnd) and div.rnd.f64.
func (c *fn) flDiv(in *ptx.Instr, t string) error {
	if err := c.flCheck(in, 3); err != nil {
		return err
	}
	d, err := c.flDst(in, t)
	if err != nil {
		return err
	}
	s, err := c.flSrcs(in, t)
	if err != nil {
		return err
	}
	ftz, rnd := in.HasMod(".ftz"), flRnd(in)
	if rnd == "" {
		rnd = "RN"
	}
	switch flKind(t) {
	case 64:
		// One DDIV for the optimizer; Expand replaces it late.
		c.emit(ori.OpDDIV, []string{rnd}, []ori.Operand{ori.R(d)}, c.flPlain(s[0], 2), c.flPlain(s[1], 2))
		return nil
	case 32:
	default:
		return c.l.unsupported(in.OpPos, "div%s", t)
	}
	a, b := c.flPlain(s[0], 1), c.flPlain(s[1], 1)
	switch {
	case in.HasMod(".approx"), in.HasMod(".full"):
		// Decision: div.approx.f32 and div.full.f32 follow ptxas 13.0's
		// SASS (sm_90) operation for operation: both operands are scaled
		// by 1/4 when |b| > 2^126 (.full only) and by 2^24 when |b| <
		// 2^-126 (without .ftz), then d = MUFU.RCP(b') * a'. The scaling
		// of a (not of the quotient) decides overflow and underflow: the
		// H100 wrote 0x7f000001 for a quotient this lowering used to
		// compute as a * rcp(b), inf (fuzz5550413), and 1.0 for x/x with
		// a subnormal x (fuzz5551944). Without .ftz the FMUL is RCP * a;
		// div.approx.ftz.f32 is FMUL.FTZ a, RCP.
		if b.Kind == ori.OpdImm && !math.IsNaN(float64(math.Float32frombits(uint32(b.Imm)))) {
			c.flDivByImm32(d, a, uint32(b.Imm), in.HasMod(".full"), ftz)
			return nil
		}
		var ops [2]ori.Operand
		ops[0], ops[1] = a, b
		abs := c.flAbs(b, t)
		scale := func(p ori.Operand, by ori.Operand) {
			for i := range ops {
				ops[i] = c.flSel(c.flR32(ori.OpFMUL, flMods(ftz, "", false), ops[i], by), ops[i], p)
			}
		}
		if in.HasMod(".full") {
			big := c.flSetp(ori.OpFSETP, []string{"GT", "AND"}, abs, flPow32(126), flPT)
			if ftz {
				scale(ori.R(big), flPow32(-2))
			} else {
				// The test reads the unscaled b, as in the SASS.
				tiny := c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, abs, flF32(flMinN32), flPT)
				scale(ori.R(big), flPow32(-2))
				scale(ori.R(tiny), flPow32(24))
			}
		} else if !ftz {
			tiny := c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, abs, flF32(flMinN32), flPT)
			scale(ori.R(tiny), flPow32(24))
		}
		r := c.flR32(ori.OpMUFU, []string{"RCP"}, ops[1])
		if ftz {
			c.flOp(ori.OpFMUL, flMods(true, "", false), d, ops[0], r)
		} else {
			c.flOp(ori.OpFMUL, nil, d, r, ops[0])
		}
	default:
		c.flDivF32(d, a, b, rnd, ftz)
	}
	return nil
}

// flDivByImm32 is div.approx.f32 or div.full.f32 (full) by the
// immediate, not NaN, b: ptxas 13.0 applies the scalings of the register
// form to b at compile time and folds MUFU.RCP of the result into an
// FMUL immediate.
// Decision: the folded reciprocal is 1/b' rounded to nearest, a flushed
// subnormal b' giving ±inf and a subnormal reciprocal ±0, which is what
// ptxas writes (SASS of div.full.ftz.f32 by 0fBC87C37C: FMUL.FTZ by
// -60.340175628662109375, RN(1/b); by 0f7F000000 without .full: FMUL
// by RZ), not the MUFU.RCP model's value: the H100 differed by one ulp
// from a * MUFU.RCP(b) in 286 elements of fuzz5550289 and fuzz5551772.
func (c *fn) flDivByImm32(d ori.Reg, a ori.Operand, b uint32, full, ftz bool) {
	abs := b &^ flSign32
	mods := flMods(ftz, "", false)
	switch {
	case full && abs > 0x7e800000: // |b| > 2^126
		a = c.flR32(ori.OpFMUL, mods, a, flPow32(-2))
		b = math.Float32bits(math.Float32frombits(b) * 0.25)
	case !ftz && abs < flMinN32:
		a = c.flR32(ori.OpFMUL, mods, a, flPow32(24))
		b = math.Float32bits(math.Float32frombits(b) * 0x1p24)
	}
	var r uint32
	if b&^flSign32 < flMinN32 {
		r = b&flSign32 | flInf32
	} else {
		// 1/b rounded to f64 and then to f32 is RN(1/b): the quotient of
		// 1 by a 24-bit significand is never within 2^-53 of an f32
		// midpoint without being a power of two.
		r = math.Float32bits(float32(1 / float64(math.Float32frombits(b))))
		if r&^flSign32 < flMinN32 {
			r &= flSign32
		}
	}
	c.flOp(ori.OpFMUL, mods, d, a, flF32(r))
}

// flDivF32 is the IEEE f32 division d = a/b rounded by rnd (a and b are
// plain operands). Fast path: MUFU.RCP refined to RN(1/b), quotient,
// Markstein correction, all exact when FCHK.DIVIDE says so; the slow path
// divides in f64 (see the file comment).
func (c *fn) flDivF32(d ori.Reg, a, b ori.Operand, rnd string, ftz bool) {
	end := c.flBegin()
	t := c.newReg(1)
	nb := c.flNeg(b, ".f32")
	r0 := c.flR32(ori.OpMUFU, []string{"RCP"}, b)
	e := c.flR32(ori.OpFFMA, nil, nb, r0, flF32(flOne32))
	y := c.flRcpFix(c.flR32(ori.OpFFMA, nil, r0, e, r0), b, 1)
	q0 := c.flR32(ori.OpFMUL, nil, a, y)
	r := c.flR32(ori.OpFFMA, nil, nb, q0, a)
	q1 := c.flR32(ori.OpFFMA, nil, r, y, q0)
	r1 := c.flR32(ori.OpFFMA, nil, nb, q1, a)
	c.flOp(ori.OpFFMA, flMods(false, rnd, false), t, r1, y, q1)
	// FCHK's A is a register in every SASS word (the immediate slot is
	// B), so a constant numerator (rcp.rn.f32 is 1.0 / b) is moved into
	// a register here, where the allocator gives it one. Leaving it to
	// PostFixForMercTargets failed in a .func whose written registers
	// are all live at the FCHK (bodysystemcuda's gravitation at -O3:
	// FCHK.DIVIDE P1 = 0f3F800000, R15 stayed unencodable), as the fix-up
	// may only take registers the .func already writes. Copy propagation
	// does not put the constant back: FCHK has no immediate A slot
	// (opt's immSlot).
	fa := a
	if a.Kind != ori.OpdReg {
		fa = c.flR32(ori.OpMOV, nil, a)
	}
	slow := c.flSetp(ori.OpFCHK, []string{"DIVIDE"}, fa, b)
	join := c.f.NewBlock("")
	c.flBranchIf(slow, true, join)
	if c.slow != nil && c.l.opts.OutlineF32Div {
		c.callFDivSlow(t, a, b, rnd, ftz)
	} else {
		c.flDivF32Slow(t, a, b, rnd, ftz)
	}
	c.setBlock(join)
	c.flOp(ori.OpMOV, nil, d, ori.R(t))
	end()
}

// flFlush32 flushes a subnormal f32 operand to zero of the same sign:
// x * 1.0 with .FTZ changes nothing else (NaNs become canonical, which
// the results that use this are anyway). Immediates are flushed here.
func (c *fn) flFlush32(x ori.Operand) ori.Operand {
	if x.Kind == ori.OpdImm {
		if uint32(x.Imm)&flInf32 == 0 {
			x.Imm = int64(uint32(x.Imm) & flSign32)
		}
		return x
	}
	return c.flR32(ori.OpFMUL, []string{"FTZ"}, x, flF32(flOne32))
}

// flDivF32Slow computes the f32 quotient exactly for every operand pair.
func (c *fn) flDivF32Slow(t ori.Reg, a, b ori.Operand, rnd string, ftz bool) {
	if ftz {
		a, b = c.flFlush32(a), c.flFlush32(b)
	}
	inf := flF32(flInf32)
	bOK := c.flSetp(ori.OpFSETP, []string{"GT", "AND"}, c.flAbs(b, ".f32"), flF32(0), flPT)
	bOK = c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, c.flAbs(b, ".f32"), inf, ori.R(bOK))
	ok := c.flSetp(ori.OpFSETP, []string{"GT", "AND"}, c.flAbs(a, ".f32"), flF32(0), ori.R(bOK))
	ok = c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, c.flAbs(a, ".f32"), inf, ori.R(ok))
	// Special operands: a * rcp(b'), b' = +-1 for a finite nonzero b
	// (rcp(+-1) is exact; rcp of such a b itself could flush).
	one := c.flLop(b, flImm32(flSign32), flImm32(flOne32), func(b, s, o bool) bool { return b && s || o })
	bs := c.flSel(one, b, ori.R(bOK))
	rs := c.flR32(ori.OpMUFU, []string{"RCP"}, bs)
	sp := c.flR32(ori.OpFMUL, nil, a, rs)
	// Finite nonzero operands: divide in f64 and round once more.
	A := c.flR64(ori.OpF2F, []string{"F64", "F32"}, a)
	B := c.flR64(ori.OpF2F, []string{"F64", "F32"}, b)
	Q := c.newReg(2)
	c.flDivCore64(Q, A, B, rnd, false)
	mods := []string{"F32", "F64"}
	if ftz {
		mods = append(mods, "FTZ")
	}
	g := c.flR32(ori.OpF2F, append(mods, rnd), ori.R(Q))
	c.flOp(ori.OpSEL, nil, t, g, sp, ori.R(ok))
}

// flRcp64 returns RN(1/b) for an f64 b whose reciprocal is normal: the
// MUFU.RCP64H seed, one cubic step (e + e^2) and two Newton steps; the
// last step makes a faithful estimate correctly rounded (file comment).
// fix handles the all-ones significand (flRcpFix); it is not needed for
// f64 values converted from f32, whose low significand bits are zero.
func (c *fn) flRcp64(b ori.Operand, fix bool) ori.Operand {
	nb := c.flNeg(b, ".f64")
	y0 := c.flPair(flRZ, c.flR32(ori.OpMUFU, []string{"RCP64H"}, word(b, 1)))
	one := ori.F64(1)
	e := c.flR64(ori.OpDFMA, nil, nb, y0, one)
	e2 := c.flR64(ori.OpDFMA, nil, e, e, e)
	y := c.flR64(ori.OpDFMA, nil, y0, e2, y0)
	for i := 0; i < 2; i++ {
		e = c.flR64(ori.OpDFMA, nil, nb, y, one)
		y = c.flR64(ori.OpDFMA, nil, y, e, y)
	}
	if !fix {
		return y
	}
	return c.flRcpFix(y, b, 2)
}

// flRcpFix replaces the refined reciprocal y of b by RN(1/b) when b's
// significand is all ones: b = 2^e (2 - 2^(1-p)) has 1/b = 2^-(e+1) (1 +
// 2^-p + 2^-2p + ...), just above a midpoint, and it is the one case where
// the refinement step from a faithful (but not nearest) estimate rounds
// the wrong way (Markstein's exception; see the file comment). RN(1/b) is
// 2^-(e+1) (1 + 2^(1-p)): sign of b, biased exponent 2*bias-1-E, and a
// significand of 1 ulp. b is normal with 1/b normal wherever this is used.
func (c *fn) flRcpFix(y, b ori.Operand, words int) ori.Operand {
	and := func(a, m, _ bool) bool { return a && m }
	if words == 1 {
		frac := c.flLop(b, flImm32(0x007fffff), flRZ, and)
		ones := c.flSetp(ori.OpISETP, []string{"EQ", "U32", "AND"}, frac, flImm32(0x007fffff), flPT)
		s := c.flLop(b, flImm32(flSign32), flRZ, and)
		e := c.flLop(b, flImm32(flInf32), flRZ, and)
		e.Neg = true
		fix := c.flR32(ori.OpIADD3, nil, s, flImm32(253<<23|1), e)
		return c.flSel(fix, y, ori.R(ones))
	}
	hi := word(b, 1)
	ones := c.flSetp(ori.OpISETP, []string{"EQ", "U32", "AND"}, word(b, 0), flImm32(0xffffffff), flPT)
	frac := c.flLop(hi, flImm32(0x000fffff), flRZ, and)
	ones = c.flSetp(ori.OpISETP, []string{"EQ", "U32", "AND"}, frac, flImm32(0x000fffff), ori.R(ones))
	s := c.flLop(hi, flImm32(flSign32), flRZ, and)
	e := c.flLop(hi, flImm32(flInfHi64), flRZ, and)
	e.Neg = true
	fix := c.flR32(ori.OpIADD3, nil, s, flImm32(2045<<20), e)
	return c.flSel64(c.flPair(ori.Imm(1), fix), y, ori.R(ones))
}

// flQuot64 returns (y, q1, r1): y = RN(1/b), q1 a faithful quotient
// within u/2 + u*2^-53 of a/b and r1 = a - b*q1 (exact).
func (c *fn) flQuot64(a, b ori.Operand, fix bool) (y, q1, r1 ori.Operand) {
	nb := c.flNeg(b, ".f64")
	y = c.flRcp64(b, fix)
	q0 := c.flR64(ori.OpDMUL, nil, a, y)
	r0 := c.flR64(ori.OpDFMA, nil, nb, q0, a)
	q1 = c.flR64(ori.OpDFMA, nil, r0, y, q0)
	r1 = c.flR64(ori.OpDFMA, nil, nb, q1, a)
	return y, q1, r1
}

// flDivCore64 writes o(a/b) into q for operands inside the f64 fast-path
// range (every pair of f32 values qualifies).
func (c *fn) flDivCore64(q ori.Reg, a, b ori.Operand, rnd string, fix bool) {
	y, q1, r1 := c.flQuot64(a, b, fix)
	c.flOp(ori.OpDFMA, flMods(false, rnd, false), q, r1, y, q1)
}

// flExp64 returns the 11-bit biased exponent field of the f64 x.
func (c *fn) flExp64(x ori.Operand) ori.Operand {
	e := c.flR32(ori.OpSHF, []string{"R", "U32", "HI"}, flRZ, ori.Imm(20), word(x, 1))
	return c.flLop(e, flImm32(0x7ff), flRZ, func(a, b, _ bool) bool { return a && b })
}

// flDivF64 is the IEEE f64 division d = a/b rounded by rnd.
func (c *fn) flDivF64(d ori.Reg, a, b ori.Operand, rnd string) {
	end := c.flBegin()
	t := c.newReg(2)
	c.flDivCore64(t, a, b, rnd, true)
	// Fast-path range: exponents within [-958, 959] and a quotient
	// exponent within [-1000, 1000]: 1/b, the quotient and the
	// remainders (multiples of 2^-1063 or coarser) stay representable and
	// nothing is flushed.
	ea, eb := c.flExp64(a), c.flExp64(b)
	x1 := c.flR32(ori.OpIADD3, nil, ea, ori.Imm(-65), flRZ)
	slow := c.flSetp(ori.OpISETP, []string{"GT", "U32", "AND"}, x1, ori.Imm(1917), flPT)
	x2 := c.flR32(ori.OpIADD3, nil, eb, ori.Imm(-65), flRZ)
	slow = c.flSetp(ori.OpISETP, []string{"GT", "U32", "OR"}, x2, ori.Imm(1917), ori.R(slow))
	neb := eb
	neb.Neg = true
	x3 := c.flR32(ori.OpIADD3, nil, ea, neb, ori.Imm(1000))
	slow = c.flSetp(ori.OpISETP, []string{"GT", "U32", "OR"}, x3, ori.Imm(2000), ori.R(slow))
	join := c.f.NewBlock("")
	c.flBranchIf(slow, true, join)
	if c.slow != nil {
		c.callDivSlow(t, a, b, rnd)
	} else {
		c.flDivF64Slow(t, a, b, rnd)
	}
	c.setBlock(join)
	c.flMovTo(d, ori.R(t), 2)
	end()
}

// flNorm64 returns m in [1,2) and the biased exponent e of the finite
// nonzero f64 x = m * 2^(e-1023) (subnormals included).
func (c *fn) flNorm64(x ori.Operand) (m, e ori.Operand) {
	ex := c.newReg(1)
	normal := c.newPred()
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(ex), ori.R(normal)}, word(x, 1), flImm32(0x7ff00000), flRZ, ori.Imm(0xc0), flNotPT)
	xs := c.flR64(ori.OpDMUL, nil, x, flPow64(64))
	s := c.flSel64(x, xs, ori.R(normal))
	adj := c.flSel(flRZ, ori.Imm(-64), ori.R(normal))
	e = c.flR32(ori.OpIADD3, nil, c.flExp64(s), adj, flRZ)
	hi := c.flLop(word(s, 1), flImm32(0x000fffff), flImm32(0x3ff00000), func(a, b, c bool) bool { return a && b || c })
	m = c.flPair(word(s, 0), hi)
	return m, e
}

// flPow2x returns the f64 2^k for a runtime k in [-1022, 1023] (k is an
// operand; neg negates it first).
func (c *fn) flPow2x(k ori.Operand, neg bool) ori.Operand {
	if neg {
		k.Neg = !k.Neg
	}
	e := c.flR32(ori.OpIADD3, nil, k, ori.Imm(1023), flRZ)
	hi := c.flR32(ori.OpSHF, []string{"L", "U32"}, e, ori.Imm(20), flRZ)
	return c.flPair(flRZ, hi)
}

// flDivF64Slow computes the f64 quotient exactly for every operand pair
// (file comment: normalize, estimate, then pick the result among the
// neighbours of T = RZ(q1 * 2^k) by exact remainder signs).
//
// The order of the code keeps few values live, as the slow path is
// also a subroutine of its own (slowpath.go) whose registers count in
// every caller: special operands branch off to a block of their own
// before anything else is computed, the sign of the quotient is taken
// before a and b die, each power of two is built right before the
// multiplication that reads it (its zero low word is one more register
// while it lives), and the neighbours of T and their remainders are
// selected as soon as the comparison that picks them is known.
func (c *fn) flDivF64Slow(t ori.Reg, a, b ori.Operand, rnd string) {
	inf := ori.F64(math.Inf(1))
	zero := ori.F64(0)
	absA, absB := c.flAbs(a, ".f64"), c.flAbs(b, ".f64")
	ok := c.flSetp(ori.OpDSETP, []string{"GT", "AND"}, absA, zero, flPT)
	ok = c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, absA, inf, ori.R(ok))
	ok = c.flSetp(ori.OpDSETP, []string{"GT", "AND"}, absB, zero, ori.R(ok))
	ok = c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, absB, inf, ori.R(ok))
	special := c.f.NewBlock("")
	join := c.f.NewBlock("")
	c.flBranchIf(ok, true, special)

	// Finite nonzero operands.
	sign := c.flLop(word(a, 1), word(b, 1), flImm32(flSign32), func(a, b, s bool) bool { return (a != b) && s })
	ma, ea := c.flNorm64(a)
	mb, eb := c.flNorm64(b)
	nmb := mb
	nmb.Neg = true
	neb := eb
	neb.Neg = true
	k := c.flR32(ori.OpIADD3, nil, ea, neb, flRZ)
	// Clamping k to [-1077, 1026] keeps every result: below, the quotient
	// is under 2^-1076 either way; above, it overflows either way.
	k = c.flR32(ori.OpIMNMX, nil, k, ori.Imm(-1077), flNotPT)
	k = c.flR32(ori.OpIMNMX, nil, k, ori.Imm(1026), flPT)
	// k = k1 + k2 with k1 = k>>1: 2^k1 and 2^k2 (and their inverses)
	// are normal for every clamped k. They are recomputed from k where
	// they are used.
	half1 := func() ori.Operand { return c.flR32(ori.OpSHF, []string{"R", "S32", "HI"}, flRZ, ori.Imm(1), k) }
	half2 := func(k1 ori.Operand) ori.Operand {
		k1.Neg = true
		return c.flR32(ori.OpIADD3, nil, k, k1, flRZ)
	}
	scale := func(x ori.Operand) ori.Operand { // x * 2^-k, exact
		k1 := half1()
		y := c.flR64(ori.OpDMUL, nil, x, c.flPow2x(half2(k1), true))
		return c.flR64(ori.OpDMUL, nil, y, c.flPow2x(k1, true))
	}
	_, q1, _ := c.flQuot64(ma, mb, true)
	k1 := half1()
	T := c.flR64(ori.OpDMUL, nil, q1, c.flPow2x(k1, false))
	T = c.flR64(ori.OpDMUL, []string{"RZ"}, T, c.flPow2x(half2(k1), false))
	rT := c.flR64(ori.OpDFMA, nil, nmb, scale(T), ma)
	rU := c.flR64(ori.OpDFMA, nil, nmb, scale(c.flAdd64(T, ori.Imm(1), flRZ)), ma)
	above := c.flSetp(ori.OpDSETP, []string{"GE", "AND"}, rU, zero, flPT) // x >= T+1
	eqU := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, rU, zero, flPT)
	rF := c.flSel64(rU, rT, ori.R(above))
	below := c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, rT, zero, flPT) // x < T
	eqT := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, rT, zero, flPT)
	// F = T+1, T-1 or T (above and below exclude each other), added to
	// T rather than selected, so that T+1 need not stay live.
	step := c.flSel(ori.Imm(-1), c.flSel(ori.Imm(1), flRZ, ori.R(above)), ori.R(below))
	F := c.flAdd64(T, step, c.flSel(ori.Imm(-1), flRZ, ori.R(below)))
	eqF := c.flPlop(ori.R(above), ori.R(eqU), ori.R(eqT), func(a, u, t bool) bool {
		if a {
			return u
		}
		return t
	})
	exact := c.flPlop(ori.R(below), ori.R(eqF), flPT, func(b, e, _ bool) bool { return !b && e })
	// Half a unit of F's grid, scaled: 2^(max(EF,1) - 1076 - k).
	ef := c.flR32(ori.OpIMNMX, nil, c.flExp64(F), ori.Imm(1), flNotPT)
	nk := k
	nk.Neg = true
	he := c.flR32(ori.OpSHF, []string{"L", "U32"}, c.flR32(ori.OpIADD3, nil, ef, nk, ori.Imm(-53)), ori.Imm(20), flRZ)
	// r_F = ma - mb*F' is exact (r_{T-1} = r_T + mb*unit'), and the sign
	// of x minus the midpoint of F and its successor is that of
	// r_F - mb*half.
	unit := c.flPair(flRZ, c.flR32(ori.OpIADD3, nil, he, ori.Imm(1<<20), flRZ))
	rF = c.flSel64(c.flR64(ori.OpDFMA, nil, mb, unit, rT), rF, ori.R(below))
	mr := c.flR64(ori.OpDFMA, nil, nmb, c.flPair(flRZ, he), rF)
	var up ori.Reg
	switch rnd {
	case "RN":
		gt := c.flSetp(ori.OpDSETP, []string{"GT", "AND"}, mr, zero, flPT)
		tie := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, mr, zero, flPT)
		odd := c.newPred()
		c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(c.newReg(1)), ori.R(odd)}, word(F, 0), ori.Imm(1), flRZ, ori.Imm(0xc0), flNotPT)
		up = c.flPlop(ori.R(gt), ori.R(tie), ori.R(odd), func(g, t, o bool) bool { return g || t && o })
	case "RZ":
		up = c.flPlop(flPT, flPT, flPT, func(_, _, _ bool) bool { return false })
	default:
		// Away from zero for RP on a positive and RM on a negative quotient.
		neg := c.flSetp(ori.OpISETP, []string{"NE", "U32", "AND"}, sign, flRZ, flPT)
		if rnd == "RP" {
			up = c.flPlop(ori.R(exact), ori.R(neg), flPT, func(e, n, _ bool) bool { return !e && !n })
		} else {
			up = c.flPlop(ori.R(exact), ori.R(neg), flPT, func(e, n, _ bool) bool { return !e && n })
		}
	}
	inc := c.flSel(ori.Imm(1), flRZ, ori.R(up))
	R := c.flAdd64(F, inc, flRZ)
	c.flOp(ori.OpMOV, nil, t.Word(0), word(R, 0))
	c.flOp(ori.OpLOP3, []string{"LUT"}, t.Word(1), word(R, 1), sign, flRZ, ori.Imm(0xfc), flNotPT)
	c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(join.ID)))

	// Special operands: a * rb with rb = +-inf for b = +-0, +-0 for
	// b = +-inf, b for a NaN b (when a is not a NaN) and +-1 otherwise;
	// DMUL then produces every IEEE special result.
	// Decision: when both operands are NaNs the quotient is a, quieted,
	// as ptxas 13.0's slow path computes it (SASS: DSETP.NAN a first,
	// then LOP3 a.hi | 0x80000), not DMUL's order, which takes b first:
	// the H100 wrote 0xfff80000 (a, the default NaN of an earlier sqrt)
	// for div.rn.f64 of it by 0x7fffffff_00000000 in fuzz5551939.
	c.setBlock(special)
	bZero := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, b, zero, flPT)
	bInf := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, absB, inf, flPT)
	aNum := c.flSetp(ori.OpDSETP, []string{"NUM", "AND"}, a, a, flPT)
	bNaN := c.flSetp(ori.OpDSETP, []string{"NAN", "AND"}, b, b, ori.R(aNum))
	h := c.flSel(flImm32(flInfHi64), flImm32(0x3ff00000), ori.R(bZero))
	h = c.flSel(flRZ, h, ori.R(bInf))
	h = c.flLop(h, word(b, 1), flImm32(flSign32), func(h, b, s bool) bool { return h || b && s })
	rb := c.flPair(c.flSel(word(b, 0), flRZ, ori.R(bNaN)), c.flSel(word(b, 1), h, ori.R(bNaN)))
	c.flOp(ori.OpDMUL, nil, t, a, rb)
	c.setBlock(join)
}

// flSqrtF32 is the IEEE f32 square root d = sqrt(a) rounded by rnd.
func (c *fn) flSqrtF32(d ori.Reg, a ori.Operand, rnd string, ftz bool) {
	if ftz {
		a = c.flFlush32(a)
	}
	// Inputs below 2^-96 (subnormals included) are scaled by 2^64 so
	// that no remainder below underflows; the root is scaled back by
	// 2^-32, exactly.
	small := c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, a, flPow32(-96), flPT)
	as := c.flSel(c.flR32(ori.OpFMUL, nil, a, flPow32(64)), a, ori.R(small))
	y := c.flR32(ori.OpMUFU, []string{"RSQ"}, as)
	s := c.flR32(ori.OpFMUL, nil, as, y)
	h := c.flR32(ori.OpFMUL, nil, y, flF32(0x3f000000))
	r := c.flR32(ori.OpFFMA, nil, c.flNeg(s, ".f32"), s, as)
	cc := c.flR32(ori.OpFFMA, nil, r, h, s)
	res := c.flRootPick(cc, as, rnd, 1)
	out := c.flSel(c.flR32(ori.OpFMUL, nil, res, flPow32(-32)), res, ori.R(small))
	// Special operands: +-0 and +inf are their own root, anything else
	// (negative, NaN) gives the canonical NaN.
	ok := c.flSetp(ori.OpFSETP, []string{"GT", "AND"}, a, flF32(0), flPT)
	ok = c.flSetp(ori.OpFSETP, []string{"LT", "AND"}, a, flF32(flInf32), ori.R(ok))
	same := c.flSetp(ori.OpFSETP, []string{"EQ", "AND"}, a, flF32(0), flPT)
	same = c.flSetp(ori.OpFSETP, []string{"EQ", "OR"}, a, flF32(flInf32), ori.R(same))
	sp := c.flSel(a, flImm32(flNaN32), ori.R(same))
	c.flOp(ori.OpSEL, nil, d, out, sp, ori.R(ok))
}

// flRootPick chooses the correctly rounded root among the neighbours of
// the faithful estimate cc of sqrt(as) (file comment). words is 1 (f32)
// or 2 (f64).
func (c *fn) flRootPick(cc, as ori.Operand, rnd string, words int) ori.Operand {
	fma, setp, zero, t := ori.OpFFMA, ori.OpFSETP, flF32(0), ".f32"
	sel := c.flSel
	step := func(x ori.Operand, k int64) ori.Operand {
		return c.flR32(ori.OpIADD3, nil, x, ori.Imm(k), flRZ)
	}
	if words == 2 {
		fma, setp, zero, t = ori.OpDFMA, ori.OpDSETP, ori.F64(0), ".f64"
		sel = c.flSel64
		step = func(x ori.Operand, k int64) ori.Operand {
			hi := flRZ
			if k < 0 {
				hi = ori.Imm(-1)
			}
			return c.flAdd64(x, ori.Imm(k), hi)
		}
	}
	newv := func(op ori.Opcode, srcs ...ori.Operand) ori.Operand {
		return ori.R(c.flNew(words, op, nil, srcs...))
	}
	rc := newv(fma, c.flNeg(cc, t), cc, as) // as - cc^2
	switch rnd {
	case "RP":
		gt := c.flSetp(setp, []string{"GT", "AND"}, rc, zero, flPT)
		return sel(step(cc, 1), cc, ori.R(gt))
	case "RN":
		lt := c.flSetp(setp, []string{"LT", "AND"}, rc, zero, flPT)
		lo := sel(step(cc, -1), cc, ori.R(lt))
		hi := step(lo, 1)
		dd := newv(fma, c.flNeg(lo, t), hi, as) // as - lo*hi
		up := c.flSetp(setp, []string{"GT", "AND"}, dd, zero, flPT)
		return sel(hi, lo, ori.R(up))
	}
	// RZ, RM: the root is positive, so both truncate.
	lt := c.flSetp(setp, []string{"LT", "AND"}, rc, zero, flPT)
	return sel(step(cc, -1), cc, ori.R(lt))
}

// flRsq64 refines MUFU.RSQ64H(a) with three Newton steps
// y' = y + (y/2)(1 - (a*y)*y), for a positive normal a.
func (c *fn) flRsq64(a ori.Operand) ori.Operand {
	y := c.flPair(flRZ, c.flR32(ori.OpMUFU, []string{"RSQ64H"}, word(a, 1)))
	for i := 0; i < 3; i++ {
		t := c.flR64(ori.OpDMUL, nil, a, y)
		e := c.flR64(ori.OpDFMA, nil, c.flNeg(t, ".f64"), y, ori.F64(1))
		h := c.flR64(ori.OpDMUL, nil, y, ori.F64(0.5))
		y = c.flR64(ori.OpDFMA, nil, h, e, y)
	}
	return y
}

// flSqrtF64 is the IEEE f64 square root d = sqrt(a) rounded by rnd.
func (c *fn) flSqrtF64(d ori.Reg, a ori.Operand, rnd string) {
	// Inputs below 2^-900 are scaled by 2^200 (roots by 2^-100).
	small := c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, a, flPow64(-900), flPT)
	as := c.flSel64(c.flR64(ori.OpDMUL, nil, a, flPow64(200)), a, ori.R(small))
	y := c.flRsq64(as)
	s := c.flR64(ori.OpDMUL, nil, as, y)
	h := c.flR64(ori.OpDMUL, nil, y, ori.F64(0.5))
	r := c.flR64(ori.OpDFMA, nil, c.flNeg(s, ".f64"), s, as)
	cc := c.flR64(ori.OpDFMA, nil, r, h, s)
	res := c.flRootPick(cc, as, rnd, 2)
	out := c.flSel64(c.flR64(ori.OpDMUL, nil, res, flPow64(-100)), res, ori.R(small))
	inf := ori.F64(math.Inf(1))
	ok := c.flSetp(ori.OpDSETP, []string{"GT", "AND"}, a, ori.F64(0), flPT)
	ok = c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, a, inf, ori.R(ok))
	same := c.flSetp(ori.OpDSETP, []string{"EQ", "AND"}, a, ori.F64(0), flPT)
	same = c.flSetp(ori.OpDSETP, []string{"EQ", "OR"}, a, inf, ori.R(same))
	isNaN := c.flSetp(ori.OpDSETP, []string{"NAN", "AND"}, a, a, flPT)
	quiet := c.flR64(ori.OpDADD, nil, a, a)
	invalid := c.flR64(ori.OpDADD, nil, inf, ori.F64(math.Inf(-1)))
	sp := c.flSel64(quiet, invalid, ori.R(isNaN))
	sp = c.flSel64(a, sp, ori.R(same))
	res = c.flSel64(out, sp, ori.R(ok))
	c.flMovTo(d, res, 2)
}

// flRsqrtF64 is rsqrt.approx{.ftz}.f64. With .ftz it is the MUFU.RSQ64H
// seed alone. Without, it is the seed refined once for positive finite
// operands, the seed itself for the special ones (+-0 -> +-inf, +inf ->
// +0), the default NaN for a negative one and DADD a, a for a NaN; a subnormal operand is
// scaled by 2^128 and the result by 2^64.
func (c *fn) flRsqrtF64(d ori.Reg, a ori.Operand, ftz bool) {
	if ftz {
		// Decision: rsqrt.approx.ftz.f64 is the MUFU.RSQ64H estimate
		// alone with a zero low word, as ptxas 13.0 compiles it (SASS:
		// MUFU.RSQ64H and a zero move, no refinement).
		c.flOp(ori.OpMUFU, []string{"RSQ64H"}, d.Word(1), word(a, 1))
		c.flOp(ori.OpMOV, nil, d.Word(0), flRZ)
		return
	}
	if c.slow != nil && c.l.opts.OutlineSlowPaths {
		c.flRsqrtF64Fast(d, a)
		return
	}
	c.flRsqrtF64Full(d, a)
}

// flRsqrtF64Fast is rsqrt.approx.f64 with its slow path out of line
// (slowpath.go), as ptxas 13.0 compiles it (SASS: IADD3 hi - 0x100000,
// ISETP.GE.U32 ... 0x7fe00000, CALL __cuda_sm20_drsqrt_f64_slowpath_v2):
// a positive normal operand (high word in [0x00100000, 0x7fefffff]) takes
// the refinement of flRsqrtF64Full inline, which gives it the same
// result; every other operand calls flRsqrtF64Full.
func (c *fn) flRsqrtF64Fast(d ori.Reg, a ori.Operand) {
	end := c.flBegin()
	t := c.newReg(2)
	seed := c.flPair(flRZ, c.flR32(ori.OpMUFU, []string{"RSQ64H"}, word(a, 1)))
	e := c.flR64(ori.OpDFMA, nil, a, c.flNeg(c.flR64(ori.OpDMUL, nil, seed, seed), ".f64"), ori.F64(1))
	h := c.flR64(ori.OpDFMA, nil, e, ori.F64(0.375), ori.F64(0.5))
	c.flOp(ori.OpDFMA, nil, t, h, c.flR64(ori.OpDMUL, nil, seed, e), seed)
	x := c.flR32(ori.OpIADD3, nil, word(a, 1), flImm32(0xfff00000), flRZ)
	slow := c.flSetp(ori.OpISETP, []string{"GE", "U32", "AND"}, x, flImm32(0x7fe00000), flPT)
	join := c.f.NewBlock("")
	c.flBranchIf(slow, true, join)
	c.callRsqrtSlow(t, a)
	c.setBlock(join)
	c.flMovTo(d, ori.R(t), 2)
	end()
}

// flRsqrtF64Full is rsqrt.approx.f64 for every operand (flRsqrtF64).
func (c *fn) flRsqrtF64Full(d ori.Reg, a ori.Operand) {
	tiny := c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, c.flAbs(a, ".f64"), flPow64(-1022), flPT)
	as := c.flSel64(c.flR64(ori.OpDMUL, nil, a, flPow64(128)), a, ori.R(tiny))
	// Decision: one refinement step of the seed y with the error
	// e = 1 - a*y*y, y + (y*e)*(0.5 + 0.375*e), as ptxas 13.0 compiles
	// rsqrt.approx.f64; the H100 agrees on every positive normal input of
	// the f64 sweep (ops-h100.tgz). Three Newton steps (flRsq64) would be
	// more accurate but not the hardware's result.
	seed := c.flPair(flRZ, c.flR32(ori.OpMUFU, []string{"RSQ64H"}, word(as, 1)))
	e := c.flR64(ori.OpDFMA, nil, as, c.flNeg(c.flR64(ori.OpDMUL, nil, seed, seed), ".f64"), ori.F64(1))
	h := c.flR64(ori.OpDFMA, nil, e, ori.F64(0.375), ori.F64(0.5))
	y := c.flR64(ori.OpDFMA, nil, h, c.flR64(ori.OpDMUL, nil, seed, e), seed)
	ok := c.flSetp(ori.OpDSETP, []string{"GT", "AND"}, as, ori.F64(0), flPT)
	ok = c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, as, ori.F64(math.Inf(1)), ori.R(ok))
	// The seed reads only the high word: a NaN whose payload is in the
	// low word would look infinite to it. The tests below read as, not
	// a (a NaN or a negative operand is as itself or a positive multiple
	// of it), so that a is dead once as exists: two registers fewer
	// across the refinement.
	isNaN := c.flSetp(ori.OpDSETP, []string{"NAN", "AND"}, as, as, flPT)
	seed = c.flSel64(c.flR64(ori.OpDADD, nil, as, as), seed, ori.R(isNaN))
	r := c.flSel64(y, seed, ori.R(ok))
	r = c.flSel64(c.flR64(ori.OpDMUL, nil, r, flPow64(64)), r, ori.R(tiny))
	// Decision: a negative operand (normal, subnormal or -inf; not -0)
	// gives the f64 default NaN 0xfff8000000000000, a constant that
	// ptxas 13.0's fix-up path writes (SASS: DSETP.NEU a, 0; the sign bit
	// set -> MOV 0 / MOV 0xfff80000), not the seed: MUFU.RSQ64H itself
	// gives the high word 0x7fffffff there (fp.Rsq64HSFU). The H100
	// returns 0xfff8000000000000 for every negative input of the
	// rsqrt.approx.f64 sweep in ops-h100.tgz (TestRsqrtF64AgainstH100).
	neg := c.flSetp(ori.OpDSETP, []string{"LT", "AND"}, as, ori.F64(0), flPT)
	r = c.flSel64(c.flPair(flRZ, ori.Imm(0xfff80000)), r, ori.R(neg))
	c.flMovTo(d, r, 2)
}
