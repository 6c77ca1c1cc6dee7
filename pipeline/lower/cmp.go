// Comparisons and selects: setp, set, selp, slct.
//
// Mapping:
//
//	setp/set on .f32        FSETP.<cmp>[.FTZ].<bool> (set: FSET[.BF])
//	setp/set on .f64        DSETP.<cmp>.<bool>
//	setp/set on .f16/.bf16  HSETP2 (lane 0 is the scalar; the complement
//	                        q of a scalar compare is a second HSETP2 with
//	                        the complementary comparison)
//	setp/set on .f16x2      HSETP2: p is lane 0 and q lane 1, as PTX
//	                        defines p|q for packed halves
//	setp/set on integers    ISETP.<cmp>[.U32].<bool>; 16-bit operands are
//	                        sign- or zero-extended first (their upper bits
//	                        are unspecified); 64-bit: ISETP.U32 on the low
//	                        words, then ISETP.EX on the high words
//	set (non-f32 sources)   the predicate, then SEL of 0xffffffff / 1.0
//	selp                    SEL per 32-bit word
//	slct                    ISETP.GE / FSETP.GE[.FTZ] against zero, then SEL
//
// PTX comparisons: lt le gt ge are signed on .s types and unsigned on .u
// and .b types; lo ls hi hs are the unsigned spellings. The float
// comparisons eq ne lt le gt ge are ordered (false on NaN), equ neu ltu
// leu gtu geu unordered (true on NaN), num and nan test for NaN. Without
// a BoolOp the result is combined as "AND PT", which is the comparison
// itself; q is then the complement.
//
// Semantics: readings of SEMANTICS.md this file relies on, and what it
// adds. Modifiers appear in the order shown.
//
//   - ISETP.<cmp>[.U32].<bool>.EX p, q = ahi, bhi, c, lo: lo is the same
//     <cmp> on the low words, compared unsigned (ISETP.<cmp>.U32.AND);
//     t = (ahi == bhi) ? lo : (ahi <cmp> bhi) with the high words signed
//     unless .U32, which is the 64-bit comparison of ahi:alo and bhi:blo
//     (for EQ, (ahi == bhi) && lo; for NE, (ahi != bhi) || lo). Then
//     p = t <bool> c, q = !t <bool> c. (Same reading as int.go.)
//   - HSETP2[.BF16_V2].<cmp>[.FTZ].<bool> p, q = a, b, c: p = (a.lo <cmp>
//     b.lo) <bool> c and q = (a.hi <cmp> b.hi) <bool> c on the binary16
//     (bfloat16 with .BF16_V2) halves; .FTZ compares subnormal halves as
//     zero. This is the hardware's per-lane form, not the p/!p form of
//     FSETP.
//   - FSET[.BF].<cmp>[.FTZ].<bool> d = a, b, c: t = a <cmp> b as FSETP;
//     d = (t <bool> c) ? (.BF ? 1.0f : 0xffffffff) : 0.
//   - FSETP/DSETP/HSETP2 comparisons: LT EQ LE GT NE GE are ordered,
//     LTU EQU LEU GTU NEU GEU unordered, NUM is true when neither operand
//     is NaN and NAN when either is; -0 == +0.
package lower

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func init() {
	register(lowerSetp, "setp")
	register(lowerSet, "set")
	register(lowerSelp, "selp")
	register(lowerSlct, "slct")
}

// cmpOps maps the PTX comparison to the SASS one; unsigned marks the
// unsigned integer spellings, float the float-only ones.
var cmpOps = map[string]struct {
	sass            string
	unsigned, float bool
}{
	".eq": {sass: "EQ"}, ".ne": {sass: "NE"},
	".lt": {sass: "LT"}, ".le": {sass: "LE"}, ".gt": {sass: "GT"}, ".ge": {sass: "GE"},
	".lo": {sass: "LT", unsigned: true}, ".ls": {sass: "LE", unsigned: true},
	".hi": {sass: "GT", unsigned: true}, ".hs": {sass: "GE", unsigned: true},
	".equ": {sass: "EQU", float: true}, ".neu": {sass: "NEU", float: true},
	".ltu": {sass: "LTU", float: true}, ".leu": {sass: "LEU", float: true},
	".gtu": {sass: "GTU", float: true}, ".geu": {sass: "GEU", float: true},
	".num": {sass: "NUM", float: true}, ".nan": {sass: "NAN", float: true},
}

