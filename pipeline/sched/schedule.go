package sched

// The list scheduler: ScheduleInstructions before register allocation and
// PostSchedule after it.
//
// # Algorithm
//
// ptxas's engine (ScheduleEngine, 001:22149-22193) is a classic list
// scheduler run once per pass, each pass a mode: for every basic block it
// builds the ready list (instructions whose predecessors in the dependency
// DAG are all placed), repeatedly takes the best ready instruction by the
// mode's priority (priority.go), places it, and makes its successors ready
// when their last predecessor is placed. orilab follows it:
//
//  1. A block's leading MOV.PHIs stay where they are (they are defined at
//     the top of the block) and the rest is cut into regions of at most
//     4095 instructions, ptxas's BB limit (001:22745); regions keep their
//     order.
//  2. For each region, buildDAG gives the edges and heights (dag.go).
//  3. The loop keeps a cycle counter: a candidate's earliest issue cycle is
//     the latest of its producers' issue cycles plus edge latency and the
//     cycle its pipe is free again (Latency(...).Issue). Placing an
//     instruction issues it at that cycle (or now, if later) and advances
//     now by one: one instruction per cycle, as on Volta and later.
//  4. Pressure (pressure.go) and batch state (dynbatch.go) follow each
//     placement.
//
// The DAG holds every register, memory and ordering constraint, so any
// order the loop produces computes what the input computed: it is a
// topological order of the DAG. Instruction IDs never change.
//
// # Passes
//
// Mode 0 (ModeAuto) chooses like ptxas's orchestrator (001:21294-21336):
// before allocation, ReduceReg when ScheduleInstructionsReduceReg is on and
// the level is -O3 or higher, then ILP (always), then DynBatch when
// ScheduleInstructionsDynBatch is on; after allocation, ILP alone (the
// post-scheduling pass hides latency; the register count is fixed).
// Decision: 002:330-350 lists the engine's calls as ReduceReg, DynBatch,
// ILP; orilab follows the orchestrator's pseudocode, which both seeds give
// (001:21294, 002:40) and whose phase numbers agree with it. The
// ScheduleInstructions knob off, or -O0 in ModeAuto, leaves the code as it
// is. Decision: ptxas runs ScheduleInstructions at every level; orilab
// keeps -O0 in source order so -O0 stays the debuggable baseline that
// bisection compares against. An explicit Mode runs that one pass at any
// level.
//
// # Example
//
// Four load-increment-store sequences off one pointer (sm_75, virtual
// registers; the loads and stores use disjoint offsets, so loads may rise
// above stores):
//
//	input                         ILP                           DynBatch, batches of 2
//	#3 LDG %r2 = [%r1.64]         #3 LDG %r2 = [%r1.64]         #3 LDG %r2
//	#4 IADD3 %r3 = %r2, 0x1       #6 LDG %r4 = [%r1.64+0x4]     #6 LDG %r4
//	#5 STG [%r1.64], %r3          #9 LDG %r6 = [%r1.64+0x8]     #4 IADD3 %r3 = %r2, 0x1
//	#6 LDG %r4 = [%r1.64+0x4]     #12 LDG %r8 = [%r1.64+0xc]    #9 LDG %r6
//	...                           #4 IADD3 %r3 = %r2, 0x1       #12 LDG %r8
//	                              #5 STG [%r1.64], %r3          ...
//
// The model puts the input at 173 cycles, ILP at 77 (the four loads'
// latencies overlap) with 6 live registers instead of 3, DynBatch at 103.
// ReduceReg keeps the input, which already holds one loaded value at a
// time. With SchedMaxRTarget=8 (a budget of 5), ILP holds the fourth load
// back until a value dies (TestModes).
//
// # Limits
//
// No cross-block motion (ptxas's SchedCrossBlock family), no backtracking
// or software pipelining (002:653-838), and no dual issue (an sm_50
// feature).

