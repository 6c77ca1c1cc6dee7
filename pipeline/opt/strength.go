package opt

// OriStrengthReduce (ptxas phase 21): strength reduction, after the wiki's
// "Strength Reduction" page (001:13157-13426): induction-variable
// reduction over the use-def chains of loops (13182-13283), plus the
// multiply-by-constant rewrites the page's cost model discusses
// (13373-13388). The pass runs, in order:
//
//  1. Induction-variable multiplies. In a loop (innermost first) with a
//     basic induction variable i (a 32-bit virtual register word written
//     in the loop only by an unguarded "IADD3 i = i, s" with an immediate
//     step s), a multiply
//
//     IMAD[.U32] t = i, C, x    or    IMAD.SHL t = i, k, x (C = 1 << k)
//
//     whose C and x are loop invariant (immediates, constant-bank
//     operands, RZ, or registers the loop does not write) gets a new
//     register t' that tracks i*C + x: the preheader computes
//     "IMAD t' = i, C, x" from i's entry value, "IADD3 t' = t', s*C, RZ"
//     follows the increment of i, and the multiply becomes "MOV t = t'"
//     (copy propagation forwards t' to t's uses later). The relation
//     t' = i*C + x (mod 2^32) then holds at every point of the loop
//     because t' changes exactly where i does; no overflow argument is
//     needed in 32-bit modular arithmetic. When C is a register, s*C is
//     computed once in the preheader; when C is a constant-bank operand
//     and s is 1, the increment reads C from the bank, so no register
//     holds the step across the loop. Multiplies with the same (i, C, x)
//     share one t'.
//
//  2. Linear-function test replacement. When the loop's trip count is
//     known (the counted-loop analysis of unroll.go), i is read in the
//     loop only by its increment and the exit compare, i is dead after
//     the loop, and some t' has an immediate C, the exit compare
//     "ISETP.<cmp> p, q = i, B" becomes "ISETP.EQ|NE p, q = t', T" with
//     T the value t' has when the loop exits (an immediate, or computed in
//     the preheader when x is a register). The rewrite is checked
//     exhaustively: for every value i takes in the loop the new compare
//     must give the old result (so i*C must not repeat the exit value
//     earlier). Afterwards only i's increment reads i, and dead-code
//     elimination removes it: one instruction less per iteration.
//
//  3. Constant multiplies. "IMAD[.U32] d = a, 2^k, RZ" becomes
//     "SHF.L.U32 d = a, k, RZ", "IMAD d = a, 2^k, c" becomes
//     "IMAD.SHL d = a, k, c", and "IMAD d = a, -1, c" becomes
//     "IADD3 d = -a, c, RZ". (Multiplies by 0 and 1 are GeneralOptimize's.)
//
// Example (i counts 0..15 by 1, nothing else reads it):
//
//	BB0: MOV %r2 = 0x0                  BB0: MOV %r2 = 0x0
//	                                         IMAD %r9 = %r2, 0xc, %r0
//	BB1: IMAD %r3 = %r2, 0xc, %r0  ==>  BB1: MOV %r3 = %r9
//	     ...                                 ...
//	     IADD3 %r2 = %r2, 0x1, RZ            IADD3 %r2 = %r2, 0x1, RZ
//	                                         IADD3 %r9 = %r9, 0xc, RZ
//	     ISETP.LT.AND %p0, PT = %r2, 0x10    ISETP.EQ.AND %p0, PT = %r9, ...
//
// The cost model of the wiki explains the narrow scope: IMAD issues at the
// rate of IADD3 on sm_70 and later, so replacing a multiply by an add
// gains nothing by itself; the gain comes from retiring the original
// counter (step 2), and from the cheaper pipe for the constant forms.
//
// Decisions:
//   - Loops that OriLoopUnrolling (which runs next) will unroll, fully or
//     partially, are left alone: unrolling turns their counter into
//     constants, and a replaced exit test would hide the trip count from
//     it. The unroll knobs (LoopUnroll, LoopUnrollFactor, UnrollBudget,
//     UnrollFullInstLimit) are read to make the same decision. So the
//     reduction applies to loops with runtime bounds, outer loops, loops
//     whose bodies hold barriers or warp collectives (tiled loops), and
//     loops too large to unroll.
//   - 64-bit products (IMAD.WIDE) are not reduced: a 64-bit pointer
//     recurrence equals sext(i)*C only while i does not wrap, which needs
//     a range proof, and the 64-bit add it needs costs two instructions.
//   - The gate: the wiki's execute wrapper checks "function count > 1"
//     through sub_7DDB50 (13191), which the O-level page shows returns the
//     optimization level (40905-40929): the pass runs at -O2 and above.
//     LoopMakeSingleEntry (knob 487, the pass's gate knob per 13181)
//     switches it off, as does DisablePhases=OriStrengthReduce.

