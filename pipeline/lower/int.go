// Integer arithmetic: the integer forms of add sub mul mad div rem min max
// abs neg (dispatched here by dispatch.go) and addc subc madc mul24 mad24
// sad (registered below).
//
// SASS has 32-bit integer ALUs only, so every 64-bit operation becomes a
// sequence of 32-bit ones: IADD3 + IADD3.X carry chains for add/sub/neg,
// IMAD.WIDE.U32 with IMAD cross terms for multiplies, ISETP + ISETP.EX
// pairs for 64-bit comparisons. There is no integer divider at all: 32-bit
// division is the ptxas reciprocal template (I2F, MUFU.RCP, F2I, one
// Newton step in integer arithmetic, two corrections); 64-bit division is
// a 32-bit fast path plus a 64-iteration shift-subtract loop.
//
// Registers narrower than 32 bits (.u16/.s16) have unspecified upper bits
// (see the register conventions in lower.go). Operations whose low 16 bits
// depend only on the low 16 bits of the operands (add, sub, mul.lo, mad.lo,
// neg) use them as they are; everything else (mul.hi, .wide, div, rem,
// min, max, abs, sad) sign- or zero-extends first with SGXT.
//
// Condition code. PTX's add.cc/sub.cc/mad.cc write the carry flag CC.CF and
// addc/subc/madc read it. The lowering keeps CC.CF in one virtual
// predicate per function (intCarryFlag), initialized to false at the top
// of the entry block (PTX leaves its initial value undefined; zero is our
// deterministic choice, and a .func starts with its own zero flag: CC.CF
// does not travel across calls). Its value is exactly the carry output of
// the IADD3 that performs the addition (SEMANTICS.md: bit 32 of the 64-bit
// sum S):
//
//   - add.cc / addc.cc: a + b (+ CF): CF = carry out, as usual.
//   - sub.cc: a - b is computed as a + ~b + 1, so CF = 1 exactly when NO
//     borrow occurs (a >= b unsigned). subc computes a + ~b + CF, that is
//     a - b - (1 - CF) = a - (b + borrow) with borrow = !CF, and subc.cc
//     leaves CF = !borrow-out again.
//
// So the "borrow" PTX talks about is stored inverted, as the hardware
// carry flag always was. A sub.cc/subc chain is an exact multi-word
// subtraction either way; the sense is only observable when a chain mixes
// additions and subtractions, and then this choice matches NVIDIA hardware:
// ZLUDA's subc_cc_s32 test (expected values from a real GPU) reads CC.CF
// with addc after a sub.cc whose a < b and gets 0.
//
// Choices where PTX leaves the result undefined:
//
//   - Division and remainder by zero (every type, signed or unsigned)
//     give all ones (0xffff / 0xffffffff / 0xffffffffffffffff, i.e. -1 for
//     signed types), as the ptxas sequence does for div.u32.
//   - Signed overflow wraps: INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0,
//     abs(INT_MIN) = INT_MIN, neg(INT_MIN) = INT_MIN.
//   - mul24/mad24 use only the low 24 bits of a and b (sign-extended for
//     .s32, zero-extended for .u32); the upper 8 bits are ignored.
//
// Semantics: this file uses no opcode modifier beyond SEMANTICS.md. It
// relies on these readings of it (the simulator implements them so):
//
//   - ISETP.<cmp>[.U32].AND.EX p, q = ahi, bhi, c, lo: lo is the result of
//     the same <cmp> on the low words, compared unsigned; p is the 64-bit
//     comparison of (ahi:alo) and (bhi:blo) (high words signed unless .U32).
//   - IADD3.X with two carry-in predicates adds both (0, 1 or 2); the
//     second carry OUTPUT (c1 = bit 33) is never used here.
//   - I2F.F32.U32.RP rounds toward +inf (cvt.rp.f32.u32); MUFU.RCP has at
//     most 1 ulp of error (rcp.approx.f32); F2I.U32.F32.TRUNC truncates
//     and saturates (cvt.rzi.u32.f32). The division proof below depends on
//     exactly these three bounds.
package lower

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"weak"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerAddcSubc, "addc", "subc")
	register(lowerMadc, "madc")
	register(lowerMul24, "mul24", "mad24")
	register(lowerSad, "sad")
}

// Operands used everywhere below.
var (
	intRZ  = ori.R(ori.RZ)
	intPT  = ori.R(ori.PT)
	intNPT = ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true}
)

// intImm32 returns a 32-bit immediate in the canonical (sign-extended
// int32) form that word() also produces.
func intImm32(v uint32) ori.Operand { return ori.Imm(int64(int32(v))) }

func intIsImm(o ori.Operand) bool { return o.Kind == ori.OpdImm }

// intIsZero reports whether o is known to be zero (RZ or a 0 immediate).
func intIsZero(o ori.Operand) bool {
	switch o.Kind {
	case ori.OpdImm:
		return o.Imm == 0
	case ori.OpdReg:
		return o.Reg.IsZero() && o.Reg.Class == ori.ClassR && !o.Not
	}
	return false
}

// intScalar classifies a scalar integer instruction type.
func intScalar(t string) (width int, signed, ok bool) {
	switch t {
	case ".u16", ".s16", ".b16", ".u32", ".s32", ".b32", ".u64", ".s64", ".b64":
		return typeBits(t), isSigned(t), true
	}
	return 0, false, false
}

// intWide returns the double-width type of a .wide operation.
func intWide(t string) string {
	switch t {
	case ".u16":
		return ".u32"
	case ".s16":
		return ".s32"
	case ".u32":
		return ".u64"
	case ".s32":
		return ".s64"
	}
	return ""
}

// ---------------------------------------------------------------------
// Operands and small emission helpers.

// intSrc returns argument i as a source of type t. Registers come back
// plain (no negation or inversion: those are materialized) and exactly
// as wide as the type.
func (c *fn) intSrc(in *ptx.Instr, i int, t string) (ori.Operand, error) {
	if i >= len(in.Args) {
		return ori.Operand{}, c.l.errorf(in.OpPos, "%s needs %d operands", in.Op, i+1)
	}
	o, err := c.src(in.Args[i], t)
	if err != nil {
		return o, err
	}
	words := wordsOf(t)
	if o.Kind != ori.OpdReg {
		return o, nil
	}
	if o.Reg.Class != ori.ClassR && o.Reg.Class != ori.ClassUR {
		return o, c.l.errorf(in.Args[i].Pos, "%s needs an integer operand, not a predicate", in.Op)
	}
	if int(o.Reg.Words) < words {
		return o, c.l.errorf(in.Args[i].Pos, "operand is narrower than %s", t)
	}
	if int(o.Reg.Words) > words {
		o.Reg = o.Reg.Wide(words)
	}
	if o.Neg || o.Not || o.Abs {
		if words != 1 || o.Abs {
			return o, c.l.unsupported(in.Args[i].Pos, "a negated %s operand", t)
		}
		// IADD3 applies the modifier: -x or ~x.
		r := c.newReg(1)
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r)}, o, intRZ, intRZ)
		o = ori.R(r)
	}
	return o, nil
}

// intDst returns argument i as a destination of type t.
func (c *fn) intDst(in *ptx.Instr, i int, t string) (ori.Reg, error) {
	if i >= len(in.Args) {
		return ori.Reg{}, c.l.errorf(in.OpPos, "%s needs %d operands", in.Op, i+1)
	}
	r, err := c.dst(in.Args[i], t)
	if err != nil {
		return r, err
	}
	words := wordsOf(t)
	if r.Class != ori.ClassR {
		return r, c.l.errorf(in.Args[i].Pos, "%s needs an integer destination", in.Op)
	}
	if int(r.Words) < words {
		return r, c.l.errorf(in.Args[i].Pos, "destination is narrower than %s", t)
	}
	return r.Wide(words), nil
}

