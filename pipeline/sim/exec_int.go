package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
)

func init() {
	execTable[ori.OpIADD3] = execIADD3
	execTable[ori.OpUIADD3] = execIADD3
	execTable[ori.OpIMAD] = execIMAD
	execTable[ori.OpUIMAD] = execIMAD
	execTable[ori.OpISETP] = execISETP
	execTable[ori.OpUISETP] = execISETP
	execTable[ori.OpIMNMX] = execIMNMX
	execTable[ori.OpIABS] = execIABS
	execTable[ori.OpIDIV] = execIDIV
	execTable[ori.OpLOP3] = execLOP3
	execTable[ori.OpULOP3] = execLOP3
	execTable[ori.OpSHF] = execSHF
	execTable[ori.OpUSHF] = execSHF
	execTable[ori.OpLEA] = execLEA
	execTable[ori.OpULEA] = execLEA
	execTable[ori.OpPOPC] = execUnary(func(d *dinst, a uint32) uint32 { return uint32(bits.OnesCount32(a)) })
	execTable[ori.OpBREV] = execUnary(func(d *dinst, a uint32) uint32 { return bits.Reverse32(a) })
	execTable[ori.OpFLO] = execUnary(flo)
	execTable[ori.OpBMSK] = execBMSK
	execTable[ori.OpPRMT] = execPRMT
	execTable[ori.OpSEL] = execSEL
	execTable[ori.OpUSEL] = execSEL
	execTable[ori.OpSGXT] = execSGXT
	execTable[ori.OpIDP] = execIDP
	execTable[ori.OpMOV] = execMOV
	execTable[ori.OpUMOV] = execMOV
	execTable[ori.OpULDC] = execMOV
	execTable[ori.OpPLOP3] = execPLOP3
	execTable[ori.OpS2R] = execMOV
	execTable[ori.OpS2UR] = execMOV
	execTable[ori.OpCS2R] = execCS2R
	execTable[ori.OpP2R] = execP2R
	execTable[ori.OpR2P] = execR2P
	execTable[ori.OpNOP] = func(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
		advance(f, mask)
		return nil
	}
}

// ival reads an integer source: '!' inverts the bits, '-' negates.
func (s *machine) ival(w *warp, f *frame, o *opnd, lane int) uint32 {
	v := s.get(w, f, o, lane, 0)
	if o.not {
		v = ^v
	}
	if o.neg {
		v = -v
	}
	return v
}

// each runs fn for every lane of the guarded mask and advances all lanes.
func (s *machine) each(w *warp, f *frame, d *dinst, mask uint32, fn func(lane int)) {
	eff := s.guardMask(w, f, d, mask)
	for m := eff; m != 0; m &= m - 1 {
		fn(bits.TrailingZeros32(m))
	}
	advance(f, mask)
}

// execIADD3: S = a + b + c (+ carries with .X) in 64 bits, where a negated
// source contributes ~x + 1 (so -0 contributes 2^32) and an inverted one ~x.
func execIADD3(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	x := d.has("X")
	eff := s.guardMask(w, f, d, mask)
	if !x && len(d.dst) == 1 {
		// No carries: the 32-bit sum is all that is observable.
		var ba, bb, bc vec
		a := s.fetch(w, f, &d.src[0], 0, eff, &ba)
		b := s.fetch(w, f, &d.src[1], 0, eff, &bb)
		c := s.fetch(w, f, &d.src[2], 0, eff, &bc)
		if dv := s.dstVec(w, f, &d.dst[0], 0); dv != nil {
			for m := eff; m != 0; m &= m - 1 {
				l := trailing(m)
				dv[l] = a[l] + b[l] + c[l]
			}
		}
		advance(f, mask)
		return nil
	}
	var c0, c1 uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		var sum uint64
		for i := 0; i < 3; i++ {
			o := &d.src[i]
			v := s.get(w, f, o, lane, 0)
			if o.not {
				v = ^v
			}
			if o.neg {
				sum += uint64(^v) + 1
			} else {
				sum += uint64(v)
			}
		}
		if x {
			if len(d.src) > 3 && s.pred(w, f, &d.src[3])&(1<<lane) != 0 {
				sum++
			}
			if len(d.src) > 4 && s.pred(w, f, &d.src[4])&(1<<lane) != 0 {
				sum++
			}
		}
		s.set(w, f, &d.dst[0], lane, 0, uint32(sum))
		c0 |= uint32(sum>>32&1) << lane
		c1 |= uint32(sum>>33&1) << lane
	}
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, c0)
	}
	if len(d.dst) > 2 {
		s.setPred(w, f, &d.dst[2], eff, c1)
	}
	advance(f, mask)
	return nil
}

