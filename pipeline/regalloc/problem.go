package regalloc

import (
	"fmt"
	"math/bits"
	"sort"

	"orilab/pipeline/ori"
)

// Building the allocation problem of one register class: the virtual
// registers with their widths, accesses and live ranges, the physical
// registers already in the code (precolored), the calls that clobber the
// register file, and the copies that would like both sides in one
// register.
//
// Live ranges come from the class's liveness (classlive.go, the rules of
// ori.Liveness for the class's words only): its per-block live-out words seed a
// backward walk over each block at word granularity, which opens a
// segment when a word of a value becomes live and closes it when no word
// of the value is live any more (an unguarded write kills the words it
// writes; a guarded write kills nothing, the old value survives when the
// guard is false). A value is then one register tuple, live wherever any
// of its words is: coarser than ptxas's half-register tracking, and never
// wrong.
//
// Physical registers are invisible to ori.Liveness, so they get their own
// small dataflow with the calling convention's implicit operands:
//
//   - a CALL reads the argument registers: the physical registers the
//     block wrote since its previous CALL (the lowering moves arguments
//     into R4.. right before the CALL; Decision: the CALL instruction
//     names only its target, so the moves are the only record of its
//     arguments, and this rule reads them back);
//   - a CALL writes every register the ABI does not preserve: it kills
//     all physical liveness, and its write position is clobbered in
//     every caller-saved register (callBase; R16-R31 are callee-saved,
//     calleesave.go); a CALL to a whole-seen callee kills and clobbers
//     only the registers that callee changes (interproc.go);
//   - RET reads the function's return registers (Func.Rets).

// problem is the allocation problem of one class of one function.
type problem struct {
	f     *ori.Func
	class ori.RegClass
	// live is the liveness virtualRanges computed, for wordRanges: the
	// code does not change in between.
	live *classLive
	// insts is the function linearized in layout order; block[g] is the
	// index in f.Blocks of instruction g's block, first[b] the index of
	// block b's first instruction.
	insts []*ori.Inst
	block []int
	first []int
	npos  int
	// freq is the estimated execution frequency of each instruction
	// (loop-iteration estimate to the power of the loop depth).
	freq []float64
	// vregs are the class's virtual registers, by first appearance;
	// index maps a virtual register number to its position.
	vregs []*vreg
	index vregIndex
	// phys holds the live ranges of the class's physical registers that
	// appear before allocation, by register number (R4.. around calls and
	// returns). They are occupied there.
	phys map[int][]seg
	// physOps holds, in order, the explicit physical operands of the
	// class (allocatable registers only) of every instruction that has
	// one, and of every CALL and RET (collect, for physicalRanges).
	physOps []physEffectAt
	// calls are the instruction indices of CALLs; callABI says which
	// of them are under the ABI, callSets what the others may change
	// (interproc.go), both by call; model decides.
	calls    []int
	callABI  []bool
	callSets []ori.RegSet
	model    callModel
	// prefs are the copies whose two sides would like one register;
	// coalesce (RegAllocCoalescing) says whether they may ask for it.
	prefs    []pref
	coalesce bool
	// sameValue (RegAllocSameValueCopies) lets the two sides of a copy
	// share a register where both are live (samevalue.go).
	sameValue bool
	// lo is the first allocatable register: R4 for R (R0-R3 are
	// ABI-reserved), 0 for the other classes; limit is the hardware limit
	// (the zero register's number).
	lo, limit int
	// touchAt and touchList hold the accesses by instruction:
	// touchList[touchAt[g]:touchAt[g+1]] (indexTouches).
	touchAt   []int32
	touchList []touch
	// accBase[v] is the index of value v's first access in the
	// attempts' per-access tables (newAttempt).
	accBase []int32
	// succAt and succ list the blocks' successors by index (blockSuccs).
	succAt, succ []int32
	// scr holds the buffers the attempts reuse (scratch.go); chunks and
	// words are the problem's share of them (takeProblem).
	scr    *scratch
	chunks [][]vreg
	words  []uint64
}

