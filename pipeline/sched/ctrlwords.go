package sched

// AssignControlWords: control words for allocated code at -O1 and above
// (the AdvancedScoreboardsAndOpexes phase).
//
// ptxas fills the control word in five stages per instruction (002:958-
// 1185): stall cycles, the yield hint, the dependency barrier, the
// scoreboard dependencies (wait mask) and the packed word with reuse
// flags. orilab runs them as five passes over the function, each complete
// before the next, because each one's input is fixed by the previous:
//
//  1. Barriers, per block (allocateBarriers). Every variable-latency
//     instruction with register results gets a write barrier; one whose
//     sources can be overwritten before its results are consumed, or that
//     has no results (a store), gets a read barrier too. Barriers come from
//     the pool of six as the wiki's allocator does (001:24405-24470): the
//     lowest free one, and when all six are in use the oldest is recycled
//     after the instruction waits on it. A barrier is free again once an
//     instruction of the block waits on it. The allocation runs twice: the
//     first time every block starts with all six free and nothing pending;
//     the second time a block starts from the entry state the first
//     round's wait dataflow (step 2) computed, so it knows which barriers
//     predecessors leave pending and when the block's waits free them.
//     Barriers count (several producers may share one), so a collision
//     only costs a longer wait, never correctness, and two rounds are
//     enough: the waits are recomputed from scratch after the second.
//  2. Waits, over the CFG (assignWaits). A forward dataflow tracks, for
//     every register word, the barriers that may still protect a pending
//     result or source read, merging predecessors by union, to a fixed
//     point. An instruction waits on the barriers of everything it reads
//     (RAW), overwrites (WAW) or overwrites the source of (WAR), on every
//     pending barrier at a drain point (CALL, RET, BAR), and on the barrier
//     the allocator recycled for it. Because the waits depend on the state,
//     the transfer is not monotone: a wait that a later iteration adds can
//     clear a barrier an earlier iteration already propagated onward, so
//     the fixed point may carry barriers no path really leaves pending,
//     and waits on them. pruneWaits then recomputes, with the waits fixed
//     (a monotone analysis, the hazard checker's), which barriers each
//     instruction can find pending, and drops waits on the others. That
//     is safe: the first fixed point is a post-fixed point of the second
//     analysis, so it over-approximates every pending result, and a wait
//     on a barrier nothing can have pending changes nothing.
//  3. Stalls, per block (assignStalls): each instruction's stall is the gap
//     its successor needs for the fixed-latency results it reads or
//     overwrites (at least 1). The last instruction of a block also waits
//     out every fixed-latency result still in flight, so blocks start with
//     none pending; every fixed latency is at most 6 cycles, so this costs
//     little and keeps the stall computation local.
//  4. Yield (assignYield), with the wiki's rules (001:24654-24668): a
//     stall of 4 or more cycles, a branch, exit, return or call, or the
//     last instruction of a block whose successor holds a BAR.
//  5. Reuse flags (assignReuse), where consecutive ALU/FMA/FP64
//     instructions of a block read the same register in the same source
//     slot and the first does not yield (the operand reuse cache, 002:1114-1148 and 001:24163).
//
// The result satisfies the model in hazard.go by construction; the pass
// manager runs CheckHazards after it anyway.
//
// Example (sm_75; the loop BB1 is entered from BB0 and from itself):
//
//	BB0: #4 [B------:R-:W0:-:S03] S2R R8 = SR_TID.X ;
//	     #5 [B------:R-:W1:-:S01] LDG.E R6 = [R4.64] ;
//	     #6 [B------:R-:W-:Y:S04] MOV R7 = RZ ;
//	BB1: #7 [B01----:R-:W-:Y:S05] IMAD R9 = R6, R8.reuse, R7 ;
//	     #8 [B------:R-:W-:-:S01] IADD3 R7 = R9, R8, RZ ;
//	     #9 [B------:R-:W0:-:S03] LDG.E R6 = [R4.64+0x4] ;
//	    #10 [B------:R-:W-:Y:S04] ISETP.LT.AND P0, PT = R7, 0x100, PT ;
//	    #11 [B------:R-:W-:Y:S01] @P0 BRA BB1 ;
//	BB2: #12 [B------:R1:W-:-:S01] STG.E [R4.64+0x8], R7 ;
//	    #13 [B-1----:R-:W-:Y:S04] IADD3 R7 = R7, 0x1, RZ ;
//
// #7 reads R6, written by #5 on entry (barrier 1) or by #9 around the loop
// (barrier 0), and R8 from #4 (barrier 0): it waits on both. #6's stall of
// 4 lets MOV R7 land before #7 reads it. #9 takes barrier 0 again, free
// since #7's wait. The store #12 takes barrier 1 as its read barrier,
// since 0 may still be pending from #9, and #13, which overwrites the
// stored R7, waits for it.

