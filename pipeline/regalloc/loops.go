package regalloc

import (
	"math"

	"orilab/pipeline/ori"
)

// Block frequencies for the spill cost model: a block nested in d natural
// loops is estimated to run iters^d times per function execution.
//
// The wiki multiplies spill costs by "the enclosing loop's nesting
// depth" through a block-frequency callback (001:20411-20415) and names a
// knob, RegAllocEstimatedLoopIterations, as the loop-iteration hint for
// spill cost weighting. Decision: the knob's value is the iteration count
// assumed for every loop (default 8), and a block's weight is that count
// to the power of its loop depth, capped at depth 6 so weights stay finite
// and ordered.
//
// Loops are found the classic way: an edge b→h where h dominates b is a
// back edge, and its natural loop is h plus every block that reaches b
// without passing through h.

// maxLoopDepth caps the exponent of the frequency estimate.
const maxLoopDepth = 6

// blockFrequencies returns the estimated frequency of each block of f, in
// layout order. The CFG must be current.
func blockFrequencies(f *ori.Func, iters float64) []float64 {
	dom := ori.Dominators(f)
	pos := make(map[*ori.Block]int, len(f.Blocks))
	for i, b := range f.Blocks {
		pos[b] = i
	}
	// One loop per header: back edges from several latches to one header
	// form a single loop.
	loops := map[*ori.Block]map[*ori.Block]bool{}
	var headers []*ori.Block
	for _, b := range f.Blocks {
		if !dom.Reached(b) {
			continue
		}
		for _, h := range b.Succs {
			if !dom.Dominates(h, b) {
				continue
			}
			in := loops[h]
			if in == nil {
				in = map[*ori.Block]bool{h: true}
				loops[h] = in
				headers = append(headers, h)
			}
			work := []*ori.Block{b}
			for len(work) > 0 {
				x := work[len(work)-1]
				work = work[:len(work)-1]
				if in[x] {
					continue
				}
				in[x] = true
				work = append(work, x.Preds...)
			}
		}
	}
	depth := make([]int, len(f.Blocks))
	for _, h := range headers {
		for x := range loops[h] {
			depth[pos[x]]++
		}
	}
	freq := make([]float64, len(f.Blocks))
	for i, d := range depth {
		freq[i] = math.Pow(iters, float64(min(d, maxLoopDepth)))
	}
	return freq
}