// vregIndex maps virtual register numbers to positions: a table indexed
// by the number (the numbers are dense from 0), holding position+1 (0:
// absent), with a map for numbers the table does not cover. It replaced a
// map, whose lookups for every operand and live-out word were a visible
// part of building each class's problem.
type vregIndex struct {
	dense []int32
	other map[int32]int
}

// denseVRegLimit bounds the table; larger numbers go to the map.
const denseVRegLimit = 1 << 22

// get returns the position of register n, and whether it has one.
func (x *vregIndex) get(n int32) (int, bool) {
	if n >= 0 && int(n) < len(x.dense) {
		if k := x.dense[n]; k > 0 {
			return int(k - 1), true
		}
		return 0, false
	}
	k, ok := x.other[n]
	return k, ok
}

// at returns the position of register n, 0 when it has none.
func (x *vregIndex) at(n int32) int {
	k, _ := x.get(n)
	return k
}

// set records position i for register n.
func (x *vregIndex) set(n int32, i int) {
	if n >= 0 && n < denseVRegLimit {
		if int(n) >= len(x.dense) {
			x.dense = append(x.dense, make([]int32, max(int(n)+1, 2*len(x.dense), 64)-len(x.dense))...)
		}
		x.dense[n] = int32(i + 1)
		return
	}
	if x.other == nil {
		x.other = map[int32]int{}
	}
	x.other[n] = i
}

// vreg is one virtual register of the class.
type vreg struct {
	num   int32
	width int // words: 1, 2 or 4 (a tuple aligned to its width)
	segs  []seg
	// wsegs, for a tuple when RegAllocWordRanges is on, holds each
	// word's own range, a subset of segs (wordranges.go); nil means every
	// word occupies segs.
	wsegs [][]seg
	acc   []access // one per instruction that reads or writes the value
	defs  int      // instructions that write it
	def   *ori.Inst
	// remat is set when the value can be recomputed instead of reloaded:
	// one unguarded definition from constants (see remat.go).
	remat bool
	// acrossCall is set when the value is live across a CALL.
	// mustSpill is set when such a value has no callee-saved register
	// of its class to live in (P, UP, UR: the ABI preserves only R16-R31
	// of the R file), so it lives in memory there.
	acrossCall bool
	mustSpill  bool
	// cost is the spill cost, benefit the number of positions spilling
	// frees; prio = cost/benefit orders allocation and picks victims.
	// fixed values free nothing when spilled.
	cost    float64
	benefit int
	prio    float64
	fixed   bool
}

// access is what one instruction does with a value.
type access struct {
	g           int
	read, write uint8 // words read and written
	guardedDef  bool  // the write is predicated: the old value may survive
	liveBefore  bool  // some word of the value is live right before g
	liveAfter   bool  // some word is live right after g
}

// pref is a copy "MOV dst = src" between registers of the class.
type pref struct {
	g        int
	dst, src prefEnd
	weight   float64
}

// prefEnd is one side of a copy: word off of virtual register v, or
// physical register phys when v < 0.
type prefEnd struct {
	v, off, phys int
}

// errorf builds an error that names the function, block and
// instruction.
func (p *problem) errorf(g int, format string, args ...any) error {
	b := p.f.Blocks[p.block[g]]
	return fmt.Errorf("regalloc: %s BB%d #%d: %s", p.f.Name, b.ID, p.insts[g].ID, fmt.Sprintf(format, args...))
}

