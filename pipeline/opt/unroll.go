package opt

// OriLoopUnrolling (ptxas phase 22; orilab index 23): full and partial
// unrolling of counted loops, after the wiki's "Loop Passes" page, Phase
// 22 (001:12055-12335: entry guard, knob defaults, decision flowchart,
// rejection codes).
//
// Which loops. Innermost natural loops only (the wiki's non-innermost
// filter, rejection 7), visited innermost first in layout order, whose
// trip count is provably known at compile time. The loop must have the
// shape the lowering produces from clang and nvcc PTX:
//   - one latch, and one exiting block E whose terminator is a guarded BRA
//     with one successor inside the loop and one outside; E dominates the
//     latch, so it runs once per iteration. E may be the latch (a
//     bottom-tested loop, "@%p BRA header") or the header (clang's
//     "@%p BRA exit; BRA header" shape);
//   - the exiting block is the latch (a bottom-tested loop), unless the
//     knob UnrollHeaderExitLoops is set. Decision: ptxas's Step C takes
//     the latch's last instruction as the exit and rejects the loop with
//     code 13 when it is not a conditional branch; ptxas 13.0.88 -O3
//     leaves clang's header-exit loops rolled (loop_sum8, 8 iterations;
//     loop_nested's inner loop, 4; the same 4-iteration loop alone) and
//     unrolls the same loop written bottom-tested (4 LDGs). Rolled, the
//     inner loop of loop_nested takes 10 registers, unrolled 14;
//   - the loop's blocks are contiguous in the layout, header first;
//   - the branch guard is the only result of an unguarded
//     "ISETP.<cmp>[.U32].AND p, q = a, b, PT" of the loop, one of a, b an
//     immediate bound and the other a word iv of a virtual register;
//   - iv is written in the loop only by an unguarded IADD3 iv = iv, c1, c2
//     with immediate (or RZ) c1, c2, whose block dominates the latch;
//   - the value iv has on entry comes from an unguarded MOV iv = imm found
//     by walking back from the single entering block through blocks with
//     one predecessor.
// The trip count is then computed by running the recurrence exactly as the
// hardware would (32-bit wraparound, signed or unsigned compare, the
// compare before or after the increment in the iteration, the branch
// taken on p or on q, inverted or not): N is the number of times the
// header runs, the exit being taken in run N. Loops whose count exceeds
// 65536 are not unrolled.
//
// Loops whose header carries PTX's .pragma "nounroll" (ori.Block.NoUnroll,
// set by the lowering) are rejected with code 11, as the wiki says ptxas
// does (001:12323).
//
// Rejected bodies (rejection 11, the wiki's convergence constraint): a
// BAR, MEMBAR, WARPSYNC, BSSY/BSYNC, warp collective, CALL, BRX, EXIT, RET
// or BPT anywhere in the loop, and functions in partial-SSA form (MOV.PHI;
// the phase runs before GenerateMovPhi).
//
// Factor (Step K of the flowchart, with orilab's budget model; body is the
// number of loop instructions other than BRA):
//   - full unroll when N*body <= UnrollFullInstLimit (default 200);
//   - otherwise a partial unroll by the largest U >= 2 with
//     (U + N mod U) * body <= UnrollBudget (default 140), which counts the
//     N mod U peeled iterations too;
//   - LoopUnrollFactor > 0 overrides the heuristic (Step L): U = the knob,
//     full when U >= N, none when U == 1.
// Otherwise rejection 12 (no factor >= 2 fits the budget).
//
// Full unroll. The loop becomes N copies of its blocks in a row; copy 0
// is the original blocks (instructions keep their IDs), the others are
// clones with fresh IDs. In copies 0..N-2 the exit branch is resolved to
// "stay" (deleted, or made unconditional toward the in-loop successor)
// and the back edge goes to the next copy's header; in copy N-1 the exit
// is made unconditional. Blocks this leaves unreachable are deleted, a
// BRA to the next block is deleted, and a block that only falls into a
// successor with no other predecessor is merged with it. Example (clang's
// shape, 2 iterations):
//
//	BB1: IADD3 %r2 = %r2, 0x1, RZ          BB1: IADD3 %r2 = %r2, 0x1, RZ
//	     ISETP.EQ.AND %p0, PT = %r2, 0x2        ISETP.EQ.AND %p0, PT = %r2, 0x2
//	     @%p0 BRA BB2                  ==>      IADD3 %r2 = %r2, 0x1, RZ
//	BB3: BRA BB1                                ISETP.EQ.AND %p0, PT = %r2, 0x2
//	BB2: ...                              BB2: ...
//
// Partial unroll by U with r = N mod U. r peeled copies (exit resolved
// to stay) come first, then U copies forming the new loop: copies 0..U-2
// stay, the last keeps the original conditional exit and branches back to
// the first. Because the peeled copies absorb the remainder, the exit can
// only be taken in the last copy: it happens at header run N-1, and
// N-1-r is a multiple of U minus one.
//
// Instructions are duplicated verbatim: without MOV.PHI every copy reads
// and writes the same virtual registers, which is exactly the sequential
// semantics of the iterations. The copies' dead compares and the
// increments of a now-constant counter are left to GeneralOptimize and
// dead-code elimination, which run later.
//
// Knobs: LoopUnroll (knob 437, default true) and LoopMakeSingleEntry
// (knob 487, the wiki's master loop-pass guard) switch the pass off;
// UnrollBudget, UnrollFullInstLimit and LoopUnrollFactor are read as
// described above.
//
// Known limits (Decisions): no runtime trip counts (the wiki's
// UnrollVariableBounds path needs a remainder loop), no unrolling of
// outer loops, and no register-pressure check (UnrollPregThreshold).
//
// Every decision, unrolled or rejected with its code, is reported as a
// remark (opt.Remark): "loop BB3 rejected, code 11: the PTX marks the
// loop .pragma "nounroll"".

