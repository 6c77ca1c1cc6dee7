package ori

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

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

// liveIndex numbers the words. The computed numbers of virtual and of
// physical words of each class are small and dense, so slices indexed by
// them find a word's index; a map holds the rest (negative or huge
// numbers, from parsed IR). The map it replaced was most of the cost of
// MaxPressure.
type liveIndex struct {
	dense [2][NumClasses][]int32 // [virtual][class], by wordID.n: index + 1 (0: none)
	ids   map[wordID]int
	keys  []wordID
}

func (x *liveIndex) id(r Reg, w int) int {
	k := wordID{n: r.N, class: r.Class, virtual: r.Virtual}
	if r.Virtual {
		k.n = r.N<<2 | int32(r.Off) + int32(w)
	} else {
		k.n = r.N + int32(w)
	}
	if k.n >= 0 && k.n < wordDenseLimit && k.class < NumClasses {
		v := 0
		if k.virtual {
			v = 1
		}
		d := x.dense[v][k.class]
		if int(k.n) >= len(d) {
			d = append(d, make([]int32, max(int(k.n)+1-len(d), len(d)))...)
			x.dense[v][k.class] = d
		}
		if d[k.n] == 0 {
			x.keys = append(x.keys, k)
			d[k.n] = int32(len(x.keys))
		}
		return int(d[k.n]) - 1
	}
	if i, ok := x.ids[k]; ok {
		return i
	}
	if x.ids == nil {
		x.ids = map[wordID]int{}
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
//
// The result is kept with the function and handed out again while the
// code and the edges are the same (Fingerprint, as for Liveness):
// rematerialization and the uniform-register conversion ask for it on
// every run, mostly of code no pass has changed since the last answer,
// and each answer solved the liveness of every register word.
func MaxPressure(f *Func) Pressure {
	fp := Fingerprint(f)
	c := &f.cache
	edges := c.pressScratch[:0]
	for _, b := range f.Blocks {
		edges = append(edges, b)
		edges = append(edges, b.Succs...)
		edges = append(edges, nil)
	}
	if c.pressOK && c.pressFP == fp && slices.Equal(c.pressEdges, edges) {
		c.pressScratch = edges
		if CheckAnalysisCache.Load() {
			if p := maxPressure(f); p != c.press {
				panic(fmt.Sprintf("ori: stale cached register pressure of %s: %+v, fresh %+v", f.Name, c.press, p))
			}
		}
		return c.press
	}
	p := maxPressure(f)
	c.press, c.pressFP, c.pressOK = p, fp, true
	c.pressEdges, c.pressScratch = edges, c.pressEdges
	return p
}

// TrialPressure computes the register pressure of f as MaxPressure
// does, without its cache: it neither hashes the code nor replaces the
// kept answer. It is for a trial rewrite that is checked once and then
// mostly undone (the uniform-register conversion): the fingerprint of a
// state that is never asked about again is wasted work, and storing its
// answer would evict the one for the code the function returns to.
func TrialPressure(f *Func) Pressure { return maxPressure(f) }

// pressureUse is an instruction's words for maxPressure:
// defs[dAt:dAt+nd] and uses[uAt:uAt+nu] (two arenas, not two slices per
// instruction).
type pressureUse struct {
	dAt, nd, uAt, nu int32
	killing          bool
}

// pressureScratch is maxPressure's memory, reused from one call to the
// next (pressurePool): the index tables, arenas and sets of a large
// kernel are megabytes, and the uniform-register conversion asks for the
// pressure of a fresh clone on every trial, so the function's own cache
// would not keep them. The index tables come back all zero (release
// clears what was set).
type pressureScratch struct {
	x          liveIndex
	defs, uses []int32
	perAll     []pressureUse
	per        [][]pressureUse
	sets       []bitset
	slab       []uint64
	// walkSets (in walkSlab) are the walk's set and the class masks,
	// as wide as every word; perm, killed and keys are crossFirst's.
	walkSets     []bitset
	walkSlab     []uint64
	perm, killed []int32
	keys         []wordID
}

// crossFirst renumbers the words of maxPressure so that those that can
// be live across a block boundary come first, and returns how many they
// are: the words some block reads before writing them unguarded, and
// the words phis read at the end of a predecessor. The others are never
// in a block's live-in or live-out set (see LiveSets.crossFirst), so the
// fixed point's sets need not hold them. per's word lists (in sc.defs
// and sc.uses), the phi reads, the keys and the index are rewritten in
// place.
func (sc *pressureScratch) crossFirst(per [][]pressureUse, phiUses []map[int32][]int) int {
	x := &sc.x
	n := len(x.keys)
	perm := reuse(&sc.perm, n)
	killed := reuse(&sc.killed, n)
	for bi, us := range per {
		tag := int32(bi + 1)
		for i := range us {
			u := &us[i]
			for _, w := range sc.uses[u.uAt : u.uAt+u.nu] {
				if killed[w] != tag {
					perm[w] = 1
				}
			}
			if u.killing {
				for _, w := range sc.defs[u.dAt : u.dAt+u.nd] {
					killed[w] = tag
				}
			}
		}
	}
	for _, m := range phiUses {
		for _, ws := range m {
			for _, w := range ws {
				perm[w] = 1
			}
		}
	}
	nc, same := crossingFirst(perm)
	if same {
		return nc
	}
	keys := reuse(&sc.keys, n)
	for i, k := range x.keys {
		keys[perm[i]] = k
	}
	copy(x.keys, keys)
	for i, k := range x.keys {
		if k.n >= 0 && k.n < wordDenseLimit && k.class < NumClasses {
			v := 0
			if k.virtual {
				v = 1
			}
			x.dense[v][k.class][k.n] = int32(i + 1)
		} else {
			x.ids[k] = i
		}
	}
	for i, w := range sc.defs {
		sc.defs[i] = perm[w]
	}
	for i, w := range sc.uses {
		sc.uses[i] = perm[w]
	}
	for _, m := range phiUses {
		for _, ws := range m {
			for i, w := range ws {
				ws[i] = int(perm[w])
			}
		}
	}
	return nc
}

var pressurePool = sync.Pool{New: func() any { return new(pressureScratch) }}

// release clears the index entries of the words indexed and returns sc
// to the pool.
func (sc *pressureScratch) release() {
	x := &sc.x
	for _, k := range x.keys {
		if k.n >= 0 && k.n < wordDenseLimit && k.class < NumClasses {
			v := 0
			if k.virtual {
				v = 1
			}
			if d := x.dense[v][k.class]; int(k.n) < len(d) {
				d[k.n] = 0
			}
		}
	}
	x.keys, x.ids = x.keys[:0], nil
	clear(sc.per)
	pressurePool.Put(sc)
}

func maxPressure(f *Func) Pressure { return blockPressures(f, nil) }

// blockPressures is maxPressure that also stores each block's own peak
// in peaks (when not nil; as long as f.Blocks), for the tests to compare
// block by block.
func blockPressures(f *Func, peaks []Pressure) Pressure {
	sc := pressurePool.Get().(*pressureScratch)
	defer sc.release()
	x := &sc.x
	for c := range x.dense[1] {
		if n := int(f.nextVReg[c]); n > 0 && n < wordDenseLimit/4 {
			// A reused table longer than needed answers the same: its
			// extra entries are zero.
			if d := x.dense[1][c]; len(d) < n<<2+4 {
				if cap(d) >= n<<2+4 {
					x.dense[1][c] = d[:n<<2+4]
				} else {
					x.dense[1][c] = writtenInt32s(n<<2 + 4)
				}
			}
		}
	}
	type use = pressureUse
	defs, uses := sc.defs[:0], sc.uses[:0]
	nInsts := 0
	for _, b := range f.Blocks {
		nInsts += len(b.Insts)
	}
	if cap(sc.perAll) < nInsts {
		sc.perAll = make([]use, nInsts)
	}
	if cap(sc.per) < len(f.Blocks) {
		sc.per = make([][]use, len(f.Blocks))
	}
	perAll, per := sc.perAll[:nInsts], sc.per[:len(f.Blocks)]
	// phiUses[b][p] are the words block b's MOV.PHIs read at the end of
	// predecessor p (the SSA convention: not live in b itself).
	phiUses := make([]map[int32][]int, len(f.Blocks))
	for bi, b := range f.Blocks {
		per[bi], perAll = perAll[:len(b.Insts):len(b.Insts)], perAll[len(b.Insts):]
		for ii, in := range b.Insts {
			u := use{killing: !in.Guarded(), dAt: int32(len(defs)), uAt: int32(len(uses))}
			if in.IsPhi() {
				for _, o := range in.Dsts {
					if o.Kind == OpdReg && !o.Reg.IsZero() {
						for w := 0; w < int(o.Reg.Words); w++ {
							defs = append(defs, int32(x.id(o.Reg, w)))
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
				u.nd = int32(len(defs)) - u.dAt
				per[bi][ii] = u
				continue
			}
			// forRegs's order: the guard, the sources, then the results
			// (and the address bases of memory results).
			add := func(r Reg, def bool) {
				if r.IsZero() {
					return
				}
				for w := 0; w < int(r.Words); w++ {
					if def {
						defs = append(defs, int32(x.id(r, w)))
					} else {
						uses = append(uses, int32(x.id(r, w)))
					}
				}
			}
			add(in.Guard, false)
			for i := range in.Srcs {
				if r, ok := in.Srcs[i].usesReg(); ok {
					add(r, false)
				}
			}
			for i := range in.Dsts {
				if o := &in.Dsts[i]; o.Kind == OpdReg {
					add(o.Reg, true)
				} else if r, ok := o.usesReg(); ok {
					add(r, false)
				}
			}
			u.nd, u.nu = int32(len(defs))-u.dAt, int32(len(uses))-u.uAt
			per[bi][ii] = u
		}
	}
	sc.defs, sc.uses = defs, uses
	defsOf := func(u *use) []int32 { return defs[u.dAt : u.dAt+u.nd] }
	usesOf := func(u *use) []int32 { return uses[u.uAt : u.uAt+u.nu] }
	n := len(x.keys)
	nc := sc.crossFirst(per, phiUses)
	blocks := newBlockIndex(f.Blocks)
	pos := func(b *Block) int {
		i, _ := blocks.pos(b) // 0 for a block not in f, as a map answered
		return i
	}
	// The live-in and live-out sets, as wide as the words that can cross
	// a block boundary (crossFirst numbered them first), then the walk's
	// set and the class masks, as wide as every word, cut from one
	// reused slab.
	nb := len(f.Blocks)
	sc.sets, sc.slab = cutBitsetsInto(sc.sets, sc.slab, 2*nb, nc)
	sets := sc.sets
	liveIn, liveOut := sets[:nb:nb], sets[nb:2*nb:2*nb]
	sc.walkSets, sc.walkSlab = cutBitsetsInto(sc.walkSets, sc.walkSlab, 1+int(NumClasses), n)
	cur := sc.walkSets[0]
	// transfer walks block bi backward from its live-out set into cur.
	// Only cur's first len(out) words are the live-in set: the words
	// past them do not cross blocks, and each is written before it is
	// read in the block, so it is not live on entry (what the walk
	// leaves of them there is not looked at).
	transfer := func(bi int, out bitset) bitset {
		copy(cur, out)
		for ii := len(per[bi]) - 1; ii >= 0; ii-- {
			u := &per[bi][ii]
			if u.killing {
				for _, d := range defsOf(u) {
					cur.clear(int(d))
				}
			}
			for _, s := range usesOf(u) {
				cur.set(int(s))
			}
		}
		return cur
	}
	for changed := true; changed; {
		changed = false
		for bi := len(f.Blocks) - 1; bi >= 0; bi-- {
			out := liveOut[bi]
			clear(out)
			for _, s := range f.Blocks[bi].Succs {
				si := pos(s)
				out.or(liveIn[si])
				for _, w := range phiUses[si][f.Blocks[bi].ID] {
					out.set(w)
				}
			}
			in := transfer(bi, out)[:len(out)]
			if !in.equal(liveIn[bi]) {
				copy(liveIn[bi], in)
				changed = true
			}
		}
	}
	// The walk keeps the number of live words of each class up to date as
	// words enter and leave the set, so that each instruction boundary
	// costs its own operands, not a scan of every word of the function
	// (that scan made snapshots quadratic in the kernel's size).
	var p, all Pressure
	var c [NumClasses]int
	var classMask [NumClasses]bitset
	for k := range classMask {
		classMask[k] = sc.walkSets[1+k]
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
	unset := func(s bitset, i int) {
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
		// The words past the live-out set's are not live out: cleared of
		// what the last walk left (guarded results stay set).
		clear(cur[copy(cur, liveOut[bi]):])
		for k := range c {
			c[k] = 0
			for i, w := range liveOut[bi] {
				c[k] += bits.OnesCount64(w & classMask[k][i])
			}
		}
		record()
		for ii := len(per[bi]) - 1; ii >= 0; ii-- {
			u := &per[bi][ii]
			// Results are live right after the instruction even if nobody
			// reads them: they occupy registers.
			for _, d := range defsOf(u) {
				set(cur, int(d))
			}
			record()
			if u.killing {
				for _, d := range defsOf(u) {
					unset(cur, int(d))
				}
			}
			for _, s := range usesOf(u) {
				set(cur, int(s))
			}
			record()
		}
		if peaks != nil {
			peaks[bi] = p
		}
		all = Pressure{max(all.R, p.R), max(all.UR, p.UR), max(all.P, p.P), max(all.UP, p.UP)}
		p = Pressure{}
	}
	return all
}

func (s bitset) clear(i int) { s[i/64] &^= 1 << (i % 64) }
