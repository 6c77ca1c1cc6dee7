package opt

// Constant folding and algebraic simplification: the folding sub-passes of
// the GeneralOptimize bundles (wiki "GeneralOptimize Bundles", constant
// folding 10645-10940 and algebraic simplification 10941-11099). ptxas
// splits this between flag marking in GeneralOptimize and the SASS-level
// peephole optimizer; orilab evaluates in place in the bundle.
//
// Folding. An integer ALU instruction whose sources are all known (an
// integer or f32-pattern immediate, RZ/URZ, or a constant predicate
// PT/!PT) is rewritten in place, keeping its ID and guard, into
// "MOV d = imm", computed bit-exactly as pipeline/sim executes it
// (pipeline/sim/exec_int.go: IADD3 with '-' and '!' sources and .X
// carry-ins, IMAD plain/.U32/.SHL/.HI, LOP3, SHF, LEA, SEL, IMNMX, IABS,
// POPC, FLO, BREV, BMSK, SGXT, PRMT). The helpers below replicate those
// semantics (this package may not import pipeline/sim). An ISETP with
// known operands (no .EX, constant combining predicate) becomes
// "PLOP3.LUT p, q = PT, PT, PT, lut, lut2" with lut 0xff (true) or 0x00
// (false), which writes constant predicates. An instruction is only folded
// when nothing but its main result is observable: extra carry or
// predicate results must be absent or PT. Floating-point instructions are
// not folded.
//
// Simplification (sources partly unknown):
//
//	IADD3 d = x, 0, RZ          -> MOV d = x     (constants are summed; zero terms dropped)
//	IADD3 d = x, 0x1, 0x2       -> IADD3 d = x, 0x3, RZ
//	IMAD  d = x, 0x1, c         -> IADD3 d = x, c, RZ
//	IMAD  d = x, 0x0, c         -> MOV d = c
//	LOP3  d = x, y, z, lut      -> MOV d = x or MOV d = imm when the table,
//	                               given the known inputs, is a copy of one
//	                               input or a constant (x|0, x&0xffffffff, x^0, x&0 ...)
//	SHF   d = lo, 0, hi         -> MOV d = lo (or hi with .HI)
//	SHF.L.U64.HI d = lo, 0x40, hi -> MOV d = 0 (every bit shifted out)
//	SEL   d = a, b, PT / !PT    -> MOV d = a / b; SEL d = a, a, p -> MOV d = a
//	IMAD.SHL d = x, 0x0, RZ     -> MOV d = x
//	IMAD.WIDE d.64 = a, b, c.64 -> IMAD d = a, b, c when no instruction
//	                               reads d's high word
//
// A simplification only produces "MOV d = x" when x has no '-', '|..|' or
// '!' modifier, so the copy can be propagated. Rewrites that cannot be
// expressed in place (e.g. an IADD3 whose carry-out is used) are skipped.
//
// Known limits: no floating-point folding, no IMAD.WIDE or .EX
// comparisons, no reassociation across instructions. TestFoldAgreesWithSimulator and
// TestSimplifyAgreesWithSimulator execute random folded instructions in
// the simulator against the originals.

import (
	"math/bits"
	"orilab/internal/keep"

	"orilab/pipeline/ori"
)

// constVal returns the 32-bit value an operand reads in a 32-bit value
// slot with integer semantics ('!' inverts, '-' negates), if known.
func constVal(o ori.Operand) (uint32, bool) {
	switch o.Kind {
	case ori.OpdImm:
		if o.FKind == ori.ImmF64 {
			return 0, false
		}
		return uint32(o.Imm), true
	case ori.OpdReg:
		if !o.Reg.IsZero() || o.Reg.Class.IsPred() || o.Reg.Words != 1 {
			return 0, false
		}
		v := uint32(0)
		if o.Not {
			v = ^v
		}
		if o.Neg {
			v = -v
		}
		return v, true
	}
	return 0, false
}

// rawVal is constVal without '!' and '-' (the IADD3 carry path applies
// them itself).
func rawVal(o ori.Operand) (uint32, bool) {
	c := o
	c.Neg, c.Not = false, false
	return constVal(c)
}

