package regalloc

import (
	"cmp"
	"slices"
	"sort"
)

// Live ranges as the allocator sees them: sets of program positions.
//
// Every instruction g of the linearized function (blocks in layout order)
// owns four positions, so that the code the allocator inserts around an
// instruction has room of its own:
//
//	4g    before g: refills and rematerializations for g execute here
//	4g+1  g reads its sources
//	4g+2  g writes its results
//	4g+3  after g: spill stores of g's results execute here
//
// A value live from its definition at g to its last read at h occupies
// [4g+2, 4h+1]; a value live across h occupies all four positions of h.
// Two values interfere exactly when they share a position, so a source
// that dies at g and a result of g may share a register (the read happens
// before the write), and a refill temporary for g+1 ([4g+4, 4g+5]) may
// reuse the register of a spill temporary of g ([4g+2, 4g+3]): the store
// executes before the refill. A CALL at g clobbers every caller-saved
// register at 4g+2, its write position (R16-R31 keep their values,
// calleesave.go).

// seg is a closed interval [lo, hi] of positions.
type seg struct{ lo, hi int32 }

// posBefore, posRead, posWrite and posAfter are the four positions of
// instruction g.
func posBefore(g int) int32 { return int32(4 * g) }
func posRead(g int) int32   { return int32(4*g + 1) }
func posWrite(g int) int32  { return int32(4*g + 2) }
func posAfter(g int) int32  { return int32(4*g + 3) }

// normalizeSegs sorts segments and merges overlapping or adjacent ones.
func normalizeSegs(s []seg) []seg {
	if len(s) < 2 {
		return s
	}
	// The generic sort: sort.Slice's reflection allocates on every call.
	// The order among equal starts does not matter, as they merge.
	slices.SortFunc(s, func(a, b seg) int { return cmp.Compare(a.lo, b.lo) })
	out := s[:1]
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if x.lo <= last.hi+1 {
			if x.hi > last.hi {
				last.hi = x.hi
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// segsContain reports whether position p lies in the normalized segments s.
func segsContain(s []seg, p int32) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi >= p })
	return i < len(s) && s[i].lo <= p
}

// segsSize is the number of positions in the normalized segments s.
func segsSize(s []seg) int {
	n := 0
	for _, x := range s {
		n += int(x.hi-x.lo) + 1
	}
	return n
}

// segsOverlap reports whether two normalized segment lists share a
// position.
func segsOverlap(a, b []seg) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].hi < b[j].lo {
			i++
		} else if b[j].hi < a[i].lo {
			j++
		} else {
			return true
		}
	}
	return false
}

// segsMinus returns the positions of a not in b (both normalized).
func segsMinus(a, b []seg) []seg {
	var out []seg
	segsMinusEach(a, b, func(x seg) { out = append(out, x) })
	return out
}

// segsMinusSize is segsSize(segsMinus(a, b)), without building the
// difference.
func segsMinusSize(a, b []seg) int {
	n := 0
	segsMinusEach(a, b, func(x seg) { n += int(x.hi-x.lo) + 1 })
	return n
}

// segsMinusEach calls emit with each segment of positions of a not in b
// (both normalized), in order.
func segsMinusEach(a, b []seg, emit func(seg)) {
	j := 0
	for _, x := range a {
		lo := x.lo
		for j < len(b) && b[j].hi < lo {
			j++
		}
		k := j
		for k < len(b) && b[k].lo <= x.hi {
			if b[k].lo > lo {
				emit(seg{lo, b[k].lo - 1})
			}
			if b[k].hi+1 > lo {
				lo = b[k].hi + 1
			}
			k++
		}
		if lo <= x.hi {
			emit(seg{lo, x.hi})
		}
	}
}

// posSet is a bitset over positions: the occupancy of one physical
// register slot.
type posSet []uint64

func newPosSet(npos int) posSet { return zeroedWords((npos + 63) / 64) }

// zeroedWords returns n zero words, written once. Go does not clear
// memory it takes fresh from the OS, and a bitset's first access is a
// read (set ORs into it): the read maps the shared zero page and the
// write after it faults a second time, with a TLB shootdown. Writing
// the zeros first costs one fault per page.
func zeroedWords(n int) []uint64 {
	w := make([]uint64, n)
	clear(w)
	return w
}

// rangeMask returns the mask of bits lo..hi (0-63) within one word.
func rangeMask(lo, hi int) uint64 {
	m := ^uint64(0) << uint(lo)
	if hi < 63 {
		m &= (uint64(1) << uint(hi+1)) - 1
	}
	return m
}

// overlaps reports whether any position of segs is set.
func (b posSet) overlaps(segs []seg) bool {
	// The fat point asks this for every candidate slot of every item:
	// the inner words of a segment need no mask.
	for _, s := range segs {
		lw, hw := int(s.lo)/64, int(s.hi)/64
		if lw == hw {
			if b[lw]&rangeMask(int(s.lo)%64, int(s.hi)%64) != 0 {
				return true
			}
			continue
		}
		if b[lw]&rangeMask(int(s.lo)%64, 63) != 0 || b[hw]&rangeMask(0, int(s.hi)%64) != 0 {
			return true
		}
		for _, x := range b[lw+1 : hw] {
			if x != 0 {
				return true
			}
		}
	}
	return false
}

// set marks (or, with on false, clears) every position of segs.
func (b posSet) set(segs []seg, on bool) {
	for _, s := range segs {
		lw, hw := int(s.lo)/64, int(s.hi)/64
		for w := lw; w <= hw; w++ {
			lo, hi := 0, 63
			if w == lw {
				lo = int(s.lo) % 64
			}
			if w == hw {
				hi = int(s.hi) % 64
			}
			if on {
				b[w] |= rangeMask(lo, hi)
			} else {
				b[w] &^= rangeMask(lo, hi)
			}
		}
	}
}
