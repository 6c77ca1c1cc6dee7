package opt

// Loop-invariant code motion keeps a partial write of a tuple in the loop
// when the loop computes the tuple's other words afresh.
//
// A 32-bit address used as a 64-bit one (PTX without .address_size 64,
// gpuocelot's sdk2.2 kernels) is a pair built inside the loop:
//
//	BB7 (loop): MOV %r28 = %r25              (%r25 changes every iteration)
//	            MOV %r28[1] = RZ             (invariant)
//	            LDG.E %r30 = [%r28.64]
//
// The high word alone is invariant, and hoisting it saves one MOV per
// iteration; but the allocator treats a tuple as one item, live from its
// first partial definition, so the whole pair then stays live across the
// loop. MersenneTwister's BoxMullerGPU builds four such pairs in its loop
// and used 24 registers with them hoisted, ptxas 16.
//
// After the invariant marking reaches its fixed point, a marked
// instruction that writes some words of a virtual register is unmarked
// when another word of that register is written in the loop by an
// instruction that is not marked (or by more than one), until nothing
// changes; a pair whose words are both invariant (a 64-bit kernel
// parameter) still moves together. Hoisting then skips the unmarked
// instruction as usual.
//
// Knob: LICMHoistTupleWords=1 hoists such words again.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "LICMHoistTupleWords", Type: knobs.TypeBool,
		Doc:     "Let loop-invariant code motion hoist a partial write of a tuple whose other words the loop computes (the whole tuple then stays live across the loop).",
		Readers: licmPositions})
}

// licmTupleWords is the widest tuple whose words are checked.
const licmTupleWords = 8

// keepSplitTuples unmarks the invariant instructions that write part of a
// tuple whose other words the loop computes afresh.
func (s *licmLoop) keepSplitTuples(c *Context) {
	if c.Bool("LICMHoistTupleWords") {
		return
	}
	for changed := true; changed; {
		changed = false
		for i, in := range s.cands {
			if s.inv[i] && s.splitsTuple(in) {
				s.inv[i] = false
				changed = true
			}
		}
	}
}

// splitsTuple reports whether in writes some words of a virtual register
// of which the loop writes another word by an unmarked instruction (or by
// several).
func (s *licmLoop) splitsTuple(in *ori.Inst) bool {
	for _, o := range in.Dsts {
		r := o.Reg
		if o.Kind != ori.OpdReg || !r.Virtual || r.IsZero() {
			continue
		}
		for k := int32(0); k < licmTupleWords; k++ {
			if k >= int32(r.Off) && k < int32(r.Off)+int32(r.Words) {
				continue
			}
			w := loopWord{r.Class, true, r.N, k}
			switch n, _, d := s.run.defs(w); n {
			case 0:
			case 1:
				if d < 0 || !s.inv[d] {
					return true
				}
			default:
				return true
			}
		}
	}
	return false
}