// constPred returns the value of a predicate operand, if constant.
func constPred(o ori.Operand) (bool, bool) {
	if o.Kind == ori.OpdImm {
		return o.Imm != 0, true
	}
	if o.Kind != ori.OpdReg || !o.Reg.Class.IsPred() || !o.Reg.IsZero() {
		return false, false
	}
	return !o.Not, true
}

// plainReg reports whether o is a register read without modifiers (a
// valid MOV source to propagate).
func plainReg(o ori.Operand) bool {
	return o.Kind == ori.OpdReg && !o.Neg && !o.Abs && !o.Not && !o.Reg.Class.IsPred()
}

// onlyMainResult reports whether every result after the first is absent
// or a discarded zero register, and the first is a register.
func onlyMainResult(in *ori.Inst) bool {
	if len(in.Dsts) == 0 || in.Dsts[0].Kind != ori.OpdReg {
		return false
	}
	for _, d := range in.Dsts[1:] {
		if d.Kind != ori.OpdReg || !d.Reg.IsZero() {
			return false
		}
	}
	return true
}

func immOperand(v uint32) ori.Operand { return ori.Imm(int64(int32(v))) }

// toMov rewrites in (in place, same ID and guard) into MOV/UMOV d = src.
func toMov(in *ori.Inst, src ori.Operand) {
	op := ori.OpMOV
	if in.Op.Has(ori.FUniform) {
		op = ori.OpUMOV
	}
	in.Op = op
	in.Mods = nil
	in.Dsts = in.Dsts[:1]
	src.Reuse = false
	in.Srcs = []ori.Operand{src}
}

func sameOperand(a, b ori.Operand) bool { return a == b }

// lop3 replicates the simulator's truth-table evaluation (bit index a<<2|b<<1|c).
func lop3(lut uint32, a, b, c uint32) uint32 {
	var r uint32
	for i := uint32(0); i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		x, y, z := ^a, ^b, ^c
		if i&4 != 0 {
			x = a
		}
		if i&2 != 0 {
			y = b
		}
		if i&1 != 0 {
			z = c
		}
		r |= x & y & z
	}
	return r
}

func icmp(k string, a, b uint32, unsigned bool) (bool, bool) {
	if !unsigned {
		x, y := int32(a), int32(b)
		switch k {
		case "LT":
			return x < y, true
		case "EQ":
			return x == y, true
		case "LE":
			return x <= y, true
		case "GT":
			return x > y, true
		case "NE":
			return x != y, true
		case "GE":
			return x >= y, true
		}
		return false, false
	}
	switch k {
	case "LT":
		return a < b, true
	case "EQ":
		return a == b, true
	case "LE":
		return a <= b, true
	case "GT":
		return a > b, true
	case "NE":
		return a != b, true
	case "GE":
		return a >= b, true
	}
	return false, false
}

// shfAmount returns the clamped/wrapped shift of SHF per SEMANTICS.md.
func shfAmount(in *ori.Inst, sh uint32) uint32 {
	wide := in.HasMod("U64") || in.HasMod("S64")
	switch {
	case in.HasMod("W") && wide:
		return sh & 63
	case in.HasMod("W"):
		return sh & 31
	case wide:
		return min(sh, 64)
	}
	return min(sh, 32)
}

func shf(in *ori.Inst, lo, sh, hi uint32) uint32 {
	n := shfAmount(in, sh)
	v := uint64(hi)<<32 | uint64(lo)
	var r uint64
	switch {
	case in.HasMod("L"):
		if n < 64 {
			r = v << n
		}
	case in.HasMod("S32") || in.HasMod("S64"):
		if n >= 64 {
			n = 63
		}
		r = uint64(int64(v) >> n)
	default:
		if n < 64 {
			r = v >> n
		}
	}
	if in.HasMod("HI") {
		return uint32(r >> 32)
	}
	return uint32(r)
}

func prmt(a, b, c uint32) uint32 {
	v := uint64(b)<<32 | uint64(a)
	var r uint32
	for i := uint32(0); i < 4; i++ {
		n := c >> (4 * i) & 0xf
		x := uint32(v>>(8*(n&7))) & 0xff
		if n&8 != 0 {
			if x&0x80 != 0 {
				x = 0xff
			} else {
				x = 0
			}
		}
		r |= x << (8 * i)
	}
	return r
}

