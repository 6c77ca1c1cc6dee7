package regalloc

import (
	"math"
	"math/bits"
)

// The spill cost model and the shape of spill temporaries.
//
// A spilled value lives in memory (its spill slot, or for a predicate an
// R register that holds it as 0/1); every instruction that touches it gets
// a short-lived temporary register instead:
//
//   - an instruction that reads the value gets a refill into the
//     temporary right before it (or, for a rematerializable value, a clone
//     of the value's definition);
//   - an instruction that writes it stores the temporary right after it,
//     when the value is live after the instruction;
//   - a predicated write, or a write of only part of the temporary, is a
//     read-modify-write when the value is live before: the temporary is
//     refilled first so the words the instruction leaves alone (or all of
//     them, when the guard is false) keep their value, and then stored.
//
// The temporary holds the smallest aligned block of the value's words the
// instruction touches: an instruction that reads word 1 of a 64-bit value
// refills one register. A rematerialization clone writes the whole value.
//
// The cost of spilling a value is the wiki's per-access weight (15.0,
// 001:20413-20420) for every refill and store, times the frequency of the
// instruction's block; a
// rematerialized value costs 1.0 per use (one ALU instruction, against a
// memory round trip) and saves its definition. The benefit of spilling is
// the number of positions of the live range that no temporary covers:
// the register the value no longer holds there. A value whose range is
// all temporaries (defined and read by neighbouring instructions) gains
// nothing from spilling and is fixed. Allocation order and spill choice
// both use the density cost/benefit: dense values get registers first,
// and the cheapest per freed position are spilled.

// Decision: ptxas lowers the weight to 3.0 for a class under high
// pressure. Every memory spill of a class scales alike, so that only
// changes how memory spills compare with rematerialization, which stays
// cheaper either way; orilab keeps 15.0.
const (
	spillWeight = 15.0 // a refill or a store
	rematWeight = 1.0  // a rematerialized use
)

// tempShape is the temporary of one spilled value at one instruction.
type tempShape struct {
	start, width  int  // words of the value it holds
	reload, store bool // refill (or rematerialize) before, store after
	seg           seg
	none          bool // no temporary: the deleted definition of a rematerialized value
}

// wordBlock returns the smallest aligned block of words (within a value of
// width words) that covers mask m.
func wordBlock(m uint8, width int) (start, w int) {
	lo := bits.TrailingZeros8(m)
	hi := 8 - bits.LeadingZeros8(m)
	for w = 1; w < width; w *= 2 {
		s := lo &^ (w - 1)
		if s+w >= hi {
			return s, w
		}
	}
	return 0, width
}

// tempAt returns the temporary a spilled value v needs at access a.
func tempAt(v *vreg, a access) tempShape {
	g := a.g
	if v.remat {
		if a.read == 0 {
			return tempShape{none: true}
		}
		return tempShape{start: 0, width: v.width, reload: true, seg: seg{posBefore(g), posRead(g)}}
	}
	t := tempShape{}
	t.start, t.width = wordBlock(a.read|a.write, v.width)
	full := wordMask(t.start, t.width)
	t.reload = a.read != 0 || (a.write != 0 && a.liveBefore && (a.guardedDef || a.write&full != full))
	t.store = a.write != 0 && a.liveAfter
	switch {
	case t.reload:
		t.seg.lo = posBefore(g)
	case a.read != 0:
		t.seg.lo = posRead(g)
	default:
		t.seg.lo = posWrite(g)
	}
	switch {
	case t.store:
		t.seg.hi = posAfter(g)
	case a.write != 0:
		t.seg.hi = posWrite(g)
	default:
		t.seg.hi = posRead(g)
	}
	return t
}

// computeCosts fills every value's cost, benefit, priority and fixed
// flag.
func (p *problem) computeCosts() {
	const weight = spillWeight
	var cover []seg // reused from value to value
	for _, v := range p.vregs {
		cover = cover[:0]
		cost := 0.0
		for _, a := range v.acc {
			t := tempAt(v, a)
			if t.none {
				continue
			}
			cover = append(cover, t.seg)
			fr := p.freq[a.g]
			switch {
			case v.remat:
				cost += rematWeight * fr
			default:
				if t.reload {
					cost += weight * fr
				}
				if t.store {
					cost += weight * fr
				}
			}
		}
		v.cost = cost
		cover = normalizeSegs(cover)
		v.benefit = segsMinusSize(v.segs, cover)
		if v.benefit <= 0 {
			v.fixed = true
			v.prio = math.Inf(1)
		} else {
			v.fixed = false
			v.prio = cost / float64(v.benefit)
		}
	}
}
