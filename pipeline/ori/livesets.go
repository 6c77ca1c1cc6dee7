package ori

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// Live sets of virtual register words, for optimizer passes.
//
// Liveness computes, for every block, the virtual register words live on
// entry and on exit: a word is live at a point when some path from the
// point reads it before an unguarded instruction overwrites it. A guarded
// write does not kill (the old value survives when the guard is false).
// Physical registers and RZ/URZ/PT/UPT are not tracked: passes must treat
// them conservatively on their own.
//
// MOV.PHI follows the SSA convention: its result is defined at the top of
// its block, and source i is read at the end of predecessor BBi, not in
// the phi's block. So a phi's sources are live out of their own
// predecessor only.
//
// StrongLiveness is the "faint variables" variant used by dead-code
// elimination: an instruction's sources count as reads only when the
// instruction is needed, that is essential(in) holds or one of its virtual
// results is live after it. Iterating from empty sets gives the least
// fixed point, so a cycle of instructions that only feed each other (a
// loop counter nobody reads) is not live.
//
// The CFG (Preds/Succs) must be current.
type LiveSets struct {
	f         *Func
	essential func(*Inst) bool // nil: ordinary liveness
	index     wordIndex
	keys      []wordKey
	blocks    blockIndex
	in, out   []bitset
	// phiOut[i] holds the words read by block i's live phis at the end
	// of each predecessor (by block index).
	phiOut [][]phiRead
	// iw[i][j] are the register words of block i's instruction j, indexed
	// once: the fixed point reads these instead of hashing every operand
	// again on every sweep (liveness was 40% of the compile time of large
	// kernels).
	iw [][]instWords
	// arena holds the defs and uses of every instWords (see wordsOf), and
	// phiArena the phi sources.
	arena    []int32
	phiArena []phiUse
	// slab backs in and out, and sets holds their headers; iwSlab backs
	// iw's lists (kept for Release).
	slab   []uint64
	sets   []bitset
	iwSlab []instWords
	// phiPool is the largest piece of memory that backs the phi reads
	// of phiOut (kept for Release).
	phiPool []uint64
	// sortBuf is the scratch of words, walkWords and walkCur Walk's
	// (a set per walked block was most of what dead-code elimination
	// allocated: blocks times words bits).
	sortBuf   []uint64
	walkWords []instWords
	walkCur   bitset
	// consumed is set by Recompute, which hands l's index to its result.
	consumed bool
	// adopted: strong sets made the ordinary liveness (AsLiveness),
	// whose memory the next strong liveness takes back.
	adopted bool
	// nc is how many words can be live across a block boundary (see
	// crossFirst): they are numbered 0..nc-1, and the block sets (in,
	// out, the phi reads) hold only them.
	nc int
}

// instWords are the virtual register words one instruction touches, as
// indices into LiveSets.keys, kept as offsets into the LiveSets' arenas:
// 24 bytes an instruction where three slices were 80, and no allocation
// of their own (a slice per list cost as much to allocate and collect as
// indexing the words did).
type instWords struct {
	at     int32 // the written words are arena[at:at+nd], the read ones follow
	nd, nu int32 // how many words are written and read (for a phi: only its guard)
	// A phi's sources are phiArena[pu:pu+npu]: word w is read at the end
	// of the predecessor with block index pred.
	pu, npu int32
	kill    bool // unguarded: the writes end the old values' lives
	phi     bool
	ess     bool // strong liveness: essential(in) holds
}

type phiUse struct{ pred, word int32 }

// phiRead is the set of words a block's phis read at the end of one
// predecessor.
type phiRead struct {
	pred int
	set  bitset
}

// phiReadOf returns the words of reads that are read at the end of
// predecessor pred, or nil.
func phiReadOf(reads []phiRead, pred int) bitset {
	for i := range reads {
		if reads[i].pred == pred {
			return reads[i].set
		}
	}
	return nil
}

func (l *LiveSets) defs(w *instWords) []int32 { return l.arena[w.at : w.at+w.nd] }
func (l *LiveSets) uses(w *instWords) []int32 { return l.arena[w.at+w.nd : w.at+w.nd+w.nu] }
func (l *LiveSets) phiUses(w *instWords) []phiUse {
	return l.phiArena[w.pu : w.pu+w.npu]
}

// blockIndex finds the position of a block among the blocks live sets
// were computed for, and the first block with an ID. Block IDs are small
// and dense (NewBlock counts up), so a slice indexed by ID answers both;
// the two maps it replaced were a tenth of the cost of a liveness. Blocks
// the slice cannot answer for (a repeated ID, or IDs too sparse for a
// slice) go to a map.
type blockIndex struct {
	blocks []*Block
	byID   []int32        // block ID: position + 1 of the first block with it (0: none)
	other  map[*Block]int // the blocks byID does not find
	idMap  map[int32]int  // sparse IDs: position of the first block with it
}

func newBlockIndex(blocks []*Block) blockIndex {
	x := blockIndex{blocks: slices.Clone(blocks)}
	lo, hi := int32(0), int32(-1)
	for _, b := range blocks {
		lo, hi = min(lo, b.ID), max(hi, b.ID)
	}
	if lo < 0 || hi >= int32(4*len(blocks)+64) {
		x.other = make(map[*Block]int, len(blocks))
		x.idMap = make(map[int32]int, len(blocks))
		for i, b := range blocks {
			x.other[b] = i
			if _, dup := x.idMap[b.ID]; !dup {
				x.idMap[b.ID] = i
			}
		}
		return x
	}
	x.byID = writtenInt32s(int(hi) + 1)
	for i, b := range blocks {
		if x.byID[b.ID] == 0 {
			x.byID[b.ID] = int32(i + 1)
			continue
		}
		if x.other == nil {
			x.other = map[*Block]int{}
		}
		x.other[b] = i
	}
	return x
}

