// OriCommoning and LateOriCommoning: local common-subexpression
// elimination (ptxas phases 57 and 70).
//
// The ptxas wiki ("Copy Propagation & CSE", LateOriCommoning, sub_9055F0)
// describes the late commoning walker: operands are first mapped to their
// canonical representatives through MOV equivalences, pure instructions
// are hashed (opcode, type, operand value numbers, immediates, predicate),
// and an instruction whose hash matches an earlier, still-available one
// has its result replaced by a MOV of the earlier result (ptxas inserts
// MOV 0x124 the same way in GvnCse). orilab implements the block-local
// form of that walker with value numbers:
//
//   - Every register word (virtual register and word, or physical register
//     number) has a current value number. A word read before any definition
//     in the block gets a fresh number; every definition gives its words a
//     fresh number, except an unguarded plain MOV of a register, whose
//     result words take the source words' numbers (the "MOV equivalence"
//     of the wiki), and a commoned instruction, which takes the numbers of
//     the result it copies.
//   - A candidate is an unguarded, pure instruction (no side effect,
//     memory, barrier, warp-collective, call or control flag; not a MOV,
//     not MOV.PHI; not S2R/CS2R of a time-varying or scheduling-dependent
//     special register: SR_CLOCK*, SR_GLOBALTIMER*, SR_WARPID, SR_SMID)
//     with exactly one non-zero result, an R register of 1 or 2 words
//     (other results must be RZ/PT). Its key is the opcode, the modifiers,
//     the result shape and the sources by value number (with their
//     -, |..| and ! flags); IADD3 and IMAD without modifiers sort their
//     commutative sources. ptxas hashes the same fields with FNV-1a; a
//     hash table over the canonical key bytes does the same job.
//   - When a candidate's key is in the table and the recorded result
//     register still holds the recorded value numbers, the candidate is
//     rewritten in place (same ID) into MOV dst = earlier result (a .64
//     MOV for two-word results). Otherwise it enters the table.
//
// Example:
//
//	IMAD %r6 = %r3, %r5, %r1          IMAD %r6 = %r3, %r5, %r1
//	MOV %r9 = %r5                 =>  MOV %r9 = %r5
//	IMAD %r7 = %r9, %r3, %r1          MOV %r7 = %r6
//
// The MOV is left to copy propagation and dead-code elimination.
//
// Physical registers are shared with callees: a CALL forgets every
// physical register's value number. Instructions whose results are not
// plain registers or that write registers implicitly (CALL, R2P) reset
// all value numbers. Guarded definitions give fresh numbers (the old value
// may survive).
//
// A second, dominator-scoped walk (see commonDominated) commons
// instructions across blocks when every register involved has a single,
// unguarded definition in the function (always true in partial-SSA form
// for the registers the SSA construction renamed).
//
// Knobs: DisableCSE switches both positions off; DisableMoveCommoning
// (the wiki's "MOV-based equivalence propagation within the commoning
// walker") gives every MOV result a fresh value number.
//
// Known limits: across blocks only single-definition registers are
// considered, and copies are not looked through; predicate results (ISETP, FSETP...) and
// instructions with two live results (IADD3 with a carry-out) are not
// commoned; loads, even from constant banks, are not commoned; float
// operations are never reordered (NaN payloads depend on operand order).
package opt

import (
	"bytes"
	"hash/maphash"
	"orilab/internal/keep"
	"sort"
	"strconv"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	for _, k := range []knobs.Knob{
		{Name: "DisableCSE", Type: knobs.TypeBool,
			Doc: "Switch off common-subexpression elimination (OriCommoning, LateOriCommoning)."},
		{Name: "DisableMoveCommoning", Type: knobs.TypeBool,
			Doc: "Do not treat a MOV's result as equal to its source in the commoning walker (MOV equivalence)."},
	} {
		k.Readers = []string{"OriCommoning", "LateOriCommoning"}
		knobs.Default.Register(k)
	}
}

// Commoning is block-local CSE by value numbering: a repeated pure
// computation becomes a MOV of the earlier result (phases OriCommoning and
// LateOriCommoning).
var Commoning = Pass{
	Run: runCommoning,
	NoOp: func(c *Context) string {
		if c.Bool("DisableCSE") {
			return "switched off by the knob DisableCSE"
		}
		return ""
	},
}

