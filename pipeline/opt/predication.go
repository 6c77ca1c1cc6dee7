package opt

// OriDoPredication (phase 68): if-conversion.
//
// What it does. A short conditional region whose arms are single blocks
// is turned into straight-line code: the branch at the end of the header
// block is deleted, and the instructions of each arm are appended to the
// header, guarded by the branch predicate (the arm the branch jumps to) or
// its negation (the arm it falls into). Both arms then issue for every
// thread of the warp, without divergence and without the BSSY/BSYNC
// bookkeeping a divergent branch needs (001:14412-14449).
//
// Shapes (001:14568-14609). H ends in a guarded BRA to T and falls through
// to F, the next block in layout order; an arm has H as its only
// predecessor and is not the entry block.
//   - diamond: F and T are arms and both continue to the same block M;
//   - triangle: F is an arm that continues to T, or T is an arm that
//     continues to F (the branch skips the arm);
//   - exit triangle: F (directly followed by T) or T is an arm that ends in
//     an unguarded EXIT; the EXIT is predicated too and H falls through to
//     the other successor (ptxas's "@P0 EXIT").
// The extended diamonds of 14610-14623 (arms that chain through several
// blocks) are not recognized; a nested region is converted from the inside
// out, over at most three rounds (ptxas's driver runs its main loop up to
// three times, 14456 and 14491-14520).
//
// Region scan (14624-14742). Every arm instruction must be predicable:
// not a barrier, warp collective, call, indirect branch, pseudo-op,
// uniform-datapath instruction, P2R/R2P (which touch every predicate) or
// other side-effecting control instruction (BSSY, NANOSLEEP, BPT), and it
// must write only virtual (or zero) registers, never the branch predicate
// (14682: the guard would be clobbered before the rest of the region is
// guarded). Stores and atomics are predicable: a guarded store or atomic
// does nothing when its guard is false (SEMANTICS.md). Loads are
// predicated as well, so no load is ever speculated and the speculation
// analysis of 14872-14963 is not needed. When an arm writes memory or
// performs an atomic, the blocks must also be laid out H, F[, T], then M
// (Decision: the wiki is silent): the simulator runs the threads at the
// smallest program counter first, so the threads of F store before those
// of T, and the skipping threads wait at M; the predicated code keeps
// exactly that order. An arm that is the branch target of a triangle then
// stays a branch.
//
// Guards that are already there (14856-14858). An arm instruction guarded
// by q gets the conjunction of q and the arm's condition: a PLOP3.LUT
// (lut 0x80, a AND b AND PT) computes it into a fresh predicate right
// before the instruction, and consecutive instructions with the same q
// share it until q is written. If q is the branch predicate itself the
// guard either stays (same sense) or becomes !PT (never executes).
//
// Unguarded arm instructions and kills (Decisions, see speculable and
// ifcvtKills). A pure instruction that cannot fault and whose results are
// dead where the branch was runs unguarded, and a word that a guarded
// instruction writes first and that is read afterwards gets a kill (MOV
// w = RZ) before it. Both keep orilab's liveness, which does not know
// that complementary guards cover every thread, from seeing such values
// live from the function's entry.
//
// Profitability (14743-14832, simplified). The wiki's thresholds are
// per-architecture fields of the backend (base_limit, combined_limit,
// 14815-14832) with no knob names; orilab exposes the two that matter as
// knobs: an arm may emit at most PredicationBaseLimit instructions (PLOP3s
// and kills included; the count comes from converting a copy of the
// function), a diamond at most PredicationCombinedLimit for both arms.
// Decision: the defaults, 8 and 12, are orilab's (the wiki gives no
// values). As in step 6 of the heuristic (14778-14781), a diamond whose
// two arms both contain a long-latency instruction (a load, an atomic,
// MUFU or a double-precision operation) stays a branch.
//
// Partial SSA. When the merge block has MOV.PHI instructions (between
// GenerateMovPhi and ConvertAllMovPhiToMov), the values each phi takes
// from the region become a select at the end of the header (ptxas turns
// the phi into a conditional select, 14844): SEL for a 32-bit R value,
// PLOP3.LUT 0xca (c ? a : b) for a predicate. When the merge block has
// predecessors outside the region (the inner triangle of a nested if),
// the select writes a new register and the phi keeps its other operands
// plus the select's result from the header. Other phis (64-bit, uniform)
// and phis that read the merge block's own phi results keep the branch.
//
// Example (a diamond; BB2 falls through, BB3 is the branch target; %r23
// is dead where the branch was, so BB2's IADD3 runs unguarded and BB3's
// LOP3 overwrites it under the branch condition):
//
//	BB1: ISETP.GT.U32.AND %p2, PT = %r17, 0x3, PT     BB1: ISETP.GT.U32.AND %p2, PT = ...
//	     @!%p2 BRA BB3                                      IADD3 %r23 = %r16, 0x1, RZ
//	BB2: IADD3 %r23 = %r16, 0x1, RZ           =>            @!%p2 LOP3.LUT %r23 = %r17, ...
//	     BRA BB4                                       BB4: ...
//	BB3: LOP3.LUT %r23 = %r17, %r15, RZ, 0x3c, !PT
//	BB4: ...
//
// Knobs: DisablePredication (the wiki's Disable switch, 40484-40490)
// switches the phase off; PredicationBaseLimit and PredicationCombinedLimit
// are orilab's names for the two thresholds. The phase runs from -O2 (the
// phase table's "> 1" gate). Each converted region is one site.

