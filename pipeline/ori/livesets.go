package ori

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
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
	pos       map[*Block]int
	byID      map[int32]*Block // what BlockByID answers, without its scan
	in, out   []bitset
	// phiOut[i][p] holds the words read by block i's live phis at the end
	// of its predecessor block p (a block index).
	phiOut []map[int]bitset
	// iw[i][j] are the register words of block i's instruction j, indexed
	// once: the fixed point reads these instead of hashing every operand
	// again on every sweep (liveness was 40% of the compile time of large
	// kernels).
	iw [][]instWords
	// arena backs the defs and uses slices of iw (see wordsOf).
	arena []int32
	// consumed is set by Recompute, which hands l's index to its result.
	consumed bool
}

// instWords are the virtual register words one instruction touches, as
// indices into LiveSets.keys.
type instWords struct {
	defs []int32 // written words
	uses []int32 // read words (for a phi: only its guard)
	kill bool    // unguarded: the writes end the old values' lives
	phi  bool
	// phiUses are a phi's sources: word w is read at the end of the
	// predecessor with block index pred.
	phiUses []phiUse
}

type phiUse struct{ pred, word int32 }

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
	// The dense index is sized for every virtual register the function
	// has numbered, so that indexing does not grow it copy by copy (a
	// register past the count, from parsed IR, still grows it).
	for c := range l.index.dense {
		if n := int(f.nextVReg[c]); n > 0 && n < wordDenseLimit {
			l.index.dense[c] = make([]int32, n<<2)
		}
	}
	l.iw = make([][]instWords, len(f.Blocks))
	for i, b := range f.Blocks {
		ws := make([]instWords, len(b.Insts))
		for j, in := range b.Insts {
			ws[j] = l.wordsOf(in)
		}
		l.iw[i] = ws
	}
	l.solve()
	return l
}

