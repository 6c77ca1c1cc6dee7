// Bit operations: the PTX logic, shift, bit-field, permute, bit-count and
// integer dot-product instructions, fns, and the scalar video shift and
// arithmetic forms.
//
// Mapping (32-bit word ops; 64-bit values are handled per word or with SHF
// pairs, 8/16-bit registers are extended first wherever their unspecified
// upper bits could leak into the result):
//
//	and/or/xor/not .b16/.b32/.b64  LOP3.LUT per word
//	and/or/xor/not .pred           PLOP3.LUT (sources may be !p)
//	cnot                           LOP3.LUT with a predicate result + SEL
//	lop3[.or|.and]                 LOP3.LUT (immLut passed through) [+ PLOP3]
//	shl, shr                       SHF.L.U32 / SHF.R.{U32,S32}.HI; 64-bit: SHF pairs
//	shf.{l,r}.{clamp,wrap}         SHF.L[.W].U32.HI / SHF.R[.W].U32
//	bfe                            SHF.R (clamped) + SGXT; 64-bit adds a few selects
//	bfi                            BMSK + SHF.L + LOP3; 64-bit: shifted 64-bit mask
//	prmt[.mode]                    PRMT[.F4E|.B4E|.RC8|.ECL|.ECR|.RC16]
//	popc, clz, brev, bfind         POPC, FLO.U32 + IADD3, BREV, FLO.{U32,S32}[.SH]
//	bmsk.{clamp,wrap}              BMSK / BMSK.W
//	szext.{clamp,wrap}             SGXT[.U32] (wrap masks the width first)
//	dp4a, dp2a                     IDP.4A.<a>.<b>, IDP.2A.<LO|HI>.<a>.<b>
//	fns                            a branch-free popcount binary search
//	vshl, vshr, vadd, vsub, vabsdiff, vmin, vmax, vset
//	                               the exact subsets listed at lowerVideo
//
// Semantics: readings of SEMANTICS.md this file relies on, and the
// modifiers it adds. Shift amounts, positions and widths are unsigned
// 32-bit values everywhere.
//
//   - SHF.<L|R>.<U32|S32|U64|S64>[.W][.HI] d = lo, n, hi: v = hi:lo (64
//     bits; for .S32/.S64 the value is signed), n' = n & 31 with .W, else
//     min(n, 32) for .U32/.S32 and min(n, 64) for .U64/.S64. .L computes
//     v << n', .R computes v >> n' (arithmetic for S32/S64). Without .HI
//     d is the LOW word of the shifted 64-bit value, with .HI the HIGH
//     word. This is the real SASS behaviour (SHF.L.U32 d = a, n, RZ is
//     a << n; SHF.L.W.U32.HI is the funnel shift left; SHF.R.U32.HI d =
//     RZ, n, a is a >> n) and what mem.go already relies on; SEMANTICS.md's
//     sentence ".L: d = high word" describes SHF.L.HI. .W is written next
//     to the type (SHF.L.W.U32.HI), as nvdisasm prints it.
//   - BMSK d = pos, width: without .W, W = min(width, 32) and d =
//     (((1 << W) - 1) << pos) mod 2^32, which is 0 when pos >= 32 (the
//     PTX bmsk.clamp rule); with .W, W = width & 31, P = pos & 31 and d =
//     (((1 << W) - 1) << P) mod 2^32 (bmsk.wrap).
//   - SGXT[.U32] d = a, n: N = min(n, 32); N = 0 gives 0, N = 32 gives a,
//     otherwise the low N bits of a sign- (zero- with .U32) extended.
//   - FLO.<U32|S32>.SH gives 31 - index, and 0xffffffff (not 32) when no
//     bit is found, like FLO without .SH (PTX bfind.shiftamt).
//   - LOP3.LUT d, p = ...: p = (d != 0); d may be RZ when only p is wanted.
//   - PRMT.<mode> d = a, c, b uses only c & 3 and picks result bytes
//     (b3 b2 b1 b0) from the bytes 7..0 of b:a as PTX prmt does:
//     F4E: 0→3210 1→4321 2→5432 3→6543; B4E: 0→5670 1→6701 2→7012
//     3→0123; RC8: n→nnnn; ECL: 0→3210 1→3211 2→3222 3→3333; ECR:
//     0→0000 1→1110 2→2210 3→3210; RC16: 0,2→1010 1,3→3232. No sign
//     replication in the mode forms.
//   - IDP.4A.<A>.<B> d = a, b, c (A, B in S8/U8): d = c + sum over
//     i = 0..3 of ext_A(byte i of a) * ext_B(byte i of b), mod 2^32.
//   - IDP.2A.<LO|HI>.<A>.<B> d = a, b, c (A in S16/U16, B in S8/U8): d =
//     c + sum over i = 0..1 of ext_A(half i of a) * ext_B(byte j+i of b),
//     j = 0 for LO and 2 for HI, mod 2^32.
package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerBitLogic, "and", "or", "xor")
	register(lowerBitNot, "not")
	register(lowerCnot, "cnot")
	register(lowerLop3, "lop3")
	register(lowerShift, "shl", "shr")
	register(lowerShf, "shf")
	register(lowerBfe, "bfe")
	register(lowerBfi, "bfi")
	register(lowerPrmt, "prmt")
	register(lowerPopc, "popc")
	register(lowerClz, "clz")
	register(lowerBrev, "brev")
	register(lowerBfind, "bfind")
	register(lowerBmsk, "bmsk")
	register(lowerSzext, "szext")
	register(lowerDot, "dp4a", "dp2a")
	register(lowerFns, "fns")
	register(lowerVideo, "vshl", "vshr", "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vset")
}

// ---------------------------------------------------------------- helpers

// bitsNotPT is !PT, the ignored last source of LOP3.
var bitsNotPT = ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true}

func bitsRZ() ori.Operand { return ori.R(ori.RZ) }

func bitsIsReg(o ori.Operand) bool { return o.Kind == ori.OpdReg }

func bitsIsImm(o ori.Operand) bool { return o.Kind == ori.OpdImm }

// bitsImm returns a 32-bit immediate holding v.
func bitsImm(v uint32) ori.Operand { return ori.Imm(int64(v)) }

// bitsImmVal returns the low 32 bits of an immediate.
func bitsImmVal(o ori.Operand) uint32 { return uint32(o.Imm) }

func (c *fn) bitsArgs(in *ptx.Instr, n int) error {
	if len(in.Args) != n {
		return c.l.errorf(in.OpPos, "%s needs %d operands", in.Op, n)
	}
	return nil
}

// bitsLop emits LOP3.LUT d[, p] = a, b, cc computing f bitwise. SASS
// encodes an immediate or constant only in the b slot, so a lone
// non-register operand is moved there by permuting the truth table, and
// any other is copied into a register.
func (c *fn) bitsLop(d ori.Reg, p *ori.Reg, a, b, cc ori.Operand, f func(x, y, z bool) bool) {
	if !bitsIsReg(a) && bitsIsReg(b) {
		a, b = b, a
		g := f
		f = func(x, y, z bool) bool { return g(y, x, z) }
	} else if !bitsIsReg(cc) && bitsIsReg(b) {
		b, cc = cc, b
		g := f
		f = func(x, y, z bool) bool { return g(x, z, y) }
	}
	a, cc = c.bitsReg(a), c.bitsReg(cc)
	dsts := []ori.Operand{ori.R(d)}
	if p != nil {
		dsts = append(dsts, ori.R(*p))
	}
	c.emit(ori.OpLOP3, []string{"LUT"}, dsts, a, b, cc, ori.Imm(int64(lut3(f))), bitsNotPT)
}

// bitsReg returns o as a register operand: RZ for a zero immediate,
// otherwise o itself or a copy of it in a fresh register.
func (c *fn) bitsReg(o ori.Operand) ori.Operand {
	if bitsIsImm(o) && uint32(o.Imm) == 0 {
		return bitsRZ()
	}
	return c.asReg(o)
}

// bitsAnd returns a fresh register holding a & b.
func (c *fn) bitsAnd(a, b ori.Operand) ori.Operand {
	t := c.newReg(1)
	c.bitsLop(t, nil, a, b, bitsRZ(), func(x, y, _ bool) bool { return x && y })
	return ori.R(t)
}

// bitsSel emits SEL d = x, y, p (p ? x : y), keeping the a slot a
// register by swapping the values and inverting p when needed.
func (c *fn) bitsSel(d ori.Reg, x, y, p ori.Operand) {
	if !bitsIsReg(x) && bitsIsReg(y) {
		x, y = y, x
		p.Not = !p.Not
	}
	c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d)}, c.bitsReg(x), y, p)
}