import (
	"fmt"

	"orilab/pipeline/ori"
)

// yieldStall is the stall from which the yield hint is set (001:24660:
// "arch-dependent, typically 4"; 4 on every SM orilab models).
const yieldStall = 4

// numBarriers is the hardware's pool of dependency barriers per warp.
const numBarriers = 6

// facts caches the register words and latency of each instruction: the
// passes below visit every instruction several times. They are kept per
// block, in b.Insts order (the passes change control words, never the
// instruction lists), so a pass looks a block up once instead of every
// instruction.
type facts struct {
	arch   int
	blocks map[*ori.Block][]fact
	// words backs the facts' word lists (usesInto), a few blocks of
	// memory for the whole function instead of one per instruction.
	words []word
	// slab backs the blocks' fact lists, carved in turn: one allocation
	// for most functions instead of one per block.
	slab []fact
	// ready is assignStalls' table, kept for the next block.
	ready readyTable
	// The wait dataflow's state (assignWaits): each block's position in
	// f.Blocks, its entry state, the state waitBlock works in, and the
	// sweep's versions of the entry states.
	pos        map[*ori.Block]int32
	states     []wstate
	scratch    wstate
	ver, seen  []int32
	pruneEntry []uint8 // pruneWaits' entry sets, by position
	hasBar     []bool  // assignYield: the block holds a BAR, by position
	// groups: the function has an LDGDEPBAR, which owns barrier 0
	// (cpasync.go); the allocator hands out the other five.
	groups bool
}

// factsKept keeps facts between AssignControlWords calls (one per
// function, several at once), so that a function finds the tables,
// above all the wait dataflow's entry states, already grown and mapped
// instead of fresh memory: the entry states were first read by a merge
// and then written, two page faults per page.
var factsKept kept[facts]

// forget drops fs's pointers into the function it served (kept.go).
func (fs *facts) forget() {
	clear(fs.blocks)
	clear(fs.pos)
}

// reset readies fs for f on SM arch; fs must not be in use.
func (fs *facts) reset(f *ori.Func, arch int) {
	fs.arch = arch
	fs.groups = false
	if fs.blocks == nil {
		fs.blocks = make(map[*ori.Block][]fact, len(f.Blocks))
		fs.pos = make(map[*ori.Block]int32, len(f.Blocks))
	} else {
		clear(fs.blocks)
		clear(fs.pos)
	}
	for i, b := range f.Blocks {
		fs.pos[b] = int32(i)
	}
	fs.words = fs.words[:0]
	if n := f.NumInsts(); cap(fs.slab) < n {
		fs.slab = make([]fact, 0, n)
	} else {
		fs.slab = fs.slab[:0]
	}
}

type fact struct {
	u    use
	info Info
	// forced holds the barriers the instruction must wait on because
	// allocateBarriers recycled them for it (a field, not a map keyed by
	// instruction: the wait dataflow asks once per instruction per visit).
	forced uint8
}

// of returns the facts of b's instructions, fact i for b.Insts[i].
func (fs *facts) of(b *ori.Block) []fact {
	if l, ok := fs.blocks[b]; ok {
		return l
	}
	n := len(b.Insts)
	if cap(fs.slab)-len(fs.slab) < n {
		fs.slab = make([]fact, 0, max(n, 2*cap(fs.slab), 64))
	}
	l := fs.slab[len(fs.slab) : len(fs.slab)+n : len(fs.slab)+n]
	fs.slab = fs.slab[:len(fs.slab)+n]
	for i, x := range b.Insts {
		l[i] = fact{u: usesInto(x, &fs.words), info: Latency(fs.arch, x)}
	}
	fs.blocks[b] = l
	return l
}

