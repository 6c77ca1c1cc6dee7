package opt

// OriCopyProp: global forward copy propagation over register words.
//
// This is the copy-propagation sub-pass of every GeneralOptimize bundle
// (wiki "GeneralOptimize Bundles", copy-propagation algorithms, seed lines
// 10358-10644) and the standalone OriCopyProp phase (index 22). ptxas marks
// propagatable operands with flag bits and lets later passes rewrite them;
// orilab rewrites the uses directly.
//
// Algorithm. A copy is an unguarded MOV or UMOV (never a MOV.PHI) whose
// result is a virtual R/UR register and whose source has no modifiers and
// is one of
//
//   - a virtual register of the same class (one word per copied word: a
//     MOV of .64 operands is two word copies),
//   - RZ/URZ, an integer or f32 immediate, or a constant-bank operand
//     without a base register (constant banks are read-only at run time);
//     these only for single-word results.
//
// Every copied word d <- s is one "copy". A classic available-copies
// dataflow problem runs over the CFG: a copy is generated where it
// executes, killed by any later write (guarded or not) to d or to a word
// of s, and available at a point when every path from the entry executes
// it with no kill in between (intersection at merges, the entry starts
// empty, unreachable blocks are left alone). Because at most one copy of a
// given word d can be available at a point, a use of d is then rewritten
// to s, chasing chains of copies a bounded number of times. This is the
// global version of "replace %a by %b while neither is redefined"; it
// needs no SSA form and no dominance, and loops are handled by the fixed
// point (a copy redefined in a loop body is not available at the loop
// header).
//
// What is rewritten:
//
//   - register sources of ordinary instructions, including address bases
//     of memory and constant-bank operands: a single-word use by any copy
//     source; a tuple use (%r5.64) only when every word maps to the
//     consecutive words of one register (%r9.64 -> %r8.64), never to an
//     immediate (an immediate in a 64-bit position is sign-extended);
//   - immediates, RZ and constant-bank operands only into the 32-bit value
//     slots of the ALU opcodes listed in immSlot (never into addresses,
//     stores, 64-bit slots such as IMAD.WIDE's addend or the f64 opcodes,
//     nor into any instruction with a 64-bit operand other than
//     IMAD.WIDE's 32-bit factors, and at most one constant-bank operand
//     per instruction), and only into operands without '-', '|..|' or '!'
//     modifiers.
//
// Constant predicates: an unguarded PLOP3 whose inputs are PT/!PT (what
// folding an ISETP produces) copies PT or !PT into its results, and so
// does an IADD3 that adds only zeros to one register (its carry-outs are
// !PT, as in the 64-bit add of a zero base); uses of
// those predicates in predicate sources become PT or !PT, and guards
// become PT (unguarded) or !PT, except on terminators (the CFG would
// change under MOV.PHI) and on warp collectives and barriers.
//
// Never touched: MOV.PHI sources, results, instructions with an
// unchecked signature (CALL, RET, BRX, BAR, P2R, R2P, BPT), and physical
// registers (they are shared with callees; a MOV from or to one is not a
// copy). The pass only rewrites uses; the now-dead copies stay for the
// *LiveDead* phases.
//
// Example:
//
//	#3 MOV %r1 = %r2                     #3 MOV %r1 = %r2
//	#5 MOV %r3 = c[0x0][0x0]      ==>    #5 MOV %r3 = c[0x0][0x0]
//	#7 IMAD %r6 = %r1, %r3, %r1          #7 IMAD %r6 = %r2, c[0x0][0x0], %r2
//
// Knob: CopyPropConstantBank=0 (ptxas: "propagate constant bank
// references") keeps constant-bank copies out of the propagation, here and
// in every GeneralOptimize bundle.
//
// Known limits: predicate-to-predicate copies and MOV.PHI operands are
// not propagated; no copy is propagated through a partial (guarded)
// definition.

import (
	"orilab/internal/keep"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "CopyPropConstantBank", Type: knobs.TypeBool, Default: "1",
		Doc:     "Propagate constant-bank operands (c[0x0][...]) copied into registers into their uses; 0 keeps them in their MOVs.",
		Readers: []string{"OriCopyProp", "GeneralOptimize*"}})
}

// CopyProp is forward copy propagation of register, immediate and
// constant-bank copies into their uses (available-copies dataflow; phase
// OriCopyProp).
var CopyProp = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		if err := f.ComputeCFG(); err != nil {
			return false, err
		}
		changed, _ := copyProp(f, c.Sites, c.Bool("CopyPropConstantBank"))
		return changed, nil
	},
}

