package regalloc

import "orilab/pipeline/ori"

// ClassLiveOut returns, per block of f in layout order, the live-out
// words of class c's virtual registers as the allocator's own liveness
// (classlive.go) computes them, each as a one-word register. The CFG must
// be current.
func ClassLiveOut(f *ori.Func, c ori.RegClass) ([][]ori.Reg, error) {
	p, err := newProblem(f, c, make([]float64, len(f.Blocks)), false, false, false, callModel{}, new(scratch))
	if err != nil {
		return nil, err
	}
	out := make([][]ori.Reg, len(f.Blocks))
	if p.live == nil {
		return out, nil
	}
	for bi := range f.Blocks {
		p.live.eachOut(bi, func(vi, w int) {
			out[bi] = append(out[bi], ori.VReg(c, int(p.vregs[vi].num), 1).Word(w))
		})
	}
	return out, nil
}

// Scratch is the allocator's reusable buffers (scratch.go).
type Scratch = scratch

// NewScratch returns an unused scratch.
func NewScratch() *Scratch { return new(scratch) }

// AllocateScratch is Allocate with the buffers of s, which earlier
// allocations may have used.
func AllocateScratch(f *ori.Func, opts Options, s *Scratch) (*Stats, error) {
	return allocate(f, opts, s)
}
