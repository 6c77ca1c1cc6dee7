package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
)

func init() {
	execTable[ori.OpSHFL] = execSHFL
	execTable[ori.OpVOTE] = execVOTE
	execTable[ori.OpREDUX] = execREDUX
	execTable[ori.OpMATCH] = execMATCH
}

// execSHFL: SHFL.<IDX|UP|DOWN|BFLY> p, d = a, b, c[, membermask], with the
// lane computation of PTX shfl.sync: c packs the clamp value (bits 0-4)
// and the segment mask (bits 8-12).
func execSHFL(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	var vals [warpSize]uint32
	for lane := 0; lane < warpSize; lane++ {
		if w.live&(1<<lane) != 0 {
			vals[lane] = s.get(w, f, &d.src[0], lane, 0)
		}
	}
	var pv uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := uint32(bits.TrailingZeros32(m))
		b := s.get(w, f, &d.src[1], int(lane), 0) & 31
		c := s.get(w, f, &d.src[2], int(lane), 0)
		cval := c & 31
		seg := c >> 8 & 31
		maxLane := lane&seg | cval&^seg
		minLane := lane & seg
		var j uint32
		var ok bool
		switch {
		case d.has("UP"):
			j = lane - b
			ok = int32(j) >= int32(maxLane)
		case d.has("DOWN"):
			j = lane + b
			ok = j <= maxLane
		case d.has("BFLY"):
			j = lane ^ b
			ok = j <= maxLane
		default: // IDX
			j = minLane | b&^seg
			ok = j <= maxLane
		}
		if !ok || j >= warpSize {
			j = lane
		}
		if ok {
			pv |= 1 << lane
		}
		s.set(w, f, &d.dst[1], int(lane), 0, vals[j])
	}
	s.setPred(w, f, &d.dst[0], eff, pv)
	advance(f, mask)
	return nil
}

// execVOTE: VOTE.<ALL|ANY|EQ> d, p = q[, membermask]: d is the ballot of q
// over the executing threads, p the vote.
func execVOTE(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	q := s.pred(w, f, &d.src[0]) & eff
	var p uint32
	switch {
	case d.has("ALL"):
		if q == eff {
			p = ^uint32(0)
		}
	case d.has("ANY"):
		if q != 0 {
			p = ^uint32(0)
		}
	case d.has("EQ"):
		if q == 0 || q == eff {
			p = ^uint32(0)
		}
	}
	for m := eff; m != 0; m &= m - 1 {
		s.set(w, f, &d.dst[0], bits.TrailingZeros32(m), 0, q)
	}
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, p)
	}
	advance(f, mask)
	return nil
}

// execREDUX: REDUX.<SUM|MIN|MAX|AND|OR|XOR>[.S32] d = a over the executing
// threads.
func execREDUX(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	signed := d.has("S32")
	var acc uint32
	first := true
	for m := eff; m != 0; m &= m - 1 {
		v := s.get(w, f, &d.src[0], bits.TrailingZeros32(m), 0)
		if first {
			acc, first = v, false
			continue
		}
		switch {
		case d.has("SUM"):
			acc += v
		case d.has("MIN"):
			if signed && int32(v) < int32(acc) || !signed && v < acc {
				acc = v
			}
		case d.has("MAX"):
			if signed && int32(v) > int32(acc) || !signed && v > acc {
				acc = v
			}
		case d.has("AND"):
			acc &= v
		case d.has("OR"):
			acc |= v
		case d.has("XOR"):
			acc ^= v
		}
	}
	for m := eff; m != 0; m &= m - 1 {
		s.set(w, f, &d.dst[0], bits.TrailingZeros32(m), 0, acc)
	}
	advance(f, mask)
	return nil
}

// execMATCH: MATCH.ANY d = a: the threads holding the same value;
// MATCH.ALL d, p = a: all threads if every value is equal (p true), else 0.
// .64 compares 64-bit values.
func execMATCH(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	wide := d.has("64") || d.has("U64")
	var vals [warpSize]uint64
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if wide {
			vals[lane] = s.get64(w, f, &d.src[0], lane)
		} else {
			vals[lane] = uint64(s.get(w, f, &d.src[0], lane, 0))
		}
	}
	if d.has("ALL") {
		first := vals[bits.TrailingZeros32(eff)]
		all := true
		for m := eff; m != 0; m &= m - 1 {
			if vals[bits.TrailingZeros32(m)] != first {
				all = false
			}
		}
		res := uint32(0)
		if all {
			res = eff
		}
		for m := eff; m != 0; m &= m - 1 {
			s.set(w, f, &d.dst[0], bits.TrailingZeros32(m), 0, res)
		}
		if len(d.dst) > 1 {
			p := uint32(0)
			if all {
				p = ^uint32(0)
			}
			s.setPred(w, f, &d.dst[1], eff, p)
		}
		advance(f, mask)
		return nil
	}
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		var same uint32
		for n := eff; n != 0; n &= n - 1 {
			o := bits.TrailingZeros32(n)
			if vals[o] == vals[lane] {
				same |= 1 << o
			}
		}
		s.set(w, f, &d.dst[0], lane, 0, same)
	}
	advance(f, mask)
	return nil
}
