package verifyra

// The abstract state of the reaching-definitions verifier (verify.go):
// for every physical location the set of pre-allocation values it is
// known to hold at a program point of the allocated code.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"orilab/pipeline/ori"
)

// rdVal names a value of the function before allocation: one word of a
// virtual register, or one physical register (R1, the ABI registers) that
// pre-allocation code already names. Physical values are named by
// themselves: "R4" is whatever R4 holds at that point of the original
// program.
//
// A physical value with entry set is the pseudo value "the caller's Rn":
// what callee-saved register Rn held when the .func was entered, which
// it must hold again at every RET (see "Callee-saved registers" in
// verify.go). No instruction defines it, so only copies move it.
//
// The fields are ordered so that the struct is eight bytes of plain
// memory, which maps hash as one word.
type rdVal struct {
	n       int32 // virtual register number, or physical register number of the word
	class   ori.RegClass
	virtual bool
	word    uint8 // virtual only: the word of the register
	entry   bool  // physical only: the caller's value at the entry of a .func
}

// rdCallerVal is the pseudo value of R register n at .func entry.
func rdCallerVal(n int32) rdVal { return rdVal{class: ori.ClassR, n: n, entry: true} }

func (v rdVal) String() string {
	if v.virtual {
		return ori.Reg{Class: v.class, Virtual: true, N: v.n, Off: v.word, Words: 1}.String()
	}
	if v.entry {
		return "the caller's " + ori.PReg(v.class, int(v.n), 1).String()
	}
	return ori.PReg(v.class, int(v.n), 1).String()
}

// less orders values: virtual before physical before the callers'
// pseudo values, then by class, number and word. The union-find keeps the least member as a class's name, so a
// coalesced ABI move prints as the virtual register it fed.
func (v rdVal) less(o rdVal) bool {
	if v.virtual != o.virtual {
		return v.virtual
	}
	if v.entry != o.entry {
		return o.entry
	}
	if v.class != o.class {
		return v.class < o.class
	}
	if v.n != o.n {
		return v.n < o.n
	}
	return v.word < o.word
}

// rdSlotKind marks a spill-slot location; register locations use their
// ori.RegClass as kind.
const rdSlotKind = uint8(ori.NumClasses)

// rdUndefKind marks the pseudo-location "undefined", always at index
// rdUndef of a state. It holds the values that no definition has reached
// yet on the paths into the program point (under a condition when only a
// guarded definition has): such a value is held by every location, since
// the read it feeds sees an unspecified value before allocation and any
// contents will do after it (see "Undefined values" in verify.go).
const rdUndefKind = rdSlotKind + 1

// rdUndef is the index of the "undefined" pseudo-location in a state.
const rdUndef = 0

// rdLoc is a physical location of one word: a register of some class, or
// the local-memory word [R1+off] of the frame.
type rdLoc struct {
	kind uint8 // an ori.RegClass, or rdSlotKind
	n    int32 // register number, or byte offset of the slot word from R1
}

func rdRegLoc(r ori.Reg, w int) rdLoc { return rdLoc{kind: uint8(r.Class), n: r.N + int32(w)} }

func (l rdLoc) isSlot() bool { return l.kind == rdSlotKind }

// own is the value a register location holds at function entry and after
// a call: its own name.
func (l rdLoc) own() rdVal { return rdVal{class: ori.RegClass(l.kind), n: l.n} }

func (l rdLoc) String() string {
	if l.kind == rdUndefKind {
		return "(undefined)"
	}
	if l.isSlot() {
		if l.n == 0 {
			return "[R1]"
		}
		return "[R1+0x" + strconv.FormatInt(int64(l.n), 16) + "]"
	}
	return ori.PReg(ori.RegClass(l.kind), int(l.n), 1).String()
}

// rdCond is the condition under which a location holds a value: always,
// or only while the pre-allocation predicate value p is true (false when
// neg). Conditions come from guarded definitions: after "@P0 MOV R5 = R6"
// standing for "@%p0 MOV %a = %b", R5 holds %a when %p0 is true and keeps
// its older contents when it is false.
type rdCond struct {
	on  bool // false: always
	p   rdVal
	neg bool
}

func (c rdCond) not() rdCond { c.neg = !c.neg; return c }

func (c rdCond) String() string {
	if !c.on {
		return ""
	}
	if c.neg {
		return " when !" + c.p.String()
	}
	return " when " + c.p.String()
}