// AssignControlWords fills every instruction's control word (Ctrl, with
// Set) and the operands' reuse flags. f must be allocated: physical
// registers only.
func AssignControlWords(f *ori.Func, arch int) error {
	fs, err := prepare(f, arch)
	if err != nil {
		return err
	}
	defer factsKept.put(fs, f.NumInsts())
	extra := func(ft *fact, pending uint8) uint8 { return ft.forced & pending }
	for _, b := range f.Blocks {
		allocateBarriers(b, fs, nil)
	}
	entry := assignWaits(f, fs, extra)
	for bi, b := range f.Blocks {
		bf := fs.of(b)
		for i, x := range b.Insts {
			x.Ctrl.WrBar, x.Ctrl.RdBar = -1, -1
			bf[i].forced = 0
		}
		allocateBarriers(b, fs, &entry[bi])
	}
	assignWaits(f, fs, extra)
	pruneWaits(f, fs)
	for _, b := range f.Blocks {
		assignStalls(b, fs)
	}
	assignYield(f, fs)
	for _, b := range f.Blocks {
		assignReuse(b, fs.of(b), arch)
	}
	setGroupBarrier(f)
	return nil
}

// prepare checks that f is allocated and clears every control word and
// reuse flag. The facts come from factsKept; the caller puts them back.
func prepare(f *ori.Func, arch int) (*facts, error) {
	if err := f.ComputeCFG(); err != nil {
		return nil, fmt.Errorf("sched: %w", err)
	}
	fs := factsKept.get()
	fs.reset(f, arch)
	for _, b := range f.Blocks {
		bf := fs.of(b)
		for i, in := range b.Insts {
			if bf[i].u.hasVir {
				factsKept.put(fs, f.NumInsts())
				return nil, fmt.Errorf("sched: %s BB%d #%d: virtual register in %s; control words need physical registers", f.Name, b.ID, in.ID, in.Name())
			}
			if w, ok := outsideFile(&bf[i].u); ok {
				factsKept.put(fs, f.NumInsts())
				return nil, fmt.Errorf("sched: %s BB%d #%d: %s in %s is outside the register file", f.Name, b.ID, in.ID, w, in.Name())
			}
			in.Ctrl = ori.NoCtrl
			in.Ctrl.Set = true
			fs.groups = fs.groups || in.Op == ori.OpLDGDEPBAR
			for k := range in.Srcs {
				in.Srcs[k].Reuse = false
			}
		}
	}
	return fs, nil
}

// allocateBarriers gives the variable-latency instructions of b their
// write and read barriers, and records in the facts' forced the barriers an
// instruction must wait on because the allocator recycled them for it.
// in is the state pending when b starts (nil: nothing).
func allocateBarriers(b *ori.Block, fs *facts, in *wstate) {
	// A copy on the stack, not a clone on the heap: the state is 673 bytes
	// and this runs once per block, twice.
	var st wstate
	if in != nil {
		st = *in
	}
	writes, reads := &st.writes, &st.reads
	var busy [numBarriers]bool
	var since [numBarriers]int
	for k := range busy {
		// Pending on entry: in use, and older than anything b sets.
		busy[k], since[k] = st.set&(1<<k) != 0, -1
	}
	release := func(mask uint8) {
		if mask == 0 {
			return
		}
		for k := range busy {
			if mask&(1<<k) != 0 {
				busy[k] = false
			}
		}
		writes.clear(mask)
		reads.clear(mask)
	}
	bf := fs.of(b)
	for idx, x := range b.Insts {
		u, info := &bf[idx].u, bf[idx].info
		var need uint8
		for _, ws := range [2][]word{u.guard, u.srcs} {
			for _, w := range ws {
				need |= writes.get(w)
			}
		}
		for _, w := range u.dsts {
			need |= writes.get(w) | reads.get(w)
		}
		if isDrain(x) {
			for k := range busy {
				if busy[k] {
					need |= 1 << k
				}
			}
		}
		release(need)
		alloc := func(exclude int8) int8 {
			best := -1
			for k := range busy {
				if !busy[k] && int8(k) != exclude && !(fs.groups && k == groupBarrier) {
					best = k
					break
				}
			}
			if best < 0 {
				// All six in use: recycle the oldest (001:24440-24452).
				for k := range busy {
					if int8(k) != exclude && !(fs.groups && k == groupBarrier) && (best < 0 || since[k] < since[best]) {
						best = k
					}
				}
				bf[idx].forced |= 1 << best
				release(1 << best)
			}
			busy[best], since[best] = true, idx
			return int8(best)
		}
		for _, w := range u.dsts {
			writes.put(w, 0)
			reads.put(w, 0)
		}
		if !info.Variable {
			continue
		}
		late := lateSources(u)
		if len(u.dsts) > 0 {
			x.Ctrl.WrBar = alloc(-1)
		}
		if len(late) > 0 && (len(u.dsts) == 0 || sourcesOverwritten(b, bf, idx, u)) {
			x.Ctrl.RdBar = alloc(x.Ctrl.WrBar)
		}
		for _, w := range u.dsts {
			writes.put(w, 1<<x.Ctrl.WrBar)
		}
		if bar := releaseBar(x); bar >= 0 {
			for _, w := range late {
				reads.or(w, 1<<bar)
			}
		}
	}
}