// intOps fetches the destination (of type dt) and the sources (of the
// given types) of in.
func (c *fn) intOps(in *ptx.Instr, dt string, st ...string) (ori.Reg, []ori.Operand, error) {
	if len(in.Args) != len(st)+1 {
		return ori.Reg{}, nil, c.l.errorf(in.OpPos, "%s needs %d operands", in.Op, len(st)+1)
	}
	var srcs []ori.Operand
	for i, t := range st {
		o, err := c.intSrc(in, i+1, t)
		if err != nil {
			return ori.Reg{}, nil, err
		}
		srcs = append(srcs, o)
	}
	d, err := c.intDst(in, 0, dt)
	return d, srcs, err
}

// intNeg returns an operand worth -o (mod 2^32) for a 32-bit plain
// operand. Not for carry chains: -imm does not carry like -R.
func (c *fn) intNeg(o ori.Operand) ori.Operand {
	switch o.Kind {
	case ori.OpdImm:
		return intImm32(-uint32(o.Imm))
	case ori.OpdReg:
		if o.Reg.IsZero() {
			return o
		}
		o.Neg = true
		return o
	}
	o = c.asReg(o)
	o.Neg = true
	return o
}

// intNot returns an operand worth ~o for a 32-bit plain operand.
func (c *fn) intNot(o ori.Operand) ori.Operand {
	switch o.Kind {
	case ori.OpdImm:
		return intImm32(^uint32(o.Imm))
	case ori.OpdReg:
		o.Not = true
		return o
	}
	o = c.asReg(o)
	o.Not = true
	return o
}

// intPair returns a 64-bit operand as something IMAD.WIDE accepts as its
// addend: a register pair, or RZ for zero.
func (c *fn) intPair(o ori.Operand) ori.Operand {
	if o.Kind == ori.OpdReg && o.Reg.Words >= 2 {
		return o
	}
	if intIsImm(o) && o.Imm == 0 {
		return intRZ
	}
	r := c.newReg(2)
	c.mov(r, o, 2)
	return ori.R(r)
}

// intSetp emits ISETP.<cmp>[.U32].AND p = a, b and returns p.
func (c *fn) intSetp(cmp string, unsigned bool, a, b ori.Operand) ori.Reg {
	p := c.newPred()
	mods := []string{cmp}
	if unsigned {
		mods = append(mods, "U32")
	}
	mods = append(mods, "AND")
	c.emit(ori.OpISETP, mods, []ori.Operand{ori.R(p), intPT}, a, b, intPT)
	return p
}

// intSetp64 compares two 64-bit operands: ISETP on the low words
// (unsigned), then ISETP.EX on the high words with the low result.
func (c *fn) intSetp64(cmp string, signed bool, a, b ori.Operand) ori.Reg {
	lo := c.intSetp(cmp, true, word(a, 0), word(b, 0))
	p := c.newPred()
	mods := []string{cmp}
	if !signed {
		mods = append(mods, "U32")
	}
	mods = append(mods, "AND", "EX")
	c.emit(ori.OpISETP, mods, []ori.Operand{ori.R(p), intPT}, word(a, 1), word(b, 1), intPT, ori.R(lo))
	return p
}

// intUnder runs f with the guard replaced by predicate p (used inside
// expansions that run unguarded, so p already includes any PTX guard).
func (c *fn) intUnder(p ori.Reg, f func()) {
	g, n := c.guard, c.gNot
	c.guard, c.gNot = p, false
	f()
	c.guard, c.gNot = g, n
}

// intExt returns the low n bits of o sign- or zero-extended to 32 bits.
func (c *fn) intExt(o ori.Operand, n int, signed bool) ori.Operand {
	if n >= 32 {
		return o
	}
	if intIsImm(o) {
		v := uint32(o.Imm) & (1<<uint(n) - 1)
		if signed && v>>uint(n-1) != 0 {
			v |= ^uint32(0) << uint(n)
		}
		return intImm32(v)
	}
	r := c.newReg(1)
	var mods []string
	if !signed {
		mods = []string{"U32"}
	}
	c.emit(ori.OpSGXT, mods, []ori.Operand{ori.R(r)}, o, ori.Imm(int64(n)))
	return ori.R(r)
}

// intSignMask returns the sign mask (0 or -1) of a 32-bit operand.
func (c *fn) intSignMask(o ori.Operand) ori.Operand {
	if intIsImm(o) {
		if int32(o.Imm) < 0 {
			return ori.Imm(-1)
		}
		return ori.Imm(0)
	}
	r := c.newReg(1)
	c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(r)}, intRZ, ori.Imm(31), o)
	return ori.R(r)
}

// intLop emits d = lut(a, b, cc) and returns d.
func (c *fn) intLop(a, b, cc ori.Operand, lut uint8) ori.Operand {
	r := c.newReg(1)
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(r)}, a, b, cc, ori.Imm(int64(lut)), intNPT)
	return ori.R(r)
}

var (
	lutAnd = lut3(func(a, b, _ bool) bool { return a && b })
	lutOr  = lut3(func(a, b, _ bool) bool { return a || b })
	lutXor = lut3(func(a, b, _ bool) bool { return a != b })
)

// ---------------------------------------------------------------------
// The carry flag.

// intCC maps a function being lowered to its CC.CF predicate. Weak keys
// let a finished function be collected; a cleanup drops its entry.
var intCC struct {
	sync.Mutex
	m map[weak.Pointer[fn]]ori.Reg
}

// intCarryFlag returns the function's CC.CF predicate, creating it (and
// its initialization to false at the top of the entry block) on first use.
func (c *fn) intCarryFlag() ori.Reg {
	key := weak.Make(c)
	intCC.Lock()
	defer intCC.Unlock()
	if intCC.m == nil {
		intCC.m = map[weak.Pointer[fn]]ori.Reg{}
	}
	if r, ok := intCC.m[key]; ok {
		return r
	}
	r := c.newPred()
	intCC.m[key] = r
	runtime.AddCleanup(c, func(k weak.Pointer[fn]) {
		intCC.Lock()
		delete(intCC.m, k)
		intCC.Unlock()
	}, key)
	// Defined before anything can read it, whatever the control flow:
	// PLOP3 with an all-zero table is "false".
	init := ori.NewInst(ori.OpPLOP3, "LUT")
	init.Dsts = []ori.Operand{ori.R(r), intPT}
	init.Srcs = []ori.Operand{intPT, intPT, intPT, ori.Imm(0), ori.Imm(0)}
	init.ID = c.f.NewID()
	if c.in != nil {
		init.Line = c.in.Pos.Line
	}
	entry := c.order[0]
	entry.Insts = append([]*ori.Inst{init}, entry.Insts...)
	return r
}

// ---------------------------------------------------------------------
// Additions.

