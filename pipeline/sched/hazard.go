package sched

// CheckHazards: a static proof that a function's control words are enough.
//
// # The hazard model
//
// This is the contract AssignControlWords and AssignConservativeControlWords
// fill in and CheckHazards checks, after the scoreboard page
// (001:24132-24470) and the stall encoding (001:23848-23880):
//
//   - Issue. Within a block, instruction i+1 issues max(1, stall(i))
//     cycles after instruction i, or later when it waits on a barrier (the
//     wait's extra delay is unknown, so the model counts it as zero). The
//     first instruction of a block issues max(1, stall) after the last
//     instruction of the predecessor it came from. Decision: a stall of 0
//     counts as 1; the wiki gives the field as 0-15 in one place and 1-16
//     in another (GUIDE.md gap 12), and no instruction issues in the same
//     cycle as its predecessor on Volta and later.
//   - Fixed latency (Latency(...).Variable false). The instruction reads
//     its guard and sources at issue and writes its results exactly
//     Cycles later. A read of the result before then is a hazard (RAW). A
//     later write of the same register must land after it: its earliest
//     write (its issue plus its own fixed latency, or plus 1 for a
//     variable-latency writer) must come after the pending one (WAW).
//   - Variable latency. The guard is read at issue; the sources and
//     address registers are read and the results written at unknown
//     times. The write barrier (WrBar) is released once the results are
//     written and the sources read; the read barrier (RdBar) once the
//     sources are read. Until an instruction that waits on the right
//     barrier (its Wait mask) has issued, a read or overwrite of a result
//     (RAW, WAW) and an overwrite of a source (WAR) are hazards, and so
//     are all of them when the producer sets no barrier at all.
//   - Barriers count: several producers may share one, and a wait on it
//     waits for all of them. A wait on a barrier that no path has set
//     since its last wait is an error (it usually means the barrier was
//     dropped from its producer).
//   - Drain points: CALL, RET and BAR issue with nothing pending, neither
//     a barrier nor a fixed-latency result, because the callee, the caller
//     or the other warps of the CTA may read any register and observe any
//     memory. After a CALL nothing is pending (the callee drained before
//     its RET). EXIT needs nothing: the thread's registers die with it.
//   - Operand reuse: a reuse flag on source k of an instruction is valid
//     when the next instruction of the same block reads the same register
//     as its source k, both are unguarded fixed-latency ALU, FMA or FP64
//     instructions, and the flagged instruction does not write the
//     register itself (reuseProblem).
//
// # Checking across blocks
//
// The state at a program point is: for every register word, the pending
// fixed-latency write (landing cycle and producer), the variable-latency
// writes and source reads not yet released (producer and barriers), and
// the set of barriers some path may still have pending. Block entry states
// come from a forward dataflow over the CFG that merges predecessors
// conservatively (latest landing cycle, union of pending entries and
// barriers) and iterates to a fixed point; the merge only grows states,
// and landing cycles only shrink as time passes, so it terminates. A
// final pass in layout order reports the first hazard.
//
// The checker shares the register extraction (regs.go) and the latency
// model with the passes it checks: a wrong latency would fool both. It
// shares nothing else, in particular not the barrier or wait logic.

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"orilab/pipeline/ori"
)

// HazardError is a hazard the control words leave open.
type HazardError struct {
	Func     string // the function
	Block    int32  // the block ID of the instruction
	Inst     int32  // the instruction that issues too early or is malformed
	Producer int32  // the instruction whose result or source is at stake, 0 if none
	Reg      string // the register word, "" if none
	Msg      string // what is wrong
}

func (e *HazardError) Error() string {
	return fmt.Sprintf("hazard %s BB%d #%d: %s", e.Func, e.Block, e.Inst, e.Msg)
}

// fixedW is a pending fixed-latency write; cycles are relative to the
// current block's first instruction.
type fixedW struct {
	ready int32 // the cycle the write lands
	issue int32 // the producer's issue cycle
	prod  *ori.Inst
	lat   int32
}

// varW is a variable-latency write not yet released.
type varW struct {
	prod *ori.Inst
	bar  int8 // write barrier, -1 for none
}

// varR is a variable-latency source read not yet released.
type varR struct {
	prod   *ori.Inst
	rd, wr int8 // barriers that release it, -1 for none
}

type hstate struct {
	fixed  map[word]fixedW
	writes map[word][]varW
	reads  map[word][]varR
	set    uint8 // barriers possibly pending
}

func newHState() *hstate {
	return &hstate{fixed: map[word]fixedW{}, writes: map[word][]varW{}, reads: map[word][]varR{}}
}

func (s *hstate) clone() *hstate {
	c := newHState()
	for w, f := range s.fixed {
		c.fixed[w] = f
	}
	for w, l := range s.writes {
		c.writes[w] = append([]varW(nil), l...)
	}
	for w, l := range s.reads {
		c.reads[w] = append([]varR(nil), l...)
	}
	c.set = s.set
	return c
}