// pos returns b's position, and false (with 0) when b is not one of the
// blocks.
func (x *blockIndex) pos(b *Block) (int, bool) {
	if x.byID != nil && b.ID >= 0 && int(b.ID) < len(x.byID) {
		if i := int(x.byID[b.ID]) - 1; i >= 0 && x.blocks[i] == b {
			return i, true
		}
	}
	i, ok := x.other[b]
	return i, ok
}

// first returns the position of the first block with the given ID.
func (x *blockIndex) first(id int32) (int, bool) {
	if x.idMap != nil {
		i, ok := x.idMap[id]
		return i, ok
	}
	if id >= 0 && int(id) < len(x.byID) && x.byID[id] > 0 {
		return int(x.byID[id]) - 1, true
	}
	return 0, false
}

// Liveness computes ordinary liveness of virtual register words.
//
// The result is kept with the function and handed out again while the
// code is the same (same Fingerprint, same blocks): many passes compute
// liveness on entry, and a third of those computations were of code no
// pass had changed since the previous one. A caller may edit the
// function after asking; the next call then sees another fingerprint. A
// set that a caller grew (a Walk over an edited block indexes new words)
// or consumed (Recompute) is not handed out again.
func Liveness(f *Func) *LiveSets {
	fp := Fingerprint(f)
	c := &f.cache
	// The blocks and their successor lists as they are now (the sets
	// are keyed by block, and a caller may ask before ComputeCFG has
	// caught up with an edit of the control flow).
	edges := c.liveScratch[:0]
	for _, b := range f.Blocks {
		edges = append(edges, b)
		edges = append(edges, b.Succs...)
		edges = append(edges, nil)
	}
	if l := c.live; l != nil && l.f == f && !l.consumed && c.liveFP == fp && len(l.keys) == c.liveKeys && slices.Equal(c.liveEdges, edges) {
		c.liveScratch = edges
		if CheckAnalysisCache.Load() {
			l.checkAgainst(computeLive(f, nil))
		}
		return l
	}
	l := computeLive(f, nil)
	c.live, c.liveFP, c.liveKeys = l, fp, len(l.keys)
	c.liveEdges, c.liveScratch = edges, c.liveEdges
	return l
}

// StrongLiveness computes strong (faint-variable) liveness: sources of an
// instruction are read only when essential(in) holds or one of its virtual
// results is live after it.
func StrongLiveness(f *Func, essential func(*Inst) bool) *LiveSets {
	return computeLive(f, essential)
}

func computeLive(f *Func, essential func(*Inst) bool) *LiveSets {
	l := newLiveSets(f, essential)
	// The memory of the last released live sets (see Release), if any:
	// a large kernel's index, arenas and sets are megabytes, and memory
	// fresh from the allocator costs page faults on first touch.
	m := f.cache.spare
	f.cache.spare = nil
	if a := f.cache.live; m == nil && essential != nil && a != nil && a.adopted && !a.consumed {
		// Strong sets that a dead-code run made the cached ordinary
		// liveness (AsLiveness) kept their memory from the spare. Only
		// dead-code elimination computes strong liveness, at the start
		// of its run, when no pass is using the cached sets: their
		// memory serves this one.
		f.cache.live = nil
		a.essential = essential
		a.Release()
		m = f.cache.spare
		f.cache.spare = nil
	}
	if m == nil {
		m = &liveMem{}
	}
	// The dense index is sized for every virtual register the function
	// has numbered, so that indexing does not grow it copy by copy (a
	// register past the count, from parsed IR, still grows it). A
	// released table is all zeros (Release clears what it set).
	l.index.dense = m.dense
	l.index.size(f)
	total := 0
	for _, b := range f.Blocks {
		total += len(b.Insts)
	}
	// Most instructions touch two to four words: sized so, the arena
	// rarely grows.
	l.arena = grow(m.arena, 4*total)
	l.keys = grow(m.keys, total+64)
	l.phiArena = m.phiArena[:0]
	l.slab, l.sets = m.slab, m.sets
	l.phiOut, l.phiPool = m.phiOut, m.phiPool
	var slab []instWords
	if cap(m.iwSlab) >= total {
		slab = m.iwSlab[:total]
	} else {
		slab = make([]instWords, total)
	}
	l.iwSlab = slab
	if cap(m.iw) >= len(f.Blocks) {
		l.iw = m.iw[:len(f.Blocks)]
	} else {
		l.iw = make([][]instWords, len(f.Blocks))
	}
	for i, b := range f.Blocks {
		ws := slab[:len(b.Insts):len(b.Insts)]
		slab = slab[len(b.Insts):]
		for j, in := range b.Insts {
			ws[j] = l.wordsOf(in)
		}
		l.iw[i] = ws
	}
	l.solve()
	return l
}

// grow returns buf emptied, with room for n elements (buf itself when it
// has).
func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:0]
	}
	return make([]T, 0, n)
}

// liveMem is the memory of released live sets, kept with the function
// for its next liveness (analysisCache.spare): the dense index tables,
// all zero, and the arenas, slabs and set headers to be overwritten.
type liveMem struct {
	dense    [NumClasses][]int32
	arena    []int32
	keys     []wordKey
	phiArena []phiUse
	iwSlab   []instWords
	iw       [][]instWords
	slab     []uint64
	sets     []bitset
	phiOut   [][]phiRead
	phiPool  []uint64
}

