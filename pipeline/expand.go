package pipeline

// ConvertUnsupportedOps (5) and LateExpansionUnsupportedOps (86): the
// expansions of operations the target has no instruction for.
//
// The wiki ("Late Expansion & Legalization"; phase 5 at seed 3874-3887)
// has ptxas legalize PTX operations without a SASS equivalent at phase 5
// and expand "unsupported operations remaining after optimization" at 86
// (and again at 101 and 137 for operations later phases create). orilab's
// lowering emits SASS-level Ori directly for almost everything; the
// operations it keeps whole (pipeline/lower.Unsupported, meanings in
// pipeline/ori/SEMANTICS.md) are the ones whose expansion the optimizer
// would otherwise see as dozens of unrelated instructions and extra
// blocks:
//   - IDIV, integer division and remainder with a register divisor: 32-bit
//     a 16-instruction expansion (I2F, MUFU.RCP, F2I, a Newton step, two
//     corrections, the sign and divide-by-zero fix-ups); 64-bit a 32-bit
//     fast path and a 64-iteration shift-subtract loop, which the loop
//     passes would otherwise unroll (its trip count is a constant);
//   - DDIV, f64 division in the four rounding modes: a Newton fast path
//     and an exact slow path in a block of its own, about 170
//     instructions;
//   - DSQRT, f64 square root: about 50 instructions.
// Kept whole, they are commoned by OriCommoning, hoisted out of loops by
// LICM and removed when dead.
//
// Decision: at -O0 nothing optimizes, so ConvertUnsupportedOps expands
// them at once, where ptxas legalizes; at -O1 and above it leaves them,
// and LateExpansionUnsupportedOps expands them after the optimizer. The
// late phase is required (the allocator cannot take them); both run
// pipeline/lower.Expand, so the code is the same either way.
// LateExpansionUnsupportedOps2 and LateExpansionUnsupportedOpsMid have
// nothing to expand: no later orilab phase creates one of these.

import (
	"fmt"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
)

// keepWholeAboveO0 is ConvertUnsupportedOps' gate.
func keepWholeAboveO0(c *PhaseContext) string {
	if c.OptLevel > 0 {
		return "at -O1 and above integer division, f64 division and f64 square root stay whole (IDIV, DDIV, DSQRT) for the optimizer; LateExpansionUnsupportedOps (86) expands them"
	}
	return ""
}

// expandUnsupported replaces every IDIV, DDIV and DSQRT of the module by
// its expansion.
// A multi-block expansion (64-bit) splits the IDIV's block: the code
// before it and the expansion's first block stay in the block, the
// expansion's other blocks follow it, and the code after the IDIV moves
// to the end of the last one.
func expandUnsupported(c *PhaseContext) error {
	slow := slowPaths(c)
	for _, f := range c.Module.Funcs {
		changed := false
		fslow := slow
		if !lower.CanCall(f) {
			fslow = nil
		}
		for bi := 0; bi < len(f.Blocks); bi++ {
			b := f.Blocks[bi]
			for i := 0; i < len(b.Insts); i++ {
				in := b.Insts[i]
				if !lower.Unsupported(in.Op) {
					continue
				}
				blocks, err := lower.ExpandOutlined(f, in, fslow)
				if err != nil {
					return fmt.Errorf("%s: %w", f.Name, err)
				}
				changed = true
				rest := append([]*ori.Inst(nil), b.Insts[i+1:]...)
				b.Insts = append(b.Insts[:i:i], blocks[0].Insts...)
				if len(blocks) == 1 {
					i += len(blocks[0].Insts) - 1
					b.Insts = append(b.Insts, rest...)
					continue
				}
				last := blocks[len(blocks)-1]
				last.Insts = append(last.Insts, rest...)
				f.Blocks = append(f.Blocks[:bi+1], append(blocks[1:], f.Blocks[bi+1:]...)...)
				// The code after the IDIV is now in last, which the loop
				// reaches as a later block.
				break
			}
		}
		if changed {
			if err := f.ComputeCFG(); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return slow.Finish()
}

// unexpanded reports an operation kept whole that reached a phase that
// cannot take one.
func unexpanded(m *ori.Module) error {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if lower.Unsupported(in.Op) {
					return fmt.Errorf("%s BB%d #%d: %s reached register allocation; LateExpansionUnsupportedOps must run before it", f.Name, b.ID, in.ID, in.Op)
				}
			}
		}
	}
	return nil
}
