package opt

import "sync"

// keepPool hands out scratch objects of type T and takes them back,
// like sync.Pool, but keeps them across garbage collections: a
// sync.Pool is emptied at every collection, and a compile collects many
// times, so the dense word tables of the GeneralOptimize sub-passes were
// grown again (doubling from empty, on fresh pages) after every
// collection. It holds at most keepPoolMax idle objects; a process
// compiles one file, so what it keeps is bounded by its largest
// function.
type keepPool[T any] struct {
	mu   sync.Mutex
	idle []*T
}

// keepPoolMax bounds the idle objects of one pool (functions compile
// concurrently, one per worker).
const keepPoolMax = 16

// get returns an idle object, or a new zero one.
func (p *keepPool[T]) get() *T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		x := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return x
	}
	return new(T)
}

// put hands x back; x must not be used after.
func (p *keepPool[T]) put(x *T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < keepPoolMax {
		p.idle = append(p.idle, x)
	}
}