// newProblem analyses f for class c; blockFreq gives each block's
// estimated frequency, in layout order. lowRegs makes R0, R2 and R3
// allocatable (lowRegisters says when that is allowed); trimUndef takes
// the positions no definition reaches out of the live ranges
// (undefined.go); wordRanges gives each word of a tuple its own range
// (wordranges.go); calls says what each CALL may change.
func newProblem(f *ori.Func, c ori.RegClass, blockFreq []float64, lowRegs, trimUndef, wordRanges bool, calls callModel, scr *scratch) (*problem, error) {
	p := &problem{f: f, class: c, phys: map[int][]seg{}, limit: c.Limit(), model: calls, scr: scr}
	if c == ori.ClassR && !lowRegs {
		p.lo = reservedR
	}
	// Sized up front: the function is large where this matters, and
	// growing three parallel slices by appending left garbage of about
	// their own size behind, once per class.
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Insts)
	}
	scr.takeProblem(p)
	if cap(p.insts) < n {
		p.insts = make([]*ori.Inst, 0, n)
		p.block = make([]int, 0, n)
		p.freq = make([]float64, 0, n)
	}
	if cap(p.first) < len(f.Blocks)+1 {
		p.first = make([]int, 0, len(f.Blocks)+1)
	}
	for bi, b := range f.Blocks {
		p.first = append(p.first, len(p.insts))
		for _, in := range b.Insts {
			p.insts = append(p.insts, in)
			p.block = append(p.block, bi)
			p.freq = append(p.freq, blockFreq[bi])
		}
	}
	p.first = append(p.first, len(p.insts))
	p.npos = 4*len(p.insts) + 4
	if err := p.collect(); err != nil {
		return nil, err
	}
	if len(p.vregs) == 0 {
		// Nothing to allocate (the caller returns at once): the ranges
		// below, physical ones included, would go unread.
		return p, nil
	}
	p.indexTouches()
	p.virtualRanges()
	if trimUndef {
		p.trimUndefined()
	}
	if wordRanges {
		p.wordRanges()
	}
	p.physicalRanges()
	if c == ori.ClassR && lowRegs {
		// R1 is the stack pointer everywhere, whether or not the code
		// names it yet: a range over the whole function keeps every value
		// out of it (and every pair out of R0:R1).
		p.phys[int(stackPointer.N)] = []seg{{0, int32(p.npos - 1)}}
	}
	for _, v := range p.vregs {
		for i := range v.acc {
			a := &v.acc[i]
			a.liveBefore = segsContain(v.segs, posBefore(a.g))
			a.liveAfter = segsContain(v.segs, posAfter(a.g))
		}
		for i, g := range p.calls {
			if segsContain(v.segs, posWrite(g)) {
				// R values live across a call under the ABI go to the
				// callee-saved registers (the clobbers in the driver's
				// base keep them out of the others); the other classes
				// have none. Across a call to a whole-seen callee any
				// register it leaves alone will do (interproc.go).
				v.acrossCall = true
				if p.callABI[i] {
					v.mustSpill = p.class != ori.ClassR
					break
				}
			}
		}
	}
	return p, nil
}

// collect finds the class's virtual registers, their widths and accesses,
// the calls and the copies.
func (p *problem) collect() error {
	// The values are carved out of chunks of vregs kept in the scratch
	// (newVReg).
	for g, in := range p.insts {
		if in.Op == ori.OpCALL {
			set, abi := p.model.clobbers(in)
			p.calls = append(p.calls, g)
			p.callABI = append(p.callABI, abi)
			p.callSets = append(p.callSets, set)
		}
		// The operands in eachReg's order, without its callback: this
		// walk runs over the whole function once per class.
		var e physEffect // the explicit physical operands of the class
		hasPhys := false
		err := p.collectReg(g, in, in.Guard, false, &e, &hasPhys)
		for i := 0; i < len(in.Srcs) && err == nil; i++ {
			if r, ok := baseOrReg(in.Srcs[i]); ok {
				err = p.collectReg(g, in, r, false, &e, &hasPhys)
			}
		}
		for i := 0; i < len(in.Dsts) && err == nil; i++ {
			if o := &in.Dsts[i]; o.Kind == ori.OpdReg {
				err = p.collectReg(g, in, o.Reg, true, &e, &hasPhys)
			} else if r, ok := baseOrReg(*o); ok {
				err = p.collectReg(g, in, r, false, &e, &hasPhys)
			}
		}
		if err != nil {
			return err
		}
		if hasPhys || in.Op == ori.OpCALL || in.Op == ori.OpRET {
			p.physOps = append(p.physOps, physEffectAt{g, e})
		}
		p.notePref(g, in)
	}
	for _, v := range p.vregs {
		switch {
		case v.width == 3:
			v.width = 4
		case v.width > 4:
			return fmt.Errorf("regalloc: %s: %s is %d words wide; values are at most 4 words", p.f.Name, ori.VReg(p.class, int(v.num), 1), v.width)
		}
		if v.defs != 1 {
			v.def = nil
		}
	}
	return nil
}

