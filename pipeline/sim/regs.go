package sim

import "fmt"

// get reads word `word` of operand o for one lane, without applying
// negation or inversion (each instruction applies its own).
func (s *machine) get(w *warp, f *frame, o *opnd, lane, word int) uint32 {
	switch o.kind {
	case okReg:
		if o.zero {
			return 0
		}
		if o.phys {
			return w.phys[(int(o.slot)+word)*warpSize+lane]
		}
		return f.regs[(int(o.slot)+word)*warpSize+lane]
	case okImm:
		if word == 0 {
			return uint32(o.imm)
		}
		return uint32(int64(o.imm) >> (32 * uint(word)))
	case okCBank:
		off := int64(o.imm) + int64(4*word)
		if o.base {
			off += int64(s.baseReg(w, f, o, lane))
		}
		b := s.bank[o.bank]
		if off < 0 || int(off)+4 > len(b) {
			return 0
		}
		return uint32(le(b[off:], 4))
	case okSR:
		return s.sreg(w, o.sr, lane, word)
	}
	return 0
}

// baseReg reads the base register of an address operand (32 bits).
func (s *machine) baseReg(w *warp, f *frame, o *opnd, lane int) uint32 {
	if o.zero {
		return 0
	}
	if o.phys {
		return w.phys[int(o.slot)*warpSize+lane]
	}
	return f.regs[int(o.slot)*warpSize+lane]
}

// baseReg64 reads a 64-bit base register pair.
func (s *machine) baseReg64(w *warp, f *frame, o *opnd, lane int) uint64 {
	if o.zero {
		return 0
	}
	arr := f.regs
	if o.phys {
		arr = w.phys
	}
	lo := arr[int(o.slot)*warpSize+lane]
	hi := arr[(int(o.slot)+1)*warpSize+lane]
	return uint64(lo) | uint64(hi)<<32
}

func (s *machine) get64(w *warp, f *frame, o *opnd, lane int) uint64 {
	if o.kind == okImm {
		if o.fk == 0 {
			return uint64(int64(o.imm))
		}
		return o.imm
	}
	return uint64(s.get(w, f, o, lane, 0)) | uint64(s.get(w, f, o, lane, 1))<<32
}

func (s *machine) set(w *warp, f *frame, o *opnd, lane, word int, v uint32) {
	if o.kind != okReg || o.zero {
		return
	}
	if o.phys {
		w.phys[(int(o.slot)+word)*warpSize+lane] = v
		return
	}
	f.regs[(int(o.slot)+word)*warpSize+lane] = v
}

func (s *machine) set64(w *warp, f *frame, o *opnd, lane int, v uint64) {
	s.set(w, f, o, lane, 0, uint32(v))
	s.set(w, f, o, lane, 1, uint32(v>>32))
}

// pred reads a predicate operand for all lanes, applying '!'.
func (s *machine) pred(w *warp, f *frame, o *opnd) uint32 {
	var v uint32
	switch {
	case o.kind == okImm:
		if o.imm != 0 {
			v = ^uint32(0)
		}
	case o.zero:
		v = ^uint32(0)
	case o.phys:
		v = w.ppred[o.slot]
	default:
		v = f.preds[o.slot]
	}
	if o.not {
		v = ^v
	}
	return v
}

// setPred writes v into predicate o for the lanes in mask.
func (s *machine) setPred(w *warp, f *frame, o *opnd, mask, v uint32) {
	if o.kind != okPred || o.zero {
		return
	}
	if o.phys {
		w.ppred[o.slot] = w.ppred[o.slot]&^mask | v&mask
		return
	}
	f.preds[o.slot] = f.preds[o.slot]&^mask | v&mask
}

// sreg reads a special register.
func (s *machine) sreg(w *warp, name string, lane, word int) uint32 {
	t := w.tid[lane]
	switch name {
	case "SR_TID.X":
		return uint32(t[0])
	case "SR_TID.Y":
		return uint32(t[1])
	case "SR_TID.Z":
		return uint32(t[2])
	case "SR_CTAID.X":
		return uint32(s.ctaID[0])
	case "SR_CTAID.Y":
		return uint32(s.ctaID[1])
	case "SR_CTAID.Z":
		return uint32(s.ctaID[2])
	case "SR_CgaCtaId":
		return clusterRank
	case "SR_LANEID":
		return uint32(lane)
	case "SR_WARPID":
		return uint32(w.id)
	case "SR_NWARPID":
		return uint32(len(w.cta.warps))
	case "SR_SMID", "SR_GRIDID":
		return 0
	case "SR_NSMID":
		return 1
	case "SR_EQMASK":
		return 1 << lane
	case "SR_LTMASK":
		return 1<<lane - 1
	case "SR_LEMASK":
		return 1<<(lane+1) - 1
	case "SR_GTMASK":
		return ^uint32(1<<(lane+1) - 1)
	case "SR_GEMASK":
		return ^uint32(1<<lane - 1)
	case "SR_CLOCKLO":
		return uint32(uint64(s.steps) >> (32 * uint(word)))
	case "SR_CLOCKHI":
		return uint32(uint64(s.steps) >> 32)
	case "SR_GLOBALTIMERLO":
		// A deterministic "nanosecond" timer: 1000 per warp-step.
		return uint32(uint64(s.steps) * 1000 >> (32 * uint(word)))
	case "SR_GLOBALTIMERHI":
		return uint32(uint64(s.steps) * 1000 >> 32)
	}
	panic(fmt.Sprintf("sim: unknown special register %s", name))
}