func runCommoning(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableCSE") {
		return false, nil
	}
	changed := false
	// One state serves every block (emptied between them), and is kept
	// between runs, so that its tables keep their room instead of
	// growing again in every block.
	s := csePool.Get()
	defer csePool.Put(s)
	if s.index == nil {
		s.index = map[uint64]int32{}
		s.seed = maphash.MakeSeed()
	}
	moveEquiv := !c.Bool("DisableMoveCommoning")
	for _, b := range f.Blocks {
		if commonBlock(f, b, c.Sites, moveEquiv, s) {
			changed = true
		}
	}
	if len(f.Blocks) > 1 {
		if err := f.ComputeCFG(); err != nil {
			return changed, err
		}
		if commonDominated(f, c.Sites) {
			changed = true
		}
	}
	return changed, nil
}

// wordKey identifies one 32-bit register word for value numbering.
//
// Laid out as eight bytes of plain memory (see cmWord) for fast hashing.
type cseWord struct {
	n       int32
	class   ori.RegClass
	virtual bool
	word    uint8
	pad     uint8 // always 0
}

// cseWordOf returns word i of r.
func cseWordOf(r ori.Reg, i int) cseWord {
	if r.Virtual {
		return cseWord{n: r.N, class: r.Class, virtual: true, word: r.Off + uint8(i)}
	}
	return cseWord{n: r.N + int32(i), class: r.Class}
}

type cseAvail struct {
	dst ori.Reg
	vns []int
}

type cseState struct {
	names bool // key registers by name (stable registers) instead of value number
	// vn holds the value numbers of virtual register words, pvn those of
	// physical registers (a CALL forgets pvn alone); dense tables that
	// empty in constant time (a map cleared for every block was most
	// of the walk).
	vn, pvn wordTable[int]
	// The block's table of available computations: entries by the hash
	// of their key (chained when two keys share a hash), the keys and
	// the value numbers in buffers emptied per block (a string and a
	// slice per candidate instruction were most of the walk's
	// allocations).
	index map[uint64]int32 // 1 + the newest entry with the hash
	ents  []cseEntry
	keys  []byte
	vnBuf []int
	seed  maphash.Seed
	// movVNs is the walk's scratch for a copied register's numbers.
	movVNs []int
	next   int
	// buf and tmp are instKey's reused buffers.
	buf, tmp []byte
}

func (s *cseState) fresh() int {
	s.next++
	return s.next
}

func (s *cseState) get(w cseWord) int {
	t, k := s.vnTable(w)
	if v, ok := t.get(k); ok {
		return v
	}
	v := s.fresh()
	t.set(k, v)
	return v
}

// cseEntry is one computation in the block's table: its key
// (keys[lo:hi]), the previous entry with the same hash (-1: none) and
// where its value is.
type cseEntry struct {
	lo, hi int32
	next   int32
	h      uint64 // the key's hash
	avail  cseAvail
}

// lookup returns the entry whose key is key.
func (s *cseState) lookup(key []byte) (*cseAvail, bool) {
	h := maphash.Bytes(s.seed, key)
	for i := s.index[h] - 1; i >= 0; i = s.ents[i].next {
		if e := &s.ents[i]; bytes.Equal(s.keys[e.lo:e.hi], key) {
			return &e.avail, true
		}
	}
	return nil, false
}

// put enters a under key, replacing what the key held.
func (s *cseState) put(key []byte, a cseAvail) {
	if e, ok := s.lookup(key); ok {
		*e = a
		return
	}
	s.add(key, a)
}

// add enters a under key, which the table does not hold.
func (s *cseState) add(key []byte, a cseAvail) {
	h := maphash.Bytes(s.seed, key)
	lo := int32(len(s.keys))
	s.keys = append(s.keys, key...)
	s.ents = append(s.ents, cseEntry{lo: lo, hi: int32(len(s.keys)), next: s.index[h] - 1, h: h, avail: a})
	s.index[h] = int32(len(s.ents))
}

