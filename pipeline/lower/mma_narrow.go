package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// The narrow mma.sync forms: 4-bit integers (.s4/.u4), single bits (.b1
// with .xor.popc or .and.popc) and 8-bit floats (.e4m3/.e5m2, sm_89 and
// later). Their fragments are packed .b32 registers in the same per-lane
// layouts as the 8-bit forms with 8 (s4/u4) or 32 (b1) elements to a
// register (pipeline/sim/exec_mma.go).
//
// What ptxas 13.0 emits depends on the target, and orilab follows it:
//
//	form                      sm_80, sm_89                 sm_90
//	m8n8k32 s4/u4             IMMA.8832.<S4|U4>.<S4|U4>    2x IMMA.8816.<S8|U8>..
//	m16n8k32 s4/u4            IMMA.16832.<S4|U4>..         2x IMMA.16816..
//	m16n8k64 s4/u4            IMMA.16864.<S4|U4>..         2x IMMA.16832..
//	m8n8k128 b1 .and.popc     BMMA.88128.AND.POPC          the same
//	m8n8k128 b1 .xor.popc     BMMA.88128.XOR.POPC          2x BMMA...AND.POPC
//	m16n8k128, m16n8k256 b1   BMMA.168128, BMMA.168256     (as above)
//	m16n8k32 e4m3/e5m2        QMMA.16832.<F32|F16>.A.B     2x HMMA.16816 + FADD/HADD2
//	m16n8k16 e4m3/e5m2        QMMA.16816..  (sm_89 only)   2x HMMA.1688 + FADD/HADD2
//
// The H100 has no 4-bit, XOR or fp8 tensor-core path, so ptxas splits
// the product in two halves of k whose sum is the whole:
//
//   - s4/u4: the even nibbles of each register (x & 0x0f0f0f0f) and the
//     odd ones ((x & 0xf0f0f0f0) >> 4) are the bytes of an 8-bit fragment
//     of half the depth. Nibble 2j of A's register r sits at the column
//     that byte j of an s8 fragment's register r holds, under the same
//     map of columns for A and rows for B, so the two IMMAs multiply
//     matching elements. .s4 nibbles are sign-extended to bytes.
//     Without .satfinite D = C + P1 + P2 (IADD3; the partial products
//     cannot overflow); with it the sum is clamped.
//   - b1 xor: popc(a ^ b) = popc(a & ~b) + popc(~a & b), two AND.POPC
//     BMMAs on complemented operands, added to C with IADD3.
//   - fp8: each byte pair unpacks exactly to an f16 pair (F2FP.F16.
//     <E4M3|E5M2>.UNPACK_B); the low byte pairs of A and B feed one HMMA
//     from zero, the high pairs a second HMMA accumulating onto the
//     first, and C is added last with FADD (f32) or HADD2 (f16), each
//     step rounded as that instruction rounds.
//
// Decision: ptxas 13.0 puts each sm_90 emulation in a subroutine that it
// CALLs; orilab emits the sequence inline (the same instructions, no call
// overhead, and no ABI for a register tuple of 8 words). Its s4 sign
// extension takes two instructions a word (m = x & 0x08080808; x + 30*m,
// which sets bits 4-7 of every negative byte without carries) where ptxas
// spends about ten; its saturating add uses IMNMX where ptxas uses PLOP3
// on sign bits, which the IR does not have. ptxas reads the high byte
// pair of an fp8 register with a .H1 operand selector, which Ori has no
// operand form for; orilab moves it down with a PRMT first.

// narrowShape is one narrow mma form: the SASS shape and the words per
// lane of A, B and C/D, plus the shape of half the depth that the sm_90
// emulation uses.
type narrowShape struct {
	sass     string // SASS shape of the native instruction
	half     string // SASS shape of the emulation's half-depth instruction
	a, b, cd int
}