// wait releases every entry the barriers in mask protect.
func (s *hstate) wait(mask uint8) {
	if mask == 0 {
		return
	}
	for w, l := range s.writes {
		k := l[:0]
		for _, e := range l {
			if e.bar < 0 || mask&(1<<e.bar) == 0 {
				k = append(k, e)
			}
		}
		if len(k) == 0 {
			delete(s.writes, w)
		} else {
			s.writes[w] = k
		}
	}
	for w, l := range s.reads {
		k := l[:0]
		for _, e := range l {
			if !(e.rd >= 0 && mask&(1<<e.rd) != 0) && !(e.wr >= 0 && mask&(1<<e.wr) != 0) {
				k = append(k, e)
			}
		}
		if len(k) == 0 {
			delete(s.reads, w)
		} else {
			s.reads[w] = k
		}
	}
	s.set &^= mask
}

// merge adds o (already shifted into s's frame) to s and reports whether
// s grew, and whether it changed at all (a tie on the ready cycle broken
// by a lower producer ID changes s without growing it).
func (s *hstate) merge(o *hstate) (grew, touched bool) {
	for w, f := range o.fixed {
		if g, ok := s.fixed[w]; !ok || f.ready > g.ready || (f.ready == g.ready && f.prod.ID < g.prod.ID) {
			s.fixed[w] = f
			grew = grew || !ok || f.ready > g.ready
			touched = true
		}
	}
	for w, l := range o.writes {
		for _, e := range l {
			if !hasVarW(s.writes[w], e) {
				s.writes[w] = insertVarW(s.writes[w], e)
				grew = true
			}
		}
	}
	for w, l := range o.reads {
		for _, e := range l {
			if !hasVarR(s.reads[w], e) {
				s.reads[w] = insertVarR(s.reads[w], e)
				grew = true
			}
		}
	}
	if s.set|o.set != s.set {
		s.set |= o.set
		grew = true
	}
	return grew, touched || grew
}

func hasVarW(l []varW, e varW) bool {
	for _, x := range l {
		if x == e {
			return true
		}
	}
	return false
}

func hasVarR(l []varR, e varR) bool {
	for _, x := range l {
		if x == e {
			return true
		}
	}
	return false
}

// insertVarW keeps entries sorted by producer ID, so reports do not depend
// on the order predecessors were merged in.
func insertVarW(l []varW, e varW) []varW {
	l = append(l, e)
	slices.SortStableFunc(l, func(a, b varW) int { return cmp.Compare(a.prod.ID, b.prod.ID) })
	return l
}

func insertVarR(l []varR, e varR) []varR {
	l = append(l, e)
	slices.SortStableFunc(l, func(a, b varR) int { return cmp.Compare(a.prod.ID, b.prod.ID) })
	return l
}

// shift moves s into the frame of a block that starts dt cycles after the
// current block's first instruction, dropping writes that have landed.
func (s *hstate) shift(dt int32) {
	for w, f := range s.fixed {
		f.ready -= dt
		f.issue -= dt
		if f.ready <= 0 {
			delete(s.fixed, w)
		} else {
			s.fixed[w] = f
		}
	}
}

// isDrain reports whether nothing may be pending when in issues.
func isDrain(in *ori.Inst) bool {
	return in.Op == ori.OpCALL || in.Op == ori.OpRET || in.Op == ori.OpBAR
}

// lateSources returns the source words a variable-latency instruction
// reads after issue: everything but the guard.
func lateSources(u *use) []word { return u.srcs }

// minWrite is the earliest cycle after issue an instruction's write can
// land.
func minWrite(info Info) int32 {
	if info.Variable {
		return 1
	}
	return int32(info.Cycles)
}

type checker struct {
	f    *ori.Func
	arch int
	// fs caches each instruction's words and latency: the dataflow may
	// visit a block several times. The check reads the instructions and
	// changes none.
	fs *facts
}