import (
	"fmt"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	for _, k := range []knobs.Knob{
		{Name: "LoopUnroll", Type: knobs.TypeBool, Default: "true", Doc: "Master enable for loop unrolling (knob 437)."},
		{Name: "LoopUnrollFactor", Type: knobs.TypeInt, Default: "0", Bounds: knobs.AtLeast(0), Doc: "Override the unroll factor (0 = heuristic; 1 = never unroll; a factor at least the trip count unrolls fully)."},
		{Name: "UnrollBudget", Type: knobs.TypeInt, Default: "140", Bounds: knobs.AtLeast(0), Doc: "Maximum instruction count of a partially unrolled loop, peeled iterations included."},
		{Name: "UnrollHeaderExitLoops", Type: knobs.TypeBool, Doc: "Also unroll loops that exit from a block other than the latch (clang's \"@p BRA exit; BRA header\" shape), which ptxas leaves rolled."},
		{Name: "UnrollFullInstLimit", Type: knobs.TypeInt, Default: "200", Bounds: knobs.AtLeast(0), Doc: "Maximum instruction count of a fully unrolled loop (trip count times body size)."},
	} {
		k.Readers = []string{"OriLoopUnrolling", "OriStrengthReduce"}
		knobs.Default.Register(k)
	}
}

// LoopUnrolling is full and partial unrolling of innermost loops with a
// compile-time trip count (phase OriLoopUnrolling).
var LoopUnrolling = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		ds, err := unrollLoops(f, c)
		for _, d := range ds {
			if d.Code == 0 {
				return true, err
			}
		}
		return false, err
	},
}

// unrollMaxTrip bounds the trip count the analysis simulates.
const unrollMaxTrip = 1 << 16

// unrollDecision records what the pass did with one loop.
type unrollDecision struct {
	Header int32 // the loop header's block ID
	Trip   int   // header runs, 0 when unknown
	Body   int   // instructions other than BRA
	Factor int   // copies made: Trip for a full unroll, U for a partial one, 0 when rejected
	Full   bool
	Code   int    // the wiki's rejection code (0 when unrolled)
	Reason string // why not, when rejected
}