// newLiveSets starts the live sets of f: the block positions, nothing
// indexed or solved yet.
func newLiveSets(f *Func, essential func(*Inst) bool) *LiveSets {
	nb := len(f.Blocks)
	l := &LiveSets{f: f, essential: essential, pos: make(map[*Block]int, nb), byID: make(map[int32]*Block, nb)}
	for i, b := range f.Blocks {
		l.pos[b] = i
		if _, dup := l.byID[b.ID]; !dup { // BlockByID answers the first
			l.byID[b.ID] = b
		}
	}
	return l
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
	n.index, n.keys, n.arena = l.index, l.keys, l.arena
	n.iw = make([][]instWords, len(f.Blocks))
	for i, b := range f.Blocks {
		if oi, ok := l.pos[b]; ok && !edited(b) && len(l.iw[oi]) == len(b.Insts) {
			// l is consumed: its lists are taken over, not copied.
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
	l.index, l.keys, l.arena, l.iw, l.consumed = wordIndex{}, nil, nil, nil, true
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
func (l *LiveSets) solve() {
	f, essential := l.f, l.essential
	nb := len(f.Blocks)
	n := len(l.keys)
	sets := newBitsets(2*nb, n)
	l.in, l.out = sets[:nb:nb], sets[nb:]
	l.phiOut = make([]map[int]bitset, nb)
	if essential == nil {
		l.solveGenKill()
		return
	}
	// Strong liveness is monotone too (a larger live-out set can only make
	// more instructions needed), so a worklist from empty sets reaches
	// the same least fixed point as sweeping until nothing changes: a
	// block is redone only when a successor's live-in set or phi reads
	// changed.
	preds := l.predIndex()
	work := make([]int32, 0, nb)
	queued := make([]bool, nb)
	for bi := 0; bi < nb; bi++ { // popped from the end: last block first
		work = append(work, int32(bi))
		queued[bi] = true
	}
	for len(work) > 0 {
		bi := int(work[len(work)-1])
		work = work[:len(work)-1]
		queued[bi] = false
		out := l.outOf(bi)
		l.out[bi] = out
		in, phis := l.transfer(bi, f.Blocks[bi], out, nil)
		changed := !phiReadsEqual(phis, l.phiOut[bi])
		l.phiOut[bi] = phis
		if !in.equal(l.in[bi]) {
			l.in[bi] = in
			changed = true
		}
		if !changed {
			continue
		}
		for _, p := range preds[bi] {
			if !queued[p] {
				queued[p] = true
				work = append(work, p)
			}
		}
	}
}

// predIndex lists, for every block index, the indices of the blocks in f
// that have it as a successor (once per edge).
func (l *LiveSets) predIndex() [][]int32 {
	preds := make([][]int32, len(l.f.Blocks))
	for bi, b := range l.f.Blocks {
		for _, s := range b.Succs {
			if si, ok := l.pos[s]; ok {
				preds[si] = append(preds[si], int32(bi))
			}
		}
	}
	return preds
}

// phiReadsEqual reports whether two blocks' phi reads per predecessor are
// the same (a missing entry reads nothing).
func phiReadsEqual(a, b map[int]bitset) bool {
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
	for p, s := range a {
		if !same(s, b[p]) {
			return false
		}
	}
	for p, s := range b {
		if !same(s, a[p]) {
			return false
		}
	}
	return true
}

// solveGenKill is ordinary liveness: every instruction is needed, so each
// block is summarized once by the words it reads before writing (gen) and
// the words it overwrites unguarded (kill), and the fixed point is
// in = gen | (out &^ kill) over bitsets, with no instruction walked twice.
func (l *LiveSets) solveGenKill() {
	nb := len(l.f.Blocks)
	n := len(l.keys)
	sets := newBitsets(2*nb, n)
	gen, kill := sets[:nb:nb], sets[nb:]
	for bi := range l.f.Blocks {
		g, k := gen[bi], kill[bi]
		ws := l.iw[bi]
		for j := len(ws) - 1; j >= 0; j-- {
			w := &ws[j]
			if w.kill {
				for _, d := range w.defs {
					k.set(int(d))
					g.clear(int(d))
				}
			}
			for _, u := range w.uses {
				g.set(int(u))
			}
			for _, pu := range w.phiUses {
				if l.phiOut[bi] == nil {
					l.phiOut[bi] = map[int]bitset{}
				}
				s, ok := l.phiOut[bi][int(pu.pred)]
				if !ok {
					s = newBitset(n)
					l.phiOut[bi][int(pu.pred)] = s
				}
				s.set(int(pu.word))
			}
		}
	}
	// A worklist instead of sweeps until nothing changes: the equations
	// are monotone, so from empty sets any order reaches the same least
	// fixed point, and a block is redone only when a successor's live-in
	// set grew. The sets are updated in place.
	succs := make([][]int32, nb)
	for bi, b := range l.f.Blocks {
		for _, s := range b.Succs {
			if si, ok := l.pos[s]; ok {
				succs[bi] = append(succs[bi], int32(si))
			}
		}
	}
	preds := l.predIndex()
	work := make([]int32, 0, nb)
	queued := make([]bool, nb)
	for bi := 0; bi < nb; bi++ { // popped from the end: last block first
		work = append(work, int32(bi))
		queued[bi] = true
	}
	for len(work) > 0 {
		bi := int(work[len(work)-1])
		work = work[:len(work)-1]
		queued[bi] = false
		out := l.out[bi]
		clear(out)
		for _, si := range succs[bi] {
			out.or(l.in[si])
			if ps := l.phiOut[si]; ps != nil {
				if r, ok := ps[bi]; ok {
					out.or(r)
				}
			}
		}
		in, g, k := l.in[bi], gen[bi], kill[bi]
		grew := false
		for i := range in {
			x := g[i] | out[i]&^k[i]
			if x != in[i] {
				in[i] = x
				grew = true
			}
		}
		if !grew {
			continue
		}
		for _, p := range preds[bi] {
			if !queued[p] {
				queued[p] = true
				work = append(work, p)
			}
		}
	}
}

// wordsOf indexes the virtual register words of in, adding new ones.
//
// The word lists are cut from one growing slice (l.arena) instead of two
// small allocations per instruction; a slice cut before the arena grew
// keeps pointing at the old, unchanged array. Operands are visited in
// place (they are large to copy) and in forRegs's order: results, then
// the guard, the sources and the address bases of results.
func (l *LiveSets) wordsOf(in *Inst) instWords {
	w := instWords{kill: !in.Guarded(), phi: in.IsPhi()}
	start := len(l.arena)
	for i := range in.Dsts {
		if o := &in.Dsts[i]; o.Kind == OpdReg && o.Reg.Virtual {
			l.appendWords(o.Reg)
		}
	}
	w.defs = l.cut(&start)
	if w.phi {
		l.appendWords(in.Guard)
		w.uses = l.cut(&start)
		for j := 0; j+1 < len(in.Srcs); j += 2 {
			r, ok := in.Srcs[j].usesReg()
			if !ok || !r.Virtual {
				continue
			}
			// A map, not BlockByID's scan of the blocks: that made
			// indexing quadratic in the number of blocks in SSA form.
			pb := l.byID[in.Srcs[j+1].Block]
			pi, ok := l.pos[pb]
			if pb == nil || !ok {
				continue
			}
			for k := 0; k < int(r.Words); k++ {
				w.phiUses = append(w.phiUses, phiUse{int32(pi), int32(l.key(r, k))})
			}
		}
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
	w.uses = l.cut(&start)
	return w
}

// appendWords appends the indices of r's words to the arena when r is
// virtual.
func (l *LiveSets) appendWords(r Reg) {
	if r.Virtual {
		for k := 0; k < int(r.Words); k++ {
			l.arena = append(l.arena, int32(l.key(r, k)))
		}
	}
}

// cut returns the arena's words from *start on (nil when none) and moves
// *start to its end.
func (l *LiveSets) cut(start *int) []int32 {
	if len(l.arena) == *start {
		return nil
	}
	s := l.arena[*start:len(l.arena):len(l.arena)]
	*start = len(l.arena)
	return s
}

// outOf joins the successors' live-in sets and the phi reads they make at
// the end of block bi.
func (l *LiveSets) outOf(bi int) bitset {
	out := newBitset(len(l.keys))
	for _, s := range l.f.Blocks[bi].Succs {
		si, ok := l.pos[s]
		if !ok {
			continue
		}
		out.or(l.in[si])
		if ps := l.phiOut[si]; ps != nil {
			if r, ok := ps[bi]; ok {
				out.or(r)
			}
		}
	}
	return out
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

// needed reports whether an instruction with words w must stay given the
// words live after it: it is essential, or writes a live virtual word.
// Only meaningful for strong liveness; ordinary liveness treats every
// instruction as needed.
func (l *LiveSets) needed(in *Inst, w *instWords, after bitset) bool {
	if l.essential == nil || l.essential(in) {
		return true
	}
	for _, d := range w.defs {
		if after.has(int(d)) {
			return true
		}
	}
	return false
}

// blockWords returns the indexed words of b's instructions. The fixed
// point (fresh false) reads the ones indexed when it started; Walk (fresh
// true) indexes the block anew, because passes edit instructions in place
// between computing liveness and walking a block, and must see their
// edits.
func (l *LiveSets) blockWords(bi int, b *Block, fresh bool) []instWords {
	if !fresh {
		return l.iw[bi]
	}
	ws := make([]instWords, len(b.Insts))
	for j, in := range b.Insts {
		ws[j] = l.wordsOf(in)
	}
	return ws
}

// transfer walks block bi (b) backward from out and returns its live-in
// set and the phi reads per predecessor. visit, when set, sees every
// instruction with the set live after it (which it must not keep) and
// whether it is needed.
func (l *LiveSets) transfer(bi int, b *Block, out bitset, visit func(in *Inst, after bitset, needed bool)) (bitset, map[int]bitset) {
	return l.transferWords(bi, b, l.blockWords(bi, b, visit != nil), out, visit)
}

// transferWords is transfer over the indexed words ws of b's instructions.
func (l *LiveSets) transferWords(bi int, b *Block, ws []instWords, out bitset, visit func(in *Inst, after bitset, needed bool)) (bitset, map[int]bitset) {
	// New words (an uncached block) widen the set: they are not live out.
	cur := make(bitset, max(len(out), (len(l.keys)+63)/64))
	copy(cur, out)
	var phis map[int]bitset
	for ii := len(b.Insts) - 1; ii >= 0; ii-- {
		in := b.Insts[ii]
		w := &ws[ii]
		need := l.needed(in, w, cur)
		if visit != nil {
			visit(in, cur, need)
		}
		if w.kill {
			for _, d := range w.defs {
				cur.clear(int(d))
			}
		}
		if !need {
			continue
		}
		for _, u := range w.uses {
			cur.set(int(u))
		}
		for _, pu := range w.phiUses {
			if phis == nil {
				phis = map[int]bitset{}
			}
			s, ok := phis[int(pu.pred)]
			if !ok {
				s = newBitset(len(l.keys))
				phis[int(pu.pred)] = s
			}
			s.set(int(pu.word))
		}
	}
	return cur, phis
}

// Walk visits b's instructions last to first. For each it passes a
// function reporting whether every word of a virtual register is live
// right after the instruction (physical registers report true), and
// whether the instruction is needed (always true for ordinary liveness).
func (l *LiveSets) Walk(b *Block, fn func(in *Inst, liveAfter func(Reg) bool, needed bool)) {
	bi, ok := l.pos[b]
	if !ok {
		return
	}
	l.transfer(bi, b, l.out[bi], l.visitor(fn))
}

// WalkUnchanged is Walk for a block whose instructions have not been
// edited since the liveness was computed: it reuses their indexed words
// instead of indexing the block again.
func (l *LiveSets) WalkUnchanged(b *Block, fn func(in *Inst, liveAfter func(Reg) bool, needed bool)) {
	bi, ok := l.pos[b]
	if !ok {
		return
	}
	ws := l.iw[bi]
	if len(ws) != len(b.Insts) {
		l.Walk(b, fn) // edited after all: index it afresh
		return
	}
	l.transferWords(bi, b, ws, l.out[bi], l.visitor(fn))
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
		if i, ok := l.index.get(wordKey{n: r.N, class: r.Class, word: r.Off + uint8(w)}); ok && s.has(i) {
			return true
		}
	}
	return false
}

// LiveIn reports whether some word of r is live on entry to b.
func (l *LiveSets) LiveIn(b *Block, r Reg) bool { return l.has(l.in[l.pos[b]], r) }

// LiveOut reports whether some word of r is live on exit from b
// (including reads by the successors' phis).
func (l *LiveSets) LiveOut(b *Block, r Reg) bool { return l.has(l.out[l.pos[b]], r) }

// LiveOutWords lists the virtual register words live on exit from b,
// sorted by class, number and word.
func (l *LiveSets) LiveOutWords(b *Block) []Reg { return l.words(l.out[l.pos[b]]) }

// LiveInWords lists the virtual register words live on entry to b.
func (l *LiveSets) LiveInWords(b *Block) []Reg { return l.words(l.in[l.pos[b]]) }

func (l *LiveSets) words(s bitset) []Reg {
	n := 0
	for _, x := range s {
		n += bits.OnesCount64(x)
	}
	if n == 0 {
		return nil
	}
	out := make([]Reg, 0, n)
	for wi, x := range s { // the set bits only, not every indexed word
		for x != 0 {
			i := wi*64 + bits.TrailingZeros64(x)
			x &= x - 1
			k := l.keys[i]
			out = append(out, Reg{Class: k.class, Virtual: true, N: k.n, Off: k.word, Words: 1})
		}
	}
	// The words are distinct, so any sort gives the one order;
	// slices.SortFunc does not allocate as sort.Slice's swapper does.
	slices.SortFunc(out, func(a, b Reg) int {
		if c := cmp.Compare(a.Class, b.Class); c != 0 {
			return c
		}
		if c := cmp.Compare(a.N, b.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Off, b.Off)
	})
	return out
}
