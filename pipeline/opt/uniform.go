package opt

// Uniformity analysis: which virtual registers may hold different values
// in different threads of a CTA, and which blocks may run with only part
// of the CTA.
//
// The wiki ("Uniform Register Optimization", seed lines 17788-17900)
// lists the sources of uniformity (kernel parameters and constant-bank
// loads with uniform addresses, SR_CTAID, arithmetic on uniform inputs)
// and of divergence (SR_TID, SR_LANEID, loads from thread-dependent
// addresses, merges across divergent branches). This is the classic
// divergence analysis over those rules, to a fixed point:
//
//   - A block is divergent when it is control dependent (post-dominator
//     tree, Ferrante-Ottenstein-Warren) on a block that splits: one whose
//     terminator has a divergent guard or BRX index, one that ends in a
//     guarded EXIT or RET with a divergent guard, or one that is itself
//     divergent. Blocks that cannot reach an exit are treated as control
//     dependent on every splitting block.
//   - A register is divergent when any instruction that writes it is in a
//     divergent block, has a divergent guard, reads a divergent register
//     (sources, address bases), reads a physical register other than
//     RZ/PT (those are shared with callers and callees and written by
//     CALL), or produces a per-thread value by nature: S2R/CS2R of any
//     special register but SR_CTAID.X/Y/Z, SR_NCTAID.X/Y/Z and
//     SR_CgaCtaId (the CTA's rank in its cluster, sm_90), every load
//     except a constant-bank load, atomics and warp collectives. A
//     register read but never written is divergent.
//
// Decision: the analysis is at CTA scope, not warp scope: a value such as
// tid.x >> 5, uniform in each warp but not across warps, counts as
// divergent. That is what barrier removal needs and it is conservative for
// warp-level uses. The wiki's phase 27 (AnalyzeUniformsForSpeculation)
// computes this ahead of its consumers; orilab computes it on demand
// where it is used (OriRemoveRedundantBarriers), because no result is kept
// across phases and the IR changes in between.

import "orilab/pipeline/ori"

// uniformity is the analysis result for one function.
type uniformity struct {
	divReg   regSet
	divBlock map[*ori.Block]bool
}

// divergentReg reports whether r may differ between threads.
func (u *uniformity) divergentReg(r ori.Reg) bool {
	if !r.Virtual {
		return !r.IsZero()
	}
	return u.divReg.has(cmRegOf(r))
}

// regSet is a set of virtual registers: a bool per register number and
// class, and a map for numbers out of that range. The analysis asks about
// every operand of every instruction in each round of its fixed point,
// and map lookups and inserts were most of its time.
type regSet struct {
	dense [ori.NumClasses][]bool
	other map[cmReg]bool
}

func (s *regSet) has(k cmReg) bool {
	if k.n >= 0 && k.n < wordIDsDenseLimit && int(k.class) < len(s.dense) {
		d := s.dense[k.class]
		return int(k.n) < len(d) && d[k.n]
	}
	return s.other[k]
}

// add puts k in s and reports whether it was not there.
func (s *regSet) add(k cmReg) bool {
	if k.n >= 0 && k.n < wordIDsDenseLimit && int(k.class) < len(s.dense) {
		d := s.dense[k.class]
		if int(k.n) >= len(d) {
			d = append(d, make([]bool, max(int(k.n)+1-len(d), len(d)))...)
			s.dense[k.class] = d
		}
		if d[k.n] {
			return false
		}
		d[k.n] = true
		return true
	}
	if s.other[k] {
		return false
	}
	if s.other == nil {
		s.other = map[cmReg]bool{}
	}
	s.other[k] = true
	return true
}

// uniformSR reports whether every thread of a CTA reads the same value
// from a special register.
func uniformSR(name string) bool {
	switch name {
	case "SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z", "SR_NCTAID.X", "SR_NCTAID.Y", "SR_NCTAID.Z", "SR_CgaCtaId":
		return true
	}
	return false
}

