package sim

import (
	"fmt"
	"math/bits"
	"strings"

	"orilab/pipeline/ori"
)

func init() {
	execTable[ori.OpBRA] = execBRA
	execTable[ori.OpBRX] = execBRX
	execTable[ori.OpEXIT] = execEXIT
	execTable[ori.OpRET] = execRET
	execTable[ori.OpCALL] = execCALL
	execTable[ori.OpBPT] = execBPT
	execTable[ori.OpBAR] = execBAR
	execTable[ori.OpB2R] = execB2R
	execTable[ori.OpWARPSYNC] = execWARPSYNC
	execTable[ori.OpBSSY] = execBSSY
	execTable[ori.OpBSYNC] = execBSYNC
	noop := func(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
		advance(f, mask)
		return nil
	}
	execTable[ori.OpMEMBAR] = noop
	execTable[ori.OpERRBAR] = noop
	execTable[ori.OpCGAERRBAR] = noop
	execTable[ori.OpCCTL] = noop
	execTable[ori.OpNANOSLEEP] = noop
}

func execBRA(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	target := d.src[0].block
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if eff&(1<<lane) != 0 {
			f.pc[lane] = target
			leave(f, d, lane, d.src[0].from)
		} else {
			f.pc[lane]++
			leave(f, d, lane, d.fall)
		}
	}
	return nil
}

// leave records, for a lane that a branch moved, the block it arrives
// from (frame.from): the edge it took, not only the block it left, since
// the target or the fall-through may be a run of empty blocks.
func leave(f *frame, d *dinst, lane int, from int32) {
	if d.last {
		f.from[lane] = from
	}
}

// execBRX: BRX a, BB0, BB1, ...: each thread jumps to the a-th block.
// After PostFixForMercTargets, BRX a.64, c[0x2][t], BB0, ...: a holds
// the entry the thread loaded from the jump table at c[0x2][t], whose
// entry i Ori holds as i (the cubin writer writes BBi's offset there,
// which the hardware's BRX jumps to), so the jump is the same.
func execBRX(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	first := 1
	if len(d.src) > 1 && d.in.Srcs[1].Kind == ori.OpdCBank {
		first = 2
	}
	n := len(d.src) - first
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if eff&(1<<lane) == 0 {
			f.pc[lane]++
			leave(f, d, lane, d.fall)
			continue
		}
		i := s.get(w, f, &d.src[0], lane, 0)
		if int(i) >= n {
			return s.faultLane(w, f, d, lane, "indirect branch index %d is outside the %d-entry target list", i, n)
		}
		f.pc[lane] = d.src[first+int(i)].block
		leave(f, d, lane, d.src[first+int(i)].from)
	}
	return nil
}

func execEXIT(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	w.exited |= eff
	advance(f, mask&^eff)
	s.checkConv(w)
	return nil
}

func execRET(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	if len(w.frames) == 1 {
		// RET from the kernel itself ends the thread, like EXIT.
		w.exited |= eff
	} else {
		if len(d.src) == 1 && d.src[0].kind == okReg {
			// RET.REL.NODEC Ra: the hardware returns to the address
			// in Ra, so it must still be the one the caller passed.
			for m := eff; m != 0; m &= m - 1 {
				lane := bits.TrailingZeros32(m)
				lo, hi := s.get(w, f, &d.src[0], lane, 0), s.get(w, f, &d.src[0], lane, 1)
				if lo != f.ret || hi != 0 {
					return s.faultLane(w, f, d, lane, "RET to 0x%x, but the call returns to 0x%x (the return address register was overwritten)", uint64(hi)<<32|uint64(lo), f.ret)
				}
			}
		}
		f.done |= eff
	}
	advance(f, mask&^eff)
	return nil
}

func execCALL(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	advance(f, mask)
	if eff == 0 {
		return nil
	}
	if len(w.frames) >= 1024 {
		return s.fault(w, f, d, eff, "call depth exceeds 1024 frames (unbounded recursion?)")
	}
	if d.callee != nil {
		nf := newFrame(d.callee, eff)
		nf.ret = d.retPoint
		w.frames = append(w.frames, nf)
		return nil
	}
	// Indirect: group the threads by target; each group gets a frame, and
	// the groups run one after another (the last pushed runs first).
	base := uint64(ori.FuncAddrBase)
	groups := map[int]uint32{}
	var order []int
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		var a uint64
		if d.src[0].words >= 2 {
			a = s.get64(w, f, &d.src[0], lane)
		} else {
			a = uint64(s.get(w, f, &d.src[0], lane, 0))
		}
		i := int((a - base) / 16)
		if a < base || (a-base)%16 != 0 || i >= len(s.funcs) {
			return s.faultLane(w, f, d, lane, "indirect call to 0x%x, which is not a function address", a)
		}
		if _, ok := groups[i]; !ok {
			order = append(order, i)
		}
		groups[i] |= 1 << lane
	}
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		nf := newFrame(s.funcs[i], groups[i])
		nf.ret = d.retPoint
		w.frames = append(w.frames, nf)
	}
	return nil
}

