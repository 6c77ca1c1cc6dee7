package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
)

// execPhi executes the MOV.PHI instructions that start a block, as one
// parallel copy (ori/SEMANTICS.md): each thread takes, for every phi, the
// value paired with the block it came from (frame.from), all values are
// read before any result is written, and the thread moves past the whole
// group. Threads reach a block only at its first instruction, so d is the
// first phi of its block and d.phiGroup counts the group.
//
// Phis are not instructions of the machine: as ptxas excludes MOV.PHI
// from its instruction totals, the group is not counted as executed
// thread instructions.
func execPhi(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	lane0 := bits.TrailingZeros32(mask)
	pc := int(f.pc[lane0])
	n := d.phiGroup
	if n == 0 || pc+n > len(f.c.insts) {
		return s.fault(w, f, d, mask, "MOV.PHI is not at the start of its block")
	}
	group := f.c.insts[pc : pc+n]
	s.tinsts -= int64(bits.OnesCount32(mask))
	type val struct {
		v    uint32
		pred bool
	}
	vals := make([]val, n)
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		from := f.from[lane]
		for j := range group {
			p := &group[j]
			k := -1
			for i, b := range p.phiFrom {
				if b == from {
					k = 2 * i
					break
				}
			}
			if k < 0 {
				if from < 0 {
					return s.faultLane(w, f, p, lane, "MOV.PHI reached at the function's entry, which has no predecessor")
				}
				return s.faultLane(w, f, p, lane, "MOV.PHI has no value for BB%d, the block the thread came from", from)
			}
			src := &p.src[k]
			if p.in.Dsts[0].Reg.Class.IsPred() {
				vals[j] = val{pred: s.pred(w, f, src)&(1<<lane) != 0}
			} else {
				vals[j] = val{v: s.get(w, f, src, lane, 0)}
			}
		}
		for j := range group {
			p := &group[j]
			if p.in.Dsts[0].Reg.Class == ori.ClassP || p.in.Dsts[0].Reg.Class == ori.ClassUP {
				var v uint32
				if vals[j].pred {
					v = 1 << lane
				}
				s.setPred(w, f, &p.dst[0], 1<<lane, v)
			} else {
				s.set(w, f, &p.dst[0], lane, 0, vals[j].v)
			}
		}
		f.pc[lane] += int32(n)
		if group[n-1].last {
			f.from[lane] = group[n-1].fall
		}
	}
	return nil
}
