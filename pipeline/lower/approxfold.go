package lower

// Folding of the f32 .approx functions of compile-time constants, as
// ptxas 13.0 does it.
//
// ptxas evaluates rcp, sqrt, rsqrt, lg2, ex2, sin and cos .approx.f32
// (with or without .ftz) of a value it knows at compile time, and writes
// the result with one move (HFMA2.MMA R, -RZ, RZ, imm or MOV) instead of
// running the SFU. Its result is the correctly rounded function value,
// where the unit is only faithful: rsqrt.approx.f32 of 0x3a040000
// (cvt.f32.f16 of 0x21) compiles to HFMA2.MMA writing 0x4432416a, where
// MUFU.RSQ gives 0x44324169.
//
// Decision: fold what ptxas folds, at every -O level, although ptxas
// -O0 does not fold. The hardware-truth programs were compiled by the
// driver's JIT at -O3 (fuzz5551215 rsqrt, 5551138 lg2, 5551178 sin of
// 0x00800000 = 0x00800000 where the unit flushes the scaled argument,
// 5551200 cos of FLT_MAX = 0x3f5a5f96 where the unit gives 1.0, 5551383
// and 5551771 sin of 3.0 and 1.0 flowing into checksums), and orilab's
// executable IR needs one meaning per program: the fuzz oracle,
// bisection and every kernel spec compare each -O level with the IR
// right after lowering, as for FMA contraction (contract.go). The
// FoldApproxConstants knob turns the fold off at every level.
//
// The rule, measured with ptxas 13.0.88 -O3 -arch=sm_90 (cuobjdump
// -sass; TestApproxFoldAgainstPtxas re-measures the table in
// approxfold_test.go and a random sweep):
//   - Only the f32 forms fold. rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64,
//     ex2.approx.f16/.f16x2/.ftz.bf16 and tanh.approx (f32 and f16) of a
//     constant still run the unit.
//   - A NaN operand, or a NaN result (sqrt/rsqrt/lg2 of a negative
//     number), is not folded; lg2 of a zero (after flushing) is not
//     folded either (the unit gives -inf as a fold would); sin and cos of
//     an infinity are not folded.
//   - sin and cos fold the function of the operand itself, before ptxas
//     expands them into FMUL.RZ by 1/2pi and MUFU.SIN/COS: cos(FLT_MAX)
//     is cos's correctly rounded value, 0x3f5a5f96. A subnormal operand
//     counts as a zero of its sign, with or without .ftz (sin(0x007fffff)
//     = +0, cos of it 1.0), as the unit flushes it.
//   - The other five fold after ptxas's expansion: the MUFU of a
//     constant becomes the correctly rounded function of its operand,
//     and the scaling around it is then computed as the FMUL/FADD it is.
//     With .ftz: the operand and the result are flushed (rcp.ftz of
//     FLT_MAX is +0, ex2.ftz of -127 is +0; sqrt.ftz of a negative
//     subnormal is -0). Without .ftz the expansions of float.go apply:
//     rcp scales by 2^24 below 2^-126 and by 1/4 above 2^126, so
//     rcp(0x7ed4d57b) = 0x004cfaf0, the correctly rounded 4/x times 1/4,
//     where 1/x rounds to 0x004cfaef; ex2 below -126 squares ex2(x/2);
//     lg2 of a subnormal is lg2(x*2^24) - 24 (FADD); sqrt and rsqrt of a
//     subnormal scale exactly.
//   - Infinities fold to the function's limit: rcp(+-inf) = +-0,
//     rsqrt(+inf) = +0, sqrt(+inf) = lg2(+inf) = ex2(+inf) = +inf,
//     ex2(-inf) = +0; rcp(+-0) = +-inf, rsqrt(+-0) = +-inf.
//   - What counts as a constant is what ptxas's constant propagation
//     finds (an immediate through mov, cvt, add/mul of constants, selp on
//     a constant predicate, an earlier fold, bit moves and integer
//     arithmetic on the bits all fold). orilab follows the definitions
//     that reach the operand through mov, cvt, neg/abs and the folded
//     functions themselves (approxConst32); an operand computed by
//     arithmetic is not folded (a known limit: ptxas folds it).
//
// Correct rounding: rcp and sqrt are computed in float64 and rounded to
// f32, which is exact (53 >= 2*24+2 bits); rsqrt's float64 estimate is
// corrected by comparing the squares of the f32 midpoints around it with
// the operand exactly. lg2, ex2, sin and cos are Go's float64 math
// rounded to f32: that differs from the correctly rounded value only
// when the float64 value lies within about one float64 ulp of an f32
// midpoint (one input in 2^28 or so); none of the inputs measured does.

