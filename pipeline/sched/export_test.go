package sched

import (
	"math/rand"

	"orilab/pipeline/ori"
)

// ShuffleFunc reorders every block of f into a random topological order of
// its dependency DAG: any order the DAG allows must compute the same
// results, so executing shuffled code tests the DAG's completeness far
// harder than the scheduler's own, fairly conservative, choices.
func ShuffleFunc(f *ori.Func, arch int, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	for _, b := range f.Blocks {
		start := phiPrefix(b)
		body := b.Insts[start:]
		if len(body) < 2 {
			continue
		}
		d := buildDAG(body, arch, true)
		npred := append([]int32(nil), d.npred...)
		var ready []int32
		for i := range body {
			if npred[i] == 0 {
				ready = append(ready, int32(i))
			}
		}
		out := make([]*ori.Inst, 0, len(body))
		for len(ready) > 0 {
			k := rng.Intn(len(ready))
			i := ready[k]
			ready[k] = ready[len(ready)-1]
			ready = ready[:len(ready)-1]
			out = append(out, body[i])
			for _, e := range d.succ[i] {
				if npred[e.to]--; npred[e.to] == 0 {
					ready = append(ready, e.to)
				}
			}
		}
		copy(body, out)
	}
}
