package opt

import (
	"fmt"
	"sync"

	"orilab/pipeline/ori"
)

// Incremental register pressure for rematerialization.
//
// Remat judges every trial step by the pressure of the whole function
// (cmPressure). Recomputing the liveness and walking every instruction
// after each step made the phase quadratic in the size of the kernel (760
// of 2,178 ms on MonteCarlo_SM13). A step changes few things: it inserts
// clones into one block, redirects some reads and deletes instructions
// that lost their readers. Only the words those instructions touch (the
// step's words) can change liveness; every other word keeps its live
// range, as no instruction reading or writing it was added, removed or
// changed, and the CFG stays as it is. So cmPressureState keeps, from one
// full computation, the number of live words at every point and how many
// points have each number; a trial recomputes the liveness of the step's
// words alone (a search from the blocks that read them), and rewalks only
// the blocks the step edited and those where one of its words became live
// or dead on exit. The answer is the same peak and count of peak points
// that cmPressure gives on the edited function.

// cmPressureState is the pressure of one register class in f, as
// cmPressure measures it, kept for evaluating trial steps.
type cmPressureState struct {
	f     *ori.Func
	c     ori.RegClass
	index cmWordIndex
	words []cmWord
	pos   map[*ori.Block]int
	byID  map[int32]int // block ID to layout index
	steps [][]cmStep
	outs  [][]int32 // class-c words live on exit, per block
	// outIn[w] are the blocks w is live out of (the transpose of outs).
	outIn [][]int32
	// occ[w] are the blocks whose instructions read or write w (with
	// repeats).
	occ    [][]int32
	counts [][]int32 // live words at each point of each block, in walk order
	hist   []int     // hist[n]: points with n live words
	arena  []int32   // backs the steps' word lists (stepOf)
	peak   int
	at     int
}

// cmStep is what one instruction does to the class's live set.
type cmStep struct {
	res, reads []int32 // class-c result and read words
	kill, phi  bool
}

func (s *cmPressureState) id(w cmWord) int32 {
	if i, ok := s.index.get(w); ok {
		return i
	}
	s.index.set(w, int32(len(s.words)))
	s.words = append(s.words, w)
	s.outIn = append(s.outIn, nil)
	s.occ = append(s.occ, nil)
	return int32(len(s.words) - 1)
}

// stepOf returns what in does to the live set. The word lists are cut
// from one growing slice (s.arena), capped so that nothing appends into
// a neighbour, instead of two small allocations per instruction (they
// were most of building the state); a list cut before the arena grew
// keeps pointing at the old, unchanged array.
func (s *cmPressureState) stepOf(in *ori.Inst) cmStep {
	st := cmStep{kill: !in.Guarded(), phi: in.IsPhi()}
	start := len(s.arena)
	res, _ := cmResultWords(in)
	for _, w := range res {
		if w.class == s.c {
			s.arena = append(s.arena, s.id(w))
		}
	}
	st.res = s.cut(&start)
	if !st.phi { // phi sources are read in the predecessors
		cmReads(in, func(r ori.Reg) {
			if r.Virtual && r.Class == s.c {
				for w := 0; w < int(r.Words); w++ {
					s.arena = append(s.arena, s.id(cmWordOf(r, w)))
				}
			}
		})
		st.reads = s.cut(&start)
	}
	return st
}

// cut returns the arena's words from *start on (nil when none) and moves
// *start to its end.
func (s *cmPressureState) cut(start *int) []int32 {
	n := len(s.arena)
	if n == *start {
		return nil
	}
	out := s.arena[*start:n:n]
	*start = n
	return out
}