// rdFact says a location holds value v under condition c. A cell keeps at
// most one fact per value.
type rdFact struct {
	v rdVal
	c rdCond
}

// rdStale records, for messages only, that a location held v until the
// instruction by redefined v elsewhere.
type rdStale struct {
	v    rdVal
	by   int32
	call bool // by is a CALL that clobbered the location, not a redefinition of v
}

// rdCell is what one location holds. facts is what the proof uses;
// stale and weak only make error messages precise ("a stale copy",
// "on some paths only") and never make a use pass.
type rdCell struct {
	facts []rdFact  // sorted by value
	stale []rdStale // sorted by value
	weak  []rdVal   // values held on some paths into a merge; sorted
}

// rdState is the abstract state at a program point, one cell per location
// index. A nil state is "not reached yet" (the top of the lattice).
type rdState []rdCell

func (s rdState) clone() rdState {
	c := make(rdState, len(s))
	copy(c, s) // cells are copied on write, so sharing slices is safe
	return c
}

// find returns the fact for v, if any. Facts are kept sorted by value
// (every writer of a cell sorts or filters a sorted list), so this is a
// binary search: the "undefined" cell can hold many values.
func (c *rdCell) find(v rdVal) (rdFact, bool) {
	// A plain binary search (sort.Search's callback costs a call per
	// step, and find runs for every value at every merge).
	i, hi := 0, len(c.facts)
	for i < hi {
		if m := int(uint(i+hi) >> 1); c.facts[m].v.less(v) {
			i = m + 1
		} else {
			hi = m
		}
	}
	if i < len(c.facts) && c.facts[i].v == v {
		return c.facts[i], true
	}
	return rdFact{}, false
}

func rdSortFacts(fs []rdFact) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].v.less(fs[j].v) })
}

func rdSortStale(ss []rdStale) {
	sort.Slice(ss, func(i, j int) bool { return ss[i].v.less(ss[j].v) })
}

func rdSortVals(vs []rdVal) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].less(vs[j]) })
}

// only returns a cell holding exactly v, always.
func rdOnly(v rdVal) rdCell { return rdCell{facts: []rdFact{{v: v}}} }

// rdMeetCond intersects two conditions under which a location holds the
// same value on two paths: the value is known on the join only where both
// conditions hold. Conditions are single literals, so anything that is not
// "always", or one literal on both sides, is dropped.
func rdMeetCond(a, b rdCond) (rdCond, bool) {
	switch {
	case !a.on:
		return b, true
	case !b.on:
		return a, true
	case a == b:
		return a, true
	}
	return rdCond{}, false
}

// rdMeetCell is the join of the paths: facts present on both (with
// intersected conditions); everything present on only one side becomes
// "weak" (held on some paths), and stale records are united, keeping for
// each value the earliest-numbered redefinition (the first one of a, then
// b, among equals).
func rdMeetCell(a, b rdCell) rdCell {
	if a.equal(b) && a.normal() {
		// The common case at a join: both paths agree. The join is then a
		// itself (the cells are copied on write, so sharing is safe).
		return a
	}
	var out rdCell
	weak := make([]rdVal, 0, len(a.weak)+len(b.weak))
	weak = append(append(weak, a.weak...), b.weak...)
	for _, fa := range a.facts {
		fb, ok := b.find(fa.v)
		if ok {
			if c, ok := rdMeetCond(fa.c, fb.c); ok {
				out.facts = append(out.facts, rdFact{v: fa.v, c: c})
				continue
			}
		}
		weak = append(weak, fa.v)
	}
	for _, fb := range b.facts {
		if _, ok := a.find(fb.v); !ok {
			weak = append(weak, fb.v)
		}
	}
	if len(weak) > 0 {
		rdSortVals(weak)
		for i, w := range weak {
			if i > 0 && w == weak[i-1] {
				continue
			}
			if _, held := out.find(w); held {
				continue
			}
			out.weak = append(out.weak, w)
		}
	}
	if n := len(a.stale) + len(b.stale); n > 0 {
		all := make([]rdStale, 0, n)
		all = append(append(all, a.stale...), b.stale...)
		sort.SliceStable(all, func(i, j int) bool { return all[i].v.less(all[j].v) })
		for i := 0; i < len(all); {
			best := i
			j := i + 1
			for ; j < len(all) && all[j].v == all[i].v; j++ {
				if all[j].by < all[best].by {
					best = j
				}
			}
			out.stale = append(out.stale, all[best])
			i = j
		}
	}
	return out
}