func execBPT(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	if eff != 0 && d.has("TRAP") {
		return s.fault(w, f, d, eff, "the kernel executed trap")
	}
	advance(f, mask)
	return nil
}

// execBAR: BAR.SYNC id[, n], BAR.ARV id, n, BAR.RED.<POPC|AND|OR> d = id,
// [n,] p. Waiting threads stay at the barrier until releaseBarriers lets
// them go.
func execBAR(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	advance(f, mask&^eff)
	if eff == 0 {
		return nil
	}
	lane := bits.TrailingZeros32(eff)
	id := int32(s.get(w, f, &d.src[0], lane, 0))
	red := d.has("RED")
	nsrc := len(d.src)
	if red {
		nsrc-- // the last source is the predicate
	}
	want := 0
	if nsrc > 1 {
		want = int(s.get(w, f, &d.src[1], lane, 0))
	}
	if nsrc > 1 && packedBarRegs(d.in) {
		// BAR r, r: the barrier in bits 0-15, the count in 16-27 (the
		// only SASS form with both in registers; lower's barOperands).
		v := uint32(id)
		id, want = int32(v&0xffff), int(v>>16&0xfff)
	}
	b := w.cta.bars[id]
	if b == nil {
		b = &barrier{}
		w.cta.bars[id] = b
		if d.has("AND") {
			b.red = 1
		}
	}
	if want > 0 {
		b.want = want
	}
	b.arrived += bits.OnesCount32(eff)
	if red {
		p := s.pred(w, f, &d.src[len(d.src)-1]) & eff
		switch {
		case d.has("POPC"):
			b.red += uint32(bits.OnesCount32(p))
		case d.has("AND"):
			if p != eff {
				b.red = 0
			}
		case d.has("OR"):
			if p != 0 {
				b.red = 1
			}
		}
	}
	if d.has("ARV") {
		advance(f, eff)
		return nil
	}
	w.barWait |= eff
	b.waiters = append(b.waiters, barWaiter{w: w, mask: eff, d: d, f: f})
	return nil
}

// packedBarRegs reports whether a BAR's barrier and count are one
// register, which holds both.
func packedBarRegs(in *ori.Inst) bool {
	a, b := in.Srcs[0], in.Srcs[1]
	return a.Kind == ori.OpdReg && b.Kind == ori.OpdReg && a.Reg == b.Reg && !a.Reg.IsZero()
}

// execB2R: B2R.RESULT d[, p] reads the reduction of the warp's last
// BAR.RED without a result: the count (POPC) into d, and whether it is
// nonzero (AND, OR) into p.
func execB2R(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	advance(f, mask)
	var p uint32
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if len(d.dst) > 0 {
			s.set(w, f, &d.dst[0], lane, 0, w.barRes[lane])
		}
		if w.barRes[lane] != 0 {
			p |= 1 << lane
		}
	}
	if len(d.dst) > 1 {
		s.setPred(w, f, &d.dst[1], eff, p)
	}
	return nil
}

// releaseBarriers completes every barrier whose thread count is reached.
func (s *machine) releaseBarriers(c *cta) (bool, error) {
	live := 0
	for _, w := range c.warps {
		live += bits.OnesCount32(w.live &^ w.exited)
	}
	released := false
	for id, b := range c.bars {
		if len(b.waiters) == 0 && b.arrived == 0 {
			continue
		}
		want := b.want
		if want == 0 {
			want = live
		}
		if b.arrived < want || len(b.waiters) == 0 {
			continue
		}
		if err := s.checkAligned(c, id); err != nil {
			return false, err
		}
		for _, wt := range b.waiters {
			wt.w.barWait &^= wt.mask
			if wt.d.has("RED") && len(wt.d.dst) == 0 {
				// Split off by PostFixForMercTargets: B2R.RESULT
				// reads the reduction.
				for m := wt.mask; m != 0; m &= m - 1 {
					wt.w.barRes[bits.TrailingZeros32(m)] = b.red
				}
			}
			if wt.d.has("RED") && len(wt.d.dst) > 0 {
				o := &wt.d.dst[0]
				if o.kind == okPred {
					v := uint32(0)
					if b.red != 0 {
						v = ^uint32(0)
					}
					s.setPred(wt.w, wt.f, o, wt.mask, v)
				} else {
					for m := wt.mask; m != 0; m &= m - 1 {
						s.set(wt.w, wt.f, o, bits.TrailingZeros32(m), 0, b.red)
					}
				}
			}
			advance(wt.f, wt.mask)
		}
		delete(c.bars, id)
		released = true
	}
	return released, nil
}