// analyzeUniformity computes f's uniformity. f's CFG must be current.
func analyzeUniformity(f *ori.Func) *uniformity {
	u := &uniformity{divBlock: map[*ori.Block]bool{}}
	if len(f.Blocks) == 0 {
		return u
	}
	cd := controlDependence(f)
	var defined regSet
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					defined.add(cmRegOf(o.Reg))
				}
			}
		}
	}
	undefinedRead := func(r ori.Reg) {
		if r.Virtual && !defined.has(cmRegOf(r)) {
			u.divReg.add(cmRegOf(r))
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			cmReads(in, undefinedRead)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			if !u.divBlock[b] {
				for _, a := range cd[b] {
					if u.splits(a) {
						u.divBlock[b] = true
						changed = true
						break
					}
				}
			}
			for _, in := range b.Insts {
				// Only the results change: an instruction whose every
				// virtual result is divergent already has nothing to add.
				open := false
				for _, o := range in.Dsts {
					open = open || o.Kind == ori.OpdReg && o.Reg.Virtual && !u.divReg.has(cmRegOf(o.Reg))
				}
				if !open || !u.divergentDef(b, in) {
					continue
				}
				for _, o := range in.Dsts {
					if o.Kind == ori.OpdReg && o.Reg.Virtual && u.divReg.add(cmRegOf(o.Reg)) {
						changed = true
					}
				}
			}
		}
	}
	return u
}

// splits reports whether threads that run block a may leave it in
// different directions (or some of them leave the function).
func (u *uniformity) splits(a *ori.Block) bool {
	if u.divBlock[a] {
		return true
	}
	if len(a.Insts) == 0 {
		return false
	}
	last := a.Insts[len(a.Insts)-1]
	if last.Guarded() && u.divergentReg(last.Guard) {
		return true
	}
	if last.Op == ori.OpBRX && len(last.Srcs) > 0 && last.Srcs[0].Kind == ori.OpdReg {
		return u.divergentReg(last.Srcs[0].Reg)
	}
	return false
}

// divergentDef reports whether in's results may differ between threads.
func (u *uniformity) divergentDef(b *ori.Block, in *ori.Inst) bool {
	if u.divBlock[b] || in.Guarded() && u.divergentReg(in.Guard) {
		return true
	}
	fl := in.Op.Flags()
	switch {
	case in.Op == ori.OpS2R || in.Op == ori.OpS2UR || in.Op == ori.OpCS2R:
		for _, o := range in.Srcs {
			if o.Kind == ori.OpdSR && !uniformSR(o.Name) {
				return true
			}
		}
	case in.Op == ori.OpLDC || in.Op == ori.OpULDC:
	case fl&(ori.FLoad|ori.FAtomic|ori.FWarp|ori.FCall) != 0:
		return true
	}
	div := false
	cmReads(in, func(r ori.Reg) { div = div || u.divergentReg(r) })
	return div
}

// controlDependence maps each block to the blocks it is control
// dependent on.
func controlDependence(f *ori.Func) map[*ori.Block][]*ori.Block {
	pdom := ori.PostDominators(f)
	cd := map[*ori.Block][]*ori.Block{}
	add := func(b, a *ori.Block) {
		for _, x := range cd[b] {
			if x == a {
				return
			}
		}
		cd[b] = append(cd[b], a)
	}
	for _, a := range f.Blocks {
		if len(a.Succs) < 2 && !(len(a.Insts) > 0 && a.Insts[len(a.Insts)-1].Guarded()) {
			continue
		}
		if !pdom.Reached(a) {
			// a cannot reach an exit: be conservative.
			for _, b := range f.Blocks {
				add(b, a)
			}
			continue
		}
		stop := pdom.Idom(a)
		for _, s := range a.Succs {
			if !pdom.Reached(s) {
				for _, b := range f.Blocks {
					add(b, a)
				}
				continue
			}
			for x := s; x != nil && x != stop; x = pdom.Idom(x) {
				add(x, a)
			}
		}
		// A guarded EXIT or RET lets some threads leave: everything after
		// it runs with fewer threads, which the blocks it reaches see.
		if last := a.Insts[len(a.Insts)-1]; last.Guarded() && (last.Op == ori.OpEXIT || last.Op == ori.OpRET) {
			for _, b := range reachableFrom(a) {
				add(b, a)
			}
		}
	}
	// Blocks that cannot reach an exit are control dependent on every
	// block that may split.
	for _, b := range f.Blocks {
		if !pdom.Reached(b) {
			for _, a := range f.Blocks {
				if len(a.Succs) > 1 {
					add(b, a)
				}
			}
		}
	}
	return cd
}

// reachableFrom returns the blocks reachable from a's successors.
func reachableFrom(a *ori.Block) []*ori.Block {
	seen := map[*ori.Block]bool{}
	var out []*ori.Block
	stack := append([]*ori.Block(nil), a.Succs...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		out = append(out, b)
		stack = append(stack, b.Succs...)
	}
	return out
}