import (
	"fmt"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// Mode selects the scheduler's objective.
type Mode uint8

const (
	ModeAuto      Mode = iota // choose the passes as ptxas does
	ModeReduceReg             // minimize register pressure (mode byte 0x39)
	ModeILP                   // hide latency, maximize parallelism (0x49)
	ModeDynBatch              // batch long-latency loads (0x41)
)

var modeNames = [...]string{"auto", "ReduceReg", "ILP", "DynBatch"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode%d", int(m))
}

// MarshalText writes the mode's name (JSON reports show "ILP", not 2).
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode name (ParseMode).
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	*m = v
	return err
}

// ParseMode reads a mode name as String prints it, ignoring case.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if strings.EqualFold(s, n) {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown scheduling mode %q (want auto, ReduceReg, ILP or DynBatch)", s)
}

// Options configures one Schedule call.
type Options struct {
	Arch     int  // SM number: 75 for sm_75
	OptLevel int  // 0-4
	PostRA   bool // physical registers: the PostSchedule phase
	Mode     Mode // 0: choose as ptxas does
	// NoMeasure leaves the Stats' cycle and pressure figures zero: the
	// compile pipeline discards them, and measuring them rebuilds every
	// block's dependence graph twice (a third of Schedule's time).
	NoMeasure bool
	// Knobs holds the knob values; nil means every knob at its default.
	Knobs *knobs.Set
}

// Stats describes what a Schedule call did; everything but Passes is zero
// when no pass ran.
type Stats struct {
	Passes []Mode `json:"passes"` // the passes that ran, in order; empty when none did
	Blocks int    `json:"blocks"` // blocks with at least two instructions to order
	Insts  int    `json:"insts"`  // instructions in those blocks
	Moved  int    `json:"moved"`  // instructions whose position in their block changed
	// CyclesBefore and CyclesAfter are the modelled issue cycles of all
	// blocks, each run once in order with the latency model's delays.
	CyclesBefore int `json:"cycles_before"`
	CyclesAfter  int `json:"cycles_after"`
	// PressureBefore and PressureAfter are the largest numbers of virtual
	// R-register words live at once in any block (before allocation; 0
	// after it, when the order no longer changes the register count).
	PressureBefore int `json:"pressure_before"`
	PressureAfter  int `json:"pressure_after"`
}

// maxRegion is ptxas's basic-block limit (sub_8CBAD0 splits larger blocks).
const maxRegion = 4095