// intAddSub emits d = a + b (or a - b) over words 32-bit words, as an
// IADD3 / IADD3.X carry chain. cin, when not nil, is a carry-in predicate
// in the IADD3 sense (for subtraction: 1 = no borrow, see the file
// comment); cout, when not nil, receives the carry out of the top word.
// d may alias a or b: word i is written after words <= i are read, and
// no later word reads it.
func (c *fn) intAddSub(d ori.Reg, a, b ori.Operand, words int, sub bool, cin *ori.Operand, cout *ori.Reg) {
	var carry ori.Operand
	haveCarry := cin != nil
	if haveCarry {
		carry = *cin
	}
	for i := 0; i < words; i++ {
		ai, bi := word(a, i), word(b, i)
		dsts := []ori.Operand{ori.R(d.Word(i))}
		var next ori.Reg
		if i < words-1 || cout != nil {
			if i == words-1 {
				next = *cout
			} else {
				next = c.newPred()
			}
			dsts = append(dsts, ori.R(next))
		}
		switch {
		case haveCarry:
			if sub {
				bi = c.intNot(bi)
			}
			c.emit(ori.OpIADD3, []string{"X"}, dsts, ai, bi, intRZ, carry, intNPT)
		case sub && intIsImm(bi) && len(dsts) > 1:
			// a - imm must carry like a - R: a + ~imm + 1, with the 1 as
			// a carry-in (a - 0 carries out; a + (-0) would not).
			c.emit(ori.OpIADD3, []string{"X"}, dsts, ai, c.intNot(bi), intRZ, intPT, intNPT)
		case sub:
			c.emit(ori.OpIADD3, nil, dsts, ai, c.intNeg(bi), intRZ)
		default:
			c.emit(ori.OpIADD3, nil, dsts, ai, bi, intRZ)
		}
		if len(dsts) > 1 {
			carry = ori.R(next)
			haveCarry = true
		}
	}
}

// intAddSat emits d = a + b (or a - b) saturated to the s32 range.
//
//	s = a ± b (wrapping)
//	overflow: add: a and b have the same sign and s another:  sign((a^s)&(b^s))
//	          sub: a and b differ in sign and s differs from a: sign((a^b)&(a^s))
//	on overflow s has the wrong sign, so the saturated value is
//	(s >> 31) ^ 0x80000000: INT_MAX when s < 0 (positive overflow), INT_MIN else.
func (c *fn) intAddSat(d ori.Reg, a, b ori.Operand, sub bool) {
	s := c.newReg(1)
	lut := lut3(func(x, y, z bool) bool { return x != z && y != z })
	if sub {
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(s)}, a, c.intNeg(b), intRZ)
		lut = lut3(func(x, y, z bool) bool { return x != y && x != z })
	} else {
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(s)}, a, b, intRZ)
	}
	t := c.intLop(a, b, ori.R(s), lut)
	ovf := c.intSetp("LT", false, t, intRZ)
	m := c.intSignMask(ori.R(s))
	v := c.intLop(m, intImm32(0x80000000), intRZ, lutXor)
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d)}, v, ori.R(s), ori.R(ovf))
}

// lowerAddSub lowers add and sub, with .sat (s32), .cc (carry out to
// CC.CF) and the packed .u16x2/.s16x2 add.
func lowerAddSub(c *fn, in *ptx.Instr, sub bool) error {
	t := lastType(in)
	if t == ".u16x2" || t == ".s16x2" {
		if sub || in.HasMod(".sat") || in.HasMod(".cc") {
			return c.l.errorf(in.OpPos, "%s%s has no such form", in.Op, t)
		}
		return lowerAddX2(c, in, t)
	}
	bitsT, _, ok := intScalar(t)
	if !ok {
		return c.l.errorf(in.OpPos, "%s: unexpected type %s", in.Op, t)
	}
	sat, cc := in.HasMod(".sat"), in.HasMod(".cc")
	if sat && (t != ".s32" || cc) {
		return c.l.errorf(in.OpPos, "%s.sat is only defined for .s32 without .cc", in.Op)
	}
	if cc && bitsT < 32 {
		return c.l.errorf(in.OpPos, "%s.cc needs a 32- or 64-bit type", in.Op)
	}
	d, s, err := c.intOps(in, t, t, t)
	if err != nil {
		return err
	}
	switch {
	case sat:
		c.intAddSat(d, s[0], s[1], sub)
	case cc:
		cf := c.intCarryFlag()
		c.intAddSub(d, s[0], s[1], wordsOf(t), sub, nil, &cf)
	default:
		c.intAddSub(d, s[0], s[1], wordsOf(t), sub, nil, nil)
	}
	return nil
}

// lowerAddX2 lowers add.u16x2/s16x2 (wrapping, so signedness does not
// matter). The low half of a + b is right as is; the high half is the
// high half of (a & 0xffff0000) + b, which cannot receive a carry from
// the low half. PRMT 0x7610 takes bytes 0-1 of the first sum and bytes
// 2-3 of the second.
func lowerAddX2(c *fn, in *ptx.Instr, t string) error {
	d, s, err := c.intOps(in, ".b32", ".b32", ".b32")
	if err != nil {
		return err
	}
	lo := c.newReg(1)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(lo)}, s[0], s[1], intRZ)
	var ah ori.Operand
	if intIsImm(s[0]) {
		ah = intImm32(uint32(s[0].Imm) & 0xffff0000)
	} else {
		ah = c.intLop(s[0], intImm32(0xffff0000), intRZ, lutAnd)
	}
	hi := c.newReg(1)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(hi)}, ah, s[1], intRZ)
	c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d)}, ori.R(lo), ori.Imm(0x7610), ori.R(hi))
	return nil
}

// lowerAddcSubc lowers addc and subc: an addition that consumes CC.CF
// (and writes it back with .cc).
func lowerAddcSubc(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	bitsT, _, ok := intScalar(t)
	if !ok || bitsT < 32 {
		return c.l.errorf(in.OpPos, "%s needs a 32- or 64-bit integer type", in.Op)
	}
	d, s, err := c.intOps(in, t, t, t)
	if err != nil {
		return err
	}
	cf := c.intCarryFlag()
	cin := ori.R(cf)
	var cout *ori.Reg
	if in.HasMod(".cc") {
		cout = &cf
	}
	c.intAddSub(d, s[0], s[1], wordsOf(t), in.Op == "subc", &cin, cout)
	return nil
}

// ---------------------------------------------------------------------
// Multiplication.

// intMulLo64 emits d.64 = a*b + addend (mod 2^64), where addend is a
// register pair or RZ. With a = a1:a0 and b = b1:b0 the product mod 2^64
// is a0*b0 + ((a1*b0 + a0*b1) << 32): the cross terms need only their low
// words (IMAD), the a0*b0 term its full 64 bits (IMAD.WIDE.U32, which also
// adds the addend). All reads of a and b precede the first write of d.
func (c *fn) intMulLo64(d ori.Reg, a, b, addend ori.Operand) {
	cross := intRZ
	have := false
	if !intIsZero(word(a, 1)) && !intIsZero(word(b, 0)) {
		t := c.newReg(1)
		c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(t)}, word(a, 1), word(b, 0), intRZ)
		cross, have = ori.R(t), true
	}
	if !intIsZero(word(a, 0)) && !intIsZero(word(b, 1)) {
		t := c.newReg(1)
		c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(t)}, word(a, 0), word(b, 1), cross)
		cross, have = ori.R(t), true
	}
	c.emit(ori.OpIMAD, []string{"WIDE", "U32"}, []ori.Operand{ori.R(d)}, word(a, 0), word(b, 0), addend)
	if have {
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(1))}, ori.R(d.Word(1)), cross, intRZ)
	}
}

