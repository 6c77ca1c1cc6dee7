package lower

import (
	"fmt"

	"orilab/pipeline/ori"
)

// The operations the lowering keeps whole for the optimizer and expands
// late (pipeline/expand.go: ConvertUnsupportedOps at -O0, otherwise
// LateExpansionUnsupportedOps): integer division and remainder with a
// register divisor (IDIV, 32- and 64-bit), and f64 division and square
// root (DDIV, DSQRT). Each is one pure instruction to the optimizer
// (SEMANTICS.md gives its meaning, which the simulator executes) and
// several, or several blocks, once expanded. The expansions are the ones
// the lowering used to emit in place, so the code after expansion is the
// same; what changes is what the optimizer sees in between.

// Unsupported reports whether op is one of those operations.
func Unsupported(op ori.Opcode) bool {
	return op == ori.OpIDIV || op == ori.OpDDIV || op == ori.OpDSQRT
}

// Expand returns the code that replaces in, one of the Unsupported
// operations: the blocks of the expansion in layout order. The first is
// not part of f (its instructions belong where in was), the others are
// new blocks of f created detached from f.Blocks, each falling through
// to the next; the code after in belongs at the end of the last. New
// instructions take in's line; the last one keeps in's ID.
func Expand(f *ori.Func, in *ori.Inst) ([]*ori.Block, error) {
	return ExpandOutlined(f, in, nil)
}

// ExpandOutlined is Expand with the slow path of an f64 division
// replaced by a call of slow's subroutine (slowpath.go); a nil slow
// keeps it inline.
func ExpandOutlined(f *ori.Func, in *ori.Inst, slow *SlowPaths) ([]*ori.Block, error) {
	if !Unsupported(in.Op) || len(in.Dsts) != 1 || in.Dsts[0].Kind != ori.OpdReg {
		return nil, fmt.Errorf("#%d: %s is not an operation the lowering keeps whole", in.ID, in.Name())
	}
	nBlocks := len(f.Blocks)
	c := &fn{f: f, guard: ori.PT, slow: slow}
	c.setBlock(&ori.Block{})
	var err error
	switch in.Op {
	case ori.OpIDIV:
		err = c.expandIDIV(in)
	case ori.OpDDIV, ori.OpDSQRT:
		err = c.expandF64(in)
	}
	if err != nil {
		return nil, err
	}
	// The expansion's blocks were appended to f.Blocks; the caller
	// places them.
	f.Blocks = f.Blocks[:nBlocks]
	var last *ori.Inst
	for _, blk := range c.order {
		for _, x := range blk.Insts {
			x.Line = in.Line
			last = x
		}
	}
	if last != nil {
		last.ID = in.ID
	}
	return c.order, nil
}

// expandIDIV: IDIV.<U32|S32|U64|S64>[.REM] d = a, b is the division of
// intDivMod32 or intDivMod64 into fresh registers, unguarded (it has no
// side effects), then d written under in's guard, all ones when b = 0.
// The 32-bit expansion is one block; the 64-bit one has a fast path, a
// shift-subtract loop and a join.
func (c *fn) expandIDIV(in *ori.Inst) error {
	if len(in.Srcs) != 2 {
		return fmt.Errorf("#%d: not an IDIV d = a, b", in.ID)
	}
	var signed, wide bool
	switch {
	case in.HasMod("U32"):
	case in.HasMod("S32"):
		signed = true
	case in.HasMod("U64"):
		wide = true
	case in.HasMod("S64"):
		signed, wide = true, true
	default:
		return fmt.Errorf("#%d: IDIV needs U32, S32, U64 or S64", in.ID)
	}
	a, b := in.Srcs[0], in.Srcs[1]
	d := in.Dsts[0].Reg
	if wide {
		res := c.intDivMod64(a, b, signed, in.HasMod("REM"))
		o := c.intLop(word(b, 0), word(b, 1), intRZ, lutOr)
		nz := c.intSetp("NE", true, o, intRZ)
		c.guard, c.gNot = in.Guard, in.GuardNot
		for w := 0; w < 2; w++ {
			c.emit(ori.OpSEL, nil, []ori.Operand{ori.R(d.Word(w))}, ori.R(res.Word(w)), ori.Imm(-1), ori.R(nz))
		}
		return nil
	}
	res := c.intDivMod32(a, b, signed, in.HasMod("REM"))
	nz := c.intSetp("NE", true, b, intRZ)
	c.guard, c.gNot = in.Guard, in.GuardNot
	c.emit(ori.OpSEL, nil, []ori.Operand{in.Dsts[0]}, ori.R(res), ori.Imm(-1), ori.R(nz))
	return nil
}

// expandF64: DDIV.<RN|RZ|RM|RP> d = a, b and DSQRT.<rnd> d = a are
// flDivF64 and flSqrtF64 under in's guard: the IEEE-exact f64 division
// (a fast Newton path and an exact slow path in its own block, skipped
// when the quotient's range allows) and square root.
func (c *fn) expandF64(in *ori.Inst) error {
	rnd := ""
	for _, m := range []string{"RN", "RZ", "RM", "RP"} {
		if in.HasMod(m) {
			rnd = m
		}
	}
	if rnd == "" {
		return fmt.Errorf("#%d: %s needs a rounding mode (RN, RZ, RM or RP)", in.ID, in.Name())
	}
	c.guard, c.gNot = in.Guard, in.GuardNot
	d := in.Dsts[0].Reg
	if in.Op == ori.OpDSQRT {
		if len(in.Srcs) != 1 {
			return fmt.Errorf("#%d: not a DSQRT d = a", in.ID)
		}
		c.flSqrtF64(d, in.Srcs[0], rnd)
		return nil
	}
	if len(in.Srcs) != 2 {
		return fmt.Errorf("#%d: not a DDIV d = a, b", in.ID)
	}
	c.flDivF64(d, in.Srcs[0], in.Srcs[1], rnd)
	return nil
}