// normal reports whether the cell is in the form rdMeetCell gives a join:
// facts sorted by value without repeats, weak sorted, without repeats and
// without a value the facts hold, and stale sorted by value without
// repeats. Then the join of the cell with
// an equal one is the cell itself.
func (c rdCell) normal() bool {
	for i := 1; i < len(c.facts); i++ {
		if !c.facts[i-1].v.less(c.facts[i].v) {
			return false
		}
	}
	for i, w := range c.weak {
		if i > 0 && !c.weak[i-1].less(w) {
			return false
		}
		if _, held := c.find(w); held {
			return false
		}
	}
	for i := 1; i < len(c.stale); i++ {
		if !c.stale[i-1].v.less(c.stale[i].v) {
			return false
		}
	}
	return true
}

func (c rdCell) equal(o rdCell) bool {
	if len(c.facts) != len(o.facts) || len(c.stale) != len(o.stale) || len(c.weak) != len(o.weak) {
		return false
	}
	for i := range c.facts {
		if c.facts[i] != o.facts[i] {
			return false
		}
	}
	for i := range c.stale {
		if c.stale[i] != o.stale[i] {
			return false
		}
	}
	for i := range c.weak {
		if c.weak[i] != o.weak[i] {
			return false
		}
	}
	return true
}

// The lattice of the fixed point. The iteration in verify.go keeps one
// state per block entry and replaces it by rdMeetState(old, arriving)
// until nothing changes. It terminates because that meet only moves a
// state down a lattice of finite height, whatever the transfer
// functions do (they need not be monotone: a rule such as "a copy makes
// the destination hold what the source location holds" compares cells,
// and a fixed point reached by descending meets is still a post-fixed
// point, so the result is sound).
//
// An element is, per value v, the condition U(v) under which v is
// undefined (the cell at rdUndef), and per location i and value v the
// condition E(i,v) of an explicit fact. Conditions form the flat lattice
// "never" < "when p", "when !p", "when q", ... < "always" (rdMeetCond).
// What location i is known to hold of v is the disjunction
// D(i,v) = E(i,v) or U(v), and the order is implication: a state is
// below another when each of its U(v) is below and each of its D(i,v)
// implies the other's. The meet of D_a and D_b is the disjunction of the
// four pairwise flat meets of their members; the state keeps of it what
// U' (the meet of the U) does not already say and, when two different
// literals remain, one of them (rdPickCond), which still implies both
// sides. Every disjunct of the result implies a disjunct of the old
// state, so the result never rises.
//
// For the comparison that stops the iteration to see every descent and
// nothing else, the representation is canonical (rdCanonCell): an
// explicit fact that U(v) implies is left out, and one complementary to
// U(v) becomes "always". Then two states are equal exactly when they
// mean the same, each change is a strict descent, and a chain of
// descents is at most 2 steps per (location, value) pair and per value of
// U long.
//
// The message-only parts of a cell (stale and weak records, which never
// make a read pass) only grow at a merge: their union is kept, and a
// stale record keeps the earliest redefinition. Product with a finite
// ascending set, the whole order still has finite height.
//
// An earlier version joined two states by materializing undefined
// values into locations (a location held v explicitly or through U
// depending on which edge arrived first) and dropped weak records that a
// later merge made facts again: the representation of one meaning
// alternated and the iteration cycled (fuzz seeds 26121646 and 26121665
// at -O2, a value undefined "when !%p7" in a loop header).

// rdMeetState joins the state a block already has (a, nil when none
// arrived yet) with one arriving along another edge, as described above.
// A value still undefined on one side is held by every location there,
// so a location that holds it on the other side holds it on the join (a
// loop's first iteration, or a value defined on only one arm of a branch
// and read after the join).
func rdMeetState(a, b rdState) rdState {
	if a == nil {
		out := b.clone()
		for i := range out {
			if i != rdUndef {
				out[i] = rdCanonCell(out[i], &out[rdUndef])
			}
		}
		return out
	}
	// Most merges of a fixed-point iteration change nothing, so the meet
	// is computed cell by cell against a and returns a itself when every
	// cell comes out equal: a new state is allocated only at the first
	// cell that differs (verify.go compares the result with a, and the
	// cells are copied on write, so sharing is safe).
	var out rdState
	ua, ub := &a[rdUndef], &b[rdUndef]
	u, same := rdLatticeMeet(ua, ub, nil, nil, nil)
	if !same {
		out = a.clone()
		out[rdUndef] = u
	}
	for i := range a {
		if i == rdUndef {
			continue
		}
		c, same := rdLatticeMeet(&a[i], &b[i], ua, ub, &u)
		if !same {
			if out == nil {
				out = a.clone()
			}
			out[i] = c
		}
	}
	if out == nil {
		return a
	}
	return out
}