// execIMAD implements IMAD (lo), .HI, .WIDE and .SHL; signed unless .U32.
// A second result receives the carry out of the addition.
func execIMAD(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	unsigned := d.has("U32")
	eff := s.guardMask(w, f, d, mask)
	if len(d.in.Mods) == 0 && len(d.dst) == 1 {
		var ba, bb, bc vec
		a := s.fetch(w, f, &d.src[0], 0, eff, &ba)
		b := s.fetch(w, f, &d.src[1], 0, eff, &bb)
		c := s.fetch(w, f, &d.src[2], 0, eff, &bc)
		if dv := s.dstVec(w, f, &d.dst[0], 0); dv != nil {
			for m := eff; m != 0; m &= m - 1 {
				l := trailing(m)
				dv[l] = a[l]*b[l] + c[l]
			}
		}
		advance(f, mask)
		return nil
	}
	var carry uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		a := s.ival(w, f, &d.src[0], lane)
		b := s.ival(w, f, &d.src[1], lane)
		var ci uint64
		if d.has("X") && len(d.src) > 3 && s.pred(w, f, &d.src[3])&(1<<lane) != 0 {
			ci = 1
		}
		switch {
		case d.has("WIDE"):
			var p uint64
			if unsigned {
				p = uint64(a) * uint64(b)
			} else {
				p = uint64(int64(int32(a)) * int64(int32(b)))
			}
			c := s.get64(w, f, &d.src[2], lane)
			if d.src[2].neg {
				c = -c
			}
			sum, co := bits.Add64(p, c, ci)
			s.set64(w, f, &d.dst[0], lane, sum)
			carry |= uint32(co) << lane
		case d.has("HI"):
			var hi uint32
			if unsigned {
				hi = uint32(uint64(a) * uint64(b) >> 32)
			} else {
				hi = uint32(uint64(int64(int32(a))*int64(int32(b))) >> 32)
			}
			c := s.ival(w, f, &d.src[2], lane)
			sum := uint64(hi) + uint64(c) + ci
			s.set(w, f, &d.dst[0], lane, 0, uint32(sum))
			carry |= uint32(sum>>32&1) << lane
		case d.has("SHL"):
			c := s.ival(w, f, &d.src[2], lane)
			sum := uint64(a<<(b&31)) + uint64(c) + ci
			s.set(w, f, &d.dst[0], lane, 0, uint32(sum))
			carry |= uint32(sum>>32&1) << lane
		default:
			c := s.ival(w, f, &d.src[2], lane)
			sum := uint64(a*b) + uint64(c) + ci
			s.set(w, f, &d.dst[0], lane, 0, uint32(sum))
			carry |= uint32(sum>>32&1) << lane
		}
	}
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, carry)
	}
	advance(f, mask)
	return nil
}

type cmpKind uint8

const (
	cmpLT cmpKind = iota
	cmpEQ
	cmpLE
	cmpGT
	cmpNE
	cmpGE
	cmpNone
)

