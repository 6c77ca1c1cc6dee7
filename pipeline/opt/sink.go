package opt

// SinkCodeIntoBlock (phase 77): code sinking, and the code-motion
// analysis that the rematerialization phases (remat.go) share.
//
// What it does. A pure instruction whose results are read in one block
// only is moved from its own block D into that block U, right before the
// first instruction that reads it. The value is then computed only on the
// paths that need it, and its live range starts where it is used. The
// wiki describes sinking as the first stage of ptxas's sink+remat driver
// (001:15168-15175) and states its legality conditions (15613-15618):
// exactly one use block, dominated by the definition's block, no barrier
// crossed, every source still available at the new position. Its
// sinkability check also asks for a register-pressure gain (15354).
// SinkCodeIntoBlock itself is only named (9135: "code sinking;
// sub_78DB70; DisablePhases=SinkCodeIntoBlock gate").
//
// An instruction I in block D is sunk into block U when
//   - I is pure and movable: no memory write, atomic, barrier, warp
//     collective, call, control flow, pseudo or uniform-datapath opcode; no
//     load except LDC (constant banks are read-only during a launch); not
//     S2R/CS2R of a special register whose reads may differ (clock, timer,
//     SM and warp IDs); not P2R/R2P, which read or write every predicate;
//   - every result is a virtual register (or RZ/PT), I is the only
//     instruction that writes any of its result words, and every read of
//     them (other than by MOV.PHI, which blocks the move) is in U;
//   - D strictly dominates U, and U lies on no cycle that avoids D, so U
//     runs at most as often as D: never into a deeper loop (the wiki's
//     cost model weighs loop depth, 15424);
//   - no register word I reads (its guard, sources, address bases) is
//     written after I in D, in any block on a path from D to U, or in U
//     before the insertion point, so the moved I computes the same value;
//     I reads no physical register except RZ/PT (physical registers are
//     shared with callees);
//   - register pressure does not grow: the source words that are not live
//     at the insertion point anyway (whose live range the move would
//     stretch) are no more than the result words (whose live range it
//     shortens). The move is made when it strictly lowers the pressure or
//     when U does not post-dominate D (then it also removes work from the
//     paths that skip U). Decision: words of all classes count alike, so
//     that the IADD3.X of a 64-bit add, which stretches its carry
//     predicate and shortens the high word, moves with its IADD3.
//
// Example (%r5 is read only in BB2, which runs for some threads):
//
//	BB0: #4 MOV %r5 = c[0x0][0x160]        BB0: ...
//	     ...                          =>         @%p0 BRA BB3
//	     @%p0 BRA BB3                      BB2: #4 MOV %r5 = c[0x0][0x160]
//	BB2: STG.E [%r2.64], %r5                    STG.E [%r2.64], %r5
//
// After each move the analysis (positions, definitions and uses) is
// updated in place, and the liveness of a moved word is solved again
// when next asked, so every decision sees the current code; the
// walk visits blocks in layout order and each block bottom-up, which sinks
// a chain in one round (the IADD3.X of a 64-bit add, then its IADD3), and
// repeats until a round moves nothing. Each move is one site. The wiki's
// "no barrier crossed" needs nothing more: the instructions moved touch
// no memory and no other thread, so a BAR, MEMBAR or WARPSYNC on the way
// cannot observe the move.
//
// Knobs: ptxas has no knob of its own for this phase; DisablePhases=
// SinkCodeIntoBlock (the wiki's own example, 40014) switches it off.
// Decision: it runs from -O1, like the other optional cleanups.
//
// Known limits: an instruction with results read in several blocks is
// not split (rematerialization handles cheap ones); a read by MOV.PHI or
// a physical-register source blocks the move.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"orilab/pipeline/ori"
)

// SinkCode sinks pure instructions whose results are read in one
// dominated block into that block, before the first read (phase
// SinkCodeIntoBlock).
var SinkCode = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		n, err := sinkCode(f, c.Sites)
		return n > 0, err
	},
}

// cmMaxRounds bounds the rounds of the sinking and rematerialization walks
// (each round repeats only when the previous one changed something).
const cmMaxRounds = 8

// cmWord is one 32-bit word of a virtual register.
//
// The fields are ordered, and padded by a named always-zero field, so that
// the struct is eight bytes of plain memory: maps keyed by it then hash it
// as one 64-bit word instead of field by field (struct-keyed map hashing
// was a tenth of the compile time of large kernels).
type cmWord struct {
	n     int32
	class ori.RegClass
	w     uint8
	pad   uint16 // always 0
}

// cmReg names a virtual register as a whole.
// It is laid out like cmWord, for the same reason.
type cmReg struct {
	n     int32
	class ori.RegClass
	pad   [3]uint8 // always 0
}

func cmWordOf(r ori.Reg, i int) cmWord { return cmWord{n: r.N, class: r.Class, w: r.Off + uint8(i)} }

func cmRegOf(r ori.Reg) cmReg { return cmReg{n: r.N, class: r.Class} }

func (w cmWord) reg() ori.Reg {
	return ori.Reg{Class: w.class, Virtual: true, N: w.n, Off: w.w, Words: 1}
}

// virtualReads counts the reads of each virtual register in f (the
// instruction-selection folds use it: a value read once can be folded
// into its reader and its definition deleted).
func virtualReads(f *ori.Func) *regReads {
	reads := &regReads{limit: 4*f.NumInsts() + 1024}
	var buf [16]ori.Reg
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, r := range cmAppendReads(buf[:0], in) {
				if r.Virtual {
					reads.add(cmRegOf(r))
				}
			}
		}
	}
	return reads
}

