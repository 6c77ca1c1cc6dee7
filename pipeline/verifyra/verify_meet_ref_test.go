package verifyra

import (
	"math/rand"
	"testing"
)

// The reference meet: the map-based form rdMeetState had before it was
// made to allocate nothing on merges that change nothing. It follows the
// description "The lattice of the fixed point" (verify_state.go) line by
// line; TestMeetStateMatchesReference checks the fast one against it.

func rdMeetStateRef(a, b rdState) rdState {
	if a == nil {
		out := b.clone()
		for i := range out {
			if i != rdUndef {
				out[i] = rdCanonCell(out[i], &out[rdUndef])
			}
		}
		return out
	}
	out := make(rdState, len(a))
	ua, ub := &a[rdUndef], &b[rdUndef]
	out[rdUndef] = rdLatticeMeetRef(*ua, *ub, nil, nil, nil)
	for i := range a {
		if i != rdUndef {
			out[i] = rdLatticeMeetRef(a[i], b[i], ua, ub, &out[rdUndef])
		}
	}
	return out
}

// rdLatticeMeet meets cell a of one state with cell b of another; ua and
// ub are the states' "undefined" cells and u the met one (all nil when a
// and b are the "undefined" cells themselves).
func rdLatticeMeetRef(a, b rdCell, ua, ub, u *rdCell) rdCell {
	var out rdCell
	// The values to decide: those with an explicit fact on either side
	// that the side's "undefined" cell does not imply (an implied one
	// says nothing more, and counting it would make the weak records
	// depend on the representation).
	vals := map[rdVal]bool{}
	for _, side := range []struct{ c, u *rdCell }{{&a, ua}, {&b, ub}} {
		for _, f := range side.c.facts {
			if side.u != nil {
				if uf, ok := side.u.find(f.v); ok && (!uf.c.on || uf.c == f.c) {
					continue
				}
			}
			vals[f.v] = true
		}
	}
	// disj returns the disjuncts of D(v) on one side; a literal and its
	// negation are "always".
	disj := func(c *rdCell, uc *rdCell, v rdVal) []rdCond {
		var ds []rdCond
		if f, ok := c.find(v); ok {
			ds = append(ds, f.c)
		}
		if uc != nil {
			if f, ok := uc.find(v); ok {
				if len(ds) == 1 && ds[0] == f.c.not() {
					return []rdCond{{}}
				}
				ds = append(ds, f.c)
			}
		}
		return ds
	}
	weak := map[rdVal]bool{}
	for v := range vals {
		var terms []rdCond
		for _, x := range disj(&a, ua, v) {
			for _, y := range disj(&b, ub, v) {
				if c, ok := rdMeetCond(x, y); ok {
					terms = append(terms, c)
				}
			}
		}
		var uf rdFact
		uok := false
		if u != nil {
			uf, uok = u.find(v)
		}
		c, ok := rdPickCond(terms, uf.c, uok)
		if ok {
			out.facts = append(out.facts, rdFact{v: v, c: c})
		} else if !uok {
			weak[v] = true // held on one side (or under conditions that do not meet)
		}
	}
	for _, w := range a.weak {
		weak[w] = true
	}
	for _, w := range b.weak {
		weak[w] = true
	}
	for w := range weak {
		out.weak = append(out.weak, w)
	}
	rdSortFacts(out.facts)
	rdSortVals(out.weak)
	out.stale = rdUnionStaleRef(a.stale, b.stale)
	return out
}

// rdUnionStale unites stale records, keeping the earliest redefinition
// of each value.
func rdUnionStaleRef(a, b []rdStale) []rdStale {
	if len(b) == 0 {
		return a
	}
	stale := map[rdVal]rdStale{}
	for _, s := range append(append([]rdStale(nil), a...), b...) {
		if o, ok := stale[s.v]; !ok || s.by < o.by || (s.by == o.by && !s.call && o.call) {
			stale[s.v] = s
		}
	}
	out := make([]rdStale, 0, len(stale))
	for _, s := range stale {
		out = append(out, s)
	}
	rdSortStale(out)
	return out
}