// bitsSetp returns a fresh predicate holding a <cmp> b (signed unless
// unsigned), optionally combined with acc by bool ("AND"/"OR").
func (c *fn) bitsSetp(cmp string, unsigned bool, a, b ori.Operand, bool_ string, acc ori.Operand) ori.Operand {
	p := c.newPred()
	mods := []string{cmp}
	if unsigned {
		mods = append(mods, "U32")
	}
	mods = append(mods, bool_)
	c.emit(ori.OpISETP, mods, []ori.Operand{ori.R(p), ori.R(ori.PT)}, c.bitsReg(a), b, acc)
	return ori.R(p)
}

// bitsCmp is bitsSetp without a combining predicate.
func (c *fn) bitsCmp(cmp string, unsigned bool, a, b ori.Operand) ori.Operand {
	return c.bitsSetp(cmp, unsigned, a, b, "AND", ori.R(ori.PT))
}

// bitsAmount returns a source the ISA types .u32 (shift amounts, bit
// positions and lengths): a 32-bit immediate, or a register. A register
// declared narrower than 32 bits is zero-extended (its upper bits are
// unspecified); a 64-bit register contributes its low word.
func (c *fn) bitsAmount(o *ptx.Operand) (ori.Operand, error) {
	if o.Kind == ptx.OpInt {
		v, _ := o.Int()
		return bitsImm(uint32(v)), nil
	}
	src, err := c.src(o, ".u32")
	if err != nil {
		return src, err
	}
	if src.Kind != ori.OpdReg {
		return word(src, 0), nil
	}
	if src.Reg.Class.IsPred() {
		return src, c.l.errorf(o.Pos, "%s is a predicate, not an integer", o.Name)
	}
	if o.Kind == ptx.OpName {
		if r := c.lookupReg(o.Name); r != nil && !r.pred {
			if n := typeBits(r.typ); n < 32 {
				src.Reg = src.Reg.Word(0)
				return c.bitsAnd(src, bitsImm(uint32(1)<<uint(n)-1)), nil
			}
		}
	}
	src.Reg = src.Reg.Word(0)
	return src, nil
}

// bitsClampImm clamps an immediate shift amount to max (the SHF clamp
// would do the same; folding keeps the immediate small and readable).
func bitsClampImm(o ori.Operand, max uint32) ori.Operand {
	if bitsIsImm(o) && bitsImmVal(o) > max {
		return bitsImm(max)
	}
	return o
}

// bitsByte returns o & 0xff (bfe/bfi take positions and lengths mod 256).
func (c *fn) bitsByte(o ori.Operand) ori.Operand {
	if bitsIsImm(o) {
		return bitsImm(bitsImmVal(o) & 0xff)
	}
	return c.bitsAnd(o, bitsImm(0xff))
}

// bitsByte64 is the position or length of bfe and bfi on 64-bit values:
// min(o, 255) as an unsigned number, which for these forms means the same
// as the whole 32-bit o.
//
// Decision: the whole register, not o & 0xff as the PTX manual says.
// ptxas 13.0 compiles bfe.u64, bfe.s64 and bfi.b64 with the full 32-bit
// position and length in 64-bit shifts (SHF.L.U64.HI/SHF.R.U64 of 1 and of
// the value, which shift everything out from 64 on), and the H100 agrees:
// bfi.b64 with position 0xe8ca9519 and length 0x378118eb left b as it was
// (fuzz5550436), where the low bytes 0x19 and 0xeb would have inserted 39
// bits. The 32-bit forms take the low byte (PRMT of the two bytes), as
// bitsByte does.
func (c *fn) bitsByte64(o ori.Operand) ori.Operand {
	if bitsIsImm(o) {
		return bitsImm(min(bitsImmVal(o), 255))
	}
	m := c.newReg(1)
	c.emit(ori.OpIMNMX, []string{"U32"}, []ori.Operand{ori.R(m)}, o, bitsImm(255), ori.R(ori.PT))
	return ori.R(m)
}

// bitsHiLen returns max(l, 32) - 32 for a length l in 0..255: how many of
// the field's bits fall in the high word of a 64-bit value.
func (c *fn) bitsHiLen(l ori.Operand) ori.Operand {
	if bitsIsImm(l) {
		v := bitsImmVal(l)
		if v < 32 {
			return bitsImm(0)
		}
		return bitsImm(v - 32)
	}
	m := c.newReg(1)
	c.emit(ori.OpIMNMX, []string{"U32"}, []ori.Operand{ori.R(m)}, l, bitsImm(32), bitsNotPT)
	r := c.newReg(1)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r)}, ori.R(m), ori.Imm(-32), bitsRZ())
	return ori.R(r)
}

// bitsExt returns a 32-bit register holding the low bits of a (a register
// of a bits-wide type, bits < 32) zero- or sign-extended.
func (c *fn) bitsExt(a ori.Operand, bits int, signed bool) ori.Operand {
	if bits >= 32 {
		return c.bitsReg(word(a, 0))
	}
	if signed {
		t := c.newReg(1)
		c.emit(ori.OpSGXT, nil, []ori.Operand{ori.R(t)}, c.bitsReg(word(a, 0)), bitsImm(uint32(bits)))
		return ori.R(t)
	}
	return c.bitsAnd(word(a, 0), bitsImm(uint32(1)<<uint(bits)-1))
}

// bitsSgxt emits SGXT[.U32] d = x, n, or a MOV when the constant width
// makes it a copy (n >= 32) or zero (n = 0).
func (c *fn) bitsSgxt(d ori.Reg, x, n ori.Operand, signed bool) {
	if bitsIsImm(n) && (bitsImmVal(n) >= 32 || bitsImmVal(n) == 0) {
		v := x
		if bitsImmVal(n) == 0 {
			v = bitsRZ()
		}
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, v)
		return
	}
	var mods []string
	if !signed {
		mods = []string{"U32"}
	}
	c.emit(ori.OpSGXT, mods, []ori.Operand{ori.R(d)}, x, n)
}

// bitsPredSrc returns a predicate source: a predicate register (possibly
// negated with !), or an integer literal as PT / !PT.
func (c *fn) bitsPredSrc(o *ptx.Operand) (ori.Operand, error) {
	if o.Kind == ptx.OpInt {
		v, _ := o.Int()
		p := ori.R(ori.PT)
		p.Not = v == 0
		return p, nil
	}
	if o.Kind == ptx.OpName {
		if r, _, ok := c.reg(o); ok && r.pred {
			p := ori.R(r.reg)
			p.Not = o.Not
			return p, nil
		}
	}
	return ori.Operand{}, c.l.errorf(o.Pos, "%s is not a predicate", describe(o))
}

// bitsPlop emits PLOP3.LUT d = f(a, b).
func (c *fn) bitsPlop(d ori.Reg, a, b ori.Operand, f func(x, y bool) bool) {
	lut := lut3(func(x, y, _ bool) bool { return f(x, y) })
	c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(d), ori.R(ori.PT)}, a, b, ori.R(ori.PT), ori.Imm(int64(lut)), ori.Imm(0))
}

// ------------------------------------------------------------------ logic

func lowerBitLogic(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 3); err != nil {
		return err
	}
	var f func(x, y bool) bool
	switch in.Op {
	case "and":
		f = func(x, y bool) bool { return x && y }
	case "or":
		f = func(x, y bool) bool { return x || y }
	default:
		f = func(x, y bool) bool { return x != y }
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	if t == ".pred" {
		a, err := c.bitsPredSrc(in.Args[1])
		if err != nil {
			return err
		}
		b, err := c.bitsPredSrc(in.Args[2])
		if err != nil {
			return err
		}
		c.bitsPlop(d, a, b, f)
		return nil
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	b, err := c.src(in.Args[2], t)
	if err != nil {
		return err
	}
	// Word w of the result reads only word w of the sources, so the
	// result may alias them.
	for w := 0; w < wordsOf(t); w++ {
		c.bitsLop(d.Word(w), nil, word(a, w), word(b, w), bitsRZ(), func(x, y, _ bool) bool { return f(x, y) })
	}
	return nil
}

func lowerBitNot(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	if t == ".pred" {
		a, err := c.bitsPredSrc(in.Args[1])
		if err != nil {
			return err
		}
		c.bitsPlop(d, a, ori.R(ori.PT), func(x, _ bool) bool { return !x })
		return nil
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	for w := 0; w < wordsOf(t); w++ {
		c.bitsLop(d.Word(w), nil, word(a, w), bitsRZ(), bitsRZ(), func(x, _, _ bool) bool { return !x })
	}
	return nil
}

// lowerCnot: d = (a == 0) ? 1 : 0. LOP3 with a predicate result tests the
// (extended) value for non-zero in one instruction: a & 0xffff for .b16
// (the upper bits of a 16-bit register are unspecified), lo | hi for .b64.
func lowerCnot(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	p := c.newPred()
	switch typeBits(t) {
	case 64:
		c.bitsLop(ori.RZ, &p, word(a, 0), word(a, 1), bitsRZ(), func(x, y, _ bool) bool { return x || y })
	case 32:
		c.bitsLop(ori.RZ, &p, word(a, 0), bitsRZ(), bitsRZ(), func(x, _, _ bool) bool { return x })
	default:
		mask := uint32(1)<<uint(typeBits(t)) - 1
		c.bitsLop(ori.RZ, &p, word(a, 0), bitsImm(mask), bitsRZ(), func(x, y, _ bool) bool { return x && y })
	}
	c.bitsSel(d.Word(0), bitsRZ(), bitsImm(1), ori.R(p))
	for w := 1; w < int(d.Words); w++ {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(w))}, bitsRZ())
	}
	return nil
}