import (
	"fmt"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisablePredication", Type: knobs.TypeBool,
		Doc: "Switch off if-conversion (phase OriDoPredication).", Readers: []string{"OriDoPredication"}})
	knobs.Default.Register(knobs.Knob{Name: "PredicationBaseLimit", Type: knobs.TypeInt, Default: "8", Bounds: knobs.AtLeast(0),
		Doc: "Most instructions in one arm of an if-converted region (orilab's name for ptxas's base_limit, which has no knob).", Readers: []string{"OriDoPredication"}})
	knobs.Default.Register(knobs.Knob{Name: "PredicationCombinedLimit", Type: knobs.TypeInt, Default: "12", Bounds: knobs.AtLeast(0),
		Doc: "Most instructions in both arms of an if-converted diamond (orilab's name for ptxas's combined_limit, which has no knob).", Readers: []string{"OriDoPredication"}})
}

// Predication is if-conversion: it predicates the arms of short triangles
// and diamonds (and branches around an EXIT) and deletes the branch
// (phase OriDoPredication).
var Predication = Pass{Run: runPredication}

// ifcvtRounds is how many times the region walk runs (ptxas: up to 3).
const ifcvtRounds = 3

// ifcvtRegion is one candidate region.
type ifcvtRegion struct {
	h, merge    *ori.Block
	br          *ori.Inst
	fall, taken *ori.Block // the arms (nil when that side has none)
	fallBody    []*ori.Inst
	takenBody   []*ori.Inst
	exit        *ori.Inst // the arm's EXIT in an exit triangle
	shape       string
}

func runPredication(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisablePredication") {
		return false, nil
	}
	base, combined := c.Int("PredicationBaseLimit"), c.Int("PredicationCombinedLimit")
	changed := false
	refused := map[int32]bool{} // branches whose site was refused
	var lay ifcvtLayout         // refilled after every conversion (newIfcvtLayout)
	for round := 0; round < ifcvtRounds; round++ {
		converted := false
		// The CFG and the live sets are recomputed only after a
		// conversion changed the function: recomputing them for every
		// candidate block made the phase quadratic in the function's size
		// (a quarter of the compile time of large kernels).
		//
		// Nor is the liveness recomputed after every conversion. A
		// conversion changes the live ranges only of the words its blocks'
		// instructions read or write: for any other word the region's
		// blocks were a passage, before and after, so its liveness
		// everywhere else is what it was. The words and blocks of each
		// conversion are marked dirty, and the liveness is recomputed only
		// for a region that has a dirty block or an instruction with a
		// dirty word (every question a conversion asks is about the words
		// of its own instructions, at its own header and merge block).
		var live *ori.LiveSets
		var dirty ifcvtDirty
		stale := true
		for i := 0; i < len(f.Blocks); i++ {
			if stale {
				if err := f.ComputeCFG(); err != nil {
					return changed, err
				}
				lay, stale = newIfcvtLayout(f, lay), false
			}
			r := matchIfcvt(f, lay, f.Blocks[i])
			if r == nil || refused[r.br.ID] {
				continue
			}
			if ifcvtRejected(r, base, combined) {
				// Whatever the liveness says: the liveness (and with it
				// a recomputation after earlier conversions) is not
				// needed, nor the trial conversion.
				continue
			}
			if live == nil {
				live = ori.Liveness(f)
			} else if dirty.touches(r) {
				// Only the converted regions' blocks were edited: the
				// other blocks keep their indexed words.
				edited := dirty.blocks
				live = live.Recompute(func(b *ori.Block) bool { return edited[b] })
				dirty = ifcvtDirty{}
			} else if predicationCheckLiveness != nil {
				predicationCheckLiveness(f, r, live, &dirty)
			}
			if !ifcvtProfitable(f, r, live, base, combined) {
				continue
			}
			if !c.Sites.Allow(f, r.br.ID, fmt.Sprintf("if-convert the %s ending in BB%d", r.shape, r.h.ID)) {
				refused[r.br.ID] = true
				continue
			}
			dirty.mark(r)
			r.apply(f, r.liveness(live))
			dirty.mark(r)
			converted, stale = true, true
		}
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		if !converted {
			break
		}
		changed = true
	}
	return changed, nil
}