// rdLatticeMeet meets cell a of one state with cell b of another; ua and
// ub are the states' "undefined" cells and u the met one (all nil when a
// and b are the "undefined" cells themselves). same reports that the
// meet equals a, which is then returned itself.
//
// Facts, weak and stale lists are sorted by value, so the meet is one
// merge of a's and b's lists in value order; the result is built in
// that order against a's lists (rdSortedOut) and allocates nothing while
// it agrees with them.
func rdLatticeMeet(a, b, ua, ub, u *rdCell) (rdCell, bool) {
	facts := rdSortedOut[rdFact]{ref: a.facts}
	weak := rdWeakMerge{a: a.weak, b: b.weak, out: rdSortedOut[rdVal]{ref: a.weak}}
	af, bf := a.facts, b.facts
	for i, j := 0, 0; i < len(af) || j < len(bf); {
		var v rdVal
		if j >= len(bf) || (i < len(af) && !bf[j].v.less(af[i].v)) {
			v = af[i].v
		} else {
			v = bf[j].v
		}
		// The fact of each side for v (the first, as find would give).
		var fa, fb rdFact
		aok, bok := false, false
		if i < len(af) && af[i].v == v {
			fa, aok = af[i], true
			for i < len(af) && af[i].v == v {
				i++
			}
		}
		if j < len(bf) && bf[j].v == v {
			fb, bok = bf[j], true
			for j < len(bf) && bf[j].v == v {
				j++
			}
		}
		var uaf, ubf rdFact
		uaok, ubok := false, false
		if ua != nil {
			uaf, uaok = ua.find(v)
		}
		if ub != nil {
			ubf, ubok = ub.find(v)
		}
		// The values to decide: those with an explicit fact on either
		// side that the side's "undefined" cell does not imply (an
		// implied one says nothing more, and counting it would make the
		// weak records depend on the representation).
		inA := aok && !(uaok && (!uaf.c.on || uaf.c == fa.c))
		inB := bok && !(ubok && (!ubf.c.on || ubf.c == fb.c))
		if !inA && !inB {
			continue
		}
		var da, db [2]rdCond
		na := rdDisj(&da, fa.c, aok, uaf.c, uaok)
		nb := rdDisj(&db, fb.c, bok, ubf.c, ubok)
		var terms [4]rdCond
		nt := 0
		for _, x := range da[:na] {
			for _, y := range db[:nb] {
				if c, ok := rdMeetCond(x, y); ok {
					terms[nt] = c
					nt++
				}
			}
		}
		var uf rdFact
		uok := false
		if u != nil {
			uf, uok = u.find(v)
		}
		if c, ok := rdPickCond(terms[:nt], uf.c, uok); ok {
			facts.add(rdFact{v: v, c: c})
		} else if !uok {
			weak.push(v) // held on one side (or under conditions that do not meet)
		}
	}
	weak.drain(rdVal{}, true)
	outFacts, sameFacts := facts.result()
	outWeak, sameWeak := weak.out.result()
	outStale, sameStale := rdUnionStale(a.stale, b.stale)
	if sameFacts && sameWeak && sameStale {
		return *a, true
	}
	return rdCell{facts: outFacts, stale: outStale, weak: outWeak}, false
}

// rdDisj stores in d the disjuncts of D(v) on one side, from the fact
// of the location (fc, when fok) and that of the "undefined" cell (uc,
// when uok), and returns their number; a literal and its negation are
// "always".
func rdDisj(d *[2]rdCond, fc rdCond, fok bool, uc rdCond, uok bool) int {
	n := 0
	if fok {
		d[n] = fc
		n++
	}
	if uok {
		if n == 1 && d[0] == uc.not() {
			d[0] = rdCond{}
			return 1
		}
		d[n] = uc
		n++
	}
	return n
}