// popTo removes the entries from the mark-th on, newest first (the
// dominator walk's scoping: a block's entries go when its subtree is
// done, and each is then the newest with its hash).
func (s *cseState) popTo(mark int) {
	if mark >= len(s.ents) {
		return
	}
	for i := len(s.ents) - 1; i >= mark; i-- {
		e := &s.ents[i]
		if e.next < 0 {
			delete(s.index, e.h)
		} else {
			s.index[e.h] = e.next + 1
		}
	}
	s.keys = s.keys[:s.ents[mark].lo]
	s.ents = s.ents[:mark]
}

// vnTable returns the table holding w's value number and its key there.
func (s *cseState) vnTable(w cseWord) (*wordTable[int], wkey) {
	k := wkey{n: w.n, class: w.class, w: w.word}
	if w.virtual {
		return &s.vn, k
	}
	return &s.pvn, k
}

// forget drops every value number.
func (s *cseState) forget() {
	s.vn.reset()
	s.pvn.reset()
}

// csePool keeps the block walk's state (tables, keys) between runs.
var csePool keep.Pool[cseState]

// The keys are built by appending to one reused buffer: instKey ran for
// every instruction of every block, and a builder, a string per
// operand and strconv's strings per number were most of commoning's
// time. The key text is what it always was.

// appendReg appends r's key: its class and the value numbers of its
// words (the register's name under names).
func (s *cseState) appendReg(b []byte, r ori.Reg) []byte {
	if r.IsZero() {
		b = append(b, 'Z')
		return append(b, r.Class.String()...)
	}
	if s.names {
		if !r.Virtual {
			return append(b, r.String()...)
		}
		// The register's name in a form that is equal exactly when
		// Reg.String is (class, number, first word; the width only as
		// .64 or .128), without building the string.
		b = append(b, 'x', '0'+byte(r.Class))
		b = strconv.AppendInt(b, int64(r.N), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(r.Off), 10)
		switch r.Words {
		case 2:
			b = append(b, ":64"...)
		case 4:
			b = append(b, ":128"...)
		}
		return b
	}
	b = append(b, r.Class.String()...)
	for i := 0; i < int(r.Words); i++ { // word by word, without a slice
		b = append(b, 'v')
		b = strconv.AppendInt(b, int64(s.get(cseWordOf(r, i))), 10)
	}
	return b
}

// appendOpd appends the key of operand o.
func (s *cseState) appendOpd(b []byte, o ori.Operand) []byte {
	switch o.Kind {
	case ori.OpdReg:
		if o.Not {
			b = append(b, '!')
		}
		if o.Neg {
			b = append(b, '-')
		}
		if o.Abs {
			b = append(b, '|')
		}
		b = s.appendReg(b, o.Reg)
	case ori.OpdImm:
		b = append(b, 'i')
		b = strconv.AppendInt(b, int64(o.FKind), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, o.Imm, 16)
	case ori.OpdCBank, ori.OpdMem:
		b = append(b, 'm')
		b = strconv.AppendInt(b, int64(o.Kind), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(o.Bank), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, o.Imm, 16)
		if o.HasBase {
			b = append(b, '+')
			b = s.appendReg(b, o.Reg)
		}
	case ori.OpdSR:
		b = append(b, 's')
		b = append(b, o.Name...)
	case ori.OpdBlock:
		b = append(b, 'b')
		b = strconv.AppendInt(b, int64(o.Block), 10)
	case ori.OpdSym:
		b = append(b, 'y')
		b = append(b, o.Name...)
	default:
		b = append(b, '?')
	}
	return b
}

const impureFlags = ori.FSideEffect | ori.FLoad | ori.FStore | ori.FAtomic | ori.FBarrier |
	ori.FWarp | ori.FCall | ori.FBranch | ori.FIndirect | ori.FExit | ori.FRet | ori.FPseudo