// cmpComplement is the float comparison that is true exactly when the
// given one is false (NaN operands included).
var cmpComplement = map[string]string{
	"LT": "GEU", "LE": "GTU", "GT": "LEU", "GE": "LTU", "EQ": "NEU", "NE": "EQU",
	"LTU": "GE", "LEU": "GT", "GTU": "LE", "GEU": "LT", "EQU": "NE", "NEU": "EQ",
	"NUM": "NAN", "NAN": "NUM",
}

// cmpMods is the parsed comparison of a setp or set.
type cmpMods struct {
	cmp      string // SASS comparison
	unsigned bool   // lo ls hi hs
	float    bool   // a float-only comparison
	boolOp   string // AND OR XOR
	hasBool  bool   // the instruction has a BoolOp (and a c operand)
	ftz      bool
}

func (c *fn) cmpParse(in *ptx.Instr) (cmpMods, error) {
	var m cmpMods
	m.boolOp = "AND"
	for _, x := range in.Mods {
		if op, ok := cmpOps[x]; ok {
			m.cmp, m.unsigned, m.float = op.sass, op.unsigned, op.float
		}
		switch x {
		case ".and", ".or", ".xor":
			m.boolOp, m.hasBool = map[string]string{".and": "AND", ".or": "OR", ".xor": "XOR"}[x], true
		case ".ftz":
			m.ftz = true
		}
	}
	if m.cmp == "" {
		return m, c.l.errorf(in.OpPos, "%s needs a comparison", in.Op)
	}
	return m, nil
}

// cmpPred returns a predicate source operand: a predicate register
// (possibly negated) or a literal (1 is true).
func (c *fn) cmpPred(o *ptx.Operand) (ori.Operand, error) {
	switch o.Kind {
	case ptx.OpName:
		r := c.lookupReg(o.Name)
		if r == nil || !r.pred {
			return ori.Operand{}, c.l.errorf(o.Pos, "%s is not a predicate", o.Name)
		}
		p := ori.R(r.reg)
		p.Not = o.Not
		return p, nil
	case ptx.OpInt:
		v, _ := o.Int()
		if v != 0 {
			return flPT, nil
		}
		return flNotPT, nil
	}
	return ori.Operand{}, c.l.unsupported(o.Pos, "predicate operand %s", describe(o))
}

// cmpPredDst returns the predicate a setp destination names (PT for a
// sink: the write is dropped).
func (c *fn) cmpPredDst(o *ptx.Operand) (ori.Reg, error) {
	if o.Kind == ptx.OpSink {
		return ori.PT, nil
	}
	r, err := c.dst(o, ".pred")
	if err != nil {
		return r, err
	}
	if r.Class != ori.ClassP {
		return r, c.l.errorf(o.Pos, "%s is not a predicate", describe(o))
	}
	return r, nil
}

// cmpExt returns the low n bits of o sign- or zero-extended to 32 bits.
func (c *fn) cmpExt(o ori.Operand, n int, signed bool) ori.Operand {
	if n >= 32 {
		return o
	}
	if o.Kind == ori.OpdImm {
		v := uint64(o.Imm) & (1<<uint(n) - 1)
		if signed && v>>(uint(n)-1) != 0 {
			v |= ^uint64(0) << uint(n)
		}
		return ori.Imm(int64(int32(uint32(v))))
	}
	o = c.flPlain(o, 1)
	if signed {
		return c.flR32(ori.OpSGXT, nil, o, ori.Imm(int64(n)))
	}
	return c.flLop(o, flImm32(uint32(1)<<uint(n)-1), flRZ, func(a, b, _ bool) bool { return a && b })
}

