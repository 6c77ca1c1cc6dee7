package sched

import (
	"runtime"
	"testing"
)

// TestKept: a value put back is handed out again (also after a garbage
// collection, which empties a sync.Pool), one that served a function
// over keepInsts instructions is not kept, and no more than GOMAXPROCS
// values are.
func TestKept(t *testing.T) {
	var k kept[facts]
	a := k.get()
	k.put(a, 100)
	runtime.GC()
	runtime.GC()
	if b := k.get(); b != a {
		t.Errorf("get after put and two collections: a new value, want the kept one")
	}
	k.put(a, keepInsts+1)
	if b := k.get(); b == a {
		t.Errorf("a value that served %d instructions was kept", keepInsts+1)
	}
	n := runtime.GOMAXPROCS(0)
	for range n + 3 {
		k.put(new(facts), 1)
	}
	if k.pool.Idle() != n {
		t.Errorf("kept %d values, want GOMAXPROCS = %d", k.pool.Idle(), n)
	}
}
