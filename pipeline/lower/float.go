package lower

import "orilab/pipeline/ptx"

// lowerFloatArith lowers the floating-point forms of add sub mul mad div
// min max abs neg. (Being written: float family.)
func lowerFloatArith(c *fn, in *ptx.Instr) error {
	return c.l.unsupported(in.OpPos, "floating-point %s is not implemented in the lowering yet", in.Op)
}