// Release hands the memory of strong live sets l to the next liveness of
// its function and leaves l unusable: its owner calls it when done.
// Dead-code elimination computes strong liveness once per run and drops
// it after its walks; a large kernel's sets, index and arenas are
// megabytes, allocated afresh each time. Release does nothing to
// ordinary live sets (Liveness hands the same sets to every caller while
// the code is unchanged, so none of them owns them) or to sets that
// Recompute consumed.
func (l *LiveSets) Release() {
	f := l.f
	if f == nil || l.essential == nil || l.consumed {
		return
	}
	// Clear the index entries l set, so that the tables come back all
	// zero without clearing every slot.
	l.index.clearKeys(l.keys)
	m := &liveMem{dense: l.index.dense, arena: l.arena, keys: l.keys, phiArena: l.phiArena,
		iwSlab: l.iwSlab, iw: l.iw, slab: l.slab, sets: l.sets, phiOut: l.phiOut, phiPool: l.phiPool}
	clear(m.iw) // no pointers into iwSlab kept past their use
	if old := f.cache.spare; old == nil || cap(old.arena) <= cap(m.arena) {
		f.cache.spare = m
	}
	*l = LiveSets{f: f, consumed: true}
}

// AsLiveness makes strong live sets l the ordinary liveness of its
// function, handed out by Liveness while the code stays as it is; the
// caller must have found every instruction needed in a walk of every
// block (dead-code elimination that found nothing to remove or narrow)
// and must not use or Release l afterwards. Then the strong sets are the
// ordinary ones: they are a fixed point of the ordinary equations, so
// they hold the least one, and the strong transfer never reads more than
// the ordinary one. Dead-code runs that find nothing are a third of all
// runs, and a pass after them often asks for liveness of the same code.
// fp is the function's Fingerprint (0: computed here); AsLiveness
// returns it.
func (l *LiveSets) AsLiveness(fp uint64) uint64 {
	f := l.f
	if fp == 0 {
		fp = Fingerprint(f)
	}
	l.essential = nil // every instruction needed, as in computeLive(f, nil)
	l.adopted = true
	c := &f.cache
	edges := c.liveScratch[:0]
	for _, b := range f.Blocks {
		edges = append(edges, b)
		edges = append(edges, b.Succs...)
		edges = append(edges, nil)
	}
	c.live, c.liveFP, c.liveKeys = l, fp, len(l.keys)
	c.liveEdges, c.liveScratch = edges, c.liveEdges
	return fp
}

// newLiveSets starts the live sets of f: the block positions, nothing
// indexed or solved yet.
func newLiveSets(f *Func, essential func(*Inst) bool) *LiveSets {
	return &LiveSets{f: f, essential: essential, blocks: newBlockIndex(f.Blocks)}
}

// Recompute returns the live sets of l's function after edits confined to
// the blocks for which edited reports true (blocks may also have been
// removed or added, and the CFG must be current again). It computes the
// same sets as a fresh Liveness or StrongLiveness, but indexes again only
// the edited blocks, the blocks l did not know, and the phis (whose
// sources name predecessor blocks by position, which removing a block
// shifts); the other blocks keep l's indexed words. l shares its word
// index with the result and must not be used afterwards.
//
// If-conversion recomputes the liveness after a series of conversions
// and edits only the converted regions: indexing every instruction again
// was most of its cost, 48 whole-function indexings for one large
// kernel.
func (l *LiveSets) Recompute(edited func(*Block) bool) *LiveSets {
	f := l.f
	n := newLiveSets(f, l.essential)
	n.index, n.keys, n.arena, n.phiArena, n.slab, n.sets, n.iwSlab = l.index, l.keys, l.arena, l.phiArena, l.slab, l.sets, l.iwSlab
	n.iw = make([][]instWords, len(f.Blocks))
	for i, b := range f.Blocks {
		if oi, ok := l.blocks.pos(b); ok && !edited(b) && len(l.iw[oi]) == len(b.Insts) {
			// l is consumed: its lists are taken over, not copied (the
			// arenas only grow, so their offsets stay valid).
			ws := l.iw[oi]
			for j, in := range b.Insts {
				if ws[j].phi {
					ws[j] = n.wordsOf(in)
				}
			}
			n.iw[i] = ws
			continue
		}
		ws := make([]instWords, len(b.Insts))
		for j, in := range b.Insts {
			ws[j] = n.wordsOf(in)
		}
		n.iw[i] = ws
	}
	l.index, l.keys, l.arena, l.phiArena, l.iw, l.consumed = wordIndex{}, nil, nil, nil, nil, true
	n.phiOut, n.phiPool = l.phiOut, l.phiPool
	l.in, l.out, l.slab, l.sets, l.iwSlab, l.phiOut, l.phiPool = nil, nil, nil, nil, nil, nil, nil // n reuses their memory
	n.solve()
	if CheckLiveRecompute.Load() {
		n.checkAgainst(computeLive(f, n.essential))
	}
	return n
}

// CheckLiveRecompute, when set, makes every Recompute compare its result
// with live sets computed afresh and panic at the first block whose
// live-in or live-out words differ: the tests run if-conversion over
// large kernels with it, to show that the edits it declares are all the
// edits it makes.
var CheckLiveRecompute atomic.Bool

func (l *LiveSets) checkAgainst(fresh *LiveSets) {
	same := func(a, b []Reg) bool { return slices.Equal(a, b) }
	for _, b := range l.f.Blocks {
		if !same(l.LiveInWords(b), fresh.LiveInWords(b)) || !same(l.LiveOutWords(b), fresh.LiveOutWords(b)) {
			panic(fmt.Sprintf("ori: recomputed liveness of %s differs from a fresh one at BB%d: in %v / %v, out %v / %v",
				l.f.Name, b.ID, l.LiveInWords(b), fresh.LiveInWords(b), l.LiveOutWords(b), fresh.LiveOutWords(b)))
		}
	}
}