// collectReg records register operand r of instruction g (a write when
// def): a virtual register of the class as an access of its value, a
// physical one in e (hasPhys is set when it is allocatable, notePhys).
func (p *problem) collectReg(g int, in *ori.Inst, r ori.Reg, def bool, e *physEffect, hasPhys *bool) error {
	if r.Class != p.class {
		return nil
	}
	if !r.Virtual {
		if !r.IsZero() && p.notePhys(e, in, r, def) {
			*hasPhys = true
		}
		return nil
	}
	if r.Words != 1 && r.Words != 2 && r.Words != 4 {
		return p.errorf(g, "%s accesses %d words; tuples are 1, 2 or 4 words", r, r.Words)
	}
	if int(r.Off)%int(r.Words) != 0 {
		return p.errorf(g, "%s is a misaligned slice: word %d of a %d-word access cannot be an aligned register tuple", r, r.Off, r.Words)
	}
	vi, ok := p.index.get(r.N)
	if !ok {
		vi = len(p.vregs)
		p.index.set(r.N, vi)
		p.newVReg(r.N)
	}
	v := p.vregs[vi]
	if end := int(r.Off) + int(r.Words); end > v.width {
		v.width = end
	}
	if n := len(v.acc); n == 0 || v.acc[n-1].g != g {
		v.acc = append(v.acc, access{g: g})
	}
	a := &v.acc[len(v.acc)-1]
	m := wordMask(int(r.Off), int(r.Words))
	if def {
		if a.write == 0 {
			v.defs++
			v.def = in
		}
		a.write |= m
		a.guardedDef = a.guardedDef || in.Guarded()
	} else {
		a.read |= m
	}
	return nil
}

// notePref records a plain copy between two registers of the class.
func (p *problem) notePref(g int, in *ori.Inst) {
	if in.Op != ori.OpMOV && in.Op != ori.OpUMOV || len(in.Mods) > 0 || in.Guarded() ||
		len(in.Dsts) != 1 || len(in.Srcs) != 1 || in.Dsts[0].Kind != ori.OpdReg || in.Srcs[0].Kind != ori.OpdReg {
		return
	}
	d, s := in.Dsts[0], in.Srcs[0]
	if d.Reg.Class != p.class || s.Reg.Class != p.class || d.Reg.Words != s.Reg.Words ||
		d.Reg.IsZero() || s.Reg.IsZero() || s.Neg || s.Abs || s.Not || (!d.Reg.Virtual && !s.Reg.Virtual) {
		return
	}
	end := func(r ori.Reg) prefEnd {
		if r.Virtual {
			return prefEnd{v: p.index.at(r.N), off: int(r.Off)}
		}
		return prefEnd{v: -1, phys: int(r.N)}
	}
	p.prefs = append(p.prefs, pref{g: g, dst: end(d.Reg), src: end(s.Reg), weight: p.freq[g]})
}

