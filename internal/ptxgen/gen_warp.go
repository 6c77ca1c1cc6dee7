package ptxgen

// Warp collectives: shfl.sync, vote.sync, redux.sync, match.sync,
// activemask and elect.sync. A collective is well defined when its
// membermask is exactly the set of threads that execute it and, for
// shfl, every source lane is in that set. The generator knows that set
// (ctx.mask) in two situations: converged code of a kernel whose blocks
// are whole warps (every lane), and directly inside a lane split, an if
// on the lane number that separates the even from the odd lanes or the
// lower from the upper half-warp. Inside a split, shfl operands are
// chosen so the computed source lane stays in the same part:
//   - parity split: up/down/bfly offsets are even, idx source lanes have
//     the part's parity (any segment width keeps that);
//   - half split: segments of 16 lanes or fewer, bfly offsets below 16.

// The masks ctx.mask can hold.
const (
	maskFull = "full"
	maskEven = "even"
	maskOdd  = "odd"
	maskLo   = "lo16"
	maskHi   = "hi16"
)

var maskBits = map[string]uint32{
	maskFull: 0xffffffff, maskEven: 0x55555555, maskOdd: 0xaaaaaaaa, maskLo: 0x0000ffff, maskHi: 0xffff0000,
}

// laneSplit generates an if on the lane number with collectives inside.
func (fg *fgen) laneSplit(c ctx) Stmt {
	r := fg.r
	s := &If{Pred: fg.tmp(ClassPred)}
	thenM, elseM := maskEven, maskOdd
	if r.percent(50) {
		t := fg.tmp(ClassB32)
		s.Cond = []string{sprintf("and.b32 %s, %s, 1;", t, fg.lane), sprintf("setp.eq.u32 %s, %s, 0;", s.Pred, t)}
		s.Kind = "lanesplit.parity"
	} else {
		s.Cond = []string{sprintf("setp.lt.u32 %s, %s, 16;", s.Pred, fg.lane)}
		thenM, elseM = maskLo, maskHi
		s.Kind = "lanesplit.half"
	}
	if r.percent(30) {
		s.Neg = true
		thenM, elseM = elseM, thenM
	}
	inner := c
	inner.depth++
	inner.converged = false
	inner.exits = divergentExits(inner.exits)
	inner.mask = thenM
	s.Then = fg.block(inner, r.rangeIn(1, 3))
	if r.percent(70) {
		inner.mask = elseM
		s.Else = fg.block(inner, r.rangeIn(1, 3))
	}
	return s
}

// memberMask returns the membermask operand for mask m: an immediate, or
// a register holding it (with the line that sets it).
func (fg *fgen) memberMask(m string) ([]string, string) {
	v := maskBits[m]
	switch fg.r.intn(4) {
	case 0:
		t := fg.tmp(ClassB32)
		return []string{sprintf("mov.u32 %s, 0x%08X;", t, v)}, t
	case 1:
		if v == 0xffffffff {
			return nil, "-1"
		}
	}
	return nil, sprintf("0x%08X", v)
}