// ifcvtDirty records what the conversions since the last liveness
// computation changed: their blocks, and the words their blocks'
// instructions read or write.
type ifcvtDirty struct {
	blocks map[*ori.Block]bool
	words  map[cmWord]bool
}

// regionBlocks lists r's blocks: header, arms and merge block.
func (r *ifcvtRegion) regionBlocks() []*ori.Block {
	var out []*ori.Block
	for _, b := range []*ori.Block{r.h, r.fall, r.taken, r.merge} {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}

// ifcvtWords calls fn for every virtual register word that an instruction
// of b reads or writes (phi sources included).
func ifcvtWords(b *ori.Block, fn func(cmWord)) {
	each := func(r ori.Reg) {
		if r.Virtual {
			for w := 0; w < int(r.Words); w++ {
				fn(cmWordOf(r, w))
			}
		}
	}
	for _, in := range b.Insts {
		cmReads(in, each)
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg {
				each(o.Reg)
			}
		}
	}
}

// mark records r's blocks and the words their instructions write as
// changed (called before and after the conversion, so that both the old
// and the new instructions count).
//
// A word the region's instructions only read keeps its liveness at every
// other block: before the conversion it was read in the header, an arm
// or (through a phi) on an edge into the merge block, and afterwards it is
// read at the same or a later point of the header, with no write of it
// anywhere in the region in either case; so it is live into the header
// exactly when it was, and the merge block's live-in set is the merge
// block's own. Only the written words (results, kills, the selects'
// results, the combined guards) can change their live ranges beyond the
// region. Counting the read words as well made every later region that
// reads, say, the same base address recompute the whole liveness.
func (d *ifcvtDirty) mark(r *ifcvtRegion) {
	if d.blocks == nil {
		d.blocks, d.words = map[*ori.Block]bool{}, map[cmWord]bool{}
	}
	for _, b := range r.regionBlocks() {
		if b == r.merge && !ifcvtBlockHasPhi(b) {
			// The conversion edits the merge block only to replace its
			// phis: without them, it keeps its instructions and its
			// successors, and with them its live sets (it is the next
			// region's header in a chain of ifs).
			continue
		}
		d.blocks[b] = true
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					for w := 0; w < int(o.Reg.Words); w++ {
						d.words[cmWordOf(o.Reg, w)] = true
					}
				}
			}
		}
	}
}

// touches reports whether r has a changed block or an instruction with a
// changed word, so that the liveness must be recomputed for it.
func (d *ifcvtDirty) touches(r *ifcvtRegion) bool {
	if d.blocks == nil {
		return false
	}
	hit := false
	for _, b := range r.regionBlocks() {
		hit = hit || d.blocks[b]
		ifcvtWords(b, func(w cmWord) { hit = hit || d.words[w] })
	}
	return hit
}

// predicationCheckLiveness, when set (by a test), sees every region that
// if-conversion judges with liveness computed before earlier conversions,
// with that liveness and what changed since.
var predicationCheckLiveness func(f *ori.Func, r *ifcvtRegion, live *ori.LiveSets, d *ifcvtDirty)

// CheckPredicationLivenessForTest makes if-conversion check the rule it
// keeps liveness by, whenever it judges a region with liveness kept from
// before earlier conversions: at every block no conversion changed, the
// words live in and out that no conversion touched must be those of a
// liveness computed afresh (so must the answers to the region's own
// questions); it panics when they differ. It returns how many regions
// were checked, and a function that switches the check off. It is for
// tests only and not safe for use while other compilations run.
func CheckPredicationLivenessForTest() (checked func() int, restore func()) {
	n := 0
	predicationCheckLiveness = func(f *ori.Func, r *ifcvtRegion, live *ori.LiveSets, d *ifcvtDirty) {
		n++
		fresh := ori.Liveness(f)
		clean := func(ws []ori.Reg) string {
			var out []string
			for _, x := range ws {
				if !d.words[cmWordOf(x, 0)] {
					out = append(out, x.String())
				}
			}
			return strings.Join(out, " ")
		}
		for _, b := range f.Blocks {
			if d.blocks[b] {
				continue
			}
			if a, c := clean(live.LiveInWords(b)), clean(fresh.LiveInWords(b)); a != c {
				panic(fmt.Sprintf("predication: kept liveness into BB%d of %s is [%s], afresh [%s]", b.ID, f.Name, a, c))
			}
			if a, c := clean(live.LiveOutWords(b)), clean(fresh.LiveOutWords(b)); a != c {
				panic(fmt.Sprintf("predication: kept liveness out of BB%d of %s is [%s], afresh [%s]", b.ID, f.Name, a, c))
			}
		}
	}
	return func() int { return n }, func() { predicationCheckLiveness = nil }
}