// rdSortedOut builds a list, entry by entry, that most often comes out
// equal to ref: while it agrees with a prefix of ref nothing is
// allocated, and at the first entry that differs the prefix is copied.
type rdSortedOut[T comparable] struct {
	ref  []T
	n    int // entries of ref matched so far
	out  []T
	diff bool // out holds the list; else it is ref[:n]
}

func (o *rdSortedOut[T]) add(x T) {
	if !o.diff {
		if o.n < len(o.ref) && o.ref[o.n] == x {
			o.n++
			return
		}
		o.diff = true
		o.out = make([]T, o.n, o.n+4)
		copy(o.out, o.ref[:o.n])
	}
	o.out = append(o.out, x)
}

// result returns the list and whether it is ref itself.
func (o *rdSortedOut[T]) result() ([]T, bool) {
	switch {
	case o.diff:
		return o.out, false
	case o.n == len(o.ref):
		return o.ref, true
	case o.n == 0:
		return nil, false
	}
	return o.ref[:o.n:o.n], false // a prefix; the capacity keeps appends off ref
}

// rdWeakMerge unites the sorted weak lists a and b of two cells with
// the values pushed in increasing order, without repeats.
type rdWeakMerge struct {
	a, b []rdVal
	i, j int
	out  rdSortedOut[rdVal]
	last rdVal
	have bool
}

// push adds v, after every entry of a and b below it.
func (m *rdWeakMerge) push(v rdVal) {
	m.drain(v, false)
	m.emit(v)
}

// drain adds the entries of a and b below limit (all of them when all),
// in order.
func (m *rdWeakMerge) drain(limit rdVal, all bool) {
	for {
		var w rdVal
		fromA := m.i < len(m.a) && (m.j >= len(m.b) || !m.b[m.j].less(m.a[m.i]))
		switch {
		case fromA:
			w = m.a[m.i]
		case m.j < len(m.b):
			w = m.b[m.j]
		default:
			return
		}
		if !all && !w.less(limit) {
			return
		}
		if fromA {
			m.i++
		} else {
			m.j++
		}
		m.emit(w)
	}
}

func (m *rdWeakMerge) emit(w rdVal) {
	if m.have && m.last == w {
		return
	}
	m.last, m.have = w, true
	m.out.add(w)
}

// rdPickCond reduces the disjunction of terms, less what the "undefined"
// condition uc (when uok) already says, to the one condition of an
// explicit fact (ok false: no fact is needed or known). "always" and a
// complementary pair give "always"; of two different literals it keeps
// the least (rdCondLess), so that the result depends on the meaning only.
func rdPickCond(terms []rdCond, uc rdCond, uok bool) (rdCond, bool) {
	var pick rdCond
	have := false
	for _, t := range terms {
		if uok && (!uc.on || uc == t) {
			continue // U(v) implies it
		}
		if !t.on {
			return rdCond{}, true
		}
		for _, o := range terms {
			if o == t.not() {
				return rdCond{}, true
			}
		}
		if uok && uc == t.not() {
			return rdCond{}, true
		}
		if !have || rdCondLess(t, pick) {
			pick, have = t, true
		}
	}
	return pick, have
}

// rdCondLess orders literals (for a deterministic choice).
func rdCondLess(a, b rdCond) bool {
	if a.p != b.p {
		return a.p.less(b.p)
	}
	return !a.neg && b.neg
}

// rdCanonCell is c in the canonical form of a state whose "undefined"
// cell is u: explicit facts that u implies are left out, and one that is
// complementary to u's holds always.
func rdCanonCell(c rdCell, u *rdCell) rdCell {
	if len(u.facts) == 0 || len(c.facts) == 0 {
		return c
	}
	var facts []rdFact
	changed := false
	for _, f := range c.facts {
		uf, ok := u.find(f.v)
		if !ok {
			facts = append(facts, f)
			continue
		}
		cond, keep := rdPickCond([]rdCond{f.c}, uf.c, true)
		changed = changed || !keep || cond != f.c
		if keep {
			facts = append(facts, rdFact{v: f.v, c: cond})
		}
	}
	if !changed {
		return c
	}
	return rdCell{facts: facts, stale: c.stale, weak: c.weak}
}