func (d unrollDecision) String() string {
	switch {
	case d.Code != 0:
		return fmt.Sprintf("BB%d: not unrolled (%d): %s", d.Header, d.Code, d.Reason)
	case d.Full:
		return fmt.Sprintf("BB%d: fully unrolled, %d iterations", d.Header, d.Trip)
	}
	return fmt.Sprintf("BB%d: unrolled by %d, %d iterations (%d peeled)", d.Header, d.Factor, d.Trip, d.Trip%d.Factor)
}

// remark is the decision as a remark: "loop BB3 rejected, code 11:
// the PTX marks the loop .pragma "nounroll"" or "loop BB3 fully
// unrolled, 4 iterations".
func (d unrollDecision) remark() Remark {
	r := Remark{Where: fmt.Sprintf("loop BB%d", d.Header), Code: d.Code, Message: d.Reason}
	switch {
	case d.Code != 0:
	case d.Full:
		r.Applied, r.Message = true, fmt.Sprintf("fully unrolled, %d iterations", d.Trip)
	default:
		r.Applied, r.Message = true, fmt.Sprintf("unrolled by %d, %d iterations (%d peeled)", d.Factor, d.Trip, d.Trip%d.Factor)
	}
	return r
}

// blockLine is the PTX line of b's first instruction that has one.
func blockLine(b *ori.Block) int32 {
	for _, in := range b.Insts {
		if in.Line != 0 {
			return in.Line
		}
	}
	return 0
}

// unrollLoop is the analysis of one candidate loop.
type unrollLoop struct {
	l      *Loop
	start  int          // layout index of the header
	blocks []*ori.Block // the loop's blocks in layout order (header first)
	exitBr *ori.Inst    // the terminator of the exiting block
	exitBB *ori.Block
	// exitTaken: the exit edge is the branch's target (else its
	// fall-through).
	exitTaken bool
	trip      int
	body      int
}

// unrollLoops unrolls the loops of f and reports a decision per loop.
func unrollLoops(f *ori.Func, c *Context) ([]unrollDecision, error) {
	if !c.Bool("LoopUnroll") || !c.Bool("LoopMakeSingleEntry") || loopHasPhi(f) {
		return nil, nil
	}
	var out []unrollDecision
	done := map[int32]bool{}
	var kept keptForest
	for {
		if err := f.ComputeCFG(); err != nil {
			return out, err
		}
		lf := kept.find(f)
		var l *Loop
		for _, x := range lf.InnerFirst() {
			if !done[x.Header.ID] {
				l = x
				break
			}
		}
		if l == nil {
			return out, nil
		}
		done[l.Header.ID] = true
		u, d := unrollAnalyze(f, lf, l)
		if d.Code == 0 {
			d = unrollChoose(c, u, d)
		}
		if d.Code == 0 {
			what := fmt.Sprintf("unroll a loop of %d iterations by %d", d.Trip, d.Factor)
			if d.Full {
				what = fmt.Sprintf("fully unroll a loop of %d iterations", d.Trip)
			}
			if !c.Sites.Allow(f, u.exitBr.ID, what) {
				d = unrollDecision{Header: d.Header, Trip: d.Trip, Body: d.Body, Code: 24, Reason: "site not enabled (BisectSites)"}
			} else if nh := unrollApply(f, u, d); nh != nil {
				done[nh.ID] = true // the partially unrolled loop is not visited again
			}
		}
		out = append(out, d)
		r := d.remark()
		r.Line = blockLine(l.Header)
		c.Remark(f, r)
	}
}

// unrollSize is the number of instructions in becomes once the
// operations the lowering keeps whole are expanded (pipeline/lower.
// Expand): 16 for a 32-bit IDIV, 56 for a 64-bit one (unsigned 32-bit
// and signed 64-bit; the other forms are a few fewer or more), 170 for
// DDIV (its fast path and exact slow path) and 52 for DSQRT. Loops run
// inside the 64-bit IDIV and DDIV expansions, but only their static size
// matters to the unroller's budgets. BRA counts 0.
func unrollSize(in *ori.Inst) int {
	switch in.Op {
	case ori.OpBRA:
		return 0
	case ori.OpIDIV:
		if in.HasMod("U64") || in.HasMod("S64") {
			return 56
		}
		return 16
	case ori.OpDDIV:
		return 170
	case ori.OpDSQRT:
		return 52
	}
	return 1
}