// wkey is one word of a virtual register.
//
// Laid out as eight bytes of plain memory (see cmWord) for fast hashing.
type wkey struct {
	n     int32
	class ori.RegClass
	w     uint8
	pad   uint16 // always 0
}

func wordKey(r ori.Reg, i int) wkey { return wkey{n: r.N, class: r.Class, w: r.Off + uint8(i)} }

// cpEntry is one copied word: dst <- src.
type cpEntry struct {
	dst    wkey
	src    ori.Operand // single-word source (Reg.Words == 1 for registers)
	srcKey wkey
	srcReg bool // src is a virtual register word (srcKey valid)
}

// appendCopyCandidates appends the word copies in makes to out (one
// buffer for the whole function instead of a slice per copy).
func appendCopyCandidates(out []cpEntry, in *ori.Inst) []cpEntry {
	if in.Op == ori.OpPLOP3 {
		return append(out, predConstants(in)...)
	}
	if in.Op == ori.OpIADD3 || in.Op == ori.OpUIADD3 {
		return append(out, noCarry(in)...)
	}
	if (in.Op != ori.OpMOV && in.Op != ori.OpUMOV) || len(in.Mods) != 0 || in.Guarded() {
		return out
	}
	if len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return out
	}
	d, s := in.Dsts[0], in.Srcs[0]
	if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class.IsPred() || d.Reg.Words == 0 {
		return out
	}
	switch s.Kind {
	case ori.OpdReg:
		if s.Neg || s.Abs || s.Not {
			return out
		}
		r := s.Reg
		if r.IsZero() {
			if d.Reg.Words != 1 || r.Class.IsPred() {
				return out
			}
			return append(out, cpEntry{dst: wordKey(d.Reg, 0), src: ori.R(zeroFor(d.Reg.Class))})
		}
		if !r.Virtual || r.Class != d.Reg.Class || r.Words != d.Reg.Words {
			return out
		}
		if r.N == d.Reg.N {
			return out // a self or overlapping copy
		}
		for i := 0; i < int(r.Words); i++ {
			out = append(out, cpEntry{dst: wordKey(d.Reg, i), src: ori.R(r.Word(i)), srcKey: wordKey(r, i), srcReg: true})
		}
		return out
	case ori.OpdImm:
		if d.Reg.Words != 1 || s.FKind == ori.ImmF64 {
			return out
		}
		return append(out, cpEntry{dst: wordKey(d.Reg, 0), src: s})
	case ori.OpdCBank:
		if d.Reg.Words != 1 || s.HasBase {
			return out
		}
		return append(out, cpEntry{dst: wordKey(d.Reg, 0), src: s})
	}
	return out
}

// predConstants returns the constant predicates an unguarded PLOP3 with
// known inputs writes, as copies of PT or !PT.
func predConstants(in *ori.Inst) []cpEntry {
	if in.Guarded() || len(in.Srcs) != 5 || len(in.Dsts) > 2 || !hasOnlyMods(in, "LUT") {
		return nil
	}
	var v [3]uint32
	for i := 0; i < 3; i++ {
		p, ok := constPred(in.Srcs[i])
		if !ok {
			return nil
		}
		if p {
			v[i] = 1
		}
	}
	var out []cpEntry
	for j, d := range in.Dsts {
		lut := in.Srcs[3+j]
		if lut.Kind != ori.OpdImm {
			return nil
		}
		if d.Kind != ori.OpdReg || !d.Reg.Class.IsPred() {
			return nil
		}
		if !d.Reg.Virtual {
			continue
		}
		val := lop3(uint32(lut.Imm), v[0], v[1], v[2])&1 != 0
		src := ori.R(ori.PT)
		if d.Reg.Class == ori.ClassUP {
			src = ori.R(ori.UPT)
		}
		src.Not = !val
		out = append(out, cpEntry{dst: wordKey(d.Reg, 0), src: src})
	}
	return out
}

// noCarry returns the carry-outs of an unguarded IADD3 (without .X)
// that adds zeros to one unmodified register as copies of !PT: the sum is
// below 2^32, so both carries are false. (A negated zero contributes 2^32
// and is not a zero here.)
func noCarry(in *ori.Inst) []cpEntry {
	if in.Guarded() || len(in.Mods) != 0 || len(in.Dsts) < 2 || len(in.Srcs) != 3 {
		return nil
	}
	unknown := 0
	for _, o := range in.Srcs {
		switch {
		case o.Kind == ori.OpdImm && o.Imm == 0 && o.FKind == ori.ImmInt:
		case o.Kind == ori.OpdReg && o.Reg.IsZero() && !o.Neg && !o.Not:
		case o.Kind == ori.OpdReg && !o.Neg && !o.Not && !o.Reg.Class.IsPred():
			unknown++
		default:
			return nil
		}
	}
	if unknown > 1 {
		return nil
	}
	var out []cpEntry
	for _, d := range in.Dsts[1:] {
		if d.Kind != ori.OpdReg || !d.Reg.Class.IsPred() || !d.Reg.Virtual {
			continue
		}
		src := ori.R(ori.PT)
		if d.Reg.Class == ori.ClassUP {
			src = ori.R(ori.UPT)
		}
		src.Not = true
		out = append(out, cpEntry{dst: wordKey(d.Reg, 0), src: src})
	}
	return out
}