// regReads counts reads per virtual register: a slice per class indexed
// by register number (virtual registers are numbered densely from 0), a
// map for numbers past limit or negative (parsed IR). Seven
// instruction-selection folds count the reads of the whole function, and
// the map they shared grew entry by entry each time.
type regReads struct {
	dense [ori.NumClasses][]int32
	other map[cmReg]int
	limit int
}

func (x *regReads) add(k cmReg) {
	if k.n >= 0 && int(k.n) < x.limit && k.class < ori.NumClasses {
		d := x.dense[k.class]
		if int(k.n) >= len(d) {
			d = append(d, make([]int32, max(int(k.n)+1-len(d), len(d)))...)
			x.dense[k.class] = d
		}
		d[k.n]++
		return
	}
	if x.other == nil {
		x.other = map[cmReg]int{}
	}
	x.other[k]++
}

// of returns the number of reads of k.
func (x *regReads) of(k cmReg) int {
	if k.n >= 0 && int(k.n) < x.limit && k.class < ori.NumClasses {
		if d := x.dense[k.class]; int(k.n) < len(d) {
			return int(d[k.n])
		}
		return 0
	}
	return x.other[k]
}

// cmReads calls fn for every register in reads: the guard, register
// sources and address bases (zero registers included).
//
// The operands are reached by index, not copied by range: an Operand is
// over 80 bytes, and a dozen passes call cmReads for every instruction,
// some of them on every round.
func cmReads(in *ori.Inst, fn func(r ori.Reg)) {
	fn(in.Guard)
	srcs := in.Srcs
	for i := range srcs {
		o := &srcs[i]
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(o.Reg)
		}
	}
	dsts := in.Dsts
	for i := range dsts {
		o := &dsts[i]
		if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(o.Reg)
		}
	}
}

// cmAppendReads appends to out the registers cmReads would pass to its
// function, in the same order. The analyses that run over every
// instruction of a function on every round (newCMAnalysis, virtualReads,
// cmAppendReadWords) loop over the result directly instead of paying a
// closure call per register (TestCMAppendReads checks the two agree).
func cmAppendReads(out []ori.Reg, in *ori.Inst) []ori.Reg {
	out = append(out, in.Guard)
	srcs := in.Srcs
	for i := range srcs {
		o := &srcs[i]
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			out = append(out, o.Reg)
		}
	}
	dsts := in.Dsts
	for i := range dsts {
		o := &dsts[i]
		if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			out = append(out, o.Reg)
		}
	}
	return out
}

// cmWrites reports whether in writes (guarded or not) a word of w's
// register.
func cmWrites(in *ori.Inst, w cmWord) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Overlaps(w.reg()) {
			return true
		}
	}
	return false
}

// cmReadsWord reports whether in reads word w.
func cmReadsWord(in *ori.Inst, w cmWord) bool { return readsReg(in, w.reg()) }

// readsReg reports whether in reads any word of r.
func readsReg(in *ori.Inst, r ori.Reg) bool {
	hit := false
	cmReads(in, func(x ori.Reg) { hit = hit || x.Overlaps(r) })
	return hit
}

