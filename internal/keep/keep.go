package keep

import "sync"

// MaxIdle bounds the idle values one Pool keeps: functions compile
// concurrently, one per worker, and a few passes hold two values of one
// pool at once.
const MaxIdle = 16

// Pool hands out values of type T and takes them back. Its zero value is
// ready to use, and it is safe for concurrent use.
type Pool[T any] struct {
	mu   sync.Mutex
	idle []*T
}

// Get returns an idle value, or a new zero one.
func (p *Pool[T]) Get() *T {
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

// Put hands x back for a later Get; the caller must not use x afterwards.
// Beyond MaxIdle idle values, x is dropped.
func (p *Pool[T]) Put(x *T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < MaxIdle {
		p.idle = append(p.idle, x)
	}
}

// Idle returns how many values p holds.
func (p *Pool[T]) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}