// rdUnionStale unites the sorted stale records a and b, keeping the
// earliest redefinition of each value (a redefinition before a CALL of
// the same instruction, then the first of a and b); same reports that
// the union is a itself.
func rdUnionStale(a, b []rdStale) ([]rdStale, bool) {
	if len(b) == 0 {
		return a, true
	}
	out := rdSortedOut[rdStale]{ref: a}
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var v rdVal
		if j >= len(b) || (i < len(a) && !b[j].v.less(a[i].v)) {
			v = a[i].v
		} else {
			v = b[j].v
		}
		var best rdStale
		have := false
		for ; i < len(a) && a[i].v == v; i++ {
			if s := a[i]; !have || s.by < best.by || (s.by == best.by && !s.call && best.call) {
				best, have = s, true
			}
		}
		for ; j < len(b) && b[j].v == v; j++ {
			if s := b[j]; !have || s.by < best.by || (s.by == best.by && !s.call && best.call) {
				best, have = s, true
			}
		}
		out.add(best)
	}
	return out.result()
}

// rdJoinFacts combines two facts about the same value in one location
// (one from the location, one from the "undefined" cell): held always if
// either is unconditional or they are complementary, else under either
// condition (keeping the first is sound).
func rdJoinFacts(a rdFact, aok bool, b rdFact, bok bool) (rdFact, bool) {
	switch {
	case !aok:
		return b, bok
	case !bok:
		return a, true
	case !a.c.on || !b.c.on || a.c == b.c.not():
		return rdFact{v: a.v}, true
	}
	return a, true
}

// fact returns what location i holds of v, counting v's being undefined.
func (s rdState) fact(i int, v rdVal) (rdFact, bool) {
	f, ok := s[i].find(v)
	if i == rdUndef {
		return f, ok
	}
	u, uok := s[rdUndef].find(v)
	return rdJoinFacts(f, ok, u, uok)
}

// holdsAt reports whether location i holds v whenever need is true: under
// an always-fact, or under exactly the condition the reading instruction
// executes under; a value undefined there counts as held.
func (s rdState) holdsAt(i int, v rdVal, need rdCond) bool {
	f, ok := s.fact(i, v)
	if ok && (!f.c.on || (need.on && f.c == need)) {
		return true
	}
	// fact keeps one of two different conditions; the other (v's being
	// undefined) may be the one the read needs.
	u, uok := s[rdUndef].find(v)
	return need.on && uok && u.c == need
}

// withUndef returns cell i of s with the facts the "undefined" cell adds
// for the values that cell i or other names (the values a join or a
// definition compares). The cell is returned as it is when nothing is
// undefined.
func (s rdState) withUndef(i int, other rdCell) rdCell {
	u := &s[rdUndef]
	if len(u.facts) == 0 {
		return s[i]
	}
	c := s[i]
	var add []rdFact
	changed := false
	facts := make([]rdFact, 0, len(c.facts))
	for _, f := range c.facts {
		if uf, ok := u.find(f.v); ok {
			j, _ := rdJoinFacts(f, true, uf, true)
			changed = changed || j != f
			f = j
		}
		facts = append(facts, f)
	}
	for _, f := range other.facts {
		if _, ok := c.find(f.v); ok {
			continue
		}
		if uf, ok := u.find(f.v); ok {
			add = append(add, uf)
		}
	}
	if !changed && len(add) == 0 {
		return c
	}
	facts = append(facts, add...)
	rdSortFacts(facts)
	return rdCell{facts: facts, stale: c.stale, weak: c.weak}
}

// meetCells is the join of two cells of the same state (a guarded move
// keeps what both its outcomes hold), counting undefined values as held.
func (s rdState) meetCells(a, b rdCell) rdCell {
	ia := s.withUndefCell(a, b)
	ib := s.withUndefCell(b, a)
	return rdMeetCell(ia, ib)
}

// withUndefCell is withUndef for a cell that is not (or no longer) in s:
// it is put beside s's "undefined" cell (index rdUndef, 0) in a state of
// two.
func (s rdState) withUndefCell(c, other rdCell) rdCell {
	tmp := rdState{s[rdUndef], c}
	return tmp.withUndef(1, other)
}

func (s rdState) equal(o rdState) bool {
	if (s == nil) != (o == nil) || len(s) != len(o) {
		return false
	}
	if len(s) > 0 && &s[0] == &o[0] {
		return true // rdMeetState returns the old state itself when nothing changed
	}
	for i := range s {
		if !s[i].equal(o[i]) {
			return false
		}
	}
	return true
}