// cmpMod returns the comparison modifier of a compare instruction.
func cmpMod(in *ori.Inst) string {
	for _, m := range in.Mods {
		switch m {
		case "LT", "EQ", "LE", "GT", "NE", "GE":
			return m
		}
	}
	return ""
}

func hasOnlyMods(in *ori.Inst, allowed ...string) bool {
	for _, m := range in.Mods {
		ok := false
		for _, a := range allowed {
			if m == a {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// foldInst folds or simplifies one instruction in place. It reports
// whether it changed the instruction.
func foldInst(f *ori.Func, in *ori.Inst) bool {
	if in.IsPhi() {
		return false
	}
	switch in.Op {
	case ori.OpIADD3, ori.OpUIADD3:
		return foldIADD3(in)
	case ori.OpIMAD, ori.OpUIMAD:
		return foldIMAD(in)
	case ori.OpLOP3, ori.OpULOP3:
		return foldLOP3(in)
	case ori.OpSHF, ori.OpUSHF:
		return foldSHF(in)
	case ori.OpSEL, ori.OpUSEL:
		return foldSEL(in)
	case ori.OpISETP:
		return foldISETP(in)
	case ori.OpLEA:
		if !hasOnlyMods(in) || !onlyMainResult(in) || len(in.Srcs) < 3 {
			return false
		}
		a, ok1 := constVal(in.Srcs[0])
		b, ok2 := constVal(in.Srcs[1])
		s, ok3 := rawVal(in.Srcs[2])
		if ok1 && ok2 && ok3 && in.Srcs[2].Kind == ori.OpdImm {
			toMov(in, immOperand(a<<(s&31)+b))
			return true
		}
		return false
	case ori.OpIMNMX:
		if !hasOnlyMods(in, "U32") || !onlyMainResult(in) {
			return false
		}
		a, ok1 := constVal(in.Srcs[0])
		b, ok2 := constVal(in.Srcs[1])
		p, ok3 := constPred(in.Srcs[2])
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		lt, _ := icmp("LT", a, b, in.HasMod("U32"))
		mn, mx := b, a
		if lt {
			mn, mx = a, b
		}
		if p {
			toMov(in, immOperand(mn))
		} else {
			toMov(in, immOperand(mx))
		}
		return true
	case ori.OpIABS, ori.OpPOPC, ori.OpBREV, ori.OpFLO:
		if !onlyMainResult(in) || len(in.Srcs) != 1 {
			return false
		}
		a, ok := constVal(in.Srcs[0])
		if !ok {
			return false
		}
		var r uint32
		switch in.Op {
		case ori.OpIABS:
			if !hasOnlyMods(in) {
				return false
			}
			x := int32(a)
			if x < 0 {
				x = -x
			}
			r = uint32(x)
		case ori.OpPOPC:
			if !hasOnlyMods(in) {
				return false
			}
			r = uint32(bits.OnesCount32(a))
		case ori.OpBREV:
			if !hasOnlyMods(in) {
				return false
			}
			r = bits.Reverse32(a)
		case ori.OpFLO:
			if !hasOnlyMods(in, "U32", "S32", "SH") {
				return false
			}
			if in.HasMod("S32") && int32(a) < 0 {
				a = ^a
			}
			if a == 0 {
				r = 0xffffffff
			} else {
				r = uint32(31 - bits.LeadingZeros32(a))
				if in.HasMod("SH") {
					r = 31 - r
				}
			}
		}
		toMov(in, immOperand(r))
		return true
	case ori.OpBMSK:
		if !hasOnlyMods(in, "W") || !onlyMainResult(in) {
			return false
		}
		pos, ok1 := constVal(in.Srcs[0])
		width, ok2 := constVal(in.Srcs[1])
		if !ok1 || !ok2 {
			return false
		}
		if in.HasMod("W") {
			pos &= 31
			width &= 31
		} else {
			pos = min(pos, 32)
			width = min(width, 32)
		}
		m := uint64(1)<<width - 1
		toMov(in, immOperand(uint32(m<<pos)))
		return true
	case ori.OpSGXT:
		if !hasOnlyMods(in, "U32") || !onlyMainResult(in) {
			return false
		}
		a, ok1 := constVal(in.Srcs[0])
		n, ok2 := constVal(in.Srcs[1])
		if !ok1 || !ok2 {
			return false
		}
		n = min(n, 32)
		var r uint32
		switch {
		case n == 0:
		case n == 32:
			r = a
		case in.HasMod("U32"):
			r = a & (1<<n - 1)
		default:
			r = uint32(int32(a<<(32-n)) >> (32 - n))
		}
		toMov(in, immOperand(r))
		return true
	case ori.OpPRMT:
		if !hasOnlyMods(in) || !onlyMainResult(in) {
			return false
		}
		a, ok1 := constVal(in.Srcs[0])
		c, ok2 := constVal(in.Srcs[1])
		b, ok3 := constVal(in.Srcs[2])
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		toMov(in, immOperand(prmt(a, b, c)))
		return true
	}
	return false
}

func foldIADD3(in *ori.Inst) bool {
	if len(in.Srcs) < 3 || !onlyMainResult(in) {
		return false
	}
	x := in.HasMod("X")
	if !hasOnlyMods(in, "X") {
		return false
	}
	// Carry-ins: with .X, each must be a known predicate.
	carry := uint32(0)
	if x {
		for _, o := range in.Srcs[3:] {
			p, ok := constPred(o)
			if !ok {
				return false
			}
			if p {
				carry++
			}
		}
	}
	var known uint32
	// Both operand lists start in arrays on the stack: this runs on every
	// IADD3 in every GeneralOptimize round, and nearly always leaves the
	// instruction as it is.
	var regBuf [3]ori.Operand
	regs := regBuf[:0]
	for _, o := range in.Srcs[:3] {
		if v, ok := constVal(o); ok {
			known += v
			continue
		}
		regs = append(regs, o)
	}
	known += carry
	zero := ori.R(zeroFor(in.Dsts[0].Reg.Class))
	switch len(regs) {
	case 0:
		toMov(in, immOperand(known))
		return true
	case 1:
		if known == 0 && plainReg(regs[0]) {
			toMov(in, regs[0])
			return true
		}
	}
	if x {
		// Canonicalizing .X forms is not worth the carry subtleties; the
		// 32-bit result is the same, but keep the instruction as it is
		// unless its carry-ins are known (then drop .X).
		if len(in.Srcs) == 3 {
			return false
		}
	}
	// Canonical form: unknown sources in order, then the known sum (if
	// non-zero), then RZ.
	var srcBuf [4]ori.Operand
	srcs := append(srcBuf[:0], regs...)
	if known != 0 {
		srcs = append(srcs, immOperand(known))
	}
	for len(srcs) < 3 {
		srcs = append(srcs, zero)
	}
	if len(srcs) > 3 {
		return false
	}
	same := !x && len(in.Srcs) == 3
	for i := 0; same && i < 3; i++ {
		if !sameOperand(in.Srcs[i], srcs[i]) {
			same = false
		}
	}
	if same {
		return false
	}
	// Only rewrite when it removes a term, merges constants or drops .X;
	// reordering alone is not a simplification.
	nconst := 0
	for _, o := range in.Srcs[:3] {
		if v, ok := constVal(o); ok && (v != 0 || o.Kind == ori.OpdImm) {
			nconst++
		}
	}
	if !x && nconst <= 1 && !(nconst == 1 && known == 0) {
		return false
	}
	in.Mods = nil
	in.Srcs = append([]ori.Operand(nil), srcs...)
	in.Dsts = in.Dsts[:1]
	return true
}

func foldIMAD(in *ori.Inst) bool {
	if len(in.Srcs) < 3 || !onlyMainResult(in) {
		return false
	}
	a, okA := constVal(in.Srcs[0])
	b, okB := constVal(in.Srcs[1])
	c, okC := constVal(in.Srcs[2])
	switch {
	case hasOnlyMods(in) || hasOnlyMods(in, "U32"):
		if len(in.Srcs) != 3 {
			return false
		}
		if okA && okB && okC {
			toMov(in, immOperand(a*b+c))
			return true
		}
		if okA && okB || okA && a == 0 || okB && b == 0 {
			// The product is known: IADD3 d = c, a*b, RZ (simplified further next round).
			op := ori.OpIADD3
			if in.Op == ori.OpUIMAD {
				op = ori.OpUIADD3
			}
			zero := ori.R(zeroFor(in.Dsts[0].Reg.Class))
			p := a * b
			if okA && a == 0 || okB && b == 0 {
				p = 0
			}
			in.Op, in.Mods = op, nil
			in.Dsts = in.Dsts[:1]
			in.Srcs = []ori.Operand{in.Srcs[2], immOperand(p), zero}
			if p == 0 {
				in.Srcs[1] = zero
			}
			return true
		}
		if okA && a == 1 || okB && b == 1 {
			other := in.Srcs[1]
			if !(okA && a == 1) {
				other = in.Srcs[0]
			}
			op := ori.OpIADD3
			if in.Op == ori.OpUIMAD {
				op = ori.OpUIADD3
			}
			in.Op, in.Mods = op, nil
			in.Dsts = in.Dsts[:1]
			in.Srcs = []ori.Operand{other, in.Srcs[2], ori.R(zeroFor(in.Dsts[0].Reg.Class))}
			return true
		}
	case hasOnlyMods(in, "SHL"):
		if len(in.Srcs) != 3 || !okB {
			return false
		}
		if okA && okC {
			toMov(in, immOperand(a<<(b&31)+c))
			return true
		}
		if b&31 == 0 && okC && c == 0 && plainReg(in.Srcs[0]) {
			toMov(in, in.Srcs[0])
			return true
		}
	case hasOnlyMods(in, "HI") || hasOnlyMods(in, "HI", "U32") || hasOnlyMods(in, "HI", "S32"):
		if len(in.Srcs) != 3 || !okA || !okB || !okC {
			return false
		}
		var hi uint32
		if in.HasMod("U32") {
			hi = uint32(uint64(a) * uint64(b) >> 32)
		} else {
			hi = uint32(uint64(int64(int32(a))*int64(int32(b))) >> 32)
		}
		toMov(in, immOperand(hi+c))
		return true
	}
	return false
}

func foldLOP3(in *ori.Inst) bool {
	if len(in.Srcs) < 4 || !onlyMainResult(in) || !hasOnlyMods(in, "LUT") {
		return false
	}
	if in.Srcs[3].Kind != ori.OpdImm {
		return false
	}
	lut := uint32(in.Srcs[3].Imm) & 0xff
	var vals [3]uint32
	var known [3]bool
	for i := 0; i < 3; i++ {
		vals[i], known[i] = constVal(in.Srcs[i])
	}
	// For every bit, the table restricted to the known inputs is a
	// function of the unknown ones. The result is a constant when every
	// restriction is constant, and a copy of input k when every
	// restriction is the projection onto k.
	isConst := true
	var cval uint32
	isCopy := [3]bool{!known[0], !known[1], !known[2]}
	// The restriction of a bit depends only on the known inputs' values
	// at that bit: at most eight patterns, each worked out once.
	type restriction struct {
		done, constant bool
		out0           uint32
		copyOf         [3]bool
	}
	var seen [8]restriction
	for bit := 0; bit < 32; bit++ {
		pat := 0
		for i := 0; i < 3; i++ {
			if known[i] {
				pat |= int(vals[i]>>bit&1) << i
			}
		}
		r := &seen[pat]
		if !r.done {
			var outs [8]uint32
			for v := 0; v < 8; v++ {
				var in3 [3]uint32
				for i := 0; i < 3; i++ {
					if known[i] {
						in3[i] = uint32(pat>>i) & 1
					} else {
						in3[i] = uint32(v>>(2-i)) & 1
					}
				}
				outs[v] = lop3(lut, in3[0], in3[1], in3[2]) & 1
			}
			r.done, r.constant, r.out0 = true, true, outs[0]
			for v := 1; v < 8; v++ {
				if outs[v] != outs[0] {
					r.constant = false
				}
			}
			for k := 0; k < 3; k++ {
				r.copyOf[k] = true
				for v := 0; v < 8; v++ {
					if outs[v] != uint32(v>>(2-k))&1 {
						r.copyOf[k] = false
						break
					}
				}
			}
		}
		if !r.constant {
			isConst = false
		}
		cval |= r.out0 << bit
		for k := 0; k < 3; k++ {
			isCopy[k] = isCopy[k] && r.copyOf[k]
		}
	}
	if isConst {
		toMov(in, immOperand(cval))
		return true
	}
	for k := 0; k < 3; k++ {
		if isCopy[k] && plainReg(in.Srcs[k]) {
			toMov(in, in.Srcs[k])
			return true
		}
	}
	return false
}

func foldSHF(in *ori.Inst) bool {
	if len(in.Srcs) != 3 || !onlyMainResult(in) {
		return false
	}
	if !hasOnlyMods(in, "L", "R", "W", "U32", "S32", "U64", "S64", "HI") {
		return false
	}
	lo, okL := constVal(in.Srcs[0])
	sh, okS := constVal(in.Srcs[1])
	hi, okH := constVal(in.Srcs[2])
	if !okS || !(in.HasMod("L") || in.HasMod("R")) {
		return false
	}
	if okL && okH {
		toMov(in, immOperand(shf(in, lo, sh, hi)))
		return true
	}
	if shfShiftsOut(in, shfAmount(in, sh)) {
		toMov(in, immOperand(0))
		return true
	}
	if shfAmount(in, sh) == 0 {
		src := in.Srcs[0]
		if in.HasMod("HI") {
			src = in.Srcs[2]
		}
		if plainReg(src) {
			toMov(in, src)
			return true
		}
		if v, ok := constVal(src); ok {
			toMov(in, immOperand(v))
			return true
		}
	}
	return false
}

// shfShiftsOut reports whether an unsigned SHF by n leaves only zeros in
// the word it returns, whatever the sources: a left shift by 64 or more
// (or by 32 or more, read in the low word), a logical right shift by 64
// or more (or 32 or more, read in the high word). shl.b64 by 65 of an
// unknown value lowers to SHF.L.U64.HI and SHF.L.U32 by 0x40, which
// ptxas stores as RZ.
func shfShiftsOut(in *ori.Inst, n uint32) bool {
	hi := in.HasMod("HI")
	switch {
	case in.HasMod("L"):
		return n >= 64 || !hi && n >= 32
	case in.HasMod("S32") || in.HasMod("S64"):
		return false
	}
	return n >= 64 || hi && n >= 32
}

func foldSEL(in *ori.Inst) bool {
	if len(in.Srcs) != 3 || !onlyMainResult(in) || len(in.Mods) != 0 {
		return false
	}
	pick := -1
	if p, ok := constPred(in.Srcs[2]); ok {
		pick = 1
		if p {
			pick = 0
		}
	} else if sameOperand(in.Srcs[0], in.Srcs[1]) {
		pick = 0
	}
	if pick < 0 {
		return false
	}
	src := in.Srcs[pick]
	if v, ok := constVal(src); ok {
		toMov(in, immOperand(v))
		return true
	}
	if plainReg(src) || src.Kind == ori.OpdImm || src.Kind == ori.OpdCBank && !src.HasBase {
		toMov(in, src)
		return true
	}
	return false
}

func foldISETP(in *ori.Inst) bool {
	if len(in.Srcs) != 3 || len(in.Dsts) != 2 || in.HasMod("EX") {
		return false
	}
	if !hasOnlyMods(in, "LT", "EQ", "LE", "GT", "NE", "GE", "AND", "OR", "XOR", "U32") {
		return false
	}
	for _, d := range in.Dsts {
		if d.Kind != ori.OpdReg || d.Reg.Class != ori.ClassP {
			return false
		}
	}
	a, ok1 := constVal(in.Srcs[0])
	b, ok2 := constVal(in.Srcs[1])
	c, ok3 := constPred(in.Srcs[2])
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	t, ok := icmp(cmpMod(in), a, b, in.HasMod("U32"))
	if !ok {
		return false
	}
	comb := func(x, y bool) bool {
		switch {
		case in.HasMod("OR"):
			return x || y
		case in.HasMod("XOR"):
			return x != y
		}
		return x && y
	}
	lut := func(v bool) ori.Operand {
		if v {
			return ori.Imm(0xff)
		}
		return ori.Imm(0)
	}
	p, q := lut(comb(t, c)), lut(comb(!t, c))
	in.Op = ori.OpPLOP3
	in.Mods = []string{"LUT"}
	in.Srcs = []ori.Operand{ori.R(ori.PT), ori.R(ori.PT), ori.R(ori.PT), p, q}
	return true
}

// readWords returns every virtual register word some instruction of f
// reads (sources, address bases, guards, MOV.PHI operands).
// The set is a dense word table from readWordsPool (a map filled with
// every read word of the function was most of narrowWide's time); the
// caller puts it back.
func readWords(f *ori.Func) *wordTable[struct{}] {
	read := readWordsPool.Get()
	read.reset()
	wide := 1
	note := func(r ori.Reg) {
		if !r.Virtual {
			return
		}
		// In an instruction with 64-bit operands, assume a narrower
		// register source may be read as wide as the widest operand.
		for i := 0; i < max(int(r.Words), wide); i++ {
			read.set(wordKey(r, i), struct{}{})
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			wide = 1
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg {
					wide = max(wide, int(o.Reg.Words))
				}
			}
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdReg {
					wide = max(wide, int(o.Reg.Words))
				}
			}
			if in.Guard.Virtual {
				read.set(wordKey(in.Guard, 0), struct{}{})
			}
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
					note(o.Reg)
				}
			}
			for _, o := range in.Dsts {
				if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
					note(o.Reg)
				}
			}
		}
	}
	return read
}