// virtualRanges builds every value's live range from the class's
// liveness (classlive.go).
func (p *problem) virtualRanges() {
	if len(p.vregs) == 0 {
		return
	}
	lv := p.classLiveness()
	p.live = lv
	// Words are numbered globally: value i's words start at base[i].
	base := lv.base
	live := p.scr.bools.take(base[len(p.vregs)])
	nlive := p.scr.ints.take(len(p.vregs)) // live words per value
	open := p.scr.int32s.take(len(p.vregs))
	for i := range open {
		open[i] = -1
	}
	setWord := func(vi, w int, on bool) {
		k := base[vi] + w
		if live[k] == on {
			return
		}
		live[k] = on
		if on {
			nlive[vi]++
		} else {
			nlive[vi]--
		}
	}
	closeAt := func(vi int, lo int32) {
		v := p.vregs[vi]
		v.segs = append(v.segs, seg{lo, open[vi]})
		open[vi] = -1
	}
	var active []int // values opened in the current block
	openAt := func(vi int, hi int32) {
		open[vi] = hi
		active = append(active, vi)
	}
	for bi := range p.f.Blocks {
		g0, g1 := p.first[bi], p.first[bi+1]-1
		if g1 < g0 {
			continue
		}
		// The order of the live-out words does not matter here, as
		// each value's segments are sorted at the end.
		lv.eachOut(bi, func(vi, w int) {
			setWord(vi, w, true)
			if open[vi] < 0 {
				openAt(vi, posAfter(g1))
			}
		})
		for g := g1; g >= g0; g-- {
			touched := p.touchesAt(g)
			if len(touched) == 0 {
				// Nothing below changes (most instructions, for every
				// class but R); the instruction is not even read.
				continue
			}
			in := p.insts[g]
			// Results occupy their registers at the write position even
			// when nobody reads them.
			for _, t := range touched {
				if t.write != 0 && open[t.vi] < 0 {
					openAt(int(t.vi), posWrite(g))
				}
			}
			if !in.Guarded() {
				for _, t := range touched {
					for m := t.write; m != 0; m &= m - 1 {
						setWord(int(t.vi), bits.TrailingZeros8(m), false)
					}
				}
			}
			for _, t := range touched {
				for m := t.read; m != 0; m &= m - 1 {
					setWord(int(t.vi), bits.TrailingZeros8(m), true)
				}
			}
			for _, t := range touched {
				switch {
				case nlive[t.vi] == 0 && open[t.vi] >= 0:
					closeAt(int(t.vi), posWrite(g))
				case nlive[t.vi] > 0 && open[t.vi] < 0:
					openAt(int(t.vi), posRead(g))
				}
			}
		}
		for _, vi := range active {
			if open[vi] >= 0 {
				closeAt(vi, posBefore(g0))
			}
			for w := 0; w < p.vregs[vi].width; w++ {
				setWord(vi, w, false)
			}
		}
		active = active[:0]
	}
	for _, v := range p.vregs {
		v.segs = normalizeSegs(v.segs)
	}
}

// physSet is a set of physical register numbers of one class (at most
// 255 of them).
type physSet [4]uint64

func (s *physSet) add(n int)      { s[n/64] |= 1 << (n % 64) }
func (s *physSet) del(n int)      { s[n/64] &^= 1 << (n % 64) }
func (s *physSet) has(n int) bool { return s[n/64]&(1<<(n%64)) != 0 }
func (s *physSet) or(o physSet)   { s[0], s[1], s[2], s[3] = s[0]|o[0], s[1]|o[1], s[2]|o[2], s[3]|o[3] }
func (s *physSet) andNot(o physSet) {
	s[0], s[1], s[2], s[3] = s[0]&^o[0], s[1]&^o[1], s[2]&^o[2], s[3]&^o[3]
}
func (s physSet) each(fn func(n int)) {
	for w, x := range s {
		for ; x != 0; x &= x - 1 {
			fn(64*w + bits.TrailingZeros64(x))
		}
	}
}

// physEffect is one instruction's effect on the class's physical
// registers: explicit operands plus the calling convention's implicit
// ones.
type physEffect struct {
	uses, defs physSet
	kill       physSet // unguarded writes; a CALL kills everything
	call       bool
}