import (
	"math/bits"

	"orilab/pipeline/ori"
)

// StrengthReduce is strength reduction: induction-variable multiplies
// become additions (with test replacement), constant multiplies become
// shifts (phase OriStrengthReduce).
var StrengthReduce = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		if !c.Bool("LoopMakeSingleEntry") {
			return false, nil
		}
		n, err := srInductionVariables(f, c)
		if err != nil {
			return n > 0, err
		}
		m := srConstMultiplies(f, c.Sites)
		return n+m > 0, f.ComputeCFG()
	},
}

// srConstMultiplies rewrites multiplies by -1 and powers of two in place.
func srConstMultiplies(f *ori.Func, sites *Sites) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if sites.Try(f, in, "replace a multiply by a constant with a shift or an add", func() bool { return srConstMultiply(in) }) {
				n++
			}
		}
	}
	return n
}

// srConstMultiply rewrites one IMAD by a constant (see the file comment).
func srConstMultiply(in *ori.Inst) bool {
	if in.Op != ori.OpIMAD || !(len(in.Mods) == 0 || len(in.Mods) == 1 && in.Mods[0] == "U32") ||
		len(in.Dsts) != 1 || len(in.Srcs) != 3 {
		return false
	}
	a, c := in.Srcs[0], in.Srcs[1]
	if a.Kind == ori.OpdImm {
		a, c = c, a
	}
	if c.Kind != ori.OpdImm || c.FKind != ori.ImmInt || a.Kind != ori.OpdReg || a.Neg || a.Not || a.Abs {
		return false
	}
	v := uint32(c.Imm)
	add := in.Srcs[2]
	addZero := add.Kind == ori.OpdReg && add.Reg.IsZero() && !add.Not && !add.Neg ||
		add.Kind == ori.OpdImm && add.FKind == ori.ImmInt && add.Imm == 0
	zero := ori.R(zeroFor(in.Dsts[0].Reg.Class))
	switch {
	case v == 0xffffffff:
		na := a
		na.Neg = true
		in.Op, in.Mods = ori.OpIADD3, nil
		in.Srcs = []ori.Operand{na, add, zero}
	case v > 1 && v&(v-1) == 0:
		k := int64(bits.TrailingZeros32(v))
		if addZero {
			in.Op, in.Mods = ori.OpSHF, []string{"L", "U32"}
			in.Srcs = []ori.Operand{a, ori.Imm(k), zero}
		} else {
			in.Mods = []string{"SHL"}
			in.Srcs = []ori.Operand{a, ori.Imm(k), add}
		}
	default:
		return false
	}
	return true
}

// srMul is a recognized induction-variable multiply t = i*C + x.
type srMul struct {
	in   *ori.Inst
	iv   ori.Reg
	c, x ori.Operand // the multiplier (as an IMAD operand) and the addend
	key  string
}

// srInductionVariables runs steps 1 and 2 over every loop and returns
// how many rewrites it made.
func srInductionVariables(f *ori.Func, c *Context) (int, error) {
	total := 0
	done := map[int32]bool{}
	var kept keptForest
	for {
		if err := f.ComputeCFG(); err != nil {
			return total, err
		}
		lf := kept.find(f)
		var l *Loop
		for _, x := range lf.InnerFirst() {
			if !done[x.Header.ID] {
				l = x
				break
			}
		}
		if l == nil {
			return total, nil
		}
		done[l.Header.ID] = true
		if !loopCanHavePreheader(f, l) {
			continue
		}
		total += srLoop(f, c, &kept, lf, l)
	}
}

// srInvariant reports whether operand o reads the same value everywhere
// in the loop.
func srInvariant(o ori.Operand, defs *loopDefs) bool {
	switch o.Kind {
	case ori.OpdImm:
		return true
	case ori.OpdCBank:
		return !o.HasBase || srRegInvariant(o.Reg, defs)
	case ori.OpdReg:
		return !o.Not && srRegInvariant(o.Reg, defs)
	}
	return false
}

func srRegInvariant(r ori.Reg, defs *loopDefs) bool {
	if r.IsZero() {
		return true
	}
	if !r.Virtual {
		return defs.physInvariant(r)
	}
	for w := range loopWordSeq(r) {
		if defs.count(w) != 0 {
			return false
		}
	}
	return true
}