// newCMPressure measures f (whose CFG must be current) from scratch;
// live is ori.Liveness(f) for f as it is (the caller asked for it
// already: a second request costs a Fingerprint of the whole function).
func newCMPressure(f *ori.Func, c ori.RegClass, live *ori.LiveSets) *cmPressureState {
	nb := len(f.Blocks)
	s := &cmPressureState{f: f, c: c, pos: make(map[*ori.Block]int, nb),
		byID: make(map[int32]int, nb), steps: make([][]cmStep, nb), outs: make([][]int32, nb), counts: make([][]int32, nb)}
	total := 0
	for _, b := range f.Blocks {
		total += len(b.Insts)
	}
	s.arena = make([]int32, 0, 3*total) // about a result and two reads each
	for bi, b := range f.Blocks {
		s.pos[b] = bi
		if _, dup := s.byID[b.ID]; !dup { // BlockByID answers the first
			s.byID[b.ID] = bi
		}
	}
	for bi, b := range f.Blocks {
		for _, r := range live.LiveOutWords(b) {
			if r.Class == c {
				w := s.id(cmWordOf(r, 0))
				s.outs[bi] = append(s.outs[bi], w)
				s.outIn[w] = append(s.outIn[w], int32(bi))
			}
		}
		ss := make([]cmStep, len(b.Insts))
		for i, in := range b.Insts {
			ss[i] = s.stepOf(in)
			s.noteOcc(in, bi)
		}
		s.steps[bi] = ss
	}
	lw := newLiveWalk(len(s.words))
	for bi := range f.Blocks {
		s.counts[bi] = lw.counts(s.outs[bi], s.steps[bi], nil)
		for _, n := range s.counts[bi] {
			s.histAdd(int(n), 1)
		}
	}
	for n := len(s.hist) - 1; n >= 0; n-- {
		if s.hist[n] > 0 {
			s.peak, s.at = n, s.hist[n]
			break
		}
	}
	return s
}

// cmPeak returns the peak newCMPressure(f, c) finds (the largest number
// of class-c words live at a point, as cmPressure counts them), without
// building the state: the same backward walk of every block, keeping
// only the largest count. Remat asks it first, as most functions are at
// or below the register target and need nothing more. live is
// ori.Liveness(f), as for newCMPressure.
func cmPeak(f *ori.Func, c ori.RegClass, live *ori.LiveSets) int {
	// The word numbering and the walk's live set come from a pool: remat
	// asks for the peak at every run, of every function, and each call
	// grew both tables from nothing.
	sc := cmPeakPool.Get().(*cmPeakScratch)
	defer sc.release()
	index := &sc.index
	n := int32(0)
	id := func(w cmWord) int32 {
		if i, ok := index.get(w); ok {
			return i
		}
		index.set(w, n)
		n++
		return n - 1
	}
	lw := &sc.walk
	peak := 0
	mark := func() { peak = max(peak, len(lw.members)) }
	var res []cmWord
	for _, b := range f.Blocks {
		for _, w := range lw.members {
			lw.pos[w] = -1
		}
		lw.members = lw.members[:0]
		for _, r := range live.LiveOutWords(b) {
			if r.Class == c {
				lw.add(id(cmWordOf(r, 0)))
			}
		}
		mark()
		for i := len(b.Insts) - 1; i >= 0; i-- {
			in := b.Insts[i]
			res, _ = cmAppendResultWords(res[:0], in)
			for _, w := range res {
				if w.class == c {
					lw.add(id(w))
				}
			}
			mark()
			if !in.Guarded() {
				for _, w := range res {
					if w.class == c {
						lw.remove(id(w))
					}
				}
			}
			if in.IsPhi() { // phi sources are read in the predecessors
				continue
			}
			cmReads(in, func(r ori.Reg) {
				if r.Virtual && r.Class == c {
					for w := 0; w < int(r.Words); w++ {
						lw.add(id(cmWordOf(r, w)))
					}
				}
			})
			mark()
		}
	}
	return peak
}

// cmPeakScratch is cmPeak's memory, kept in cmPeakPool between calls.
type cmPeakScratch struct {
	index cmWordIndex
	walk  liveWalk
}

var cmPeakPool = sync.Pool{New: func() any { return new(cmPeakScratch) }}

// release empties the scratch (every number and member cmPeak set) and
// returns it to the pool.
func (sc *cmPeakScratch) release() {
	sc.index.reset()
	for _, w := range sc.walk.members {
		sc.walk.pos[w] = -1
	}
	sc.walk.members = sc.walk.members[:0]
	cmPeakPool.Put(sc)
}

// noteOcc records that block bi's instruction in reads or writes its
// class-c words (phi sources included: they are read at the end of a
// predecessor, which the liveness search finds from the phi's block).
func (s *cmPressureState) noteOcc(in *ori.Inst, bi int) {
	ciOperandWords(in, s.c, func(w cmWord) {
		i := s.id(w)
		if o := s.occ[i]; len(o) == 0 || o[len(o)-1] != int32(bi) {
			s.occ[i] = append(o, int32(bi))
		}
	})
}