// unrollChoose picks the factor for an analysed loop.
func unrollChoose(c *Context, u *unrollLoop, d unrollDecision) unrollDecision {
	if latch := u.l.Latches[0]; u.exitBB != latch && !c.Bool("UnrollHeaderExitLoops") {
		d.Code, d.Reason = 13, fmt.Sprintf("the latch BB%d ends in an unconditional branch: the loop exits from BB%d, not from its latch", latch.ID, u.exitBB.ID)
		return d
	}
	n, body := u.trip, max(u.body, 1)
	if k := c.Int("LoopUnrollFactor"); k > 0 {
		switch {
		case k == 1:
			d.Code, d.Reason = 12, "LoopUnrollFactor=1"
		case k >= n:
			d.Factor, d.Full = n, true
		default:
			d.Factor = k
		}
		return d
	}
	if n*body <= c.Int("UnrollFullInstLimit") {
		d.Factor, d.Full = n, true
		return d
	}
	budget := c.Int("UnrollBudget")
	for k := min(budget/body, n-1); k >= 2; k-- {
		if (k+n%k)*body <= budget {
			d.Factor = k
			return d
		}
	}
	d.Code, d.Reason = 12, fmt.Sprintf("no factor >= 2 fits UnrollBudget=%d with a %d-instruction body and %d iterations", budget, body, n)
	return d
}

// unrollReject builds a rejection.
func unrollReject(l *Loop, code int, format string, args ...any) (*unrollLoop, unrollDecision) {
	return nil, unrollDecision{Header: l.Header.ID, Code: code, Reason: fmt.Sprintf(format, args...)}
}

// unrollAnalyze checks that l can be unrolled and computes its trip count.
func unrollAnalyze(f *ori.Func, lf *LoopForest, l *Loop) (*unrollLoop, unrollDecision) {
	if !l.Innermost() {
		return unrollReject(l, 7, "not an innermost loop")
	}
	if l.Header.NoUnroll {
		return unrollReject(l, 11, "the PTX marks the loop .pragma \"nounroll\"")
	}
	start := loopIndex(f, l.Header)
	if start <= 0 || start+len(l.Blocks) > len(f.Blocks) {
		return unrollReject(l, 17, "the header is the entry block")
	}
	blocks := f.Blocks[start : start+len(l.Blocks)]
	for _, b := range blocks {
		if !l.Contains(b) {
			return unrollReject(l, 17, "the loop's blocks are not contiguous in the layout")
		}
	}
	for _, b := range blocks {
		for _, in := range b.Insts {
			if in.Op.Flags()&(ori.FBarrier|ori.FWarp|ori.FCall|ori.FIndirect|ori.FExit|ori.FRet|ori.FPseudo) != 0 || in.Op == ori.OpBSSY || in.Op == ori.OpBPT || in.IsPhi() {
				return unrollReject(l, 11, "the body contains %s (#%d)", in.Name(), in.ID)
			}
		}
	}
	t, code, reason := loopTripCount(f, lf, l)
	if t == nil {
		return unrollReject(l, code, "%s", reason)
	}
	u := &unrollLoop{l: l, start: start, blocks: blocks, exitBr: t.Branch, exitBB: t.Exiting, exitTaken: t.ExitTaken, trip: t.Trip}
	for _, b := range blocks {
		for _, in := range b.Insts {
			// An operation kept whole becomes its expansion after the
			// optimizer (LateExpansionUnsupportedOps): count what it
			// will cost.
			u.body += unrollSize(in)
		}
	}
	return u, unrollDecision{Header: l.Header.ID, Body: u.body, Trip: u.trip}
}