func zeroFor(c ori.RegClass) ori.Reg {
	if c == ori.ClassUR {
		return ori.URZ
	}
	return ori.RZ
}

// uncheckedSig reports opcodes whose operands the verifier does not check
// ("*" signatures); the pass leaves their operands alone.
func uncheckedSig(op ori.Opcode) bool {
	switch op {
	case ori.OpCALL, ori.OpRET, ori.OpBRX, ori.OpBAR, ori.OpP2R, ori.OpR2P, ori.OpBPT, ori.OpInvalid:
		return true
	}
	return false
}

// immSlot reports whether source i of in is a 32-bit value slot that may
// hold an immediate, RZ or a constant-bank operand instead of a register.
func immSlot(in *ori.Inst, i int) bool {
	// Stay out of instructions with 64-bit operands (an immediate there
	// would be sign-extended), except IMAD.WIDE's 32-bit factors.
	if !(in.HasMod("WIDE") && i < 2) {
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Words > 1 {
				return false
			}
		}
		for _, o := range in.Srcs {
			if o.Kind == ori.OpdReg && o.Reg.Words > 1 {
				return false
			}
		}
	}
	switch in.Op {
	case ori.OpIADD3, ori.OpUIADD3, ori.OpLOP3, ori.OpULOP3, ori.OpSHF, ori.OpUSHF, ori.OpPRMT, ori.OpIDP:
		return i < 3
	case ori.OpIMAD, ori.OpUIMAD:
		return i < 2 || i == 2 && !in.HasMod("WIDE")
	case ori.OpISETP, ori.OpUISETP, ori.OpIMNMX, ori.OpSEL, ori.OpUSEL, ori.OpBMSK, ori.OpSGXT:
		return i < 2
	case ori.OpLEA:
		return i < 2 || i == 2 && in.HasMod("HI")
	case ori.OpIABS, ori.OpPOPC, ori.OpFLO, ori.OpBREV:
		return i == 0
	case ori.OpMOV, ori.OpUMOV:
		return i == 0 && !in.IsPhi() && len(in.Dsts) == 1 && in.Dsts[0].Kind == ori.OpdReg && in.Dsts[0].Reg.Words == 1
	case ori.OpFADD, ori.OpFMUL, ori.OpFMNMX, ori.OpFSETP, ori.OpFSEL, ori.OpFSET:
		return i < 2 && !in.HasMod("F64")
	case ori.OpFFMA:
		return i < 3
	}
	return false
}

// bitset over copy indices.
type cpSet []uint64

func (s cpSet) set(i int)        { s[i/64] |= 1 << (i % 64) }
func (s cpSet) clear(i int)      { s[i/64] &^= 1 << (i % 64) }
func (s cpSet) has(i int) bool   { return s[i/64]&(1<<(i%64)) != 0 }
func (s cpSet) copyFrom(o cpSet) { copy(s, o) }
func (s cpSet) fill() {
	for i := range s {
		s[i] = ^uint64(0)
	}
}

// cpScratch is what copyProp keeps between runs: the dense word table,
// the copy buffer, the available sets' array and every other table of
// the problem (each run over a large function made them afresh, and
// fresh memory costs page faults on top of the allocation).
type cpScratch struct {
	words   wordIDs
	entries []cpEntry
	sets    []uint64
	// Per block: ends and preds (slices of allEnds and preds' buffer),
	// starts, reach, the summaries, in and out sets.
	ends   [][]int32
	preds  [][]int32
	starts []int32
	reach  []bool
	sum    []cpBlock
	in     []cpSet
	out    []cpSet
	// blockPos[id] is 1 + the layout index of the block with that ID.
	blockPos []int32
	stack    []*ori.Block
	// Per instruction, copy, word or edge.
	allEnds, ids, count, lists, killBuf, genBuf, predBuf []int32
	defBuf, defOff, instBase                             []int32
	// dstRead marks the copies' destinations that are read.
	dstRead         wordTable[uint8]
	touching, byDst [][]int32
	seen            []bool
	cur             cpSet
}