import (
	"math"
	"math/big"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sim/fp"
)

// approxFoldOps are the PTX opcodes whose .approx.f32 form ptxas folds.
var approxFoldOps = map[string]bool{
	"rcp": true, "sqrt": true, "rsqrt": true, "lg2": true, "ex2": true, "sin": true, "cos": true,
}

// ptxasFoldApprox emits d = the folded result when in is an .approx.f32
// function of a compile-time constant that ptxas 13.0 folds, and reports
// whether it did.
func (c *fn) ptxasFoldApprox(in *ptx.Instr, d ori.Reg) bool {
	if c.l.opts.NoApproxFold {
		return false
	}
	v, ok := c.approxFoldValue(in, 0)
	if !ok {
		return false
	}
	c.flOp(ori.OpMOV, nil, d, flImm32(v))
	return true
}

// approxFoldValue returns what ptxas folds the .approx.f32 instruction in
// to, if it does. A guarded instruction folds to a guarded move (ptxas
// 13.0 too).
func (c *fn) approxFoldValue(in *ptx.Instr, depth int) (uint32, bool) {
	if !approxFoldOps[in.Op] || !in.HasMod(".approx") || lastType(in) != ".f32" || len(in.Args) != 2 {
		return 0, false
	}
	a, ok := c.approxConst32(in, in.Args[1], depth+1)
	if !ok {
		return 0, false
	}
	return ApproxFold32(in.Op, in.HasMod(".ftz"), a)
}

// approxConstDepth bounds the chain of definitions followed to a
// constant.
const approxConstDepth = 8

// approxConst32 returns the 32-bit value of operand a of use when it is a
// compile-time constant orilab knows to be one (see the file comment).
func (c *fn) approxConst32(use *ptx.Instr, a *ptx.Operand, depth int) (uint32, bool) {
	v, w, ok := c.approxConst(use, a, depth)
	if !ok || w != 32 {
		return 0, false
	}
	return uint32(v), true
}

// approxConst returns the value of operand a of use and its width in
// bits (16, 32 or 64) when it is a constant: a float literal written by
// its bits, an integer literal (width 0: it takes the instruction's), or
// a register whose every reaching definition gives the same constant.
func (c *fn) approxConst(use *ptx.Instr, a *ptx.Operand, depth int) (uint64, int, bool) {
	if depth > approxConstDepth {
		return 0, 0, false
	}
	switch a.Kind {
	case ptx.OpInt:
		v, ok := a.Int()
		return uint64(v), 0, ok
	case ptx.OpFloat:
		s := a.Text
		if len(s) == 10 && (s[1] == 'f' || s[1] == 'F') && s[0] == '0' {
			if b, ok := parseHex(s[2:], 32); ok {
				return b, 32, true
			}
		}
		if len(s) == 18 && (s[1] == 'd' || s[1] == 'D') && s[0] == '0' {
			if b, ok := parseHex(s[2:], 64); ok {
				return b, 64, true
			}
		}
		return 0, 0, false
	case ptx.OpName:
	default:
		return 0, 0, false
	}
	if a.Neg || a.Comp != "" || a.HasIdx || a.HasOff {
		return 0, 0, false
	}
	defs, complete := c.reachingDefs(use, a.Name)
	if !complete || len(defs) == 0 {
		return 0, 0, false
	}
	var val uint64
	var width int
	for i, def := range defs {
		v, w, ok := c.approxDefConst(def, depth+1)
		if !ok || i > 0 && (v != val || w != width) {
			return 0, 0, false
		}
		val, width = v, w
	}
	return val, width, true
}

