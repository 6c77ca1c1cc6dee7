package ori

import "math/bits"

// Liveness over register words, used for the register-pressure estimate of
// snapshots, the DUMPIR header and later by the allocator's heuristics.
//
// A register word (virtual register N word w, or physical register N) is
// live at a point when some path from it reads the word before writing
// it. Guarded writes do not kill (the old value survives when the guard is
// false). The analysis is the classic backward fixed point over blocks,
// with one bitset per block.

// wordID numbers register words for bitsets.
//
// Laid out as eight bytes of plain memory (see wordKey) for fast hashing.
type wordID struct {
	n       int32
	class   RegClass
	virtual bool
	pad     uint16 // always 0
}

type liveIndex struct {
	ids  map[wordID]int
	keys []wordID
}

func (x *liveIndex) id(r Reg, w int) int {
	k := wordID{n: r.N, class: r.Class, virtual: r.Virtual}
	if r.Virtual {
		k.n = r.N<<2 | int32(r.Off) + int32(w)
	} else {
		k.n = r.N + int32(w)
	}
	if i, ok := x.ids[k]; ok {
		return i
	}
	x.ids[k] = len(x.keys)
	x.keys = append(x.keys, k)
	return len(x.keys) - 1
}

// Pressure is the largest number of simultaneously live register words
// of each class found at any instruction boundary.
type Pressure struct {
	R, UR, P, UP int
}

// MaxPressure computes the register pressure of f. The CFG must be
// current.
func MaxPressure(f *Func) Pressure {
	x := &liveIndex{ids: map[wordID]int{}}
	type use struct {
		defs, uses []int
		killing    bool
	}
	per := make([][]use, len(f.Blocks))
	// phiUses[b][p] are the words block b's MOV.PHIs read at the end of
	// predecessor p (the SSA convention: not live in b itself).
	phiUses := make([]map[int32][]int, len(f.Blocks))
	for bi, b := range f.Blocks {
		per[bi] = make([]use, len(b.Insts))
		for ii, in := range b.Insts {
			u := use{killing: !in.Guarded()}
			if in.IsPhi() {
				for _, o := range in.Dsts {
					if o.Kind == OpdReg && !o.Reg.IsZero() {
						for w := 0; w < int(o.Reg.Words); w++ {
							u.defs = append(u.defs, x.id(o.Reg, w))
						}
					}
				}
				for j := 0; j+1 < len(in.Srcs); j += 2 {
					r, ok := in.Srcs[j].usesReg()
					if !ok || r.IsZero() || in.Srcs[j+1].Kind != OpdBlock {
						continue
					}
					if phiUses[bi] == nil {
						phiUses[bi] = map[int32][]int{}
					}
					for w := 0; w < int(r.Words); w++ {
						phiUses[bi][in.Srcs[j+1].Block] = append(phiUses[bi][in.Srcs[j+1].Block], x.id(r, w))
					}
				}
				per[bi][ii] = u
				continue
			}
			forRegs(in, func(r Reg, def bool) {
				if r.IsZero() {
					return
				}
				for w := 0; w < int(r.Words); w++ {
					if def {
						u.defs = append(u.defs, x.id(r, w))
					} else {
						u.uses = append(u.uses, x.id(r, w))
					}
				}
			})
			per[bi][ii] = u
		}
	}
	n := len(x.keys)
	pos := map[*Block]int{}
	for i, b := range f.Blocks {
		pos[b] = i
	}
	liveIn := make([]bitset, len(f.Blocks))
	liveOut := make([]bitset, len(f.Blocks))
	for i := range f.Blocks {
		liveIn[i] = newBitset(n)
		liveOut[i] = newBitset(n)
	}
	transfer := func(bi int, out bitset) bitset {
		cur := out.clone()
		for ii := len(per[bi]) - 1; ii >= 0; ii-- {
			u := per[bi][ii]
			if u.killing {
				for _, d := range u.defs {
					cur.clear(d)
				}
			}
			for _, s := range u.uses {
				cur.set(s)
			}
		}
		return cur
	}
	for changed := true; changed; {
		changed = false
		for bi := len(f.Blocks) - 1; bi >= 0; bi-- {
			out := newBitset(n)
			for _, s := range f.Blocks[bi].Succs {
				out.or(liveIn[pos[s]])
				for _, w := range phiUses[pos[s]][f.Blocks[bi].ID] {
					out.set(w)
				}
			}
			liveOut[bi] = out
			in := transfer(bi, out)
			if !in.equal(liveIn[bi]) {
				liveIn[bi] = in
				changed = true
			}
		}
	}
	// The walk keeps the number of live words of each class up to date as
	// words enter and leave the set, so that each instruction boundary
	// costs its own operands, not a scan of every word of the function
	// (that scan made snapshots quadratic in the kernel's size).
	var p Pressure
	var c [NumClasses]int
	var classMask [NumClasses]bitset
	for k := range classMask {
		classMask[k] = newBitset(n)
	}
	for i, k := range x.keys {
		classMask[k.class].set(i)
	}
	set := func(s bitset, i int) {
		if !s.has(i) {
			s.set(i)
			c[x.keys[i].class]++
		}
	}
	clear := func(s bitset, i int) {
		if s.has(i) {
			s.clear(i)
			c[x.keys[i].class]--
		}
	}
	record := func() {
		p.R = max(p.R, c[ClassR])
		p.UR = max(p.UR, c[ClassUR])
		p.P = max(p.P, c[ClassP])
		p.UP = max(p.UP, c[ClassUP])
	}
	for bi := range f.Blocks {
		cur := liveOut[bi].clone()
		for k := range c {
			c[k] = 0
			for i, w := range cur {
				c[k] += bits.OnesCount64(w & classMask[k][i])
			}
		}
		record()
		for ii := len(per[bi]) - 1; ii >= 0; ii-- {
			u := per[bi][ii]
			// Results are live right after the instruction even if nobody
			// reads them: they occupy registers.
			for _, d := range u.defs {
				set(cur, d)
			}
			record()
			if u.killing {
				for _, d := range u.defs {
					clear(cur, d)
				}
			}
			for _, s := range u.uses {
				set(cur, s)
			}
			record()
		}
	}
	return p
}

func (s bitset) clear(i int) { s[i/64] &^= 1 << (i % 64) }