// narrowShapes maps "shape.atype-class" to the native and half shapes.
var narrowShapes = map[string]narrowShape{
	".m8n8k32.4":    {"8832", "8816", 1, 1, 2},
	".m16n8k32.4":   {"16832", "16816", 2, 1, 4},
	".m16n8k64.4":   {"16864", "16832", 4, 2, 4},
	".m8n8k128.1":   {"88128", "88128", 1, 1, 2},
	".m16n8k128.1":  {"168128", "168128", 2, 1, 4},
	".m16n8k256.1":  {"168256", "168256", 4, 2, 4},
	".m16n8k32.fp8": {"16832", "16816", 4, 2, 4},
	".m16n8k16.fp8": {"16816", "1688", 2, 1, 4},
}

// isNarrowMMAType reports whether t is an A/B type of the narrow forms.
func isNarrowMMAType(t string) bool {
	switch t {
	case ".s4", ".u4", ".b1", ".e4m3", ".e5m2":
		return true
	}
	return false
}

// lowerMmaNarrow lowers the narrow forms; ts holds .dtype .atype .btype
// .ctype, bitOp is ".xor", ".and" or "" and sat tells .satfinite.
func lowerMmaNarrow(c *fn, in *ptx.Instr, shape string, ts []string, sat bool, bitOp string) error {
	bad := func() error { return c.l.unsupported(in.OpPos, "mma%s", strings.Join(in.Mods, "")) }
	class := ""
	switch ts[1] {
	case ".s4", ".u4":
		class = "4"
		if ts[2] != ".s4" && ts[2] != ".u4" || ts[0] != ".s32" || ts[3] != ".s32" || bitOp != "" {
			return bad()
		}
	case ".b1":
		class = "1"
		if ts[2] != ".b1" || ts[0] != ".s32" || ts[3] != ".s32" || bitOp == "" || sat {
			return bad()
		}
	case ".e4m3", ".e5m2":
		class = "fp8"
		if ts[2] != ".e4m3" && ts[2] != ".e5m2" || ts[0] != ts[3] || ts[0] != ".f32" && ts[0] != ".f16" || sat || bitOp != "" {
			return bad()
		}
	}
	s, ok := narrowShapes[shape+"."+class]
	if !ok {
		return bad()
	}
	arch := c.l.out.Arch
	if class == "fp8" && arch < 89 {
		return c.l.errorf(in.OpPos, "mma with an fp8 type (%s) requires sm_89 or later", ts[1])
	}
	if len(in.Args) != 4 {
		return c.l.errorf(in.OpPos, "mma takes four operands d, a, b, c")
	}
	cd := s.cd
	if ts[0] == ".f16" {
		cd = 2
	}
	frag := func(o *ptx.Operand, words int) (ori.Reg, error) {
		r := c.newReg(words)
		elems := []*ptx.Operand{o}
		if o.Kind == ptx.OpVec {
			elems = o.Elems
		}
		if len(elems) != words {
			return r, c.l.errorf(o.Pos, "this mma operand needs %d registers, found %d", words, len(elems))
		}
		for i, e := range elems {
			v, err := c.src(e, ".b32")
			if err != nil {
				return r, err
			}
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(i))}, word(v, 0))
		}
		return r, nil
	}
	a, err := frag(in.Args[1], s.a)
	if err != nil {
		return err
	}
	b, err := frag(in.Args[2], s.b)
	if err != nil {
		return err
	}
	cr, err := frag(in.Args[3], cd)
	if err != nil {
		return err
	}
	dsts, err := c.destRegs(in.Args[0], ".b32", cd)
	if err != nil {
		return err
	}
	d := c.newReg(cd)
	up := func(t string) string { return strings.ToUpper(t[1:]) }
	switch {
	case class == "4" && arch < 90:
		mods := []string{s.sass, up(ts[1]), up(ts[2])}
		if sat {
			mods = append(mods, "SAT")
		}
		c.emit(ori.OpIMMA, mods, []ori.Operand{ori.R(d)}, ori.R(a), ori.R(b), ori.R(cr))
	case class == "4":
		c.mmaNibbles(s, ts, sat, a, b, cr, d)
	case class == "1" && (bitOp == ".and" || arch < 90):
		c.emit(ori.OpBMMA, []string{s.sass, up(bitOp), "POPC"}, []ori.Operand{ori.R(d)}, ori.R(a), ori.R(b), ori.R(cr))
	case class == "1":
		c.mmaXorByAnd(s, a, b, cr, d)
	case class == "fp8" && arch < 90:
		c.emit(ori.OpQMMA, []string{s.sass, up(ts[0]), up(ts[1]), up(ts[2])}, []ori.Operand{ori.R(d)}, ori.R(a), ori.R(b), ori.R(cr))
	default:
		c.mmaFP8ByHalves(s, ts, a, b, cr, d)
	}
	for i, r := range dsts {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.R(d.Word(i)))
	}
	return nil
}