var cpPool keep.Pool[cpScratch]

// growScratch returns s with length n, reusing its array when it is large
// enough; the contents are not cleared.
func growScratch[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// release empties the word table p numbered (every word it numbered is a
// copy's destination or source) and hands the buffers back to the pool.
func (sc *cpScratch) release(p *copyProblem) {
	for i := range p.entries {
		e := &p.entries[i]
		p.words.forget(e.dst)
		if e.srcReg {
			p.words.forget(e.srcKey)
		}
	}
	clear(p.words.other)
	p.words.n = 0
	sc.words, sc.entries = p.words, p.entries[:0]
	sc.ends, sc.touching, sc.byDst = p.ends, p.touching, p.byDst
	clear(sc.stack[:cap(sc.stack)]) // the pool keeps sc: hold no blocks
	cpPool.Put(sc)
}

type copyProblem struct {
	entries []cpEntry
	// words numbers the register words the copies name (dst or src).
	words wordIDs
	// touching[w]: copy indices whose dst or src is word w; byDst[w]:
	// those whose dst is w.
	touching, byDst [][]int32
	// ends[b][j] is the index after the copies instruction j of block b
	// generates, and starts[b] the index of block b's first copy (they
	// are numbered in program order: see first).
	ends   [][]int32
	starts []int32
	// scratch for word ids of one instruction's writes.
	defs []int32
	// defBuf[defOff[g]:defOff[g+1]] are the ids instruction g (in layout
	// order; block bi's first is instBase[bi]) writes.
	defBuf, defOff, instBase []int32
	// unsettled: a rewrite may let a second run rewrite more (see
	// copyProp's settled result).
	unsettled bool
}

// defIDs returns the ids of the numbered words in writes (unnumbered
// words touch no copy).
func (p *copyProblem) defIDs(in *ori.Inst) []int32 {
	p.defs = p.defs[:0]
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual {
			for i := 0; i < int(o.Reg.Words); i++ {
				if id, ok := p.words.get(wordKey(o.Reg, i)); ok {
					p.defs = append(p.defs, id)
				}
			}
		}
	}
	return p.defs
}

// defsAt returns the ids of the numbered words instruction j of block bi
// writes (defIDs, computed once per run: the summaries and the rewrite
// walk ask for them again).
func (p *copyProblem) defsAt(bi, j int) []int32 {
	g := int(p.instBase[bi]) + j
	return p.defBuf[p.defOff[g]:p.defOff[g+1]]
}

// first returns the index of the first copy instruction j of block bi
// generates (its copies are [first, ends[bi][j])).
func (p *copyProblem) first(bi, j int) int32 {
	if j > 0 {
		return p.ends[bi][j-1]
	}
	return p.starts[bi]
}

// step applies instruction j of block bi to avail: the copies touching a
// word it writes die, then its own copies become available.
func (p *copyProblem) step(avail cpSet, bi, j int) {
	for _, w := range p.defsAt(bi, j) {
		for _, c := range p.touching[w] {
			avail.clear(int(c))
		}
	}
	for c := p.first(bi, j); c < p.ends[bi][j]; c++ {
		avail.set(int(c))
	}
}

// lookup returns the available copy whose destination is k.
func (p *copyProblem) lookup(avail cpSet, k wkey) (cpEntry, bool) {
	id, ok := p.words.get(k)
	if !ok {
		return cpEntry{}, false
	}
	for _, c := range p.byDst[id] {
		if avail.has(int(c)) {
			return p.entries[c], true
		}
	}
	return cpEntry{}, false
}

// cpBlock summarizes one block for the fixed point: the words it writes
// (each copy touching one dies) and the copies it generates that survive
// to its end.
type cpBlock struct {
	kills []int32
	gens  []int32
}