// releaseBar is the barrier that releases x's sources: its read barrier,
// else its write barrier, else -1.
func releaseBar(x *ori.Inst) int8 {
	if x.Ctrl.RdBar >= 0 {
		return x.Ctrl.RdBar
	}
	return x.Ctrl.WrBar
}

// sourcesOverwritten reports whether a later instruction of b overwrites a
// source of b.Insts[idx] before anything consumes or overwrites its
// results: only then does a separate read barrier release the sources
// sooner than the write barrier would.
func sourcesOverwritten(b *ori.Block, bf []fact, idx int, u *use) bool {
	for k, y := range b.Insts[idx+1:] {
		v := &bf[idx+1+k].u
		for _, w := range v.dsts {
			if hasWord(u.srcs, w) {
				return true
			}
		}
		for _, ws := range [3][]word{v.guard, v.srcs, v.dsts} {
			for _, w := range ws {
				if hasWord(u.dsts, w) {
					return false
				}
			}
		}
		if isDrain(y) {
			return false
		}
	}
	return false
}

// barMap holds a barrier mask (a byte) per physical register word, eight
// words to a uint64: the control-word passes run after allocation, where
// every word is physical and in its class's file (prepare refuses
// anything else): R0-R254, UR0-UR62, P0-P6 and UP0-UP6, each class's
// bytes rounded up to a power of two (barFile), 336 bytes in all.
// Clearing barriers, merging two states and copying one are then a few
// dozen word operations instead of a walk over a map per waiting
// instruction, which was most of the wait dataflow's time.
type barMap [barBytes / 8]uint64

// barFile and barBase are each class's bytes in a barMap and where they
// start.
var (
	barFile = [ori.NumClasses]int32{ori.ClassR: 256, ori.ClassUR: 64, ori.ClassP: 8, ori.ClassUP: 8}
	barBase = [ori.NumClasses]int{ori.ClassR: 0, ori.ClassUR: 256, ori.ClassP: 320, ori.ClassUP: 328}
)

const barBytes = 336

// outsideFile returns a word of u that has no byte in a barMap: a
// register numbered past its class's file, which no allocation gives.
func outsideFile(u *use) (word, bool) {
	for _, ws := range [3][]word{u.guard, u.srcs, u.dsts} {
		for _, w := range ws {
			if w.virt || w.class >= ori.NumClasses || w.n < 0 || w.n >= barFile[w.class] {
				return w, true
			}
		}
	}
	return word{}, false
}

// slot is w's byte in a barMap.
func slot(w word) (int, uint) {
	k := barBase[w.class] + int(w.n)
	return k / 8, uint(k%8) * 8
}

func (m *barMap) get(w word) uint8 {
	i, sh := slot(w)
	return uint8(m[i] >> sh)
}

func (m *barMap) put(w word, v uint8) {
	i, sh := slot(w)
	m[i] = m[i]&^(0xff<<sh) | uint64(v)<<sh
}

func (m *barMap) or(w word, v uint8) {
	i, sh := slot(w)
	m[i] |= uint64(v) << sh
}

// clear removes the barriers in mask from every word.
func (m *barMap) clear(mask uint8) {
	lanes := uint64(mask) * 0x0101010101010101
	for i := range m {
		m[i] &^= lanes
	}
}

// wstate is the pending-barrier state of the wait dataflow (under 700
// bytes).
type wstate struct {
	writes barMap // barriers protecting a pending result
	reads  barMap // barriers protecting a pending source read
	set    uint8  // barriers possibly pending
}

func (s *wstate) merge(o *wstate) bool {
	grew := false
	for _, p := range [2][2]*barMap{{&s.writes, &o.writes}, {&s.reads, &o.reads}} {
		for i, v := range p[1] {
			if p[0][i]|v != p[0][i] {
				p[0][i] |= v
				grew = true
			}
		}
	}
	if s.set|o.set != s.set {
		s.set |= o.set
		grew = true
	}
	return grew
}