func cmpOf(d *dinst) cmpKind {
	for _, m := range d.in.Mods {
		switch m {
		case "LT":
			return cmpLT
		case "EQ":
			return cmpEQ
		case "LE":
			return cmpLE
		case "GT":
			return cmpGT
		case "NE":
			return cmpNE
		case "GE":
			return cmpGE
		}
	}
	return cmpNone
}

// boolOp combines a comparison result t with predicate c per .AND/.OR/.XOR.
func boolOp(d *dinst) func(t, c uint32) uint32 {
	switch {
	case d.has("OR"):
		return func(t, c uint32) uint32 { return t | c }
	case d.has("XOR"):
		return func(t, c uint32) uint32 { return t ^ c }
	}
	return func(t, c uint32) uint32 { return t & c }
}

func icmp(k cmpKind, a, b uint32, unsigned bool) bool {
	if !unsigned {
		x, y := int32(a), int32(b)
		switch k {
		case cmpLT:
			return x < y
		case cmpEQ:
			return x == y
		case cmpLE:
			return x <= y
		case cmpGT:
			return x > y
		case cmpNE:
			return x != y
		case cmpGE:
			return x >= y
		}
		return false
	}
	switch k {
	case cmpLT:
		return a < b
	case cmpEQ:
		return a == b
	case cmpLE:
		return a <= b
	case cmpGT:
		return a > b
	case cmpNE:
		return a != b
	case cmpGE:
		return a >= b
	}
	return false
}

// execISETP: t = a <cmp> b; p = t <bool> c, q = !t <bool> c.
//
// With .EX, a and b are the high words of 64-bit operands and the fourth
// source holds the result of the same comparison on the low words
// (computed unsigned): EQ: t = hi== && low; NE: t = hi!= || low; the
// ordered comparisons: t = hi<cmp-strict> || (hi== && low), where LE/GE
// use the low-word result for the equal-high case and LT/GT too. The
// high words compare signed unless .U32.
func execISETP(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	k := cmpOf(d)
	unsigned := d.has("U32")
	comb := boolOp(d)
	ex := d.has("EX")
	eff := s.guardMask(w, f, d, mask)
	var t uint32
	var low uint32
	if ex && len(d.src) > 3 {
		low = s.pred(w, f, &d.src[3])
	}
	var ba, bb vec
	av := s.fetch(w, f, &d.src[0], 0, eff, &ba)
	bv := s.fetch(w, f, &d.src[1], 0, eff, &bb)
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		a, b := av[lane], bv[lane]
		var r bool
		if ex {
			lo := low&(1<<lane) != 0
			switch k {
			case cmpEQ:
				r = a == b && lo
			case cmpNE:
				r = a != b || lo
			case cmpLT, cmpLE:
				r = icmp(cmpLT, a, b, unsigned) || a == b && lo
			case cmpGT, cmpGE:
				r = icmp(cmpGT, a, b, unsigned) || a == b && lo
			}
		} else {
			r = icmp(k, a, b, unsigned)
		}
		if r {
			t |= 1 << lane
		}
	}
	c := s.pred(w, f, &d.src[2])
	s.setPred(w, f, &d.dst[0], eff, comb(t, c))
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, comb(^t, c))
	}
	advance(f, mask)
	return nil
}

func execIMNMX(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	unsigned := d.has("U32")
	p := s.pred(w, f, &d.src[2])
	s.each(w, f, d, mask, func(lane int) {
		a := s.ival(w, f, &d.src[0], lane)
		b := s.ival(w, f, &d.src[1], lane)
		lt := icmp(cmpLT, a, b, unsigned)
		min, max := b, a
		if lt {
			min, max = a, b
		}
		if p&(1<<lane) != 0 {
			s.set(w, f, &d.dst[0], lane, 0, min)
		} else {
			s.set(w, f, &d.dst[0], lane, 0, max)
		}
	})
	return nil
}

func execIABS(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	s.each(w, f, d, mask, func(lane int) {
		a := int32(s.ival(w, f, &d.src[0], lane))
		if a < 0 {
			a = -a
		}
		s.set(w, f, &d.dst[0], lane, 0, uint32(a))
	})
	return nil
}

