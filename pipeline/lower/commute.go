package lower

// The operand order of commutative f64 instructions. DADD, DMUL, DFMA and
// DSETP.MIN/MAX return the second operand's NaN when both are NaNs
// (sim/fp nan2), so which PTX operand lands in which SASS slot decides
// the result bits, and ptxas -O3 (the H100's JIT) does not keep the PTX
// order.

import "orilab/pipeline/ptx"

// Rank classes of f64OrderRank: a register's single reaching definition
// is ranked by its statement index; a register holding a constant comes
// after every other register (by its definition's index among those),
// and an immediate last.
const (
	rankUnknown = -1
	rankConst   = 1 << 30
	rankImm     = 1 << 31
)

// f64Commute returns the operand indexes (into in.Args) of the two
// commuted sources of in, a and b, in the order ptxas 13.0 -O3 encodes
// them: it sorts them by where their value is defined.
//
// Decision: the operand whose value is defined earlier goes first, a
// constant (an immediate, a register set only by a mov of one, a kernel
// parameter read by ld.param) second, as ptxas -O3 does; this applies at
// every -O level, so the oracle's levels agree with each other and with
// the H100. ptxas -O0 keeps the PTX order, but the recordings were
// compiled at -O3. Evidence: ptxas -arch=sm_90 SASS, where %fd1 is loaded
// before %fd2: "mul.rz.f64 d, %fd2, %fd1" and "mul.rz.f64 d, %fd1, %fd2"
// both give "DMUL.RZ R4, R4(%fd1), R6(%fd2)"; loading %fd2 first swaps
// them; "sub.rz.f64 d, %fd2, %fd1" gives "DADD.RZ R4, -R4(%fd1), R6";
// "fma.rn.f64 d, %fd2, %fd1, c" gives "DFMA R6, R4(%fd1), R6(%fd2), c";
// "min.f64 d, %fd2, %fd1" gives "DSETP.MIN ... R4(%fd1), R6(%fd2)"; a
// redefinition of %fd1 after %fd2's load puts %fd1 second; a kernel
// parameter goes second (as a uniform or bank operand) also when it is
// read first. The H100 confirms it: fuzz5550152 (hwtruth), "mul.rz.f64
// %fd2, %fd2, %fd1" with %fd1 = cvt.f64.f32 of 0x7fc00000 (line 257,
// 0x7ff8000000000000) and %fd2 = rcp.approx.ftz.f64 of it (line 294,
// 0x7fffffff00000000, as the unit gives for every NaN): ptxas emits
// "DMUL.RZ R16, R32(%fd1), R16(%fd2)" and the H100 wrote 0x7fffffff in
// the high word (out[4011], thread 91, word 7, and out[4055]); the PTX
// order gives 0x7ff80000. Where a definition's position is not one
// statement (several definitions reach the use, or none on some path)
// the PTX order is kept: ptxas orders the phi it makes there in a way
// not measured here.
func (c *fn) f64Commute(in *ptx.Instr, ia, ib int) (int, int) {
	ra, rb := c.f64OrderRank(in, in.Args[ia]), c.f64OrderRank(in, in.Args[ib])
	if ra == rankUnknown || rb == rankUnknown || ra <= rb {
		return ia, ib
	}
	return ib, ia
}

// f64OrderRank is the sort key of a source operand of in for f64Commute.
func (c *fn) f64OrderRank(in *ptx.Instr, a *ptx.Operand) int {
	switch a.Kind {
	case ptx.OpInt, ptx.OpFloat:
		return rankImm
	case ptx.OpName:
	default:
		return rankUnknown
	}
	defs, complete := c.reachingDefs(in, a.Name)
	if !complete || len(defs) != 1 || defs[0].Guard != nil {
		return rankUnknown
	}
	d := defs[0]
	at := c.flow().at[d]
	switch {
	case d.Op == "mov" && len(d.Args) == 2 && (d.Args[1].Kind == ptx.OpInt || d.Args[1].Kind == ptx.OpFloat):
		return rankConst + at
	case d.Op == "ld" && d.HasMod(".param") && c.pf.Entry:
		return rankConst + at
	}
	return at
}
