package lower

import "orilab/pipeline/ptx"

// PTX reuses one mnemonic for integer and floating-point forms (add.s32
// and add.f32). These dispatchers pick the family by the instruction type;
// the families live in int.go and float.go.
func init() {
	register(dispatchArith, "add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg")
}

func dispatchArith(c *fn, in *ptx.Instr) error {
	t := lastType(in)
	if isFloatType(t) {
		return lowerFloatArith(c, in)
	}
	return lowerIntArith(c, in)
}