// CheckHazards reports the first hazard the control words of f leave open
// (see the model above), or nil. f must be allocated (physical registers
// only) and every instruction must have its control word set.
func CheckHazards(f *ori.Func, arch int) error {
	if err := f.ComputeCFG(); err != nil {
		return fmt.Errorf("sched: %w", err)
	}
	if len(f.Blocks) == 0 {
		return nil
	}
	c := &checker{f: f, arch: arch, fs: &facts{arch: arch, blocks: make(map[*ori.Block][]fact, len(f.Blocks))}}
	entry := make(map[*ori.Block]*hstate, len(f.Blocks))
	for _, b := range f.Blocks {
		entry[b] = newHState()
	}
	// Sweeps in layout order until nothing grows, skipping a block whose
	// entry state has not changed since its last visit: block depends
	// only on that state, and merging the same out state again changes
	// nothing (merge keeps, per word, the latest ready cycle and then the
	// lowest producer, and unions the rest). A merge can change a state
	// without growing it (a tie broken by producer), so versions count
	// changes while the sweeps still stop when nothing grows.
	pos := make(map[*ori.Block]int, len(f.Blocks))
	for i, b := range f.Blocks {
		pos[b] = i
	}
	ver := make([]int, len(f.Blocks))  // changes of each entry state
	seen := make([]int, len(f.Blocks)) // ver when the block was last visited, -1: never
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
			out, dt, _ := c.block(b, entry[b], false)
			if out == nil {
				continue
			}
			out.shift(dt)
			for _, s := range b.Succs {
				grew, touched := entry[s].merge(out)
				if touched {
					ver[pos[s]]++
				}
				if grew {
					changed = true
				}
			}
		}
	}
	for _, b := range f.Blocks {
		if _, _, err := c.block(b, entry[b], true); err != nil {
			return err
		}
	}
	return nil
}

// block runs b from state in. It returns the state after the last
// instruction, the cycles from the block's first issue to the next
// block's, and (when report is set) the first hazard. A nil state means
// the block cannot be modelled (an instruction has no control word).
func (c *checker) block(b *ori.Block, in *hstate, report bool) (*hstate, int32, error) {
	s := in.clone()
	t := int32(0)
	var prev *ori.Inst
	var first error
	fail := func(x *ori.Inst, prod *ori.Inst, w string, format string, args ...any) {
		if first != nil || !report {
			return
		}
		e := &HazardError{Func: c.f.Name, Block: b.ID, Inst: x.ID, Reg: w, Msg: fmt.Sprintf(format, args...)}
		if prod != nil {
			e.Producer = prod.ID
		}
		first = e
	}
	bf := c.fs.of(b)
	for idx, x := range b.Insts {
		if prev != nil {
			t += int32(max(1, prev.Ctrl.Stall))
		}
		if !x.Ctrl.Set {
			fail(x, nil, "", "has no control word")
			return nil, 0, first
		}
		c.fields(x, fail)
		u, info := &bf[idx].u, bf[idx].info
		if u.hasVir {
			fail(x, nil, "", "virtual register in %s after register allocation", x.Name())
			return nil, 0, first
		}
		setBefore := s.set
		s.wait(x.Ctrl.Wait)
		for _, ws := range [2][]word{u.guard, u.srcs} {
			for _, w := range ws {
				if f, ok := s.fixed[w]; ok && f.ready > t {
					fail(x, f.prod, w.String(), "reads %s %d cycles after #%d (%s) wrote it, latency %d; needs stall or barrier",
						w, t-f.issue, f.prod.ID, f.prod.Op, f.lat)
				}
				for _, e := range s.writes[w] {
					if e.bar < 0 {
						fail(x, e.prod, w.String(), "reads %s before #%d (%s) has written it; #%d sets no write barrier", w, e.prod.ID, e.prod.Op, e.prod.ID)
					} else {
						fail(x, e.prod, w.String(), "reads %s before #%d (%s) has written it; needs a wait on barrier %d", w, e.prod.ID, e.prod.Op, e.bar)
					}
				}
			}
		}
		for _, w := range u.dsts {
			if f, ok := s.fixed[w]; ok && f.ready >= t+minWrite(info) {
				fail(x, f.prod, w.String(), "overwrites %s %d cycles after #%d (%s) wrote it, latency %d; the writes can land out of order; needs stall",
					w, t-f.issue, f.prod.ID, f.prod.Op, f.lat)
			}
			for _, e := range s.writes[w] {
				if e.bar < 0 {
					fail(x, e.prod, w.String(), "overwrites %s before #%d (%s) has written it; #%d sets no write barrier", w, e.prod.ID, e.prod.Op, e.prod.ID)
				} else {
					fail(x, e.prod, w.String(), "overwrites %s before #%d (%s) has written it; needs a wait on barrier %d", w, e.prod.ID, e.prod.Op, e.bar)
				}
			}
			for _, e := range s.reads[w] {
				switch {
				case e.rd >= 0:
					fail(x, e.prod, w.String(), "overwrites %s before #%d (%s) has read it; needs a wait on barrier %d", w, e.prod.ID, e.prod.Op, e.rd)
				case e.wr >= 0:
					fail(x, e.prod, w.String(), "overwrites %s before #%d (%s) has read it; needs a wait on barrier %d", w, e.prod.ID, e.prod.Op, e.wr)
				default:
					fail(x, e.prod, w.String(), "overwrites %s before #%d (%s) has read it; #%d sets no read or write barrier", w, e.prod.ID, e.prod.Op, e.prod.ID)
				}
			}
		}
		if isDrain(x) {
			c.drained(x, s, t, fail)
		}
		if bad := x.Ctrl.Wait &^ setBefore; bad != 0 {
			for k := 0; k < 8; k++ {
				if bad&(1<<k) != 0 {
					fail(x, nil, "", "waits for barrier %d, which no instruction has set", k)
					break
				}
			}
		}
		c.reuse(b, idx, fail)
		// The instruction's own effects.
		if x.Op == ori.OpCALL {
			s = newHState()
		}
		for _, w := range u.dsts {
			delete(s.reads, w)
			delete(s.writes, w)
			delete(s.fixed, w)
			if info.Variable {
				s.writes[w] = []varW{{prod: x, bar: x.Ctrl.WrBar}}
			} else {
				s.fixed[w] = fixedW{ready: t + int32(info.Cycles), issue: t, prod: x, lat: int32(info.Cycles)}
			}
		}
		if info.Variable {
			for _, w := range lateSources(u) {
				e := varR{prod: x, rd: x.Ctrl.RdBar, wr: x.Ctrl.WrBar}
				if !hasVarR(s.reads[w], e) {
					s.reads[w] = append(s.reads[w], e)
				}
			}
		}
		for _, bar := range [2]int8{x.Ctrl.WrBar, x.Ctrl.RdBar} {
			// LDGDEPBAR's barrier counts cp.async groups, which only
			// DEPBAR waits for (cpasync.go): ptxas's BAR.SYNC after
			// one waits on nothing.
			if bar >= 0 && bar < 6 && x.Op != ori.OpLDGDEPBAR {
				s.set |= 1 << bar
			}
		}
		prev = x
	}
	dt := t
	if prev != nil {
		dt += int32(max(1, prev.Ctrl.Stall))
	}
	return s, dt, first
}