// assignWaits sets every instruction's wait mask by the dataflow described
// above and returns the blocks' entry states, by position in f.Blocks,
// valid until the next assignWaits on fs. extra returns additional
// barriers the instruction of ft waits on, given the barriers possibly
// pending when it issues.
func assignWaits(f *ori.Func, fs *facts, extra func(ft *fact, pending uint8) uint8) []wstate {
	// The entry states live in one slice kept in fs and waitBlock works
	// in one scratch state: a clone per block visit was the largest
	// allocation of the scheduler.
	entry := resized(fs.states, len(f.Blocks))
	fs.states = entry
	scratch := &fs.scratch
	// Sweeps in layout order until nothing grows, as before, but a block
	// whose entry state has not grown since its last visit is skipped:
	// waitBlock depends only on that state, so it would give the same out
	// state, and merging it again changes nothing (entries only grow by
	// union). The transfer is not monotone (a wait clears bits), so the
	// order of visits is kept, not replaced by a worklist.
	ver := resized(fs.ver, len(f.Blocks))   // growths of each entry state
	seen := resized(fs.seen, len(f.Blocks)) // ver when the block was last visited, -1: never
	fs.ver, fs.seen = ver, seen
	for i := range seen {
		seen[i] = -1
	}
	for changed := true; changed; {
		changed = false
		for i, b := range f.Blocks {
			if seen[i] == ver[i] {
				continue
			}
			seen[i] = ver[i]
			out := waitBlock(b, fs, &entry[i], scratch, extra)
			for _, s := range b.Succs {
				k := fs.pos[s]
				if entry[k].merge(out) {
					ver[k]++
					changed = true
				}
			}
		}
	}
	for i, b := range f.Blocks {
		waitBlock(b, fs, &entry[i], scratch, extra)
	}
	return entry
}

// waitBlock sets the wait masks of b from entry state in and returns the
// state after b, which it builds in s (overwritten; not in itself).
func waitBlock(b *ori.Block, fs *facts, in, s *wstate, extra func(*fact, uint8) uint8) *wstate {
	*s = *in
	bf := fs.of(b)
	for i, x := range b.Insts {
		u, info := &bf[i].u, bf[i].info
		var wait uint8
		for _, ws := range [2][]word{u.guard, u.srcs} {
			for _, w := range ws {
				wait |= s.writes.get(w)
			}
		}
		for _, w := range u.dsts {
			wait |= s.writes.get(w) | s.reads.get(w)
		}
		if isDrain(x) {
			wait |= s.set
		}
		wait |= extra(&bf[i], s.set)
		wait &= s.set // a wait on a barrier nothing set is an error
		x.Ctrl.Wait = wait
		if wait != 0 {
			s.writes.clear(wait)
			s.reads.clear(wait)
		}
		s.set &^= wait
		if x.Op == ori.OpCALL {
			*s = wstate{}
		}
		for _, w := range u.dsts {
			s.writes.put(w, 0)
			s.reads.put(w, 0)
			if info.Variable && x.Ctrl.WrBar >= 0 {
				s.writes.put(w, 1<<x.Ctrl.WrBar)
			}
		}
		if bar := releaseBar(x); info.Variable && bar >= 0 {
			for _, w := range lateSources(u) {
				s.reads.or(w, 1<<bar)
			}
		}
		for _, bar := range [2]int8{x.Ctrl.WrBar, x.Ctrl.RdBar} {
			if bar >= 0 {
				s.set |= 1 << bar
			}
		}
	}
	return s
}

// pruneWaits drops the wait bits on barriers that no path can have
// pending when the instruction issues (see step 2 above).
func pruneWaits(f *ori.Func, fs *facts) {
	transfer := func(b *ori.Block, set uint8, prune bool) uint8 {
		for _, x := range b.Insts {
			if prune {
				x.Ctrl.Wait &= set
			}
			set &^= x.Ctrl.Wait
			if x.Op == ori.OpCALL {
				set = 0
			}
			for _, bar := range [2]int8{x.Ctrl.WrBar, x.Ctrl.RdBar} {
				if bar >= 0 {
					set |= 1 << bar
				}
			}
		}
		return set
	}
	entry := resized(fs.pruneEntry, len(f.Blocks)) // by position in f.Blocks
	fs.pruneEntry = entry
	for changed := true; changed; {
		changed = false
		for i, b := range f.Blocks {
			out := transfer(b, entry[i], false)
			for _, s := range b.Succs {
				k := fs.pos[s]
				if entry[k]|out != entry[k] {
					entry[k] |= out
					changed = true
				}
			}
		}
	}
	for i, b := range f.Blocks {
		transfer(b, entry[i], true)
	}
}