// volatileSR reports whether reads of a special register may differ.
func volatileSR(name string) bool {
	for _, s := range []string{"CLOCK", "GLOBALTIMER", "WARPID", "SMID"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// cseResult returns the index of the one live result of a commoning
// candidate, or -1 when in is not a candidate.
func cseResult(in *ori.Inst) int {
	if in.Guarded() || in.IsPhi() || in.Op == ori.OpMOV || in.Op == ori.OpNOP ||
		in.Op == ori.OpP2R || in.Op == ori.OpR2P || in.Op.Flags()&impureFlags != 0 {
		return -1
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdSR && volatileSR(o.Name) {
			return -1
		}
		if o.Kind == ori.OpdMem {
			return -1
		}
	}
	res := -1
	for i, o := range in.Dsts {
		if o.Kind != ori.OpdReg {
			return -1
		}
		if o.Reg.IsZero() {
			continue
		}
		if res >= 0 {
			return -1
		}
		res = i
	}
	if res < 0 {
		return -1
	}
	r := in.Dsts[res].Reg
	if r.Class != ori.ClassR || (r.Words != 1 && r.Words != 2) || in.Dsts[res].Neg || in.Dsts[res].Abs || in.Dsts[res].Not {
		return -1
	}
	return res
}

// instKey returns in's key in a buffer that the next call reuses (a map
// lookup with string(key) does not copy it; an insertion does).
func (s *cseState) instKey(in *ori.Inst) []byte {
	b := s.buf[:0]
	b = append(b, in.Op.String()...)
	for _, m := range in.Mods {
		b = append(b, '.')
		b = append(b, m...)
	}
	b = append(b, '|')
	for _, o := range in.Dsts {
		if o.Reg.IsZero() {
			b = append(b, 'Z')
			b = append(b, o.Reg.Class.String()...)
		} else {
			b = append(b, o.Reg.Class.String()...)
			b = strconv.AppendInt(b, int64(o.Reg.Words), 10)
		}
		b = append(b, ',')
	}
	b = append(b, '|')
	// The sources of IADD3 and of IMAD's product commute: their keys
	// are sorted (as strings) so that either order finds the other.
	sorted := 0
	if len(in.Mods) == 0 {
		switch {
		case in.Op == ori.OpIADD3 && len(in.Srcs) == 3:
			sorted = 3
		case in.Op == ori.OpIMAD && len(in.Srcs) == 3:
			sorted = 2
		}
	}
	if sorted == 0 {
		for i, o := range in.Srcs {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.appendOpd(b, o)
		}
	} else {
		var keys [3]string
		for i, o := range in.Srcs {
			s.tmp = s.appendOpd(s.tmp[:0], o)
			keys[i] = string(s.tmp)
		}
		sort.Strings(keys[:sorted])
		for i, k := range keys[:len(in.Srcs)] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, k...)
		}
	}
	s.buf = b
	return b
}

// commonBlock commons the equal computations of blk, with s as its
// (emptied) state.
func commonBlock(f *ori.Func, blk *ori.Block, sites *Sites, moveEquiv bool, s *cseState) bool {
	s.forget()
	// Entry by entry: clearing the map would visit all the room the
	// largest block ever gave it, once per block of every function.
	s.popTo(0)
	s.vnBuf = s.vnBuf[:0]
	s.next = 0
	changed := false
	var selfMoves map[*ori.Inst]bool // made at the first self-move
	defer func() {
		if len(selfMoves) == 0 {
			return
		}
		kept := blk.Insts[:0]
		for _, in := range blk.Insts {
			if !selfMoves[in] {
				kept = append(kept, in)
			}
		}
		for i := len(kept); i < len(blk.Insts); i++ {
			blk.Insts[i] = nil
		}
		blk.Insts = kept
	}()
	for _, in := range blk.Insts {
		// Implicit or unknown register writes: forget everything.
		reset := in.Op == ori.OpR2P
		for _, o := range in.Dsts {
			if o.Kind != ori.OpdReg {
				reset = true
			}
		}
		if reset {
			s.forget()
			continue
		}
		if in.Op == ori.OpCALL {
			s.pvn.reset()
		}
		// copied[i] holds the value numbers result i takes, or nil.
		var copied []int
		if res := cseResult(in); res >= 0 {
			key := s.instKey(in)
			dst := in.Dsts[res]
			if e, ok := s.lookup(key); ok && s.holds(e.dst, e.vns) && (dst.Reg == e.dst || !e.dst.Overlaps(dst.Reg)) && sites.Allow(f, in.ID, "reuse an equal computation in the block") {
				src := ori.R(e.dst)
				in.Op = ori.OpMOV
				in.Mods = nil
				in.Dsts = []ori.Operand{dst}
				in.Srcs = []ori.Operand{src}
				copied = e.vns
				changed = true
				if dst.Reg == e.dst {
					// The register already holds the value (the repeat of
					// an unrolled body): the copy would be a self-move,
					// and a self-move is still a definition that keeps
					// loop-invariant code motion from hoisting the
					// original. Drop it.
					if selfMoves == nil {
						selfMoves = map[*ori.Inst]bool{}
					}
					selfMoves[in] = true
				}
			} else {
				start := len(s.vnBuf)
				for range dst.Reg.Words {
					s.vnBuf = append(s.vnBuf, s.fresh())
				}
				vns := s.vnBuf[start:len(s.vnBuf):len(s.vnBuf)]
				s.put(key, cseAvail{dst: dst.Reg, vns: vns})
				copied = vns
				s.define(in, copied)
				continue
			}
		} else if moveEquiv && in.Op == ori.OpMOV && len(in.Mods) == 0 && !in.Guarded() && len(in.Dsts) == 1 && len(in.Srcs) == 1 {
			d, o := in.Dsts[0], in.Srcs[0]
			if d.Kind == ori.OpdReg && o.Kind == ori.OpdReg && !o.Neg && !o.Abs && !o.Not &&
				!o.Reg.IsZero() && o.Reg.Words == d.Reg.Words && o.Reg.Class == d.Reg.Class {
				s.movVNs = s.movVNs[:0]
				for i := 0; i < int(o.Reg.Words); i++ { // word by word, without a slice
					s.movVNs = append(s.movVNs, s.get(cseWordOf(o.Reg, i)))
				}
				copied = s.movVNs
			}
		}
		s.define(in, copied)
	}
	return changed
}

