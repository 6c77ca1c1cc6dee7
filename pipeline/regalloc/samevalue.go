package regalloc

// Copies whose two sides stay live: one register for both.
//
// The fat point coalesces a copy "MOV d = s" only when the two live
// ranges miss each other, that is when s dies at the copy. Tensor-core
// code copies words that stay live: ZLUDA's
// mma_m16n8k16_f32_bf16_bf16_f32_2x builds the A quad of the first HMMA
// from the words of a pair it passes again as the B operand, and the
// second HMMA's A quad from the same words:
//
//	F2FP.BF16.PACK_AB %r28 = ...            // %r28[0..1]: the a0..a3 pair
//	F2FP.BF16.PACK_AB %r29 = ...            // %r29: the a4..a7 pair
//	MOV %r20 = %r28 ... MOV %r20[3] = %r29[1]
//	MOV %r21 = %r28 ; MOV %r21[1] = %r28[1]
//	HMMA %r27.128 = %r20.128, %r21.64, %r22.128
//	MOV %r28[2] = %r29 ; MOV %r28[3] = %r29[1]
//	HMMA %r35.128 = %r28.128, %r29.64, %r30.128
//
// ptxas gives %r20, %r21 and %r28 one quad and %r29 its upper half
// (18 registers; orilab 26). Where both sides of a copy are live they
// hold the same value, so sharing a register is harmless, provided that
// neither side is written again while the other is live. A word pair
// (d[k], s[j]) of a copy is marked same-valued when
//
//   - d[k] has no definition but this copy (unguarded: notePref takes
//     only unguarded MOVs), so it holds s[j]'s value wherever it is live;
//   - s[j] has exactly one definition, unguarded, at g, and d[k] is not
//     live at g's write position: a loop that runs g again while d[k]
//     still holds the previous iteration's value breaks the equality.
//
// The fat point then lets word k of d overlap word j of s on one
// register when both sit there (fatpoint.go, free); the overlap is the
// only exemption, everything else of either range is checked as usual.
// The copy becomes "MOV Rx = Rx" and is deleted; the post-allocation
// verifier merges the two values of a deleted copy and still checks that
// neither is redefined while the other is live ("Coalescing" in package
// verifyra).
//
// Knob RegAllocSameValueCopies=0 keeps such copies apart.

// sameWord is one word of another item that holds the same value as a
// word of this one wherever both are live.
type sameWord struct {
	item, word int
}

// wordDef returns the only definition of word w of value v, or -1 when
// the word has none or several, or a guarded one.
func (v *vreg) wordDef(w int) int {
	g := -1
	for _, a := range v.acc {
		if a.write&(1<<w) == 0 {
			continue
		}
		if g >= 0 || a.guardedDef {
			return -1
		}
		g = a.g
	}
	return g
}

// wordSegs returns the range of word w of value v.
func (v *vreg) wordSegs(w int) []seg {
	if v.wsegs != nil {
		return v.wsegs[w]
	}
	return v.segs
}

// sameValuePairs marks the same-valued word pairs of the copies between
// items (see above).
func (at *attempt) sameValuePairs() {
	p := at.p
	for _, pr := range p.prefs {
		if pr.dst.v < 0 || pr.src.v < 0 || pr.dst.v == pr.src.v {
			continue
		}
		di, si := at.itemOf[pr.dst.v], at.itemOf[pr.src.v]
		if di < 0 || si < 0 {
			continue
		}
		dv, sv := p.vregs[pr.dst.v], p.vregs[pr.src.v]
		if dv.wordDef(pr.dst.off) != pr.g {
			continue
		}
		gs := sv.wordDef(pr.src.off)
		if gs < 0 || segsContain(dv.wordSegs(pr.dst.off), posWrite(gs)) {
			continue
		}
		d, s := &at.items[di], &at.items[si]
		if d.same == nil {
			d.same = make([][]sameWord, d.width)
		}
		if s.same == nil {
			s.same = make([][]sameWord, s.width)
		}
		d.same[pr.dst.off] = append(d.same[pr.dst.off], sameWord{si, pr.src.off})
		s.same[pr.src.off] = append(s.same[pr.src.off], sameWord{di, pr.dst.off})
	}
}

// unshared returns the positions of word k of it that it does not share
// with a same-valued word placed on register r; nil when none is
// shared there (then word(k) applies unchanged).
func (at *attempt) unshared(it *item, k, r int) ([]seg, bool) {
	if it.same == nil || len(it.same[k]) == 0 {
		return nil, false
	}
	// The differences alternate between the attempt's two buffers; the
	// result is read before the next call.
	ws, cut, buf := it.word(k), false, 0
	for _, sw := range it.same[k] {
		o := &at.items[sw.item]
		if o.slot >= 0 && o.slot+sw.word == r {
			d := at.segBuf[buf][:0]
			segsMinusEach(ws, o.word(sw.word), func(x seg) { d = append(d, x) })
			at.segBuf[buf] = d
			ws, cut, buf = d, true, 1-buf
		}
	}
	return ws, cut
}

// isSame reports whether word k of it and word w of item j are marked
// same-valued.
func (it *item) isSame(k, j, w int) bool {
	if it.same == nil {
		return false
	}
	for _, sw := range it.same[k] {
		if sw.item == j && sw.word == w {
			return true
		}
	}
	return false
}