var readWordsPool keep.Pool[wordTable[struct{}]]

// narrowWide turns IMAD.WIDE[.U32] d.64 = a, b, c.64 whose high result
// word nobody reads into IMAD d = a, b, c[0]: the low word of the 64-bit
// product plus addend is the 32-bit a*b + c, signed or not.
func narrowWide(f *ori.Func, s *Sites) bool {
	var read *wordTable[struct{}]
	defer func() {
		if read != nil {
			readWordsPool.Put(read)
		}
	}()
	changed := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op != ori.OpIMAD && in.Op != ori.OpUIMAD || !in.HasMod("WIDE") {
				continue
			}
			if !(hasOnlyMods(in, "WIDE") || hasOnlyMods(in, "WIDE", "U32")) || len(in.Srcs) != 3 || !onlyMainResult(in) {
				continue
			}
			d := in.Dsts[0].Reg
			if !d.Virtual || d.Words != 2 {
				continue
			}
			c := in.Srcs[2]
			if c.Kind == ori.OpdReg && (c.Not || c.Abs) || c.Kind == ori.OpdImm && c.FKind == ori.ImmF64 {
				continue
			}
			if c.Kind == ori.OpdCBank && c.HasBase {
				continue
			}
			if read == nil {
				read = readWords(f)
			}
			if _, ok := read.get(wordKey(d, 1)); ok {
				continue
			}
			if c.Kind == ori.OpdReg {
				c.Reg = c.Reg.Word(0)
			}
			if c.Kind == ori.OpdImm {
				c = immOperand(uint32(c.Imm))
			}
			if !s.Allow(f, in.ID, "narrow IMAD.WIDE with a dead high word") {
				continue
			}
			in.Mods = nil
			in.Dsts = in.Dsts[:1]
			in.Dsts[0].Reg = d.Word(0)
			in.Srcs[2] = c
			changed = true
		}
	}
	return changed
}

// constFold folds and simplifies every instruction of f once.
func constFold(f *ori.Func, s *Sites) bool {
	changed := narrowWide(f, s)
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if s.Try(f, in, "fold or simplify", func() bool { return foldInst(f, in) }) {
				changed = true
			}
		}
	}
	return changed
}
