package opt

// Scratch tables of one LICM phase run (licm.go, licmpressure.go).
//
// LICM visits every loop of a function and, for each, asks per register
// word how many instructions of the loop write it, which one, whether it
// feeds an exit condition, and (for the pressure limit) how many reads in
// the loop are left and whether it is live after the loop. Those answers
// were maps keyed by word or instruction, built afresh for every loop: a
// third of LICM's time went to hashing and growing them. The words are
// numbered densely once per phase run (licmWords), and each per-loop
// table is a slice indexed by that number whose entries are valid only
// when their stamp equals the current loop's generation, so starting a
// loop clears nothing.

import (
	"sync"

	"orilab/pipeline/ori"
)

// licmWords numbers register words (loopWord) densely: virtual words with
// small offsets through a wordTable (whose reset is constant-time, so one
// serves every run the licmRun is pooled for), physical registers and
// anything else in a map.
type licmWords struct {
	virt  wordTable[int32]
	other map[loopWord]int32
	n     int32
}

// reset forgets every number.
func (x *licmWords) reset() {
	x.virt.reset()
	clear(x.other)
	x.n = 0
}

// cmOf returns the cmWord of a virtual loop word, and whether it has one.
func (w loopWord) cmOf() (cmWord, bool) {
	if !w.virtual || w.word < 0 || w.word > 255 {
		return cmWord{}, false
	}
	return cmWord{n: w.n, class: w.class, w: uint8(w.word)}, true
}

// get returns w's number, if it has one.
func (x *licmWords) get(w loopWord) (int32, bool) {
	if c, ok := w.cmOf(); ok {
		return x.virt.get(wkey(c))
	}
	id, ok := x.other[w]
	return id, ok
}

// add returns w's number, numbering it if it has none.
func (x *licmWords) add(w loopWord) int32 {
	if id, ok := x.get(w); ok {
		return id
	}
	id := x.n
	x.n++
	if c, ok := w.cmOf(); ok {
		x.virt.set(wkey(c), id)
		return id
	}
	if x.other == nil {
		x.other = map[loopWord]int32{}
	}
	x.other[w] = id
	return id
}

// addCM returns the number of the virtual word w.
func (x *licmWords) addCM(w cmWord) int32 {
	return x.add(loopWord{w.class, true, w.n, int32(w.w)})
}

// licmWriter is one instruction of the loop writing a word: the writers
// of a word are a list threaded through one array (licmRun.writers).
type licmWriter struct {
	in   *ori.Inst
	next int32 // index+1 of the word's previous writer, 0 for none
}

// licmRun is the scratch state of one LICM phase run on one function.
// Entries of the per-word slices are valid only where their stamp is the
// current generation (gen for the loop's definitions, pgen for the
// pressure tables, peakGen for licmBlockPeak's live set). The generations
// only grow, so a licmRun taken from licmRunPool (reset) starts every
// table empty without clearing it: each LICM phase run made its tables
// afresh, and growing them word by word was most of LICM's allocation.
type licmRun struct {
	words licmWords

	gen     uint32
	stamp   []uint32     // defs valid when stamp == gen
	count   []int32      // writers of the word in the loop
	def     []*ori.Inst  // the last writer
	defCand []int32      // the last writer's candidate index, -1 if it is none
	head    []int32      // the word's writer list (index+1, 0 for none)
	exit    []uint32     // == gen: the word feeds an exit condition
	writers []licmWriter // reset per loop

	pgen  uint32
	pstmp []uint32 // pressure entries valid when pstmp == pgen
	left  []int32  // in-loop reads not hoisted yet
	out   []bool   // live after the loop
	defBy []bool   // defined by a hoisted instruction

	peakGen uint32
	inSet   []uint32 // == peakGen: in licmBlockPeak's live set
	// peaks holds licmBlockPeak of the blocks measured so far (the
	// liveness is the run's, fixed); a block's entry goes when a hoist
	// changes its instructions, so the blocks of an inner loop are not
	// walked again for every loop around it.
	peaks map[*ori.Block]int

	reads []int32 // arena of the candidates' R reads (licmPressure.reads)

	// The live-in search's occurrence index (licmLiveSearch), kept for
	// the next run.
	occ     [][]uint64
	occHas  []bool
	occSlab []uint64

	// Per-loop lists of hoistLoop and newLICMPressure, reused from loop
	// to loop (indexed by candidate).
	blocks         []*ori.Block
	cands          []*ori.Inst
	always, inv    []bool
	state          []licmState
	hoisted        []bool
	moved          []*ori.Inst
	readLo, readHi []int32
}