// Schedule reorders the instructions of every block of f. It changes only
// the order within blocks, never what f computes.
func Schedule(f *ori.Func, opts Options) (*Stats, error) {
	if err := f.ComputeCFG(); err != nil {
		return nil, fmt.Errorf("sched: %w", err)
	}
	if opts.PostRA {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if hasVirtual(in) {
					return nil, fmt.Errorf("sched: %s BB%d #%d: virtual register in %s after register allocation", f.Name, b.ID, in.ID, in.Name())
				}
			}
		}
	}
	p := readParams(opts.Knobs, f.Name)
	st := &Stats{Passes: plan(opts, p)}
	if len(st.Passes) == 0 {
		return st, nil
	}
	// Every region's DAG and list state live in sc, kept between calls
	// (scratches) so that the next function (or the post-allocation
	// call) finds tables already grown to a function's size rather than
	// growing its own; so do the function-wide tables below.
	sc := scratches.get()
	defer scratches.put(sc, f.NumInsts())
	// Reordering within blocks keeps every block's live-out set, so one
	// liveness computation serves all passes.
	var live []liveSet // per block, in f.Blocks order; nil after allocation
	if !opts.PostRA {
		ls := ori.Liveness(f)
		live = resized(sc.live, len(f.Blocks))
		sc.live = live
		words := sc.regs // a block's live-out words, in any order, each once
		// One array holds every block's list (lists made before it grew
		// keep the earlier array, which holds the same words).
		all := sc.liveWords[:0]
		for i, b := range f.Blocks {
			words = ls.AppendLiveOutWords(words[:0], b)
			start := len(all)
			for _, r := range words {
				all = append(all, word{n: r.N<<2 | int32(r.Off), class: r.Class, virt: true})
				live[i].count[r.Class]++
			}
			live[i].words = all[start:len(all):len(all)]
		}
		sc.regs, sc.liveWords = words, all
	}
	if !opts.NoMeasure {
		st.CyclesBefore, st.PressureBefore = measure(f, opts.Arch, live)
	}
	// The instruction IDs in their input order, block after block (the
	// passes reorder within blocks only), for Stats.Moved.
	before := sc.before[:0]
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			before = append(before, in.ID)
		}
	}
	sc.before = before
	reduced := false // a ReduceReg pass has run
	// Each instruction's latency and operand words, computed once for all
	// passes (the DAG builder took a third of its time computing them
	// again in every pass), in block order; each region's entries are
	// reordered with its instructions (scheduleBlock).
	info, uses := sized(sc.info, f.NumInsts()), sized(sc.uses, f.NumInsts()) // all set below
	sc.info, sc.uses = info, uses
	sc.words = sc.words[:0]
	var top [ori.NumClasses]int32 // one past the largest virtual word number, per class
	k := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			info[k], uses[k] = Latency(opts.Arch, in), usesInto(in, &sc.words)
			if uses[k].hasVir {
				for _, ws := range [3][]word{uses[k].guard, uses[k].srcs, uses[k].dsts} {
					for _, w := range ws {
						if w.virt && w.class < ori.NumClasses {
							top[w.class] = max(top[w.class], w.n+1)
						}
					}
				}
			}
			k++
		}
	}
	// The word tables sized for the function once: grown by doubling
	// region by region, they were a tenth of the scheduler's allocation.
	for c, n := range top {
		sc.dag.ids.reserve(ori.RegClass(c), n)
		sc.tabs[0].reserve(ori.RegClass(c), n)
		sc.tabs[1].reserve(ori.RegClass(c), (n+3)>>2) // registers: N, not N<<2 | word
	}
	for _, m := range st.Passes {
		mp := p
		// After ReduceReg, the later passes keep each region's R pressure
		// within the peak ReduceReg left it (SchedKeepPressure). With the
		// whole register file as their limit, ILP started all
		// independent work at once: in binomialOptionsKernel it moved the
		// eleven f64 constant MOV pairs of a DFMA chain above the chain, 22
		// words live where the chain needs 2, and the kernel took 56
		// registers (ptxas 27). Capped at the function's peak instead of
		// the region's, every block could rise to that peak, and the
		// allocator needed more (needle_cuda_shared_1 46 -> 49).
		mp.capAtInput = reduced && p.keepPeak
		reduced = reduced || m == ModeReduceReg && live != nil
		k := 0
		for i, b := range f.Blocks {
			var out *liveSet
			if live != nil {
				out = &live[i]
			}
			n := len(b.Insts)
			scheduleBlock(b, info[k:k+n:k+n], uses[k:k+n:k+n], m, opts, mp, out, sc)
			k += n
		}
	}
	k = 0
	for _, b := range f.Blocks {
		if phiPrefix(b) <= len(b.Insts)-2 {
			st.Blocks++
			st.Insts += len(b.Insts)
		}
		for _, in := range b.Insts {
			if before[k] != in.ID {
				st.Moved++
			}
			k++
		}
	}
	if !opts.NoMeasure {
		st.CyclesAfter, st.PressureAfter = measure(f, opts.Arch, live)
	}
	return st, nil
}

// plan returns the passes Schedule runs.
func plan(opts Options, p params) []Mode {
	if !p.enabled {
		return nil
	}
	if opts.Mode != ModeAuto {
		return []Mode{opts.Mode}
	}
	if opts.OptLevel == 0 {
		return nil
	}
	if opts.PostRA {
		return []Mode{ModeILP}
	}
	var ps []Mode
	if opts.OptLevel >= 3 && p.reduceReg {
		ps = append(ps, ModeReduceReg)
	}
	ps = append(ps, ModeILP)
	if p.dynBatch {
		ps = append(ps, ModeDynBatch)
	}
	return ps
}