// cmpEmit writes the comparison a <cmp> b of PTX type t, combined with
// the predicate operand cp by m.boolOp, to p and q: for scalar types
// p = t bool c and q = !t bool c, for packed halves p is lane 0 and q
// lane 1. q may be PT (not wanted).
func (c *fn) cmpEmit(in *ptx.Instr, m cmpMods, t string, cp ori.Operand, a, b ori.Operand, p, q ori.Reg) error {
	kind := flKind(t)
	if kind != 0 && m.unsigned {
		return c.l.errorf(in.OpPos, "%s: unsigned comparison on %s", in.Op, t)
	}
	if kind == 0 && m.float {
		return c.l.errorf(in.OpPos, "%s: float comparison on %s", in.Op, t)
	}
	dsts := []ori.Operand{ori.R(p), ori.R(q)}
	switch kind {
	case 32:
		mods := []string{m.cmp}
		if m.ftz {
			mods = append(mods, "FTZ")
		}
		c.emit(ori.OpFSETP, append(mods, m.boolOp), dsts, c.flPlain(a, 1), c.flPlain(b, 1), cp)
		return nil
	case 64:
		c.emit(ori.OpDSETP, []string{m.cmp, m.boolOp}, dsts, c.flPlain(a, 2), c.flPlain(b, 2), cp)
		return nil
	case 16:
		a, b = c.flPlain(a, 1), c.flPlain(b, 1)
		hmods := func(cmp string) []string {
			var mods []string
			if flIsBF(t) {
				mods = append(mods, "BF16_V2")
			}
			mods = append(mods, cmp)
			if m.ftz {
				mods = append(mods, "FTZ")
			}
			return append(mods, m.boolOp)
		}
		if t == ".f16x2" || t == ".bf16x2" || q == ori.PT {
			c.emit(ori.OpHSETP2, hmods(m.cmp), dsts, a, b, cp)
			return nil
		}
		// Scalar with a complement: lane 0 of the comparison and of its
		// complement. p goes through a temporary in case it is also c.
		tp := c.newPred()
		c.emit(ori.OpHSETP2, hmods(m.cmp), []ori.Operand{ori.R(tp), flPT}, a, b, cp)
		c.emit(ori.OpHSETP2, hmods(cmpComplement[m.cmp]), []ori.Operand{ori.R(q), flPT}, a, b, cp)
		c.emit(ori.OpPLOP3, []string{"LUT"}, []ori.Operand{ori.R(p), flPT}, ori.R(tp), flPT, flPT, ori.Imm(0xf0), ori.Imm(0))
		return nil
	}
	n := typeBits(t)
	signed := isSigned(t) && !m.unsigned
	if n > 64 || n < 8 {
		return c.l.unsupported(in.OpPos, "%s on %s", in.Op, t)
	}
	mods := func(u bool, boolOp string, ex bool) []string {
		r := []string{m.cmp}
		if u {
			r = append(r, "U32")
		}
		r = append(r, boolOp)
		if ex {
			r = append(r, "EX")
		}
		return r
	}
	if n == 64 {
		a, b = c.flPlain(a, 2), c.flPlain(b, 2)
		lo := c.flSetp(ori.OpISETP, mods(true, "AND", false), word(a, 0), word(b, 0), flPT)
		c.emit(ori.OpISETP, mods(!signed, m.boolOp, true), dsts, word(a, 1), word(b, 1), cp, ori.R(lo))
		return nil
	}
	a, b = c.cmpExt(a, n, signed), c.cmpExt(b, n, signed)
	c.emit(ori.OpISETP, mods(!signed, m.boolOp, false), dsts, c.flPlain(a, 1), c.flPlain(b, 1), cp)
	return nil
}