// loopTrip is the trip-count analysis of a counted loop (see the file
// comment for the shape it recognizes).
type loopTrip struct {
	Branch  *ori.Inst  // the exit branch, the terminator of Exiting
	Exiting *ori.Block // the only exiting block; it dominates the latch
	// ExitTaken: the exit edge is the branch's target (else its
	// fall-through).
	ExitTaken bool
	Cmp       *ori.Inst // the ISETP writing the branch guard
	IV        ori.Reg   // the counter word the ISETP reads
	Inc       *ori.Inst // the only write of IV in the loop: IADD3 IV = IV, step
	Init      uint32    // IV's value on entry
	Step      uint32
	// Post: the compare sees IV after the increment of the same
	// iteration.
	Post bool
	// Trip is the number of times the header runs; the exit is taken in
	// the last run.
	Trip int
	// Values lists, in order, every value IV may hold inside the loop:
	// Init + j*Step for j = 0..Trip (the last one is reached only when
	// the increment runs in the exit iteration).
	Values []uint32
	// Test reports what the ISETP's result t (before the guard's
	// polarity is applied) is for a counter value v.
	Test func(v uint32) bool
}

// loopTripCount computes the trip count of l, or returns the wiki's
// rejection code and a reason.
func loopTripCount(f *ori.Func, lf *LoopForest, l *Loop) (*loopTrip, int, string) {
	reject := func(code int, format string, args ...any) (*loopTrip, int, string) {
		return nil, code, fmt.Sprintf(format, args...)
	}
	if len(l.Latches) != 1 || len(l.Exiting) != 1 {
		return reject(17, "%d latches and %d exiting blocks (need one of each)", len(l.Latches), len(l.Exiting))
	}
	latch, e := l.Latches[0], l.Exiting[0]
	if len(e.Insts) == 0 || len(e.Succs) != 2 || loopLeavesFunction(e) || !lf.Dom.Dominates(e, latch) {
		return reject(17, "the exiting block BB%d does not run once per iteration with two successors", e.ID)
	}
	br := e.Insts[len(e.Insts)-1]
	if br.Op != ori.OpBRA || !br.Guarded() || !br.Guard.Virtual {
		return reject(13, "the exit of BB%d is not a BRA guarded by a virtual predicate", e.ID)
	}
	target := f.BlockByID(br.Srcs[0].Block)
	t := &loopTrip{Branch: br, Exiting: e, ExitTaken: !l.Contains(target)}
	// The compare that decides the exit (two questions about the loop's
	// writers: walks, not a loopDefs).
	g := loopWords(br.Guard)[0]
	nCmp, cmp := loopWriters(l, g)
	if nCmp != 1 || cmp.Op != ori.OpISETP || cmp.Guarded() || len(cmp.Srcs) != 3 || len(cmp.Dsts) != 2 {
		return reject(14, "the exit predicate %s is not the result of one unguarded ISETP", br.Guard)
	}
	kind, unsigned, ok := unrollCmpMods(cmp)
	if !ok || cmp.Srcs[2].Kind != ori.OpdReg || cmp.Srcs[2].Reg != ori.PT || cmp.Srcs[2].Not {
		return reject(14, "#%d is not ISETP.<cmp>[.U32].AND ..., PT", cmp.ID)
	}
	onP := cmp.Dsts[0].Kind == ori.OpdReg && cmp.Dsts[0].Reg == br.Guard
	if !onP && !(cmp.Dsts[1].Kind == ori.OpdReg && cmp.Dsts[1].Reg == br.Guard) {
		return reject(14, "#%d does not write %s as a whole", cmp.ID, br.Guard)
	}
	cmpBB := unrollBlockOf(l.Blocks, cmp)
	if cmpBB != e && !lf.Dom.Dominates(cmpBB, e) {
		return reject(14, "the compare #%d does not run before the exit branch in every iteration", cmp.ID)
	}
	ivLeft := true
	a, b := cmp.Srcs[0], cmp.Srcs[1]
	if a.Kind == ori.OpdImm && b.Kind == ori.OpdReg {
		a, b = b, a
		ivLeft = false
	}
	if a.Kind != ori.OpdReg || b.Kind != ori.OpdImm || b.FKind != ori.ImmInt || a.Neg || a.Not || a.Abs ||
		!a.Reg.Virtual || a.Reg.Words != 1 || a.Reg.Class != ori.ClassR {
		return reject(16, "#%d does not compare a register with an immediate bound", cmp.ID)
	}
	bound := uint32(b.Imm)
	iv := a.Reg
	w := loopWords(iv)[0]
	nInc, inc := loopWriters(l, w)
	if nInc != 1 {
		return reject(14, "the induction variable %s is written %d times in the loop", iv, nInc)
	}
	step, ok := unrollStep(inc, iv)
	if !ok {
		return reject(14, "#%d is not IADD3 %s = %s, imm, imm", inc.ID, iv, iv)
	}
	incBB := unrollBlockOf(l.Blocks, inc)
	if !lf.Dom.Dominates(incBB, latch) || lf.LoopOf(incBB) != l {
		return reject(17, "the increment #%d does not run once in every iteration", inc.ID)
	}
	// Does the compare see the incremented value?
	post := false
	if incBB == cmpBB {
		post = unrollBefore(incBB, inc, cmp)
	} else {
		post = lf.Dom.Dominates(incBB, cmpBB)
	}
	init, ok := unrollInit(l, iv)
	if !ok {
		return reject(17, "the initial value of %s is not a constant set on the only path into the loop", iv)
	}
	t.Cmp, t.IV, t.Inc, t.Init, t.Step, t.Post = cmp, iv, inc, init, step, post
	t.Test = func(v uint32) bool {
		if ivLeft {
			return unrollCompare(kind, unsigned, v, bound)
		}
		return unrollCompare(kind, unsigned, bound, v)
	}
	// Run the recurrence.
	v := init
	for n := 0; n < unrollMaxTrip; n++ {
		t.Values = append(t.Values, v)
		x := v
		if post {
			x += step
		}
		taken := t.Test(x) == onP // the guard is p = t, or q = !t
		if br.GuardNot {
			taken = !taken
		}
		if taken == t.ExitTaken {
			t.Trip = n + 1
			t.Values = append(t.Values, v+step)
			return t, 0, ""
		}
		v += step
	}
	return reject(16, "the loop runs more than %d times (or forever)", unrollMaxTrip)
}