// intMulHi64 emits d.64 = the high 64 bits of the 128-bit product a*b
// (signed or unsigned). Unsigned, with a = a1:a0, b = b1:b0:
//
//	m = a0*b1 + hi(a0*b0)         < 2^64 (IMAD.WIDE.U32 with addend 0:hi)
//	n = a1*b0                     (IMAD.WIDE.U32)
//	T = m + n = Q:s1:s0           65 bits (IADD3 + IADD3.X, Q the carry out)
//	a*b = lo(a0*b0) + 2^32*s0 + 2^64*(s1 + 2^32*Q + a1*b1)
//	and lo(a0*b0) + 2^32*s0 < 2^64, so
//	hi64 = a1*b1 + s1 + 2^32*Q    (IMAD.WIDE.U32, IADD3, IADD3.X; < 2^64)
//
// Signed: with sa = -1 when a < 0 (else 0) and likewise sb, a_s = a_u +
// 2^64*sa, so hi_s = hi_u - (a<0 ? b : 0) - (b<0 ? a : 0) (mod 2^64).
// d is written only by the last instructions, after every read of a, b.
func (c *fn) intMulHi64(d ori.Reg, a, b ori.Operand, signed bool) {
	x := c.newReg(2)
	c.emit(ori.OpIMAD, []string{"HI", "U32"}, []ori.Operand{ori.R(x.Word(0))}, word(a, 0), word(b, 0), intRZ)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(x.Word(1))}, intRZ)
	m := c.newReg(2)
	c.emit(ori.OpIMAD, []string{"WIDE", "U32"}, []ori.Operand{ori.R(m)}, word(a, 0), word(b, 1), ori.R(x))
	n := c.newReg(2)
	c.emit(ori.OpIMAD, []string{"WIDE", "U32"}, []ori.Operand{ori.R(n)}, word(a, 1), word(b, 0), intRZ)
	p := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{intRZ, ori.R(p)}, ori.R(n.Word(0)), ori.R(m.Word(0)), intRZ)
	s1 := c.newReg(1)
	q := c.newPred()
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(s1), ori.R(q)}, ori.R(n.Word(1)), ori.R(m.Word(1)), intRZ, ori.R(p), intNPT)
	z := c.newReg(2)
	c.emit(ori.OpIMAD, []string{"WIDE", "U32"}, []ori.Operand{ori.R(z)}, word(a, 1), word(b, 1), intRZ)
	u := d
	if signed {
		u = c.newReg(2)
	}
	p2 := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(u.Word(0)), ori.R(p2)}, ori.R(z.Word(0)), ori.R(s1), intRZ)
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(u.Word(1))}, ori.R(z.Word(1)), intRZ, intRZ, ori.R(p2), ori.R(q))
	if !signed {
		return
	}
	// The corrections: (a<0 ? b : 0) and (b<0 ? a : 0), then subtract.
	var terms []ori.Operand
	for _, pr := range [][2]ori.Operand{{a, b}, {b, a}} {
		sm := c.intSignMask(word(pr[0], 1))
		if intIsImm(sm) {
			if sm.Imm != 0 {
				terms = append(terms, pr[1])
			}
			continue
		}
		t := c.newReg(2)
		for w := 0; w < 2; w++ {
			c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(t.Word(w))}, word(pr[1], w), sm, intRZ, ori.Imm(int64(lutAnd)), intNPT)
		}
		terms = append(terms, ori.R(t))
	}
	cur := ori.R(u)
	for i, t := range terms {
		dst := d
		if i < len(terms)-1 {
			dst = c.newReg(2)
		}
		c.intAddSub(dst, cur, t, 2, true, nil, nil)
		cur = ori.R(dst)
	}
	if len(terms) == 0 {
		c.mov(d, ori.R(u), 2)
	}
}

// intMulHi16 sets h to the high 16 bits of the 32-bit product of the
// extended 16-bit operands (in the low half of h).
func (c *fn) intMulHi16(h ori.Reg, a, b ori.Operand, signed bool) {
	ea, eb := c.intExt(a, 16, signed), c.intExt(b, 16, signed)
	p := c.newReg(1)
	c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(p)}, ea, eb, intRZ)
	c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(h)}, intRZ, ori.Imm(16), ori.R(p))
}

// intMulArgs describes one mul/mad/madc.
type intMulArgs struct {
	mode    string // ".lo", ".hi" or ".wide"
	width   int    // operand width in bits
	signed  bool
	addend  *ori.Operand // mad's c (nil for mul)
	cin     *ori.Operand // CC.CF for madc
	cout    *ori.Reg     // CC.CF for .cc
	sat     bool         // mad.hi.sat.s32
	hiMods  []string     // IMAD.HI modifiers for the type
	wideMod []string     // IMAD.WIDE modifiers for the type
}

// intMul emits d = the selected part of a*b, plus the addend (with the
// carry-in and carry-out when asked).
func (c *fn) intMul(d ori.Reg, a, b ori.Operand, m intMulArgs) {
	words := 1
	if m.width == 64 {
		words = 2
	}
	carry := m.cin != nil || m.cout != nil
	// finish adds the addend to a computed product part.
	finish := func(p ori.Operand) {
		switch {
		case m.addend == nil:
			c.mov(d, p, words)
		case m.sat:
			c.intAddSat(d, p, *m.addend, false)
		default:
			c.intAddSub(d, p, *m.addend, words, false, m.cin, m.cout)
		}
	}
	switch m.mode {
	case ".lo":
		if words == 1 {
			if carry {
				p := c.newReg(1)
				c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(p)}, a, b, intRZ)
				finish(ori.R(p))
				return
			}
			add := intRZ
			if m.addend != nil {
				add = *m.addend
			}
			c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(d)}, a, b, add)
			return
		}
		if carry {
			p := c.newReg(2)
			c.intMulLo64(p, a, b, intRZ)
			finish(ori.R(p))
			return
		}
		add := intRZ
		if m.addend != nil {
			add = c.intPair(*m.addend)
		}
		c.intMulLo64(d, a, b, add)
	case ".hi":
		switch m.width {
		case 16:
			if m.addend == nil {
				c.intMulHi16(d, a, b, m.signed)
				return
			}
			h := c.newReg(1)
			c.intMulHi16(h, a, b, m.signed)
			finish(ori.R(h))
		case 32:
			if !carry && !m.sat {
				add := intRZ
				if m.addend != nil {
					add = *m.addend
				}
				c.emit(ori.OpIMAD, m.hiMods, []ori.Operand{ori.R(d)}, a, b, add)
				return
			}
			p := c.newReg(1)
			c.emit(ori.OpIMAD, m.hiMods, []ori.Operand{ori.R(p)}, a, b, intRZ)
			finish(ori.R(p))
		case 64:
			if m.addend == nil {
				c.intMulHi64(d, a, b, m.signed)
				return
			}
			p := c.newReg(2)
			c.intMulHi64(p, a, b, m.signed)
			finish(ori.R(p))
		}
	case ".wide":
		if m.width == 16 {
			add := intRZ
			if m.addend != nil {
				add = *m.addend
			}
			c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(d)}, c.intExt(a, 16, m.signed), c.intExt(b, 16, m.signed), add)
			return
		}
		add := intRZ
		if m.addend != nil {
			add = c.intPair(*m.addend)
		}
		c.emit(ori.OpIMAD, m.wideMod, []ori.Operand{ori.R(d)}, a, b, add)
	}
}

// intMulMode returns the .lo/.hi/.wide modifier of in, or "".
func intMulMode(in *ptx.Instr) string {
	for _, m := range []string{".lo", ".hi", ".wide"} {
		if in.HasMod(m) {
			return m
		}
	}
	return ""
}