// define gives in's results new value numbers: vns for its single live
// result when given (a copy or a commoned value), fresh ones otherwise.
func (s *cseState) define(in *ori.Inst, vns []int) {
	guarded := in.Guarded()
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg || o.Reg.IsZero() {
			continue
		}
		for i := 0; i < int(o.Reg.Words); i++ { // word by word, without a slice
			t, k := s.vnTable(cseWordOf(o.Reg, i))
			if vns != nil && !guarded && i < len(vns) {
				t.set(k, vns[i])
			} else {
				t.set(k, s.fresh())
			}
		}
	}
}

// holds reports whether r's words have the value numbers vns
// (numbering, like get, every word it has not seen).
func (s *cseState) holds(r ori.Reg, vns []int) bool {
	same := int(r.Words) == len(vns)
	for i := 0; i < int(r.Words); i++ {
		if v := s.get(cseWordOf(r, i)); same && v != vns[i] {
			same = false
		}
	}
	return same
}

// commonDominated is the dominator-scoped part (ptxas's GvnCse walks the
// dominator tree the same way). It only considers stable registers:
// virtual registers with exactly one definition in the function, and that
// one unguarded. A stable register holds the value of its latest
// definition wherever that definition dominates, so an instruction A whose
// sources and result are stable computes, at any point A dominates, the
// same value an identical instruction would compute there: were a source
// redefined between A and B, the path from its definition to B would
// avoid A. B (dominated by A, with the same key over register names)
// becomes MOV B.dst = A.dst. The table is scoped: entries made in a block
// are visible in the blocks it dominates and dropped afterwards.
func commonDominated(f *ori.Func, sites *Sites) bool {
	// Definitions per register, counted in a dense table (word 0 of each
	// register's slot; a map was a third of the pass).
	defs := cseDefsPool.Get()
	defer cseDefsPool.Put(defs)
	defs.reset()
	count := func(r ori.Reg, n int32) {
		k := wkey{n: r.N, class: r.Class}
		c, _ := defs.get(k)
		defs.set(k, c+n)
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual {
					count(o.Reg, 1)
					if in.Guarded() {
						count(o.Reg, 1) // never stable
					}
				}
			}
		}
	}
	stable := func(r ori.Reg) bool {
		if r.IsZero() {
			return true
		}
		if !r.Virtual {
			return false
		}
		c, _ := defs.get(wkey{n: r.N, class: r.Class})
		return c == 1
	}
	candidate := func(in *ori.Inst) int {
		res := cseResult(in)
		if res < 0 || !in.Dsts[res].Reg.Virtual || !stable(in.Dsts[res].Reg) {
			return -1
		}
		for _, o := range in.Srcs {
			switch o.Kind {
			case ori.OpdReg:
				if !stable(o.Reg) {
					return -1
				}
			case ori.OpdCBank, ori.OpdMem:
				if o.HasBase && !stable(o.Reg) {
					return -1
				}
			}
		}
		return res
	}
	// The dominator tree (cached per CFG generation) as child lists by
	// layout index, each in layout order.
	dom := ori.Dominators(f)
	sc := cseDomPool.Get()
	defer cseDomPool.Put(sc)
	nb := len(f.Blocks)
	sc.first, sc.next, sc.last = growScratch(sc.first, nb), growScratch(sc.next, nb), growScratch(sc.last, nb)
	for i := range nb {
		sc.first[i], sc.next[i], sc.last[i] = -1, -1, -1
	}
	index := sc.index(f)
	for i, b := range f.Blocks[1:] {
		d := dom.Idom(b)
		if d == nil {
			continue
		}
		di, ok := index(d)
		if !ok {
			continue
		}
		if sc.last[di] < 0 {
			sc.first[di] = int32(i + 1)
		} else {
			sc.next[sc.last[di]] = int32(i + 1)
		}
		sc.last[di] = int32(i + 1)
	}
	// The table is a cseState's (its entries popped as the walk leaves
	// a subtree), keyed by register names.
	s := &sc.table
	s.names = true
	if s.index == nil {
		s.index = map[uint64]int32{}
		s.seed = maphash.MakeSeed()
	}
	changed := false
	var walk func(bi int32)
	walk = func(bi int32) {
		mark := len(s.ents)
		for _, in := range f.Blocks[bi].Insts {
			res := candidate(in)
			if res < 0 {
				continue
			}
			key := s.instKey(in)
			dst := in.Dsts[res]
			if e, ok := s.lookup(key); ok {
				r := e.dst
				if !r.Overlaps(dst.Reg) && sites.Allow(f, in.ID, "reuse an equal computation from a dominating block") {
					in.Op = ori.OpMOV
					in.Mods = nil
					in.Dsts = []ori.Operand{dst}
					in.Srcs = []ori.Operand{ori.R(r)}
					changed = true
				}
				continue
			}
			s.add(key, cseAvail{dst: dst.Reg})
		}
		for c := sc.first[bi]; c >= 0; c = sc.next[c] {
			walk(c)
		}
		s.popTo(mark)
	}
	walk(0)
	return changed
}

