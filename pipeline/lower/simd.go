package lower

import (
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// The SIMD video instructions
//
//	vop2.dtype.atype.btype{.sat}  d{.mask}, a{.asel}, b{.bsel}, c;
//	vop2.dtype.atype.btype.add    d{.mask}, a{.asel}, b{.bsel}, c;
//	vset2.atype.btype.cmp{.add}   d{.mask}, a{.asel}, b{.bsel}, c;
//
// (vop2 = vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2, and the same with 4
// for bytes) work on two half-words or four bytes in parallel. Each
// element of a and b is picked from the eight bytes of {b, a} by the
// selector (.hxy: half-words 0-3, element 1 = x, element 0 = y; .bxyzw:
// bytes 0-7, element 3 = x ... element 0 = w; a defaults to .h10/.b3210,
// b to .h32/.b7654) and sign- or zero-extended by its type. Every element
// operation is then exact in 32 bits (at most 18 significant bits), so
// the lowering computes the manual's t[i] exactly: PRMT to pick and
// extend, IADD3/IABS/ISETP+SEL to combine, ISETP+SEL to clamp for .sat.
// The secondary operation is the manual's: .add sums c and the full t[i]
// of the elements the mask selects (ptxas 13.0's code does the same: no
// truncation before the sum); without it, d takes t[i]'s low bits in the
// masked elements and c's element elsewhere. The mask defaults to all
// elements (.h10, .b3210).
//
// ptxas emits its own bit-parallel sequences for some forms (vadd2
// without .sat: IADD3, LOP3, IADD3); the per-element code here is longer
// and computes the same value.

func init() {
	register(lowerSIMDVideo, "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
		"vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4")
}

func lowerSIMDVideo(c *fn, in *ptx.Instr) error {
	op := in.Op[:len(in.Op)-1]
	n := int(in.Op[len(in.Op)-1] - '0')
	eb := 32 / n // element bits: 16 or 8
	if len(in.Args) != 4 {
		return c.l.errorf(in.OpPos, "%s takes d, a, b and c", in.Op)
	}
	ts := types(in)
	isSet := op == "vset"
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
	add, sat := in.HasMod(".add"), in.HasMod(".sat")
	if add && sat {
		return c.l.errorf(in.OpPos, "%s cannot have both .sat and .add", in.Op)
	}
	if sat && isSet {
		return c.l.errorf(in.OpPos, "vset%d has no .sat", n)
	}
	for _, m := range in.Mods {
		switch m {
		case ".min", ".max":
			return c.l.errorf(in.OpPos, "%s takes .add or no secondary operation, not %s", in.Op, m)
		}
	}
	// Selectors and the mask.
	sel := func(o *ptx.Operand, def string) (string, error) {
		s := def
		if o.Kind == ptx.OpName && o.Comp != "" {
			s = o.Comp
		}
		want := 2 + n // ".h" + 2 digits, ".b" + 4 digits
		kind := map[int]byte{2: 'h', 4: 'b'}[n]
		if len(s) != want || s[1] != kind {
			return "", c.l.errorf(o.Pos, "%s needs a .%c selector with %d digits, not %s", in.Op, kind, n, s)
		}
		return s[2:], nil
	}
	defA, defB, defMask := ".h10", ".h32", ".h10"
	if n == 4 {
		defA, defB, defMask = ".b3210", ".b7654", ".b3210"
	}
	asel, err := sel(in.Args[1], defA)
	if err != nil {
		return err
	}
	bsel, err := sel(in.Args[2], defB)
	if err != nil {
		return err
	}
	mask := defMask[2:]
	if o := in.Args[0]; o.Kind == ptx.OpName && o.Comp != "" {
		mask = o.Comp[2:]
		if o.Comp[1] != defMask[1] || !simdMask(mask, n) {
			return c.l.errorf(o.Pos, "%s: %s is not a valid mask", in.Op, o.Comp)
		}
	}
	d, err := c.dst(in.Args[0], ".u32")
	if err != nil {
		return err
	}
	word32 := func(o *ptx.Operand) (ori.Operand, error) {
		v, err := c.src(o, ".u32")
		if err != nil {
			return v, err
		}
		return c.bitsReg(word(v, 0)), nil
	}
	a, err := word32(in.Args[1])
	if err != nil {
		return err
	}
	b, err := word32(in.Args[2])
	if err != nil {
		return err
	}
	cv, err := word32(in.Args[3])
	if err != nil {
		return err
	}
	// pick returns element i of a selector over {b, a}, extended.
	pick := func(digits string, i int, signed bool) ori.Operand {
		k := uint32(digits[len(digits)-1-i] - '0') // element i's half or byte
		var s uint32
		if eb == 16 {
			lo, hi := 2*k, 2*k+1
			if signed {
				s = (hi|8)<<12 | (hi|8)<<8 | hi<<4 | lo
			} else {
				s = hi<<4 | lo
			}
		} else if signed {
			s = (k|8)<<12 | (k|8)<<8 | (k|8)<<4 | k
		} else {
			s = k
		}
		r := c.newReg(1)
		c.emit(ori.OpPRMT, nil, []ori.Operand{ori.R(r)}, a, bitsImm(s), b)
		if !signed {
			// PRMT's zero nibbles picked a's byte 0 into the upper
			// bytes: keep the element's own bits.
			return c.bitsAnd(ori.R(r), bitsImm(1<<uint(eb)-1))
		}
		return ori.R(r)
	}
	ts2 := make([]ori.Operand, n)
	for i := 0; i < n; i++ {
		va, vb := pick(asel, i, aSigned), pick(bsel, i, bSigned)
		t := c.newReg(1)
		switch op {
		case "vadd":
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(t)}, va, vb, bitsRZ())
		case "vsub":
			nb := vb
			nb.Neg = true
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(t)}, va, nb, bitsRZ())
		case "vavrg":
			// (s + 1) >> 1 for s >= 0, s >> 1 below (arithmetic).
			s := c.newReg(1)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(s)}, va, vb, bitsRZ())
			nonneg := c.bitsCmp("GE", false, ori.R(s), bitsRZ())
			one := c.newReg(1)
			c.bitsSel(one, bitsImm(1), bitsRZ(), nonneg)
			s1 := c.newReg(1)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(s1)}, ori.R(s), ori.R(one), bitsRZ())
			c.emit(ori.OpSHF, []string{"R", "S32", "HI"}, []ori.Operand{ori.R(t)}, bitsRZ(), bitsImm(1), ori.R(s1))
		case "vabsdiff":
			diff := c.newReg(1)
			nb := vb
			nb.Neg = true
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(diff)}, va, nb, bitsRZ())
			c.emit(ori.OpIABS, nil, []ori.Operand{ori.R(t)}, ori.R(diff))
		case "vmin", "vmax":
			// Both are exact 32-bit integers: a signed comparison.
			lt := c.bitsCmp("LT", false, va, vb)
			if op == "vmin" {
				c.bitsSel(t, va, vb, lt)
			} else {
				c.bitsSel(t, vb, va, lt)
			}
		case "vset":
			p, err := simdCmp(c, in, va, vb)
			if err != nil {
				return err
			}
			c.bitsSel(t, bitsImm(1), bitsRZ(), p)
		}
		if sat {
			lo, hi := int32(0), int32(1)<<uint(eb)-1
			if dSigned {
				lo, hi = -1<<uint(eb-1), 1<<uint(eb-1)-1
			}
			t1 := c.newReg(1)
			below := c.bitsCmp("LT", false, ori.R(t), bitsImm(uint32(lo)))
			c.bitsSel(t1, bitsImm(uint32(lo)), ori.R(t), below)
			t2 := c.newReg(1)
			above := c.bitsCmp("GT", false, ori.R(t1), bitsImm(uint32(hi)))
			c.bitsSel(t2, bitsImm(uint32(hi)), ori.R(t1), above)
			t = t2
		}
		ts2[i] = ori.R(t)
	}
	if add {
		acc := cv
		for i := 0; i < n; i++ {
			if !strings.ContainsRune(mask, rune('0'+i)) {
				continue
			}
			s := c.newReg(1)
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(s)}, c.bitsReg(acc), ts2[i], bitsRZ())
			acc = ori.R(s)
		}
		c.mov(d, acc, 1)
		return nil
	}
	// Merge: c's bits outside the masked elements, t[i]'s low bits in.
	var keep uint32 = 0xffffffff
	for i := 0; i < n; i++ {
		if strings.ContainsRune(mask, rune('0'+i)) {
			keep &^= (1<<uint(eb) - 1) << uint(i*eb)
		}
	}
	acc := c.bitsAnd(cv, bitsImm(keep))
	for i := 0; i < n; i++ {
		if !strings.ContainsRune(mask, rune('0'+i)) {
			continue
		}
		part := c.bitsAnd(ts2[i], bitsImm(1<<uint(eb)-1))
		sh := c.newReg(1)
		c.emit(ori.OpSHF, []string{"L", "U32"}, []ori.Operand{ori.R(sh)}, part, bitsImm(uint32(i*eb)), bitsRZ())
		o := c.newReg(1)
		c.bitsLop(o, nil, acc, ori.R(sh), bitsRZ(), func(x, y, _ bool) bool { return x || y })
		acc = ori.R(o)
	}
	c.mov(d, acc, 1)
	return nil
}

// simdMask reports whether digits (after .h or .b) is one of the manual's
// masks: strictly decreasing element numbers below n (.h0 .h1 .h10; .b0
// ... .b3210).
func simdMask(digits string, n int) bool {
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if int(digits[i]-'0') >= n || i > 0 && digits[i] >= digits[i-1] {
			return false
		}
	}
	return true
}

// simdCmp compares two exact 32-bit element values with vset's .cmp.
func simdCmp(c *fn, in *ptx.Instr, a, b ori.Operand) (ori.Operand, error) {
	for _, m := range []string{".eq", ".ne", ".lt", ".le", ".gt", ".ge"} {
		if in.HasMod(m) {
			return c.bitsCmp(strings.ToUpper(m[1:]), false, a, b), nil
		}
	}
	return ori.Operand{}, c.l.errorf(in.OpPos, "%s needs a comparison (.eq, .ne, .lt, .le, .gt, .ge)", in.Op)
}
