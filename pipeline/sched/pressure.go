package sched

// Register-pressure tracking while a region is being scheduled: ptxas's
// liveness bitvector with popcount (001:22654-22677), kept per register
// class.
//
// Before the schedule starts, a backward pass over the region in its input
// order gives the words live on entry (live out of the block, plus every
// word read before it is written). Then, as instructions are placed:
//
//   - a word read for the last time (no unplaced reader left in the region
//     and not live out) dies;
//   - a written word is live afterwards when an unplaced instruction reads
//     it or it is live out.
//
// The delta of a candidate is the change in live words per class if it
// went next; ReduceReg ranks by it, and every mode refuses (when it can) a
// candidate that would push a class over its budget. Before allocation,
// the passes after ReduceReg get each region's peak after ReduceReg as
// their R budget (SchedKeepPressure, see Schedule), so hiding latency
// never raises a block's pressure. Virtual registers count, and before
// allocation the physical R words a region writes for a CALL (the
// argument registers R4.. and the return-address pair, which the CALL
// reads implicitly: the words written since the region's previous CALL,
// the allocator's rule in regalloc/problem.go): each is live from its
// move to the CALL, so hoisting an argument move away from its CALL
// raises the pressure as the allocator will see it. Without that, ReduceReg
// moved "MOV R4 = 0x11" to the top of vec_subword_mov's block, where its
// precolored range kept the output pointer out of R4-R7 (12 registers,
// 10 with it; SchedArgPressure=0 counts virtual words only). After allocation the register count is fixed and no order
// can change it, so the post-RA scheduler runs without a tracker.
//
// A multi-word virtual register (a pair, a store's data tuple) counts
// whole, as the allocator sees it: it gives such a register one live
// range, all of its words live from the first definition of any of them
// to the last read of any. So the tracker counts a register's words as
// live while any word is live, and also between a first partial
// definition and the last one (open, below). Counting word by word, the
// ILP pass moved the first word of each tuple up and its last word down
// within the same word peak, and the allocator needed far more: in
// int_carry.ptx (four 128-bit stores built from 32- and 64-bit adds) 38
// registers where the unscheduled order needs 24 (ptxas 30), in ZLUDA's
// sad_s64 24 where it needs 18 (ptxas 16).

import "orilab/pipeline/ori"

// The tracker numbers the region's virtual words densely, so that the
// candidate loop, which asks for a delta of every ready instruction at
// every step, works on slices instead of maps.
type pressure struct {
	on     bool
	class  []ori.RegClass // per word index
	out    []bool         // live out of the region
	live   []bool
	remain []int32   // reads of the word by unplaced instructions
	rd     [][]int32 // per node: the virtual words it reads, once each
	dst    [][]int32 // per node: the virtual words it writes, once each
	// Registers (groups of words): grp is each word's register, gsize
	// its words in the region, gtouch per node the registers it reads
	// or writes and gwrite those it writes (once each). gLive counts a
	// register's live words, gDefs its unplaced writers, and gDone is
	// set once a placed node wrote one of its words.
	grp    []int32
	gsize  []int32
	gclass []ori.RegClass
	gtouch [][]int32
	gwrite [][]int32
	gLive  []int32
	gDefs  []int32
	gDone  []bool
	// arena backs the per-node lists.
	arena []int32
	count [ori.NumClasses]int
	limit [ori.NumClasses]int
	peak  int // the largest R count seen
	peakP int // the largest P count seen
}