func (fg *fgen) warpLeaf(c ctx) Stmt {
	r := fg.r
	m := c.mask
	pre, mask := fg.memberMask(m)
	target := fg.g.p.Target
	switch n := r.intn(12); {
	case n < 5:
		return fg.shfl(m, pre, mask)
	case n < 8:
		lines, p := fg.cond()
		lines = append(pre, lines...)
		if r.percent(40) {
			return leaf("warp.vote.ballot", append(lines, sprintf("vote.sync.ballot.b32 %s, %s, %s;", fg.sv(ClassB32), notp(r, p), mask))...)
		}
		mode := r.pick("all", "any", "uni")
		return leaf("warp.vote."+mode, append(lines, sprintf("vote.sync.%s.pred %s, %s, %s;", mode, fg.sv(ClassPred), notp(r, p), mask))...)
	case n < 10 && target >= 80:
		op := r.pick("add.u32", "add.s32", "min.u32", "min.s32", "max.u32", "max.s32", "and.b32", "or.b32", "xor.b32")
		return leaf("warp.redux."+op, append(pre, sprintf("redux.sync.%s %s, %s, %s;", op, fg.sv(ClassB32), fg.reg(ClassB32), mask))...)
	case n < 11:
		if r.percent(50) {
			return leaf("warp.match.any", append(pre, sprintf("match.any.sync.b32 %s, %s, %s;", fg.sv(ClassB32), fg.reg(ClassB32), mask))...)
		}
		if r.percent(50) {
			return leaf("warp.match.any.b64", append(pre, sprintf("match.any.sync.b64 %s, %s, %s;", fg.sv(ClassB32), fg.reg(ClassB64), mask))...)
		}
		return leaf("warp.match.all", append(pre, sprintf("match.all.sync.b32 %s|%s, %s, %s;", fg.sv(ClassB32), fg.sv(ClassPred), fg.reg(ClassB32), mask))...)
	}
	if target >= 90 && r.percent(50) {
		return leaf("warp.elect", append(pre, sprintf("elect.sync %s|%s, %s;", fg.sv(ClassB32), fg.sv(ClassPred), mask))...)
	}
	if m == maskFull {
		// activemask does not synchronize: after a divergent region the
		// warp need not have reconverged, and on the H100 it sometimes had
		// not (fuzz5550319, fuzz5550705, fuzz5551189, fuzz5551241 of
		// ../shared/hwtruth: each path group of the region read its own
		// mask; see pipeline/sim's doc.go). bar.warp.sync over the full
		// warp, which every lane reaches in converged code, reconverges it
		// first, so the result is the full mask on every GPU.
		return leaf("warp.activemask", "bar.warp.sync -1;", sprintf("activemask.b32 %s;", fg.sv(ClassB32)))
	}
	return fg.shfl(m, pre, mask)
}

// shfl generates a shfl.sync whose source lanes stay inside mask m.
func (fg *fgen) shfl(m string, pre []string, mask string) *Leaf {
	r := fg.r
	mode := r.pick("up", "down", "bfly", "idx")
	// Segment width: 32 (no segments) down to 2.
	w := []int{32, 32, 16, 8, 4, 2}[r.intn(6)]
	if (m == maskLo || m == maskHi) && w == 32 {
		w = 16
	}
	seg := (32 - w) << 8
	cval := seg | 0x1f
	if mode == "up" {
		cval = seg
	}
	lines := append([]string(nil), pre...)
	var b string
	switch {
	case m == maskFull:
		b = fg.src(ClassB32)
	case m == maskEven || m == maskOdd:
		par := 0
		if m == maskOdd {
			par = 1
		}
		if r.percent(50) {
			v := 2 * r.intn(16)
			if mode == "idx" {
				v |= par
			}
			b = sprintf("%d", v)
		} else {
			b = fg.tmp(ClassB32)
			lines = append(lines, sprintf("and.b32 %s, %s, 30;", b, fg.reg(ClassB32)))
			if mode == "idx" && par == 1 {
				lines = append(lines, sprintf("or.b32 %s, %s, 1;", b, b))
			}
		}
	default: // half split: stay inside the 16-lane half
		limit := 31
		if mode == "bfly" {
			limit = 15
		}
		if r.percent(50) {
			b = sprintf("%d", r.intn(limit+1))
		} else {
			b = fg.tmp(ClassB32)
			lines = append(lines, sprintf("and.b32 %s, %s, %d;", b, fg.reg(ClassB32), limit))
		}
	}
	src, dst := fg.reg(ClassB32), fg.sv(ClassB32)
	if r.percent(25) {
		src, dst = fg.reg(ClassF32), fg.sv(ClassF32)
	}
	out := dst
	if r.percent(30) {
		out += "|" + fg.sv(ClassPred)
	}
	lines = append(lines, sprintf("shfl.sync.%s.b32 %s, %s, %s, 0x%X, %s;", mode, out, src, b, cval, mask))
	return leaf("warp.shfl."+mode, lines...)
}