// lowerLop3: the PTX immLut uses the SASS convention (a=0xF0, b=0xCC,
// c=0xAA), so it passes through. lop3.{or,and} d|p, a, b, c, lut, q adds
// p = (d != 0) BoolOp q, from LOP3's predicate result.
func lowerLop3(c *fn, in *ptx.Instr) error {
	boolOp := ""
	switch {
	case in.HasMod(".or"):
		boolOp = "or"
	case in.HasMod(".and"):
		boolOp = "and"
	}
	want := 5
	if boolOp != "" {
		want = 6
	}
	if err := c.bitsArgs(in, want); err != nil {
		return err
	}
	lutOp := in.Args[4]
	if lutOp.Kind != ptx.OpInt {
		return c.l.errorf(lutOp.Pos, "lop3 needs an integer constant immLut")
	}
	lv, _ := lutOp.Int()
	if lv < 0 || lv > 255 {
		return c.l.errorf(lutOp.Pos, "lop3 immLut %d is outside 0..255", lv)
	}
	lut := uint8(lv)
	f := func(x, y, z bool) bool {
		i := 0
		if x {
			i |= 4
		}
		if y {
			i |= 2
		}
		if z {
			i |= 1
		}
		return lut>>uint(i)&1 != 0
	}
	var srcs [3]ori.Operand
	for i := range srcs {
		o, err := c.src(in.Args[1+i], ".b32")
		if err != nil {
			return err
		}
		srcs[i] = word(o, 0)
	}
	dOp := in.Args[0]
	var pOp *ptx.Operand
	if boolOp != "" {
		if dOp.Kind != ptx.OpPair || len(dOp.Elems) != 2 {
			return c.l.errorf(dOp.Pos, "lop3.%s needs a d|p destination", boolOp)
		}
		dOp, pOp = dOp.Elems[0], dOp.Elems[1]
	}
	d := ori.RZ // lop3.BoolOp may discard d with a sink
	if dOp.Kind != ptx.OpSink {
		r, err := c.dst(dOp, ".b32")
		if err != nil {
			return err
		}
		d = r
	}
	if boolOp == "" {
		c.bitsLop(d, nil, srcs[0], srcs[1], srcs[2], f)
		return nil
	}
	q, err := c.bitsPredSrc(in.Args[5])
	if err != nil {
		return err
	}
	p, err := c.dst(pOp, ".pred")
	if err != nil {
		return err
	}
	// q is read before p is written (p may be q); nz holds d != 0.
	nz := c.newPred()
	c.bitsLop(d, &nz, srcs[0], srcs[1], srcs[2], f)
	if boolOp == "or" {
		c.bitsPlop(p, ori.R(nz), q, func(x, y bool) bool { return x || y })
	} else {
		c.bitsPlop(p, ori.R(nz), q, func(x, y bool) bool { return x && y })
	}
	return nil
}

// ----------------------------------------------------------------- shifts

// lowerShift: PTX shifts take an unsigned 32-bit amount and clamp it: a
// shift by the width or more gives 0 (or the sign for shr.s). SHF's
// non-.W forms clamp the same way (to 32, or 64 for .U64/.S64), so one SHF
// per result word is exact:
//
//	shl.b32      SHF.L.U32 d = a, n, RZ               (a << min(n, 32))
//	shr.u32      SHF.R.U32.HI d = RZ, n, a            (a >> min(n, 32))
//	shr.s32      SHF.R.S32.HI d = RZ, n, a
//	shl.b64      SHF.L.U64.HI dhi = alo, n, ahi ; SHF.L.U32 dlo = alo, n, RZ
//	shr.u64      SHF.R.U64 dlo = alo, n, ahi ; SHF.R.U32.HI dhi = RZ, n, ahi
//
// For shr.u64 with n >= 32 the high word is ahi >> min(n, 32) = 0 and the
// low word is the 64-bit value shifted by min(n, 64); likewise for shl and
// the signed forms (sign fill). 16-bit right shifts extend the source
// first; 16-bit left shifts need not (only the low 16 bits are specified).
func lowerShift(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 3); err != nil {
		return err
	}
	t := lastType(in)
	bits := typeBits(t)
	signed := isSigned(t)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	n, err := c.bitsAmount(in.Args[2])
	if err != nil {
		return err
	}
	left := in.Op == "shl"
	if c.ptxasShlFolded(in) {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(0))}, word(a, 0))
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(1))}, word(a, 1))
		return nil
	}
	if bits == 64 {
		n = bitsClampImm(n, 64)
		lo, hi := c.bitsReg(word(a, 0)), c.bitsReg(word(a, 1))
		if left {
			// High word first: the low word reads only lo, so d may
			// alias a.
			c.emit(ori.OpSHF, []string{"L", "U64", "HI"}, []ori.Operand{ori.R(d.Word(1))}, lo, n, hi)
			c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(d.Word(0))}, lo, n, bitsRZ())
			return nil
		}
		wide, half := "U64", "U32"
		if signed {
			wide, half = "S64", "S32"
		}
		// Low word first: the high word reads only hi.
		c.emit(ori.OpSHF, []string{"R", wide}, []ori.Operand{ori.R(d.Word(0))}, lo, n, hi)
		c.emit(ori.OpSHF, []string{"R", half, "HI"}, []ori.Operand{ori.R(d.Word(1))}, bitsRZ(), n, hi)
		return nil
	}
	n = bitsClampImm(n, 32)
	if left {
		c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(d.Word(0))}, c.bitsReg(word(a, 0)), n, bitsRZ())
		return nil
	}
	x := c.bitsExt(a, bits, signed)
	kind := "U32"
	if signed {
		kind = "S32"
	}
	c.emit(ori.OpSHF, []string{"R", kind, "HI"}, []ori.Operand{ori.R(d.Word(0))}, bitsRZ(), n, x)
	return nil
}

// lowerShf: shf.l returns the high word of (b:a) << n, shf.r the low word
// of (b:a) >> n, with n = min(c, 32) (.clamp) or c & 31 (.wrap).
func lowerShf(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 4); err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], ".b32")
	if err != nil {
		return err
	}
	b, err := c.src(in.Args[2], ".b32")
	if err != nil {
		return err
	}
	n, err := c.bitsAmount(in.Args[3])
	if err != nil {
		return err
	}
	var mods []string
	switch {
	case in.HasMod(".l"):
		mods = []string{"L"}
	case in.HasMod(".r"):
		mods = []string{"R"}
	default:
		return c.l.errorf(in.OpPos, "shf needs .l or .r")
	}
	switch {
	case in.HasMod(".wrap"):
		mods = append(mods, "W")
		if bitsIsImm(n) {
			n = bitsImm(bitsImmVal(n) & 31)
		}
	case in.HasMod(".clamp"):
		n = bitsClampImm(n, 32)
	default:
		return c.l.errorf(in.OpPos, "shf needs .clamp or .wrap")
	}
	mods = append(mods, "U32")
	if mods[0] == "L" {
		mods = append(mods, "HI")
	}
	c.emit(ori.OpSHF, mods, []ori.Operand{ori.R(d)}, c.bitsReg(word(a, 0)), n, c.bitsReg(word(b, 0)))
	return nil
}

// ------------------------------------------------------------- bit fields