func intMulMods(signed bool) (hi, wide []string) {
	if signed {
		return []string{"HI"}, []string{"WIDE"}
	}
	return []string{"HI", "U32"}, []string{"WIDE", "U32"}
}

// lowerMulMad lowers integer mul and mad (with .cc and mad.hi.sat.s32).
func lowerMulMad(c *fn, in *ptx.Instr, mad bool) error {
	t := lastType(in)
	width, signed, ok := intScalar(t)
	if !ok {
		return c.l.errorf(in.OpPos, "%s: unexpected type %s", in.Op, t)
	}
	mode := intMulMode(in)
	if mode == "" {
		return c.l.errorf(in.OpPos, "integer %s needs .lo, .hi or .wide", in.Op)
	}
	dt := t
	if mode == ".wide" {
		if dt = intWide(t); dt == "" {
			return c.l.errorf(in.OpPos, "%s.wide is not defined for %s", in.Op, t)
		}
	}
	m := intMulArgs{mode: mode, width: width, signed: signed}
	m.hiMods, m.wideMod = intMulMods(signed)
	cc := in.HasMod(".cc")
	m.sat = in.HasMod(".sat")
	if cc && (!mad || mode == ".wide" || width < 32) {
		return c.l.errorf(in.OpPos, "%s.cc is only defined for mad.lo/mad.hi on 32- and 64-bit types", in.Op)
	}
	if m.sat && (!mad || mode != ".hi" || t != ".s32" || cc) {
		return c.l.errorf(in.OpPos, ".sat is only defined for mad.hi.sat.s32")
	}
	st := []string{t, t}
	if mad {
		st = append(st, dt)
	}
	d, s, err := c.intOps(in, dt, st...)
	if err != nil {
		return err
	}
	if mad {
		m.addend = &s[2]
	}
	if cc {
		cf := c.intCarryFlag()
		m.cout = &cf
	}
	c.intMul(d, s[0], s[1], m)
	return nil
}

// lowerMadc lowers madc{.lo,.hi}{.cc}: mad with CC.CF as carry-in.
func lowerMadc(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	width, signed, ok := intScalar(t)
	if !ok || width < 32 {
		return c.l.errorf(in.OpPos, "madc needs a 32- or 64-bit integer type")
	}
	mode := intMulMode(in)
	if mode != ".lo" && mode != ".hi" {
		return c.l.errorf(in.OpPos, "madc needs .lo or .hi")
	}
	d, s, err := c.intOps(in, t, t, t, t)
	if err != nil {
		return err
	}
	m := intMulArgs{mode: mode, width: width, signed: signed, addend: &s[2]}
	m.hiMods, m.wideMod = intMulMods(signed)
	cf := c.intCarryFlag()
	cin := ori.R(cf)
	m.cin = &cin
	if in.HasMod(".cc") {
		m.cout = &cf
	}
	c.intMul(d, s[0], s[1], m)
	return nil
}

// lowerMul24 lowers mul24 and mad24. Only the low 24 bits of a and b
// take part (sign-extended for .s32). .lo: the low word of ext(a)*ext(b)
// (SGXT, SGXT, IMAD). .hi: bits 47..16 of the 48-bit product, which is
// IMAD.HI of (a << 8) and (b << 8): the shift drops the ignored top byte,
// and as 32-bit values a<<8 = ext24(a)*2^8, so the high word of their
// product is ext24(a)*ext24(b)*2^16 >> 32 = t<47..16>, signed or unsigned
// by the IMAD.HI flavor.
func lowerMul24(c *fn, in *ptx.Instr) error {
	mad := in.Op == "mad24"
	t := lastType(in)
	if t != ".u32" && t != ".s32" {
		return c.l.errorf(in.OpPos, "%s needs .u32 or .s32", in.Op)
	}
	signed := t == ".s32"
	mode := intMulMode(in)
	if mode != ".lo" && mode != ".hi" {
		return c.l.errorf(in.OpPos, "%s needs .lo or .hi", in.Op)
	}
	sat := in.HasMod(".sat")
	if sat && (!mad || mode != ".hi" || !signed) {
		return c.l.errorf(in.OpPos, ".sat is only defined for mad24.hi.sat.s32")
	}
	st := []string{t, t}
	if mad {
		st = append(st, t)
	}
	d, s, err := c.intOps(in, t, st...)
	if err != nil {
		return err
	}
	add := intRZ
	if mad && !sat {
		add = s[2]
	}
	if mode == ".lo" {
		c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(d)}, c.intExt(s[0], 24, signed), c.intExt(s[1], 24, signed), add)
		return nil
	}
	shl8 := func(o ori.Operand) ori.Operand {
		if intIsImm(o) {
			return intImm32(uint32(o.Imm) << 8)
		}
		r := c.newReg(1)
		c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(r)}, o, ori.Imm(0x100), intRZ)
		return ori.R(r)
	}
	hiMods, _ := intMulMods(signed)
	a8, b8 := shl8(s[0]), shl8(s[1])
	if !sat {
		c.emit(ori.OpIMAD, hiMods, []ori.Operand{ori.R(d)}, a8, b8, add)
		return nil
	}
	h := c.newReg(1)
	c.emit(ori.OpIMAD, hiMods, []ori.Operand{ori.R(h)}, a8, b8, intRZ)
	c.intAddSat(d, ori.R(h), s[2], false)
	return nil
}

// ---------------------------------------------------------------------
// min, max, abs, neg, sad.

// intMinMax64 emits d = min or max of two 64-bit operands: one 64-bit
// comparison, then a SEL per word.
func (c *fn) intMinMax64(d ori.Reg, a, b ori.Operand, isMax, signed bool) {
	cmp := "LT"
	if isMax {
		cmp = "GT"
	}
	p := c.intSetp64(cmp, signed, a, b)
	for w := 0; w < 2; w++ {
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(w))}, word(a, w), word(b, w), ori.R(p))
	}
}

// intMinMax32 emits IMNMX[.U32] d = a, b with PT (min) or !PT (max).
func (c *fn) intMinMax32(d ori.Reg, a, b ori.Operand, isMax, signed bool) {
	var mods []string
	if !signed {
		mods = []string{"U32"}
	}
	sel := intPT
	if isMax {
		sel = intNPT
	}
	c.emit(ori.OpIMNMX, mods, []ori.Operand{ori.R(d)}, a, b, sel)
}

// intRelu emits d = max(v, 0) (signed).
func (c *fn) intRelu(d ori.Reg, v ori.Operand) {
	c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(d)}, v, intRZ, intNPT)
}

func lowerMinMax(c *fn, in *ptx.Instr, isMax bool) error {
	t := lastType(in)
	relu := in.HasMod(".relu")
	if relu && t != ".s32" && t != ".s16x2" {
		return c.l.errorf(in.OpPos, "%s.relu is only defined for .s32 and .s16x2", in.Op)
	}
	if t == ".u16x2" || t == ".s16x2" {
		return lowerMinMaxX2(c, in, isMax, t == ".s16x2", relu)
	}
	width, signed, ok := intScalar(t)
	if !ok {
		return c.l.errorf(in.OpPos, "%s: unexpected type %s", in.Op, t)
	}
	d, s, err := c.intOps(in, t, t, t)
	if err != nil {
		return err
	}
	if width == 64 {
		c.intMinMax64(d, s[0], s[1], isMax, signed)
		return nil
	}
	a, b := c.intExt(s[0], width, signed), c.intExt(s[1], width, signed)
	if !relu {
		c.intMinMax32(d, a, b, isMax, signed)
		return nil
	}
	r := c.newReg(1)
	c.intMinMax32(r, a, b, isMax, signed)
	c.intRelu(d, ori.R(r))
	return nil
}