// cmStableSR reports whether every read of a special register gives the
// same value in a thread. Decision: a whitelist (thread and CTA indices,
// lane ID and lane masks, grid ID, SM and warp counts); SR_WARPID and
// SR_SMID may change during execution (PTX calls them volatile) and the
// clocks and timers always do.
func cmStableSR(name string) bool {
	for _, p := range []string{"SR_TID", "SR_CTAID", "SR_LANEID", "SR_EQMASK", "SR_LTMASK", "SR_LEMASK",
		"SR_GTMASK", "SR_GEMASK", "SR_GRIDID", "SR_NSMID", "SR_NWARPID"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// cmImmobile are the opcode properties that pin an instruction in place.
const cmImmobile = ori.FStore | ori.FAtomic | ori.FBarrier | ori.FWarp | ori.FCall | ori.FBranch |
	ori.FIndirect | ori.FExit | ori.FRet | ori.FSideEffect | ori.FPseudo | ori.FUniform

// cmPure reports whether in computes its results from its register and
// constant operands alone, so that it may execute at another point (or
// twice) with the same result.
func cmPure(in *ori.Inst) bool {
	if in.IsPhi() || in.Op.Flags()&cmImmobile != 0 || len(in.Dsts) == 0 {
		return false
	}
	switch in.Op {
	case ori.OpNOP, ori.OpP2R, ori.OpR2P, ori.OpCS2R, ori.OpInvalid:
		return false
	case ori.OpLDC:
		// Constant banks do not change during a launch.
	case ori.OpS2R:
		if len(in.Srcs) != 1 || in.Srcs[0].Kind != ori.OpdSR || !cmStableSR(in.Srcs[0].Name) {
			return false
		}
	default:
		if in.Op.Flags()&ori.FLoad != 0 {
			return false
		}
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdSR && !cmStableSR(o.Name) {
			return false
		}
	}
	return true
}

// cmSite is where an instruction is: its block, the block's layout index,
// the instruction's index in the block and its position in a layout-order
// walk of all instructions (one map entry per instruction holds both).
type cmSite struct {
	b            *ori.Block
	bi, i, order int
}

// cmSites finds the site of an instruction: a slice indexed by the
// instruction's ID (unique in a function and dense, from Func.NewID), and a
// map for the rest (a negative or far too large ID, or a second
// instruction with an ID already taken, both possible only in parsed IR).
// It replaced a map with an entry per instruction, the largest part of
// building the analysis.
type cmSites struct {
	byID  []cmSiteOf
	other map[*ori.Inst]cmSite
}

// cmSiteOf is one slot of cmSites.byID: the instruction it holds (nil for
// none) and its site.
type cmSiteOf struct {
	in *ori.Inst
	s  cmSite
}

// get returns in's site, and whether it has one.
func (x *cmSites) get(in *ori.Inst) (cmSite, bool) {
	if id := in.ID; id >= 0 && int(id) < len(x.byID) && x.byID[id].in == in {
		return x.byID[id].s, true
	}
	s, ok := x.other[in]
	return s, ok
}

// at returns in's site, the zero site if it has none.
func (x *cmSites) at(in *ori.Inst) cmSite {
	s, _ := x.get(in)
	return s
}

// set records in's site.
func (x *cmSites) set(in *ori.Inst, s cmSite) {
	id := int(in.ID)
	if id >= len(x.byID) && id >= 0 && id < 2*len(x.byID)+1024 {
		x.byID = append(x.byID, make([]cmSiteOf, id+1-len(x.byID))...)
	}
	if id >= 0 && id < len(x.byID) && (x.byID[id].in == nil || x.byID[id].in == in) {
		x.byID[id] = cmSiteOf{in, s}
		return
	}
	if x.other == nil {
		x.other = map[*ori.Inst]cmSite{}
	}
	x.other[in] = s
}

// equal reports whether x and y hold the same instructions at the same
// sites.
func (x *cmSites) equal(y *cmSites) bool {
	n := len(x.other)
	for _, e := range x.byID {
		if e.in != nil {
			n++
			if s, ok := y.get(e.in); !ok || s != e.s {
				return false
			}
		}
	}
	for in, s := range x.other {
		if t, ok := y.get(in); !ok || t != s {
			return false
		}
	}
	m := len(y.other)
	for _, e := range y.byID {
		if e.in != nil {
			m++
		}
	}
	return n == m
}

// cmAnalysis is the code-motion view of a function: positions, the
// definitions and reads of every virtual register word, dominators,
// post-dominators and liveness. Remat rebuilds it after every kept step;
// sinking updates it in place after every move (moved).
type cmAnalysis struct {
	f    *ori.Func
	dom  *ori.DomTree
	pdom *ori.DomTree
	live *ori.LiveSets // nil until liveBefore needs it
	// liveStale holds the words whose liveness live no longer describes
	// (the words of instructions moved since it was computed); the
	// liveness of every other word is unchanged by such a move.
	liveStale map[cmWord]bool
	// wordLive caches, for stale words, the blocks each is live out of,
	// solved for the word alone (wordLiveOut); a move drops its words'
	// entries.
	wordLive map[cmWord][]uint64
	// phiGuard is set when some MOV.PHI has a virtual guard: a read the
	// definition and use lists do not hold, so wordLiveOut is not used.
	phiGuard bool
	// wordOnly makes liveBefore solve every word's liveness alone
	// (wordLiveOut) instead of the whole function's: rematerialization
	// asks about the sources of a few clones per analysis, and each
	// analysis after a step would otherwise compute the whole liveness
	// of a function no earlier pass has seen.
	wordOnly bool
	// cycles remembers onCycleAvoiding's answers; visited (stamped with
	// visit) and work are its search's scratch.
	cycles       map[[2]*ori.Block]bool
	visited      []uint32
	visitedOther map[*ori.Block]uint32
	visit        uint32
	work         []*ori.Block
	at           cmSites
	bpos         map[*ori.Block]int // layout index
	// words numbers the virtual register words, and info holds, per
	// number, their definitions and reads (dense tables: maps keyed by
	// word were a third of building the analysis).
	words cmWordIndex
	info  []cmWordInfo
	// width is the words of each virtual register (the widest access),
	// computed by ensureWidth when a rematerialization needs it (sinking
	// never does; a map update per operand was a third of building the
	// analysis).
	width map[cmReg]int
	// slab backs the first two entries of the definition and use lists
	// newCMAnalysis builds (most words have one definition and a use or
	// two; a list that grows further moves out by append). It is cut from
	// chunks, of which the first nChunks are in use (a pooled analysis
	// keeps them for the next).
	slab    []*ori.Inst
	chunks  [][]*ori.Inst
	nChunks int
}

// cmAnalysisPool holds the memory of analyses sinkCode is done with
// (releaseCMAnalysis): every SinkRemat and SinkCodeIntoBlock run built its
// analysis, tables sized for the whole function, in fresh memory.
var cmAnalysisPool = sync.Pool{New: func() any { return new(cmAnalysis) }}

// releaseCMAnalysis returns a to the pool. Nothing may use a, or a list
// it handed out (defs, uses), afterwards.
func releaseCMAnalysis(a *cmAnalysis) {
	// Only what was written: an analysis from the pool is empty beyond
	// its slices' lengths, and so is every chunk past nChunks. (The block
	// positions are not kept: clearing a map costs its largest size.)
	clear(a.at.byID)
	clear(a.info)
	for _, c := range a.chunks[:a.nChunks] {
		clear(c[:cap(c)])
	}
	a.words.reset()
	clear(a.work[:cap(a.work)])
	*a = cmAnalysis{
		at:     cmSites{byID: a.at.byID[:0]},
		words:  cmWordIndex{dense: a.words.dense, other: a.words.other},
		info:   a.info[:0],
		chunks: a.chunks,
		work:   a.work[:0],
	}
	cmAnalysisPool.Put(a)
}

// cmWordInfo is what cmAnalysis knows of one virtual register word.
type cmWordInfo struct {
	defs   []*ori.Inst
	uses   []*ori.Inst // reads other than by MOV.PHI, in layout order
	phiUse bool
}

// word returns w's entry, adding an empty one if w has none.
func (a *cmAnalysis) word(w cmWord) *cmWordInfo {
	i, ok := a.words.get(w)
	if !ok {
		i = int32(len(a.info))
		a.words.set(w, i)
		a.info = append(a.info, cmWordInfo{})
	}
	return &a.info[i]
}

// add appends in to list, a definition or use list of newCMAnalysis.
func (a *cmAnalysis) add(list []*ori.Inst, in *ori.Inst) []*ori.Inst {
	if list != nil {
		return append(list, in)
	}
	if len(a.slab)+2 > cap(a.slab) {
		if a.nChunks == len(a.chunks) {
			a.chunks = append(a.chunks, make([]*ori.Inst, 0, 1024))
		}
		a.slab = a.chunks[a.nChunks][:0]
		a.nChunks++
	}
	n := len(a.slab)
	a.slab = a.slab[:n+2]
	list = a.slab[n : n+1 : n+2]
	list[0] = in
	return list
}

// defs returns the instructions that write w.
func (a *cmAnalysis) defs(w cmWord) []*ori.Inst {
	if i, ok := a.words.get(w); ok {
		return a.info[i].defs
	}
	return nil
}

// uses returns the instructions other than phis that read w, in layout
// order.
func (a *cmAnalysis) uses(w cmWord) []*ori.Inst {
	if i, ok := a.words.get(w); ok {
		return a.info[i].uses
	}
	return nil
}

// phiUse reports whether a MOV.PHI reads w.
func (a *cmAnalysis) phiUse(w cmWord) bool {
	if i, ok := a.words.get(w); ok {
		return a.info[i].phiUse
	}
	return false
}

// cmDoms are the dominator and post-dominator trees of a function whose
// CFG the code-motion passes do not change.
type cmDoms struct{ dom, pdom *ori.DomTree }

func newCMDoms(f *ori.Func) cmDoms {
	return cmDoms{ori.Dominators(f), ori.PostDominators(f)}
}

// newCMAnalysis analyses f, whose CFG must be current and described by
// d. Liveness is computed on first use.
func newCMAnalysis(f *ori.Func, d cmDoms) *cmAnalysis {
	total, maxID := 0, int32(-1)
	for _, b := range f.Blocks {
		total += len(b.Insts)
		for _, in := range b.Insts {
			maxID = max(maxID, in.ID)
		}
	}
	// Sized up front: the analysis is rebuilt after every change, and
	// growing the maps instruction by instruction was most of its cost.
	// The memory of a released analysis is reused (cmAnalysisPool; its
	// tables are empty).
	a := cmAnalysisPool.Get().(*cmAnalysis)
	a.f, a.dom, a.pdom = f, d.dom, d.pdom
	a.bpos = make(map[*ori.Block]int, len(f.Blocks))
	if cap(a.info) < total {
		a.info = make([]cmWordInfo, 0, total)
	}
	if int(maxID) < 4*total+1024 {
		if cap(a.at.byID) > int(maxID) {
			a.at.byID = a.at.byID[:maxID+1]
		} else {
			a.at.byID = make([]cmSiteOf, maxID+1)
		}
	}
	var seen []cmWord // the words the current instruction reads, once each
	var regs []ori.Reg
	n := 0
	for bi, b := range f.Blocks {
		a.bpos[b] = bi
		for i, in := range b.Insts {
			a.at.set(in, cmSite{b, bi, i, n})
			n++
			if in.IsPhi() {
				if in.Guard.Virtual {
					a.phiGuard = true
				}
				for j := 0; j < len(in.Srcs); j += 2 {
					if r := in.Srcs[j]; r.Kind == ori.OpdReg && r.Reg.Virtual {
						for w := 0; w < int(r.Reg.Words); w++ {
							a.word(cmWordOf(r.Reg, w)).phiUse = true
						}
					}
				}
			} else {
				seen = seen[:0]
				regs = cmAppendReads(regs[:0], in)
				for _, r := range regs {
					if !r.Virtual {
						continue
					}
				word:
					for w := 0; w < int(r.Words); w++ {
						k := cmWordOf(r, w)
						for _, x := range seen {
							if x == k {
								continue word
							}
						}
						seen = append(seen, k)
						e := a.word(k)
						e.uses = a.add(e.uses, in)
					}
				}
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					for w := 0; w < int(o.Reg.Words); w++ {
						k := cmWordOf(o.Reg, w)
						e := a.word(k)
						e.defs = a.add(e.defs, in)
					}
				}
			}
		}
	}
	return a
}

// ensureWidth computes a.width, from the operands newCMAnalysis indexes
// (phi sources, other reads, and results). Moving instructions does not
// change it; a rematerialization needs it before it edits anything.
func (a *cmAnalysis) ensureWidth() {
	if a.width != nil {
		return
	}
	a.width = map[cmReg]int{}
	note := func(r ori.Reg) {
		if r.Virtual {
			k := cmRegOf(r)
			a.width[k] = max(a.width[k], int(r.Off)+int(r.Words))
		}
	}
	for _, b := range a.f.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() {
				for j := 0; j < len(in.Srcs); j += 2 {
					if r := in.Srcs[j]; r.Kind == ori.OpdReg {
						note(r.Reg)
					}
				}
			} else {
				cmReads(in, note)
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg {
					note(o.Reg)
				}
			}
		}
	}
}

