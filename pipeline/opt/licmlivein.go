package opt

// Whether a register is live into a loop header, answered for one
// register by a search instead of the whole function's liveness.
//
// LICM asks of every candidate whose results have one writer in the loop
// whether a result is live into the header (licmLoop.invariant). That is
// the only liveness question of a loop with nothing to hoist, and most
// LICM phase runs hoist nothing: their whole-function liveness was a
// third of LICM's time. A run now answers such questions by searching
// forward from the header for a read of the word before an unguarded
// write, the same answer ori.Liveness gives (ori.CheckAnalysisCache, on
// in the tests, compares every answer with it). The searches of one run
// share a budget of blocks visited and instructions looked at (only those
// that name the word: licmLiveSearch.occ), a few times the function's
// size; past it, or once a loop measures its pressure (which needs every
// live set), the run computes the liveness, before it has changed
// anything, and answers from it as before.

import (
	"fmt"
	"slices"

	"orilab/pipeline/ori"
)

// licmLiveSearch is a run's search state: the budget left and the
// visited stamps of the blocks by layout position.
type licmLiveSearch struct {
	f      *ori.Func
	budget int
	pos    map[*ori.Block]int32
	seen   []uint32
	visit  uint32
	stack  []*ori.Block
	// occ holds, per block (by layout position), where its instructions
	// name each virtual register word: occKey(w, index) for every word
	// of the guard, the sources and the results, sorted, so the
	// occurrences of one word are a run in index order. It is built when
	// the block is first searched (has; nil with too many instructions
	// to number). A search walks from the header to the word's one
	// definition in the loop, and looking at every instruction on the
	// way made the searches of a loop quadratic in its size; now it
	// looks only at those that name the word. The function does not
	// change while the searches answer (licmLive).
	occ  [][]uint64
	has  []bool
	slab []uint64
}

// licmOccKey orders a block's occurrences by word, then by instruction
// index (below 1<<16).
func licmOccKey(w cmWord, idx int) uint64 {
	return uint64(w.class)<<56 | uint64(uint32(w.n))<<24 | uint64(w.w)<<16 | uint64(idx)
}

// blockOcc returns the occurrence list of the block b at position i, and
// false when b has too many instructions to be indexed.
func (s *licmLiveSearch) blockOcc(b *ori.Block, i int32) ([]uint64, bool) {
	if s.has[i] {
		return s.occ[i], s.occ[i] != nil
	}
	s.has[i] = true
	if len(b.Insts) >= 1<<16 {
		return nil, false
	}
	start := len(s.slab)
	for idx, in := range b.Insts {
		note := func(r ori.Reg) {
			if !r.Virtual {
				return
			}
			for k := int(r.Off); k < int(r.Off)+int(r.Words) && k < 256; k++ {
				s.slab = append(s.slab, licmOccKey(cmWord{n: r.N, class: r.Class, w: uint8(k)}, idx))
			}
		}
		note(in.Guard)
		for _, o := range in.Srcs {
			note(o.Reg)
		}
		for _, o := range in.Dsts {
			note(o.Reg)
		}
	}
	// Full slice expression: a later block's appends must not write into
	// this one's list, and the slab may move.
	o := s.slab[start:len(s.slab):len(s.slab)]
	slices.Sort(o)
	if o == nil {
		o = []uint64{}
	}
	s.occ[i] = o
	return o, true
}

func newLICMLiveSearch(f *ori.Func) *licmLiveSearch {
	return &licmLiveSearch{f: f, budget: 4*f.NumInsts() + 1024}
}

// liveIn reports whether some word of the virtual register r is live on
// entry to h, and false for ok when the budget ran out (the answer is
// then unknown).
func (s *licmLiveSearch) liveIn(h *ori.Block, r ori.Reg) (live, ok bool) {
	if s.pos == nil {
		s.pos = make(map[*ori.Block]int32, len(s.f.Blocks))
		for i, b := range s.f.Blocks {
			s.pos[b] = int32(i)
		}
		s.seen = make([]uint32, len(s.f.Blocks))
		// The index's tables may come from an earlier run (licmRun).
		n := len(s.f.Blocks)
		s.occ = slices.Grow(s.occ[:0], n)[:n]
		clear(s.occ)
		s.has = slices.Grow(s.has[:0], n)[:n]
		clear(s.has)
		s.slab = s.slab[:0]
	}
	for w := 0; w < int(r.Words); w++ {
		live, ok := s.wordLiveIn(h, cmWordOf(r, w))
		if !ok || live {
			return live, ok
		}
	}
	return false, true
}

// licmHasWord reports whether the register x covers the virtual word w.
func licmHasWord(x ori.Reg, w cmWord) bool {
	return x.Virtual && x.Class == w.class && x.N == w.n && x.Off <= w.w && w.w < x.Off+x.Words
}