// lop3 emits d = f(a, b, cc) bitwise.
func (c *fn) lop3(d ori.Reg, f func(a, b, cc bool) bool, a, b, cc ori.Operand) {
	c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(d)}, a, b, cc, ori.Imm(int64(lut3(f))), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
}

func and2(a, b, _ bool) bool { return a && b }

// mmaNibbles is the sm_90 s4/u4 mma: two 8-bit IMMAs over the even and
// the odd nibbles, summed with C (see the top of the file).
func (c *fn) mmaNibbles(s narrowShape, ts []string, sat bool, a, b, cr, d ori.Reg) {
	// split returns the even- and odd-nibble fragments of x as bytes,
	// sign-extended for .s4.
	split := func(x ori.Reg, t string) (lo, hi ori.Reg) {
		lo, hi = c.newReg(int(x.Words)), c.newReg(int(x.Words))
		for i := 0; i < int(x.Words); i++ {
			c.lop3(lo.Word(i), and2, ori.R(x.Word(i)), ori.Imm(0x0f0f0f0f), ori.R(ori.RZ))
			t0 := c.newReg(1)
			c.lop3(t0, and2, ori.R(x.Word(i)), ori.Imm(0xf0f0f0f0), ori.R(ori.RZ))
			c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(hi.Word(i))}, ori.R(ori.RZ), ori.Imm(4), ori.R(t0))
			if t == ".s4" {
				for _, h := range []ori.Reg{lo.Word(i), hi.Word(i)} {
					m := c.newReg(1)
					c.lop3(m, and2, ori.R(h), ori.Imm(0x08080808), ori.R(ori.RZ))
					c.emit(ori.OpIMAD, nil, []ori.Operand{ori.R(h)}, ori.R(m), ori.Imm(0x1e), ori.R(h))
				}
			}
		}
		return lo, hi
	}
	alo, ahi := split(a, ts[1])
	blo, bhi := split(b, ts[2])
	ab := func(t string) string { return map[string]string{".s4": "S8", ".u4": "U8"}[t] }
	mods := []string{s.half, ab(ts[1]), ab(ts[2])}
	p1, p2 := c.newReg(s.cd), c.newReg(s.cd)
	c.emit(ori.OpIMMA, mods, []ori.Operand{ori.R(p1)}, ori.R(alo), ori.R(blo), ori.R(ori.RZ))
	c.emit(ori.OpIMMA, mods, []ori.Operand{ori.R(p2)}, ori.R(ahi), ori.R(bhi), ori.R(ori.RZ))
	for i := 0; i < s.cd; i++ {
		if !sat {
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(i))}, ori.R(cr.Word(i)), ori.R(p1.Word(i)), ori.R(p2.Word(i)))
			continue
		}
		// p = p1 + p2 is small (at most 64 products of 15*15). C + p
		// saturates exactly when C lies outside [MIN - min(p,0),
		// MAX - max(p,0)], bounds that do not overflow; clamping C to
		// them first makes the sum the saturated one.
		p := c.newReg(1)
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(p)}, ori.R(p1.Word(i)), ori.R(p2.Word(i)), ori.R(ori.RZ))
		pos, neg := c.newReg(1), c.newReg(1)
		notPT := ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true}
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(pos)}, ori.R(p), ori.R(ori.RZ), notPT)
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(neg)}, ori.R(p), ori.R(ori.RZ), ori.R(ori.PT))
		hi, lo := c.newReg(1), c.newReg(1)
		negPos, negNeg := ori.R(pos), ori.R(neg)
		negPos.Neg, negNeg.Neg = true, true
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(hi)}, negPos, ori.Imm(0x7fffffff), ori.R(ori.RZ))
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(lo)}, negNeg, ori.Imm(-0x80000000), ori.R(ori.RZ))
		t := c.newReg(1)
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(t)}, ori.R(cr.Word(i)), ori.R(lo), notPT)
		c.emit(ori.OpIMNMX, nil, []ori.Operand{ori.R(t)}, ori.R(t), ori.R(hi), ori.R(ori.PT))
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(i))}, ori.R(t), ori.R(p), ori.R(ori.RZ))
	}
}

