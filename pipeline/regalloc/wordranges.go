package regalloc

import "math/bits"

// Live ranges per word of a tuple.
//
// problem.virtualRanges gives a value one range: every position where any
// of its words is live. For a single register that is exact; for a tuple
// it keeps all of the tuple's registers busy while only some words are
// live. Vector code is full of such tuples. particleSystem's integrate
// loads two float4s, computes three new words of each and stores them
// with the loaded w:
//
//	LDG.E.128 %r18.128 = [%r17.64]
//	FFMA %r42 = %r32, c[0x0][0x180], %r18       // last read of %r18[0]
//	...
//	MOV %r61 = %r73
//	MOV %r61[3] = %r18[3]                       // last read of %r18[3]
//	STG.E.128 [%r60.64], %r61.128
//
// With one range per value %r18 holds four registers until its last word
// dies, so %r61 cannot take %r18's quad and the copy of the w word stays
// (ptxas stores from the loaded quad, having written the new x, y and z
// over the dead words: 18 registers, orilab 26). wordRanges gives every
// word of a tuple its own range, built by the same backward walk at word
// granularity; the fat point (fatpoint.go) then places word k of an item
// against the occupancy of register slot+k only. A word's range opens
// at its write position even when nobody reads it, as the union's does,
// so a dead result still clobbers its register; undefined positions
// trimmed from the union (undefined.go) are trimmed from every word.
//
// Knob RegAllocWordRanges=0 gives every word the whole value's range.

// wordRanges builds v.wsegs for every tuple of the class.
func (p *problem) wordRanges() {
	lv := p.live
	if lv == nil {
		lv = p.classLiveness()
	}
	base := p.scr.ints.take(len(p.vregs) + 1)
	tuples := false
	for i, v := range p.vregs {
		base[i+1] = base[i] + v.width
		tuples = tuples || v.width > 1
	}
	if !tuples {
		return
	}
	for _, v := range p.vregs {
		if v.width > 1 {
			v.wsegs = make([][]seg, v.width)
		}
	}
	nw := base[len(p.vregs)]
	live := p.scr.bools.take(nw)
	open := p.scr.int32s.take(nw)
	for i := range open {
		open[i] = -1
	}
	owner := p.scr.ints.take(nw) // global word -> value
	for vi := range p.vregs {
		for k := base[vi]; k < base[vi+1]; k++ {
			owner[k] = vi
		}
	}
	closeAt := func(k int, lo int32) {
		v := p.vregs[owner[k]]
		w := k - base[owner[k]]
		v.wsegs[w] = append(v.wsegs[w], seg{lo, open[k]})
		open[k] = -1
	}
	var active []int // words opened in the current block
	openAt := func(k int, hi int32) {
		open[k] = hi
		active = append(active, k)
	}
	var touched []touch
	for bi := range p.f.Blocks {
		g0, g1 := p.first[bi], p.first[bi+1]-1
		if g1 < g0 {
			continue
		}
		// A block's live-out words, in any order.
		lv.eachOut(bi, func(vi, w int) {
			if p.vregs[vi].width == 1 {
				return
			}
			k := base[vi] + w
			live[k] = true
			if open[k] < 0 {
				openAt(k, posAfter(g1))
			}
		})
		for g := g1; g >= g0; g-- {
			touched = touched[:0]
			for _, t := range p.touchesAt(g) {
				if p.vregs[t.vi].width > 1 {
					touched = append(touched, t)
				}
			}
			if len(touched) == 0 {
				continue // nothing below changes
			}
			in := p.insts[g]
			for _, t := range touched {
				for m := t.write; m != 0; m &= m - 1 {
					if k := base[t.vi] + bits.TrailingZeros8(m); open[k] < 0 {
						openAt(k, posWrite(g))
					}
				}
			}
			if !in.Guarded() {
				for _, t := range touched {
					for m := t.write; m != 0; m &= m - 1 {
						live[base[t.vi]+bits.TrailingZeros8(m)] = false
					}
				}
			}
			for _, t := range touched {
				for m := t.read; m != 0; m &= m - 1 {
					live[base[t.vi]+bits.TrailingZeros8(m)] = true
				}
			}
			for _, t := range touched {
				for m := t.read | t.write; m != 0; m &= m - 1 {
					k := base[t.vi] + bits.TrailingZeros8(m)
					switch {
					case !live[k] && open[k] >= 0:
						closeAt(k, posWrite(g))
					case live[k] && open[k] < 0:
						openAt(k, posRead(g))
					}
				}
			}
		}
		for _, k := range active {
			if open[k] >= 0 {
				closeAt(k, posBefore(g0))
			}
			live[k] = false
		}
		active = active[:0]
	}
	for _, v := range p.vregs {
		for w := range v.wsegs {
			// Within the union by construction; intersecting with it
			// carries over what trimUndefined took out.
			ws := normalizeSegs(v.wsegs[w])
			v.wsegs[w] = segsMinus(ws, segsMinus(ws, v.segs))
		}
	}
}
