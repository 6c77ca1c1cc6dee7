package verifyra

import (
	"math/rand"
	"testing"

	"orilab/pipeline/ori"
)

// Values and conditions of the small states below: rdLatV(n) is the
// virtual R register %r<n>, rdLatP(n, neg) "when %p<n>" (or "when !%p<n>").
func rdLatV(n int32) rdVal { return rdVal{class: ori.ClassR, virtual: true, n: n} }

func rdLatP(n int32, neg bool) rdCond {
	return rdCond{on: true, p: rdVal{class: ori.ClassP, virtual: true, n: n}, neg: neg}
}

// rdLatState builds a state of len(cells) locations (index 0 is
// "undefined") from per-location facts.
func rdLatState(cells ...[]rdFact) rdState {
	s := make(rdState, len(cells))
	for i, fs := range cells {
		fs = append([]rdFact(nil), fs...)
		rdSortFacts(fs)
		s[i] = rdCell{facts: fs}
	}
	return s
}

// The cycle behind fuzz seeds 26121646 and 26121665 at -O2: %r72 is
// undefined "when !%p7" at a loop header, and one predecessor also has
// R8 holding it explicitly under the same condition. Both states mean
// the same, so merging either into the other must change nothing. The
// earlier join copied the undefined value into R8 when that edge came
// second and dropped it again when the other did, so the header's state
// alternated and the fixed point never came.
func TestMeetStateCanonical(t *testing.T) {
	v, np7 := rdLatV(72), rdLatP(7, true)
	implicit := rdLatState([]rdFact{{v: v, c: np7}}, nil)
	explicit := rdLatState([]rdFact{{v: v, c: np7}}, []rdFact{{v: v, c: np7}})
	entry := rdMeetState(nil, implicit)
	for _, arriving := range []rdState{explicit, implicit, explicit} {
		next := rdMeetState(entry, arriving)
		if !next.equal(entry) {
			t.Fatalf("merging a state of the same meaning changed the block's state:\n old %+v\n new %+v", entry, next)
		}
	}
	if got := rdMeetState(nil, explicit); !got.equal(entry) {
		t.Errorf("the two forms of one state are not stored alike:\n %+v\n %+v", got, entry)
	}

	// A fact complementary to the undefined condition makes the value
	// held always; one the undefined condition does not imply stays.
	comp := rdMeetState(nil, rdLatState([]rdFact{{v: v, c: np7}}, []rdFact{{v: v, c: np7.not()}}))
	if f, ok := comp[1].find(v); !ok || f.c.on {
		t.Errorf("R8 holding %%r72 when %%p7, undefined when !%%p7: got %+v, want %%r72 always", comp[1])
	}
	// A value undefined on the old side and held on the arriving one is
	// held on the join (a loop's first iteration).
	first := rdMeetState(rdLatState([]rdFact{{v: v}}, nil), rdLatState(nil, []rdFact{{v: v, c: np7}}))
	if f, ok := first[1].find(v); !ok || f.c != np7 {
		t.Errorf("after the first iteration R8 should hold %%r72 when !%%p7: got %+v", first[1])
	}
}

// rdLatRandom is a random state of three locations over three values and
// two predicates.
func rdLatRandom(rng *rand.Rand) rdState {
	conds := []rdCond{{}, rdLatP(0, false), rdLatP(0, true), rdLatP(1, false), rdLatP(1, true)}
	cells := make([][]rdFact, 3)
	for i := range cells {
		for n := int32(0); n < 3; n++ {
			if k := rng.Intn(len(conds) + 2); k < len(conds) {
				cells[i] = append(cells[i], rdFact{v: rdLatV(n), c: conds[k]})
			}
		}
	}
	return rdLatState(cells...)
}

// rdLatHolds reports whether state s says location i holds v whenever
// condition c holds (c "always" or a literal), counting v's being
// undefined.
func rdLatHolds(s rdState, i int, v rdVal, c rdCond) bool {
	e, eok := s[i].find(v)
	u, uok := s[rdUndef].find(v)
	switch {
	case eok && (!e.c.on || e.c == c), uok && (!u.c.on || u.c == c):
		return true
	case i != rdUndef && eok && uok && e.c == u.c.not():
		return true // held under p and under !p: always
	}
	return false
}

// The meet is a lattice meet on the meaning of the states: its result
// says nothing that either side does not (soundness), merging it with
// either side again changes nothing, and a sequence of merges into one
// block state never rises, so it stops (the property the fixed point
// needs).
func TestMeetStateLattice(t *testing.T) {
	rng := rand.New(rand.NewSource(26121665))
	conds := []rdCond{{}, rdLatP(0, false), rdLatP(0, true), rdLatP(1, false), rdLatP(1, true)}
	for iter := 0; iter < 3000; iter++ {
		a, b := rdLatRandom(rng), rdLatRandom(rng)
		m := rdMeetState(rdMeetState(nil, a), b)
		for i := range m {
			for n := int32(0); n < 3; n++ {
				for _, c := range conds {
					if rdLatHolds(m, i, rdLatV(n), c) && (!rdLatHolds(a, i, rdLatV(n), c) || !rdLatHolds(b, i, rdLatV(n), c)) {
						t.Fatalf("the meet says location %d holds %%r%d%s, which one side does not:\n a %+v\n b %+v\n m %+v", i, n, c, a, b, m)
					}
				}
			}
		}
		for _, x := range []rdState{a, b, m} {
			if again := rdMeetState(m, x); !again.equal(m) {
				t.Fatalf("merging a side into the meet changed it:\n a %+v\n b %+v\n m %+v\n again %+v", a, b, m, again)
			}
		}
	}
	// Merging a stream of states into one block state changes it a
	// bounded number of times: each location, value pair can only fall
	// from "always" to a literal to nothing, and so can each value's
	// undefined condition.
	for iter := 0; iter < 200; iter++ {
		s := rdMeetState(nil, rdLatRandom(rng))
		changes := 0
		for k := 0; k < 200; k++ {
			next := rdMeetState(s, rdLatRandom(rng))
			if !next.equal(s) {
				changes++
			}
			s = next
		}
		if max := 2 * 3 * 3; changes > max {
			t.Fatalf("a block state changed %d times, more than the lattice's height %d", changes, max)
		}
	}
}