// checkAligned enforces the .aligned semantics of bar.sync when barrier
// id completes: every thread of a warp that waits at it must wait at the
// same barrier instruction. (Threads of a warp may arrive at different
// times — the simulator runs diverged threads separately — but they must
// arrive at the same instruction.)
func (s *machine) checkAligned(c *cta, id int32) error {
	for _, w := range c.warps {
		if w.barWait == 0 {
			continue
		}
		f := w.frames[len(w.frames)-1]
		first := bits.TrailingZeros32(w.barWait)
		pc := f.pc[first]
		var same, other uint32
		for m := w.barWait; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			if f.pc[lane] == pc {
				same |= 1 << lane
			} else {
				other |= 1 << lane
			}
		}
		if other != 0 {
			d := &f.c.insts[pc]
			o := &f.c.insts[f.pc[bits.TrailingZeros32(other)]]
			return s.fault(w, f, d, same, "barrier %d executed in divergent code: threads %s of warp %d wait at #%d (%s) while threads %s wait at #%d (%s); bar.sync is .aligned, so every thread of a warp must execute the same barrier instruction", id, laneList(same), w.id, d.in.ID, d.in.Name(), laneList(other), o.in.ID, o.in.Name())
		}
	}
	return nil
}

// deadlock describes why no thread of the CTA can run.
func (s *machine) deadlock(c *cta) error {
	var parts []string
	for _, w := range c.warps {
		if w.done {
			continue
		}
		f := w.frames[len(w.frames)-1]
		if w.barWait != 0 {
			lane := bits.TrailingZeros32(w.barWait)
			d := &f.c.insts[f.pc[lane]]
			parts = append(parts, fmt.Sprintf("warp %d: threads %s wait at barrier #%d (%s)", w.id, laneList(w.barWait), d.in.ID, d.in.Name()))
		}
		if w.conv != 0 {
			lane := bits.TrailingZeros32(w.conv)
			d := &f.c.insts[f.pc[lane]]
			parts = append(parts, fmt.Sprintf("warp %d: threads %s wait at #%d (%s) for threads that never arrive", w.id, laneList(w.conv), d.in.ID, d.in.Name()))
		}
		if n := bits.OnesCount32(w.exited); n > 0 {
			parts = append(parts, fmt.Sprintf("warp %d: %d threads exited", w.id, n))
		}
	}
	return fmt.Errorf("kernel %s deadlocked in CTA (%d,%d,%d): no thread can make progress: %s", s.kernel.fn.Name, c.id[0], c.id[1], c.id[2], strings.Join(parts, "; "))
}

// laneList renders a lane mask as "0-15,17".
func laneList(m uint32) string {
	var parts []string
	for i := 0; i < 32; {
		if m&(1<<i) == 0 {
			i++
			continue
		}
		j := i
		for j+1 < 32 && m&(1<<(j+1)) != 0 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(i))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", i, j))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// execWARPSYNC: the threads wait until every non-exited thread named in
// the mask has reached a WARPSYNC (or a BSYNC).
func execWARPSYNC(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	advance(f, mask&^eff)
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		w.convNeed[lane] = s.get(w, f, &d.src[0], lane, 0)
		w.convFrame[lane] = f
		w.convKind[lane] = -1
	}
	w.conv |= eff
	s.checkConv(w)
	return nil
}

// execBSSY records the executing threads in convergence barrier b.
func execBSSY(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	if eff != 0 {
		b := s.get(w, f, &d.src[0], bits.TrailingZeros32(eff), 0) & 15
		w.bssy[b] = eff
	}
	advance(f, mask)
	return nil
}

// execBSYNC: each thread waits until every thread recorded in barrier b
// has reached a BSYNC b (or a WARPSYNC) or exited.
func execBSYNC(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	eff := s.guardMask(w, f, d, mask)
	advance(f, mask&^eff)
	if eff == 0 {
		return nil
	}
	b := s.get(w, f, &d.src[0], bits.TrailingZeros32(eff), 0) & 15
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		w.convNeed[lane] = w.bssy[b]
		w.convFrame[lane] = f
		w.convKind[lane] = int8(b)
	}
	w.conv |= eff
	s.checkConv(w)
	return nil
}

// checkConv releases the waiting threads whose awaited threads have all
// arrived at a convergence point or exited.
func (s *machine) checkConv(w *warp) {
	for w.conv != 0 {
		var rel uint32
		for m := w.conv; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			need := w.convNeed[lane] & w.live &^ w.exited
			// A thread at BSYNC b waits for the threads recorded in b to
			// reach BSYNC b (or exit); threads waiting elsewhere do not
			// count. A thread at WARPSYNC counts every waiting thread of
			// its mask as arrived, wherever it waits: that is what real
			// GPUs do for a vote.sync in one arm of a branch whose other
			// arm waits at the join (ZLUDA's vote_all_sub, recorded on
			// hardware), and it cannot release a BSYNC early.
			same := w.conv
			if k := w.convKind[lane]; k >= 0 {
				same = 0
				for m2 := w.conv; m2 != 0; m2 &= m2 - 1 {
					if l2 := bits.TrailingZeros32(m2); w.convKind[l2] == k {
						same |= 1 << l2
					}
				}
			}
			if need&^same == 0 {
				rel |= 1 << lane
			}
		}
		if rel == 0 {
			return
		}
		for m := rel; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			w.convFrame[lane].pc[lane]++
			w.convFrame[lane] = nil
		}
		w.conv &^= rel
	}
}
