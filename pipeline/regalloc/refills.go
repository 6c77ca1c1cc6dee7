package regalloc

import "orilab/pipeline/ori"

// Redundant refill and dead spill store elimination, a small cousin of
// ptxas's spill-refill pattern optimization (001:20688-20706).
//
// Spill code is generated per instruction (cost.go), so two neighbouring
// instructions that read the same spilled value each get a refill, and a
// value stored right after its definition is refilled right away by the
// next reader:
//
//	#20 STL [R1+0x8], R4 ; spill
//	#21 LDL R4 = [R1+0x8] ; refill      <- R4 still holds the slot
//
// A forward walk over each block remembers which register holds which
// spill slot (after a refill or a spill store of it) or which
// rematerialized value (after a remat clone), and deletes a refill or
// clone whose register already holds exactly that. Any write to the
// register, a store to an overlapping slot from another register, a CALL
// (which clobbers everything) and a store through a computed local
// address forget what they may change. The same walk deletes a spill
// store that a later spill store of the same slot overwrites before
// anything could read the slot: no refill of an overlapping slot, no
// load from local memory through a computed address, no CALL, no block
// end in between. Nothing is carried across blocks.

// holding is what a register is known to hold.
type holding struct {
	slot   bool  // a spill slot: off and bytes
	off    int64 // slot offset from R1
	bytes  int
	origin int32 // a remat clone of instruction origin (when !slot)
	words  int
}

// dropRedundantRefills deletes refills and remat clones that reload what
// their register already holds, and dead spill stores, and returns how
// many refills (with clones) and stores it deleted.
func dropRedundantRefills(f *ori.Func) (refills, stores int) {
	for _, b := range f.Blocks {
		held := map[int32]holding{} // by first register of the tuple
		// pending holds the spill stores (indices into kept) whose slot
		// nothing has read since.
		var pending []int
		var kept []*ori.Inst
		forget := func(r ori.Reg) {
			for n, h := range held {
				if int(n) < int(r.N)+int(r.Words) && int(r.N) < int(n)+h.words {
					delete(held, n)
				}
			}
		}
		forgetSlot := func(off int64, bytes int, except int32) {
			for n, h := range held {
				if n != except && h.slot && h.off < off+int64(bytes) && off < h.off+int64(h.bytes) {
					delete(held, n)
				}
			}
		}
		// readSlot ends the pending stores a read of off..off+bytes (or,
		// with bytes < 0, of any slot) may see.
		readSlot := func(off int64, bytes int) {
			out := pending[:0]
			for _, i := range pending {
				h, _, _ := spillHolding(kept[i])
				if bytes >= 0 && !(h.off < off+int64(bytes) && off < h.off+int64(h.bytes)) {
					out = append(out, i)
				}
			}
			pending = out
		}
		for _, in := range b.Insts {
			if in.Op == ori.OpCALL {
				clear(held)
				readSlot(0, -1)
				kept = append(kept, in)
				continue
			}
			if h, r, ok := spillHolding(in); ok {
				switch in.Role {
				case ori.RoleRefill, ori.RoleRemat:
					if holds(held, r, h) {
						refills++
						continue
					}
					if h.slot {
						readSlot(h.off, h.bytes)
					}
					forget(r)
					held[r.N] = h
				case ori.RoleSpill:
					// A pending store of exactly this slot is dead.
					out := pending[:0]
					for _, i := range pending {
						if p, _, _ := spillHolding(kept[i]); p.off == h.off && p.bytes == h.bytes {
							kept[i] = nil
							stores++
						} else {
							out = append(out, i)
						}
					}
					pending = append(out, len(kept))
					forgetSlot(h.off, h.bytes, r.N)
					forget(r)
					held[r.N] = h
				}
				kept = append(kept, in)
				continue
			}
			if in.Op.Has(ori.FStore) && localStoreMayAlias(in) {
				for n, h := range held {
					if h.slot {
						delete(held, n)
					}
				}
			}
			if in.Op.Has(ori.FLoad) && localLoadMayAlias(in) {
				readSlot(0, -1)
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassR && !o.Reg.IsZero() {
					forget(o.Reg)
				}
			}
			kept = append(kept, in)
		}
		b.Insts = b.Insts[:0]
		for _, in := range kept {
			if in != nil {
				b.Insts = append(b.Insts, in)
			}
		}
	}
	return refills, stores
}

// holds reports whether register r already holds h: exactly, or as
// the matching words of a wider slot (R4.64 stored to [R1+0x8] holds
// [R1+0xc] in R5).
func holds(held map[int32]holding, r ori.Reg, h holding) bool {
	if cur, ok := held[r.N]; ok && cur == h {
		return true
	}
	if !h.slot {
		return false
	}
	for n, cur := range held {
		if cur.slot && cur.off <= h.off && h.off+int64(h.bytes) <= cur.off+int64(cur.bytes) &&
			(h.off-cur.off)%4 == 0 && int64(r.N) == int64(n)+(h.off-cur.off)/4 {
			return true
		}
	}
	return false
}

// spillHolding describes an unguarded R-class refill, spill store or
// remat clone: what its register holds afterwards.
func spillHolding(in *ori.Inst) (holding, ori.Reg, bool) {
	if in.Guarded() {
		return holding{}, ori.Reg{}, false
	}
	switch {
	case in.Role == ori.RoleRefill && in.Op == ori.OpLDL && len(in.Dsts) == 1 && len(in.Srcs) == 1:
		r := in.Dsts[0].Reg
		return holding{slot: true, off: in.Srcs[0].Imm, bytes: 4 * int(r.Words), words: int(r.Words)}, r, true
	case in.Role == ori.RoleSpill && in.Op == ori.OpSTL && len(in.Srcs) == 2:
		r := in.Srcs[1].Reg
		return holding{slot: true, off: in.Srcs[0].Imm, bytes: 4 * int(r.Words), words: int(r.Words)}, r, true
	case in.Role == ori.RoleRemat:
		var r ori.Reg
		n := 0
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg && !o.Reg.IsZero() {
				r = o.Reg
				n++
			}
		}
		if n == 1 && r.Class == ori.ClassR {
			return holding{origin: in.Origin, words: int(r.Words)}, r, true
		}
	}
	return holding{}, ori.Reg{}, false
}

// localLoadMayAlias reports whether a load might read a spill slot other
// than through a refill: a local or generic load through a computed
// address.
func localLoadMayAlias(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpLDL:
		return !(len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem && in.Srcs[0].HasBase && in.Srcs[0].Reg == stackPointer)
	case ori.OpLD, ori.OpATOM:
		return true
	}
	return false
}

// localStoreMayAlias reports whether a store might write a spill slot:
// any store that can reach local memory other than at a fixed offset from
// R1 (the spill slots lie above every .local variable, so a fixed offset
// below them cannot).
func localStoreMayAlias(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpSTL:
		if len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem && in.Srcs[0].HasBase && in.Srcs[0].Reg == stackPointer {
			return false
		}
		return true
	case ori.OpST, ori.OpATOM, ori.OpRED:
		return true // generic addresses may point into the local window
	}
	return false
}