// ciOperandWords calls fn for every virtual class-c word in writes or
// reads, phi sources included.
func ciOperandWords(in *ori.Inst, c ori.RegClass, fn func(cmWord)) {
	reg := func(r ori.Reg) {
		if r.Virtual && r.Class == c {
			for w := 0; w < int(r.Words); w++ {
				fn(cmWordOf(r, w))
			}
		}
	}
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg {
			reg(o.Reg)
		}
	}
	cmReads(in, reg)
}

func (s *cmPressureState) histAdd(n, d int) {
	for n >= len(s.hist) {
		s.hist = append(s.hist, 0)
	}
	s.hist[n] += d
}

// hot returns the words live at the points where the pressure peaks.
func (s *cmPressureState) hot() map[cmWord]bool {
	hot := map[cmWord]bool{}
	lw := newLiveWalk(len(s.words))
	for bi := range s.f.Blocks {
		top := 0
		for _, n := range s.counts[bi] {
			top = max(top, int(n))
		}
		if top != s.peak {
			continue // no point of the block is at the peak
		}
		lw.counts(s.outs[bi], s.steps[bi], func(members []int32) {
			if len(members) == s.peak {
				for _, w := range members {
					hot[s.words[w]] = true
				}
			}
		})
	}
	return hot
}

// liveWalk is the backward walk of one block over a live set kept as a
// member list with each word's position in it (-1: out), so that clearing
// it costs its size.
type liveWalk struct {
	pos     []int32
	members []int32
}

func newLiveWalk(n int) *liveWalk {
	lw := &liveWalk{pos: make([]int32, n)}
	for i := range lw.pos {
		lw.pos[i] = -1
	}
	return lw
}

func (lw *liveWalk) add(w int32) {
	for int(w) >= len(lw.pos) {
		lw.pos = append(lw.pos, -1)
	}
	if lw.pos[w] < 0 {
		lw.pos[w] = int32(len(lw.members))
		lw.members = append(lw.members, w)
	}
}

func (lw *liveWalk) remove(w int32) {
	if int(w) < len(lw.pos) && lw.pos[w] >= 0 {
		p := lw.pos[w]
		last := lw.members[len(lw.members)-1]
		lw.members[p], lw.pos[last] = last, p
		lw.members = lw.members[:len(lw.members)-1]
		lw.pos[w] = -1
	}
}

// counts walks a block backward from the words live on its exit and
// returns the number of live words at each point: on exit, after each
// instruction's results are added (results are live right after their
// instruction even if nobody reads them), and after its reads are added
// (not for a phi, whose sources are read in the predecessors). note, when
// set, sees the live set at each point.
func (lw *liveWalk) counts(out []int32, steps []cmStep, note func([]int32)) []int32 {
	for _, w := range lw.members {
		lw.pos[w] = -1
	}
	lw.members = lw.members[:0]
	for _, w := range out {
		lw.add(w)
	}
	pts := make([]int32, 0, 1+2*len(steps))
	mark := func() {
		pts = append(pts, int32(len(lw.members)))
		if note != nil {
			note(lw.members)
		}
	}
	mark()
	for i := len(steps) - 1; i >= 0; i-- {
		st := &steps[i]
		for _, w := range st.res {
			lw.add(w)
		}
		mark()
		if st.kill {
			for _, w := range st.res {
				lw.remove(w)
			}
		}
		if st.phi {
			continue
		}
		for _, w := range st.reads {
			lw.add(w)
		}
		mark()
	}
	return pts
}

// cmTrial is the pressure after a trial step: the peak, the number of
// points at the peak, and what commit needs to make the state describe
// the function with the step kept.
type cmTrial struct {
	peak, at int
	steps    map[int][]cmStep
	outs     map[int][]int32
	counts   map[int][]int32
	delta    map[int]int
	outIn    map[int32][]int32
	changed  map[int]bool
}