// moved updates the analysis after in moved from site from to block u
// (already done in the blocks' instruction lists), instead of rebuilding
// it: only the sites and layout order of the instructions between the two
// places change, and in's place in the definition and use lists of its
// words. Liveness is dropped, to be recomputed on first use, as a rebuilt
// analysis would. The result equals newCMAnalysis of the edited function
// (TestSinkIncrementalAnalysis).
func (a *cmAnalysis) moved(in *ori.Inst, from cmSite, u *ori.Block) {
	lo, hi := from.bi, a.bpos[u]
	if lo > hi {
		lo, hi = hi, lo
	}
	n := 0
	for _, b := range a.f.Blocks[:lo] {
		n += len(b.Insts)
	}
	for bi := lo; bi <= hi; bi++ {
		b := a.f.Blocks[bi]
		for i, x := range b.Insts {
			a.at.set(x, cmSite{b, bi, i, n})
			n++
		}
	}
	place := func(list []*ori.Inst) []*ori.Inst {
		out := make([]*ori.Inst, 0, len(list))
		k := 0
		for _, x := range list {
			if x == in {
				k++
			} else {
				out = append(out, x)
			}
		}
		at := sort.Search(len(out), func(i int) bool { return a.at.at(out[i]).order > a.at.at(in).order })
		for ; k > 0; k-- {
			out = slices.Insert(out, at, in)
		}
		return out
	}
	stale := func(k cmWord) {
		delete(a.wordLive, k)
		if a.live != nil {
			if a.liveStale == nil {
				a.liveStale = map[cmWord]bool{}
			}
			a.liveStale[k] = true
		}
	}
	if !in.IsPhi() {
		var seen []cmWord
		cmReads(in, func(r ori.Reg) {
			if !r.Virtual {
				return
			}
			for w := 0; w < int(r.Words); w++ {
				k := cmWordOf(r, w)
				if !slices.Contains(seen, k) {
					seen = append(seen, k)
					e := a.word(k)
					e.uses = place(e.uses)
					stale(k)
				}
			}
		})
	}
	var done []cmWord
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual {
			for w := 0; w < int(o.Reg.Words); w++ {
				if k := cmWordOf(o.Reg, w); !slices.Contains(done, k) {
					done = append(done, k)
					e := a.word(k)
					e.defs = place(e.defs)
					stale(k)
				}
			}
		}
	}
}