var licmRunPool = sync.Pool{New: func() any { return new(licmRun) }}

// getLICMRun returns an empty licmRun from the pool.
func getLICMRun() *licmRun {
	r := licmRunPool.Get().(*licmRun)
	r.words.reset()
	r.writers = r.writers[:0]
	r.reads = r.reads[:0]
	r.peaks = map[*ori.Block]int{}
	// The stamps are compared for equality with generations that only
	// grow; before one could wrap, start the stamps over.
	if r.gen > 1<<30 || r.pgen > 1<<30 || r.peakGen > 1<<30 {
		clear(r.stamp)
		clear(r.exit)
		clear(r.pstmp)
		clear(r.inSet)
		r.gen, r.pgen, r.peakGen = 0, 0, 0
	}
	return r
}

// putLICMRun returns r to the pool, dropping the pointers into the
// function that this run wrote (the tables are sized for the largest
// function r has seen; clearing all of them would cost that every run).
func putLICMRun(r *licmRun) {
	clear(r.def[:min(int(r.words.n), len(r.def))])
	clear(r.writers)
	clear(r.blocks)
	clear(r.cands)
	clear(r.moved)
	r.peaks = nil
	licmRunPool.Put(r)
}

// licmBools returns s emptied and resized to n entries, all false.
func licmBools(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// id numbers w and makes room for it in the per-word slices.
func (r *licmRun) id(w loopWord) int32 {
	return r.grow(r.words.add(w))
}

// idCM numbers the virtual word w and makes room for it.
func (r *licmRun) idCM(w cmWord) int32 {
	return r.grow(r.words.addCM(w))
}

func (r *licmRun) grow(id int32) int32 {
	for int(id) >= len(r.stamp) {
		r.stamp = append(r.stamp, 0)
		r.count = append(r.count, 0)
		r.def = append(r.def, nil)
		r.defCand = append(r.defCand, -1)
		r.head = append(r.head, 0)
		r.exit = append(r.exit, 0)
		r.pstmp = append(r.pstmp, 0)
		r.left = append(r.left, 0)
		r.out = append(r.out, false)
		r.defBy = append(r.defBy, false)
		r.inSet = append(r.inSet, 0)
	}
	return id
}

// startLoop makes every per-loop definition table empty.
func (r *licmRun) startLoop() {
	r.gen++
	r.writers = r.writers[:0]
}

// addDef records that in (candidate number cand, or -1) writes w.
func (r *licmRun) addDef(w loopWord, in *ori.Inst, cand int32) {
	id := r.id(w)
	if r.stamp[id] != r.gen {
		r.stamp[id] = r.gen
		r.count[id], r.head[id] = 0, 0
	}
	r.count[id]++
	r.def[id], r.defCand[id] = in, cand
	r.writers = append(r.writers, licmWriter{in, r.head[id]})
	r.head[id] = int32(len(r.writers))
}

// defs returns how many instructions of the loop write w, the last of
// them and its candidate number.
func (r *licmRun) defs(w loopWord) (n int32, def *ori.Inst, cand int32) {
	id, ok := r.words.get(w)
	if !ok || r.stamp[id] != r.gen {
		return 0, nil, -1
	}
	return r.count[id], r.def[id], r.defCand[id]
}

// physInvariant reports whether a physical register keeps its value
// throughout the loop: no instruction of the loop writes it and, unless
// it is R1 (which a callee restores), the loop has no CALL (as
// loopDefs.physInvariant).
func (r *licmRun) physInvariant(reg ori.Reg, hasCall bool) bool {
	for w := range loopWordSeq(reg) {
		if n, _, _ := r.defs(w); n > 0 {
			return false
		}
	}
	if hasCall && !(reg.Class == ori.ClassR && reg.N == 1 && reg.Words == 1) {
		return false
	}
	return true
}

// startPressure makes every pressure table empty.
func (r *licmRun) startPressure() {
	r.pgen++
	r.reads = r.reads[:0]
}

// pentry returns w's pressure entry number, clearing a stale entry.
func (r *licmRun) pentry(w cmWord) int32 {
	id := r.idCM(w)
	if r.pstmp[id] != r.pgen {
		r.pstmp[id] = r.pgen
		r.left[id], r.out[id], r.defBy[id] = 0, false, false
	}
	return id
}

// licmStates returns s emptied and resized to n entries, all licmUnknown.
func licmStates(s []licmState, n int) []licmState {
	if cap(s) < n {
		return make([]licmState, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// licmInt32s returns s emptied and resized to n entries, all 0.
func licmInt32s(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}