// rdRefRandomCell is a random cell over five values and two predicates,
// with sorted facts, weak and stale lists as every writer keeps them.
func rdRefRandomCell(rng *rand.Rand, undef bool) rdCell {
	conds := []rdCond{{}, rdLatP(0, false), rdLatP(0, true), rdLatP(1, false), rdLatP(1, true)}
	var c rdCell
	for n := int32(0); n < 5; n++ {
		if k := rng.Intn(len(conds) + 3); k < len(conds) {
			c.facts = append(c.facts, rdFact{v: rdLatV(n), c: conds[k]})
		}
		if undef {
			continue
		}
		if rng.Intn(4) == 0 {
			c.weak = append(c.weak, rdLatV(n))
		}
		if rng.Intn(4) == 0 {
			c.stale = append(c.stale, rdStale{v: rdLatV(n), by: int32(rng.Intn(3)), call: rng.Intn(2) == 0})
		}
	}
	return c
}

func rdRefRandomState(rng *rand.Rand) rdState {
	s := make(rdState, 4)
	for i := range s {
		s[i] = rdRefRandomCell(rng, i == rdUndef)
	}
	return s
}

// rdRefSameCell compares cells as lists (nil and empty alike).
func rdRefSameCell(a, b rdCell) bool { return a.equal(b) }

// The fast meet gives the reference's result on random states, both raw
// ones and the canonical ones the fixed point keeps; it returns its first
// argument itself exactly when the meet equals it, and never writes into
// its arguments.
func TestMeetStateMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	differ, same := 0, 0
	for iter := 0; iter < 20000; iter++ {
		a, b := rdRefRandomState(rng), rdRefRandomState(rng)
		switch iter % 4 {
		case 1:
			a = rdMeetStateRef(nil, a)
		case 2:
			a = rdMeetStateRef(rdMeetStateRef(nil, a), b)
		case 3:
			a = rdMeetStateRef(rdMeetStateRef(nil, a), rdRefRandomState(rng))
			b = a.clone()
			if rng.Intn(2) == 0 {
				b[1+rng.Intn(len(b)-1)] = rdRefRandomCell(rng, false)
			}
		}
		aCopy := make(rdState, len(a))
		for i, c := range a {
			aCopy[i] = rdCell{
				facts: append([]rdFact(nil), c.facts...),
				stale: append([]rdStale(nil), c.stale...),
				weak:  append([]rdVal(nil), c.weak...),
			}
		}
		want := rdMeetStateRef(a, b)
		got := rdMeetState(a, b)
		for i := range want {
			if !rdRefSameCell(got[i], want[i]) {
				t.Fatalf("iteration %d, cell %d:\n a %+v\n b %+v\n got  %+v\n want %+v", iter, i, a, b, got[i], want[i])
			}
		}
		if !a.equal(aCopy) {
			t.Fatalf("iteration %d: the meet wrote into its argument:\n before %+v\n after  %+v", iter, aCopy, a)
		}
		if isA := &got[0] == &a[0]; isA != want.equal(a) {
			t.Fatalf("iteration %d: result is a itself: %v, meet equals a: %v", iter, isA, want.equal(a))
		} else if isA {
			same++
		} else {
			differ++
		}
	}
	// Both branches must be exercised for the test to mean anything.
	if same < 1000 || differ < 1000 {
		t.Fatalf("random states exercised too little: %d merges returned a, %d a new state", same, differ)
	}
}

// A merge that changes nothing allocates nothing: the common case at a
// loop header once the fixed point is near.
func TestMeetStateNoAllocWhenUnchanged(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	a := rdMeetState(nil, rdRefRandomState(rng))
	b := a.clone()
	if got := rdMeetState(a, b); &got[0] != &a[0] {
		t.Fatalf("meet of a state with itself is not the state itself:\n a %+v\n got %+v", a, got)
	}
	if n := testing.AllocsPerRun(100, func() { rdMeetState(a, b) }); n != 0 {
		t.Errorf("meet of a state with an equal one allocated %v times per call, want 0", n)
	}
}