// wordList returns the words a numbered, for cmAnalysisDiff.
func (a *cmAnalysis) wordList() []cmWord {
	var ws []cmWord
	for c, d := range a.words.dense {
		for i, n := range d {
			if n != 0 {
				ws = append(ws, cmWord{n: int32(i >> 2), class: ori.RegClass(c), w: uint8(i & 3)})
			}
		}
	}
	for w := range a.words.other {
		ws = append(ws, w)
	}
	return ws
}

// soleDef returns the instruction that is the only definition of w, or
// nil.
func (a *cmAnalysis) soleDef(w cmWord) *ori.Inst {
	if d := a.defs(w); len(d) == 1 {
		return d[0]
	}
	return nil
}

// dominates reports whether x executes before y on every path from the
// entry to y (x != y).
func (a *cmAnalysis) dominates(x, y *ori.Inst) bool {
	sx, sy := a.at.at(x), a.at.at(y)
	if sx.b == sy.b {
		return sx.i < sy.i
	}
	return a.dom.Dominates(sx.b, sy.b)
}

// liveBefore reports whether word w is live just before instruction i of
// b (a read by that instruction counts).
func (a *cmAnalysis) liveBefore(b *ori.Block, i int, w cmWord) bool {
	for _, in := range b.Insts[i:] {
		if in.IsPhi() {
			continue
		}
		if cmReadsWord(in, w) {
			return true
		}
		if !in.Guarded() {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Overlaps(w.reg()) {
					return false
				}
			}
		}
	}
	if a.wordOnly && !a.phiGuard && !a.phiUse(w) {
		live := a.wordLiveOut(b, w)
		if rematCheckPressure != nil { // TestRematIncrementalPressure
			if want := ori.Liveness(a.f).LiveOut(b, w.reg()); live != want {
				panic(fmt.Sprintf("remat: liveness of %s out of BB%d solved alone is %v, the function's %v", w.reg(), b.ID, live, want))
			}
		}
		return live
	}
	if a.live == nil {
		a.live, a.liveStale, a.wordLive = ori.Liveness(a.f), nil, nil
	}
	if a.liveStale[w] {
		if !a.phiGuard && !a.phiUse(w) {
			return a.wordLiveOut(b, w)
		}
		a.live, a.liveStale, a.wordLive = ori.Liveness(a.f), nil, nil
	}
	return a.live.LiveOut(b, w.reg())
}

// wordLiveOut reports whether the word w, which no MOV.PHI reads, is live
// on exit from b, as ori.Liveness would say of the current function. The
// answer is solved for w alone from its definitions and reads and kept
// until w's instructions move: recomputing the whole function's liveness
// for the first question about a moved word after every move made
// sinking quadratic in the size of the function.
//
// It is ordinary liveness restricted to one word: a block's entry has w
// live when a read of w comes before any unguarded write in the block
// (an instruction that reads and writes w reads first), or when w is
// live out of the block and no unguarded instruction of it writes w;
// its exit, when w is live into a successor. The least fixed point is
// found backward over the predecessors from the blocks whose entry reads
// w.
func (a *cmAnalysis) wordLiveOut(b *ori.Block, w cmWord) bool {
	set, ok := a.wordLive[w]
	if !ok {
		set = a.solveWordLive(w)
		if a.wordLive == nil {
			a.wordLive = map[cmWord][]uint64{}
		}
		a.wordLive[w] = set
	}
	i := a.bpos[b]
	return set[i/64]&(1<<(i%64)) != 0
}