// assignStalls sets the stall counts of b (see step 3 above).
func assignStalls(b *ori.Block, fs *facts) {
	ready := &fs.ready // landing cycle of pending fixed-latency writes
	ready.reset()
	t := int32(0)
	var prev *ori.Inst
	bf := fs.of(b)
	for i, x := range b.Insts {
		u, info := &bf[i].u, bf[i].info
		if prev != nil {
			req := t + 1
			for _, ws := range [2][]word{u.guard, u.srcs} {
				for _, w := range ws {
					if r, ok := ready.get(w); ok {
						req = max(req, r)
					}
				}
			}
			for _, w := range u.dsts {
				if r, ok := ready.get(w); ok {
					req = max(req, r-minWrite(info)+1)
				}
			}
			if isDrain(x) {
				req = max(req, ready.latest())
			}
			prev.Ctrl.Stall = uint8(req - t)
			t = req
		}
		for _, w := range u.dsts {
			if info.Variable {
				ready.drop(w)
			} else {
				ready.put(w, t+int32(info.Cycles))
			}
		}
		prev = x
	}
	if prev != nil {
		req := max(t+1, ready.latest())
		prev.Ctrl.Stall = uint8(req - t)
	}
}

// readyTable maps physical register words to a cycle: a slot per word
// below 256 of each class (allocated code has no others), with the slots
// set listed so that reset and latest touch only those, and a map for
// any other word (a hand-written register past the file). It replaced a
// map allocated per block.
type readyTable struct {
	at      [int(ori.NumClasses) * 256]int32
	has     [int(ori.NumClasses) * 256]bool
	members []int32 // slots set since reset, possibly dropped since
	other   map[word]int32
}

// slot returns w's slot, if it has one.
func (r *readyTable) slot(w word) (int, bool) {
	if w.virt || w.n < 0 || w.n >= 256 || int(w.class) >= int(ori.NumClasses) {
		return 0, false
	}
	return int(w.class)*256 + int(w.n), true
}

func (r *readyTable) reset() {
	for _, k := range r.members {
		r.has[k] = false
	}
	r.members = r.members[:0]
	clear(r.other)
}

func (r *readyTable) get(w word) (int32, bool) {
	if k, ok := r.slot(w); ok {
		return r.at[k], r.has[k]
	}
	c, ok := r.other[w]
	return c, ok
}

func (r *readyTable) put(w word, c int32) {
	k, ok := r.slot(w)
	if !ok {
		if r.other == nil {
			r.other = map[word]int32{}
		}
		r.other[w] = c
		return
	}
	if !r.has[k] {
		r.has[k] = true
		r.members = append(r.members, int32(k))
	}
	r.at[k] = c
}

func (r *readyTable) drop(w word) {
	if k, ok := r.slot(w); ok {
		r.has[k] = false
		return
	}
	delete(r.other, w)
}

// latest returns the largest cycle in the table, 0 when it is empty.
func (r *readyTable) latest() int32 {
	m := int32(0)
	for _, k := range r.members {
		if r.has[k] {
			m = max(m, r.at[k])
		}
	}
	for _, c := range r.other {
		m = max(m, c)
	}
	return m
}

// assignYield sets the yield hints of f (see step 4 above).
func assignYield(f *ori.Func, fs *facts) {
	hasBar := resized(fs.hasBar, len(f.Blocks)) // by position in f.Blocks
	fs.hasBar = hasBar
	for i, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpBAR {
				hasBar[i] = true
			}
		}
	}
	for _, b := range f.Blocks {
		for i, x := range b.Insts {
			y := x.Ctrl.Stall >= yieldStall
			switch x.Op {
			case ori.OpBRA, ori.OpBRX, ori.OpEXIT, ori.OpRET, ori.OpCALL:
				y = true
			}
			if i == len(b.Insts)-1 {
				for _, s := range b.Succs {
					y = y || hasBar[fs.pos[s]]
				}
			}
			x.Ctrl.Yield = y
		}
	}
}