// phiPrefix returns the number of leading MOV.PHIs of b.
func phiPrefix(b *ori.Block) int {
	n := 0
	for n < len(b.Insts) && b.Insts[n].IsPhi() {
		n++
	}
	return n
}

// liveSet is a set of virtual words live out of a block or region: each
// word once, and how many there are of each class.
type liveSet struct {
	words []word
	count [ori.NumClasses]int
}

// scheduleBlock runs one pass over one block, building its regions' DAGs
// in sc. info and uses are the latencies and operand words of b.Insts,
// reordered here with them. liveOut holds the block's live-out virtual
// words; nil after allocation.
func scheduleBlock(b *ori.Block, info []Info, uses []use, m Mode, opts Options, p params, liveOut *liveSet, sc *regionScratch) {
	start := phiPrefix(b)
	if len(b.Insts)-start < 2 {
		return
	}
	body := b.Insts[start:]
	info, uses = info[start:], uses[start:]
	for lo := 0; lo < len(body); lo += maxRegion {
		hi := min(lo+maxRegion, len(body))
		out := liveOut
		if liveOut != nil && hi < len(body) {
			// Words the rest of the block reads are live out of the region.
			seen := make(map[word]bool, len(liveOut.words))
			out = &liveSet{}
			note := func(w word) {
				if !seen[w] {
					seen[w] = true
					out.words = append(out.words, w)
					out.count[w.class]++
				}
			}
			for _, w := range liveOut.words {
				note(w)
			}
			for _, in := range body[hi:] {
				u := usesOf(in)
				for _, ws := range [2][]word{u.guard, u.srcs} {
					for _, w := range ws {
						if w.virt {
							note(w)
						}
					}
				}
			}
		}
		res, order := scheduleRegion(body[lo:hi], info[lo:hi], uses[lo:hi], m, opts, p, out, sc)
		copy(body[lo:hi], res)
		if order != nil {
			sc.infoTmp = append(sc.infoTmp[:0], info[lo:hi]...)
			sc.usesTmp = append(sc.usesTmp[:0], uses[lo:hi]...)
			for k, i := range order {
				info[lo+k], uses[lo+k] = sc.infoTmp[i], sc.usesTmp[i]
			}
		}
	}
}

// scratches holds regionScratch values between Schedule calls (which
// run in parallel, one per function).
var scratches kept[regionScratch]

// regionScratch is the working memory scheduleRegion reuses from region
// to region within one Schedule call: the DAG's tables, the list state's,
// the pressure tracker's start state, the two forks of it a region has
// at once (the list state's, and the input order's it is compared with),
// and the tracker's indices.
type regionScratch struct {
	dag   dagScratch
	list  listState
	base  pressure
	forks [2]pressure
	tabs  [2]wordTable // the pressure tracker's word and register indices
	// info and uses hold the latency and operand words of every
	// instruction of the function in block order (words backs the
	// uses' lists), infoTmp and usesTmp a region's while it is reordered.
	info    []Info
	uses    []use
	words   []word
	infoTmp []Info
	usesTmp []use
	// Schedule's function-wide tables: the blocks' live-out sets, the
	// array their lists share, a block's live-out registers while they
	// are gathered, and the instruction IDs in input order.
	live      []liveSet
	liveWords []word
	regs      []ori.Reg
	before    []int32
}

// forget drops sc's pointers into the function it served (kept.go).
func (sc *regionScratch) forget() {
	sc.dag.d.insts = nil
	sc.list.d = nil
	clear(sc.list.outBuf[:cap(sc.list.outBuf)])
	sc.list.outBuf = sc.list.outBuf[:0]
}