// solveWordLive returns the blocks (by layout index, as a bitset) that w
// is live out of.
func (a *cmAnalysis) solveWordLive(w cmWord) []uint64 {
	nb := len(a.f.Blocks)
	sets := make([]uint64, 2*((nb+63)/64))
	out, in := sets[:len(sets)/2], sets[len(sets)/2:]
	has := func(s []uint64, i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
	set := func(s []uint64, i int) { s[i/64] |= 1 << (i % 64) }
	// The first read and the first unguarded write of w in each block
	// that has either (instruction indices, -1 for none).
	type events struct{ read, kill int }
	ev := map[int]*events{}
	at := func(in *ori.Inst) (int, *events) {
		s := a.at.at(in)
		e := ev[s.bi]
		if e == nil {
			e = &events{-1, -1}
			ev[s.bi] = e
		}
		return s.i, e
	}
	for _, u := range a.uses(w) {
		if i, e := at(u); e.read < 0 || i < e.read {
			e.read = i
		}
	}
	for _, d := range a.defs(w) {
		if d.Guarded() {
			continue
		}
		if i, e := at(d); e.kill < 0 || i < e.kill {
			e.kill = i
		}
	}
	var work []int
	for bi, e := range ev {
		if e.read >= 0 && (e.kill < 0 || e.read <= e.kill) {
			set(in, bi)
			work = append(work, bi)
		}
	}
	for len(work) > 0 {
		bi := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range a.f.Blocks[bi].Preds {
			pi, ok := a.bpos[p]
			if !ok {
				continue
			}
			set(out, pi)
			if has(in, pi) {
				continue
			}
			if e := ev[pi]; e != nil && e.kill >= 0 {
				continue // written before any read: w is not live into pi
			}
			set(in, pi)
			work = append(work, pi)
		}
	}
	return out
}

// onCycleAvoiding is cmOnCycleAvoiding(u, d), remembered per pair (the
// CFG does not change while an analysis lives) and searched with a
// visited stamp per block instead of a map per question: sinking asks it
// for every instruction read in one other block, and the searches were a
// third of deciding where to sink.
func (a *cmAnalysis) onCycleAvoiding(u, d *ori.Block) bool {
	k := [2]*ori.Block{u, d}
	if r, ok := a.cycles[k]; ok {
		return r
	}
	if a.cycles == nil {
		a.cycles = map[[2]*ori.Block]bool{}
		a.visited = make([]uint32, len(a.f.Blocks))
	}
	a.visit++
	mark := func(b *ori.Block) bool { // reports whether b was unvisited
		i, ok := a.bpos[b]
		if !ok { // not in f's layout (not after ComputeCFG): a map then
			if a.visitedOther == nil || a.visitedOther[b] != a.visit {
				if a.visitedOther == nil {
					a.visitedOther = map[*ori.Block]uint32{}
				}
				a.visitedOther[b] = a.visit
				return true
			}
			return false
		}
		if a.visited[i] == a.visit {
			return false
		}
		a.visited[i] = a.visit
		return true
	}
	mark(d)
	r := false
	work := append(a.work[:0], u.Succs...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == u {
			r = true
			break
		}
		if !mark(b) {
			continue
		}
		work = append(work, b.Succs...)
	}
	a.work = work[:0]
	a.cycles[k] = r
	return r
}

// cmOnCycleAvoiding reports whether u can reach itself without passing
// through d: then u may run several times for one run of d.
func cmOnCycleAvoiding(u, d *ori.Block) bool {
	seen := map[*ori.Block]bool{d: true}
	work := append([]*ori.Block(nil), u.Succs...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == u {
			return true
		}
		if seen[b] {
			continue
		}
		seen[b] = true
		work = append(work, b.Succs...)
	}
	return false
}

// cmBetween returns the blocks that lie on some path from d to u, excluding
// d and u themselves (paths that re-enter d start over).
func cmBetween(d, u *ori.Block) []*ori.Block {
	fwd := map[*ori.Block]bool{}
	work := append([]*ori.Block(nil), d.Succs...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == d || b == u || fwd[b] {
			continue
		}
		fwd[b] = true
		work = append(work, b.Succs...)
	}
	var out []*ori.Block
	back := map[*ori.Block]bool{}
	work = append(work[:0], u.Preds...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == d || b == u || back[b] {
			continue
		}
		back[b] = true
		if fwd[b] {
			out = append(out, b)
		}
		work = append(work, b.Preds...)
	}
	return out
}

// unchangedBetween reports whether no instruction that may run between x
// (in block d) and the point before instruction p of block u writes a word
// of w: the rest of d after x, the blocks between d and u, and u before p.
// d must dominate u, and u must lie on no cycle avoiding d.
func (a *cmAnalysis) unchangedBetween(x *ori.Inst, u *ori.Block, p int, ws []cmWord) bool {
	sx := a.at.at(x)
	clean := func(insts []*ori.Inst) bool {
		for _, in := range insts {
			for _, w := range ws {
				if cmWrites(in, w) {
					return false
				}
			}
		}
		return true
	}
	if sx.b == u {
		return clean(u.Insts[sx.i+1 : p])
	}
	if !clean(sx.b.Insts[sx.i+1:]) || !clean(u.Insts[:p]) {
		return false
	}
	for _, b := range cmBetween(sx.b, u) {
		if !clean(b.Insts) {
			return false
		}
	}
	return true
}

// cmReadWords returns the distinct words in reads, in operand order, and
// whether all of them are virtual or zero registers. The list starts in a
// small array that stays on the caller's stack when the caller does not
// keep it (every pass asking this of every instruction made these lists a
// large share of the middle end's allocations).
func cmReadWords(in *ori.Inst) ([]cmWord, bool) {
	var buf [8]cmWord
	return cmAppendReadWords(buf[:0], in)
}

func cmAppendReadWords(out []cmWord, in *ori.Inst) ([]cmWord, bool) {
	ok := true
	var buf [16]ori.Reg
	for _, r := range cmAppendReads(buf[:0], in) {
		switch {
		case r.IsZero():
		case !r.Virtual:
			ok = false
		default:
		word:
			for w := 0; w < int(r.Words); w++ {
				k := cmWordOf(r, w)
				for _, x := range out { // a few words: no set needed
					if x == k {
						continue word
					}
				}
				out = append(out, k)
			}
		}
	}
	return out, ok
}

// cmResultWords returns the virtual words in writes, and whether every
// result is a virtual or zero register (in a small array, as
// cmReadWords).
func cmResultWords(in *ori.Inst) ([]cmWord, bool) {
	var buf [8]cmWord
	return cmAppendResultWords(buf[:0], in)
}

func cmAppendResultWords(out []cmWord, in *ori.Inst) ([]cmWord, bool) {
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg {
			return nil, false
		}
		switch {
		case o.Reg.IsZero():
		case !o.Reg.Virtual:
			return nil, false
		default:
			for w := 0; w < int(o.Reg.Words); w++ {
				out = append(out, cmWordOf(o.Reg, w))
			}
		}
	}
	return out, true
}