// copyProp runs one round of global copy propagation over f (whose CFG
// must be current) and reports whether it rewrote any operand, and
// whether a second run right after it would rewrite nothing (settled).
//
// A run settles f when it rewrote no operand of an instruction that
// makes copies (MOV, UMOV, PLOP3, IADD3, UIADD3) and chased no chain of
// copies to its bound: rewriting uses changes no write, so the copies
// and where they are available stay as they were, and every use left
// with an available copy is one this run declined for reasons (operand
// slot, modifiers, an IADD3's special slot, constant banks) that its own
// rewrites only made stricter. GeneralOptimize then skips the run that
// would only confirm it.
func copyProp(f *ori.Func, s *Sites, cbank bool) (changed, settled bool) {
	// The word numbering, the copies, the available sets and the other
	// tables are kept between runs (cpScratch): every GeneralOptimize
	// round of every phase runs this over the whole function.
	sc := cpPool.Get()
	nb := len(f.Blocks)
	p := &copyProblem{ends: growScratch(sc.ends, nb), starts: growScratch(sc.starts, nb)}
	sc.starts = p.starts
	p.words, p.entries = sc.words, sc.entries[:0]
	p.touching, p.byDst = sc.touching, sc.byDst
	defer sc.release(p)
	// The copies go into one buffer, the per-instruction ends into one
	// array, and the per-word lists into two arrays cut by word (counted
	// first): a slice per copy, per block and per word was most of the
	// pass's allocations.
	nInsts := 0
	for _, b := range f.Blocks {
		nInsts += len(b.Insts)
	}
	sc.allEnds = growScratch(sc.allEnds, nInsts)
	allEnds := sc.allEnds
	for bi, b := range f.Blocks {
		ends := allEnds[:len(b.Insts):len(b.Insts)]
		allEnds = allEnds[len(b.Insts):]
		p.starts[bi] = int32(len(p.entries))
		for j, in := range b.Insts {
			start := len(p.entries)
			p.entries = appendCopyCandidates(p.entries, in)
			if !cbank { // CopyPropConstantBank=0
				kept := p.entries[:start]
				for _, e := range p.entries[start:] {
					if e.src.Kind != ori.OpdCBank {
						kept = append(kept, e)
					}
				}
				p.entries = kept
			}
			ends[j] = int32(len(p.entries))
		}
		p.ends[bi] = ends
	}
	p.dropUnread(f, sc)
	sc.ids = growScratch(sc.ids, 2*len(p.entries))
	ids := sc.ids // dst and src word ids per copy (-1: none)
	for c := range p.entries {
		e := &p.entries[c]
		ids[2*c], ids[2*c+1] = p.words.add(e.dst), -1
		if e.srcReg {
			ids[2*c+1] = p.words.add(e.srcKey)
		}
	}
	nw := int(p.words.n)
	sc.count = growScratch(sc.count, 2*nw)
	count := sc.count // touching, then byDst
	clear(count)
	for c := range p.entries {
		count[ids[2*c]]++
		count[nw+int(ids[2*c])]++
		if id := ids[2*c+1]; id >= 0 {
			count[id]++
		}
	}
	p.touching, p.byDst = growScratch(p.touching, nw), growScratch(p.byDst, nw)
	sc.lists = growScratch(sc.lists, 3*len(p.entries))
	lists := sc.lists[:0]
	for w := 0; w < nw; w++ {
		k := int(count[w])
		p.touching[w] = lists[len(lists) : len(lists) : len(lists)+k]
		lists = lists[:len(lists)+k]
	}
	for w := 0; w < nw; w++ {
		k := int(count[nw+w])
		p.byDst[w] = lists[len(lists) : len(lists) : len(lists)+k]
		lists = lists[:len(lists)+k]
	}
	for c := range p.entries {
		d := ids[2*c]
		p.touching[d] = append(p.touching[d], int32(c))
		p.byDst[d] = append(p.byDst[d], int32(c))
		if sid := ids[2*c+1]; sid >= 0 {
			p.touching[sid] = append(p.touching[sid], int32(c))
		}
	}
	n := len(p.entries)
	if n == 0 || nb == 0 {
		return false, true
	}
	// The layout index of a block, found by its ID (IDs are small and
	// dense: Func.NewBlock counts up), or in a map for IDs out of range.
	maxID := int32(-1)
	for _, b := range f.Blocks {
		maxID = max(maxID, b.ID)
	}
	var posMap map[*ori.Block]int
	dense := maxID < int32(4*nb+64)
	if dense {
		sc.blockPos = growScratch(sc.blockPos, int(maxID)+1)
		clear(sc.blockPos)
		for i, b := range f.Blocks {
			if b.ID < 0 || sc.blockPos[b.ID] != 0 {
				dense = false // a negative or repeated ID (parsed IR only)
				break
			}
			sc.blockPos[b.ID] = int32(i) + 1
		}
	}
	if !dense {
		posMap = make(map[*ori.Block]int, nb)
		for i, b := range f.Blocks {
			posMap[b] = i
		}
	}
	pos := func(b *ori.Block) (int, bool) {
		if posMap != nil {
			i, ok := posMap[b]
			return i, ok
		}
		if id := b.ID; id >= 0 && int(id) < len(sc.blockPos) {
			if i := int(sc.blockPos[id]) - 1; i >= 0 && f.Blocks[i] == b {
				return i, true
			}
		}
		return 0, false
	}
	sc.reach = growScratch(sc.reach, nb)
	reach := sc.reach
	clear(reach)
	stack := append(sc.stack[:0], f.Blocks[0])
	reach[0] = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range b.Succs {
			if i, ok := pos(s); ok && !reach[i] {
				reach[i] = true
				stack = append(stack, s)
			}
		}
	}
	sc.stack = stack
	// The numbered words each instruction writes, once for the run.
	sc.instBase = growScratch(sc.instBase, nb)
	sc.defOff = growScratch(sc.defOff, nInsts+1)
	defBuf := sc.defBuf[:0]
	g := 0
	for bi, b := range f.Blocks {
		sc.instBase[bi] = int32(g)
		for _, in := range b.Insts {
			sc.defOff[g] = int32(len(defBuf))
			defBuf = append(defBuf, p.defIDs(in)...)
			g++
		}
	}
	sc.defOff[g] = int32(len(defBuf))
	sc.defBuf = defBuf
	p.defBuf, p.defOff, p.instBase = defBuf, sc.defOff, sc.instBase
	// Each block is summarized once (the words it writes, the copies it
	// generates that survive it), so that the fixed point does not walk
	// the instructions again on every sweep.
	sc.sum = growScratch(sc.sum, nb)
	sum := sc.sum
	sc.seen = growScratch(sc.seen, len(p.touching))
	seen := sc.seen
	clear(seen)
	// The blocks' kills and gens fill two shared buffers, each block's
	// lists starting where the previous block's end.
	// (A block generates each copy at most once: n bounds the gens.)
	sc.killBuf, sc.genBuf = growScratch(sc.killBuf, 2*nInsts), growScratch(sc.genBuf, n)
	killBuf, genBuf := sc.killBuf[:0], sc.genBuf[:0]
	for bi, b := range f.Blocks {
		if !reach[bi] {
			continue
		}
		kills := killBuf[:0]
		for j := range b.Insts {
			for _, w := range p.defsAt(bi, j) {
				if !seen[w] {
					seen[w] = true
					kills = append(kills, w)
				}
			}
		}
		for _, w := range kills {
			seen[w] = false
		}
		// A copy survives when no later instruction of the block writes
		// its dst or src: walk backward collecting the written words.
		gens := genBuf[:0]
		for j := len(b.Insts) - 1; j >= 0; j-- {
			for c := p.first(bi, j); c < p.ends[bi][j]; c++ {
				e := &p.entries[c]
				if dead := p.killedLater(e, seen); !dead {
					gens = append(gens, c)
				}
			}
			for _, w := range p.defsAt(bi, j) {
				seen[w] = true
			}
		}
		for _, w := range kills {
			seen[w] = false
		}
		killBuf, genBuf = kills[len(kills):], gens[len(gens):]
		sum[bi] = cpBlock{kills: kills[:len(kills):len(kills)], gens: gens[:len(gens):len(gens)]}
	}
	sc.preds = growScratch(sc.preds, nb)
	preds := sc.preds
	nEdges := 0
	for _, b := range f.Blocks {
		nEdges += len(b.Preds)
	}
	sc.predBuf = growScratch(sc.predBuf, nEdges)
	predBuf := sc.predBuf[:0]
	for i, b := range f.Blocks {
		preds[i] = nil
		if !reach[i] {
			continue
		}
		ps := predBuf[len(predBuf):]
		for _, pb := range b.Preds {
			if pi, ok := pos(pb); ok && reach[pi] {
				ps = append(ps, int32(pi))
			}
		}
		if len(ps) > 0 {
			preds[i] = ps[:len(ps):len(ps)]
			predBuf = predBuf[:len(predBuf)+len(ps)]
		}
	}
	sc.in, sc.out = growScratch(sc.in, nb), growScratch(sc.out, nb)
	in, out := sc.in, sc.out
	sw := (n + 63) / 64
	// Every block's two sets in one array; in[i] is written before it is
	// read and out[i] is filled below, so what an earlier run left in
	// the array does not matter.
	sc.sets = growScratch(sc.sets, 2*nb*sw)
	sets := sc.sets
	for i := range f.Blocks {
		in[i], sets = cpSet(sets[:sw:sw]), sets[sw:]
		out[i], sets = cpSet(sets[:sw:sw]), sets[sw:]
		out[i].fill() // optimistic start for a must-analysis
	}
	sc.cur = growScratch(sc.cur, sw)
	cur := sc.cur
	// Sweeps in block order until nothing changes: the greatest fixed
	// point is the same in any order.
	for changed := true; changed; {
		changed = false
		for i := range f.Blocks {
			if !reach[i] {
				continue
			}
			if i == 0 {
				clear(cur)
			} else {
				cur.fill()
				for _, pi := range preds[i] {
					for j := range cur {
						cur[j] &= out[pi][j]
					}
				}
			}
			in[i].copyFrom(cur)
			for _, w := range sum[i].kills {
				for _, c := range p.touching[w] {
					cur.clear(int(c))
				}
			}
			for _, c := range sum[i].gens {
				cur.set(int(c))
			}
			for j := range cur {
				if cur[j] != out[i][j] {
					changed = true
					out[i][j] = cur[j]
				}
			}
		}
	}
	for i, b := range f.Blocks {
		if !reach[i] {
			continue
		}
		cur.copyFrom(in[i])
		for j, ins := range b.Insts {
			if s == nil { // no closure per instruction
				if p.rewriteUses(ins, cur) {
					changed = true
					if makesCopies(ins.Op) {
						p.unsettled = true
					}
				}
			} else if s.Try(f, ins, "propagate copies into the sources", func() bool { return p.rewriteUses(ins, cur) }) {
				changed = true
				p.unsettled = true // not claimed under a site limit
			}
			p.step(cur, i, j)
		}
	}
	return changed, !p.unsettled
}

