package regalloc

// Live ranges trimmed to where a value is defined.
//
// ori.Liveness counts a value live from every read back to its
// definitions, and where a definition is guarded, through it: the old
// value may survive when the guard is false. A value whose definitions
// are all guarded, or that some path reads before any definition, is
// therefore live back to the function's entry. Predication makes such
// values common: an if-then block becomes
//
//	@P0 MOV %r2 = 0x1
//	@P0 STS [0x100], %r2
//
// and %r2 occupied a register from the first instruction of the kernel to
// the STS. In generic-shared-atomic's shrunk.ptx (testdata/fuzzfindings)
// eight such MOVs took eight registers across the whole prologue: 19
// registers where ptxas uses 6.
//
// Where no definition of a value reaches a position (on no path from the
// entry to it is there a write of the value), the value holds nothing
// there: a read on such a path reads an unspecified value, whatever the
// register happens to hold, before allocation as after it. Those
// positions are taken out of its range, so another value may use the
// register there. The post-allocation verifier accepts exactly this (see
// "Undefined values" in package verifyra).
//
// Decision: only values live at the function's entry are examined: a
// position that no definition reaches but where the value is live lies on
// a path from the entry without a definition, so the value is live at the
// entry too. A value with no definition at all keeps its range.
// Knob RegAllocTrimUndefined=0 keeps the full ranges.

// trimUndefined removes from every value's segments the positions that
// no definition of it reaches.
func (p *problem) trimUndefined() {
	if len(p.insts) == 0 {
		return
	}
	nb := len(p.f.Blocks)
	for _, v := range p.vregs {
		if !segsContain(v.segs, posBefore(0)) {
			continue
		}
		firstDef := map[int]int{} // block -> first instruction writing v
		for _, a := range v.acc {
			if a.write == 0 {
				continue
			}
			bi := p.block[a.g]
			if g, ok := firstDef[bi]; !ok || a.g < g {
				firstDef[bi] = a.g
			}
		}
		if len(firstDef) == 0 {
			continue
		}
		// definedIn[b]: some definition reaches the entry of block b.
		definedIn := make([]bool, nb)
		var work []int
		for bi := range firstDef {
			work = append(work, bi)
		}
		for len(work) > 0 {
			bi := work[len(work)-1]
			work = work[:len(work)-1]
			for _, s := range p.blockSuccs(bi) {
				// A successor outside the layout reads as block 0, as
				// the map lookup this replaced did.
				s := int(max(s, 0))
				if !definedIn[s] {
					definedIn[s] = true
					if _, ok := firstDef[s]; !ok {
						work = append(work, s)
					}
				}
			}
		}
		var undef []seg
		for bi := 0; bi < nb; bi++ {
			g0, g1 := p.first[bi], p.first[bi+1]-1
			if g1 < g0 || definedIn[bi] {
				continue
			}
			if g, ok := firstDef[bi]; ok {
				if posWrite(g) > posBefore(g0) {
					undef = append(undef, seg{posBefore(g0), posWrite(g) - 1})
				}
				continue
			}
			undef = append(undef, seg{posBefore(g0), posAfter(g1)})
		}
		if len(undef) > 0 {
			if trimmed := segsMinus(v.segs, normalizeSegs(undef)); len(trimmed) > 0 {
				v.segs = trimmed
			}
		}
	}
}