// ifcvtLayout is what matching reads of the whole function, computed once
// per change of the function instead of once per candidate block (which
// made matching quadratic in the number of blocks).
type ifcvtLayout struct {
	pos    map[*ori.Block]int
	byID   map[int32]*ori.Block
	hasPhi bool
}

// newIfcvtLayout computes f's layout. prev is the layout computed before
// the last conversion, or the zero layout: its maps are refilled rather than made again (a conversion's
// layout was two maps over every block), and its hasPhi stands when it
// is false, as a conversion only ever replaces MOV.PHIs (by selects),
// never adds one. (A stale true is harmless too: phisConvertible accepts
// a merge block without phis.)
func newIfcvtLayout(f *ori.Func, prev ifcvtLayout) ifcvtLayout {
	lay := prev
	if lay.pos == nil {
		lay = ifcvtLayout{pos: make(map[*ori.Block]int, len(f.Blocks)), byID: make(map[int32]*ori.Block, len(f.Blocks)), hasPhi: true}
	} else {
		clear(lay.pos)
		clear(lay.byID)
	}
	if lay.hasPhi {
		lay.hasPhi = ifcvtHasPhi(f)
	}
	for i, b := range f.Blocks {
		lay.pos[b] = i
		if _, dup := lay.byID[b.ID]; !dup { // BlockByID answers the first
			lay.byID[b.ID] = b
		}
	}
	return lay
}

// matchIfcvt returns the region whose header is h, or nil. lay is f's
// current layout.
func matchIfcvt(f *ori.Func, lay ifcvtLayout, h *ori.Block) *ifcvtRegion {
	n := len(h.Insts)
	if n == 0 || len(h.Succs) != 2 {
		return nil
	}
	br := h.Insts[n-1]
	if br.Op != ori.OpBRA || !br.Guarded() || br.Guard.IsZero() || br.Guard.Class != ori.ClassP ||
		len(br.Srcs) != 1 || br.Srcs[0].Kind != ori.OpdBlock {
		return nil
	}
	pos := lay.pos
	hi := pos[h]
	if hi+1 >= len(f.Blocks) {
		return nil
	}
	fb, tb := f.Blocks[hi+1], lay.byID[br.Srcs[0].Block]
	if tb == nil || tb == fb || tb == h || fb == h {
		return nil
	}
	arm := func(b *ori.Block) bool {
		return b != f.Blocks[0] && len(b.Preds) == 1 && b.Preds[0] == h
	}
	next := func(b *ori.Block) *ori.Block {
		if len(b.Succs) == 1 {
			return b.Succs[0]
		}
		return nil
	}
	endsExit := func(b *ori.Block) bool {
		if len(b.Succs) != 0 || len(b.Insts) == 0 {
			return false
		}
		last := b.Insts[len(b.Insts)-1]
		return last.Op == ori.OpEXIT && !last.Guarded()
	}
	r := &ifcvtRegion{h: h, br: br}
	switch {
	case arm(fb) && arm(tb) && next(fb) != nil && next(fb) == next(tb) &&
		next(fb) != h && next(fb) != fb && next(fb) != tb:
		r.fall, r.taken, r.merge, r.shape = fb, tb, next(fb), "diamond"
	case arm(fb) && next(fb) == tb:
		r.fall, r.merge, r.shape = fb, tb, "triangle"
	case arm(tb) && next(tb) == fb:
		r.taken, r.merge, r.shape = tb, fb, "triangle"
	case arm(fb) && endsExit(fb) && pos[fb]+1 < len(f.Blocks) && f.Blocks[pos[fb]+1] == tb:
		r.fall, r.merge, r.shape = fb, tb, "exit triangle"
	case arm(tb) && endsExit(tb):
		r.taken, r.merge, r.shape = tb, fb, "exit triangle"
	default:
		return nil
	}
	ok := true
	if r.fall != nil {
		r.fallBody, ok = r.body(r.fall)
	}
	if ok && r.taken != nil {
		r.takenBody, ok = r.body(r.taken)
	}
	if !ok {
		return nil
	}
	// Memory writes keep their order across the two groups of threads only
	// when the blocks are laid out H, F[, T], M.
	if ifcvtWritesMemory(r.fallBody) || ifcvtWritesMemory(r.takenBody) {
		switch {
		case r.fall == nil:
			// The arm is the branch target: the threads that skip it run
			// the merge block first.
			return nil
		case r.taken != nil && (pos[r.taken] != pos[r.fall]+1 || pos[r.merge] < pos[r.taken]):
			return nil
		case pos[r.merge] < pos[r.fall]:
			return nil
		}
	}
	if lay.hasPhi && !r.phisConvertible() {
		return nil
	}
	return r
}