// makesCopies reports the opcodes appendCopyCandidates may take copies
// from.
func makesCopies(op ori.Opcode) bool {
	switch op {
	case ori.OpMOV, ori.OpUMOV, ori.OpPLOP3, ori.OpIADD3, ori.OpUIADD3:
		return true
	}
	return false
}

// dropUnread removes the copies whose destination no instruction reads
// (typically the copies an earlier run propagated everywhere, left for
// dead-code elimination), renumbering the rest and the per-instruction
// ends. A use is only rewritten through a copy of the word it reads, or
// through a copy of a copy's source (which the copy reads), and each
// copy's availability depends on the definitions alone, so the copies
// left make the same rewrites; the dataflow then runs over fewer.
func (p *copyProblem) dropUnread(f *ori.Func, sc *cpScratch) {
	if len(p.entries) == 0 {
		return
	}
	t := &sc.dstRead // 1: a copy's destination, 2: one that is read
	t.reset()
	for i := range p.entries {
		t.set(p.entries[i].dst, 1)
	}
	mark := func(r ori.Reg) {
		if !r.Virtual {
			return
		}
		for i := 0; i < int(r.Words); i++ {
			k := wordKey(r, i)
			if v, ok := t.get(k); ok && v == 1 {
				t.set(k, 2)
			}
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			mark(in.Guard)
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
					mark(o.Reg)
				}
			}
		}
	}
	kept := 0
	for bi := range p.ends {
		c := int(p.starts[bi])
		p.starts[bi] = int32(kept)
		ends := p.ends[bi]
		for j, end := range ends {
			for ; c < int(end); c++ {
				if v, _ := t.get(p.entries[c].dst); v == 2 {
					p.entries[kept] = p.entries[c]
					kept++
				}
			}
			ends[j] = int32(kept)
		}
	}
	p.entries = p.entries[:kept]
}

