package sched

import (
	"testing"

	"orilab/pipeline/ori"
)

// TestReadyTable checks assignStalls' table against the map it replaced:
// presence, overwrite, drop, the latest cycle, a word past the register
// file (kept in the fallback map) and reset between blocks.
func TestReadyTable(t *testing.T) {
	var r readyTable
	r4, p2, far := word{n: 4, class: ori.ClassR}, word{n: 2, class: ori.ClassP}, word{n: 300, class: ori.ClassR}
	if _, ok := r.get(r4); ok || r.latest() != 0 {
		t.Fatalf("empty table: get ok=%v latest=%d", ok, r.latest())
	}
	r.put(r4, 7)
	r.put(p2, 3)
	r.put(far, 9)
	if c, ok := r.get(r4); !ok || c != 7 {
		t.Errorf("get R4 = %d,%v, want 7,true", c, ok)
	}
	if c, ok := r.get(far); !ok || c != 9 {
		t.Errorf("get R300 = %d,%v, want 9,true", c, ok)
	}
	if got := r.latest(); got != 9 {
		t.Errorf("latest = %d, want 9", got)
	}
	r.drop(far)
	r.put(r4, 5) // overwrite: the last put counts
	if got := r.latest(); got != 5 {
		t.Errorf("latest after drop and overwrite = %d, want 5", got)
	}
	r.drop(r4)
	r.put(r4, 2) // put again after a drop
	if got := r.latest(); got != 3 {
		t.Errorf("latest = %d, want 3 (P2)", got)
	}
	r.reset()
	for _, w := range []word{r4, p2, far} {
		if _, ok := r.get(w); ok {
			t.Errorf("%v still present after reset", w)
		}
	}
	if got := r.latest(); got != 0 {
		t.Errorf("latest after reset = %d, want 0", got)
	}
}