// wordLiveIn searches the paths from the start of h for a read of w that
// no unguarded write of w precedes, with ori.Liveness's rules: an
// instruction reads before it writes; a MOV.PHI reads its guard in its
// block and each source at the end of the predecessor the source's
// block operand names (the first block with that ID in layout order),
// and writes its result in its block.
func (s *licmLiveSearch) wordLiveIn(h *ori.Block, w cmWord) (live, ok bool) {
	s.visit++
	if s.visit == 0 { // wrapped: old stamps could match again
		clear(s.seen)
		s.visit = 1
	}
	mark := func(b *ori.Block) bool {
		i, in := s.pos[b]
		if !in || s.seen[i] == s.visit {
			return false
		}
		s.seen[i] = s.visit
		return true
	}
	mark(h)
	stack := append(s.stack[:0], h)
	defer func() { s.stack = stack[:0] }()
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		occ, indexed := s.blockOcc(b, s.pos[b])
		killed := false
		if indexed {
			// Only the instructions that name w, in order.
			key := licmOccKey(w, 0)
			j, _ := slices.BinarySearch(occ, key)
			end := j
			for end < len(occ) && occ[end]&^0xffff == key {
				end++
			}
			s.budget -= end - j + 1
			if s.budget < 0 {
				return false, false
			}
			for ; j < end; j++ {
				var read bool
				if read, killed = licmTouch(b.Insts[occ[j]&0xffff], w); read {
					return true, true
				}
				if killed {
					break
				}
			}
		} else {
			s.budget -= len(b.Insts) + 1
			if s.budget < 0 {
				return false, false
			}
			for _, in := range b.Insts {
				var read bool
				if read, killed = licmTouch(in, w); read {
					return true, true
				}
				if killed {
					break
				}
			}
		}
		if killed {
			continue
		}
		// w reaches the end of b: read there by a successor's MOV.PHI
		// for this edge, or live on into the successor.
		for _, sc := range b.Succs {
			if _, in := s.pos[sc]; !in {
				continue // not in the layout: the liveness ignores the edge
			}
			if s.phiReads(sc, b, w) {
				return true, true
			}
			if mark(sc) {
				stack = append(stack, sc)
			}
		}
	}
	return false, true
}

// licmTouch reports whether in reads w (before it writes) and whether it
// writes w unconditionally, with ori.Liveness's rules (a MOV.PHI reads
// only its guard in its own block).
func licmTouch(in *ori.Inst, w cmWord) (read, killed bool) {
	read = licmHasWord(in.Guard, w)
	if !in.IsPhi() {
		loopSrcRegs(in, func(x ori.Reg) { read = read || licmHasWord(x, w) })
	}
	if read {
		return true, false
	}
	if !in.Guarded() {
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg && licmHasWord(o.Reg, w) {
				killed = true
			}
		}
	}
	return false, killed
}

// phiReads reports whether a MOV.PHI of block sc reads w at the end of
// its predecessor p.
func (s *licmLiveSearch) phiReads(sc, p *ori.Block, w cmWord) bool {
	if occ, ok := s.blockOcc(sc, s.pos[sc]); ok {
		// Only the instructions of sc that name w.
		key := licmOccKey(w, 0)
		j, _ := slices.BinarySearch(occ, key)
		for ; j < len(occ) && occ[j]&^0xffff == key; j++ {
			if s.phiReadsAt(sc.Insts[occ[j]&0xffff], p, w) {
				return true
			}
		}
		return false
	}
	for _, in := range sc.Insts {
		if s.phiReadsAt(in, p, w) {
			return true
		}
	}
	return false
}

// phiReadsAt reports whether in is a MOV.PHI that reads w at the end of
// its predecessor p.
func (s *licmLiveSearch) phiReadsAt(in *ori.Inst, p *ori.Block, w cmWord) bool {
	if !in.IsPhi() {
		return false // the phis come first, but the liveness takes any
	}
	for j := 0; j+1 < len(in.Srcs); j += 2 {
		o := in.Srcs[j]
		if (o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase) &&
			licmHasWord(o.Reg, w) && in.Srcs[j+1].Block == p.ID && s.firstWithID(p) {
			return true
		}
	}
	return false
}

// firstWithID reports whether p is the first block of the layout with its
// ID (the one a block operand names, as ori.Func.BlockByID answers).
func (s *licmLiveSearch) firstWithID(p *ori.Block) bool {
	i := s.pos[p]
	for _, b := range s.f.Blocks[:i] {
		if b.ID == p.ID {
			return false
		}
	}
	return true
}

// licmCheckLiveIn panics when a searched answer differs from the
// liveness's (under ori.CheckAnalysisCache).
func licmCheckLiveIn(f *ori.Func, h *ori.Block, r ori.Reg, live bool) {
	if want := ori.Liveness(f).LiveIn(h, r); want != live {
		panic(fmt.Sprintf("opt: LICM's search says %v is live into BB%d of %s: %v, the liveness %v", r, h.ID, f.Name, live, want))
	}
}

// licmLive is a LICM run's liveness: the whole function's (sets),
// computed when first needed, and until then the searches.
//
// The liveness is computed at the latest when a loop measures its
// pressure, which every hoist waits for, so it always describes f as the
// run found it, as the searches before it do (hoistInvariants explains
// why those answers stay right for the loops visited later).
type licmLive struct {
	f      *ori.Func
	live   *ori.LiveSets
	search *licmLiveSearch
}

// sets returns the run's liveness, computing it on first use.
func (lv *licmLive) sets() *ori.LiveSets {
	if lv.live == nil {
		lv.live = ori.Liveness(lv.f)
	}
	return lv.live
}

// liveIn reports whether some word of the virtual register r is live on
// entry to h.
func (lv *licmLive) liveIn(h *ori.Block, r ori.Reg) bool {
	if lv.live == nil && lv.search != nil {
		if live, ok := lv.search.liveIn(h, r); ok {
			if ori.CheckAnalysisCache.Load() {
				licmCheckLiveIn(lv.f, h, r, live)
			}
			return live
		}
		lv.search = nil // out of budget: the liveness answers from now on
	}
	return lv.sets().LiveIn(h, r)
}