// approxDefConst returns the constant that def writes to its
// destination register, with the register's width.
func (c *fn) approxDefConst(def *ptx.Instr, depth int) (uint64, int, bool) {
	// A guarded definition counts with the value it writes: the
	// definitions before it reach the use too (reachingDefs).
	if len(def.Args) != 2 || def.Args[0].Kind != ptx.OpName {
		return 0, 0, false
	}
	if approxFoldOps[def.Op] {
		v, ok := c.approxFoldValue(def, depth)
		return uint64(v), 32, ok
	}
	switch def.Op {
	case "mov":
		t := lastType(def)
		w := approxTypeBits(t)
		if w == 0 {
			return 0, 0, false
		}
		v, vw, ok := c.approxConst(def, def.Args[1], depth)
		if !ok || vw != 0 && vw != w || vw == 0 && t[1] == 'f' { // an integer literal in a float move: not measured
			return 0, 0, false
		}
		return v & approxMask(w), w, true
	case "neg", "abs":
		if lastType(def) != ".f32" || def.HasMod(".ftz") {
			return 0, 0, false
		}
		v, w, ok := c.approxConst(def, def.Args[1], depth)
		if !ok || w != 32 || uint32(v)&0x7fffffff > 0x7f800000 { // a NaN: ptxasfold.go
			return 0, 0, false
		}
		if def.Op == "neg" {
			return v ^ 0x80000000, 32, true
		}
		return v &^ 0x80000000, 32, true
	case "cvt":
		return c.approxCvtConst(def, depth)
	}
	return 0, 0, false
}

// approxCvtConst evaluates a cvt of a constant: between integer types,
// f16 to f32, an integer to f32, f64 to f32 and f32 to f64 (no .sat, no
// .ftz).
func (c *fn) approxCvtConst(def *ptx.Instr, depth int) (uint64, int, bool) {
	var types []string
	rm, hasRM := fp.RN, false
	for _, m := range def.Mods {
		switch m {
		case ".rn", ".rni":
			rm, hasRM = fp.RN, true
		case ".rz", ".rzi":
			rm, hasRM = fp.RZ, true
		case ".rm", ".rmi":
			rm, hasRM = fp.RM, true
		case ".rp", ".rpi":
			rm, hasRM = fp.RP, true
		case ".sat", ".ftz", ".relu", ".satfinite":
			return 0, 0, false
		default:
			if ptxasCvtTypes[m] {
				types = append(types, m)
			}
		}
	}
	if len(types) != 2 {
		return 0, 0, false
	}
	dt, st := types[0], types[1]
	dw, sw := approxTypeBits(dt), approxTypeBits(st)
	if dw == 0 || sw == 0 {
		return 0, 0, false
	}
	v, vw, ok := c.approxConst(def, def.Args[1], depth)
	if !ok {
		return 0, 0, false
	}
	if vw != 0 && vw < sw {
		return 0, 0, false
	}
	v &= approxMask(sw)
	isInt := func(t string) bool { return t[1] == 'u' || t[1] == 's' || t[1] == 'b' }
	switch {
	case isInt(dt) && isInt(st):
		if hasRM {
			return 0, 0, false
		}
		if st[1] == 's' && sw < 64 && v>>(sw-1)&1 == 1 {
			v |= ^approxMask(sw) // sign-extend
		}
		return v & approxMask(dw), dw, true
	case dt == ".f32" && st == ".f16" && !hasRM:
		return uint64(fp.F16toF32(uint16(v))), 32, true
	case dt == ".f32" && isInt(st) && st[1] != 'b' && hasRM:
		return uint64(fp.IntToF32(v, st[1] == 's', sw, rm)), 32, true
	case dt == ".f32" && st == ".f64" && hasRM:
		return uint64(fp.F64toF32(v, rm, false)), 32, true
	case dt == ".f64" && st == ".f32" && !hasRM:
		return fp.F32toF64(uint32(v), false), 64, true
	}
	return 0, 0, false
}

// approxTypeBits returns the width of a register type, 0 for others.
func approxTypeBits(t string) int {
	switch t {
	case ".b16", ".u16", ".s16", ".f16", ".bf16":
		return 16
	case ".b32", ".u32", ".s32", ".f32":
		return 32
	case ".b64", ".u64", ".s64", ".f64":
		return 64
	}
	return 0
}

