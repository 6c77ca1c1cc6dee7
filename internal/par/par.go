// Package par runs independent pieces of one compilation at once and
// reports the outcome the same pieces run one after another would have:
// the first failure in index order, an error or a panic.
package par

import (
	"sync"
	"sync/atomic"
)

// Do calls fn(0) ... fn(n-1) on up to jobs goroutines, each index once,
// taking the indices in order, and returns when every call has returned.
// The result is what a loop calling fn in index order and stopping at the
// first failure would give: the error of the lowest index that failed,
// or, when that call panicked, the same panic, raised again in the
// caller's goroutine (where a recover, such as the phase manager's, sees
// it). With jobs <= 1 it is that loop. Unlike the loop, the calls after
// a failing index still run, so fn must have no effect that outlives a
// failed Do beyond what the caller discards.
func Do(n, jobs int, fn func(i int) error) error {
	if jobs <= 1 || n < 2 {
		for i := 0; i < n; i++ {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	panics := make([]any, n)
	panicked := make([]bool, n)
	var next atomic.Int32
	var wg sync.WaitGroup
	for w := min(jobs, n); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				func() {
					defer func() {
						if p := recover(); p != nil {
							panics[i], panicked[i] = p, true
						}
					}()
					errs[i] = fn(i)
				}()
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if panicked[i] {
			panic(panics[i])
		}
		if errs[i] != nil {
			return errs[i]
		}
	}
	return nil
}