// body returns the instructions of arm b that get predicated: all but
// the closing BRA to the merge block (or the EXIT of an exit triangle,
// which it records), and whether every one of them may be predicated.
func (r *ifcvtRegion) body(b *ori.Block) ([]*ori.Inst, bool) {
	insts := b.Insts
	if n := len(insts); n > 0 && insts[n-1].EndsBlock() {
		last := insts[n-1]
		switch {
		case last.Guarded():
			return nil, false
		case last.Op == ori.OpEXIT && r.shape == "exit triangle":
			r.exit = last
		case last.Op == ori.OpBRA && len(last.Srcs) == 1 && last.Srcs[0].Kind == ori.OpdBlock && last.Srcs[0].Block == r.merge.ID:
		default:
			return nil, false
		}
		insts = insts[:n-1]
	}
	for _, in := range insts {
		if !ifcvtPredicable(in, r.br.Guard) {
			return nil, false
		}
	}
	return insts, true
}

// ifcvtPredicable reports whether in may execute under a guard in place
// of the branch on g.
func ifcvtPredicable(in *ori.Inst, g ori.Reg) bool {
	fl := in.Op.Flags()
	if in.IsPhi() || in.EndsBlock() ||
		fl&(ori.FBarrier|ori.FWarp|ori.FCall|ori.FIndirect|ori.FPseudo|ori.FUniform) != 0 ||
		fl&ori.FSideEffect != 0 && fl&(ori.FStore|ori.FAtomic) == 0 ||
		in.Op == ori.OpP2R || in.Op == ori.OpR2P {
		return false
	}
	if in.Guarded() && !in.Guard.IsZero() && in.Guard.Class != ori.ClassP {
		return false
	}
	// The operations the lowering keeps whole (IDIV, DDIV, DSQRT) become
	// 16 to 170 instructions once expanded (unrollSize), the 64-bit IDIV
	// and DDIV with a loop inside, and a guard does not skip the
	// expansion: converted, both arms' divisions ran for every thread.
	// hwtruth fuzz5551930 issued 8,776 warp-instructions at -O3 against
	// 1,872 at -O0 (TestDynamicCountO3NotAboveO0).
	if unrollSize(in) > 1 {
		return false
	}
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg || !o.Reg.Virtual && !o.Reg.IsZero() || o.Reg.Overlaps(g) {
			return false
		}
	}
	return true
}

func ifcvtWritesMemory(body []*ori.Inst) bool {
	for _, in := range body {
		if in.Op.Flags()&(ori.FStore|ori.FAtomic) != 0 {
			return true
		}
	}
	return false
}

// ifcvtLongLatency reports whether body holds an instruction whose
// latency the branch would let the other arm's threads hide.
func ifcvtLongLatency(body []*ori.Inst) bool {
	for _, in := range body {
		switch {
		case in.Op.Flags()&(ori.FLoad|ori.FAtomic) != 0:
			return true
		case in.Op == ori.OpMUFU, in.Op == ori.OpDADD, in.Op == ori.OpDMUL, in.Op == ori.OpDFMA:
			return true
		}
	}
	return false
}

// ifcvtBlockHasPhi reports whether b holds a MOV.PHI.
func ifcvtBlockHasPhi(b *ori.Block) bool {
	for _, in := range b.Insts {
		if in.IsPhi() {
			return true
		}
	}
	return false
}

func ifcvtHasPhi(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() {
				return true
			}
		}
	}
	return false
}

// ifcvtGuard identifies a guard: a predicate register and its sense.
type ifcvtGuard struct {
	reg ori.Reg
	not bool
}

// ifcvtPredicate guards body by (g, not), except the instructions
// speculate leaves unguarded, and returns the instructions to emit: body
// plus the PLOP3s that combine existing guards with (g, not).
func ifcvtPredicate(f *ori.Func, body []*ori.Inst, g ori.Reg, not bool, speculate func(*ori.Inst) bool) []*ori.Inst {
	var out []*ori.Inst
	combined := map[ifcvtGuard]ori.Reg{}
	for _, in := range body {
		switch {
		case speculate(in):
			// Left unguarded: see ifcvtRegion.speculable.
		case !in.Guarded():
			in.Guard, in.GuardNot = g, not
		case in.Guard.IsZero():
			// @!PT: never executes, under any guard.
		case in.Guard.SameValue(g):
			if in.GuardNot != not {
				in.Guard, in.GuardNot = ori.PT, true // both senses: never
			}
		default:
			k := ifcvtGuard{in.Guard, in.GuardNot}
			t, ok := combined[k]
			if !ok {
				t = f.NewVReg(ori.ClassP, 1)
				and := ori.NewInst(ori.OpPLOP3, "LUT")
				and.ID, and.Line = f.NewID(), in.Line
				and.Dsts = []ori.Operand{ori.R(t), ori.R(ori.PT)}
				a, b := ori.R(g), ori.R(in.Guard)
				a.Not, b.Not = not, in.GuardNot
				and.Srcs = []ori.Operand{a, b, ori.R(ori.PT), ori.Imm(0x80), ori.Imm(0)}
				out = append(out, and)
				combined[k] = t
			}
			in.Guard, in.GuardNot = t, false
		}
		out = append(out, in)
		// A combined guard is stale once its input predicate changes.
		for k := range combined {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Overlaps(k.reg) {
					delete(combined, k)
				}
			}
		}
	}
	return out
}