// execIDIV: IDIV.<U32|S32|U64|S64>[.REM] d = a, b, the pseudo-operation
// the expansion in pipeline/lower (intDivMod32, intDivMod64) replaces; it
// computes the same bits: all ones for b = 0, Go's truncating division
// otherwise (which, like the expansion, gives INT_MIN / -1 = INT_MIN and
// INT_MIN % -1 = 0, in both widths).
func execIDIV(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	signed, rem := d.has("S32") || d.has("S64"), d.has("REM")
	if d.has("U64") || d.has("S64") {
		s.each(w, f, d, mask, func(lane int) {
			a, b := s.get64(w, f, &d.src[0], lane), s.get64(w, f, &d.src[1], lane)
			var v uint64
			switch {
			case b == 0:
				v = ^uint64(0)
			case signed && rem:
				v = uint64(int64(a) % int64(b))
			case signed:
				v = uint64(int64(a) / int64(b))
			case rem:
				v = a % b
			default:
				v = a / b
			}
			s.set64(w, f, &d.dst[0], lane, v)
		})
		return nil
	}
	s.each(w, f, d, mask, func(lane int) {
		a, b := s.ival(w, f, &d.src[0], lane), s.ival(w, f, &d.src[1], lane)
		var v uint32
		switch {
		case b == 0:
			v = 0xffffffff
		case signed && rem:
			v = uint32(int32(a) % int32(b))
		case signed:
			v = uint32(int32(a) / int32(b))
		case rem:
			v = a % b
		default:
			v = a / b
		}
		s.set(w, f, &d.dst[0], lane, 0, v)
	})
	return nil
}

// lop3 applies an 8-bit truth table bitwise (bit index a<<2|b<<1|c): the
// result is the OR of the minterms the table selects.
func lop3(lut uint32, a, b, c uint32) uint32 {
	switch lut & 0xff {
	case 0xc0:
		return a & b
	case 0xfc:
		return a | b
	case 0x3c:
		return a ^ b
	case 0x96:
		return a ^ b ^ c
	case 0xf8:
		return a | b&c
	}
	var r uint32
	for i := uint32(0); i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		x, y, z := ^a, ^b, ^c
		if i&4 != 0 {
			x = a
		}
		if i&2 != 0 {
			y = b
		}
		if i&1 != 0 {
			z = c
		}
		r |= x & y & z
	}
	return r
}

func execLOP3(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	var nz uint32
	var ba, bb, bc, bl vec
	a := s.fetch(w, f, &d.src[0], 0, eff, &ba)
	b := s.fetch(w, f, &d.src[1], 0, eff, &bb)
	c := s.fetch(w, f, &d.src[2], 0, eff, &bc)
	lut := s.fetch(w, f, &d.src[3], 0, eff, &bl)
	dv := s.dstVec(w, f, &d.dst[0], 0)
	for m := eff; m != 0; m &= m - 1 {
		l := trailing(m)
		r := lop3(lut[l], a[l], b[l], c[l])
		if dv != nil {
			dv[l] = r
		}
		if r != 0 {
			nz |= 1 << l
		}
	}
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, nz)
	}
	advance(f, mask)
	return nil
}