// killedLater reports whether a word of copy e (its dst, or its src
// register word) is marked in written.
func (p *copyProblem) killedLater(e *cpEntry, written []bool) bool {
	if id, ok := p.words.get(e.dst); ok && written[id] {
		return true
	}
	if e.srcReg {
		if id, ok := p.words.get(e.srcKey); ok && written[id] {
			return true
		}
	}
	return false
}

// rewriteUses replaces the sources of in by the available copies' sources.
func (p *copyProblem) rewriteUses(in *ori.Inst, avail cpSet) bool {
	if in.IsPhi() || uncheckedSig(in.Op) {
		return false
	}
	// A MOV whose result is wider than its source reads the words after
	// the source register; leave such a MOV alone.
	if (in.Op == ori.OpMOV || in.Op == ori.OpUMOV) && len(in.Dsts) == 1 && len(in.Srcs) == 1 &&
		in.Srcs[0].Kind == ori.OpdReg && in.Dsts[0].Reg.Words != in.Srcs[0].Reg.Words {
		return false
	}
	changed := false
	// A guard with a known value becomes PT or !PT, except on
	// terminators (that would change the CFG) and on warp collectives
	// and barriers (never made conditional or unconditional here).
	// Nor on writes of physical registers: the frame release before a
	// guarded RET (@P IADD3 R1 = R1, FRAME) must stay as guarded as the
	// RET, which keeps its guard here.
	if in.Guard.Virtual && !in.EndsBlock() && in.Op.Flags()&(ori.FWarp|ori.FBarrier) == 0 && !writesPhysical(in) {
		if e, ok := p.lookup(avail, wordKey(in.Guard, 0)); ok && !e.srcReg {
			not := in.GuardNot != e.src.Not
			in.Guard = e.src.Reg
			in.GuardNot = not
			if !not {
				in.Guard = ori.PT
			}
			changed = true
		}
	}
	for i := range in.Srcs {
		o := &in.Srcs[i]
		switch o.Kind {
		case ori.OpdReg:
			if o.Reg.Virtual && o.Reg.Class.IsPred() {
				if e, ok := p.lookup(avail, wordKey(o.Reg, 0)); ok && !e.srcReg {
					not := o.Not != e.src.Not
					*o = e.src
					o.Not = not
					changed = true
				}
				continue
			}
			if !o.Reg.Virtual {
				continue
			}
			if nr, ok := p.regSubst(o.Reg, avail); ok {
				o.Reg = nr
				changed = true
			}
			if o.Reg.Words != 1 || o.Neg || o.Abs || o.Not || !o.Reg.Virtual {
				continue
			}
			// The copy first: most uses have none, and immSlot looks
			// at every operand and modifier of in.
			e, ok := p.lookup(avail, wordKey(o.Reg, 0))
			if !ok || e.srcReg || !immSlot(in, i) {
				continue
			}
			if e.src.Kind == ori.OpdCBank && hasCBank(in, i) {
				continue
			}
			if in.Op == ori.OpIADD3 && iadd3Special(in, i) && (e.src.Kind == ori.OpdCBank || e.src.Kind == ori.OpdImm) {
				// Decision: IADD3 has one immediate-or-constant slot
				// (source B); a second one is moved back into a register
				// by PostFixForMercTargets, MOV R, c[..] and IADD3 where
				// the copy's register would have served (surf_forms -O3:
				// five such pairs, issue 21's dynamic count).
				continue
			}
			reuse := o.Reuse
			*o = e.src
			if o.Kind == ori.OpdReg {
				o.Reuse = reuse
			}
			changed = true
		case ori.OpdMem, ori.OpdCBank:
			if !o.HasBase || !o.Reg.Virtual {
				continue
			}
			if nr, ok := p.regSubst(o.Reg, avail); ok {
				o.Reg = nr
				changed = true
			}
		}
	}
	return changed
}