// scheduleRegion returns the region's instructions in scheduled order,
// working in sc, and the order as indices into insts (nil: insts as they
// are); both are valid until the next region. info and uses are the
// instructions' latencies and operand words. liveOut is nil after
// register allocation (no pressure tracking).
func scheduleRegion(insts []*ori.Inst, info []Info, uses []use, m Mode, opts Options, p params, liveOut *liveSet, sc *regionScratch) ([]*ori.Inst, []int32) {
	d := sc.dag.build(insts, opts.Arch, p.floatCalls, info, uses)
	// The tracker's start state depends only on the region and liveOut:
	// built once, then forked for each use.
	var base *pressure
	if liveOut != nil {
		base = newPressure(d, liveOut, p.budgetR, p.argPressure, &sc.tabs, &sc.base)
	}
	var in *pressure // the input order's tracker, when a capped pass fell back
	if p.capAtInput && liveOut != nil {
		in = base.forkInto(&sc.forks[1], p.budgetR)
		for i := range d.insts {
			in.commit(int32(i))
		}
		capped := p
		capped.budgetR = min(p.budgetR, max(1, in.peak))
		ls := newListState(d, m, capped, base, sc)
		out := ls.run()
		// Holding R values back can leave more predicates live at once
		// (cp_async_srcsize: 24 guarded loads whose predicates were all
		// computed first, and the P class spilled into R registers, 31
		// instructions more). Where the capped order needs more P
		// registers than the P file has (P0-P6) and than the input
		// order, schedule without the cap.
		if ls.pr.peakP <= max(in.peakP, ori.ClassP.Limit()) {
			// The cap is a preference: when every ready instruction
			// would go over it, the cascade still places one, and a
			// region can end far above its cap. In bicubicTexture's
			// d_renderBicubic (sixteen texture fetches and their
			// weights), ILP met the cap of 29 words with twenty ready
			// instructions each adding a word, and ended at 37: 38
			// registers where the input order takes 29 (ptxas 32).
			// In simpleTexture's transformKernel (cuda3.2) it issued
			// the five remaining LDCs of an unrolled reduction ahead of
			// the step in progress, 22 registers against 18. A pass
			// whose order goes more than one word above the peak it
			// was capped at keeps its input order instead, as
			// ReduceReg's evaluate-then-commit does
			// (SchedCapKeepInput). One word over is within what the
			// allocator absorbs: falling back there too gave dxtc's
			// compress 42 registers instead of 32 and a fuzz finding
			// (placeblocks-bar-sync-deadlock) 8 instead of 7, and
			// saved nothing in the kernels above.
			if p.keepInput && ls.pr.peak > in.peak+1 {
				return insts, nil
			}
			return out, ls.order
		}
	}
	ls := newListState(d, m, p, base, sc)
	out := ls.run()
	if in != nil && keepInputUncapped(p, in, ls.pr) {
		// capfallback.go: the uncapped order is no better than the input.
		return insts, nil
	}
	if m == ModeReduceReg && liveOut != nil {
		// Evaluate, then commit (the RBT backend's model, 001:22985): a
		// greedy pass can lose to the input order, and a pass whose
		// only goal is pressure must not raise it.
		if in := inputPeak(d, base.forkInto(&sc.forks[1], p.budgetR)); ls.pr.peak > in {
			return insts, nil
		}
	}
	return out, ls.order
}

// inputPeak returns the R pressure peak of the region in its input order,
// placing its nodes in pr (a fresh tracker).
func inputPeak(d *dag, pr *pressure) int {
	for i := range d.insts {
		pr.commit(int32(i))
	}
	return pr.peak
}

