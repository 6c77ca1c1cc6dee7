package keep

import (
	"runtime"
	"testing"
)

// TestPool: a value put back is handed out again, also after garbage
// collections (which empty a sync.Pool), and no more than MaxIdle values
// are kept.
func TestPool(t *testing.T) {
	var p Pool[[64]int]
	a := p.Get()
	a[3] = 7
	p.Put(a)
	runtime.GC()
	runtime.GC()
	if b := p.Get(); b != a || b[3] != 7 {
		t.Errorf("Get after Put and two collections: a new value, want the kept one")
	}
	if b := p.Get(); b == a || *b != [64]int{} {
		t.Errorf("Get on an empty pool: %p (kept %p), want a new zero value", b, a)
	}
	for range MaxIdle + 3 {
		p.Put(new([64]int))
	}
	if n := p.Idle(); n != MaxIdle {
		t.Errorf("kept %d values, want MaxIdle = %d", n, MaxIdle)
	}
}