// srFindMul recognizes an induction-variable multiply in the loop.
func srFindMul(in *ori.Inst, defs *loopDefs, basic func(ori.Reg) bool) (srMul, bool) {
	if in.Op != ori.OpIMAD || len(in.Dsts) != 1 || len(in.Srcs) != 3 || in.Dsts[0].Kind != ori.OpdReg {
		return srMul{}, false
	}
	shl := false
	switch {
	case len(in.Mods) == 0, len(in.Mods) == 1 && in.Mods[0] == "U32":
	case len(in.Mods) == 1 && in.Mods[0] == "SHL":
		shl = true
	default:
		return srMul{}, false
	}
	for side := 0; side < 2; side++ {
		i, cc := in.Srcs[side], in.Srcs[1-side]
		if shl && side == 1 {
			break // IMAD.SHL: the shift count is the second source
		}
		if i.Kind != ori.OpdReg || i.Neg || i.Not || i.Abs || !basic(i.Reg) {
			continue
		}
		if in.Dsts[0].Reg.Overlaps(i.Reg) || !srInvariant(cc, defs) || !srInvariant(in.Srcs[2], defs) {
			continue
		}
		if shl {
			if cc.Kind != ori.OpdImm || cc.FKind != ori.ImmInt {
				continue
			}
			cc = ori.Imm(int64(int32(uint32(1) << (uint32(cc.Imm) & 31))))
		}
		if cc.Kind == ori.OpdImm && cc.FKind != ori.ImmInt {
			continue
		}
		m := srMul{in: in, iv: i.Reg, c: cc, x: in.Srcs[2]}
		m.key = i.Reg.String() + "*" + cc.String() + "+" + in.Srcs[2].String()
		return m, true
	}
	return srMul{}, false
}

// srLoop reduces the induction-variable multiplies of l, then tries test
// replacement, and returns the number of rewrites.
func srLoop(f *ori.Func, c *Context, kept *keptForest, lf *LoopForest, l *Loop) int {
	// Loops the unroller will unroll are left to it: their counter turns
	// into constants there, and a replaced exit test would hide the trip
	// count from it.
	if c.OptLevel >= 2 && c.Bool("LoopUnroll") {
		if u, d := unrollAnalyze(f, lf, l); d.Code == 0 {
			if d = unrollChoose(c, u, d); d.Code == 0 {
				return 0
			}
		}
	}
	defs := newLoopDefs(l)
	incs := map[ori.Reg]*ori.Inst{} // basic IV -> its increment
	steps := map[ori.Reg]uint32{}
	basic := func(r ori.Reg) bool {
		if !r.Virtual || r.Class != ori.ClassR || r.Words != 1 {
			return false
		}
		if _, ok := incs[r]; ok {
			return true
		}
		w := loopWords(r)[0]
		if defs.count(w) != 1 {
			return false
		}
		inc := defs.def(w)
		s, ok := unrollStep(inc, r)
		if !ok {
			return false
		}
		incs[r], steps[r] = inc, s
		return true
	}
	var muls []srMul
	for _, b := range l.Blocks {
		for _, in := range b.Insts {
			if m, ok := srFindMul(in, defs, basic); ok {
				muls = append(muls, m)
			}
		}
	}
	if len(muls) == 0 {
		return 0
	}
	var pre *ori.Block
	preheader := func() *ori.Block {
		if pre == nil {
			if pre = l.Preheader(); pre == nil {
				pre = loopInsertPreheader(f, l, nil)
			}
		}
		return pre
	}
	n := 0
	reduced := map[string]ori.Reg{} // key -> t'
	var mulOf []srMul               // the multiply that created each t', in order
	for _, m := range muls {
		if !c.Sites.Allow(f, m.in.ID, "replace an induction-variable multiply by an addition") {
			continue
		}
		tp, ok := reduced[m.key]
		if !ok {
			p := preheader()
			if p == nil {
				return n
			}
			tp = f.NewVReg(ori.ClassR, 1)
			reduced[m.key] = tp
			mulOf = append(mulOf, m)
			initIn := m.in.Clone()
			initIn.ID = f.NewID()
			initIn.Guard, initIn.GuardNot = ori.PT, false
			initIn.Dsts = []ori.Operand{ori.R(tp)}
			loopAppend(p, initIn)
			// The step of t': s*C, an immediate or a preheader product.
			inc := incs[m.iv]
			var stepOpd ori.Operand
			switch {
			case m.c.Kind == ori.OpdImm:
				stepOpd = ori.Imm(int64(int32(steps[m.iv] * uint32(m.c.Imm))))
			case m.c.Kind == ori.OpdCBank && steps[m.iv] == 1:
				// s*C is C itself: the increment reads the constant
				// bank, as IADD3 may, and no register holds the step
				// across the loop (rodinia dilate_kernel kept two).
				stepOpd = m.c
			default:
				sc := f.NewVReg(ori.ClassR, 1)
				mul := ori.NewInst(ori.OpIMAD)
				mul.ID, mul.Line = f.NewID(), m.in.Line
				mul.Dsts = []ori.Operand{ori.R(sc)}
				mul.Srcs = []ori.Operand{m.c, ori.Imm(int64(int32(steps[m.iv]))), ori.R(ori.RZ)}
				loopAppend(p, mul)
				stepOpd = ori.R(sc)
			}
			add := ori.NewInst(ori.OpIADD3)
			add.ID, add.Line = f.NewID(), inc.Line
			add.Dsts = []ori.Operand{ori.R(tp)}
			add.Srcs = []ori.Operand{ori.R(tp), stepOpd, ori.R(ori.RZ)}
			srInsertAfter(l, inc, add)
		}
		m.in.Op, m.in.Mods = ori.OpMOV, nil
		m.in.Srcs = []ori.Operand{ori.R(tp)}
		n++
	}
	if n > 0 {
		n += srTestReplace(f, c, kept, l, mulOf, reduced, preheader)
	}
	return n
}