func approxMask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func parseHex(s string, bits int) (uint64, bool) {
	var v uint64
	for i := 0; i < len(s); i++ {
		d := s[i]
		switch {
		case d >= '0' && d <= '9':
			d -= '0'
		case d >= 'a' && d <= 'f':
			d -= 'a' - 10
		case d >= 'A' && d <= 'F':
			d -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, len(s)*4 == bits
}

// f32 constants of the expansions (float.go).
const (
	f32Pos24   = 0x4b800000 // 2^24
	f32Quarter = 0x3e800000 // 0.25
	f32One     = 0x3f800000
	f32Half    = 0x3f000000
	f32PosInf  = 0x7f800000
	f32Sign    = 0x80000000
	f32MinNorm = 0x00800000
)

// ApproxFold32 returns what ptxas 13.0 folds op.approx{.ftz}.f32 of the
// constant a to (op: rcp, sqrt, rsqrt, lg2, ex2, sin or cos), and false
// where ptxas leaves the instruction to run (see the file comment).
func ApproxFold32(op string, ftz bool, a uint32) (uint32, bool) {
	if a&0x7fffffff > f32PosInf {
		return 0, false // NaN
	}
	sub := a&0x7f800000 == 0
	switch op {
	case "sin", "cos":
		if sub {
			a &= f32Sign
		}
		return mufuFold32(op, a)
	case "rcp", "sqrt", "rsqrt", "lg2", "ex2":
	default:
		return 0, false
	}
	if ftz {
		r, ok := mufuFold32(op, fp.Flush32(a))
		return fp.Flush32(r), ok
	}
	mul := func(x, y uint32) uint32 { return fp.Mul32(x, y, fp.RN, false) }
	small := a&0x7fffffff < f32MinNorm
	switch op {
	case "rcp":
		s := uint32(f32One)
		switch {
		case small:
			s = f32Pos24
		case a&0x7fffffff > 0x7e800000:
			s = f32Quarter
		}
		r, ok := mufuFold32(op, mul(a, s))
		return mul(s, r), ok
	case "sqrt", "rsqrt", "lg2":
		if !small {
			return mufuFold32(op, a)
		}
		r, ok := mufuFold32(op, mul(a, f32Pos24))
		switch op {
		case "sqrt":
			return mul(r, 0x39800000), ok // 2^-12
		case "rsqrt":
			return mul(r, 0x45800000), ok // 2^12
		}
		return fp.Add32(r, 0xc1c00000, fp.RN, false), ok // -24
	}
	// ex2: below -126 (or -inf) the square of ex2(a/2).
	if a > 0xc2fc0000 { // a < -126, -inf included (the bits of negative numbers grow with their magnitude)
		r, ok := mufuFold32(op, mul(a, f32Half))
		return mul(r, r), ok
	}
	return mufuFold32(op, a)
}

// mufuFold32 is ptxas's value of the SFU function of a normal, zero or
// infinite a: the correctly rounded f32 result; false for a NaN result
// and for lg2 of a zero, which ptxas does not fold.
func mufuFold32(op string, a uint32) (uint32, bool) {
	x := float64(math.Float32frombits(a))
	neg := a&f32Sign != 0
	zero := a&0x7fffffff == 0
	inf := a&0x7fffffff == f32PosInf
	var y float64
	switch op {
	case "rcp":
		y = 1 / x // +-0 -> +-inf, +-inf -> +-0
	case "sqrt":
		if neg && !zero {
			return 0, false
		}
		y = math.Sqrt(x) // keeps -0
	case "rsqrt":
		switch {
		case zero:
			return a&f32Sign | f32PosInf, true
		case neg:
			return 0, false
		case inf:
			return 0, true
		}
		return rsqrtRN32(a), true
	case "lg2":
		if zero || neg {
			return 0, false
		}
		y = math.Log2(x)
	case "ex2":
		y = math.Exp2(x)
	case "sin", "cos":
		if inf {
			return 0, false
		}
		if op == "sin" {
			y = math.Sin(x)
		} else {
			y = math.Cos(x)
		}
	}
	// The unit's results are flushed; a subnormal result happens only
	// where an expansion's scaling lets it (rcp of a number above
	// 2^126 under .ftz, ex2(x/2) below -252).
	return fp.Flush32(math.Float32bits(float32(y))), true
}

// rsqrtRN32 returns the correctly rounded 1/sqrt(a) of a positive,
// finite, normal f32 a. The float64 estimate is within a few float64
// ulps, so the answer is it rounded to f32 or a neighbour; the true
// value lies above the midpoint m of two neighbours exactly when
// m*m*a < 1, which big.Float computes exactly (25 + 25 + 24 bits).
func rsqrtRN32(a uint32) uint32 {
	x := float64(math.Float32frombits(a))
	r := math.Float32bits(float32(1 / math.Sqrt(x)))
	above := func(lo uint32) bool { // is the true value above the midpoint of lo and lo+1?
		m := (float64(math.Float32frombits(lo)) + float64(math.Float32frombits(lo+1))) / 2 // exact
		p := new(big.Float).SetPrec(200).SetFloat64(m)
		p.Mul(p, p)
		p.Mul(p, new(big.Float).SetPrec(200).SetFloat64(x))
		return p.Cmp(big.NewFloat(1)) < 0
	}
	for above(r) {
		r++
	}
	for r > 0 && !above(r-1) {
		r--
	}
	return r
}