// listState is the scheduling loop's state for one region and one pass.
type listState struct {
	d        *dag
	m        Mode
	p        params
	pr       *pressure
	bs       *batchState
	npred    []int32 // unplaced predecessors
	rawDone  []int32 // placed RAW producers
	earliest []int32
	pipeFree [NumPipes]int32
	now      int32
	ready    []int32
	placed   []bool
	stamp    []int32 // markFeeds: stamp[n] == visit marks n as feeding a started computation
	visit    int32
	// started lists the nodes with a placed RAW producer, in the order
	// they got their first; placed ones are dropped by markFeeds.
	started  []int32
	frontier []int32
	next     []int32
	// outBuf and candBuf are run's result and candidate lists, kept for
	// the next region when the state is reused; order is the result as
	// node numbers.
	outBuf  []*ori.Inst
	candBuf []cand
	order   []int32
}

// base is the region's pressure tracker in its start state (nil after
// allocation: no tracking); the list state works on a fork of it. With
// sc, the state is sc.list, its tables and tracker reused (a previous
// state in sc ends here), and the tracker sc.forks[0].
func newListState(d *dag, m Mode, p params, base *pressure, sc *regionScratch) *listState {
	n := len(d.insts)
	var ls *listState
	var pr *pressure
	if sc != nil {
		ls, pr = &sc.list, &sc.forks[0]
		if base == nil {
			*pr = pressure{}
		}
	} else {
		// Allocated only here: made unconditionally, both escaped (to
		// the heap) on every call, scratch or not.
		ls, pr = &listState{}, &pressure{}
	}
	old := *ls
	*ls = listState{d: d, m: m, p: p, pr: pr, npred: append(old.npred[:0], d.npred...),
		rawDone: resized(old.rawDone, n), earliest: resized(old.earliest, n), placed: resized(old.placed, n), stamp: resized(old.stamp, n),
		ready: old.ready[:0], started: old.started[:0], frontier: old.frontier[:0], next: old.next[:0], outBuf: old.outBuf, candBuf: old.candBuf, order: old.order[:0]}
	if base != nil {
		ls.pr = base.forkInto(pr, p.budgetR)
	}
	if m == ModeDynBatch {
		ls.bs = newBatch(d, p.batchDepth)
	}
	for i := int32(0); i < int32(n); i++ {
		if ls.npred[i] == 0 {
			ls.ready = append(ls.ready, i)
		}
	}
	return ls
}

// run places every node and returns the instructions in placement order.
func (ls *listState) run() []*ori.Inst {
	d := ls.d
	out := ls.outBuf[:0]
	if cap(out) < len(d.insts) {
		out = make([]*ori.Inst, 0, len(d.insts))
	}
	cands := ls.candBuf[:0]
	if cap(cands) < len(d.insts) {
		cands = make([]cand, 0, len(d.insts))
	}
	if cap(ls.order) < len(d.insts) {
		ls.order = make([]int32, 0, len(d.insts))
	}
	ls.outBuf, ls.candBuf = out, cands
	for len(ls.ready) > 0 {
		cands = cands[:0]
		if ls.m == ModeReduceReg {
			ls.markFeeds()
		}
		var maxH int32 = -1
		for _, i := range ls.ready {
			c := cand{i: i, height: d.height[i], position: i, target: d.waits[i]}
			c.at = max(ls.earliest[i], ls.pipeFree[d.info[i].Pipe])
			c.sf = c.at <= ls.now
			if c.sf {
				maxH = max(maxH, c.height)
			}
			c.delta = ls.pr.delta(i)
			c.over = ls.pr.overflow(c.delta)
			if ls.bs != nil {
				c.batch = ls.bs.member(d, i)
			}
			if ls.m == ModeReduceReg {
				c.feeds = ls.stamp[i] == ls.visit
				for _, e := range d.succ[i] {
					if e.kind&depRAW != 0 && ls.npred[e.to] == 1 {
						c.unlock++
					}
				}
			}
			cands = append(cands, c)
		}
		best := 0
		for k := range cands {
			c := &cands[k]
			in := d.insts[c.i]
			c.hot = c.sf && hotLoad(in)
			c.crit = c.sf && c.height+ls.p.readAvail >= maxH
			c.long = c.sf && d.info[c.i].LongLatency() && !coldMem(in)
			if k > 0 && better(ls.m, c, &cands[best]) {
				best = k
			}
		}
		ls.ready[best] = ls.ready[len(ls.ready)-1]
		ls.ready = ls.ready[:len(ls.ready)-1]
		ls.place(cands[best])
		out = append(out, d.insts[cands[best].i])
		ls.order = append(ls.order, cands[best].i)
	}
	return out
}

