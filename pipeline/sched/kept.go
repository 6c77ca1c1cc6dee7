package sched

import (
	"runtime"

	"orilab/internal/keep"
)

// kept holds working memory (Schedule's region scratch, the control-word
// passes' facts) between calls, across garbage collections (internal/keep:
// a sync.Pool empties at collections, and the register allocator's
// collections run between the two scheduling passes).
//
// It keeps at most GOMAXPROCS values (as many as calls can run at once)
// and none that served a function of more than keepInsts instructions,
// so what stays allocated is bounded by a few functions' tables.
type kept[T any] struct {
	pool keep.Pool[T]
}

// keepInsts is the largest function, in instructions, whose tables are
// kept: a few MB of tables at most.
const keepInsts = 1 << 15

// get returns a kept value, or a new one.
func (k *kept[T]) get() *T { return k.pool.Get() }

// forgetter is a kept value that can drop its pointers into the function
// it served, so that keeping it does not keep that function alive.
type forgetter interface{ forget() }

// put gives x back after a call on a function of insts instructions; x
// must not be used afterwards.
func (k *kept[T]) put(x *T, insts int) {
	if insts > keepInsts || k.pool.Idle() >= runtime.GOMAXPROCS(0) {
		return
	}
	if f, ok := any(x).(forgetter); ok {
		f.forget()
	}
	k.pool.Put(x)
}
