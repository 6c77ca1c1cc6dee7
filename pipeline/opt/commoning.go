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
//     commutative sources. ptxas hashes the same fields with FNV-1a; a Go
//     map keyed by the canonical key string does the same job.
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
	"sort"
	"strconv"
	"strings"
	"sync"

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
	// One state serves every block (emptied between them), so that its
	// maps keep their room instead of growing again in every block.
	s := &cseState{vn: map[cseWord]int{}, table: map[string]cseAvail{}}
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

func cseWords(r ori.Reg) []cseWord {
	ws := make([]cseWord, 0, r.Words)
	for i := 0; i < int(r.Words); i++ {
		ws = append(ws, cseWordOf(r, i))
	}
	return ws
}

type cseAvail struct {
	dst ori.Reg
	vns []int
}

type cseState struct {
	names bool // key registers by name (stable registers) instead of value number
	vn    map[cseWord]int
	next  int
	table map[string]cseAvail
	// buf and tmp are instKey's reused buffers.
	buf, tmp []byte
}

func (s *cseState) fresh() int {
	s.next++
	return s.next
}

func (s *cseState) get(w cseWord) int {
	if v, ok := s.vn[w]; ok {
		return v
	}
	v := s.fresh()
	s.vn[w] = v
	return v
}

func (s *cseState) regVNs(r ori.Reg) []int {
	ws := cseWords(r)
	out := make([]int, len(ws))
	for i, w := range ws {
		out[i] = s.get(w)
	}
	return out
}

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
		return append(b, r.String()...)
	}
	b = append(b, r.Class.String()...)
	for i := 0; i < int(r.Words); i++ { // cseWords without its slice
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

func (s *cseState) instKey(in *ori.Inst) string {
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
	return string(b)
}

// commonBlock commons the equal computations of blk, with s as its
// (emptied) state.
func commonBlock(f *ori.Func, blk *ori.Block, sites *Sites, moveEquiv bool, s *cseState) bool {
	clear(s.vn)
	clear(s.table)
	s.next = 0
	changed := false
	selfMoves := map[*ori.Inst]bool{}
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
			clear(s.vn)
			continue
		}
		if in.Op == ori.OpCALL {
			for w := range s.vn {
				if !w.virtual {
					delete(s.vn, w)
				}
			}
		}
		// copied[i] holds the value numbers result i takes, or nil.
		var copied []int
		if res := cseResult(in); res >= 0 {
			key := s.instKey(in)
			dst := in.Dsts[res]
			if e, ok := s.table[key]; ok && equalInts(s.regVNs(e.dst), e.vns) && (dst.Reg == e.dst || !e.dst.Overlaps(dst.Reg)) && sites.Allow(f, in.ID, "reuse an equal computation in the block") {
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
					selfMoves[in] = true
				}
			} else {
				vns := make([]int, dst.Reg.Words)
				for i := range vns {
					vns[i] = s.fresh()
				}
				s.table[key] = cseAvail{dst: dst.Reg, vns: vns}
				copied = vns
				s.define(in, copied)
				continue
			}
		} else if moveEquiv && in.Op == ori.OpMOV && len(in.Mods) == 0 && !in.Guarded() && len(in.Dsts) == 1 && len(in.Srcs) == 1 {
			d, o := in.Dsts[0], in.Srcs[0]
			if d.Kind == ori.OpdReg && o.Kind == ori.OpdReg && !o.Neg && !o.Abs && !o.Not &&
				!o.Reg.IsZero() && o.Reg.Words == d.Reg.Words && o.Reg.Class == d.Reg.Class {
				copied = s.regVNs(o.Reg)
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
		for i, w := range cseWords(o.Reg) {
			if vns != nil && !guarded && i < len(vns) {
				s.vn[w] = vns[i]
			} else {
				s.vn[w] = s.fresh()
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
	defs := cseDefsPool.Get().(*wordTable[int32])
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
	idom := cseDominators(f)
	children := map[*ori.Block][]*ori.Block{}
	for _, b := range f.Blocks[1:] {
		if d := idom[b]; d != nil {
			children[d] = append(children[d], b)
		}
	}
	s := &cseState{names: true}
	table := map[string]ori.Reg{}
	changed := false
	var walk func(b *ori.Block)
	walk = func(b *ori.Block) {
		var added []string
		for _, in := range b.Insts {
			res := candidate(in)
			if res < 0 {
				continue
			}
			key := s.instKey(in)
			dst := in.Dsts[res]
			if r, ok := table[key]; ok {
				if !r.Overlaps(dst.Reg) && sites.Allow(f, in.ID, "reuse an equal computation from a dominating block") {
					in.Op = ori.OpMOV
					in.Mods = nil
					in.Dsts = []ori.Operand{dst}
					in.Srcs = []ori.Operand{ori.R(r)}
					changed = true
				}
				continue
			}
			table[key] = dst.Reg
			added = append(added, key)
		}
		for _, c := range children[b] {
			walk(c)
		}
		for _, k := range added {
			delete(table, k)
		}
	}
	walk(f.Blocks[0])
	return changed
}

// cseDefsPool keeps commonDominated's definition counts between calls.
var cseDefsPool = sync.Pool{New: func() any { return new(wordTable[int32]) }}

// cseDominators returns the immediate dominator of every block reachable
// from the entry (nil for the entry and unreachable blocks), by the
// iterative algorithm of Cooper, Harvey and Kennedy over reverse
// postorder. The CFG must be current.
func cseDominators(f *ori.Func) map[*ori.Block]*ori.Block {
	var post []*ori.Block
	seen := map[*ori.Block]bool{}
	var dfs func(b *ori.Block)
	dfs = func(b *ori.Block) {
		seen[b] = true
		for _, s := range b.Succs {
			if !seen[s] {
				dfs(s)
			}
		}
		post = append(post, b)
	}
	entry := f.Blocks[0]
	dfs(entry)
	order := map[*ori.Block]int{}
	for i, b := range post {
		order[b] = i
	}
	idom := map[*ori.Block]*ori.Block{entry: entry}
	intersect := func(a, b *ori.Block) *ori.Block {
		for a != b {
			for order[a] < order[b] {
				a = idom[a]
			}
			for order[b] < order[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(post) - 1; i >= 0; i-- {
			b := post[i]
			if b == entry {
				continue
			}
			var nd *ori.Block
			for _, p := range b.Preds {
				if idom[p] == nil {
					continue
				}
				if nd == nil {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd != nil && idom[b] != nd {
				idom[b] = nd
				changed = true
			}
		}
	}
	delete(idom, entry)
	return idom
}
