package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
	"orilab/pipeline/sim/fp"
)

// Packed half-precision and the division check, as defined in the
// Semantics blocks of pipeline/lower/float.go and cmp.go.

func init() {
	execTable[ori.OpHADD2] = execH2Arith
	execTable[ori.OpHMUL2] = execH2Arith
	execTable[ori.OpHFMA2] = execH2Arith
	execTable[ori.OpHMNMX2] = execHMNMX2
	execTable[ori.OpHSETP2] = execHSETP2
	execTable[ori.OpFCHK] = execFCHK
}

// h2 reads a packed pair with |x| and -x applied to each half.
func (s *machine) h2(w *warp, f *frame, o *opnd, lane int) uint32 {
	v := s.get(w, f, o, lane, 0)
	if o.abs {
		v &^= 0x80008000
	}
	if o.neg {
		v ^= 0x80008000
	}
	return v
}

func execH2Arith(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	rm := rounding(d)
	ftz := d.has("FTZ")
	sat := d.has("SAT")
	relu := d.has("RELU")
	bf := d.has("BF16_V2")
	lane16 := func(a, b, c uint16) uint16 {
		var r uint16
		switch {
		case bf && d.op == ori.OpHADD2:
			r = fp.AddBF16(a, b, rm)
		case bf && d.op == ori.OpHMUL2:
			r = fp.MulBF16(a, b, rm)
		case bf:
			r = fp.FmaBF16(a, b, c, rm)
		case d.op == ori.OpHADD2:
			r = fp.Add16(a, b, rm, ftz)
		case d.op == ori.OpHMUL2:
			r = fp.Mul16(a, b, rm, ftz)
		default:
			r = fp.Fma16(a, b, c, rm, ftz)
		}
		if sat && !bf {
			r = fp.Sat16(r)
		}
		if relu {
			switch {
			case isNaN16(r, bf):
				r = 0x7fff
			case r&0x8000 != 0:
				r = 0
			}
		}
		return r
	}
	s.each(w, f, d, mask, func(lane int) {
		a := s.h2(w, f, &d.src[0], lane)
		b := s.h2(w, f, &d.src[1], lane)
		var c uint32
		if d.op == ori.OpHFMA2 {
			c = s.h2(w, f, &d.src[2], lane)
		}
		lo := lane16(uint16(a), uint16(b), uint16(c))
		hi := lane16(uint16(a>>16), uint16(b>>16), uint16(c>>16))
		s.set(w, f, &d.dst[0], lane, 0, uint32(hi)<<16|uint32(lo))
	})
	return nil
}

func isNaN16(x uint16, bf bool) bool {
	if bf {
		return x&0x7f80 == 0x7f80 && x&0x7f != 0
	}
	return x&0x7c00 == 0x7c00 && x&0x3ff != 0
}

// minmax16 is minNum/maxNum on one half (bfloat16 through f32).
func minmax16(a, b uint16, min, nan, bf bool) uint16 {
	if bf {
		x, y := fp.BF16toF32(a), fp.BF16toF32(b)
		var r uint32
		if min {
			r = fp.Min32(x, y, nan)
		} else {
			r = fp.Max32(x, y, nan)
		}
		if r == 0x7fffffff {
			return 0x7fff
		}
		return uint16(r >> 16)
	}
	if min {
		return fp.Min16(a, b, nan)
	}
	return fp.Max16(a, b, nan)
}

func execHMNMX2(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	nan := d.has("NAN")
	bf := d.has("BF16_V2")
	ftz := d.has("FTZ") && !bf
	p := s.pred(w, f, &d.src[2])
	s.each(w, f, d, mask, func(lane int) {
		a := s.h2(w, f, &d.src[0], lane)
		b := s.h2(w, f, &d.src[1], lane)
		if ftz {
			// Decision: HMNMX2.FTZ flushes subnormal operands (to a zero
			// of their sign) before comparing. The H100 wrote 0 for
			// min.ftz.f16 of subnormals (fuzz5550399: 0x005e, fuzz5550460:
			// 0x03ff, both as x, x).
			a = flushH2(a)
			b = flushH2(b)
		}
		min := p&(1<<lane) != 0
		lo := minmax16(uint16(a), uint16(b), min, nan, bf)
		hi := minmax16(uint16(a>>16), uint16(b>>16), min, nan, bf)
		s.set(w, f, &d.dst[0], lane, 0, uint32(hi)<<16|uint32(lo))
	})
	return nil
}

// execHSETP2: p = (a.lo <cmp> b.lo) <bool> c, q = (a.hi <cmp> b.hi) <bool> c.
func execHSETP2(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	cmp, ok := fcmpOf(d)
	if !ok {
		return s.fault(w, f, d, mask, "no comparison modifier")
	}
	ftz := d.has("FTZ")
	bf := d.has("BF16_V2")
	comb := boolOp(d)
	eff := s.guardMask(w, f, d, mask)
	var tlo, thi uint32
	cmp16 := func(x, y uint16) bool {
		if bf {
			return fp.Cmp32(fp.BF16toF32(x), fp.BF16toF32(y), cmp, false)
		}
		return fp.Cmp16(x, y, cmp, ftz)
	}
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		a := s.h2(w, f, &d.src[0], lane)
		b := s.h2(w, f, &d.src[1], lane)
		if cmp16(uint16(a), uint16(b)) {
			tlo |= 1 << lane
		}
		if cmp16(uint16(a>>16), uint16(b>>16)) {
			thi |= 1 << lane
		}
	}
	c := s.pred(w, f, &d.src[2])
	s.setPred(w, f, &d.dst[0], eff, comb(tlo, c))
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, comb(thi, c))
	}
	advance(f, mask)
	return nil
}

// execFCHK: FCHK.DIVIDE p = a, b is false exactly when 25 <= Ea <= 254,
// 2 <= Eb <= 252 and -125 <= Ea - Eb <= 126 (the exponent fields), the
// range where the fast f32 division sequence is exact.
func execFCHK(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	var p uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		ea := int(s.f32(w, f, &d.src[0], lane) >> 23 & 0xff)
		eb := int(s.f32(w, f, &d.src[1], lane) >> 23 & 0xff)
		ok := ea >= 25 && ea <= 254 && eb >= 2 && eb <= 252 && ea-eb >= -125 && ea-eb <= 126
		if !ok {
			p |= 1 << lane
		}
	}
	s.setPred(w, f, &d.dst[0], eff, p)
	advance(f, mask)
	return nil
}

// flushH2 flushes each subnormal f16 half of x to a zero of its sign.
func flushH2(x uint32) uint32 {
	return uint32(fp.Flush16(uint16(x>>16)))<<16 | uint32(fp.Flush16(uint16(x)))
}