// assignReuse sets the reuse flags of b (see step 5 above); bf are the
// facts of b.Insts.
func assignReuse(b *ori.Block, bf []fact, arch int) {
	for i, x := range b.Insts {
		for k := range x.Srcs {
			if reuseAllowed(arch, b.Insts, bf, i, k) {
				x.Srcs[k].Reuse = true
			}
		}
	}
}

// reusePipe reports whether instructions on p read through the operand
// reuse cache (the ALU, FMA and FP64 datapaths' operand collectors).
func reusePipe(p Pipe) bool { return p == PipeALU || p == PipeFMA || p == PipeFP64 }

// reuseProblem returns why source k of insts[i] may not carry a reuse
// flag, or "" when it may.
func reuseProblem(arch int, insts []*ori.Inst, i, k int) string {
	return reuseCheck(arch, insts, nil, i, k, true)
}

// reuseAllowed reports whether source k of insts[i] may carry a reuse
// flag: reuseProblem without formatting the reason, which assignReuse,
// asking for every source of every instruction, spent most of its time on.
// bf, when not nil, are the facts of insts, which spare computing their
// latencies and words again.
func reuseAllowed(arch int, insts []*ori.Inst, bf []fact, i, k int) bool {
	return reuseCheck(arch, insts, bf, i, k, false) == ""
}

// reuseCheck is reuseProblem, with the facts of insts when bf is not nil;
// without explain, a refusal is the unformatted "refused".
func reuseCheck(arch int, insts []*ori.Inst, bf []fact, i, k int, explain bool) string {
	x := insts[i]
	o := x.Srcs[k]
	if o.Kind != ori.OpdReg || o.Reg.Class != ori.ClassR || o.Reg.IsZero() || o.Reg.Virtual {
		return "only R registers are cached"
	}
	if k >= 3 {
		return "only sources 0-2 have a reuse slot"
	}
	if i+1 >= len(insts) {
		return "the last instruction of a block has no successor to reuse it"
	}
	y := insts[i+1]
	var xi, yi Info
	if bf != nil {
		xi, yi = bf[i].info, bf[i+1].info
	} else {
		xi, yi = Latency(arch, x), Latency(arch, y)
	}
	if xi.Variable || yi.Variable || !reusePipe(xi.Pipe) || !reusePipe(yi.Pipe) {
		if !explain {
			return "refused"
		}
		return fmt.Sprintf("#%d and #%d are not both fixed-latency ALU, FMA or FP64 instructions", x.ID, y.ID)
	}
	if x.Op == ori.OpFCHK {
		// Measured: nvdisasm 13.5 prints no .reuse on FCHK words with
		// the reuse bit set (FCHK P0, R18, R15 for orilab's word with
		// bit 122 set; TestNvdisasmEncoding over the corpus at -O3, sm_80
		// and sm_90), so text and word would disagree.
		if !explain {
			return "refused"
		}
		return fmt.Sprintf("#%d is FCHK, which prints no reuse flag", x.ID)
	}
	if x.Guarded() || y.Guarded() {
		if !explain {
			return "refused"
		}
		return fmt.Sprintf("#%d or #%d is guarded", x.ID, y.ID)
	}
	if k >= len(y.Srcs) || y.Srcs[k].Kind != ori.OpdReg || y.Srcs[k].Reg != o.Reg {
		if !explain {
			return "refused"
		}
		return fmt.Sprintf("#%d does not read %s as source %d", y.ID, o.Reg, k)
	}
	var xdsts []word
	if bf != nil {
		xdsts = bf[i].u.dsts
	} else {
		xdsts = usesOf(x).dsts
	}
	var rb [4]word
	for _, w := range wordsOf(rb[:0], o.Reg) {
		if hasWord(xdsts, w) {
			if !explain {
				return "refused"
			}
			return fmt.Sprintf("#%d writes %s itself", x.ID, w)
		}
	}
	if x.Ctrl.Yield {
		// A yield lets the scheduler switch warps, which empties the
		// operand reuse cache: the flag would do nothing, and nvdisasm
		// does not print it (measured over every stall and yield with
		// -b SM80), so SASS text and words would disagree.
		if !explain {
			return "refused"
		}
		return fmt.Sprintf("#%d yields, which empties the reuse cache", x.ID)
	}
	return ""
}