// execSHF: see SEMANTICS.md. The 64-bit value hi:lo shifts by the clamped
// amount; d is its low word, or its high word with .HI.
func execSHF(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	left := d.has("L")
	wide := d.has("U64") || d.has("S64")
	signed := d.has("S32") || d.has("S64")
	wrap := d.has("W")
	hiOut := d.has("HI")
	eff := s.guardMask(w, f, d, mask)
	var blo, bsh, bhi vec
	lov := s.fetch(w, f, &d.src[0], 0, eff, &blo)
	shv := s.fetch(w, f, &d.src[1], 0, eff, &bsh)
	hiv := s.fetch(w, f, &d.src[2], 0, eff, &bhi)
	dv := s.dstVec(w, f, &d.dst[0], 0)
	for m := eff; m != 0; m &= m - 1 {
		lane := trailing(m)
		lo, sh, hi := lov[lane], shv[lane], hiv[lane]
		var n uint32
		switch {
		case wrap && wide:
			n = sh & 63
		case wrap:
			n = sh & 31
		case wide:
			n = min(sh, 64)
		default:
			n = min(sh, 32)
		}
		v := uint64(hi)<<32 | uint64(lo)
		var r uint64
		switch {
		case left:
			if n < 64 {
				r = v << n
			}
		case signed:
			if n >= 64 {
				n = 63
			}
			r = uint64(int64(v) >> n)
		default:
			if n < 64 {
				r = v >> n
			}
		}
		if dv == nil {
			continue
		}
		if hiOut {
			dv[lane] = uint32(r >> 32)
		} else {
			dv[lane] = uint32(r)
		}
	}
	advance(f, mask)
	return nil
}

// execLEA: LEA d[, p] = a, b, s: d = (a << s) + b. LEA.HI d[, p] = a, b,
// c, s: d = high word of ((c:a) << s) + b. .X adds the carry-in predicate
// given after the shift.
func execLEA(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	hi := d.has("HI")
	eff := s.guardMask(w, f, d, mask)
	var carry uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		a := s.ival(w, f, &d.src[0], lane)
		b := s.ival(w, f, &d.src[1], lane)
		var v uint64
		next := 2
		if hi {
			c := s.ival(w, f, &d.src[2], lane)
			sh := s.get(w, f, &d.src[3], lane, 0) & 63
			v = (uint64(c)<<32 | uint64(a)) << sh >> 32
			next = 4
		} else {
			sh := s.get(w, f, &d.src[2], lane, 0) & 31
			v = uint64(a << sh)
			next = 3
		}
		sum := uint64(uint32(v)) + uint64(b)
		if d.has("X") && len(d.src) > next && s.pred(w, f, &d.src[next])&(1<<lane) != 0 {
			sum++
		}
		s.set(w, f, &d.dst[0], lane, 0, uint32(sum))
		carry |= uint32(sum>>32&1) << lane
	}
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, carry)
	}
	advance(f, mask)
	return nil
}

func execUnary(fn func(d *dinst, a uint32) uint32) execFn {
	return func(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
		s.each(w, f, d, mask, func(lane int) {
			s.set(w, f, &d.dst[0], lane, 0, fn(d, s.ival(w, f, &d.src[0], lane)))
		})
		return nil
	}
}

// flo: index of the highest set bit (.U32), or of the highest bit that
// differs from the sign (.S32); 0xffffffff when none. .SH returns 31 - index.
func flo(d *dinst, a uint32) uint32 {
	if d.has("S32") && int32(a) < 0 {
		a = ^a
	}
	if a == 0 {
		return 0xffffffff
	}
	idx := uint32(31 - bits.LeadingZeros32(a))
	if d.has("SH") {
		return 31 - idx
	}
	return idx
}

// execBMSK: ((1 << width) - 1) << pos; width clamps to 32 and pos to 32
// (or both wrap mod 32 with .W).
func execBMSK(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	wrap := d.has("W")
	s.each(w, f, d, mask, func(lane int) {
		pos := s.ival(w, f, &d.src[0], lane)
		width := s.ival(w, f, &d.src[1], lane)
		if wrap {
			pos &= 31
			width &= 31
		} else {
			pos = min(pos, 32)
			width = min(width, 32)
		}
		m := uint64(1)<<width - 1
		s.set(w, f, &d.dst[0], lane, 0, uint32(m<<pos))
	})
	return nil
}