// iadd3Special reports whether an IADD3 addend other than skip is an
// immediate or a constant-bank operand.
func iadd3Special(in *ori.Inst, skip int) bool {
	for j, o := range in.Srcs {
		if j != skip && j < 3 && (o.Kind == ori.OpdImm || o.Kind == ori.OpdCBank) {
			return true
		}
	}
	return false
}

// hasCBank reports whether a source other than skip is a constant-bank
// operand.
func hasCBank(in *ori.Inst, skip int) bool {
	for j, o := range in.Srcs {
		if j != skip && o.Kind == ori.OpdCBank {
			return true
		}
	}
	return false
}

// regSubst maps a virtual register use through available register copies
// (chasing chains a bounded number of times). Every word must map to the
// consecutive words of one register.
func (p *copyProblem) regSubst(r ori.Reg, avail cpSet) (ori.Reg, bool) {
	changed := false
	for step := 0; ; step++ {
		if step == 8 {
			// The bound cut the chain: a second run may chase it on.
			p.unsettled = true
			break
		}
		var nr ori.Reg
		ok := true
		for i := 0; i < int(r.Words) && ok; i++ {
			e, found := p.lookup(avail, wordKey(r, i))
			if !found || !e.srcReg {
				ok = false
				break
			}
			s := e.src.Reg
			if i == 0 {
				nr = s
				nr.Words = r.Words
				continue
			}
			if s.Class != nr.Class || s.N != nr.N || int(s.Off) != int(nr.Off)+i {
				ok = false
			}
		}
		if !ok || int(nr.Off)%int(nr.Words) != 0 {
			// A multi-word use must stay an aligned tuple: the
			// register allocator places an n-word access at a multiple
			// of n (words 1-2 of a 4-word MMA result copied into an
			// operand pair stay a copy; fuzz seed 26191424 at -O1).
			break
		}
		r = nr
		changed = true
	}
	return r, changed
}

// writesPhysical reports whether in writes a physical register other than
// the zero registers (the stack pointer, ABI registers).
func writesPhysical(in *ori.Inst) bool {
	for _, d := range in.Dsts {
		if d.Kind == ori.OpdReg && !d.Reg.Virtual && !d.Reg.IsZero() {
			return true
		}
	}
	return false
}