// physEffectAt is the effect of instruction g, kept only for the
// instructions that have one: few touch the class's physical registers,
// and a dense table cost over 100 bytes per instruction and class.
type physEffectAt struct {
	g int
	physEffect
}

// notePhys adds physical register r of the class, an operand of in, to
// e; it reports whether a word of r is allocatable (lo up to the limit).
func (p *problem) notePhys(e *physEffect, in *ori.Inst, r ori.Reg, def bool) bool {
	found := false
	for w := 0; w < int(r.Words); w++ {
		k := int(r.N) + w
		if k < p.lo || k >= p.limit {
			continue
		}
		found = true
		if def {
			e.defs.add(k)
			if !in.Guarded() {
				e.kill.add(k)
			}
		} else {
			e.uses.add(k)
		}
	}
	return found
}

// physicalRanges computes the live ranges of the physical registers in
// the code (precolored ranges), from the explicit operands collect noted
// in p.physOps.
func (p *problem) physicalRanges() {
	var eff []physEffectAt // by instruction, in order
	// effFirst[bi] is the index in eff of block bi's first effect.
	effFirst := p.scr.ints.take(len(p.f.Blocks) + 1)
	all := physSet{}
	for r := 0; r < p.limit; r++ {
		all.add(r)
	}
	found := false
	ci := 0 // index of the next CALL in p.calls
	ops := p.physOps
	for bi := range p.f.Blocks {
		effFirst[bi] = len(eff)
		var written physSet // physical registers written since the last CALL
		// Only the instructions collect noted have an effect.
		for ; len(ops) > 0 && ops[0].g < p.first[bi+1]; ops = ops[1:] {
			g := ops[0].g
			in := p.insts[g]
			e := &ops[0].physEffect
			if *e != (physEffect{}) {
				// An explicit operand of an allocatable register
				// (notePhys adds nothing else).
				found = true
			}
			switch {
			case in.Op == ori.OpCALL:
				e.call = true
				e.uses.or(written)
				e.kill = p.callKill(ci, all)
				ci++
				written = physSet{}
			case in.Op == ori.OpRET && p.class == ori.ClassR:
				for _, r := range p.f.Rets {
					for w := 0; w < int((r.Size+3)/4); w++ {
						if k := int(r.Offset) + w; k >= p.lo && k < p.limit {
							e.uses.add(k)
							found = true
						}
					}
				}
			default:
				written.or(e.defs)
			}
			if *e != (physEffect{}) {
				eff = append(eff, physEffectAt{g, *e})
			}
		}
	}
	effFirst[len(p.f.Blocks)] = len(eff)
	if !found {
		return
	}
	// Block-level liveness, iterated to a fixed point.
	nb := len(p.f.Blocks)
	useB := make([]physSet, nb)
	killB := make([]physSet, nb)
	for bi := range p.f.Blocks {
		var u, k physSet
		for j := effFirst[bi+1] - 1; j >= effFirst[bi]; j-- {
			e := eff[j]
			k.or(e.kill)
			u.andNot(e.kill)
			u.or(e.uses)
		}
		useB[bi], killB[bi] = u, k
	}
	in := make([]physSet, nb)
	out := make([]physSet, nb)
	for changed := true; changed; {
		changed = false
		for bi := nb - 1; bi >= 0; bi-- {
			var o physSet
			for _, s := range p.blockSuccs(bi) {
				// A successor outside the layout reads as block 0, as
				// the map lookup this replaced did.
				o.or(in[max(s, 0)])
			}
			out[bi] = o
			x := o
			x.andNot(killB[bi])
			x.or(useB[bi])
			if x != in[bi] {
				in[bi] = x
				changed = true
			}
		}
	}
	open := map[int]int32{}
	closeAt := func(r int, lo int32) {
		p.phys[r] = append(p.phys[r], seg{lo, open[r]})
		delete(open, r)
	}
	for bi := range p.f.Blocks {
		g0, g1 := p.first[bi], p.first[bi+1]-1
		if g1 < g0 {
			continue
		}
		live := out[bi]
		live.each(func(r int) { open[r] = posAfter(g1) })
		// Instructions without an effect change nothing below.
		for j := effFirst[bi+1] - 1; j >= effFirst[bi]; j-- {
			e := eff[j]
			g := e.g
			e.defs.each(func(r int) {
				if _, ok := open[r]; !ok {
					open[r] = posWrite(g)
				}
			})
			live.andNot(e.kill)
			live.or(e.uses)
			var touched physSet
			touched.or(e.defs)
			touched.or(e.uses)
			if e.call {
				touched.or(e.kill)
			}
			touched.each(func(r int) {
				_, isOpen := open[r]
				switch {
				case !live.has(r) && isOpen:
					closeAt(r, posWrite(g))
				case live.has(r) && !isOpen:
					open[r] = posRead(g)
				}
			})
		}
		keys := make([]int, 0, len(open))
		for r := range open {
			keys = append(keys, r)
		}
		sort.Ints(keys)
		for _, r := range keys {
			closeAt(r, posBefore(g0))
		}
	}
	for r, s := range p.phys {
		p.phys[r] = normalizeSegs(s)
	}
}