// solve computes the block sets from the indexed words.
//
// The sets of blocks hold only the words that can be live across a
// block boundary (crossFirst numbers them first): most words of a large
// kernel are temporaries written and read within one block, and sets as
// wide as every word made the solve, its clears and its memory grow
// with blocks times all words. The walks (transferWords) still track
// every word in their one scratch set.
func (l *LiveSets) solve() {
	nb := len(l.blocks.blocks)
	n := len(l.keys)
	sc := &l.f.cache.solve
	l.nc = l.crossFirst(sc)
	nc := l.nc
	l.sets, l.slab = cutBitsetsInto(l.sets, l.slab, 2*nb, nc)
	l.in, l.out = l.sets[:nb:nb], l.sets[nb:]
	if cap(l.phiOut) >= nb {
		l.phiOut = l.phiOut[:nb]
		clear(l.phiOut)
	} else {
		l.phiOut = make([][]phiRead, nb)
	}
	g := l.graph(sc)
	if l.essential == nil {
		l.solveGenKill(g, sc)
		return
	}
	// Strong liveness is monotone too (a larger live-out set can only make
	// more instructions needed), so a worklist from empty sets reaches
	// the same least fixed point as sweeping until nothing changes: a
	// block is redone only when a successor's live-in set or phi reads
	// changed. The sets are updated in place, each block walked in one
	// scratch set.
	work, queued := sc.worklist(nb)
	var cur bitset
	cur, sc.slab = cutBitset(sc.slab, n)
	for len(work) > 0 {
		bi := int(work[len(work)-1])
		work = work[:len(work)-1]
		queued[bi] = false
		out := l.out[bi]
		l.outInto(out, bi, g.succs(bi))
		b := l.blocks.blocks[bi]
		in := l.transferWords(b, l.iw[bi], out, cur, &sc.phis, nil)
		changed := false
		if !phiReadsEqual(sc.phis, l.phiOut[bi]) {
			l.phiOut[bi] = clonePhiReads(sc.phis)
			changed = true
		}
		// in is as wide as every word, l.in[bi] only as the words that
		// can cross blocks: the rest are not live on entry (crossFirst),
		// so their bits in in are zero and the prefix is the whole set.
		if !l.in[bi].equal(in) {
			copy(l.in[bi], in)
			changed = true
		}
		if !changed {
			continue
		}
		for _, p := range g.preds(bi) {
			if !queued[p] {
				queued[p] = true
				work = append(work, p)
			}
		}
	}
}

// crossFirst renumbers l's words so that those that can be live across
// a block boundary come first, and returns how many they are. A word is
// live on entry to or exit from some block only if some block reads it
// before writing it unguarded (or a phi reads it at a predecessor's
// end): the least fixed point starts from empty sets, and only such
// reads put a word in one. Strong liveness reads a subset of what
// ordinary liveness reads, so the same words bound both. The other
// words, written before every read in the one or more blocks that touch
// them, are never in a block set. The order within each group is kept.
//
// The index, the keys and the arenas (the word lists of every
// instruction, and the phi sources) are rewritten in place; a Walk
// indexes afresh against the renumbered index.
func (l *LiveSets) crossFirst(sc *solveScratch) int {
	n := len(l.keys)
	// perm[w] is 1 while marking a word that crosses, then its new
	// number; killed[w] is 1 + the position of the last block that
	// wrote w unguarded (the scan goes block by block, first to last).
	perm := reuse(&sc.perm, n)
	killed := reuse(&sc.killed, n)
	for bi, ws := range l.iw {
		tag := int32(bi + 1)
		for j := range ws {
			w := &ws[j]
			for _, u := range l.uses(w) {
				if killed[u] != tag {
					perm[u] = 1
				}
			}
			for _, pu := range l.phiUses(w) {
				perm[pu.word] = 1
			}
			if w.kill {
				for _, d := range l.defs(w) {
					killed[d] = tag
				}
			}
		}
	}
	nc, same := crossingFirst(perm)
	if same {
		return nc
	}
	keys := reuse(&sc.keys, n)
	for i, k := range l.keys {
		keys[perm[i]] = k
	}
	copy(l.keys, keys)
	for i, k := range l.keys {
		l.index.set(k, i)
	}
	for i, w := range l.arena {
		l.arena[i] = perm[w]
	}
	for i := range l.phiArena {
		l.phiArena[i].word = perm[l.phiArena[i].word]
	}
	return nc
}

// crossingFirst numbers the words perm marks (nonzero) 0..nc-1 and the
// others nc.., each group in its order, writing each word's new number
// into perm, and returns nc. When the marked words are already 0..nc-1
// it writes nothing and reports the numbering unchanged (same).
func crossingFirst(perm []int32) (nc int, same bool) {
	same = true
	for i, c := range perm {
		if c != 0 {
			if nc != i {
				same = false
			}
			nc++
		}
	}
	if same {
		return nc, true
	}
	next, local := int32(0), int32(nc)
	for i, c := range perm {
		if c != 0 {
			perm[i] = next
			next++
		} else {
			perm[i] = local
			local++
		}
	}
	return nc, false
}

// blockGraph is the CFG by block index: each block's successors (once
// each, as in Succs) and predecessors (once per edge), in two flat lists.
type blockGraph struct {
	succAt, predAt     []int32 // block i's are list[at[i]:at[i+1]]
	succList, predList []int32
}