// lowerBfe extracts len = c & 0xff bits at pos = b & 0xff (for .u64 and
// .s64 the whole c and b: see bitsByte64). Turing has no
// BFE: the field is shifted down with SHF.R (clamped: pos >= width shifts
// everything out, or leaves only sign copies for .s) and then its low len
// bits are zero- or sign-extended with SGXT (len >= 32 keeps the word,
// len = 0 gives 0). For .s this yields the PTX sign bit a[min(pos+len-1,
// msb)] in every case: the arithmetic shift replicates a[msb] into the
// bits above msb-pos, which is exactly where pos+len-1 > msb reads.
func lowerBfe(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 4); err != nil {
		return err
	}
	t := lastType(in)
	signed := isSigned(t)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	pos, err := c.bitsAmount(in.Args[2])
	if err != nil {
		return err
	}
	ln, err := c.bitsAmount(in.Args[3])
	if err != nil {
		return err
	}
	if typeBits(t) == 64 {
		pos, ln = c.bitsByte64(pos), c.bitsByte64(ln)
	} else {
		pos, ln = c.bitsByte(pos), c.bitsByte(ln)
	}
	half, sgxt := "U32", []string{"U32"}
	if signed {
		half, sgxt = "S32", nil
	}
	if typeBits(t) == 32 {
		if bitsIsImm(pos) && bitsIsImm(ln) {
			return c.bfe32Imm(d, a, bitsImmVal(pos), bitsImmVal(ln), signed)
		}
		sh := c.newReg(1)
		c.emit(ori.OpSHF, []string{"R", half, "HI"}, []ori.Operand{ori.R(sh)}, bitsRZ(), bitsClampImm(pos, 32), c.bitsReg(word(a, 0)))
		c.emit(ori.OpSGXT, sgxt, []ori.Operand{ori.R(d)}, ori.R(sh), ln)
		return nil
	}
	// 64-bit: t = a >> min(pos, 64) as a pair, then keep/extend its low
	// len bits: the low word keeps min(len, 32) bits; the high word keeps
	// len-32 bits when len > 32, else it is 0 (.u) or the sign of the
	// extended low word (.s).
	pos = bitsClampImm(pos, 64)
	lo, hi := c.bitsReg(word(a, 0)), c.bitsReg(word(a, 1))
	wide := "U64"
	if signed {
		wide = "S64"
	}
	tlo, thi := c.newReg(1), c.newReg(1)
	c.emit(ori.OpSHF, []string{"R", wide}, []ori.Operand{ori.R(tlo)}, lo, pos, hi)
	c.emit(ori.OpSHF, []string{"R", half, "HI"}, []ori.Operand{ori.R(thi)}, bitsRZ(), pos, hi)
	// a is no longer read (pos and len are temporaries or immediates), so
	// the result words can be written directly even when d aliases a.
	lh := c.bitsHiLen(ln)
	rlo, rhi := d.Word(0), d.Word(1)
	c.bitsSgxt(rlo, ori.R(tlo), bitsClampImm(ln, 32), signed)
	switch {
	case !signed || bitsIsImm(ln) && bitsImmVal(ln) > 32:
		c.bitsSgxt(rhi, ori.R(thi), lh, signed)
	case bitsIsImm(ln):
		c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(rhi)}, bitsRZ(), bitsImm(31), ori.R(rlo))
	default:
		fromLo, fromHi := c.newReg(1), c.newReg(1)
		c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(fromLo)}, bitsRZ(), bitsImm(31), ori.R(rlo))
		c.emit(ori.OpSGXT, nil, []ori.Operand{ori.R(fromHi)}, ori.R(thi), lh)
		long := c.bitsCmp("GT", true, ln, bitsImm(32))
		c.bitsSel(rhi, ori.R(fromHi), ori.R(fromLo), long)
	}
	return nil
}

// bfe32Imm is bfe.{u32,s32} with constant pos and len (already & 0xff).
func (c *fn) bfe32Imm(d ori.Reg, a ori.Operand, pos, ln uint32, signed bool) error {
	switch {
	case ln == 0:
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, bitsRZ())
		return nil
	case pos >= 32:
		// Nothing of a is selected: 0 for .u32.
		if signed {
			// Decision: -1 for .s32, as ptxas 13.0 folds it, whatever a is (its
			// SASS for bfe.s32 d, a, 34, 17 and 33, 200 is MOV d,
			// 0xffffffff); the H100 wrote 0xffffffff for bfe.s32 of a
			// non-negative a with positions 34 and 35 (fuzz5550904,
			// fuzz5550906). PTX says a[31] replicated.
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, bitsImm(0xffffffff))
			return nil
		}
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d)}, bitsRZ())
		return nil
	}
	x := c.bitsReg(word(a, 0))
	if pos+ln >= 32 {
		// The field reaches bit 31: the shift alone fills correctly.
		kind := "U32"
		if signed {
			kind = "S32"
		}
		c.emit(ori.OpSHF, []string{"R", kind, "HI"}, []ori.Operand{ori.R(d)}, bitsRZ(), bitsImm(pos), x)
		return nil
	}
	if pos != 0 {
		sh := c.newReg(1)
		c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(sh)}, bitsRZ(), bitsImm(pos), x)
		x = ori.R(sh)
	}
	if signed {
		c.emit(ori.OpSGXT, nil, []ori.Operand{ori.R(d)}, x, bitsImm(ln))
	} else {
		c.bitsLop(d, nil, x, bitsImm(uint32(1)<<ln-1), bitsRZ(), func(p, q, _ bool) bool { return p && q })
	}
	return nil
}

// lowerBfi inserts the low len = d & 0xff bits of a into b at pos = c &
// 0xff (for .b64 the whole d and c: see bitsByte64): f = (a << pos) & M | b & ~M with M the field mask clipped to the
// word, M = 0 when pos >= width (then f = b).
func lowerBfi(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 5); err != nil {
		return err
	}
	t := lastType(in)
	f, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	b, err := c.src(in.Args[2], t)
	if err != nil {
		return err
	}
	pos, err := c.bitsAmount(in.Args[3])
	if err != nil {
		return err
	}
	ln, err := c.bitsAmount(in.Args[4])
	if err != nil {
		return err
	}
	if typeBits(t) == 64 {
		pos, ln = c.bitsByte64(pos), c.bitsByte64(ln)
	} else {
		pos, ln = c.bitsByte(pos), c.bitsByte(ln)
	}
	merge := func(s, m, x bool) bool { return s && m || x && !m }
	if typeBits(t) == 32 {
		if bitsIsImm(pos) && bitsIsImm(ln) {
			p, l := bitsImmVal(pos), bitsImmVal(ln)
			// Decision: the length is taken mod 32, as ptxas 13.0 folds
			// constant fields (its SASS for bfi.b32 d, a, b, 2, 35 masks
			// 0x1c, and lengths 32 and 64 leave b); the H100 agrees
			// (fuzz5551746: length 35 inserted 3 bits). PTX says a length
			// beyond the word inserts up to bit 31.
			l &= 31
			var m uint32
			if p < 32 && l > 0 {
				m = ^uint32(0) << p
				if l < 32 {
					m &= (uint32(1)<<l - 1) << p
				}
			}
			if m == 0 {
				c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(f)}, word(b, 0))
				return nil
			}
			s := c.bitsReg(word(a, 0))
			if p != 0 {
				r := c.newReg(1)
				c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(r)}, s, bitsImm(p), bitsRZ())
				s = ori.R(r)
			}
			c.bitsLop(f, nil, s, bitsImm(m), word(b, 0), merge)
			return nil
		}
		m, s := c.newReg(1), c.newReg(1)
		c.emit(ori.OpBMSK, nil, []ori.Operand{ori.R(m)}, c.bitsReg(pos), ln)
		c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(s)}, c.bitsReg(word(a, 0)), bitsClampImm(pos, 32), bitsRZ())
		c.bitsLop(f, nil, ori.R(s), ori.R(m), word(b, 0), merge)
		return nil
	}
	// 64-bit: M = (low len bits, as a pair) << pos and s = a << pos, both
	// 64-bit shifts clamped at 64; then merge word by word.
	pos = bitsClampImm(pos, 64)
	if bitsIsImm(pos) && bitsIsImm(ln) {
		p, l := bitsImmVal(pos), bitsImmVal(ln)
		var m uint64
		if p < 64 {
			m = ^uint64(0) << p
			if l < 64 {
				m &= (uint64(1)<<l - 1) << p
			}
		}
		if m == 0 {
			c.mov(f, b, 2)
			return nil
		}
		s := c.bitsShl64(a, pos)
		// Word w of f reads only word w of b, so f may alias a or b.
		for w := 0; w < 2; w++ {
			c.bitsLop(f.Word(w), nil, word(s, w), bitsImm(uint32(m>>(32*uint(w)))), word(b, w), merge)
		}
		return nil
	}
	var mlo, mhi ori.Operand
	if bitsIsImm(ln) {
		l := bitsImmVal(ln)
		var m uint64 = ^uint64(0)
		if l < 64 {
			m = uint64(1)<<l - 1
		}
		mlo, mhi = c.bitsReg(bitsImm(uint32(m))), c.bitsReg(bitsImm(uint32(m>>32)))
	} else {
		r1, r2 := c.newReg(1), c.newReg(1)
		c.emit(ori.OpBMSK, nil, []ori.Operand{ori.R(r1)}, bitsRZ(), ln)
		c.emit(ori.OpBMSK, nil, []ori.Operand{ori.R(r2)}, bitsRZ(), c.bitsHiLen(ln))
		mlo, mhi = ori.R(r1), ori.R(r2)
	}
	M := c.newReg(2)
	c.emit(ori.OpSHF, []string{"L", "U64", "HI"}, []ori.Operand{ori.R(M.Word(1))}, mlo, pos, mhi)
	c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(M.Word(0))}, mlo, pos, bitsRZ())
	s := c.bitsShl64(a, pos)
	// Word w of f reads only word w of b (and temporaries), so f may
	// alias a or b.
	for w := 0; w < 2; w++ {
		c.bitsLop(f.Word(w), nil, word(s, w), ori.R(M.Word(w)), word(b, w), merge)
	}
	return nil
}