// physHigh returns one past the highest physical register of the class
// the code already uses, or 0.
func (p *problem) physHigh() int {
	h := 0
	for r := range p.phys {
		if r+1 > h {
			h = r + 1
		}
	}
	return h
}

// touch is what one instruction does to one virtual register of the
// class: the words it reads and writes (masks of wordMask).
type touch struct {
	vi          int32 // 8 bytes a touch, not 16
	read, write uint8
}

// indexTouches lists, by instruction, the values of the class each
// instruction reads or writes, with the words of each: the accesses
// collect gathered, regrouped by instruction. The range walks read these
// instead of visiting every operand of the function again per walk.
func (p *problem) indexTouches() {
	at := p.scr.int32s.take(len(p.insts) + 1)
	for _, v := range p.vregs {
		for _, a := range v.acc {
			at[a.g+1]++
		}
	}
	for g := range p.insts {
		at[g+1] += at[g]
	}
	list := p.scr.touchs.take(int(at[len(p.insts)]))
	next := p.scr.int32s.take(len(p.insts))
	copy(next, at)
	for vi, v := range p.vregs {
		for _, a := range v.acc {
			list[next[a.g]] = touch{vi: int32(vi), read: a.read, write: a.write}
			next[a.g]++
		}
	}
	p.touchAt, p.touchList = at, list
}

// touchesAt returns the class's values instruction g reads or writes,
// once each (in no particular order), with the words of each.
func (p *problem) touchesAt(g int) []touch {
	return p.touchList[p.touchAt[g]:p.touchAt[g+1]]
}

// blockSuccs returns the successors of block bi as indices in f.Blocks,
// -1 for a block outside the layout. They are found once per problem:
// the class's liveness, the precolored ranges and the trimming of
// undefined positions each built a map of the blocks for this before.
func (p *problem) blockSuccs(bi int) []int32 {
	if p.succAt == nil {
		nb := len(p.f.Blocks)
		index := make(map[*ori.Block]int32, nb)
		n := 0
		for i, b := range p.f.Blocks {
			index[b] = int32(i)
			n += len(b.Succs)
		}
		p.succAt = p.scr.int32s.take(nb + 1)
		p.succ = p.scr.int32s.take(n)[:0]
		for i, b := range p.f.Blocks {
			p.succAt[i] = int32(len(p.succ))
			for _, s := range b.Succs {
				si, ok := index[s]
				if !ok {
					si = -1
				}
				p.succ = append(p.succ, si)
			}
		}
		p.succAt[nb] = int32(len(p.succ))
	}
	return p.succ[p.succAt[bi]:p.succAt[bi+1]]
}