// ifcvtKills returns, for the straight-line code seq of a converted
// region, the instructions to insert before each instruction: a kill
// (MOV w = RZ, or PLOP3 w = false for a predicate) of every word w that a
// guarded instruction writes first, that was dead where the branch was,
// and that is read afterwards (later in seq, or after the region).
//
// Decision: without the kill, the read would see a value that no
// unguarded instruction defines on the way from the function's entry (a
// guarded write does not end a live range), so w would stay live, and
// occupy a register, from the entry on. ptxas's liveness is aware of
// predicates (14864); orilab's is not, so the kill states that
// the old value is dead. It costs one instruction per such word (a load
// result read in the arm is the common case, as loads are never
// speculated), and it counts toward the region's size.
func ifcvtKills(f *ori.Func, seq []*ori.Inst, deadAtBranch, liveAfter func(cmWord) bool) map[*ori.Inst][]*ori.Inst {
	kills := map[*ori.Inst][]*ori.Inst{}
	killed := map[cmWord]bool{}
	for i, in := range seq {
		res, _ := cmResultWords(in)
		if !in.Guarded() {
			for _, w := range res {
				killed[w] = true
			}
			continue
		}
		for _, w := range res {
			if killed[w] || !deadAtBranch(w) {
				continue
			}
			read := liveAfter(w)
			for _, x := range seq[i+1:] {
				read = read || cmReadsWord(x, w)
			}
			if !read {
				continue
			}
			killed[w] = true
			var k *ori.Inst
			if w.class == ori.ClassP {
				k = ori.NewInst(ori.OpPLOP3, "LUT")
				k.Dsts = []ori.Operand{ori.R(w.reg()), ori.R(ori.PT)}
				k.Srcs = []ori.Operand{ori.R(ori.PT), ori.R(ori.PT), ori.R(ori.PT), ori.Imm(0), ori.Imm(0)}
			} else {
				k = ori.NewInst(ori.OpMOV)
				k.Dsts = []ori.Operand{ori.R(w.reg())}
				k.Srcs = []ori.Operand{ori.R(zeroReg(w.class))}
			}
			k.ID, k.Line = f.NewID(), in.Line
			kills[in] = append(kills[in], k)
		}
	}
	return kills
}

// ifcvtRejected reports whether ifcvtProfitable rejects r whatever the
// liveness: a conversion emits every instruction of each arm's body (and
// perhaps PLOP3s and kills besides), so an arm body longer than base, or
// two longer than combined, exceed the limits already; and a diamond
// with long-latency instructions in both arms stays a branch.
func ifcvtRejected(r *ifcvtRegion, base, combined int) bool {
	nf, nt := len(r.fallBody), len(r.takenBody)
	return nf > base || nt > base || nf+nt > combined ||
		r.shape == "diamond" && ifcvtLongLatency(r.fallBody) && ifcvtLongLatency(r.takenBody)
}

// ifcvtProfitable converts the region in a copy of its blocks and applies
// the size limits to what the conversion emits for each arm, and the
// long-latency rule.
//
// live is f's liveness, asked only about r's header and merge block. The
// copy holds the region's blocks alone: cloning the whole function for
// every candidate made the phase quadratic in the function's size. The
// conversion reads nothing else of the function but the allocators, which
// the copy shares the state of.
func ifcvtProfitable(f *ori.Func, r *ifcvtRegion, live *ori.LiveSets, base, combined int) bool {
	if r.shape == "diamond" && ifcvtLongLatency(r.fallBody) && ifcvtLongLatency(r.takenBody) {
		return false
	}
	blocks := []*ori.Block{r.h}
	for _, b := range []*ori.Block{r.fall, r.taken, r.merge} {
		if b != nil && b != r.h {
			blocks = append(blocks, b)
		}
	}
	trial, cp := f.CloneBlocks(blocks)
	tr := &ifcvtRegion{h: cp[r.h], merge: cp[r.merge], shape: r.shape}
	tr.br = tr.h.Insts[len(tr.h.Insts)-1]
	arm := func(b *ori.Block, body []*ori.Inst) (*ori.Block, []*ori.Inst) {
		if b == nil {
			return nil, nil
		}
		c := cp[b]
		if n := len(b.Insts); r.exit != nil && n > 0 && b.Insts[n-1] == r.exit {
			tr.exit = c.Insts[len(c.Insts)-1]
		}
		return c, c.Insts[:len(body)]
	}
	tr.fall, tr.fallBody = arm(r.fall, r.fallBody)
	tr.taken, tr.takenBody = arm(r.taken, r.takenBody)
	nf, nt := tr.apply(trial, r.liveness(live))
	return nf <= base && nt <= base && nf+nt <= combined
}