// execPRMT: byte permute of b:a by the selector (see prmt in the PTX ISA;
// modes F4E B4E RC8 ECL ECR RC16 as modifiers).
func execPRMT(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	mode := ""
	for _, m := range []string{"F4E", "B4E", "RC8", "ECL", "ECR", "RC16"} {
		if d.has(m) {
			mode = m
		}
	}
	s.each(w, f, d, mask, func(lane int) {
		a := s.ival(w, f, &d.src[0], lane)
		sel := s.ival(w, f, &d.src[1], lane)
		b := s.ival(w, f, &d.src[2], lane)
		s.set(w, f, &d.dst[0], lane, 0, prmt(a, b, sel, mode))
	})
	return nil
}

func prmt(a, b, c uint32, mode string) uint32 {
	v := uint64(b)<<32 | uint64(a)
	byteOf := func(i uint32) uint32 { return uint32(v>>(8*(i&7))) & 0xff }
	var sel [4]uint32
	switch mode {
	case "":
		var r uint32
		for i := uint32(0); i < 4; i++ {
			n := c >> (4 * i) & 0xf
			x := byteOf(n & 7)
			if n&8 != 0 { // replicate the sign bit of the selected byte
				if x&0x80 != 0 {
					x = 0xff
				} else {
					x = 0
				}
			}
			r |= x << (8 * i)
		}
		return r
	case "F4E": // forward 4 extract: byte i = s + i
		s := c & 3
		sel = [4]uint32{s, s + 1, s + 2, s + 3}
	case "B4E": // backward 4 extract: byte i = s - i (mod 8)
		s := c & 3
		sel = [4]uint32{s, s - 1, s - 2, s - 3}
	case "RC8": // replicate byte s
		s := c & 3
		sel = [4]uint32{s, s, s, s}
	case "ECL": // edge clamp left: byte i = max(i, s)
		s := c & 3
		sel = [4]uint32{s, max(s, 1), max(s, 2), 3}
	case "ECR": // edge clamp right: byte i = min(i, s)
		s := c & 3
		sel = [4]uint32{0, min(s, 1), min(s, 2), s}
	case "RC16": // replicate half s
		s := c & 1
		sel = [4]uint32{2 * s, 2*s + 1, 2 * s, 2*s + 1}
	}
	var r uint32
	for i := 0; i < 4; i++ {
		r |= byteOf(sel[i]&7) << (8 * i)
	}
	return r
}

func execSEL(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	p := s.pred(w, f, &d.src[2])
	s.each(w, f, d, mask, func(lane int) {
		src := &d.src[1]
		if p&(1<<lane) != 0 {
			src = &d.src[0]
		}
		s.set(w, f, &d.dst[0], lane, 0, s.ival(w, f, src, lane))
	})
	return nil
}

// execSGXT sign-extends (zero-extends with .U32) the low n bits of a; n
// is clamped to 32; n = 0 gives 0.
func execSGXT(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	unsigned := d.has("U32")
	s.each(w, f, d, mask, func(lane int) {
		a := s.ival(w, f, &d.src[0], lane)
		n := min(s.ival(w, f, &d.src[1], lane), 32)
		var r uint32
		switch {
		case n == 0:
			r = 0
		case n == 32:
			r = a
		case unsigned:
			r = a & (1<<n - 1)
		default:
			r = uint32(int32(a<<(32-n)) >> (32 - n))
		}
		s.set(w, f, &d.dst[0], lane, 0, r)
	})
	return nil
}

