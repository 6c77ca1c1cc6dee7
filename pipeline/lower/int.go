package lower

import "orilab/pipeline/ptx"

// lowerIntArith lowers the integer forms of add sub mul mad div rem min
// max abs neg. (Being written: integer family.)
func lowerIntArith(c *fn, in *ptx.Instr) error {
	return c.l.unsupported(in.OpPos, "integer %s is not implemented in the lowering yet", in.Op)
}
