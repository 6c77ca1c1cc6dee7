package opt

// OriHoistInvariants{Early,Late,Late2,Late3} (ptxas phases 35, 66, 79 and
// 88; orilab indices 38, 72, 87, 96): loop-invariant code motion, after
// the wiki's "Loop Passes" page, LICM (001:12600-13094).
//
// The four positions share one implementation and differ only in their
// budget, as ptxas's pass_id does (12660-12693, 12717-12746). Per
// function, loops are visited innermost first (12985-13040); an
// instruction hoisted out of an inner loop lands in that loop's preheader,
// which belongs to the outer loop, so a later visit of the outer loop can
// hoist it further. For one loop the pass
//
//  1. skips the loop when it contains a barrier (BAR, MEMBAR, WARPSYNC,
//     BSYNC) or an indirect branch (BRX), as ptxas's boundary analysis
//     does (12934-12944), or when no preheader can be made;
//  2. marks invariant instructions to a fixed point (the forward marking
//     and the transitive propagation of stages 2-4, 12748-12842): among
//     the instructions of the blocks that belong to this loop and not to
//     an inner one, an instruction is invariant when
//     - its opcode is pure (no side effect, memory write, barrier, warp
//       collective, call or control transfer, not MOV.PHI, P2R/R2P, NOP),
//       or it reads a special register that cannot change (SR_TID,
//       SR_CTAID, SR_LANEID, the lane masks, SR_GRIDID; not the clocks or
//       SR_WARPID/SR_SMID), or it is a load allowed below;
//     - every register it reads (guard, sources, address bases) is
//       written nowhere in the loop, or written by exactly one instruction
//       of the loop that is itself invariant. A physical register is
//       invariant when the loop does not write it and has no CALL (R1, the
//       stack pointer, survives calls);
//     - every register word it writes is virtual, written by no other
//       instruction of the loop, and not live on entry to the header. That
//       last condition is what makes the motion safe even when the loop
//       runs zero times or the instruction sat in a conditional block: no
//       path from the header reads the old value, so computing the new one
//       once in the preheader is unobservable;
//  3. hoists the marked instructions, in reverse postorder of the loop's
//     blocks (so a definition moves before the instructions that use it),
//     to the end of the preheader, creating the preheader on the first
//     hoist (13020-13025). An instruction is skipped when one of the
//     in-loop definitions it reads was not hoisted, and the walk stops
//     when the loop's budget is spent.
//
// Loads. An instruction that may fault must not run where it did not run
// before, so a load is hoisted only from a block that dominates every
// exiting block of the loop (it runs at least once whenever the loop is
// entered) and:
//   - LDC and constant-bank operands: always (read-only; in orilab's
//     machine model a constant-bank read never faults, so they need no
//     dominance either);
//   - LDG.E.CONSTANT (ld.global.nc): read-only for the kernel's lifetime;
//   - LDL: thread-private, so when the loop writes no memory (no store,
//     atomic or CALL);
//   - plain LDG, LDS and LD: when the loop writes no memory and the loaded
//     value does not feed, inside the loop, the condition of any branch
//     that leaves it. The second condition keeps polling loops polling:
//     the lowering emits ld.volatile as a plain LDG, so a volatile load
//     cannot be told apart, and a loop that spins until another thread
//     changes memory exits through the value it loads. Loads with
//     ordering modifiers (STRONG, ACQUIRE, VOLATILE, ...) are never
//     hoisted.
//
// Example (kernel parameter pointer recomputed every iteration):
//
//	BB1: (preheader, empty)            BB1:
//	                                        MOV %r5 = c[0x0][0x160]
//	                                        SHF.L.U32 %r6 = %r4, 0x2, RZ
//	BB2: MOV %r5 = c[0x0][0x160]   ==> BB2:
//	     SHF.L.U32 %r6 = %r4, 0x2, RZ      IADD3 %r7 = %r5, %r6, %r2
//	     IADD3 %r7 = %r5, %r6, %r2         ...
//
// Budget (Decision; the wiki's weighted score of stage 5, 12846-12898,
// depends on latency classes orilab does not model): the number of
// instructions hoisted out of one loop is limited by HoistLoopInvBudget
// for a loop without inner loops (default 22 in the Early position and
// 100 in the others, times 100 in Late3, as in stage 1, 12721-12746) and
// by HoistBudget (default 10) for a loop that contains other loops; 0
// means unlimited.
//
// Knobs: HoistLate is the policy the wiki gives for knob 381 (12675-12693),
// read per function: 0 hoists from every loop, 1 only from innermost
// loops, 3 never (the switch that turns every LICM position off);
// DisablePhases turns off one position.
//
// Decision (O-level): the wiki's LICM guard "returns the block count from
// code_object+2104" and hoists only when it exceeds 2 (12700-12712), but
// the O-level page shows the same accessor, sub_7DDB50, returning the
// optimization level stored at +2104 (40905-40929). We read it as the
// latter: LICM runs at -O3 and above.
//
// Register pressure: an instruction is hoisted only while the words its
// result keeps live across the loop fit under HoistMaxRegCount, and
// nothing the loop keeps live is hoisted out of a loop with a CALL
// (licmpressure.go).
//
// Known limits: instructions are not hoisted out of inner loops in one step (only via
// the inner loop's preheader); no speculation of faulting loads; partial
// redundancy (an invariant computed in only some iterations' paths whose
// result is live into the header) is left alone.