func (g *blockGraph) succs(bi int) []int32 { return g.succList[g.succAt[bi]:g.succAt[bi+1]] }
func (g *blockGraph) preds(bi int) []int32 { return g.predList[g.predAt[bi]:g.predAt[bi+1]] }

// graph indexes the successors of l's blocks that are among them.
func (l *LiveSets) graph(sc *solveScratch) blockGraph {
	nb := len(l.blocks.blocks)
	idx := reuse(&sc.idx, 2*(nb+1))
	g := blockGraph{succAt: idx[: nb+1 : nb+1], predAt: idx[nb+1:], succList: sc.succs[:0]}
	for bi, b := range l.blocks.blocks {
		for _, s := range b.Succs {
			if si, ok := l.blocks.pos(s); ok {
				g.succList = append(g.succList, int32(si))
				g.predAt[si+1]++
			}
		}
		g.succAt[bi+1] = int32(len(g.succList))
	}
	for i := 0; i < nb; i++ {
		g.predAt[i+1] += g.predAt[i]
	}
	sc.succs = g.succList
	g.predList = reuse(&sc.preds, len(g.succList))
	fill := reuse(&sc.fill, nb)
	copy(fill, g.predAt[:nb])
	for bi := 0; bi < nb; bi++ {
		for _, si := range g.succs(bi) {
			g.predList[fill[si]] = int32(bi)
			fill[si]++
		}
	}
	return g
}

// solveScratch is memory the fixed points of one function reuse from one
// liveness to the next (see analysisCache.solve): the block graph, the
// worklist and the gen and kill sets, none of which outlives a solve. A
// function's phases run one at a time, so one scratch per function is
// enough.
type solveScratch struct {
	idx, succs, preds, fill, work []int32
	queued                        []bool
	slab                          []uint64
	sets                          []bitset  // the headers of the gen and kill sets
	phis                          []phiRead // a block's phi reads in the strong fixed point
	perm, killed                  []int32   // crossFirst's renumbering and scan
	keys                          []wordKey // crossFirst's renumbered keys
}

