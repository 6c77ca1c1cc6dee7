package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// TestWordTable: values set are found again, per class and word; reset
// forgets every entry, in the dense part and in the map (numbers past the
// dense limit, word offsets of 4 or more), including after the generation
// counter wraps around.
func TestWordTable(t *testing.T) {
	keys := []wkey{
		{n: 0, class: ori.ClassR, w: 0},
		{n: 0, class: ori.ClassR, w: 1},
		{n: 0, class: ori.ClassP, w: 0},
		{n: 1000, class: ori.ClassUR, w: 3},
		{n: wordIDsDenseLimit + 5, class: ori.ClassR, w: 0}, // the map
		{n: 7, class: ori.ClassR, w: 5},                     // the map
	}
	var tab wordTable[int]
	extra := wkey{n: 50, class: ori.ClassR} // set in the first round only
	tab.set(extra, 1)
	for round := 0; round < 3; round++ {
		if _, ok := tab.get(extra); ok != (round == 0) {
			t.Fatalf("round %d: word of the first round found: %v", round, ok)
		}
		for i, k := range keys {
			if _, ok := tab.get(k); ok {
				t.Fatalf("round %d: %+v found before it was set", round, k)
			}
			tab.set(k, 10*i+round)
		}
		for i, k := range keys {
			if v, ok := tab.get(k); !ok || v != 10*i+round {
				t.Fatalf("round %d: %+v = %d, %v; want %d", round, k, v, ok, 10*i+round)
			}
		}
		if _, ok := tab.get(wkey{n: 1, class: ori.ClassR}); ok {
			t.Fatalf("round %d: a word never set is found", round)
		}
		if round == 1 {
			tab.gen = ^uint32(0) // the next reset wraps
		}
		tab.reset()
	}
}

// TestWordIDsForget: a forgotten word has no number any more, the others
// keep theirs.
func TestWordIDsForget(t *testing.T) {
	var x wordIDs
	a, b := wkey{n: 3, class: ori.ClassR}, wkey{n: wordIDsDenseLimit, class: ori.ClassR}
	c := wkey{n: 4, class: ori.ClassR, w: 1}
	ia, ib, ic := x.add(a), x.add(b), x.add(c)
	x.forget(a)
	x.forget(b)
	if _, ok := x.get(a); ok {
		t.Error("dense word still numbered after forget")
	}
	if _, ok := x.get(b); ok {
		t.Error("map word still numbered after forget")
	}
	if id, ok := x.get(c); !ok || id != ic || ia == ib {
		t.Errorf("other word: %d, %v; want %d", id, ok, ic)
	}
}