// sinkTarget returns the block in is sunk into and the index there before
// which it goes, or nil.
func (a *cmAnalysis) sinkTarget(in *ori.Inst) (*ori.Block, int) {
	if !cmPure(in) {
		return nil, 0
	}
	res, ok := cmResultWords(in)
	if !ok || len(res) == 0 {
		return nil, 0
	}
	d := a.at.at(in).b
	var u *ori.Block
	for _, w := range res {
		if a.soleDef(w) != in || a.phiUse(w) {
			return nil, 0
		}
		for _, use := range a.uses(w) {
			ub := a.at.at(use).b
			if u == nil {
				u = ub
			} else if ub != u {
				return nil, 0
			}
		}
	}
	if u == nil || u == d || !a.dom.Dominates(d, u) || a.onCycleAvoiding(u, d) {
		return nil, 0
	}
	// The source words are gathered only now: most instructions fail a
	// check above, and gathering them for every instruction of every
	// round was a third of this function.
	srcs, ok := cmReadWords(in)
	if !ok {
		return nil, 0
	}
	p := -1
	for i, x := range u.Insts {
		for _, w := range res {
			if cmReadsWord(x, w) {
				p = i
				break
			}
		}
		if p >= 0 {
			break
		}
	}
	if p < 0 || !a.unchangedBetween(in, u, p, srcs) {
		return nil, 0
	}
	// Register pressure: words whose live range the move stretches
	// against words whose range it shortens.
	stretch, shorten := 0, len(res)
	for _, w := range srcs {
		if !a.liveBefore(u, p, w) {
			stretch++
		}
	}
	if stretch > shorten || stretch == shorten && a.pdom.Dominates(u, d) {
		return nil, 0 // worse, or nothing to win: same pressure, same work
	}
	return u, p
}

// sinkCheckAnalysis, when set (by a test), sees the analysis sinkCode
// updated after every move beside one built from scratch.
var sinkCheckAnalysis func(updated, fresh *cmAnalysis)

// sinkCode sinks what it can in f and returns how many instructions moved.
func sinkCode(f *ori.Func, sites *Sites) (int, error) {
	moved := 0
	refused := map[*ori.Inst]bool{} // not proposed again
	var a *cmAnalysis
	defer func() {
		if a != nil {
			releaseCMAnalysis(a)
		}
	}()
	// Moving a pure instruction between blocks changes no edge (it is no
	// terminator, and it goes before a read, never after a terminator),
	// so the dominator trees hold for every round, and the analysis,
	// updated after every move, describes f at the start of the next
	// round as a rebuilt one would (TestSinkIncrementalAnalysis):
	// rebuilding both every round was a third of the phase.
	var doms cmDoms
	var walk []*ori.Inst
	for round := 0; round < cmMaxRounds; round++ {
		if err := f.ComputeCFG(); err != nil {
			return moved, err
		}
		if len(f.Blocks) < 2 {
			// An instruction only ever sinks into another block than its
			// own (sinkTarget): a one-block function needs no analysis.
			break
		}
		// The walk order is fixed at the start of the round: blocks in
		// layout order, each bottom-up.
		walk = walk[:0]
		for _, b := range f.Blocks {
			for i := len(b.Insts) - 1; i >= 0; i-- {
				walk = append(walk, b.Insts[i])
			}
		}
		if a == nil {
			doms = newCMDoms(f)
			a = newCMAnalysis(f, doms)
			// The pressure check asks about the sources of the few
			// instructions that pass every other check: solving those
			// words alone is cheaper than the whole function's liveness
			// (and a move then leaves no stale liveness behind).
			a.wordOnly = true
		}
		n := 0
		for _, in := range walk {
			if refused[in] {
				continue
			}
			u, p := a.sinkTarget(in)
			if u == nil {
				continue
			}
			if !sites.Allow(f, in.ID, fmt.Sprintf("sink into BB%d", u.ID)) {
				refused[in] = true
				continue
			}
			s := a.at.at(in)
			s.b.Insts = append(s.b.Insts[:s.i], s.b.Insts[s.i+1:]...)
			u.Insts = append(u.Insts[:p], append([]*ori.Inst{in}, u.Insts[p:]...)...)
			n++
			// Updated in place: rebuilding the analysis after every move
			// made sinking quadratic in the function's size.
			a.moved(in, s, u)
			if sinkCheckAnalysis != nil {
				sinkCheckAnalysis(a, newCMAnalysis(f, doms))
			}
		}
		moved += n
		if n == 0 {
			break
		}
	}
	return moved, nil
}