// intHalf returns half h (0 low, 1 high) of a packed 16x2 operand,
// extended to 32 bits.
func (c *fn) intHalf(o ori.Operand, h int, signed bool) ori.Operand {
	if intIsImm(o) {
		return c.intExt(intImm32(uint32(o.Imm)>>(16*uint(h))), 16, signed)
	}
	if h == 0 {
		return c.intExt(o, 16, signed)
	}
	r := c.newReg(1)
	mod := "U32"
	if signed {
		mod = "S32"
	}
	c.emit(ori.OpSHF, []string{"R", mod, "HI"}, []ori.Operand{ori.R(r)}, intRZ, ori.Imm(16), o)
	return ori.R(r)
}

// lowerMinMaxX2 lowers min/max.{u16x2,s16x2}{.relu}: each half extended,
// IMNMX, (IMNMX with 0 for .relu), then PRMT 0x5410 packs the low halves.
func lowerMinMaxX2(c *fn, in *ptx.Instr, isMax, signed, relu bool) error {
	d, s, err := c.intOps(in, ".b32", ".b32", ".b32")
	if err != nil {
		return err
	}
	var half [2]ori.Reg
	for h := 0; h < 2; h++ {
		a, b := c.intHalf(s[0], h, signed), c.intHalf(s[1], h, signed)
		half[h] = c.newReg(1)
		c.intMinMax32(half[h], a, b, isMax, signed)
		if relu {
			r := c.newReg(1)
			c.intRelu(r, ori.R(half[h]))
			half[h] = r
		}
	}
	c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d)}, ori.R(half[0]), ori.Imm(0x5410), ori.R(half[1]))
	return nil
}

// lowerAbs lowers abs.s16/s32/s64. 64-bit: m = sign mask of the high
// word, d = (a ^ m) - m over 64 bits (m sign-extended: m:m).
func lowerAbs(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	width, _, ok := intScalar(t)
	if !ok {
		return c.l.errorf(in.OpPos, "abs: unexpected type %s", t)
	}
	d, s, err := c.intOps(in, t, t)
	if err != nil {
		return err
	}
	if width < 64 {
		c.emit(ori.OpIABS, nil, []ori.Operand{ori.R(d)}, c.intExt(s[0], width, true))
		return nil
	}
	c.intAbs64(d, s[0])
	return nil
}

// intAbs64 emits d = |a| for a 64-bit operand: m = the sign mask of the
// high word, d = (a ^ m) - (m:m), i.e. minus 0 or minus -1 as a borrow
// chain. d may alias a (a1 is read before d1 is written).
func (c *fn) intAbs64(d ori.Reg, a ori.Operand) {
	if intIsImm(a) {
		v := a.Imm
		if v < 0 {
			v = -v
		}
		c.mov(d, ori.Imm(v), 2)
		return
	}
	m := c.asReg(c.intSignMask(word(a, 1)))
	for w := 0; w < 2; w++ {
		c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(d.Word(w))}, word(a, w), m, intRZ, ori.Imm(int64(lutXor)), intNPT)
	}
	p := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0)), ori.R(p)}, ori.R(d.Word(0)), c.intNeg(m), intRZ)
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(d.Word(1))}, ori.R(d.Word(1)), c.intNot(m), intRZ, ori.R(p), intNPT)
}

// intAbs64To returns |a| of a 64-bit operand in a fresh pair.
func (c *fn) intAbs64To(a ori.Operand) ori.Operand {
	if intIsImm(a) {
		// |INT64_MIN| wraps to itself: as unsigned bits, 2^63.
		if a.Imm < 0 {
			return ori.Imm(-a.Imm)
		}
		return a
	}
	r := c.newReg(2)
	c.intAbs64(r, a)
	return ori.R(r)
}

// lowerNeg lowers neg.s16/s32/s64: 0 - a (with a borrow chain for 64).
func lowerNeg(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	if _, _, ok := intScalar(t); !ok {
		return c.l.errorf(in.OpPos, "neg: unexpected type %s", t)
	}
	d, s, err := c.intOps(in, t, t)
	if err != nil {
		return err
	}
	if intIsImm(s[0]) {
		c.mov(d, ori.Imm(-s[0].Imm), wordsOf(t))
		return nil
	}
	c.intAddSub(d, intRZ, s[0], wordsOf(t), true, nil, nil)
	return nil
}

// lowerSad lowers sad: d = c + |a - b| where the difference is taken in
// the order that makes it non-negative (signed or unsigned compare). That
// is max(a,b) - min(a,b), computed mod 2^n like PTX's b-a / a-b.
func lowerSad(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	width, signed, ok := intScalar(t)
	if !ok {
		return c.l.errorf(in.OpPos, "sad: unexpected type %s", t)
	}
	d, s, err := c.intOps(in, t, t, t, t)
	if err != nil {
		return err
	}
	if width == 64 {
		mn, mx := c.newReg(2), c.newReg(2)
		p := c.intSetp64("LT", signed, s[0], s[1])
		for w := 0; w < 2; w++ {
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(mn.Word(w))}, word(s[0], w), word(s[1], w), ori.R(p))
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(mx.Word(w))}, word(s[1], w), word(s[0], w), ori.R(p))
		}
		diff := c.newReg(2)
		c.intAddSub(diff, ori.R(mx), ori.R(mn), 2, true, nil, nil)
		c.intAddSub(d, ori.R(diff), s[2], 2, false, nil, nil)
		return nil
	}
	a, b := c.intExt(s[0], width, signed), c.intExt(s[1], width, signed)
	mn, mx := c.newReg(1), c.newReg(1)
	c.intMinMax32(mn, a, b, false, signed)
	c.intMinMax32(mx, a, b, true, signed)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d)}, ori.R(mx), ori.Operand{Kind: ori.OpdReg, Reg: mn, Neg: true}, s[2])
	return nil
}

// ---------------------------------------------------------------------
// Division.

