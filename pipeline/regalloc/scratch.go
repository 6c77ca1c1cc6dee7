package regalloc

import (
	"sync"

	"orilab/pipeline/ori"
)

// Buffers kept from attempt to attempt, class to class and function to
// function.
//
// Every attempt used to make its own tables: two 512-entry slot tables
// (occupancy and owners, one entry per register of the virtual file), an
// occupancy bitset per register it placed something in, and its item
// list; every class made the precolored table of the same 512 entries.
// A whole compilation under perf (convolutionSeparable, sm_80 -O3) had a
// quarter of its page faults in the allocator: Go takes fresh memory
// from the OS without clearing it, so a table read before it is written
// (the slot reset loop asked each entry's capacity first) maps the
// shared zero page and faults again on the write, with a TLB shootdown.
// An Allocate call now takes a scratch from scratchPool and gives it
// back when it returns; the attempts of every class come from its spare
// list and go back to it, and the precolored bitsets are carved from its
// slab. Nothing in a scratch survives into a result: every buffer is
// reset (or rebuilt) before it is read.

// scratch is what one Allocate call reuses.
type scratch struct {
	// spares are finished attempts whose buffers newAttempt reuses.
	spares []*attempt
	// base is the precolored table of the class being allocated, and
	// baseWords the slab its bitsets are carved from (baseUsed words of
	// it handed out).
	base      []posSet
	baseWords []uint64
	baseUsed  int
	// The buffers of one class's problem: a problem takes them
	// (takeProblem) and gives them back once its class is written
	// (releaseProblem); a problem whose class fails keeps them and the
	// next makes its own.
	insts  []*ori.Inst
	block  []int
	freq   []float64
	first  []int
	vregs  []*vreg
	chunks [][]vreg // the values, with their access and segment buffers
	dense  []int32  // vregIndex's table, all zero between problems
	words  []uint64 // classLiveness's sets
	// Arenas for the range builders' tables.
	ints   arena[int]
	int32s arena[int32]
	bools  arena[bool]
	touchs arena[touch]
}

// maxSpares bounds the attempts a scratch keeps: a class has at most two
// alive at once (the best NOSPILL trial and the current one) and the
// result of the previous class.
const maxSpares = 3

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// spare returns a finished attempt to reuse, or a new one.
func (s *scratch) spare() *attempt {
	if n := len(s.spares); n > 0 {
		at := s.spares[n-1]
		s.spares[n-1] = nil
		s.spares = s.spares[:n-1]
		return at
	}
	return &attempt{}
}

// recycle takes back an attempt nothing uses any more.
func (s *scratch) recycle(at *attempt) {
	if at == nil || len(s.spares) >= maxSpares {
		return
	}
	// Drop what ties it to the function so the pool does not keep the
	// IR alive.
	at.p, at.base, at.spilled, at.notes = nil, nil, nil, nil
	s.spares = append(s.spares, at)
}

// newBase returns an empty precolored table of virtualFile entries whose
// bitsets (from baseSet) hold npos positions; the previous class's
// table and bitsets are reused.
func (s *scratch) newBase() []posSet {
	if s.base == nil {
		s.base = make([]posSet, virtualFile)
	} else {
		clear(s.base)
	}
	clear(s.baseWords[:s.baseUsed])
	s.baseUsed = 0
	return s.base
}

// baseSet carves an empty bitset for npos positions from the slab.
func (s *scratch) baseSet(npos int) posSet {
	n := (npos + 63) / 64
	if s.baseUsed+n > len(s.baseWords) {
		// A new slab; the bitsets carved from the old one stay valid
		// and the old slab goes when they do. The slab is cleared when
		// the next class starts (newBase), so it must be zeroed here.
		s.baseWords = zeroedWords(max(16*n, 2*len(s.baseWords)))
		s.baseUsed = 0
	}
	b := posSet(s.baseWords[s.baseUsed : s.baseUsed+n : s.baseUsed+n])
	s.baseUsed += n
	return b
}

// takeProblem hands p the problem buffers.
func (s *scratch) takeProblem(p *problem) {
	p.insts, p.block, p.freq, p.first = s.insts[:0], s.block[:0], s.freq[:0], s.first[:0]
	p.vregs, p.chunks = s.vregs[:0], s.chunks
	p.index.dense = s.dense
	p.words = s.words
	s.ints.used, s.int32s.used, s.bools.used, s.touchs.used = 0, 0, 0, 0
	s.insts, s.block, s.freq, s.first, s.vregs, s.chunks, s.dense, s.words = nil, nil, nil, nil, nil, nil, nil, nil
}

// releaseProblem takes p's buffers back; p must not be used afterwards.
func (s *scratch) releaseProblem(p *problem) {
	// The instructions go from the list so the pool does not keep the IR
	// alive; the index table is emptied where p filled it.
	clear(p.insts)
	for _, v := range p.vregs {
		if n := int(v.num); n >= 0 && n < len(p.index.dense) {
			p.index.dense[n] = 0
		}
		v.def = nil
	}
	s.insts, s.block, s.freq, s.first = p.insts[:0], p.block[:0], p.freq[:0], p.first[:0]
	s.vregs, s.chunks = p.vregs[:0], p.chunks
	s.dense = p.index.dense
	s.words = p.words
}

// newVReg returns the next value of p with number n, reusing the access
// and segment buffers of the value that last had its place.
func (p *problem) newVReg(n int32) *vreg {
	k := len(p.vregs)
	// Chunk c holds values c*chunkVRegs up to (c+1)*chunkVRegs-1.
	c, j := k/chunkVRegs, k%chunkVRegs
	if c == len(p.chunks) {
		// Written before the reads below (see zeroedWords).
		ch := make([]vreg, chunkVRegs)
		clear(ch)
		p.chunks = append(p.chunks, ch)
	}
	v := &p.chunks[c][j]
	*v = vreg{num: n, acc: v.acc[:0], segs: v.segs[:0]}
	p.vregs = append(p.vregs, v)
	return v
}

// chunkVRegs is the number of values one chunk holds.
const chunkVRegs = 256

// arena hands out zeroed slices that live as long as one class's
// problem: reset when the next problem takes the scratch. A request the
// buffer cannot meet gets a new, larger buffer (the slices already
// handed out keep the old one).
type arena[T any] struct {
	buf  []T
	used int
}

// take returns n zeroed elements.
func (a *arena[T]) take(n int) []T {
	if a.used+n > len(a.buf) {
		a.buf = make([]T, max(2*len(a.buf), 2*n, 256))
		a.used = 0
	}
	s := a.buf[a.used : a.used+n : a.used+n]
	a.used += n
	clear(s)
	return s
}