// unrollBlockOf returns the block of blocks holding in.
func unrollBlockOf(blocks []*ori.Block, in *ori.Inst) *ori.Block {
	for _, b := range blocks {
		for _, x := range b.Insts {
			if x == in {
				return b
			}
		}
	}
	return nil
}

// unrollBefore reports whether a comes before b in block bb.
func unrollBefore(bb *ori.Block, a, b *ori.Inst) bool {
	for _, x := range bb.Insts {
		if x == a {
			return true
		}
		if x == b {
			return false
		}
	}
	return false
}

// unrollCmpMods decodes ISETP's modifiers: the comparison, whether it is
// unsigned; only the AND combination without .EX is accepted.
func unrollCmpMods(in *ori.Inst) (kind string, unsigned bool, ok bool) {
	and := false
	for _, m := range in.Mods {
		switch m {
		case "LT", "EQ", "LE", "GT", "NE", "GE":
			if kind != "" {
				return "", false, false
			}
			kind = m
		case "U32":
			unsigned = true
		case "AND":
			and = true
		default:
			return "", false, false
		}
	}
	return kind, unsigned, kind != "" && and
}

// unrollCompare evaluates a 32-bit ISETP comparison.
func unrollCompare(kind string, unsigned bool, a, b uint32) bool {
	lt, eq := int32(a) < int32(b), a == b
	if unsigned {
		lt = a < b
	}
	switch kind {
	case "LT":
		return lt
	case "EQ":
		return eq
	case "LE":
		return lt || eq
	case "GT":
		return !lt && !eq
	case "NE":
		return !eq
	}
	return !lt // GE
}