// bitsShl64 returns a fresh pair holding the 64-bit a << min(n, 64).
func (c *fn) bitsShl64(a, n ori.Operand) ori.Operand {
	s := c.newReg(2)
	alo, ahi := c.bitsReg(word(a, 0)), c.bitsReg(word(a, 1))
	c.emit(ori.OpSHF, []string{"L", "U64", "HI"}, []ori.Operand{ori.R(s.Word(1))}, alo, n, ahi)
	c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(s.Word(0))}, alo, n, bitsRZ())
	return ori.R(s)
}

// lowerPrmt: prmt d, a, b, c picks bytes of b:a by the selector c, which
// is PRMT's middle operand.
func lowerPrmt(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 4); err != nil {
		return err
	}
	var mods []string
	for _, m := range []string{".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"} {
		if in.HasMod(m) {
			mods = append(mods, strings.ToUpper(m[1:]))
		}
	}
	if len(mods) > 1 {
		return c.l.errorf(in.OpPos, "prmt takes at most one mode")
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], ".b32")
	if err != nil {
		return err
	}
	b, err := c.src(in.Args[2], ".b32")
	if err != nil {
		return err
	}
	sel, err := c.src(in.Args[3], ".b32")
	if err != nil {
		return err
	}
	c.emit(ori.OpPRMT, mods, []ori.Operand{ori.R(d)}, c.bitsReg(word(a, 0)), word(sel, 0), c.bitsReg(word(b, 0)))
	return nil
}

// ------------------------------------------------------------ bit counts

func lowerPopc(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	if typeBits(t) < 64 {
		c.emit(ori.OpPOPC, nil, []ori.Operand{ori.R(d.Word(0))}, word(a, 0))
		return nil
	}
	lo, hi := c.newReg(1), c.newReg(1)
	c.emit(ori.OpPOPC, nil, []ori.Operand{ori.R(lo)}, word(a, 0))
	c.emit(ori.OpPOPC, nil, []ori.Operand{ori.R(hi)}, word(a, 1))
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(lo), ori.R(hi), bitsRZ())
	return nil
}

// bitsFlo64 returns the index of the highest set bit of the pair lo:hi
// (64-bit), or -1: hi != 0 ? FLO(hi) + 32 : FLO(lo). For signed values the
// caller passes hi with FLO.S32 and lo already complemented for negative
// inputs; hiNZ says whether hi holds a bit to find.
func (c *fn) bitsFlo64(lo, hi ori.Operand, hiKind string, hiNZ ori.Operand) ori.Operand {
	fhi, flo := c.newReg(1), c.newReg(1)
	c.emit(ori.OpFLO, []string{hiKind}, []ori.Operand{ori.R(fhi)}, hi)
	c.emit(ori.OpFLO, []string{"U32"}, []ori.Operand{ori.R(flo)}, lo)
	up := c.newReg(1)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(up)}, ori.R(fhi), bitsImm(32), bitsRZ())
	r := c.newReg(1)
	c.bitsSel(r, ori.R(up), ori.R(flo), hiNZ)
	return ori.R(r)
}

// lowerClz: clz = 31 - FLO.U32(a), which is 32 for a = 0 since FLO gives
// -1; the 64-bit form is 63 - (index of the highest set bit, or -1).
func lowerClz(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	var idx ori.Operand
	top := int64(31)
	if typeBits(t) < 64 {
		r := c.newReg(1)
		c.emit(ori.OpFLO, []string{"U32"}, []ori.Operand{ori.R(r)}, word(a, 0))
		idx = ori.R(r)
	} else {
		hi := c.bitsReg(word(a, 1))
		idx = c.bitsFlo64(word(a, 0), hi, "U32", c.bitsCmp("NE", true, hi, bitsRZ()))
		top = 63
	}
	idx.Neg = true
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0))}, idx, ori.Imm(top), bitsRZ())
	return nil
}

func lowerBrev(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	if typeBits(t) < 64 {
		c.emit(ori.OpBREV, nil, []ori.Operand{ori.R(d.Word(0))}, word(a, 0))
		return nil
	}
	// d.lo = brev(a.hi), d.hi = brev(a.lo); a.hi goes through a temporary
	// so d may alias a.
	tmp := c.newReg(1)
	c.emit(ori.OpBREV, nil, []ori.Operand{ori.R(tmp)}, word(a, 1))
	c.emit(ori.OpBREV, nil, []ori.Operand{ori.R(d.Word(1))}, word(a, 0))
	c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(0))}, ori.R(tmp))
	return nil
}

// lowerBfind: FLO computes bfind directly for 32-bit types (including the
// -1 for "no bit" and .shiftamt as .SH). 64-bit: a negative .s64 input is
// complemented (FLO.S32 does that for the high word; the low word is
// xored with the sign mask), then the high word's index + 32 or the low
// word's index; .shiftamt maps i to 63 - i and keeps -1.
func lowerBfind(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 2); err != nil {
		return err
	}
	t := lastType(in)
	signed := isSigned(t)
	shamt := in.HasMod(".shiftamt")
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	kind := "U32"
	if signed {
		kind = "S32"
	}
	if typeBits(t) < 64 {
		mods := []string{kind}
		if shamt {
			mods = append(mods, "SH")
		}
		c.emit(ori.OpFLO, mods, []ori.Operand{ori.R(d.Word(0))}, word(a, 0))
		return nil
	}
	hi := c.bitsReg(word(a, 1))
	lo := word(a, 0)
	var hiNZ ori.Operand
	if signed {
		sg := c.newReg(1)
		c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(sg)}, bitsRZ(), bitsImm(31), hi)
		x := c.newReg(1)
		c.bitsLop(x, nil, lo, ori.R(sg), bitsRZ(), func(p, q, _ bool) bool { return p != q })
		lo = ori.R(x)
		hiNZ = c.bitsCmp("NE", true, hi, ori.R(sg)) // hi has a non-sign bit
	} else {
		hiNZ = c.bitsCmp("NE", true, hi, bitsRZ())
	}
	idx := c.bitsFlo64(lo, hi, kind, hiNZ)
	if !shamt {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(d.Word(0))}, idx)
		return nil
	}
	found := c.bitsCmp("NE", false, idx, ori.Imm(-1))
	amt := c.newReg(1)
	neg := idx
	neg.Neg = true
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(amt)}, neg, ori.Imm(63), bitsRZ())
	c.bitsSel(d.Word(0), ori.R(amt), idx, found)
	return nil
}

// ------------------------------------------------------ masks, extension

func lowerBmsk(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 3); err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	pos, err := c.bitsAmount(in.Args[1])
	if err != nil {
		return err
	}
	width, err := c.bitsAmount(in.Args[2])
	if err != nil {
		return err
	}
	var mods []string
	switch {
	case in.HasMod(".wrap"):
		mods = []string{"W"}
	case in.HasMod(".clamp"):
	default:
		return c.l.errorf(in.OpPos, "bmsk needs .clamp or .wrap")
	}
	c.emit(ori.OpBMSK, mods, []ori.Operand{ori.R(d)}, c.bitsReg(pos), width)
	return nil
}

