package lower

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// vshlUnsignedProxy handles the intermediate of vshl with an unsigned a
// (videoWide): ta << n, exact in T as an unsigned 64-bit value up to
// 2^64 - 2^32, which s64 comparisons cannot take. Every value it is
// compared with lies in [-2^31, 2^32): the saturation bounds and c
// extended by the destination type. So P = T when T < 2^32 and P = 2^32
// otherwise orders the same against all of them, and fits in s64.
//
// With .sat the clamped P is the clamped true value: T becomes P and
// videoWide carries on (done = false). Without .sat (.min or .max with
// c) the result is min(tmp, c) or max(tmp, c) modulo 2^32: the choice is
// made on P, but the value chosen is T's low word, which P does not keep
// when T >= 2^32 (vshl.u32.u32.u32.clamp.max d, 0xffffffff, 32, 0 is
// 0xffffffff << 32 = 0 mod 2^32); d is written here (done = true).
//
// Decision: this follows the manual (an unbounded ta << tb), as the
// signed vshl path of videoWide does. ptxas 13.0's sm_80 sequence differs
// on large shifts, for signed and unsigned sources alike: for .sat it
// keeps 34 bits of the 64-bit shift (LOP3 hi & 3, then sign-extends bit
// 33), so vshl.u32.u32.u32.sat.clamp of 0xffffffff by 32 is 0 there and
// 0xffffffff here; for .min/.max it compares the 64-bit shift as signed
// against c. Which of the two an sm_50-era VSHL computed is unmeasured;
// no hwtruth sweep covers video instructions yet.
func (c *fn) vshlUnsignedProxy(in *ptx.Instr, d, T ori.Reg, sat bool, op2 string, dSigned bool) (done bool, err error) {
	big := c.bitsCmp("NE", true, ori.R(T.Word(1)), bitsRZ())
	P := c.newReg(2)
	c.bitsSel(P.Word(0), bitsRZ(), ori.R(T.Word(0)), big)
	c.bitsSel(P.Word(1), bitsImm(1), bitsRZ(), big)
	if sat {
		c.mov(T, ori.R(P), 2)
		return false, nil
	}
	// Only .min and .max reach here without .sat (videoWide's callers).
	cv, err := c.src(in.Args[3], ".u32")
	if err != nil {
		return true, err
	}
	cr := c.bitsReg(word(cv, 0))
	C := c.newReg(2)
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(C.Word(0))}, cr)
	if dSigned {
		c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(C.Word(1))}, bitsRZ(), bitsImm(31), cr)
	} else {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(C.Word(1))}, bitsRZ())
	}
	lt := ori.R(c.intSetp64("LT", true, ori.R(P), ori.R(C)))
	if op2 == ".min" {
		c.bitsSel(d, ori.R(T.Word(0)), cr, lt)
	} else {
		c.bitsSel(d, cr, ori.R(T.Word(0)), lt)
	}
	return true, nil
}

func init() {
	register(lowerVmad, "vmad")
}