// reuse returns *buf resized to n zeroed elements, growing it when short.
func reuse[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// worklist returns the worklist holding every block, popped from the end
// (last block first), and its membership flags.
func (sc *solveScratch) worklist(nb int) ([]int32, []bool) {
	work := reuse(&sc.work, nb)
	queued := reuse(&sc.queued, nb)
	for bi := range work {
		work[bi] = int32(bi)
		queued[bi] = true
	}
	return work, queued
}

// cutBitsetsInto returns count empty sets of n bits cut from slab, with
// their headers in sets, and what is left of slab; a slab (or headers)
// too small is replaced by a new one (so that the sets are one
// allocation, see newBitsets).
func cutBitsetsInto(sets []bitset, slab []uint64, count, n int) ([]bitset, []uint64) {
	w := (n + 63) / 64
	if cap(slab) < count*w {
		slab = make([]uint64, count*w)
	}
	slab = slab[:cap(slab)]
	// Cleared even when just made: the memory may be fresh from the OS,
	// and the solve reads a set before writing it, which would take two
	// faults per page (the zero page, then copy-on-write) where writing
	// first takes one; skipping this clear measured 15% slower.
	clear(slab[:count*w])
	if cap(sets) < count {
		sets = make([]bitset, count)
	}
	sets = sets[:count]
	for i := range sets {
		sets[i] = bitset(slab[i*w : (i+1)*w : (i+1)*w])
	}
	return sets, slab
}

// cutBitset is cutBitsetsInto for one set.
func cutBitset(slab []uint64, n int) (bitset, []uint64) {
	w := (n + 63) / 64
	if cap(slab) < w {
		slab = make([]uint64, w)
	}
	slab = slab[:cap(slab)]
	s := bitset(slab[:w:w])
	clear(s)
	return s, slab
}

// phiReadsEqual reports whether two blocks' phi reads per predecessor are
// the same (a missing entry reads nothing).
func phiReadsEqual(a, b []phiRead) bool {
	same := func(s, o bitset) bool {
		for i := range s {
			var x uint64
			if i < len(o) {
				x = o[i]
			}
			if s[i] != x {
				return false
			}
		}
		for i := len(s); i < len(o); i++ {
			if o[i] != 0 {
				return false
			}
		}
		return true
	}
	for _, r := range a {
		if !same(r.set, phiReadOf(b, r.pred)) {
			return false
		}
	}
	for _, r := range b {
		if !same(r.set, phiReadOf(a, r.pred)) {
			return false
		}
	}
	return true
}

// solveGenKill is ordinary liveness: every instruction is needed, so each
// block is summarized once by the words it reads before writing (gen) and
// the words it overwrites unguarded (kill), and the fixed point is
// in = gen | (out &^ kill) over bitsets, with no instruction walked twice.
func (l *LiveSets) solveGenKill(g blockGraph, sc *solveScratch) {
	nb := len(l.blocks.blocks)
	n := int32(l.nc) // only these words can be in gen, kill, in and out
	sc.sets, sc.slab = cutBitsetsInto(sc.sets, sc.slab, 2*nb, int(n))
	gen, kill := sc.sets[:nb:nb], sc.sets[nb:]
	// pool backs the phi reads; its largest piece is kept for Release.
	pool := l.phiPool
	clear(pool)
	for bi := range l.blocks.blocks {
		gs, ks := gen[bi], kill[bi]
		ws := l.iw[bi]
		for j := len(ws) - 1; j >= 0; j-- {
			w := &ws[j]
			if w.kill {
				for _, d := range l.defs(w) {
					if d < n {
						ks.set(int(d))
						gs.clear(int(d))
					}
				}
			}
			for _, u := range l.uses(w) {
				if u < n {
					gs.set(int(u))
				}
			}
			for _, pu := range l.phiUses(w) {
				s := phiReadOf(l.phiOut[bi], int(pu.pred))
				if s == nil {
					// Cut from a shared slab, not one allocation per
					// edge into a block with phis.
					nw := int(n+63) / 64
					if len(pool) < nw {
						pool = make([]uint64, nw*max(16, nb/8))
						clear(pool) // written before a set reads it (see cutBitsetsInto)
						if len(pool) > len(l.phiPool) {
							l.phiPool = pool
						}
					}
					s, pool = bitset(pool[:nw:nw]), pool[nw:]
					l.phiOut[bi] = append(l.phiOut[bi], phiRead{int(pu.pred), s})
				}
				s.set(int(pu.word))
			}
		}
	}
	// A worklist instead of sweeps until nothing changes: the equations
	// are monotone, so from empty sets any order reaches the same least
	// fixed point, and a block is redone only when a successor's live-in
	// set grew. The sets are updated in place.
	work, queued := sc.worklist(nb)
	for len(work) > 0 {
		bi := int(work[len(work)-1])
		work = work[:len(work)-1]
		queued[bi] = false
		out := l.out[bi]
		l.outInto(out, bi, g.succs(bi))
		in, gs, ks := l.in[bi], gen[bi], kill[bi]
		grew := false
		for i := range in {
			x := gs[i] | out[i]&^ks[i]
			if x != in[i] {
				in[i] = x
				grew = true
			}
		}
		if !grew {
			continue
		}
		for _, p := range g.preds(bi) {
			if !queued[p] {
				queued[p] = true
				work = append(work, p)
			}
		}
	}
}

// outInto sets out to the join of the live-in sets of block bi's
// successors succs and the phi reads they make at its end.
func (l *LiveSets) outInto(out bitset, bi int, succs []int32) {
	clear(out)
	for _, si := range succs {
		out.or(l.in[si])
		if r := phiReadOf(l.phiOut[si], bi); r != nil {
			out.or(r)
		}
	}
}

// wordsOf indexes the virtual register words of in, adding new ones.
//
// The word lists are appended to l's arenas. Operands are visited in
// place (they are large to copy) and in forRegs's order: results, then
// the guard, the sources and the address bases of results.
func (l *LiveSets) wordsOf(in *Inst) instWords {
	w := instWords{kill: !in.Guarded(), phi: in.IsPhi(), at: int32(len(l.arena)), pu: int32(len(l.phiArena))}
	if l.essential != nil {
		w.ess = l.essential(in)
	}
	for i := range in.Dsts {
		if o := &in.Dsts[i]; o.Kind == OpdReg && o.Reg.Virtual {
			l.appendWords(o.Reg)
		}
	}
	w.nd = int32(len(l.arena)) - w.at
	if w.phi {
		l.appendWords(in.Guard)
		w.nu = int32(len(l.arena)) - w.at - w.nd
		for j := 0; j+1 < len(in.Srcs); j += 2 {
			r, ok := in.Srcs[j].usesReg()
			if !ok || !r.Virtual {
				continue
			}
			// The first block with the ID, as BlockByID answers, without
			// its scan of the blocks: that made indexing quadratic in the
			// number of blocks in SSA form.
			pi, ok := l.blocks.first(in.Srcs[j+1].Block)
			if !ok {
				continue
			}
			for k := 0; k < int(r.Words); k++ {
				l.phiArena = append(l.phiArena, phiUse{int32(pi), int32(l.key(r, k))})
			}
		}
		w.npu = int32(len(l.phiArena)) - w.pu
		return w
	}
	l.appendWords(in.Guard)
	for i := range in.Srcs {
		o := &in.Srcs[i]
		if o.Kind == OpdReg || (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
			l.appendWords(o.Reg)
		}
	}
	for i := range in.Dsts {
		if o := &in.Dsts[i]; (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
			l.appendWords(o.Reg)
		}
	}
	w.nu = int32(len(l.arena)) - w.at - w.nd
	return w
}

// appendWords appends the indices of r's words to the arena when r is
// virtual.
func (l *LiveSets) appendWords(r Reg) {
	if !r.Virtual {
		return
	}
	// The common case, every word already in the dense index, looks
	// the register up once rather than word by word.
	if r.N >= 0 && r.N < wordDenseLimit && int(r.Off)+int(r.Words) <= 4 && r.Class < NumClasses {
		d := l.index.dense[r.Class]
		if at := int(r.N)<<2 | int(r.Off); at+int(r.Words) <= len(d) {
			ws := d[at : at+int(r.Words)]
			for k, v := range ws {
				if v == 0 {
					v = int32(l.key(r, k)) + 1
				}
				l.arena = append(l.arena, v-1)
			}
			return
		}
	}
	for k := 0; k < int(r.Words); k++ {
		l.arena = append(l.arena, int32(l.key(r, k)))
	}
}

func (l *LiveSets) key(r Reg, w int) int {
	k := wordKey{n: r.N, class: r.Class, word: r.Off + uint8(w)}
	if i, ok := l.index.get(k); ok {
		return i
	}
	l.index.set(k, len(l.keys))
	l.keys = append(l.keys, k)
	return len(l.keys) - 1
}

// wordIndex maps register words to their bitset positions. Virtual
// register numbers are small and dense (Func.NewVReg counts up), so the
// words of registers of up to four words at offset 0 live in a slice per
// class indexed by number and word; a map holds the rest. Hashing every
// operand through a map was most of the cost of indexing a function.
type wordIndex struct {
	dense [NumClasses][]int32 // n<<2 | word: position + 1 (0: none)
	other map[wordKey]int
}

// wordDenseLimit bounds the slices (a number above it goes to the map).
const wordDenseLimit = 1 << 22

func (x *wordIndex) get(k wordKey) (int, bool) {
	if k.n >= 0 && k.n < wordDenseLimit && k.word < 4 && k.class < NumClasses {
		d := x.dense[k.class]
		if i := int(k.n)<<2 | int(k.word); i < len(d) && d[i] > 0 {
			return int(d[i] - 1), true
		}
		return 0, false
	}
	i, ok := x.other[k]
	return i, ok
}

func (x *wordIndex) set(k wordKey, v int) {
	if k.n >= 0 && k.n < wordDenseLimit && k.word < 4 && k.class < NumClasses {
		i := int(k.n)<<2 | int(k.word)
		d := x.dense[k.class]
		if i >= len(d) {
			d = append(d, make([]int32, max(i+1-len(d), len(d)))...)
			x.dense[k.class] = d
		}
		d[i] = int32(v + 1)
		return
	}
	if x.other == nil {
		x.other = map[wordKey]int{}
	}
	x.other[k] = v
}

// size makes x's dense tables long enough for every virtual register f
// has numbered (so that indexing does not grow them copy by copy),
// keeping tables already long enough; x must hold no entries.
func (x *wordIndex) size(f *Func) {
	for c := range x.dense {
		if n := int(f.nextVReg[c]); n > 0 && n < wordDenseLimit {
			if d := x.dense[c]; len(d) < n<<2 {
				if cap(d) >= n<<2 {
					x.dense[c] = d[:n<<2]
				} else {
					x.dense[c] = writtenInt32s(n << 2)
				}
			}
		}
	}
}

// writtenInt32s returns n zero int32s whose every page has been
// written. Go does not clear memory fresh from the OS (it is zero
// already), so the first access to a fresh page of an index table, a
// lookup, maps the shared zero page, and the first entry set then takes
// a second, copy-on-write fault that needs a TLB shootdown on the other
// cores (ori's index tables were among the top such faults of a
// compile). Writing each page first makes that one fault, and costs
// nothing on memory the allocator reused (it cleared it).
func writtenInt32s(n int) []int32 {
	d := make([]int32, n)
	for i := 0; i < n; i += 4096 / 4 {
		d[i] = 0
	}
	return d
}

// clearKeys removes the entries of keys from x, leaving its dense tables
// all zero when keys are all it holds.
func (x *wordIndex) clearKeys(keys []wordKey) {
	for _, k := range keys {
		if k.n >= 0 && k.n < wordDenseLimit && k.word < 4 && k.class < NumClasses {
			if d, i := x.dense[k.class], int(k.n)<<2|int(k.word); i < len(d) {
				d[i] = 0
			}
		}
	}
	x.other = nil
}

// indexScratch is a word index with its keys and a slab of sets, for an
// analysis whose index does not outlive it (UndefinedReads): reused
// from call to call through indexPool, as the tables of a large kernel
// are megabytes of memory otherwise fresh from the allocator.
type indexScratch struct {
	index wordIndex
	keys  []wordKey
	sets  []bitset
	slab  []uint64
}

var indexPool = sync.Pool{New: func() any { return new(indexScratch) }}

// release empties sc's index and returns it to the pool.
func (sc *indexScratch) release() {
	sc.index.clearKeys(sc.keys)
	sc.keys = sc.keys[:0]
	indexPool.Put(sc)
}

// needed reports whether an instruction with words w must stay given the
// words live after it: it is essential, or writes a live virtual word.
// Only meaningful for strong liveness; ordinary liveness treats every
// instruction as needed.
func (l *LiveSets) needed(w *instWords, after bitset) bool {
	if l.essential == nil || w.ess {
		return true
	}
	for _, d := range l.defs(w) {
		if after.has(int(d)) {
			return true
		}
	}
	return false
}

// transferWords walks block b backward from out over the indexed words ws
// of its instructions and returns its live-in set and the phi reads per
// predecessor. The live-in set is cur when it is wide enough, else a new
// set. visit, when set, sees every instruction with the set live after
// it (which it must not keep) and whether it is needed.
func (l *LiveSets) transferWords(b *Block, ws []instWords, out, cur bitset, phis *[]phiRead, visit func(in *Inst, after bitset, needed bool)) bitset {
	// New words (an uncached block) widen the set: they are not live out.
	if n := max(len(out), (len(l.keys)+63)/64); len(cur) != n {
		cur = make(bitset, n)
	}
	clear(cur[copy(cur, out):])
	if phis != nil {
		*phis = (*phis)[:0]
	}
	for ii := len(b.Insts) - 1; ii >= 0; ii-- {
		w := &ws[ii]
		need := l.needed(w, cur)
		if visit != nil {
			visit(b.Insts[ii], cur, need)
		}
		if w.kill {
			for _, d := range l.defs(w) {
				cur.clear(int(d))
			}
		}
		if !need {
			continue
		}
		for _, u := range l.uses(w) {
			cur.set(int(u))
		}
		if phis != nil {
			for _, pu := range l.phiUses(w) {
				l.addPhiRead(phis, int(pu.pred), int(pu.word))
			}
		}
	}
	return cur
}

// addPhiRead adds word to the reads at the end of predecessor pred. The
// sets of *reads past its length, left from an earlier walk, are reused.
func (l *LiveSets) addPhiRead(reads *[]phiRead, pred, word int) {
	s := phiReadOf(*reads, pred)
	if s == nil {
		// Phi sources are words that cross blocks (crossFirst): the
		// sets are as wide as those, like the live-out sets they join.
		k, w := len(*reads), (l.nc+63)/64
		if k < cap(*reads) && len((*reads)[:k+1][k].set) == w {
			*reads = (*reads)[:k+1]
			r := &(*reads)[k]
			r.pred, s = pred, r.set
			clear(s)
		} else {
			s = newBitset(l.nc)
			*reads = append(*reads, phiRead{pred, s})
		}
	}
	s.set(word)
}

// clonePhiReads copies reads, sets included.
func clonePhiReads(reads []phiRead) []phiRead {
	if len(reads) == 0 {
		return nil
	}
	c := make([]phiRead, len(reads))
	for i, r := range reads {
		c[i] = phiRead{r.pred, r.set.clone()}
	}
	return c
}

// Walk visits b's instructions last to first. For each it passes a
// function reporting whether every word of a virtual register is live
// right after the instruction (physical registers report true), and
// whether the instruction is needed (always true for ordinary liveness).
//
// Passes edit instructions in place between computing liveness and
// walking a block, and must see their edits: Walk indexes the block anew.
func (l *LiveSets) Walk(b *Block, fn func(in *Inst, liveAfter func(Reg) bool, needed bool)) {
	bi, ok := l.blocks.pos(b)
	if !ok {
		return
	}
	// The block's words are indexed into scratch and dropped after the
	// walk (the arenas are cut back; new words keep their positions).
	ws := l.walkWords[:0]
	arena, phiArena := len(l.arena), len(l.phiArena)
	for _, in := range b.Insts {
		ws = append(ws, l.wordsOf(in))
	}
	l.walkWords = ws
	l.walkCur = l.transferWords(b, ws, l.out[bi], l.walkCur, nil, l.visitor(fn))
	l.arena, l.phiArena = l.arena[:arena], l.phiArena[:phiArena]
}

// WalkUnchanged is Walk for a block whose instructions have not been
// edited since the liveness was computed: it reuses their indexed words
// instead of indexing the block again.
func (l *LiveSets) WalkUnchanged(b *Block, fn func(in *Inst, liveAfter func(Reg) bool, needed bool)) {
	bi, ok := l.blocks.pos(b)
	if !ok {
		return
	}
	ws := l.iw[bi]
	if len(ws) != len(b.Insts) {
		l.Walk(b, fn) // edited after all: index it afresh
		return
	}
	l.walkCur = l.transferWords(b, ws, l.out[bi], l.walkCur, nil, l.visitor(fn))
}

// visitor adapts a Walk callback to transfer's. The liveAfter function is
// made once per walk, not once per instruction: the walk updates one set
// in place, so every instruction's liveAfter read the same set anyway,
// and allocating a closure per instruction was a large part of a walk.
func (l *LiveSets) visitor(fn func(in *Inst, liveAfter func(Reg) bool, needed bool)) func(in *Inst, after bitset, needed bool) {
	var cur bitset
	liveAfter := func(r Reg) bool { return l.has(cur, r) }
	return func(in *Inst, after bitset, needed bool) {
		cur = after
		fn(in, liveAfter, needed)
	}
}

// has reports whether any word of r is in s; physical non-zero registers
// are conservatively live, zero registers never.
func (l *LiveSets) has(s bitset, r Reg) bool {
	if r.IsZero() {
		return false
	}
	if !r.Virtual {
		return true
	}
	for w := 0; w < int(r.Words); w++ {
		// A word past the set's width is one that never crosses a
		// block boundary (or one a walk indexed later): not in it.
		if i, ok := l.index.get(wordKey{n: r.N, class: r.Class, word: r.Off + uint8(w)}); ok && i < 64*len(s) && s.has(i) {
			return true
		}
	}
	return false
}

// LiveIn reports whether some word of r is live on entry to b.
func (l *LiveSets) LiveIn(b *Block, r Reg) bool { return l.has(l.in[l.at(b)], r) }

// LiveOut reports whether some word of r is live on exit from b
// (including reads by the successors' phis).
func (l *LiveSets) LiveOut(b *Block, r Reg) bool { return l.has(l.out[l.at(b)], r) }

// LiveOutWords lists the virtual register words live on exit from b,
// sorted by class, number and word.
func (l *LiveSets) LiveOutWords(b *Block) []Reg { return l.words(l.out[l.at(b)]) }

// LiveInWords lists the virtual register words live on entry to b.
func (l *LiveSets) LiveInWords(b *Block) []Reg { return l.words(l.in[l.at(b)]) }

// at is b's position, 0 for a block the sets do not know (as the map it
// replaced answered).
func (l *LiveSets) at(b *Block) int {
	i, _ := l.blocks.pos(b)
	return i
}

func (l *LiveSets) words(s bitset) []Reg {
	n := 0
	for _, x := range s {
		n += bits.OnesCount64(x)
	}
	if n == 0 {
		return nil
	}
	// The words are distinct, so any sort gives the one order (class,
	// number, word). Each is packed into an integer whose order is that
	// order (the number's sign bit flipped), so the sort compares
	// integers, not Regs through a function (the comparator was most of
	// the cost of listing a set).
	keys := l.sortBuf[:0]
	for wi, x := range s { // the set bits only, not every indexed word
		for x != 0 {
			i := wi*64 + bits.TrailingZeros64(x)
			x &= x - 1
			k := l.keys[i]
			keys = append(keys, uint64(k.class)<<40|uint64(uint32(k.n)^1<<31)<<8|uint64(k.word))
		}
	}
	slices.Sort(keys)
	l.sortBuf = keys
	out := make([]Reg, n)
	for i, k := range keys {
		out[i] = Reg{Class: RegClass(k >> 40), Virtual: true, N: int32(uint32(k>>8) ^ 1<<31), Off: uint8(k), Words: 1}
	}
	return out
}