// ifcvtLive answers the two liveness questions a conversion asks: is a
// register live out of the header, and live into the merge block.
type ifcvtLive struct {
	outOfHeader, intoMerge func(ori.Reg) bool
}

// liveness binds live (computed on the function r was matched in) to r's
// header and merge block.
func (r *ifcvtRegion) liveness(live *ori.LiveSets) ifcvtLive {
	h, m := r.h, r.merge
	return ifcvtLive{
		outOfHeader: func(x ori.Reg) bool { return live.LiveOut(h, x) },
		intoMerge:   func(x ori.Reg) bool { return live.LiveIn(m, x) },
	}
}

// phiEdges returns the merge block's predecessors that the region's phis
// may name, each with whether the value flows from it when the branch is
// taken. Exit triangles leave the merge block's predecessors alone.
func (r *ifcvtRegion) phiEdges() map[*ori.Block]bool {
	edges := map[*ori.Block]bool{}
	switch {
	case r.shape == "exit triangle":
		return nil
	case r.fall != nil && r.taken != nil:
		edges[r.fall], edges[r.taken] = false, true
	case r.fall != nil:
		edges[r.fall], edges[r.h] = false, true
	default:
		edges[r.taken], edges[r.h] = true, false
	}
	return edges
}

// phisConvertible reports whether every MOV.PHI of the merge block can
// become a select.
func (r *ifcvtRegion) phisConvertible() bool {
	edges := r.phiEdges()
	if edges == nil {
		return true
	}
	dests := map[cmReg]bool{}
	for _, in := range r.merge.Insts {
		if in.IsPhi() && len(in.Dsts) == 1 {
			dests[cmRegOf(in.Dsts[0].Reg)] = true
		}
	}
	for _, in := range r.merge.Insts {
		if !in.IsPhi() {
			break
		}
		if len(in.Dsts) != 1 || len(in.Srcs) < 4 || len(in.Srcs)%2 != 0 || in.Guarded() {
			return false
		}
		d := in.Dsts[0].Reg
		if d.Words != 1 || d.Class != ori.ClassR && d.Class != ori.ClassP {
			return false
		}
		region := 0
		for j := 0; j < len(in.Srcs); j += 2 {
			if _, ok := edges[ifcvtBlockOf(r.merge, in.Srcs[j+1])]; !ok {
				continue // an edge from outside the region stays
			}
			region++
			v := in.Srcs[j]
			if v.Kind == ori.OpdReg && v.Reg.Virtual && dests[cmRegOf(v.Reg)] {
				return false
			}
			if d.Class == ori.ClassP && (v.Kind != ori.OpdReg || v.Reg.Class != ori.ClassP) {
				return false
			}
		}
		if region != len(edges) {
			return false
		}
	}
	return true
}

// ifcvtBlockOf returns the predecessor of merge that a phi's block
// operand names (nil when none does).
func ifcvtBlockOf(merge *ori.Block, o ori.Operand) *ori.Block {
	for _, p := range merge.Preds {
		if o.Kind == ori.OpdBlock && p.ID == o.Block {
			return p
		}
	}
	return nil
}