// lowerVmad lowers
//
//	vmad.dtype.atype.btype{.sat}{.shr7|.shr15}    d, {-}a{.asel}, {-}b{.bsel}, {-}c;
//	vmad.dtype.atype.btype.po{.sat}{.shr7|.shr15} d, a{.asel}, b{.bsel}, c;
//
// with the instruction sequence ptxas 13.0 emits for sm_80 and sm_90
// (there is no VMAD instruction since sm_70):
//
//	ta, tb = PRMT part-select and extend (as the other video ops)
//	T = IMAD.WIDE ta, tb, C        signed 32x32 -> 64 products, C = sext32(c)
//	  or ~(IMAD.WIDE ta, tb, RZ) + 1 + C for a negated product
//	  (~c instead of c, plus 1, for a negated c; plus 1 for .po)
//	.shrN: SHF.R.<S64|U64> of T (arithmetic when the result is signed)
//	.sat, signed result: T if it fits in s32, else 0x7fffffff or 0x80000000
//	      by T's sign
//	.sat, unsigned result: 0xffffffff when T's high word is positive, else
//	      T's low word
//	no .sat and no scale: IMAD d = ta, tb, c (the low word only).
//
// The result is signed when a type is .s32 or anything is negated (the
// manual's signedFinal); .dtype plays no part, in ptxas as in the manual.
//
// Decision: where the manual's pseudo-code (ptx-isa/vmad.md: a 128-bit
// intermediate, c zero-extended for an unsigned result, unsigned results
// clamped to [0, U32_MAX]) and ptxas's sequence disagree, orilab follows
// ptxas, which is what an H100 executes. They disagree only on full-word
// .u32 operands of 2^31 and above, which IMAD.WIDE reads as negative
// (vmad.u32.u32.u32.sat of 0xffffffff, 0xffffffff, 0 is 1 there and
// 0xffffffff in the manual), and on an unsigned c of 2^31 and above,
// which ptxas sign-extends. Part-selected operands and smaller values
// agree (TestVmad checks those against the manual, TestVmadFullWordUnsigned
// the others against ptxas).
func lowerVmad(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 4 {
		return c.l.errorf(in.OpPos, "vmad needs 4 operands")
	}
	ts := types(in)
	if len(ts) != 3 {
		return c.l.errorf(in.OpPos, "vmad has the wrong number of type modifiers")
	}
	for _, t := range ts {
		if t != ".u32" && t != ".s32" {
			return c.l.errorf(in.OpPos, "vmad types must be .u32 or .s32")
		}
	}
	aSigned, bSigned := isSigned(ts[1]), isSigned(ts[2])
	sat, po := in.HasMod(".sat"), in.HasMod(".po")
	shift := int64(0)
	switch {
	case in.HasMod(".shr7"):
		shift = 7
	case in.HasMod(".shr15"):
		shift = 15
	}
	a, b, cc := *in.Args[1], *in.Args[2], *in.Args[3]
	negP, negC := a.Neg != b.Neg, cc.Neg
	if po && (a.Neg || b.Neg || negC) {
		return c.l.errorf(in.OpPos, "vmad.po takes no negated operands")
	}
	a.Neg, b.Neg, cc.Neg = false, false, false
	signed := aSigned || bSigned || negP || negC
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	ta, err := c.bitsVideoSrc(&a, aSigned)
	if err != nil {
		return err
	}
	tb, err := c.bitsVideoSrc(&b, bSigned)
	if err != nil {
		return err
	}
	cv, err := c.src(&cc, ".u32")
	if err != nil {
		return err
	}
	cr := c.bitsReg(word(cv, 0))
	if !sat && shift == 0 {
		// Only the low word of the sum is needed: it is the same modulo
		// 2^32 for any reading of the operands.
		switch {
		case negP:
			p := c.newReg(1)
			c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(p)}, ta, tb, bitsRZ())
			np := ori.R(p)
			np.Neg = true
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d)}, cr, np, bitsRZ())
		case negC:
			p := c.newReg(1)
			c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(p)}, ta, tb, bitsRZ())
			nc := cr
			nc.Neg = true
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d)}, ori.R(p), nc, bitsRZ())
		default:
			c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(d)}, ta, tb, cr)
			if po {
				c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d)}, ori.R(d), bitsImm(1), bitsRZ())
			}
		}
		return nil
	}
	C := c.newReg(2)
	if negC {
		c.lop3(C.Word(0), func(_, y, _ bool) bool { return !y }, bitsRZ(), cr, bitsRZ())
	} else {
		c.mov(C.Word(0), cr, 1)
	}
	c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(C.Word(1))}, bitsRZ(), bitsImm(31), ori.R(C.Word(0)))
	T := c.newReg(2)
	if negP {
		P := c.newReg(2)
		c.emit(ori.OpIMAD, []string{"WIDE"}, []ori.Operand{ori.R(P)}, ta, tb, bitsRZ())
		nlo, nhi := c.newReg(1), c.newReg(1)
		not := func(_, y, _ bool) bool { return !y }
		c.lop3(nlo, not, bitsRZ(), ori.R(P.Word(0)), bitsRZ())
		c.lop3(nhi, not, bitsRZ(), ori.R(P.Word(1)), bitsRZ())
		p0, p1 := c.newPred(), c.newPred()
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(T.Word(0)), ori.R(p0), ori.R(p1)}, ori.R(nlo), bitsImm(1), ori.R(C.Word(0)))
		c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(T.Word(1))}, ori.R(nhi), bitsRZ(), ori.R(C.Word(1)), ori.R(p0), ori.R(p1))
	} else {
		c.emit(ori.OpIMAD, []string{"WIDE"}, []ori.Operand{ori.R(T)}, ta, tb, ori.R(C))
		if negC || po {
			p := c.newPred()
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(T.Word(0)), ori.R(p)}, ori.R(T.Word(0)), bitsImm(1), bitsRZ())
			c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(T.Word(1))}, ori.R(T.Word(1)), bitsRZ(), bitsRZ(), ori.R(p), bitsNotPT)
		}
	}
	if shift != 0 {
		S := c.newReg(2)
		k64, k32 := "U64", "U32"
		if signed {
			k64, k32 = "S64", "S32"
		}
		c.emit(ori.OpSHF, []string{"R", k64}, []ori.Operand{ori.R(S.Word(0))}, ori.R(T.Word(0)), bitsImm(uint32(shift)), ori.R(T.Word(1)))
		c.emit(ori.OpSHF, []string{"R", k32, "HI"}, []ori.Operand{ori.R(S.Word(1))}, bitsRZ(), bitsImm(uint32(shift)), ori.R(T.Word(1)))
		T = S
	}
	if !sat {
		c.mov(d, ori.R(T.Word(0)), 1)
		return nil
	}
	lo, hi := ori.R(T.Word(0)), ori.R(T.Word(1))
	if signed {
		// fits: hi is the sign extension of lo.
		sx := c.newReg(1)
		c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(sx)}, bitsRZ(), bitsImm(31), lo)
		fits := c.bitsCmp("EQ", true, ori.R(sx), hi)
		neg := c.bitsCmp("LT", false, hi, bitsRZ())
		bound := c.newReg(1)
		c.bitsSel(bound, bitsImm(0x80000000), bitsImm(0x7fffffff), neg)
		c.bitsSel(d, lo, ori.R(bound), fits)
		return nil
	}
	over := c.bitsCmp("GT", false, hi, bitsRZ())
	c.bitsSel(d, bitsImm(0xffffffff), lo, over)
	return nil
}