// place issues candidate c and releases its successors.
func (ls *listState) place(c cand) {
	d, i := ls.d, c.i
	at := max(ls.now, c.at)
	ls.now = at + 1
	info := d.info[i]
	ls.pipeFree[info.Pipe] = at + int32(max(1, info.Issue))
	ls.pr.commit(int32(i))
	if ls.bs != nil {
		ls.bs.commit(d, i)
	}
	ls.placed[i] = true
	for _, e := range d.succ[i] {
		ls.earliest[e.to] = max(ls.earliest[e.to], at+e.lat)
		if e.kind&depRAW != 0 {
			if ls.rawDone[e.to]++; ls.rawDone[e.to] == 1 {
				ls.started = append(ls.started, e.to)
			}
		}
		if ls.npred[e.to]--; ls.npred[e.to] == 0 {
			ls.ready = append(ls.ready, e.to)
		}
	}
}

// feedsDepth bounds how far back markFeeds looks.
const feedsDepth = 8

// markFeeds marks the ready nodes whose results lead, within feedsDepth
// RAW edges, to an unplaced instruction that already has a placed
// producer: a computation that has started and holds registers until it
// completes. Finishing started computations before opening new ones is
// the depth-first order ptxas keeps for deep dependency chains
// (DepthFirstSchedule, 002:707). It is a backward search from every
// started instruction, one per placement, level by level, so the nodes it
// marks are those within feedsDepth edges of a started one whatever the
// order it starts from: the started list, kept by place, instead of a
// scan over every node of the region at every placement.
func (ls *listState) markFeeds() {
	ls.visit++
	ls.frontier = ls.frontier[:0]
	k := 0
	for _, n := range ls.started {
		if !ls.placed[n] {
			ls.started[k] = n
			k++
			ls.frontier = append(ls.frontier, n)
		}
	}
	ls.started = ls.started[:k]
	for depth := 0; depth < feedsDepth && len(ls.frontier) > 0; depth++ {
		next := ls.next[:0]
		for _, n := range ls.frontier {
			for _, p := range ls.d.rawPreds[n] {
				if !ls.placed[p] && ls.stamp[p] != ls.visit {
					ls.stamp[p] = ls.visit
					next = append(next, p)
				}
			}
		}
		ls.frontier, ls.next = next, ls.frontier
	}
}

// measure returns the issue cycles of f's blocks in their current order
// under the latency model (each block run once, one instruction per cycle
// at the earliest, waiting for its producers' latencies and its pipe), and
// the peak virtual R pressure (when live is set: before allocation).
func measure(f *ori.Func, arch int, live []liveSet) (cycles, peak int) {
	for bi, b := range f.Blocks {
		insts := b.Insts[phiPrefix(b):]
		if len(insts) == 0 {
			continue
		}
		d := buildDAG(insts, arch, false)
		earliest := make([]int32, len(insts))
		var pipeFree [NumPipes]int32
		now := int32(0)
		for i := range insts {
			info := d.info[i]
			at := max(now, earliest[i], pipeFree[info.Pipe])
			now = at + 1
			pipeFree[info.Pipe] = at + int32(max(1, info.Issue))
			for _, e := range d.succ[i] {
				earliest[e.to] = max(earliest[e.to], at+e.lat)
			}
		}
		cycles += int(now)
		if live != nil {
			pr := newPressure(d, &live[bi], 0, false, nil, nil)
			for i := range insts {
				pr.commit(int32(i))
			}
			peak = max(peak, pr.peak)
		}
	}
	return cycles, peak
}