// unrollStep recognizes "IADD3 iv = iv, x, y" (any order, unguarded, no
// carry-in, iv unmodified) with x and y immediates or RZ, and returns the
// 32-bit step x+y.
func unrollStep(in *ori.Inst, iv ori.Reg) (uint32, bool) {
	if in == nil || in.Op != ori.OpIADD3 || len(in.Mods) != 0 || in.Guarded() || len(in.Srcs) != 3 ||
		in.Dsts[0].Kind != ori.OpdReg || in.Dsts[0].Reg != iv {
		return 0, false
	}
	var step uint32
	self := 0
	for _, o := range in.Srcs {
		switch {
		case o.Kind == ori.OpdReg && o.Reg == iv && !o.Neg && !o.Not && !o.Abs:
			self++
		case o.Kind == ori.OpdReg && o.Reg == ori.RZ && !o.Not:
		case o.Kind == ori.OpdImm && o.FKind == ori.ImmInt && !o.Neg && !o.Not:
			step += uint32(o.Imm)
		default:
			return 0, false
		}
	}
	return step, self == 1
}

// unrollInit finds the constant iv holds when the loop is entered: the
// last write of iv before the loop on the path of single-predecessor
// blocks that starts at the loop's only entering block.
func unrollInit(l *Loop, iv ori.Reg) (uint32, bool) {
	ent := l.Entering()
	if len(ent) != 1 {
		return 0, false
	}
	w := loopWords(iv)[0]
	seen := map[*ori.Block]bool{}
	for b := ent[0]; b != nil && !seen[b] && !l.Contains(b); {
		seen[b] = true
		for i := len(b.Insts) - 1; i >= 0; i-- {
			in := b.Insts[i]
			writes := false
			loopDstRegs(in, func(r ori.Reg) {
				for x := range loopWordSeq(r) {
					if x == w {
						writes = true
					}
				}
			})
			if !writes {
				continue
			}
			if in.Op != ori.OpMOV || len(in.Mods) != 0 || in.Guarded() || len(in.Srcs) != 1 || in.Dsts[0].Reg != iv {
				return 0, false
			}
			s := in.Srcs[0]
			switch {
			case s.Kind == ori.OpdImm && s.FKind == ori.ImmInt && !s.Neg && !s.Not:
				return uint32(s.Imm), true
			case s.Kind == ori.OpdReg && s.Reg == ori.RZ && !s.Not:
				return 0, true
			}
			return 0, false
		}
		if len(b.Preds) != 1 {
			return 0, false
		}
		b = b.Preds[0]
	}
	return 0, false
}

// unrollMode says how one copy resolves the exit branch.
type unrollMode uint8

const (
	unrollStay unrollMode = iota // the exit is never taken in this copy
	unrollExit                   // the exit is always taken in this copy
	unrollKeep                   // the original conditional exit
)

// unrollApply rewrites the loop as decided and returns the header of the
// loop that remains after a partial unroll (nil after a full one). The
// CFG edges are stale afterwards.
func unrollApply(f *ori.Func, u *unrollLoop, d unrollDecision) *ori.Block {
	var modes []unrollMode
	back := 0 // the copy the last copy's back edge goes to (partial only)
	if d.Full {
		for k := 0; k < d.Trip; k++ {
			modes = append(modes, unrollStay)
		}
		modes[d.Trip-1] = unrollExit
	} else {
		r := d.Trip % d.Factor
		for k := 0; k < r+d.Factor; k++ {
			modes = append(modes, unrollStay)
		}
		modes[len(modes)-1] = unrollKeep
		back = r
	}
	h := u.l.Header.ID
	// copies[k] maps an original block ID to its copy in copy k.
	copies := make([]map[int32]*ori.Block, len(modes))
	var region []*ori.Block
	var exitCopies []*ori.Inst
	for k := range modes {
		copies[k] = map[int32]*ori.Block{}
		for _, b := range u.blocks {
			nb := b
			if k > 0 {
				nb = f.NewBlock("")
				f.Blocks = f.Blocks[:len(f.Blocks)-1]
				for _, in := range b.Insts {
					c := in.Clone()
					c.ID = f.NewID()
					nb.Insts = append(nb.Insts, c)
				}
			}
			copies[k][b.ID] = nb
			region = append(region, nb)
		}
		eb := copies[k][u.exitBB.ID]
		exitCopies = append(exitCopies, eb.Insts[len(eb.Insts)-1])
	}
	// Branch targets: in-loop blocks to the same copy, the header (back
	// edges) to the next copy's header.
	for k := range modes {
		next := k + 1
		if next == len(modes) {
			next = back
		}
		for _, b := range u.blocks {
			nb := copies[k][b.ID]
			if len(nb.Insts) == 0 {
				continue
			}
			last := nb.Insts[len(nb.Insts)-1]
			for i, o := range last.Srcs {
				if o.Kind != ori.OpdBlock {
					continue
				}
				switch {
				case o.Block == h:
					last.Srcs[i].Block = copies[next][h].ID
				case copies[k][o.Block] != nil:
					last.Srcs[i].Block = copies[k][o.Block].ID
				}
			}
		}
		br := exitCopies[k]
		eb := copies[k][u.exitBB.ID]
		switch {
		case modes[k] == unrollKeep:
		case (modes[k] == unrollStay) == u.exitTaken:
			// Stay with the exit on the branch, or exit through the
			// fall-through: the branch goes.
			eb.Insts = eb.Insts[:len(eb.Insts)-1]
		default:
			br.Guard, br.GuardNot = ori.PT, false
		}
	}
	// Splice the copies in place of the loop.
	rest := append([]*ori.Block(nil), f.Blocks[u.start+len(u.blocks):]...)
	f.Blocks = append(append(f.Blocks[:u.start], region...), rest...)
	unrollTidy(f, region)
	if d.Full {
		return nil
	}
	return copies[back][h]
}