// kill records that value v was redefined by instruction by: every
// location loses v (it now holds a stale copy), and facts conditioned on
// v lose their condition's meaning and are dropped.
func (s rdState) kill(v rdVal, by int32) {
	for i := range s {
		c := &s[i]
		touched := false
		for _, f := range c.facts {
			if f.v == v || (f.c.on && f.c.p == v) {
				touched = true
				break
			}
		}
		for _, w := range c.weak {
			if w == v {
				touched = true
			}
		}
		if !touched {
			continue
		}
		var facts []rdFact
		var weak []rdVal
		var hadV bool
		for _, f := range c.facts {
			switch {
			case f.v == v:
				hadV = true
			case f.c.on && f.c.p == v:
				weak = append(weak, f.v)
			default:
				facts = append(facts, f)
			}
		}
		for _, w := range c.weak {
			if w != v {
				weak = append(weak, w)
			}
		}
		stale := c.stale
		if hadV {
			stale = rdAddStale(stale, v, by)
		}
		rdSortVals(weak)
		*c = rdCell{facts: facts, stale: stale, weak: rdDedupVals(weak)}
	}
}

func rdAddStale(ss []rdStale, v rdVal, by int32) []rdStale {
	out := make([]rdStale, 0, len(ss)+1)
	for _, s := range ss {
		if s.v != v {
			out = append(out, s)
		}
	}
	out = append(out, rdStale{v: v, by: by})
	rdSortStale(out)
	return out
}