// cmpOperands reads the a, b (and c) operands of a setp or set whose
// sources are Args[first], Args[first+1].
func (c *fn) cmpOperands(in *ptx.Instr, m cmpMods, t string) (a, b, cp ori.Operand, err error) {
	want := 3
	if m.hasBool {
		want = 4
	}
	if len(in.Args) != want {
		return a, b, cp, c.l.errorf(in.OpPos, "%s needs %d operands", in.Op, want)
	}
	if a, err = c.src(in.Args[1], t); err != nil {
		return
	}
	if b, err = c.src(in.Args[2], t); err != nil {
		return
	}
	cp = flPT
	if m.hasBool {
		cp, err = c.cmpPred(in.Args[3])
	}
	return
}

func lowerSetp(c *fn, in *ptx.Instr) error {
	m, err := c.cmpParse(in)
	if err != nil {
		return err
	}
	t := lastType(in)
	a, b, cp, err := c.cmpOperands(in, m, t)
	if err != nil {
		return err
	}
	q := ori.PT
	var p ori.Reg
	if d := in.Args[0]; d.Kind == ptx.OpPair && len(d.Elems) == 2 {
		if p, err = c.cmpPredDst(d.Elems[0]); err != nil {
			return err
		}
		if q, err = c.cmpPredDst(d.Elems[1]); err != nil {
			return err
		}
	} else if p, err = c.cmpPredDst(d); err != nil {
		return err
	}
	return c.cmpEmit(in, m, t, cp, a, b, p, q)
}

func lowerSet(c *fn, in *ptx.Instr) error {
	m, err := c.cmpParse(in)
	if err != nil {
		return err
	}
	ts := types(in)
	if len(ts) != 2 {
		return c.l.errorf(in.OpPos, "set needs a destination and a source type")
	}
	dt, st := ts[0], ts[1]
	a, b, cp, err := c.cmpOperands(in, m, st)
	if err != nil {
		return err
	}
	d, err := c.dst(in.Args[0], dt)
	if err != nil {
		return err
	}
	d = d.Word(0)
	if st == ".f16x2" || st == ".bf16x2" {
		var lo, hi uint32
		switch dt {
		case ".u32", ".s32", ".b32":
			lo, hi = 0xffff, 0xffff0000
		case ".f16x2":
			lo, hi = 0x3c00, 0x3c000000
		case ".bf16x2":
			lo, hi = 0x3f80, 0x3f800000
		default:
			return c.l.unsupported(in.OpPos, "set%s%s", dt, st)
		}
		p0, p1 := c.newPred(), c.newPred()
		if err := c.cmpEmit(in, m, st, cp, a, b, p0, p1); err != nil {
			return err
		}
		l := c.flSel(flImm32(lo), flRZ, ori.R(p0))
		h := c.flSel(flImm32(hi), flRZ, ori.R(p1))
		c.flOp(ori.OpLOP3, []string{"LUT"}, d, l, h, flRZ, ori.Imm(int64(lut3(func(a, b, _ bool) bool { return a || b }))), flNotPT)
		return nil
	}
	var one uint32
	switch dt {
	case ".u32", ".s32", ".b32":
		one = 0xffffffff
	case ".f32":
		one = flOne32
	case ".f16":
		one = 0x3c00
	case ".bf16":
		one = 0x3f80
	default:
		return c.l.unsupported(in.OpPos, "set%s%s", dt, st)
	}
	if dt == ".f32" && in.Guard != nil {
		// Decision: a guarded set with an .f32 result is what ptxas 13.0
		// makes of it, a guarded 0/-1 select followed by an unguarded
		// IABS and I2F.F32.S32 (FSETP, SEL, IABS, I2FP in its SASS for
		// @p set.gtu.f32.f32), so where the guard is false the result is
		// the old value's bits, as an integer's magnitude, converted to
		// f32, not the old value. The H100 shows it: @%p2 set.gtu.f32.f32
		// left 0x4e840000 = float(0x42000000) where %f4 held 0x42000000
		// (fuzz5550513), @%p2 set.ge.ftz.f32.f32 left float(0x3f800000)
		// (fuzz5551552). PTX says the destination is unchanged.
		p := c.newPred()
		if err := c.cmpEmit(in, m, st, cp, a, b, p, ori.PT); err != nil {
			return err
		}
		c.flOp(ori.OpSEL, nil, d, flImm32(0xffffffff), flRZ, ori.R(p))
		c.emitRaw(ori.OpIABS, nil, []ori.Operand{ori.R(d)}, ori.R(d))
		c.emitRaw(ori.OpI2F, []string{"F32", "S32", "RN"}, []ori.Operand{ori.R(d)}, ori.R(d))
		return nil
	}
	if st == ".f32" && dt == ".f32" {
		// Decision: FSET only for an .f32 result. From sm_70 on FSET
		// always writes 1.0/0.0 (nvdisasm prints FSET.BF, and no bit of
		// the word turns it into the 0/-1 form of earlier targets:
		// measured by flipping bits 64-104 of ptxas's FSET.BF.GT.AND
		// word), so a 0/-1 result is FSETP and SEL, as ptxas 13.0
		// compiles set.gt.u32.f32.
		mods := []string{"BF", m.cmp}
		if m.ftz {
			mods = append(mods, "FTZ")
		}
		c.flOp(ori.OpFSET, append(mods, m.boolOp), d, c.flPlain(a, 1), c.flPlain(b, 1), cp)
		return nil
	}
	p := c.newPred()
	if err := c.cmpEmit(in, m, st, cp, a, b, p, ori.PT); err != nil {
		return err
	}
	c.flOp(ori.OpSEL, nil, d, flImm32(one), flRZ, ori.R(p))
	return nil
}