import (
	"sort"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// licmPositions are the phase names of the four LICM instances, in the
// order of their pass_id.
var licmPositions = []string{
	"OriHoistInvariantsEarly",
	"OriHoistInvariantsLate",
	"OriHoistInvariantsLate2",
	"OriHoistInvariantsLate3",
}

func init() {
	readers := licmPositions
	knobs.Default.Register(knobs.Knob{
		Name:    "HoistLate",
		Type:    knobs.TypeInt,
		Default: "0",
		Doc:     "Loop-invariant hoisting policy (knob 381): 0 hoists from every loop, 1 only from innermost loops, 3 never.",
		Readers: readers,
	})
	knobs.Default.Register(knobs.Knob{
		Name:    "HoistBudget",
		Type:    knobs.TypeFloat,
		Default: "10",
		Doc:     "Maximum number of instructions hoisted out of a loop that contains other loops (0 = unlimited).",
		Readers: readers,
	})
	knobs.Default.Register(knobs.Knob{
		Name:    "HoistLoopInvBudget",
		Type:    knobs.TypeFloat,
		Doc:     "Maximum number of instructions hoisted out of an innermost loop (0 = unlimited); unset: 22 in OriHoistInvariantsEarly, 100 in the later positions (times 100 in Late3).",
		Readers: readers,
	})
}

// The four LICM positions: loop-invariant code motion hoists invariant
// instructions (and provably safe loads) into the loop preheader. They
// differ only in their pass_id, which picks the hoisting budget.
var (
	HoistInvariantsEarly = hoistPass(0) // OriHoistInvariantsEarly
	HoistInvariantsLate  = hoistPass(1) // OriHoistInvariantsLate
	HoistInvariantsLate2 = hoistPass(2) // OriHoistInvariantsLate2
	HoistInvariantsLate3 = hoistPass(3) // OriHoistInvariantsLate3
)

func hoistPass(passID int) Pass {
	return Pass{Run: func(f *ori.Func, c *Context) (bool, error) {
		n, err := hoistInvariants(f, c, passID)
		return n > 0, err
	}}
}

// licmBudget returns the hoisting budget of a loop for the position
// passID (0 means unlimited).
func licmBudget(c *Context, l *Loop, passID int) int {
	s := c.knobSet()
	if !l.Innermost() {
		return int(s.Float("HoistBudget"))
	}
	var b float64
	if s.IsSet("HoistLoopInvBudget") {
		b = float64(s.Float("HoistLoopInvBudget"))
	} else if passID == 0 {
		b = 22
	} else {
		b = 100
	}
	if passID == 3 {
		b *= 100
	}
	return int(b)
}

// hoistInvariants runs LICM over every loop of f and returns how many
// instructions it hoisted.
func hoistInvariants(f *ori.Func, c *Context, passID int) (int, error) {
	policy := c.Int("HoistLate")
	if policy == 3 {
		return 0, nil
	}
	total := 0
	done := map[int32]bool{}
	// The CFG and the loop forest stay valid until a loop actually hoists
	// something (most loops hoist nothing). The liveness is computed once:
	// recomputing it for every loop made LICM quadratic in the size of
	// kernels with many loops (each OriHoistInvariants took ~240 ms on
	// rodinia/hwt.ptx, mostly whole-function liveness). The only question
	// asked of it is whether a register is live into the header of a loop
	// not yet visited, and hoisting never changes that answer: it moves
	// instructions out of a visited loop l into l's preheader P, which
	// every path into l passes. A source the move reads at the end of P
	// instead of inside l has no definition in l, so any path that reached
	// the old read reaches the new one first, and any path that reaches the
	// new one goes on to the old one, with no definition in between; a
	// result was not live into l's header, so every path from there to a
	// read passes its (unguarded) definition, now in P. So liveness differs
	// only at points inside l (visited, with its inner loops) and inside P
	// after what P held already; where P is an outer loop's header, its
	// entry keeps its live set. (Over 204 corpus files at -O3 a check that
	// recomputed the liveness for every question found no difference.)
	// Until a loop measures its pressure, the questions are answered by
	// searches from the header instead (licmlivein.go): most runs hoist
	// nothing and then never need the whole liveness.
	var lf *LoopForest
	extra := newLICMExtra(f)
	run := getLICMRun()
	defer putLICMRun(run)
	search := newLICMLiveSearch(f)
	search.occ, search.has, search.slab = run.occ, run.occHas, run.occSlab
	defer func() { run.occ, run.occHas, run.occSlab = search.occ, search.has, search.slab }()
	lv := &licmLive{f: f, search: search}
	// inner is what is left to visit of lf.InnerFirst(), listed once per
	// forest (not once per loop visited).
	var inner []*Loop
	for {
		if lf == nil {
			if err := f.ComputeCFG(); err != nil {
				return total, err
			}
			lf = FindLoops(f)
			inner = lf.InnerFirst()
		}
		var l *Loop
		for len(inner) > 0 && l == nil {
			if x := inner[0]; !done[x.Header.ID] {
				l = x
			}
			inner = inner[1:]
		}
		if l == nil {
			return total, f.ComputeCFG()
		}
		done[l.Header.ID] = true
		if policy == 1 && !l.Innermost() {
			continue
		}
		// hoistLoop changes f only when it moves something, and the CFG
		// only when it inserts a preheader: moving instructions into an
		// existing preheader leaves every edge, and so the forest, as it
		// was (no EXIT, RET or BPT moves, so no block starts or stops
		// leaving the function). Rebuilding the forest (and its
		// dominator tree) after every loop that hoisted was quadratic in
		// kernels with many loops.
		n, inserted := hoistLoop(f, c, lf, l, licmBudget(c, l, passID), lv, extra, run)
		total += n
		if inserted {
			lf = nil
		}
	}
}

// licmSR reports whether a special register reads the same value
// whenever a thread reads it.
func licmSR(name string) bool {
	for _, p := range []string{"SR_TID", "SR_CTAID", "SR_LANEID", "SR_EQMASK", "SR_LTMASK", "SR_LEMASK", "SR_GTMASK", "SR_GEMASK", "SR_GRIDID"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// licmLoadMods are the load modifiers that do not change what or when a
// load reads: the address width, the access size and the non-coherent
// path.
var licmLoadMods = map[string]bool{"E": true, "CONSTANT": true, "U8": true, "S8": true, "U16": true, "S16": true, "64": true, "128": true}

// licmLoadKind classifies a load for hoisting.
type licmLoadKind uint8

const (
	licmNotLoad   licmLoadKind = iota
	licmConstBank              // LDC: never faults, read-only
	licmReadOnly               // LDG.E.CONSTANT: may fault, read-only
	licmPrivate                // LDL: may fault, only this thread writes it
	licmShared                 // LDG, LDS, LD: may fault, other threads may write it
	licmNever                  // ordering modifiers, unknown loads
)

func licmClassifyLoad(in *ori.Inst) licmLoadKind {
	if !in.Op.Has(ori.FLoad) {
		return licmNotLoad
	}
	for _, m := range in.Mods {
		if !licmLoadMods[m] {
			return licmNever
		}
	}
	switch in.Op {
	case ori.OpLDC:
		return licmConstBank
	case ori.OpLDG:
		if in.HasMod("CONSTANT") {
			return licmReadOnly
		}
		return licmShared
	case ori.OpLDL:
		return licmPrivate
	case ori.OpLDS, ori.OpLD:
		return licmShared
	}
	return licmNever
}

// licmImpure are the opcode properties that keep an instruction in place.
const licmImpure = ori.FSideEffect | ori.FStore | ori.FAtomic | ori.FBarrier | ori.FWarp |
	ori.FCall | ori.FBranch | ori.FIndirect | ori.FExit | ori.FRet | ori.FPseudo

// licmPureOp reports whether in computes its results from its operands
// alone (loads are classified separately).
func licmPureOp(in *ori.Inst) bool {
	if in.Op.Flags()&licmImpure != 0 || in.IsPhi() {
		return false
	}
	switch in.Op {
	case ori.OpNOP, ori.OpP2R, ori.OpR2P, ori.OpBPT, ori.OpInvalid:
		return false
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdSR && !licmSR(o.Name) {
			return false
		}
	}
	return true
}

// licmLoop is the per-loop state of one LICM visit. The candidates are
// numbered by their place in cands; the per-word tables live in run.
type licmLoop struct {
	f   *ori.Func
	l   *Loop
	run *licmRun
	// lv answers the run's liveness questions (licmLive).
	lv        *licmLive
	memWrites bool // the loop writes memory (store, atomic, call)
	hasCall   bool
	cands     []*ori.Inst
	always    []bool // per candidate: its block runs whenever the loop is entered
	inv       []bool // per candidate: marked invariant
	state     []licmState
}

// hoistLoop hoists the invariants of l and returns how many it moved.
// liveness returns the current liveness of f, computed on first use.
// extra holds the register words earlier hoists of this run keep live;
// run is the phase run's scratch.
func hoistLoop(f *ori.Func, c *Context, lf *LoopForest, l *Loop, budget int, lv *licmLive, extra *licmExtra, run *licmRun) (moves int, inserted bool) {
	for _, b := range l.Blocks {
		for _, in := range b.Insts {
			if in.Op.Has(ori.FBarrier) || in.Op == ori.OpBRX {
				return 0, false
			}
		}
	}
	if !loopCanHavePreheader(f, l) {
		return 0, false
	}
	s := &licmLoop{f: f, l: l, run: run, lv: lv}
	// Candidates: the instructions of the blocks directly in l, in
	// reverse postorder of the blocks. The order is computed once per
	// loop forest: the CFG does not change while the forest is held (the
	// caller drops it when a loop hoists), and a walk of the whole
	// function for every loop was quadratic in kernels with many loops.
	if lf.rpo == nil {
		lf.rpo = loopRPO(f)
	}
	order := lf.rpo
	blocks := run.blocks[:0]
	for _, b := range l.Blocks {
		if lf.LoopOf(b) == l {
			blocks = append(blocks, b)
		}
	}
	run.blocks = blocks
	sort.SliceStable(blocks, func(i, j int) bool { return order[blocks[i]] < order[blocks[j]] })
	// The definitions of every word in the loop: the candidates' first
	// (numbered as candidates), then those of inner loops.
	run.startLoop()
	s.cands, s.always = run.cands[:0], run.always[:0]
	noteDefs := func(in *ori.Inst, cand int32) {
		if in.Op.Flags()&(ori.FStore|ori.FAtomic|ori.FCall) != 0 {
			s.memWrites = true
		}
		if in.Op == ori.OpCALL {
			s.hasCall = true
		}
		loopDstRegs(in, func(r ori.Reg) {
			for w := range loopWordSeq(r) {
				run.addDef(w, in, cand)
			}
		})
	}
	for _, b := range blocks {
		ok := len(l.Exiting) > 0 || b == l.Header
		for _, e := range l.Exiting {
			if !lf.Dom.Dominates(b, e) {
				ok = false
			}
		}
		for _, in := range b.Insts {
			noteDefs(in, int32(len(s.cands)))
			s.cands = append(s.cands, in)
			s.always = append(s.always, ok)
		}
	}
	for _, b := range l.Blocks {
		if lf.LoopOf(b) != l {
			for _, in := range b.Insts {
				noteDefs(in, -1)
			}
		}
	}
	run.cands, run.always = s.cands, s.always
	s.markExitSlice()
	run.inv = licmBools(run.inv, len(s.cands))
	s.inv = run.inv
	run.state = licmStates(run.state, len(s.cands))
	s.state = run.state
	for changed := true; changed; {
		changed = false
		for i, in := range s.cands {
			if !s.inv[i] && s.invariant(in, i) {
				s.inv[i] = true
				changed = true
			}
		}
	}
	s.keepSplitTuples(c)
	marked := 0
	for _, v := range s.inv {
		if v {
			marked++
		}
	}
	if marked == 0 {
		// Nothing to hoist: the pressure below (a walk of every block of
		// l and its inner loops) would be measured for nothing. Most
		// loops of the later LICM phases end here.
		return 0, false
	}
	// Hoist in order, skipping instructions whose in-loop sources stayed
	// and those whose results do not fit the register budget.
	press := newLICMPressure(c, l, lv.sets(), extra, run, s.cands, s.inv)
	var pre *ori.Block
	run.hoisted = licmBools(run.hoisted, len(s.cands))
	hoisted := run.hoisted
	moved := run.moved[:0]
	defer func() { run.moved = moved }()
	for i, in := range s.cands {
		if !s.inv[i] {
			continue
		}
		if budget > 0 && len(moved) >= budget {
			break
		}
		if !s.sourcesHoisted(in, hoisted) {
			continue
		}
		if !press.admit(in, i) {
			continue
		}
		if !c.Sites.Allow(f, in.ID, "hoist a loop-invariant instruction") {
			continue
		}
		if pre == nil {
			if pre = l.Preheader(); pre == nil {
				if pre = loopInsertPreheader(f, l, nil); pre == nil {
					return 0, false // loopCanHavePreheader said yes; nothing was moved
				}
				inserted = true
			}
		}
		hoisted[i] = true
		moved = append(moved, in)
	}
	if len(moved) == 0 {
		return 0, false
	}
	// The candidates are the blocks' instructions in order (inserting a
	// preheader rewrites the header's phis in place, it does not add or
	// remove instructions of l).
	k := 0
	for _, b := range blocks {
		kept := b.Insts[:0]
		for _, in := range b.Insts {
			if !hoisted[k] {
				kept = append(kept, in)
			}
			k++
		}
		for i := len(kept); i < len(b.Insts); i++ {
			b.Insts[i] = nil
		}
		b.Insts = kept
		delete(run.peaks, b)
	}
	loopAppend(pre, moved...)
	delete(run.peaks, pre)
	press.commit(l, pre, extra)
	return len(moved), inserted
}

// loopAppend adds instructions at the end of b, before its terminator if
// it has one.
func loopAppend(b *ori.Block, ins ...*ori.Inst) {
	at := len(b.Insts)
	if at > 0 && b.Insts[at-1].EndsBlock() {
		at--
	}
	tail := append([]*ori.Inst(nil), b.Insts[at:]...)
	b.Insts = append(append(b.Insts[:at], ins...), tail...)
}

// licmState is what the marking knows of a candidate besides whether it
// is marked: everything invariant asks but the sources' marks depends
// only on the loop, which does not change while it is marked.
type licmState uint8

const (
	licmUnknown licmState = iota // not asked yet
	licmFixed                    // the loop-only conditions hold
	licmLiveOK                   // and no result is live into the header
	licmNo                       // can never be marked in this visit
)

// invariant reports whether in (candidate i) computes the same results in
// every iteration and may be computed once before the loop.
//
// The marking asks again about every unmarked candidate until nothing
// changes, but only the marks of its sources can change between two
// questions; the rest of the answer is kept in s.state. The liveness
// question, the costliest (a search from the header, or the whole
// function's liveness once the searches' budget is spent), is asked
// last, once the sources are marked, and at most once per candidate.
func (s *licmLoop) invariant(in *ori.Inst, i int) bool {
	switch s.state[i] {
	case licmNo:
		return false
	case licmUnknown:
		if !s.fixedInvariant(in, i) {
			s.state[i] = licmNo
			return false
		}
		s.state[i] = licmFixed
	}
	if !s.sourcesInvariant(in, i) {
		return false
	}
	if s.state[i] == licmFixed {
		for _, o := range in.Dsts {
			if r := o.Reg; !r.IsZero() && s.lv.liveIn(s.l.Header, r) {
				s.state[i] = licmNo
				return false
			}
		}
		s.state[i] = licmLiveOK
	}
	return true
}

// fixedInvariant reports whether candidate i meets the conditions of
// invariant that do not depend on the marks or the liveness: a pure
// opcode or an allowed load, and register results that are virtual and
// written by no other instruction of the loop.
func (s *licmLoop) fixedInvariant(in *ori.Inst, i int) bool {
	run := s.run
	switch licmClassifyLoad(in) {
	case licmNotLoad:
		if !licmPureOp(in) {
			return false
		}
		// Constant-bank operands never fault; memory operands only
		// appear on loads and stores.
		for _, o := range in.Srcs {
			if o.Kind == ori.OpdMem {
				return false
			}
		}
	case licmConstBank:
	case licmReadOnly:
		if !s.always[i] {
			return false
		}
	case licmPrivate:
		if !s.always[i] || s.memWrites {
			return false
		}
	case licmShared:
		if !s.always[i] || s.memWrites {
			return false
		}
		for _, o := range in.Dsts {
			if o.Kind != ori.OpdReg {
				continue
			}
			for w := range loopWordSeq(o.Reg) {
				if id, ok := run.words.get(w); ok && run.exit[id] == run.gen {
					return false
				}
			}
		}
	default:
		return false
	}
	if len(in.Dsts) == 0 {
		return false
	}
	useful := false
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg {
			return false
		}
		r := o.Reg
		if r.IsZero() {
			continue
		}
		if !r.Virtual {
			return false
		}
		useful = true
		for w := range loopWordSeq(r) {
			if n, _, _ := run.defs(w); n != 1 {
				return false
			}
		}
	}
	return useful
}

// sourcesInvariant reports whether every register candidate i reads is
// written nowhere in the loop, or only by one marked candidate.
func (s *licmLoop) sourcesInvariant(in *ori.Inst, i int) bool {
	run := s.run
	ok := true
	loopSrcRegs(in, func(r ori.Reg) {
		if !ok || r.IsZero() {
			return
		}
		if !r.Virtual {
			ok = run.physInvariant(r, s.hasCall)
			return
		}
		for w := range loopWordSeq(r) {
			switch n, _, d := run.defs(w); n {
			case 0:
			case 1:
				if d == int32(i) || d < 0 || !s.inv[d] {
					ok = false
				}
			default:
				ok = false
			}
		}
	})
	return ok
}

// sourcesHoisted reports whether every in-loop definition in reads has
// been hoisted (hoisted is indexed by candidate).
func (s *licmLoop) sourcesHoisted(in *ori.Inst, hoisted []bool) bool {
	ok := true
	loopSrcRegs(in, func(r ori.Reg) {
		if !r.Virtual {
			return
		}
		for w := range loopWordSeq(r) {
			// A word with several writers has no hoisted one: a hoisted
			// instruction is the only writer of its words.
			if n, _, d := s.run.defs(w); n > 0 && (n > 1 || d < 0 || !hoisted[d]) {
				ok = false
			}
		}
	})
	return ok
}

// markExitSlice marks (run.exit) the register words that feed, through
// instructions of the loop, the condition of a control transfer that can
// leave it. Every writer of a word in the slice contributes its sources;
// the slice is a closure, whatever order the writers are visited in.
func (s *licmLoop) markExitSlice() {
	run := s.run
	var work []int32
	add := func(r ori.Reg) {
		for w := range loopWordSeq(r) {
			id := run.id(w)
			if run.exit[id] != run.gen {
				run.exit[id] = run.gen
				work = append(work, id)
			}
		}
	}
	for _, b := range s.l.Exiting {
		for _, in := range b.Insts {
			if in.EndsBlock() {
				loopSrcRegs(in, add)
			}
		}
	}
	for len(work) > 0 {
		id := work[len(work)-1]
		work = work[:len(work)-1]
		if run.stamp[id] != run.gen {
			continue // not written in the loop
		}
		for i := run.head[id]; i != 0; i = run.writers[i-1].next {
			loopSrcRegs(run.writers[i-1].in, add)
		}
	}
}

// loopRPO numbers the blocks of f in reverse postorder of a depth-first
// walk from the entry; unreachable blocks come last, in layout order.
func loopRPO(f *ori.Func) map[*ori.Block]int {
	order := map[*ori.Block]int{}
	if len(f.Blocks) == 0 {
		return order
	}
	var post []*ori.Block
	seen := map[*ori.Block]bool{f.Blocks[0]: true}
	type frame struct {
		b *ori.Block
		i int
	}
	stack := []frame{{f.Blocks[0], 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i < len(top.b.Succs) {
			n := top.b.Succs[top.i]
			top.i++
			if !seen[n] {
				seen[n] = true
				stack = append(stack, frame{n, 0})
			}
			continue
		}
		post = append(post, top.b)
		stack = stack[:len(stack)-1]
	}
	for i, b := range post {
		order[b] = len(post) - 1 - i
	}
	n := len(post)
	for _, b := range f.Blocks {
		if _, ok := order[b]; !ok {
			order[b] = n
			n++
		}
	}
	return order
}