func rdDedupVals(vs []rdVal) []rdVal {
	var out []rdVal
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// restrict keeps, in every location, value v only where it also holds
// under the negation of guard g: a guarded definition of v leaves the old
// v in place exactly when g is false. Locations in skip are handled by
// the caller.
func (s rdState) restrictNot(v rdVal, g rdCond, skip map[int]bool) {
	ng := g.not()
	for i := range s {
		if skip[i] {
			continue
		}
		c := &s[i]
		f, ok := c.find(v)
		if !ok {
			continue
		}
		nc, keep := rdMeetCond(f.c, ng)
		facts := make([]rdFact, 0, len(c.facts))
		for _, x := range c.facts {
			if x.v != v {
				facts = append(facts, x)
			} else if keep {
				facts = append(facts, rdFact{v: v, c: nc})
			}
		}
		weak := c.weak
		if !keep {
			weak = append(append([]rdVal(nil), weak...), v)
			rdSortVals(weak)
			weak = rdDedupVals(weak)
		}
		*c = rdCell{facts: facts, stale: c.stale, weak: weak}
	}
}

// rdGuardedDef is the new cell of a location written by a guarded
// definition of v under g: when g is true the location holds the new v;
// when g is false it keeps what it held. So it holds v always if it
// already held v (always, or exactly when g is false), otherwise v only
// under g; and every other value it held survives only under !g.
//
// old must already count v's being undefined (rdState.withUndef).
func rdGuardedDef(old rdCell, v rdVal, g rdCond) rdCell {
	var out rdCell
	vc := g
	if f, ok := old.find(v); ok && (!f.c.on || f.c == g.not()) {
		vc = rdCond{}
	}
	out.facts = append(out.facts, rdFact{v: v, c: vc})
	for _, f := range old.facts {
		if f.v == v {
			continue
		}
		if c, ok := rdMeetCond(f.c, g.not()); ok {
			out.facts = append(out.facts, rdFact{v: f.v, c: c})
		} else {
			out.weak = append(out.weak, f.v)
		}
	}
	rdSortFacts(out.facts)
	rdSortVals(out.weak)
	out.stale = old.stale
	return out
}

// describe says what a cell holds, for a message about a read that
// wanted v (v's coalescing class; want is the value as the read named
// it, which prints in place of v). A stale copy of v comes first: a
// location keeps its stale marks only until it is overwritten, so it
// still physically holds the old v (whatever else it is known to equal).
func (c *rdCell) describe(v, want rdVal) string {
	for _, s := range c.stale {
		if s.v == v {
			if s.call {
				return fmt.Sprintf("a copy of %s that the CALL #%d clobbered", want, s.by)
			}
			return fmt.Sprintf("a stale copy of %s (redefined by #%d)", want, s.by)
		}
	}
	if len(c.facts) > 0 {
		return c.listFacts(v, want, rdVal{}, false)
	}
	for _, w := range c.weak {
		if w == v {
			return want.String() + " on some paths only"
		}
	}
	return "nothing"
}

// listFacts prints the cell's facts ("%r1 when %p0, R5 when !%p0"),
// naming v as want and leaving out skip when hasSkip.
func (c *rdCell) listFacts(v, want, skip rdVal, hasSkip bool) string {
	var parts []string
	for _, f := range c.facts {
		if hasSkip && f.v == skip {
			continue
		}
		name := f.v.String()
		if f.v == v {
			name = want.String()
		}
		parts = append(parts, name+f.c.String())
	}
	return strings.Join(parts, ", ")
}

// readMsg is the sentence for a read of location l by what (executing
// under need) that wanted v (printed as want) but found cell. The
// wording depends on why the read fails, so that it never contradicts
// itself: the location may hold v, but only under a condition the read
// does not run under, or only on some of the paths into it, or an old
// copy of v; otherwise it holds other values, or nothing.
func (c *rdCell) readMsg(what string, l rdLoc, v, want rdVal, need rdCond) string {
	if f, ok := c.find(v); ok && f.c.on {
		others := ""
		if rest := c.listFacts(v, want, v, true); rest != "" {
			others = " (and " + rest + ")"
		}
		runs := "the read is unguarded"
		if need.on {
			runs = "the read runs" + need.String()
		}
		return fmt.Sprintf("%s reads %s, which holds %s, the value it read before allocation, only%s%s, but %s", what, l, want, f.c, others, runs)
	}
	for _, s := range c.stale {
		if s.v == v {
			if s.call {
				return fmt.Sprintf("%s reads %s, which held %s until the CALL #%d clobbered it", what, l, want, s.by)
			}
			return fmt.Sprintf("%s reads %s, which holds a stale copy of %s: #%d redefined %s after the copy was made", what, l, want, s.by, want)
		}
	}
	for _, w := range c.weak {
		if w == v {
			return fmt.Sprintf("%s reads %s, which holds %s, the value it read before allocation, on only some of the paths that reach it", what, l, want)
		}
	}
	return fmt.Sprintf("%s reads %s, which holds %s (not %s, the value it read before allocation)", what, l, c.describe(v, want), want)
}

// assume returns the state on a path where condition g is known to be
// true: facts under g hold always there, facts under its negation hold on
// no execution of the path and are dropped.
func (s rdState) assume(g rdCond) rdState {
	var out rdState
	for i := range s {
		c := &s[i]
		touched := false
		for _, f := range c.facts {
			if f.c.on && f.c.p == g.p {
				touched = true
				break
			}
		}
		if !touched {
			continue
		}
		if out == nil {
			out = s.clone()
		}
		var facts []rdFact
		for _, f := range c.facts {
			switch {
			case f.c == g:
				facts = append(facts, rdFact{v: f.v})
			case f.c == g.not():
			default:
				facts = append(facts, f)
			}
		}
		out[i] = rdCell{facts: facts, stale: c.stale, weak: c.weak}
	}
	if out == nil {
		return s
	}
	return out
}

// rdHolder is a location holding some value under a condition.
type rdHolder struct {
	loc int
	c   rdCond
}

// holders returns the locations holding v.
func (s rdState) holders(v rdVal) []rdHolder {
	var out []rdHolder
	for i := range s {
		if f, ok := s[i].find(v); ok {
			out = append(out, rdHolder{loc: i, c: f.c})
		}
	}
	return out
}

// addHolders makes each holder also hold v, under the holder's condition.
func (s rdState) addHolders(hs []rdHolder, v rdVal) {
	for _, h := range hs {
		c := &s[h.loc]
		if h.c.on && h.c.p == v {
			continue // the condition named the old v
		}
		if _, ok := c.find(v); ok {
			continue
		}
		facts := append(append([]rdFact(nil), c.facts...), rdFact{v: v, c: h.c})
		rdSortFacts(facts)
		*c = rdCell{facts: facts, stale: c.stale, weak: c.weak}
	}
}

// staleOf reports whether the cell holds a stale copy of v.
func (c *rdCell) staleOf(v rdVal) bool {
	for _, s := range c.stale {
		if s.v == v {
			return true
		}
	}
	return false
}
