package sched

import (
	"runtime"
	"sync"
)

// kept holds working memory (Schedule's region scratch, the control-word
// passes' facts) between calls, across garbage collections. A sync.Pool
// empties at every other collection, and a compilation collects many
// times between two calls (the register allocator runs between the two
// scheduling passes), so the pool handed back fresh memory most of the
// time: tables allocated again, zeroed, and faulted in page by page.
//
// It keeps at most GOMAXPROCS values (as many as calls can run at once)
// and none that served a function of more than keepInsts instructions,
// so what stays allocated is bounded by a few functions' tables.
type kept[T any] struct {
	mu   sync.Mutex
	free []*T
}

// keepInsts is the largest function, in instructions, whose tables are
// kept: a few MB of tables at most.
const keepInsts = 1 << 15

// get returns a kept value, or a new one.
func (k *kept[T]) get() *T {
	k.mu.Lock()
	defer k.mu.Unlock()
	if n := len(k.free); n > 0 {
		x := k.free[n-1]
		k.free[n-1] = nil
		k.free = k.free[:n-1]
		return x
	}
	return new(T)
}

// forgetter is a kept value that can drop its pointers into the function
// it served, so that keeping it does not keep that function alive.
type forgetter interface{ forget() }

// put gives x back after a call on a function of insts instructions; x
// must not be used afterwards.
func (k *kept[T]) put(x *T, insts int) {
	if insts > keepInsts {
		return
	}
	if f, ok := any(x).(forgetter); ok {
		f.forget()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.free) < runtime.GOMAXPROCS(0) {
		k.free = append(k.free, x)
	}
}