// trial returns the pressure of f after a step that edited the
// instruction lists of the blocks in edited (each with its old list) and
// rewrote the operands of instructions in place (rewritten: each with its
// old copy; blockOf finds its block), without changing the CFG. s must
// describe f as it was before the step; until commit, the trial only
// numbers the step's new words in it.
func (s *cmPressureState) trial(edited map[*ori.Block][]*ori.Inst, rewritten map[*ori.Inst]*ori.Inst, blockOf func(*ori.Inst) *ori.Block) *cmTrial {
	// The step's words: those of the instructions it added, deleted or
	// rewrote (old and new operands).
	inW := map[int32]bool{}
	var W []int32
	note := func(in *ori.Inst) {
		ciOperandWords(in, s.c, func(w cmWord) {
			i := s.id(w)
			if !inW[i] {
				inW[i] = true
				W = append(W, i)
			}
		})
	}
	changed := map[int]bool{}
	for b, old := range edited {
		changed[s.pos[b]] = true
		was := make(map[*ori.Inst]bool, len(old))
		for _, in := range old {
			was[in] = true
		}
		now := make(map[*ori.Inst]bool, len(b.Insts))
		for _, in := range b.Insts {
			now[in] = true
			if !was[in] {
				note(in)
			}
		}
		for _, in := range old {
			if !now[in] {
				note(in)
			}
		}
	}
	for in, old := range rewritten {
		changed[s.pos[blockOf(in)]] = true
		note(in)
		note(old)
	}
	t := &cmTrial{peak: s.peak, at: s.at, changed: changed, outs: map[int][]int32{}, counts: map[int][]int32{},
		delta: map[int]int{}, outIn: map[int32][]int32{}}
	if len(W) == 0 && len(changed) == 0 {
		return t
	}
	// The new steps of the edited blocks, and where the step's words now
	// occur.
	newSteps := map[int][]cmStep{}
	for bi := range changed {
		b := s.f.Blocks[bi]
		ss := make([]cmStep, len(b.Insts))
		for i, in := range b.Insts {
			ss[i] = s.stepOf(in)
		}
		newSteps[bi] = ss
	}
	t.steps = newSteps
	stepsOf := func(bi int) []cmStep {
		if ss, ok := newSteps[bi]; ok {
			return ss
		}
		return s.steps[bi]
	}
	newOut := s.liveOutOf(W, inW, changed)
	// Blocks to rewalk: the edited ones, and those where a step word is
	// live on exit before or after the step but not both.
	rewalk := map[int]bool{}
	for bi := range changed {
		rewalk[bi] = true
	}
	for _, w := range W {
		before := map[int32]bool{}
		for _, bi := range s.outIn[w] {
			before[bi] = true
		}
		for bi := range newOut[w] {
			if !before[bi] {
				rewalk[int(bi)] = true
			}
		}
		for bi := range before {
			if !newOut[w][bi] {
				rewalk[int(bi)] = true
			}
		}
	}
	for _, w := range W {
		t.outIn[w] = []int32{}
		for bi := range newOut[w] {
			t.outIn[w] = append(t.outIn[w], bi)
		}
	}
	delta := t.delta
	lw := newLiveWalk(len(s.words))
	for bi := range rewalk {
		for _, n := range s.counts[bi] {
			delta[int(n)]--
		}
		var out []int32
		for _, w := range s.outs[bi] {
			if !inW[w] {
				out = append(out, w)
			}
		}
		for _, w := range W {
			if newOut[w][int32(bi)] {
				out = append(out, w)
			}
		}
		pts := lw.counts(out, stepsOf(bi), nil)
		for _, n := range pts {
			delta[int(n)]++
		}
		t.outs[bi], t.counts[bi] = out, pts
	}
	top := s.peak
	for n := range delta {
		top = max(top, n)
	}
	for n := top; n >= 0; n-- {
		h := delta[n]
		if n < len(s.hist) {
			h += s.hist[n]
		}
		if h > 0 {
			t.peak, t.at = n, h
			return t
		}
	}
	t.peak, t.at = 0, 0
	return t
}

// commit makes s describe f with the trial's step kept.
func (s *cmPressureState) commit(t *cmTrial) {
	for bi, ss := range t.steps {
		s.steps[bi] = ss
	}
	for bi := range t.changed {
		for _, in := range s.f.Blocks[bi].Insts {
			s.noteOcc(in, bi)
		}
	}
	for bi, out := range t.outs {
		s.outs[bi], s.counts[bi] = out, t.counts[bi]
	}
	for w, blocks := range t.outIn {
		s.outIn[w] = blocks
	}
	for n, d := range t.delta {
		s.histAdd(n, d)
	}
	s.peak, s.at = t.peak, t.at
}