// newPressure prepares the tracker for region d. liveOut holds the
// virtual words live after the region; budgetR is the R-class limit;
// args counts the physical words written for a CALL (SchedArgPressure).
// The word and register indices are built in tabs (reset here; nil: fresh ones), and the tracker in into (overwritten, its arrays reused; nil: a
// fresh one), which a caller reuses from region to region: the per-node
// lists were a large share of the scheduler's allocation.
func newPressure(d *dag, liveOut *liveSet, budgetR int, args bool, tabs *[2]wordTable, into *pressure) *pressure {
	n := len(d.insts)
	if into == nil {
		into = &pressure{}
	}
	p := into
	// Every node's lists are set below: the arrays need no clearing.
	*p = pressure{on: true, rd: sized(p.rd, n), dst: sized(p.dst, n),
		gtouch: sized(p.gtouch, n), gwrite: sized(p.gwrite, n), arena: p.arena[:0],
		class: p.class[:0], out: p.out[:0], grp: p.grp[:0], gsize: p.gsize[:0], gclass: p.gclass[:0],
		live: p.live, remain: p.remain, gLive: p.gLive, gDefs: p.gDefs, gDone: p.gDone}
	p.limit = [ori.NumClasses]int{ori.ClassR: budgetR, ori.ClassUR: ori.ClassUR.Limit(), ori.ClassP: ori.ClassP.Limit(), ori.ClassUP: ori.ClassUP.Limit()}
	if tabs == nil {
		tabs = new([2]wordTable)
	}
	index, gindex := &tabs[0], &tabs[1] // words, registers
	index.reset()
	gindex.reset()
	id := func(w word) int32 {
		if k, ok := index.get(w); ok {
			return k
		}
		k := int32(len(p.class))
		index.set(w, k)
		p.class = append(p.class, w.class)
		p.out = append(p.out, false) // set below, once every word has its index
		gw := w
		if gw.virt {
			gw.n >>= 2 // the register: N<<2 | word index (regs.go)
		} // a physical word is a register of its own
		g, ok := gindex.get(gw)
		if !ok {
			g = int32(len(p.gsize))
			gindex.set(gw, g)
			p.gsize = append(p.gsize, 0)
			p.gclass = append(p.gclass, w.class)
		}
		p.gsize[g]++
		p.grp = append(p.grp, g)
		return k
	}
	add := func(l []int32, k int32) []int32 {
		for _, x := range l {
			if x == k {
				return l
			}
		}
		return append(l, k)
	}
	var pending []int32 // physical argument words written since the last CALL
	// The per-node lists start as empty slices carved out of one array,
	// each with room for its node's words (a CALL's reads also take the
	// pending argument words), so that filling them allocates nothing; a
	// list that outgrows its room is moved by append, as before.
	// The array is the tracker's, kept for the next region (a new one
	// per region was most of the tracker's allocation).
	arena := p.arena
	carve := func(c int) []int32 {
		if c == 0 {
			return nil
		}
		if cap(arena)-len(arena) < c {
			// The lists already carved keep the old array.
			arena = make([]int32, 0, max(c, 4*n+64, 2*cap(arena)))
		}
		l := arena[len(arena) : len(arena) : len(arena)+c]
		arena = arena[:len(arena)+c]
		return l
	}
	for i := range d.insts {
		u := &d.uses[i]
		nr, nd := len(u.guard)+len(u.srcs), len(u.dsts)
		if d.insts[i].Op == ori.OpCALL {
			nr += len(pending) + nd
		}
		p.rd[i], p.dst[i], p.gtouch[i], p.gwrite[i] = carve(nr), carve(nd), carve(nr+nd), carve(nd)
		for _, ws := range [2][]word{u.guard, u.srcs} {
			for _, w := range ws {
				if w.virt {
					k := id(w)
					p.rd[i] = add(p.rd[i], k)
					p.gtouch[i] = add(p.gtouch[i], p.grp[k])
				}
			}
		}
		for _, w := range u.dsts {
			switch {
			case w.virt:
				k := id(w)
				p.dst[i] = add(p.dst[i], k)
				p.gtouch[i] = add(p.gtouch[i], p.grp[k])
				p.gwrite[i] = add(p.gwrite[i], p.grp[k])
			case args && w.class == ori.ClassR && w.n != 1:
				// An argument (or return-address) word: live from its
				// move to the CALL that reads it, a register of its own.
				k := id(w)
				p.dst[i] = add(p.dst[i], k)
				p.gtouch[i] = add(p.gtouch[i], p.grp[k])
				p.gwrite[i] = add(p.gwrite[i], p.grp[k])
				pending = add(pending, k)
			}
		}
		if d.insts[i].Op == ori.OpCALL {
			for _, k := range pending {
				p.rd[i] = add(p.rd[i], k)
				p.gtouch[i] = add(p.gtouch[i], p.grp[k])
			}
			pending = pending[:0]
		}
	}
	// The live-out words the region touches: one lookup per live-out
	// word, where a map lookup per region word (and a map per block) was
	// a visible cost.
	for _, w := range liveOut.words {
		if k, ok := index.get(w); ok {
			p.out[k] = true
		}
	}
	p.arena = arena
	nw := len(p.class)
	p.live = resized(p.live, nw)
	p.remain = resized(p.remain, nw)
	for k := range p.out {
		p.live[k] = p.out[k]
	}
	// Live on entry: a backward pass over the input order.
	for i := n - 1; i >= 0; i-- {
		if !d.insts[i].Guarded() {
			for _, k := range p.dst[i] {
				p.live[k] = false
			}
		}
		for _, k := range p.rd[i] {
			p.live[k] = true
			p.remain[k]++
		}
	}
	p.gLive = resized(p.gLive, len(p.gsize))
	p.gDefs = resized(p.gDefs, len(p.gsize))
	p.gDone = resized(p.gDone, len(p.gsize))
	for k, on := range p.live {
		if on {
			p.gLive[p.grp[k]]++
		}
	}
	for i := range p.gwrite {
		for _, g := range p.gwrite[i] {
			p.gDefs[g]++
		}
	}
	for g := range p.gsize {
		if p.open(int32(g)) {
			p.count[p.gclass[g]] += int(p.gsize[g])
		}
	}
	// Words live out that the region never touches are live throughout.
	var touchedOut [ori.NumClasses]int
	for k, out := range p.out {
		if out {
			touchedOut[p.class[k]]++
		}
	}
	for c := range p.count {
		p.count[c] += liveOut.count[c] - touchedOut[c]
	}
	p.peak = p.count[ori.ClassR]
	p.peakP = p.count[ori.ClassP]
	return p
}