// lowerSzext: SGXT clamps the width to 32 (szext.clamp: b >= 32 keeps a,
// b = 0 gives 0); szext.wrap uses b & 31 (b = 32 gives 0).
func lowerSzext(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 3); err != nil {
		return err
	}
	t := lastType(in)
	d, err := c.dst(in.Args[0], t)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], t)
	if err != nil {
		return err
	}
	n, err := c.bitsAmount(in.Args[2])
	if err != nil {
		return err
	}
	switch {
	case in.HasMod(".wrap"):
		if bitsIsImm(n) {
			n = bitsImm(bitsImmVal(n) & 31)
		} else {
			n = c.bitsAnd(n, bitsImm(31))
		}
	case in.HasMod(".clamp"):
		n = bitsClampImm(n, 32)
	default:
		return c.l.errorf(in.OpPos, "szext needs .clamp or .wrap")
	}
	var mods []string
	if !isSigned(t) {
		mods = []string{"U32"}
	}
	c.emit(ori.OpSGXT, mods, []ori.Operand{ori.R(d)}, c.bitsReg(word(a, 0)), n)
	return nil
}

// ---------------------------------------------------------- dot products

// lowerDot: dp4a.atype.btype d, a, b, c -> IDP.4A.<A8>.<B8> d = a, b, c;
// dp2a.{lo,hi}.atype.btype -> IDP.2A.<LO|HI>.<A16>.<B8>. The accumulation
// is modulo 2^32, so c's signedness does not matter.
func lowerDot(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 4); err != nil {
		return err
	}
	ts := types(in)
	if len(ts) != 2 {
		return c.l.errorf(in.OpPos, "%s needs .atype.btype", in.Op)
	}
	ext := func(t string, bits string) string {
		if isSigned(t) {
			return "S" + bits
		}
		return "U" + bits
	}
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	var srcs [3]ori.Operand
	for i := range srcs {
		o, err := c.src(in.Args[1+i], ".u32")
		if err != nil {
			return err
		}
		srcs[i] = word(o, 0)
	}
	a, b, acc := srcs[0], srcs[1], srcs[2]
	var mods []string
	if in.Op == "dp4a" {
		ma, mb := ext(ts[0], "8"), ext(ts[1], "8")
		// The four-way product is symmetric: swap to keep a a register.
		if !bitsIsReg(a) && bitsIsReg(b) {
			a, b = b, a
			ma, mb = mb, ma
		}
		mods = []string{"4A", ma, mb}
	} else {
		half := "LO"
		switch {
		case in.HasMod(".hi"):
			half = "HI"
		case in.HasMod(".lo"):
		default:
			return c.l.errorf(in.OpPos, "dp2a needs .lo or .hi")
		}
		mods = []string{"2A", half, ext(ts[0], "16"), ext(ts[1], "8")}
	}
	c.emit(ori.OpIDP, mods, []ori.Operand{ori.R(d.Word(0))}, c.bitsReg(a), b, c.bitsReg(acc))
	return nil
}

// ----------------------------------------------------------------- fns

// lowerFns finds the n-th set bit of mask from base (PTX fns). The search
// is turned into "the k-th lowest set bit of z":
//
//	offset >= 0: z = mask >> base (only bit 0 of it for offset 0), bit i
//	             of z is mask bit base+i, k = max(offset, 1);
//	offset <  0: z = brev(mask << (31-base)), bit i of z is mask bit
//	             base-i, k = -offset (unsigned, so INT_MIN never matches).
//
// The k-th lowest set bit of z is at the largest t in 0..31 with
// popc(z & ((1 << t) - 1)) < k, found by a five-step binary search; the
// answer is base ± t when popc(z) >= k, else 0xffffffff; an offset of
// INT_MIN gives 0 (see the Decision below). base must be <= 31 (PTX
// leaves larger values undefined).
func lowerFns(c *fn, in *ptx.Instr) error {
	if err := c.bitsArgs(in, 4); err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], ".b32")
	if err != nil {
		return err
	}
	mo, err := c.src(in.Args[1], ".b32")
	if err != nil {
		return err
	}
	base, err := c.bitsAmount(in.Args[2])
	if err != nil {
		return err
	}
	oo, err := c.src(in.Args[3], ".s32")
	if err != nil {
		return err
	}
	mask := c.bitsReg(word(mo, 0))
	off := c.bitsReg(word(oo, 0))
	neg := c.bitsCmp("LT", false, off, bitsRZ())
	zero := c.bitsCmp("EQ", false, off, bitsRZ())
	up, up1, upz := c.newReg(1), c.newReg(1), c.newReg(1)
	c.emit(ori.OpSHF, []string{"R", "U32", "HI"}, []ori.Operand{ori.R(up)}, bitsRZ(), bitsClampImm(base, 32), mask)
	c.bitsLop(up1, nil, ori.R(up), bitsImm(1), bitsRZ(), func(x, y, _ bool) bool { return x && y })
	c.bitsSel(upz, ori.R(up1), ori.R(up), zero)
	var sh ori.Operand
	if bitsIsImm(base) {
		sh = bitsImm(31 - bitsImmVal(base)&31)
	} else {
		r := c.newReg(1)
		nb := base
		nb.Neg = true
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(r)}, nb, bitsImm(31), bitsRZ())
		sh = ori.R(r)
	}
	dn, dnr, z := c.newReg(1), c.newReg(1), c.newReg(1)
	c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(dn)}, mask, sh, bitsRZ())
	c.emit(ori.OpBREV, nil, []ori.Operand{ori.R(dnr)}, ori.R(dn))
	c.bitsSel(z, ori.R(dnr), ori.R(upz), neg)
	ab, k := c.newReg(1), c.newReg(1)
	c.emit(ori.OpIABS, nil, []ori.Operand{ori.R(ab)}, off)
	c.emit(ori.OpIMNMX, []string{"U32"}, []ori.Operand{ori.R(k)}, ori.R(ab), bitsImm(1), bitsNotPT)
	t := bitsRZ()
	for s := uint32(16); s >= 1; s /= 2 {
		var u, m ori.Operand
		if s == 16 {
			u, m = bitsImm(16), bitsImm(0xffff)
		} else {
			ur, mr := c.newReg(1), c.newReg(1)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(ur)}, t, bitsImm(s), bitsRZ())
			c.emit(ori.OpBMSK, nil, []ori.Operand{ori.R(mr)}, bitsRZ(), ori.R(ur))
			u, m = ori.R(ur), ori.R(mr)
		}
		q := c.bitsAnd(ori.R(z), m)
		cnt := c.newReg(1)
		c.emit(ori.OpPOPC, nil, []ori.Operand{ori.R(cnt)}, q)
		below := c.bitsCmp("LT", true, ori.R(cnt), ori.R(k))
		nt := c.newReg(1)
		c.bitsSel(nt, u, t, below)
		t = ori.R(nt)
	}
	total := c.newReg(1)
	c.emit(ori.OpPOPC, nil, []ori.Operand{ori.R(total)}, ori.R(z))
	found := c.bitsCmp("GE", true, ori.R(total), ori.R(k))
	ru, rd, r := c.newReg(1), c.newReg(1), c.newReg(1)
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(ru)}, t, base, bitsRZ())
	nt := t
	nt.Neg = true
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(rd)}, nt, base, bitsRZ())
	c.bitsSel(r, ori.R(rd), ori.R(ru), neg)
	res := c.newReg(1)
	c.bitsSel(res, ori.R(r), ori.Imm(-1), found)
	// Decision: an offset of INT_MIN gives 0, as ptxas 13.0 computes
	// it: its sequence negates the offset to a count k (INT_MIN stays
	// INT_MIN), narrows the position with unsigned popcount compares
	// (all true: position 31 of the reversed mask, bit 0) and checks
	// "found" with a signed compare (popc < INT_MIN is false), so it
	// returns bit 0 for any mask and base; the unsigned count above
	// would never be found (0xffffffff). Evidence on the H100 (hwtruth):
	// fuzz5551567, "fns.b32 %r17, 0x5A89E074, %r68, %r20" with %r20 =
	// 0x80000000: out[1970] (thread 49, base 17), out[2650] (base 2) and
	// out[5090] (base 31) are 0.
	isMin := c.bitsCmp("EQ", false, off, bitsImm(0x80000000))
	c.bitsSel(d, bitsRZ(), ori.R(res), isMin)
	return nil
}