// liveOutOf computes, for each step word, the blocks it is live out of
// in f as it is now, by ori.Liveness's rules (a read before an unguarded
// write in the block makes it live in, an unguarded write ends it, a phi
// reads its source at the end of the predecessor): a backward search from
// the blocks where the word occurs, which are s.occ's plus the edited
// blocks.
func (s *cmPressureState) liveOutOf(W []int32, inW map[int32]bool, changed map[int]bool) map[int32]map[int32]bool {
	blocks := s.f.Blocks
	type gk struct{ gen, kill bool }
	out := make(map[int32]map[int32]bool, len(W))
	for _, w := range W {
		cand := map[int]bool{}
		for _, bi := range s.occ[w] {
			cand[int(bi)] = true
		}
		for bi := range changed {
			cand[bi] = true
		}
		word := s.words[w]
		info := map[int]gk{}
		liveOut := map[int32]bool{}
		liveIn := map[int]bool{}
		var work []int
		var phiPreds []int
		for bi := range cand {
			var g gk
			insts := blocks[bi].Insts
			for j := len(insts) - 1; j >= 0; j-- {
				in := insts[j]
				if !in.Guarded() && cmWritesWord(in, word) {
					g.kill, g.gen = true, false
				}
				if in.IsPhi() {
					if cmRegHas(in.Guard, word) {
						g.gen = true
					}
					for k := 0; k+1 < len(in.Srcs); k += 2 {
						if r, ok := cmOperandReg(in.Srcs[k]); ok && cmRegHas(r, word) {
							if p, ok := s.byID[in.Srcs[k+1].Block]; ok {
								phiPreds = append(phiPreds, p)
							}
						}
					}
					continue
				}
				if readsWord(in, word) {
					g.gen = true
				}
			}
			info[bi] = g
			if g.gen {
				liveIn[bi] = true
				work = append(work, bi)
			}
		}
		markOut := func(p int) {
			liveOut[int32(p)] = true
			if !info[p].kill && !liveIn[p] {
				liveIn[p] = true
				work = append(work, p)
			}
		}
		for _, p := range phiPreds {
			markOut(p)
		}
		for len(work) > 0 {
			bi := work[len(work)-1]
			work = work[:len(work)-1]
			for _, p := range blocks[bi].Preds {
				if pi, ok := s.pos[p]; ok {
					markOut(pi)
				}
			}
		}
		out[w] = liveOut
	}
	return out
}

// cmWritesWord reports whether in writes word w (a register result).
func cmWritesWord(in *ori.Inst, w cmWord) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && cmRegHas(o.Reg, w) {
			return true
		}
	}
	return false
}

// readsWord reports whether in reads word w (guard, sources, address
// bases).
func readsWord(in *ori.Inst, w cmWord) bool {
	hit := false
	cmReads(in, func(r ori.Reg) { hit = hit || cmRegHas(r, w) })
	return hit
}

// cmRegHas reports whether virtual register r covers word w.
func cmRegHas(r ori.Reg, w cmWord) bool {
	return r.Virtual && r.Class == w.class && r.N == w.n && w.w >= r.Off && int(w.w) < int(r.Off)+int(r.Words)
}

// cmOperandReg returns the register an operand reads (a register, or the
// base of an address).
func cmOperandReg(o ori.Operand) (ori.Reg, bool) {
	switch {
	case o.Kind == ori.OpdReg:
		return o.Reg, true
	case (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase:
		return o.Reg, true
	}
	return ori.Reg{}, false
}

// CheckRematPressureForTest makes every trial step of rematerialization
// also measure the pressure from scratch (cmPressure) and panic when the
// incremental answer differs; the phase then fails with the message. It
// returns how many steps were checked so far, and a function that switches
// the check off. It is for tests only and not safe for use while other
// compilations run.
func CheckRematPressureForTest() (checked func() int, restore func()) {
	n := 0
	rematCheckPressure = func(f *ori.Func, class ori.RegClass, peak, at int, hot map[cmWord]bool) {
		n++
		p, a, h := cmPressure(f, class)
		if p != peak || at >= 0 && a != at {
			panic(fmt.Sprintf("remat: incremental pressure of %s class %d: peak %d at %d points, from scratch %d at %d", f.Name, class, peak, at, p, a))
		}
		if hot == nil {
			return
		}
		same := len(h) == len(hot)
		for w := range h {
			same = same && hot[w]
		}
		if !same {
			panic(fmt.Sprintf("remat: incremental pressure of %s class %d: %d words at the peak, from scratch %d", f.Name, class, len(hot), len(h)))
		}
	}
	return func() int { return n }, func() { rematCheckPressure = nil }
}