// unrollTidy cleans up the blocks of an unrolled region: it deletes the
// blocks nothing reaches any more, BRAs to the next block, and empty
// blocks nothing names, and merges a block into its predecessor when
// that predecessor falls into it and is its only predecessor.
func unrollTidy(f *ori.Func, region []*ori.Block) {
	in := map[*ori.Block]bool{}
	for _, b := range region {
		in[b] = true
	}
	for changed := true; changed; {
		changed = false
		if err := f.ComputeCFG(); err != nil {
			return
		}
		reached := map[*ori.Block]bool{f.Blocks[0]: true}
		work := []*ori.Block{f.Blocks[0]}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			for _, s := range b.Succs {
				if !reached[s] {
					reached[s] = true
					work = append(work, s)
				}
			}
		}
		named := map[int32]bool{}
		for _, b := range f.Blocks {
			if !reached[b] && in[b] {
				continue
			}
			for _, x := range b.Insts {
				for _, o := range x.Srcs {
					if o.Kind == ori.OpdBlock {
						named[o.Block] = true
					}
				}
			}
		}
		kept := f.Blocks[:0]
		for _, b := range f.Blocks {
			if in[b] && b != f.Blocks[0] && (!reached[b] || len(b.Insts) == 0 && !named[b.ID]) {
				changed = true
				delete(in, b)
				continue
			}
			kept = append(kept, b)
		}
		f.Blocks = kept
		for i, b := range f.Blocks {
			if !in[b] || len(b.Insts) == 0 || i+1 >= len(f.Blocks) {
				continue
			}
			last := b.Insts[len(b.Insts)-1]
			if last.Op == ori.OpBRA && !last.Guarded() && last.Srcs[0].Block == f.Blocks[i+1].ID {
				b.Insts = b.Insts[:len(b.Insts)-1]
				changed = true
			}
		}
		if changed {
			continue
		}
		if err := f.ComputeCFG(); err != nil {
			return
		}
		for i := 0; i+1 < len(f.Blocks); i++ {
			a, b := f.Blocks[i], f.Blocks[i+1]
			if !in[a] || !in[b] || named[b.ID] || len(b.Preds) != 1 || b.Preds[0] != a || !loopFallsThrough(a) {
				continue
			}
			if n := len(a.Insts); n > 0 && a.Insts[n-1].EndsBlock() {
				continue // a guarded branch: b is not its only way on
			}
			a.Insts = append(a.Insts, b.Insts...)
			f.Blocks = append(f.Blocks[:i+1], f.Blocks[i+2:]...)
			delete(in, b)
			changed = true
			break
		}
	}
}