// intUDiv32 emits q = a / b and r = a % b for 32-bit unsigned a and b,
// b != 0 (for b == 0 the results are garbage; callers select all ones).
// It must be called with no guard active (c.guard == PT); q and r are
// fresh registers it defines.
//
// The sequence is the ptxas template:
//
//	fb = I2F.F32.U32.RP b            fb >= b, fb <= b(1 + 2^-23)
//	rc = MUFU.RCP fb                 |rc - 1/fb| <= 1 ulp
//	rs = rc bits + 0x0ffffffe        rc * 2^32, stepped down 2 floats
//	y0 = F2I.U32.F32.TRUNC rs
//	e  = y0 * -b                     = 2^32 - y0*b (mod 2^32)
//	y1 = IMAD.HI.U32 y0, e, y0       Newton step: y0 + hi(y0*e)
//	q  = IMAD.HI.U32 y1, a, RZ
//	r  = q * -b + a
//	twice: if r >= b { r -= b; q++ }
//
// Why it is exact. Let Y = 2^32/b (real) and Q = floor(a/b).
//  1. rs <= 2^32/fb <= Y: rc lies in some binade [2^k, 2^(k+1)); if
//     rc >= 1/fb its error rc - 1/fb is at most 2^(k-23), and two steps
//     down from rc subtract at least 2^(k-23) (2^(k-24) twice at a binade
//     edge). Adding 32 to the exponent (0x10000000) multiplies by 2^32
//     exactly: 2^-32 <= rc <= 1, so no overflow or denormal.
//     Also rs >= Y(1 - 2^-21): fb costs 2^-23, rc 2^-23, the two steps
//     2^-22 (relative).
//  2. y0 = floor(rs), so y0 = Y - e0 with 0 <= e0 <= 2^-21*Y + 1, and
//     y0 < 2^32 (rs < 2^32 strictly, since the steps make rs < 2^32/fb).
//  3. E = 2^32 - y0*b = b*e0 >= 0, and e = E mod 2^32. e = E unless
//     y0 = 0 (E = 2^32 wraps to 0, so y1 = 0); y0 = 0 needs
//     Y(1 - 2^-21) < 1, so b > 2^31 and case 5 covers it. Otherwise
//     y1 = y0 + floor(y0*E/2^32) = y0 + floor(e0 - e0^2/Y), so
//     Y - e0^2/Y - 1 < y1 <= Y: y1 never overestimates, and
//     e1 = Y - y1 < 1 + e0^2/Y <= 1 + 2^-42*Y + 2^-20 + 1/Y.
//  4. q0 = floor(y1*a/2^32) <= floor(a/b) = Q, and
//     y1*a/2^32 = a/b - e1*a/2^32 > a/b - e1.
//     For b <= 2^31: 1/Y <= 1/2 and 2^-42*Y <= 2^-10, so e1 < 1.51 < 2
//     and q0 >= Q - 2 (floor of something > Q - 2, as a/b >= Q).
//  5. For b > 2^31: Q <= 1 and q0 >= 0 >= Q - 1.
//  6. So q0 is in [Q-2, Q], r0 = a - q0*b is in [0, 3b) and below 2^32
//     (it is at most a), and the IMAD computes it exactly mod 2^32. Two
//     conditional subtractions bring r below b and q to Q.
func (c *fn) intUDiv32(q, r ori.Reg, a, b ori.Operand, wantRem bool) {
	nb := c.intNeg(b)
	if nb.Kind == ori.OpdReg {
		// -b is used three or four times: compute it once.
		n := c.newReg(1)
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(n)}, intRZ, nb, intRZ)
		nb = ori.R(n)
	}
	var y1 ori.Operand
	if intIsImm(b) {
		// A constant divisor needs no estimate at run time: steps 4-6
		// only need y1 <= Y and Y - y1 < 1.51, and floor((2^32-1)/b) is
		// within 1 of Y from below. (b = 0 only reaches here as the low
		// word of a 64-bit divisor on the dead fast path: any value does.)
		y1 = ori.Imm(0)
		if v := uint64(uint32(b.Imm)); v != 0 {
			y1 = intImm32(uint32(0xffffffff / v))
		}
	} else {
		y1 = c.intRecip32(b, nb)
	}
	c.emit(ori.OpIMAD, []string{"HI", "U32"}, []ori.Operand{ori.R(q)}, y1, a, intRZ)
	c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(r)}, ori.R(q), nb, a)
	for step := 0; step < 2; step++ {
		p := c.intSetp("GE", true, ori.R(r), b)
		c.intUnder(p, func() {
			if step == 0 || wantRem {
				c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r)}, ori.R(r), nb, intRZ)
			}
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(q)}, ori.R(q), ori.Imm(1), intRZ)
		})
	}
}

// intRecip32 returns y1, the estimate of 2^32/b of intUDiv32 (steps 1-3
// of its proof), given nb = -b.
func (c *fn) intRecip32(b, nb ori.Operand) ori.Operand {
	f32 := func(op ori.Opcode, mods []string, src ori.Operand) ori.Reg {
		d := c.newReg(1)
		c.emit(op, mods, []ori.Operand{ori.R(d)}, src)
		return d
	}
	fb := f32(ori.OpI2F, []string{"F32", "U32", "RP"}, b)
	rc := f32(ori.OpMUFU, []string{"RCP"}, ori.R(fb))
	rs := c.newReg(1)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(rs)}, ori.R(rc), ori.Imm(0x0ffffffe), intRZ)
	y0 := f32(ori.OpF2I, []string{"U32", "F32", "TRUNC"}, ori.R(rs))
	e := c.newReg(1)
	c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(e)}, ori.R(y0), nb, intRZ)
	y1 := c.newReg(1)
	c.emit(ori.OpIMAD, []string{"HI", "U32"}, []ori.Operand{ori.R(y1)}, ori.R(y0), ori.R(e), ori.R(y0))
	return ori.R(y1)
}

// intDivMod32 returns a / b or a % b of 32-bit operands (already extended
// when they came from 16-bit registers) in a fresh register. Signed: the
// unsigned division of |a| by |b| (IABS; |INT_MIN| = 2^31 as unsigned),
// then the quotient negated when the signs differ and the remainder
// negated when a < 0 (C's truncating division). Guard must be PT.
func (c *fn) intDivMod32(a, b ori.Operand, signed, rem bool) ori.Reg {
	ua, ub := a, b
	if signed {
		abs := func(o ori.Operand) ori.Operand {
			if intIsImm(o) {
				v := int32(o.Imm)
				if v < 0 {
					v = -v
				}
				return intImm32(uint32(v))
			}
			r := c.newReg(1)
			c.emit(ori.OpIABS, nil, []ori.Operand{ori.R(r)}, o)
			return ori.R(r)
		}
		ua, ub = abs(a), abs(b)
	}
	q, r := c.newReg(1), c.newReg(1)
	c.intUDiv32(q, r, ua, ub, rem)
	res := q
	if rem {
		res = r
	}
	if !signed {
		return res
	}
	neg := a // the remainder takes the sign of a
	if !rem {
		neg = c.intLop(a, b, intRZ, lutXor) // the quotient the sign of a^b
	}
	p := c.intSetp("LT", false, neg, intRZ)
	c.intUnder(p, func() {
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(res)}, intRZ, ori.Operand{Kind: ori.OpdReg, Reg: res, Neg: true}, intRZ)
	})
	return res
}

