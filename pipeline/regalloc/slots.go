package regalloc

import (
	"sort"

	"orilab/pipeline/ori"
)

// Spill homes: where a spilled value lives between its accesses.
//
// R values go to local memory, in spill slots of the function's frame
// above its .local variables ([R1+LocalBytes ...]). Two spilled values
// whose live ranges never overlap share a slot (ptxas's spill slot
// assignment, sub_93FBE0): the slots are coloured greedily, widest values
// first, each value taking the first slot of its size whose occupants it
// does not interfere with. A slot is as wide as its values (4, 8 or 16
// bytes) and aligned to its size, which the frame guarantees because
// every frame is a multiple of 16 bytes (frame.go).
//
// Predicates are not stored to memory directly: a spilled P value is held
// as 0/1 in an R register (SEL to spill, ISETP to refill), a spilled UP
// value in a UR register (USEL, UISETP). The holder is a fresh virtual
// register that the later R (UR) allocation places like any other value,
// spilling it to memory in turn if it must. Uniform R values cannot be
// spilled: orilab's Ori has no way back from an R register to a UR
// (R2UR), so a UR class that does not fit is an error.

// home is the spill home of one value.
type home struct {
	off    int64   // byte offset from R1 of the value's word 0 (memory homes)
	holder ori.Reg // the register holding a spilled predicate, when valid
}

// spillSlot is one shared slot.
type spillSlot struct {
	width int
	segs  []seg // union of the live ranges of its values
	off   int64
}

// memoryHomes assigns spill slots to the spilled, not rematerialized
// values of p above frameBase, and returns their homes and the end of the
// spill area.
func (p *problem) memoryHomes(spilled []bool, frameBase int64) (map[int]home, int64) {
	var vals []int
	for vi, s := range spilled {
		if s && !p.vregs[vi].remat {
			vals = append(vals, vi)
		}
	}
	sort.SliceStable(vals, func(i, j int) bool {
		a, b := p.vregs[vals[i]], p.vregs[vals[j]]
		if a.width != b.width {
			return a.width > b.width
		}
		return a.segs[0].lo < b.segs[0].lo
	})
	var slots []*spillSlot
	slotOf := map[int]*spillSlot{}
	for _, vi := range vals {
		v := p.vregs[vi]
		var s *spillSlot
		for _, c := range slots {
			if c.width == v.width && !segsOverlap(c.segs, v.segs) {
				s = c
				break
			}
		}
		if s == nil {
			s = &spillSlot{width: v.width}
			slots = append(slots, s)
		}
		s.segs = normalizeSegs(append(append([]seg(nil), s.segs...), v.segs...))
		slotOf[vi] = s
	}
	// Widest slots first keeps every slot aligned to its size.
	off := frameBase
	for _, s := range slots {
		size := int64(4 * s.width)
		off = (off + size - 1) / size * size
		s.off = off
		off += size
	}
	homes := map[int]home{}
	for vi, s := range slotOf {
		homes[vi] = home{off: s.off}
	}
	return homes, off
}

// holderHomes gives every spilled, not rematerialized predicate of p a
// fresh holder register of class hc (R for P, UR for UP).
func (p *problem) holderHomes(spilled []bool, hc ori.RegClass) map[int]home {
	homes := map[int]home{}
	for _, vi := range spilledValues(spilled) {
		if !p.vregs[vi].remat {
			homes[vi] = home{holder: p.f.NewVReg(hc, 1)}
		}
	}
	return homes
}