// ------------------------------------------------------------------ video

// lowerVideo lowers the scalar video instructions
//
//	vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}
//	vset.atype.btype.cmp{.op2}         d{.dsel}, a{.asel}, b{.bsel}{, c}
//
// where PTX pins the result down exactly. The selected parts of a and b
// are extracted and extended by type (PRMT), so ta and tb are 32-bit words
// with a known signedness. The intermediate tmp is then either exact (its
// true value fits in 32 bits with a known signedness: vshr, vmin, vmax,
// vset, and vabsdiff with equal source types) or known only modulo 2^32
// (vshl, vadd, vsub, mixed vabsdiff: the true value can need up to 65
// bits). Everything that only needs tmp mod 2^32 is exact: no op2, .add,
// and the .dsel merge. .sat and .min/.max compare the true value: for
// exact intermediates in 32 bits (with mixed-signedness comparisons done
// exactly), for the others in 64 (videoWide). vmad is in video_more.go. The
// SIMD forms (vadd2, vmax4, ...) are in simd.go.
func lowerVideo(c *fn, in *ptx.Instr) error {
	if len(in.Args) != 3 && len(in.Args) != 4 {
		return c.l.errorf(in.OpPos, "%s needs 3 or 4 operands", in.Op)
	}
	ts := types(in)
	isSet := in.Op == "vset"
	var dSigned, aSigned, bSigned bool
	switch {
	case isSet && len(ts) == 2:
		aSigned, bSigned = isSigned(ts[0]), isSigned(ts[1])
	case !isSet && len(ts) == 3:
		dSigned, aSigned, bSigned = isSigned(ts[0]), isSigned(ts[1]), isSigned(ts[2])
	default:
		return c.l.errorf(in.OpPos, "%s has the wrong number of type modifiers", in.Op)
	}
	for _, t := range ts {
		if t != ".u32" && t != ".s32" {
			return c.l.errorf(in.OpPos, "%s types must be .u32 or .s32", in.Op)
		}
	}
	op2 := ""
	for _, m := range []string{".add", ".min", ".max"} {
		if in.HasMod(m) {
			op2 = m
		}
	}
	sat := in.HasMod(".sat")
	dsel := ""
	if o := in.Args[0]; o.Kind == ptx.OpName && o.Comp != "" {
		dsel = o.Comp
		if bitsVideoMerge[dsel] == 0 {
			return c.l.unsupported(o.Pos, "video destination selector %s", dsel)
		}
	}
	if op2 != "" && dsel != "" {
		return c.l.errorf(in.OpPos, "%s cannot have both %s and a destination selector", in.Op, op2)
	}
	if (op2 != "" || dsel != "") != (len(in.Args) == 4) {
		return c.l.errorf(in.OpPos, "%s takes a c operand exactly when it has a secondary operation or a destination selector", in.Op)
	}
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	ta, err := c.bitsVideoSrc(in.Args[1], aSigned)
	if err != nil {
		return err
	}
	tb, err := c.bitsVideoSrc(in.Args[2], bSigned)
	if err != nil {
		return err
	}
	// vadd, vsub, vshl and mixed-type vabsdiff have intermediates that can
	// need more than 32 bits; saturating or comparing them is done in 64.
	wide := in.Op == "vadd" || in.Op == "vsub" || in.Op == "vshl" || in.Op == "vabsdiff" && aSigned != bSigned
	if wide && (sat || op2 == ".min" || op2 == ".max") {
		return c.videoWide(in, d, ta, tb, aSigned, bSigned, dSigned, sat, op2, dsel)
	}
	// Without c, tmp can be d itself: every step below reads ta and tb
	// in the instruction that first writes tmp.
	tmp := d
	if len(in.Args) == 4 {
		tmp = c.newReg(1)
	}
	tSigned := aSigned // tmp's signedness where it is exact
	switch in.Op {
	case "vshl", "vshr":
		if bSigned {
			return c.l.errorf(in.OpPos, "%s takes a .u32 shift amount", in.Op)
		}
		switch {
		case in.HasMod(".wrap"):
			tb = c.bitsAnd(tb, bitsImm(31))
		case in.HasMod(".clamp"):
			// SHF clamps amounts above 32 to 32 itself.
		default:
			return c.l.errorf(in.OpPos, "%s needs .clamp or .wrap", in.Op)
		}
		if in.Op == "vshl" {
			c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(tmp)}, ta, tb, bitsRZ())
		} else {
			kind := "U32"
			if aSigned {
				kind = "S32"
			}
			c.emit(ori.OpSHF, []string{"R", kind, "HI"}, []ori.Operand{ori.R(tmp)}, bitsRZ(), tb, ta)
		}
	case "vadd":
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(tmp)}, ta, tb, bitsRZ())
	case "vsub":
		nb := tb
		nb.Neg = true
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(tmp)}, ta, nb, bitsRZ())
	case "vabsdiff":
		lt := c.bitsVideoLT(ta, aSigned, tb, bSigned)
		fwd, rev := c.newReg(1), c.newReg(1)
		na, nb := ta, tb
		na.Neg, nb.Neg = true, true
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(fwd)}, ta, nb, bitsRZ())
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(rev)}, tb, na, bitsRZ())
		c.bitsSel(tmp, ori.R(rev), ori.R(fwd), lt)
		// |ta - tb| < 2^32 when both have the same type.
		tSigned = false
	case "vmin", "vmax":
		lt := c.bitsVideoLT(ta, aSigned, tb, bSigned)
		if in.Op == "vmin" {
			c.bitsSel(tmp, ta, tb, lt)
		} else {
			c.bitsSel(tmp, tb, ta, lt)
		}
		// Mixed types: the minimum is at most the signed operand (so it
		// fits in s32), the maximum at least the unsigned one (u32).
		if aSigned != bSigned {
			tSigned = in.Op == "vmin"
		}
	case "vset":
		if sat {
			return c.l.errorf(in.OpPos, "vset has no .sat")
		}
		p, err := c.bitsVideoCmp(in, ta, aSigned, tb, bSigned)
		if err != nil {
			return err
		}
		c.bitsSel(tmp, bitsImm(1), bitsRZ(), p)
		tSigned = false
	}
	// Inexact intermediates with .sat, .min or .max went to videoWide.
	if sat {
		c.bitsVideoSat(tmp, tSigned, dSigned, dsel)
		tSigned = dSigned
	}
	var cv ori.Operand
	if len(in.Args) == 4 {
		o, err := c.src(in.Args[3], ".u32")
		if err != nil {
			return err
		}
		cv = word(o, 0)
	}
	switch {
	case op2 == ".add":
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d)}, ori.R(tmp), cv, bitsRZ())
	case op2 != "":
		// c has dtype's signedness; vset's c is unsigned.
		cSigned := dSigned && !isSet
		cr := c.bitsReg(cv)
		lt := c.bitsVideoLT(ori.R(tmp), tSigned, cr, cSigned)
		if op2 == ".min" {
			c.bitsSel(d, ori.R(tmp), cr, lt)
		} else {
			c.bitsSel(d, cr, ori.R(tmp), lt)
		}
	case dsel != "":
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d)}, ori.R(tmp), bitsImm(bitsVideoMerge[dsel]), c.bitsReg(cv))
	}
	return nil
}