func lowerSelp(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 4); err != nil {
		return err
	}
	t := lastType(in)
	words := wordsOf(t)
	d, err := c.dst(in.Args[0], t)
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
	cp, err := c.cmpPred(in.Args[3])
	if err != nil {
		return err
	}
	a, b = c.flPlain(a, words), c.flPlain(b, words)
	// Word by word: d's word w is written after a's and b's word w are
	// read, and never read again, so d may alias a or b.
	for w := 0; w < words; w++ {
		c.flOp(ori.OpSEL, nil, d.Word(w), word(a, w), word(b, w), cp)
	}
	return nil
}

// lowerSlct: d = c >= 0 ? a : b, with c .s32 (signed) or .f32 (-0 >= 0;
// NaN is not; .ftz compares a subnormal c as zero).
func lowerSlct(c *fn, in *ptx.Instr) error {
	if err := c.flCheck(in, 4); err != nil {
		return err
	}
	ts := types(in)
	if len(ts) != 2 {
		return c.l.errorf(in.OpPos, "slct needs a destination and a condition type")
	}
	dt, ct := ts[0], ts[1]
	words := wordsOf(dt)
	d, err := c.dst(in.Args[0], dt)
	if err != nil {
		return err
	}
	a, err := c.src(in.Args[1], dt)
	if err != nil {
		return err
	}
	b, err := c.src(in.Args[2], dt)
	if err != nil {
		return err
	}
	cv, err := c.src(in.Args[3], ct)
	if err != nil {
		return err
	}
	cv = c.flPlain(cv, 1)
	var p ori.Reg
	switch ct {
	case ".s32":
		p = c.flSetp(ori.OpISETP, []string{"GE", "AND"}, cv, flRZ, flPT)
	case ".f32":
		mods := []string{"GE"}
		if in.HasMod(".ftz") {
			mods = append(mods, "FTZ")
		}
		p = c.flSetp(ori.OpFSETP, append(mods, "AND"), cv, flF32(0), flPT)
	default:
		return c.l.unsupported(in.OpPos, "slct with a %s condition", ct)
	}
	a, b = c.flPlain(a, words), c.flPlain(b, words)
	for w := 0; w < words; w++ {
		c.flOp(ori.OpSEL, nil, d.Word(w), word(a, w), word(b, w), ori.R(p))
	}
	return nil
}