// srInsertAfter inserts add right after inc in its block of l.
func srInsertAfter(l *Loop, inc, add *ori.Inst) {
	for _, b := range l.Blocks {
		for i, x := range b.Insts {
			if x == inc {
				b.Insts = append(b.Insts[:i+1], append([]*ori.Inst{add}, b.Insts[i+1:]...)...)
				return
			}
		}
	}
}

// srTestReplace is step 2: it rewrites the exit compare of l to test a
// reduced induction variable when that retires the original counter.
func srTestReplace(f *ori.Func, c *Context, kept *keptForest, l *Loop, muls []srMul, reduced map[string]ori.Reg, preheader func() *ori.Block) int {
	if err := f.ComputeCFG(); err != nil {
		return 0
	}
	lf := kept.find(f)
	var cur *Loop
	for _, x := range lf.Loops {
		if x.Header == l.Header {
			cur = x
		}
	}
	if cur == nil {
		return 0
	}
	t, _, _ := loopTripCount(f, lf, cur)
	if t == nil {
		return 0
	}
	// The counter must be read in the loop only by its increment and
	// the compare, and be dead after the loop.
	readers := 0
	for _, b := range cur.Blocks {
		for _, in := range b.Insts {
			reads := false
			loopSrcRegs(in, func(r ori.Reg) {
				if r.Overlaps(t.IV) {
					reads = true
				}
			})
			if reads {
				if in != t.Inc && in != t.Cmp {
					return 0
				}
				readers++
			}
		}
	}
	live := ori.Liveness(f)
	for _, e := range cur.Exits {
		if live.LiveIn(e, t.IV) {
			return 0
		}
	}
	var m *srMul
	for i := range muls {
		if muls[i].iv == t.IV && muls[i].c.Kind == ori.OpdImm {
			m = &muls[i]
			break
		}
	}
	if m == nil {
		return 0
	}
	cv := uint32(m.c.Imm)
	// The exit value: the counter's value at the compare of the last run.
	last := t.Values[t.Trip-1]
	if t.Post {
		last = t.Values[t.Trip]
	}
	eq := t.Test(last)
	for _, v := range t.Values {
		if (v*cv == last*cv) != (t.Test(v) == eq) {
			return 0
		}
	}
	if !c.Sites.Allow(f, t.Cmp.ID, "compare the reduced induction variable instead (linear-function test replacement)") {
		return 0
	}
	var bound ori.Operand
	if m.x.Kind == ori.OpdImm && m.x.FKind == ori.ImmInt || m.x.Kind == ori.OpdReg && m.x.Reg.IsZero() {
		xv := uint32(0)
		if m.x.Kind == ori.OpdImm {
			xv = uint32(m.x.Imm)
		}
		bound = ori.Imm(int64(int32(last*cv + xv)))
	} else {
		p := preheader()
		if p == nil {
			return 0
		}
		tb := f.NewVReg(ori.ClassR, 1)
		mul := ori.NewInst(ori.OpIMAD)
		mul.ID, mul.Line = f.NewID(), t.Cmp.Line
		mul.Dsts = []ori.Operand{ori.R(tb)}
		mul.Srcs = []ori.Operand{ori.Imm(int64(int32(last))), m.c, m.x}
		loopAppend(p, mul)
		bound = ori.R(tb)
	}
	kind := "NE"
	if eq {
		kind = "EQ"
	}
	t.Cmp.Mods = []string{kind, "AND"}
	t.Cmp.Srcs = []ori.Operand{ori.R(reduced[m.key]), bound, ori.R(ori.PT)}
	return 1
}