// intUDiv64 emits q = a / b and r = a % b for 64-bit unsigned operands
// (b != 0; b == 0 gives q = all ones, r = a, fixed up by the caller).
// Guard must be PT. The expansion adds blocks:
//
//	cur:   LOP3 hi = a1 | b1; ISETP.NE hi, 0; @big BRA slow
//	fast:  both fit in 32 bits: intUDiv32 on the low words; BRA join
//	slow:  (r:q) = (0:a); n = 64
//	loop:  (r:q) <<= 1 with the bit shifted out of r in c65   (IADD3 chain)
//	       t = r - b, ge = carry (r >= b)                       (IADD3 chain)
//	       take = c65 | ge; r = take ? t : r; q += take
//	       n--; @n != 0 BRA loop
//	join:
//
// Restoring division: before each step r < b, so after the shift the true
// remainder 2r + bit < 2b < 2^65 is c65:r; it is >= b exactly when c65 is
// set or r >= b, and then c65:r - b < b fits 64 bits, so the 64-bit
// difference t is exact. The quotient bit fills the bit of q the shift
// vacated. After 64 steps q holds the quotient and r the remainder.
// Cost: 13 instructions per iteration, about 840 dynamic instructions
// for operands that do not fit in 32 bits; ~30 for those that do.
func (c *fn) intUDiv64(a, b ori.Operand, wantRem bool) (q, r ori.Reg) {
	q, r = c.newReg(2), c.newReg(2)
	slow, loop, join := c.f.NewBlock(""), c.f.NewBlock(""), c.f.NewBlock("")
	b1 := word(b, 1)
	if !intIsImm(b1) || b1.Imm == 0 {
		// (A constant divisor of 2^32 or more never takes the fast path.)
		hi := word(a, 1)
		if !intIsImm(b1) {
			hi = c.intLop(word(a, 1), b1, intRZ, lutOr)
		}
		big := c.intSetp("NE", true, hi, intRZ)
		c.intUnder(big, func() {
			c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(slow.ID)))
		})
		c.setBlock(c.f.NewBlock(""))
		c.intUDiv32(q.Word(0), r.Word(0), word(a, 0), word(b, 0), wantRem)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(q.Word(1))}, intRZ)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, intRZ)
		c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(join.ID)))
	}

	c.setBlock(slow)
	c.mov(q, a, 2)
	c.mov(r, intRZ, 2)
	n := c.newReg(1)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(n)}, ori.Imm(64))

	c.setBlock(loop)
	mid := c.newPred()
	c.intAddSub(q, ori.R(q), ori.R(q), 2, false, nil, &mid)
	c65 := c.newPred()
	midOp := ori.R(mid)
	c.intAddSub(r, ori.R(r), ori.R(r), 2, false, &midOp, &c65)
	t := c.newReg(2)
	ge := c.newPred()
	c.intAddSub(t, ori.R(r), b, 2, true, nil, &ge)
	take := c.newPred()
	c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(take), intPT}, ori.R(c65), ori.R(ge), intPT, ori.Imm(int64(lutOr)), ori.Imm(0))
	for w := 0; w < 2; w++ {
		c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(r.Word(w))}, ori.R(t.Word(w)), ori.R(r.Word(w)), ori.R(take))
	}
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(q.Word(0))}, ori.R(q.Word(0)), intRZ, intRZ, ori.R(take), intNPT)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(n)}, ori.R(n), ori.Imm(-1), intRZ)
	more := c.intSetp("NE", true, ori.R(n), intRZ)
	c.intUnder(more, func() {
		c.emit(ori.OpBRA, nil, nil, ori.BlockRef(int(loop.ID)))
	})

	c.setBlock(join)
	return q, r
}

// intDivMod64 returns a / b or a % b of 64-bit operands in a fresh pair
// (signed: on |a| and |b| with the signs fixed as in intDivMod32).
func (c *fn) intDivMod64(a, b ori.Operand, signed, rem bool) ori.Reg {
	ua, ub := a, b
	if signed {
		ua, ub = c.intAbs64To(a), c.intAbs64To(b)
	}
	q, r := c.intUDiv64(ua, ub, rem)
	res := q
	if rem {
		res = r
	}
	if !signed {
		return res
	}
	neg := word(a, 1)
	if !rem {
		neg = c.intLop(word(a, 1), word(b, 1), intRZ, lutXor)
	}
	p := c.intSetp("LT", false, neg, intRZ)
	c.intUnder(p, func() {
		c.intAddSub(res, intRZ, ori.R(res), 2, true, nil, nil)
	})
	return res
}

// lowerDivRem lowers integer div and rem. The expansion computes into
// fresh registers without the PTX guard (it has no side effects, and the
// 64-bit form has loops), then writes d under the guard, choosing all
// ones when b == 0.
func lowerDivRem(c *fn, in *ptx.Instr, rem bool) error {
	t := lastType(in)
	width, signed, ok := intScalar(t)
	if !ok {
		return c.l.errorf(in.OpPos, "%s: unexpected type %s", in.Op, t)
	}
	d, s, err := c.intOps(in, t, t, t)
	if err != nil {
		return err
	}
	words := wordsOf(t)
	a, b := s[0], s[1]
	if intIsImm(b) {
		v := uint64(b.Imm)
		if width < 64 {
			v &= 1<<uint(width) - 1
		}
		if v == 0 {
			c.mov(d, ori.Imm(-1), words)
			return nil
		}
		if !signed && v&(v-1) == 0 {
			if !rem {
				// A 16-bit dividend's upper bits are unspecified: the
				// shift would bring them down, so zero-extend it first.
				// (The remainder's mask clears them anyway.)
				a = c.intExt(a, width, false)
			}
			c.intDivPow2(d, a, bits.TrailingZeros64(v), words, rem)
			return nil
		}
	}
	if (width == 32 || width == 64) && !intIsImm(b) {
		// One IDIV for the optimizer to move, common and hoist as a whole;
		// Expand replaces it before register allocation.
		mods := []string{fmt.Sprintf("U%d", width)}
		if signed {
			mods[0] = fmt.Sprintf("S%d", width)
		}
		if rem {
			mods = append(mods, "REM")
		}
		c.emit(ori.OpIDIV, mods, []ori.Operand{ori.R(d)}, a, b)
		return nil
	}
	g, gn := c.guard, c.gNot
	c.guard, c.gNot = ori.PT, false
	var res ori.Reg
	var nz ori.Operand // b != 0 when checkZero (b is not an immediate)
	checkZero := !intIsImm(b)
	switch width {
	case 64:
		res = c.intDivMod64(a, b, signed, rem)
		if checkZero {
			o := c.intLop(word(b, 0), word(b, 1), intRZ, lutOr)
			nz = ori.R(c.intSetp("NE", true, o, intRZ))
		}
	default:
		ea, eb := c.intExt(a, width, signed), c.intExt(b, width, signed)
		res = c.intDivMod32(ea, eb, signed, rem)
		if checkZero {
			nz = ori.R(c.intSetp("NE", true, eb, intRZ))
		}
	}
	c.guard, c.gNot = g, gn
	for w := 0; w < words; w++ {
		if checkZero {
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(w))}, ori.R(res.Word(w)), ori.Imm(-1), nz)
		} else {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(w))}, ori.R(res.Word(w)))
		}
	}
	return nil
}

// intDivPow2 lowers unsigned division and remainder by 2^k: a shift
// right, or a mask.
func (c *fn) intDivPow2(d ori.Reg, a ori.Operand, k, words int, rem bool) {
	if rem {
		mask := uint64(1)<<uint(k) - 1
		for w := 0; w < words; w++ {
			m := uint32(mask >> (32 * uint(w)))
			c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(d.Word(w))}, word(a, w), intImm32(m), intRZ, ori.Imm(int64(lutAnd)), intNPT)
		}
		return
	}
	if k == 0 {
		c.mov(d, a, words)
		return
	}
	if words == 1 {
		c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(d)}, intRZ, ori.Imm(int64(k)), c.asReg(a))
		return
	}
	// Low word first: it reads both words of a; the high word reads only
	// a1, which the low write cannot have clobbered.
	c.emit(ori.OpSHF, []string{"R", "U64"}, []ori.Operand{ori.R(d.Word(0))}, word(a, 0), ori.Imm(int64(k)), word(a, 1))
	c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(d.Word(1))}, intRZ, ori.Imm(int64(k)), word(a, 1))
}

// ---------------------------------------------------------------------

// lowerIntArith lowers the integer forms of add sub mul mad div rem min
// max abs neg (dispatch.go routes the float forms to float.go).
func lowerIntArith(c *fn, in *ptx.Instr) error {
	switch in.Op {
	case "add", "sub":
		return lowerAddSub(c, in, in.Op == "sub")
	case "mul", "mad":
		return lowerMulMad(c, in, in.Op == "mad")
	case "div", "rem":
		return lowerDivRem(c, in, in.Op == "rem")
	case "min", "max":
		return lowerMinMax(c, in, in.Op == "max")
	case "abs":
		return lowerAbs(c, in)
	case "neg":
		return lowerNeg(c, in)
	}
	return c.l.unsupported(in.OpPos, "integer %s", in.Op)
}