// fields checks the ranges of x's control word.
func (c *checker) fields(x *ori.Inst, fail func(x, prod *ori.Inst, w, format string, args ...any)) {
	k := x.Ctrl
	switch {
	case k.Stall > 15:
		fail(x, nil, "", "stall %d is out of range 0-15", k.Stall)
	case k.WrBar < -1 || k.WrBar > 5:
		fail(x, nil, "", "write barrier %d is out of range 0-5", k.WrBar)
	case k.RdBar < -1 || k.RdBar > 5:
		fail(x, nil, "", "read barrier %d is out of range 0-5", k.RdBar)
	case k.Wait&^0x3f != 0:
		fail(x, nil, "", "wait mask %#x names a barrier above 5", k.Wait)
	}
}

// drained reports what is still pending when the drain point x issues at
// cycle t (after its waits).
func (c *checker) drained(x *ori.Inst, s *hstate, t int32, fail func(x, prod *ori.Inst, w, format string, args ...any)) {
	for _, w := range sortedWords(s.fixed) {
		if f := s.fixed[w]; f.ready > t {
			fail(x, f.prod, w.String(), "%s issues %d cycles after #%d (%s) wrote %s, latency %d; needs stall",
				x.Op, t-f.issue, f.prod.ID, f.prod.Op, w, f.lat)
		}
	}
	for _, w := range sortedWords(s.writes) {
		e := s.writes[w][0]
		fail(x, e.prod, w.String(), "%s issues before #%d (%s) has written %s; needs a wait on barrier %d", x.Op, e.prod.ID, e.prod.Op, w, e.bar)
	}
	for _, w := range sortedWords(s.reads) {
		e := s.reads[w][0]
		bar := e.rd
		if bar < 0 {
			bar = e.wr
		}
		fail(x, e.prod, w.String(), "%s issues before #%d (%s) has read %s; needs a wait on barrier %d", x.Op, e.prod.ID, e.prod.Op, w, bar)
	}
	for k := 0; k < 6; k++ {
		if s.set&(1<<k) != 0 {
			fail(x, nil, "", "%s issues with barrier %d pending; needs a wait on it", x.Op, k)
		}
	}
}

// reuse checks the reuse flags of b.Insts[idx].
func (c *checker) reuse(b *ori.Block, idx int, fail func(x, prod *ori.Inst, w, format string, args ...any)) {
	x := b.Insts[idx]
	for k, o := range x.Srcs {
		if o.Kind == ori.OpdReg && o.Reuse {
			if why := reuseProblem(c.arch, b.Insts, idx, k); why != "" {
				fail(x, nil, o.Reg.String(), "reuse flag on source %d (%s): %s", k, o.Reg, why)
			}
		}
	}
}

func sortedWords[V any](m map[word]V) []word {
	ws := make([]word, 0, len(m))
	for w := range m {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		a, b := ws[i], ws[j]
		if a.class != b.class {
			return a.class < b.class
		}
		return a.n < b.n
	})
	return ws
}
