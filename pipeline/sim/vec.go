package sim

import "math/bits"

// vec holds one 32-bit value per lane. The hot instructions fetch whole
// operands as vecs once per warp step instead of decoding each operand for
// every lane; that is what makes the simulator fast on ALU code.
type vec [warpSize]uint32

// fetch returns word `word` of operand o for all lanes, with '!' and '-'
// applied (integer semantics). Register operands without modifiers are
// returned in place (no copy); everything else is materialized into buf.
// Lanes outside mask may hold garbage.
func (s *machine) fetch(w *warp, f *frame, o *opnd, word int, mask uint32, buf *vec) *vec {
	switch o.kind {
	case okReg:
		if o.zero {
			*buf = vec{}
		} else {
			base := (int(o.slot) + word) * warpSize
			var r *vec
			if o.phys {
				r = (*vec)(w.phys[base : base+warpSize])
			} else {
				r = (*vec)(f.regs[base : base+warpSize])
			}
			if !o.not && !o.neg {
				return r
			}
			*buf = *r
		}
	case okImm, okSR:
		if o.kind == okImm {
			v := s.get(w, f, o, 0, word)
			for i := range buf {
				buf[i] = v
			}
		} else {
			for m := mask; m != 0; m &= m - 1 {
				lane := trailing(m)
				buf[lane] = s.get(w, f, o, lane, word)
			}
		}
	case okCBank:
		if !o.base {
			v := s.get(w, f, o, 0, word)
			for i := range buf {
				buf[i] = v
			}
		} else {
			for m := mask; m != 0; m &= m - 1 {
				lane := trailing(m)
				buf[lane] = s.get(w, f, o, lane, word)
			}
		}
	default:
		*buf = vec{}
	}
	if o.not {
		for i := range buf {
			buf[i] = ^buf[i]
		}
	}
	if o.neg {
		for i := range buf {
			buf[i] = -buf[i]
		}
	}
	return buf
}

// dstVec returns the destination register word as a vec to write into
// directly, or nil when the destination discards writes (RZ).
func (s *machine) dstVec(w *warp, f *frame, o *opnd, word int) *vec {
	if o.kind != okReg || o.zero {
		return nil
	}
	base := (int(o.slot) + word) * warpSize
	if o.phys {
		return (*vec)(w.phys[base : base+warpSize])
	}
	return (*vec)(f.regs[base : base+warpSize])
}

func trailing(m uint32) int { return bits.TrailingZeros32(m) }