// cmPressure returns the largest number of virtual words of class c live
// at once at an instruction boundary of f (results count as live right
// after their instruction, as in ori.MaxPressure), at how many boundaries
// that number is reached, and the words live at those boundaries. The CFG
// must be current.
//
// Remat judges its trial steps by this measure through cmPressureState,
// which keeps it up to date incrementally (rematpressure.go); cmPressure
// computes it from scratch and is the reference the state is tested
// against.
func cmPressure(f *ori.Func, c ori.RegClass) (peak, at int, hot map[cmWord]bool) {
	live := ori.Liveness(f)
	index := map[cmWord]int32{}
	var words []cmWord
	id := func(w cmWord) int32 {
		if i, ok := index[w]; ok {
			return i
		}
		index[w] = int32(len(words))
		words = append(words, w)
		return int32(len(words) - 1)
	}
	type step struct {
		res, reads []int32 // class-c result and read words
		kill, phi  bool
	}
	outs := make([][]int32, len(f.Blocks))
	steps := make([][]step, len(f.Blocks))
	for bi, b := range f.Blocks {
		for _, r := range live.LiveOutWords(b) {
			if r.Class == c {
				outs[bi] = append(outs[bi], id(cmWordOf(r, 0)))
			}
		}
		ss := make([]step, len(b.Insts))
		for i, in := range b.Insts {
			st := step{kill: !in.Guarded(), phi: in.IsPhi()}
			res, _ := cmResultWords(in)
			for _, w := range res {
				if w.class == c {
					st.res = append(st.res, id(w))
				}
			}
			if !st.phi { // phi sources are read in the predecessors
				cmReads(in, func(r ori.Reg) {
					if r.Virtual && r.Class == c {
						for w := 0; w < int(r.Words); w++ {
							st.reads = append(st.reads, id(cmWordOf(r, w)))
						}
					}
				})
			}
			ss[i] = st
		}
		steps[bi] = ss
	}
	// The live set: members, and each word's position in it (-1: out).
	pos := make([]int32, len(words))
	for i := range pos {
		pos[i] = -1
	}
	var members []int32
	add := func(w int32) {
		if pos[w] < 0 {
			pos[w] = int32(len(members))
			members = append(members, w)
		}
	}
	remove := func(w int32) {
		if p := pos[w]; p >= 0 {
			last := members[len(members)-1]
			members[p], pos[last] = last, p
			members = members[:len(members)-1]
			pos[w] = -1
		}
	}
	walk := func(note func()) {
		for bi := range f.Blocks {
			for _, w := range members {
				pos[w] = -1
			}
			members = members[:0]
			for _, w := range outs[bi] {
				add(w)
			}
			note()
			ss := steps[bi]
			for i := len(ss) - 1; i >= 0; i-- {
				st := &ss[i]
				for _, w := range st.res {
					add(w)
				}
				note()
				if st.kill {
					for _, w := range st.res {
						remove(w)
					}
				}
				if st.phi {
					continue
				}
				for _, w := range st.reads {
					add(w)
				}
				note()
			}
		}
	}
	walk(func() {
		switch n := len(members); {
		case n > peak:
			peak, at = n, 1
		case n == peak:
			at++
		}
	})
	hot = map[cmWord]bool{}
	walk(func() {
		if len(members) == peak {
			for _, w := range members {
				hot[words[w]] = true
			}
		}
	})
	return peak, at, hot
}

// CheckSinkAnalysisForTest makes sinking compare the analysis it updates
// after every move with one built from scratch, and panic when they
// differ; the phase then fails with the message. It returns how many moves
// were checked so far, and a function that switches the check off. It is
// for tests only and not safe for use while other compilations run.
func CheckSinkAnalysisForTest() (checked func() int, restore func()) {
	n := 0
	sinkCheckAnalysis = func(u, f *cmAnalysis) {
		n++
		if d := cmAnalysisDiff(u, f); d != "" {
			panic(fmt.Sprintf("sink: incrementally updated analysis of %s differs from a fresh one: %s", u.f.Name, d))
		}
	}
	return func() int { return n }, func() { sinkCheckAnalysis = nil }
}

// cmAnalysisDiff names the first difference between two analyses of the
// same function, or returns "".
func cmAnalysisDiff(u, f *cmAnalysis) string {
	u.ensureWidth()
	f.ensureWidth()
	if u.live != nil || u.wordOnly {
		fresh := ori.Liveness(f.f)
		// Words liveBefore answers from u.live are checked there; the
		// others (stale, or every word of a wordOnly analysis) as
		// wordLiveOut solves them (not cached here, so the check leaves u
		// as it was).
		solved := map[cmWord][]uint64{}
		for _, b := range f.f.Blocks {
			for w := range f.width {
				for i := 0; i < f.width[w]; i++ {
					k := cmWord{n: w.n, class: w.class, w: uint8(i)}
					want := fresh.LiveOut(b, k.reg())
					fromLive := !u.wordOnly || u.phiGuard || u.phiUse(k)
					if u.live != nil && !u.liveStale[k] && fromLive {
						if u.live.LiveOut(b, k.reg()) != want {
							return fmt.Sprintf("liveness of %s out of BB%d", k.reg(), b.ID)
						}
						continue
					}
					if u.phiGuard || u.phiUse(k) {
						continue // liveBefore recomputes the whole liveness
					}
					set, ok := solved[k]
					if !ok {
						set = u.solveWordLive(k)
						solved[k] = set
					}
					if bi := u.bpos[b]; (set[bi/64]&(1<<(bi%64)) != 0) != want {
						return fmt.Sprintf("liveness of %s (solved alone) out of BB%d", k.reg(), b.ID)
					}
				}
			}
		}
	}
	if !u.at.equal(&f.at) {
		return "instruction sites"
	}
	if !maps.Equal(u.bpos, f.bpos) {
		return "block positions"
	}
	// Every word either analysis numbered (a word the other lacks has
	// no definitions, uses or phi uses there).
	for _, x := range [2]*cmAnalysis{u, f} {
		for _, e := range x.wordList() {
			switch {
			case !slices.Equal(u.defs(e), f.defs(e)):
				return "definitions"
			case !slices.Equal(u.uses(e), f.uses(e)):
				return "uses"
			case u.phiUse(e) != f.phiUse(e):
				return "phi uses"
			}
		}
	}
	if !maps.Equal(u.width, f.width) {
		return "register widths"
	}
	return ""
}