// videoWide lowers a scalar video instruction whose intermediate can
// exceed 32 bits (vadd, vsub, vshl, vabsdiff of mixed types) and that
// saturates it or compares it with c (.min/.max): the intermediate is
// computed exactly in 64 bits (|ta ± tb| < 2^33; a signed ta shifted by
// at most 32 stays within s64), clamped to the destination's range (or
// its .dsel part), then combined with c, extended by the destination
// type, exactly as well. vshl of an unsigned a can reach 2^64 - 2^32,
// beyond s64: it is compared through a stand-in (vshlUnsignedProxy).
func (c *fn) videoWide(in *ptx.Instr, d ori.Reg, ta, tb ori.Operand, aSigned, bSigned, dSigned, sat bool, op2, dsel string) error {
	ext := func(x ori.Operand, signed bool) ori.Operand {
		r := c.newReg(2)
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, x)
		if signed {
			c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(r.Word(1))}, bitsRZ(), bitsImm(31), c.bitsReg(x))
		} else {
			c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, bitsRZ())
		}
		return ori.R(r)
	}
	A := ext(ta, aSigned)
	T := c.newReg(2)
	sub := func(x, y ori.Operand) {
		p := c.newPred()
		ny := word(y, 0)
		ny.Neg = true
		hi := word(y, 1)
		hi.Not = true
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(T.Word(0)), ori.R(p)}, word(x, 0), ny, bitsRZ())
		c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(T.Word(1))}, word(x, 1), hi, bitsRZ(), ori.R(p), bitsNotPT)
	}
	switch in.Op {
	case "vadd":
		B := ext(tb, bSigned)
		p := c.newPred()
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(T.Word(0)), ori.R(p)}, word(A, 0), word(B, 0), bitsRZ())
		c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(T.Word(1))}, word(A, 1), word(B, 1), bitsRZ(), ori.R(p), bitsNotPT)
	case "vsub":
		sub(A, ext(tb, bSigned))
	case "vabsdiff":
		sub(A, ext(tb, bSigned))
		c.intAbs64(T, ori.R(T))
	case "vshl":
		if bSigned {
			return c.l.errorf(in.OpPos, "vshl takes a .u32 shift amount")
		}
		n := c.newReg(1)
		switch {
		case in.HasMod(".wrap"):
			c.bitsLop(n, nil, tb, bitsImm(31), bitsRZ(), func(x, y, _ bool) bool { return x && y })
		case in.HasMod(".clamp"):
			c.emit(ori.OpIMNMX, []string{"U32"}, []ori.Operand{ori.R(n)}, c.bitsReg(tb), bitsImm(32), ori.R(ori.PT))
		default:
			return c.l.errorf(in.OpPos, "vshl needs .clamp or .wrap")
		}
		s := c.bitsShl64(A, ori.R(n))
		c.mov(T, s, 2)
		if !aSigned {
			done, err := c.vshlUnsignedProxy(in, d, T, sat, op2, dSigned)
			if done || err != nil {
				return err
			}
		}
	}
	if sat {
		bits := uint(32)
		switch dsel {
		case ".b0", ".b1", ".b2", ".b3":
			bits = 8
		case ".h0", ".h1":
			bits = 16
		}
		lo, hi := int64(0), int64(1)<<bits-1
		if dSigned {
			lo, hi = -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		}
		c.intMinMax64(T, ori.R(T), ori.Imm(lo), true, true)
		c.intMinMax64(T, ori.R(T), ori.Imm(hi), false, true)
	}
	if len(in.Args) < 4 {
		c.mov(d, word(ori.R(T), 0), 1)
		return nil
	}
	cv, err := c.src(in.Args[3], ".u32")
	if err != nil {
		return err
	}
	cr := c.bitsReg(word(cv, 0))
	switch {
	case op2 == ".add":
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d)}, word(ori.R(T), 0), cr, bitsRZ())
	case op2 != "":
		C := ext(cr, dSigned)
		c.intMinMax64(T, ori.R(T), C, op2 == ".max", true)
		c.mov(d, word(ori.R(T), 0), 1)
	case dsel != "":
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(d)}, word(ori.R(T), 0), bitsImm(bitsVideoMerge[dsel]), cr)
	default:
		c.mov(d, word(ori.R(T), 0), 1)
	}
	return nil
}

// bitsVideoMerge gives the PRMT selector that writes the low byte or half
// of tmp (PRMT's a) into the .dsel part of c (PRMT's b, bytes 4-7).
var bitsVideoMerge = map[string]uint32{
	".b0": 0x7650, ".b1": 0x7604, ".b2": 0x7054, ".b3": 0x0654,
	".h0": 0x7610, ".h1": 0x1054,
}

// bitsVideoSrc returns a video source operand's selected part (.b0-.b3,
// .h0, .h1, or the whole word) zero- or sign-extended to a 32-bit register.
func (c *fn) bitsVideoSrc(o *ptx.Operand, signed bool) (ori.Operand, error) {
	sel := ""
	if o.Kind == ptx.OpName && o.Comp != "" {
		if r := c.lookupReg(o.Name); r != nil && r.vec == 0 {
			sel = o.Comp
		}
	}
	v, err := c.src(o, ".u32")
	if err != nil {
		return v, err
	}
	x := c.bitsReg(word(v, 0))
	if sel == "" {
		return x, nil
	}
	// PRMT x, s, RZ: nibble i of s picks result byte i from x (0-3) or
	// from RZ (4: zero); bit 3 replicates the picked byte's sign.
	var s uint32
	switch sel {
	case ".b0", ".b1", ".b2", ".b3":
		n := uint32(sel[2] - '0')
		if signed {
			s = (n|8)<<12 | (n|8)<<8 | (n|8)<<4 | n
		} else {
			s = 0x4440 | n
		}
	case ".h0", ".h1":
		lo := uint32(sel[2]-'0') * 2
		if signed {
			s = (lo+1|8)<<12 | (lo+1|8)<<8 | (lo+1)<<4 | lo
		} else {
			s = 0x4400 | (lo+1)<<4 | lo
		}
	default:
		return v, c.l.unsupported(o.Pos, "video operand selector %s", sel)
	}
	r := c.newReg(1)
	c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(r)}, x, bitsImm(s), bitsRZ())
	return ori.R(r), nil
}

// bitsVideoLT returns a predicate for x < y as integers, where each
// operand is a 32-bit word read as signed or unsigned.
func (c *fn) bitsVideoLT(x ori.Operand, xs bool, y ori.Operand, ys bool) ori.Operand {
	switch {
	case xs == ys:
		return c.bitsCmp("LT", !xs, x, y)
	case xs:
		// A negative x is below every unsigned y.
		q := c.bitsCmp("LT", true, x, y)
		return c.bitsSetp("LT", false, x, bitsRZ(), "OR", q)
	default:
		// A negative y is below every unsigned x.
		q := c.bitsCmp("LT", true, x, y)
		return c.bitsSetp("GE", false, c.bitsReg(y), bitsRZ(), "AND", q)
	}
}

// bitsVideoEQ returns a predicate for x == y as integers.
func (c *fn) bitsVideoEQ(x ori.Operand, xs bool, y ori.Operand, ys bool) ori.Operand {
	q := c.bitsCmp("EQ", true, x, y)
	switch {
	case xs == ys:
		return q
	case xs:
		// Equal bits denote equal values unless the signed one is negative.
		return c.bitsSetp("GE", false, x, bitsRZ(), "AND", q)
	default:
		return c.bitsSetp("GE", false, c.bitsReg(y), bitsRZ(), "AND", q)
	}
}

// bitsVideoCmp evaluates vset's comparison exactly for any signedness mix.
func (c *fn) bitsVideoCmp(in *ptx.Instr, a ori.Operand, as bool, b ori.Operand, bs bool) (ori.Operand, error) {
	var p ori.Operand
	switch {
	case in.HasMod(".eq"):
		return c.bitsVideoEQ(a, as, b, bs), nil
	case in.HasMod(".ne"):
		p = c.bitsVideoEQ(a, as, b, bs)
	case in.HasMod(".lt"):
		return c.bitsVideoLT(a, as, b, bs), nil
	case in.HasMod(".ge"):
		p = c.bitsVideoLT(a, as, b, bs)
	case in.HasMod(".gt"):
		return c.bitsVideoLT(b, bs, a, as), nil
	case in.HasMod(".le"):
		p = c.bitsVideoLT(b, bs, a, as)
	default:
		return p, c.l.errorf(in.OpPos, "vset needs a comparison")
	}
	p.Not = !p.Not
	return p, nil
}

// bitsVideoSat clamps r, whose value has signedness rs, to the range of
// the destination type (signed ds) restricted to the .dsel part.
func (c *fn) bitsVideoSat(r ori.Reg, rs, ds bool, dsel string) {
	bits := uint(32)
	switch dsel {
	case ".b0", ".b1", ".b2", ".b3":
		bits = 8
	case ".h0", ".h1":
		bits = 16
	}
	var lo, hi int64
	if ds {
		lo, hi = -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
	} else {
		lo, hi = 0, int64(1)<<bits-1
	}
	minMax := func(mods []string, bound int64, min bool) {
		p := ori.R(ori.PT)
		if !min {
			p = bitsNotPT
		}
		c.emit(ori.OpIMNMX, mods, []ori.Operand{ori.R(r)}, ori.R(r), ori.Imm(bound), p)
	}
	if rs {
		// r is in [-2^31, 2^31-1].
		if lo > -(int64(1) << 31) {
			minMax(nil, lo, false)
		}
		if hi < int64(1)<<31-1 {
			minMax(nil, hi, true)
		}
		return
	}
	// r is in [0, 2^32-1] and lo <= 0.
	if hi < int64(1)<<32-1 {
		minMax([]string{"U32"}, hi, true)
	}
}