// selects turns the merge block's phis into selects on the branch
// condition, and removes the phis.
func (r *ifcvtRegion) selects(f *ori.Func) []*ori.Inst {
	edges := r.phiEdges()
	if edges == nil {
		return nil
	}
	cond := ori.R(r.br.Guard)
	cond.Not = r.br.GuardNot
	var out []*ori.Inst
	kept := r.merge.Insts[:0]
	for _, in := range r.merge.Insts {
		if !in.IsPhi() {
			kept = append(kept, in)
			continue
		}
		var vt, vf ori.Operand
		var others []ori.Operand // value/block pairs from outside the region
		for j := 0; j < len(in.Srcs); j += 2 {
			taken, ok := edges[f.BlockByID(in.Srcs[j+1].Block)]
			switch {
			case !ok:
				others = append(others, in.Srcs[j], in.Srcs[j+1])
			case taken:
				vt = in.Srcs[j]
			default:
				vf = in.Srcs[j]
			}
		}
		dst := in.Dsts[0]
		if len(others) > 0 {
			// The merge block keeps its other predecessors: the select
			// computes the region's value into a new register, and the
			// phi takes it from the header, which the region becomes.
			dst = ori.R(f.NewVReg(dst.Reg.Class, 1))
			in.Srcs = append(others, dst, ori.BlockRef(int(r.h.ID)))
			kept = append(kept, in)
		}
		var sel *ori.Inst
		if in.Dsts[0].Reg.Class == ori.ClassP {
			sel = ori.NewInst(ori.OpPLOP3, "LUT")
			sel.Dsts = []ori.Operand{dst, ori.R(ori.PT)}
			sel.Srcs = []ori.Operand{cond, vt, vf, ori.Imm(0xca), ori.Imm(0)}
		} else {
			sel = ori.NewInst(ori.OpSEL)
			sel.Dsts = []ori.Operand{dst}
			sel.Srcs = []ori.Operand{vt, vf, cond}
		}
		sel.ID, sel.Line = in.ID, in.Line // the select replaces the phi
		if len(others) > 0 {
			sel.ID = f.NewID()
		}
		out = append(out, sel)
	}
	for i := len(kept); i < len(r.merge.Insts); i++ {
		r.merge.Insts[i] = nil
	}
	r.merge.Insts = kept
	return out
}

// speculable reports whether arm instruction in may run unguarded, for
// every thread. It must be pure and unable to fault (no load, see cmPure),
// unguarded, and every word it writes must be dead where the branch was
// (so the threads that skip the arm do not miss the old value) and, for
// the taken arm, emitted after the fall-through arm, not written by the
// fall-through arm (whose value it would overwrite). Decision: ptxas
// guards every instruction of the region (14833-14855), but a guarded
// write does not end the old value's live range, so a value that both arms
// compute would stay live, in orilab's liveness and for the register
// allocator, from the start of the function; leaving the first definition
// unguarded ends it there.
func (r *ifcvtRegion) speculable(in *ori.Inst, live ifcvtLive, otherWrites map[cmWord]bool) bool {
	if in.Guarded() || !cmPure(in) || in.Op.Flags()&ori.FLoad != 0 {
		return false
	}
	res, ok := cmResultWords(in)
	if !ok || len(res) == 0 {
		return false
	}
	for _, w := range res {
		if live.outOfHeader(w.reg()) || otherWrites[w] {
			return false
		}
	}
	return true
}

// apply if-converts the region and returns how many instructions it
// emitted for the fall-through and the taken arm.
func (r *ifcvtRegion) apply(f *ori.Func, live ifcvtLive) (nf, nt int) {
	h, g, gNot := r.h, r.br.Guard, r.br.GuardNot
	fallWrites := map[cmWord]bool{}
	for _, in := range r.fallBody {
		res, _ := cmResultWords(in)
		for _, w := range res {
			fallWrites[w] = true
		}
	}
	specFall := func(in *ori.Inst) bool { return r.speculable(in, live, nil) }
	specTaken := func(in *ori.Inst) bool { return r.speculable(in, live, fallWrites) }
	fall := ifcvtPredicate(f, r.fallBody, g, !gNot, specFall)
	taken := ifcvtPredicate(f, r.takenBody, g, gNot, specTaken)
	seq := append(append(append([]*ori.Inst(nil), fall...), taken...), r.selects(f)...)
	if r.exit != nil {
		r.exit.Guard, r.exit.GuardNot = g, r.taken == nil != gNot
		seq = append(seq, r.exit)
	}
	kills := ifcvtKills(f, seq,
		func(w cmWord) bool { return !live.outOfHeader(w.reg()) },
		func(w cmWord) bool { return live.intoMerge(w.reg()) })
	nf, nt = len(fall), len(taken)
	for i, in := range seq {
		if i < len(fall) {
			nf += len(kills[in])
		} else if i < len(fall)+len(taken) {
			nt += len(kills[in])
		}
	}
	h.Insts = h.Insts[:len(h.Insts)-1]
	for _, in := range seq {
		h.Insts = append(append(h.Insts, kills[in]...), in)
	}
	kept := f.Blocks[:0]
	hi := 0
	for _, b := range f.Blocks {
		if b == r.fall || b == r.taken {
			continue
		}
		if b == h {
			hi = len(kept)
		}
		kept = append(kept, b)
	}
	for i := len(kept); i < len(f.Blocks); i++ {
		f.Blocks[i] = nil
	}
	f.Blocks = kept
	if r.exit == nil && (hi+1 >= len(f.Blocks) || f.Blocks[hi+1] != r.merge) {
		bra := ori.NewInst(ori.OpBRA)
		bra.ID, bra.Line = f.NewID(), r.br.Line
		bra.Srcs = []ori.Operand{ori.BlockRef(int(r.merge.ID))}
		h.Insts = append(h.Insts, bra)
	}
	return nf, nt
}