// mmaXorByAnd is the sm_90 .xor.popc mma: popc(a & ~b) + popc(~a & b)
// + c, as ptxas 13.0 computes it there.
func (c *fn) mmaXorByAnd(s narrowShape, a, b, cr, d ori.Reg) {
	not := func(x ori.Reg) ori.Reg {
		n := c.newReg(int(x.Words))
		for i := 0; i < int(x.Words); i++ {
			c.lop3(n.Word(i), func(_, b, _ bool) bool { return !b }, ori.R(ori.RZ), ori.R(x.Word(i)), ori.R(ori.RZ))
		}
		return n
	}
	na, nb := not(a), not(b)
	p1, p2 := c.newReg(s.cd), c.newReg(s.cd)
	mods := []string{s.sass, "AND", "POPC"}
	c.emit(ori.OpBMMA, mods, []ori.Operand{ori.R(p1)}, ori.R(a), ori.R(nb), ori.R(ori.RZ))
	c.emit(ori.OpBMMA, mods, []ori.Operand{ori.R(p2)}, ori.R(na), ori.R(b), ori.R(ori.RZ))
	for i := 0; i < s.cd; i++ {
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(i))}, ori.R(cr.Word(i)), ori.R(p1.Word(i)), ori.R(p2.Word(i)))
	}
}

// mmaFP8ByHalves is the sm_90 e4m3/e5m2 mma: the low byte pairs unpacked
// to f16 through one HMMA from zero, the high pairs through a second HMMA
// accumulating onto it, then C added with FADD or HADD2.
func (c *fn) mmaFP8ByHalves(s narrowShape, ts []string, a, b, cr, d ori.Reg) {
	unpack := func(x ori.Reg, t string) (lo, hi ori.Reg) {
		lo, hi = c.newReg(int(x.Words)), c.newReg(int(x.Words))
		mods := []string{"F16", strings.ToUpper(t[1:]), "UNPACK_B"}
		for i := 0; i < int(x.Words); i++ {
			c.emit(ori.OpF2FP, mods, []ori.Operand{ori.R(lo.Word(i))}, ori.R(ori.RZ), ori.R(x.Word(i)))
			h := c.newReg(1)
			c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(h)}, ori.R(x.Word(i)), ori.Imm(0x5432), ori.R(ori.RZ))
			c.emit(ori.OpF2FP, mods, []ori.Operand{ori.R(hi.Word(i))}, ori.R(ori.RZ), ori.R(h))
		}
		return lo, hi
	}
	alo, ahi := unpack(a, ts[1])
	blo, bhi := unpack(b, ts[2])
	acc := strings.ToUpper(ts[0][1:])
	words := int(d.Words)
	p1, p2 := c.newReg(words), c.newReg(words)
	c.emit(ori.OpHMMA, []string{s.half, acc}, []ori.Operand{ori.R(p1)}, ori.R(alo), ori.R(blo), ori.R(ori.RZ))
	c.emit(ori.OpHMMA, []string{s.half, acc}, []ori.Operand{ori.R(p2)}, ori.R(ahi), ori.R(bhi), ori.R(p1))
	for i := 0; i < words; i++ {
		if ts[0] == ".f16" {
			c.emit(ori.OpHADD2, nil, []ori.Operand{ori.R(d.Word(i))}, ori.R(p2.Word(i)), ori.R(cr.Word(i)))
		} else {
			c.emit(ori.OpFADD, nil, []ori.Operand{ori.R(d.Word(i))}, ori.R(cr.Word(i)), ori.R(p2.Word(i)))
		}
	}
}