// execIDP: IDP.4A.<S8|U8>.<S8|U8> d = a, b, c: sum of the four byte
// products plus c. IDP.2A.<LO|HI>.<S16|U16>.<S8|U8> d = a, b, c: two
// 16-bit halves of a times two bytes of b (the low or high pair) plus c.
func execIDP(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	mods := d.in.Mods
	s.each(w, f, d, mask, func(lane int) {
		a := s.ival(w, f, &d.src[0], lane)
		b := s.ival(w, f, &d.src[1], lane)
		c := s.ival(w, f, &d.src[2], lane)
		sum := int64(int32(c))
		if d.has("4A") && len(mods) >= 3 {
			as, bs := mods[1] == "S8", mods[2] == "S8"
			for i := 0; i < 4; i++ {
				x := int64(a >> (8 * i) & 0xff)
				y := int64(b >> (8 * i) & 0xff)
				if as && x >= 128 {
					x -= 256
				}
				if bs && y >= 128 {
					y -= 256
				}
				sum += x * y
			}
		} else if d.has("2A") && len(mods) >= 4 {
			as, bs := mods[2] == "S16", mods[3] == "S8"
			off := 0
			if d.has("HI") {
				off = 2
			}
			for i := 0; i < 2; i++ {
				x := int64(a >> (16 * i) & 0xffff)
				y := int64(b >> (8 * (i + off)) & 0xff)
				if as && x >= 32768 {
					x -= 65536
				}
				if bs && y >= 128 {
					y -= 256
				}
				sum += x * y
			}
		}
		s.set(w, f, &d.dst[0], lane, 0, uint32(sum))
	})
	return nil
}

// execMOV copies one word (or every word of a wide destination).
func execMOV(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	words := int(d.dst[0].words)
	if words == 0 {
		words = 1
	}
	s.each(w, f, d, mask, func(lane int) {
		for i := 0; i < words; i++ {
			s.set(w, f, &d.dst[0], lane, i, s.ival(w, f, &d.src[0], lane))
			if i+1 < words {
				// A wide MOV copies word by word from the source tuple.
				s.set(w, f, &d.dst[0], lane, i+1, s.get(w, f, &d.src[0], lane, i+1))
				break
			}
		}
	})
	return nil
}

func execCS2R(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	s.each(w, f, d, mask, func(lane int) {
		s.set(w, f, &d.dst[0], lane, 0, s.get(w, f, &d.src[0], lane, 0))
		if d.dst[0].words >= 2 {
			s.set(w, f, &d.dst[0], lane, 1, s.get(w, f, &d.src[0], lane, 1))
		}
	})
	return nil
}

// execPLOP3: PLOP3.LUT p, q = a, b, c, lut, lut2: p = lut(a, b, c), q =
// lut2(a, b, c), per lane.
func execPLOP3(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	a := s.pred(w, f, &d.src[0])
	b := s.pred(w, f, &d.src[1])
	c := s.pred(w, f, &d.src[2])
	lut := uint32(d.src[3].imm)
	lut2 := uint32(d.src[4].imm)
	s.setPred(w, f, &d.dst[0], eff, lop3(lut, a, b, c))
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, lop3(lut2, a, b, c))
	}
	advance(f, mask)
	return nil
}

// execP2R: P2R d = PR, a, mask: d = (a &^ mask) | (bits of P0-P6 & mask).
// Sources: the first is ignored (PR), the second the base value, the third
// the mask. The uniform predicates are not included.
func execP2R(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	s.each(w, f, d, mask, func(lane int) {
		var pr uint32
		for i := 0; i < 7; i++ {
			if w.ppred[i]&(1<<lane) != 0 {
				pr |= 1 << i
			}
		}
		base := s.ival(w, f, &d.src[len(d.src)-2], lane)
		m := s.ival(w, f, &d.src[len(d.src)-1], lane)
		s.set(w, f, &d.dst[0], lane, 0, base&^m|pr&m)
	})
	return nil
}

// execR2P: R2P PR = a, mask: P_i = bit i of a, for the bits set in mask.
func execR2P(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	for i := 0; i < 7; i++ {
		var set, upd uint32
		for m := eff; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			a := s.ival(w, f, &d.src[0], lane)
			msk := s.ival(w, f, &d.src[1], lane)
			if msk&(1<<i) != 0 {
				upd |= 1 << lane
				if a&(1<<i) != 0 {
					set |= 1 << lane
				}
			}
		}
		w.ppred[i] = w.ppred[i]&^upd | set&upd
	}
	advance(f, mask)
	return nil
}