// open reports whether register g counts as live: a word of it is live,
// or a placed node wrote a word of it and another node will write more.
func (p *pressure) open(g int32) bool {
	return p.gLive[g] > 0 || p.gDone[g] && p.gDefs[g] > 0
}

// fork returns a tracker in p's state with R limit budgetR. The fork
// shares p's per-node and per-word tables, which no tracker changes, and
// copies the live words and remaining reads, which commit changes.
func (p *pressure) fork(budgetR int) *pressure {
	return p.forkInto(new(pressure), budgetR)
}

// forkInto is fork with the copy made in c, whose tables it reuses; c
// must not be p or a tracker still in use.
func (p *pressure) forkInto(c *pressure, budgetR int) *pressure {
	live, remain, gLive, gDefs, gDone := c.live, c.remain, c.gLive, c.gDefs, c.gDone
	*c = *p
	c.live = append(live[:0], p.live...)
	c.remain = append(remain[:0], p.remain...)
	c.gLive = append(gLive[:0], p.gLive...)
	c.gDefs = append(gDefs[:0], p.gDefs...)
	c.gDone = append(gDone[:0], p.gDone...)
	c.limit[ori.ClassR] = budgetR
	return c
}

func has(l []int32, k int32) bool {
	for _, x := range l {
		if x == k {
			return true
		}
	}
	return false
}

// delta returns the per-class change in live words if node i went next.
func (p *pressure) delta(i int32) (d [ori.NumClasses]int) {
	if !p.on {
		return d
	}
	rd, dst := p.rd[i], p.dst[i]
	for _, g := range p.gtouch[i] {
		live := p.gLive[g]
		for _, k := range dst {
			if p.grp[k] == g {
				needed := int(p.remain[k])-b2i(has(rd, k)) > 0 || p.out[k]
				live += int32(b2i(needed) - b2i(p.live[k]))
			}
		}
		for _, k := range rd {
			if p.grp[k] == g && p.live[k] && p.remain[k] == 1 && !p.out[k] && !has(dst, k) {
				live--
			}
		}
		defs, done := p.gDefs[g], p.gDone[g]
		if has(p.gwrite[i], g) {
			defs, done = defs-1, true
		}
		after := live > 0 || done && defs > 0
		d[p.gclass[g]] += int(p.gsize[g]) * (b2i(after) - b2i(p.open(g)))
	}
	return d
}

// overflow reports whether adding delta puts some class over its limit.
func (p *pressure) overflow(delta [ori.NumClasses]int) bool {
	if !p.on {
		return false
	}
	for c := range delta {
		if delta[c] > 0 && p.count[c]+delta[c] > p.limit[c] {
			return true
		}
	}
	return false
}

// commit places node i.
func (p *pressure) commit(i int32) {
	if !p.on {
		return
	}
	for _, g := range p.gtouch[i] {
		if p.open(g) {
			p.count[p.gclass[g]] -= int(p.gsize[g])
		}
	}
	rd, dst := p.rd[i], p.dst[i]
	for _, k := range rd {
		p.remain[k]--
	}
	for _, k := range dst {
		p.set(k, p.remain[k] > 0 || p.out[k])
	}
	for _, k := range rd {
		if !has(dst, k) && p.remain[k] == 0 && !p.out[k] {
			p.set(k, false)
		}
	}
	for _, g := range p.gwrite[i] {
		p.gDefs[g]--
		p.gDone[g] = true
	}
	for _, g := range p.gtouch[i] {
		if p.open(g) {
			p.count[p.gclass[g]] += int(p.gsize[g])
		}
	}
	p.peak = max(p.peak, p.count[ori.ClassR])
	p.peakP = max(p.peakP, p.count[ori.ClassP])
}

// set marks word k live or dead (the caller recounts its register).
func (p *pressure) set(k int32, on bool) {
	if p.live[k] == on {
		return
	}
	p.live[k] = on
	if on {
		p.gLive[p.grp[k]]++
	} else {
		p.gLive[p.grp[k]]--
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