// cseDomScratch is commonDominated's scratch, kept between calls: the
// dominator tree's child lists (first child, next sibling, last child
// by layout index), the block index and the scoped table.
type cseDomScratch struct {
	first, next, last []int32
	pos               []int32
	table             cseState
}

var cseDomPool keep.Pool[cseDomScratch]

// index returns a function finding a block's layout index: by ID in a
// dense table (IDs are small and dense: Func.NewBlock counts up), or in
// a map when an ID is negative, repeated or far out of range.
func (sc *cseDomScratch) index(f *ori.Func) func(*ori.Block) (int, bool) {
	maxID := int32(-1)
	for _, b := range f.Blocks {
		maxID = max(maxID, b.ID)
	}
	if maxID < int32(4*len(f.Blocks)+64) {
		sc.pos = growScratch(sc.pos, int(maxID)+1)
		clear(sc.pos)
		dense := true
		for i, b := range f.Blocks {
			if b.ID < 0 || sc.pos[b.ID] != 0 {
				dense = false
				break
			}
			sc.pos[b.ID] = int32(i) + 1
		}
		if dense {
			return func(b *ori.Block) (int, bool) {
				if id := b.ID; id >= 0 && int(id) < len(sc.pos) {
					if i := int(sc.pos[id]) - 1; i >= 0 && f.Blocks[i] == b {
						return i, true
					}
				}
				return 0, false
			}
		}
	}
	m := make(map[*ori.Block]int, len(f.Blocks))
	for i, b := range f.Blocks {
		m[b] = i
	}
	return func(b *ori.Block) (int, bool) {
		i, ok := m[b]
		return i, ok
	}
}

// cseDefsPool keeps commonDominated's definition counts between calls.
var cseDefsPool keep.Pool[wordTable[int32]]
