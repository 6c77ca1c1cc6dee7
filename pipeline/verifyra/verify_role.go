package verifyra

// Allocator-inserted instructions in the reaching-definitions verifier:
// spills, refills, copies and rematerializations (see verify.go for the
// rules). Each is checked for the form the post-RA conventions give it,
// then moves facts between locations; a malformed one is reported and
// treated as an unknown instruction.

import (
	"fmt"
	"strings"

	"orilab/pipeline/ori"
)

// role dispatches on the allocator role of in.
func (v *rdVerifier) role(s rdState, in *ori.Inst) {
	var ok bool
	switch in.Role {
	case ori.RoleSpill:
		ok = v.spill(s, in)
	case ori.RoleRefill:
		ok = v.refill(s, in)
	case ori.RoleCopy:
		ok = v.roleCopy(s, in)
	case ori.RoleRemat:
		ok = v.remat(s, in)
	default:
		v.failf(in, 6, "has unknown role %d", in.Role)
	}
	if !ok {
		v.unknown(s, in)
	}
}

// rdInstText is an instruction's text without its ID, control word, line
// and role: "ISETP.NE.AND P0, PT = R5, RZ, PT".
func rdInstText(in *ori.Inst) string {
	c := *in
	c.Ctrl.Set = false
	s := c.String()
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndex(s, " ;"); i >= 0 {
		s = s[:i]
	}
	return s
}

// frameSlot checks that o is [R1+off] with a word-aligned offset and
// returns the offset.
func (v *rdVerifier) frameSlot(in *ori.Inst, o ori.Operand, what string) (int64, bool) {
	if o.Kind != ori.OpdMem || !o.HasBase || o.Reg.Virtual || o.Reg.Class != ori.ClassR || o.Reg.N != 1 || o.Reg.Words != 1 {
		v.failf(in, 1, "%s address is %s, not a frame slot [R1+off]", what, o)
		return 0, false
	}
	if o.Imm%4 != 0 {
		v.failf(in, 1, "%s address %s is not word-aligned", what, o)
		return 0, false
	}
	return o.Imm, true
}

// rdModWords is the access width in words that a spill or refill's size
// modifier gives: none 1, .64 2, .128 4.
func rdModWords(in *ori.Inst) int {
	switch {
	case in.HasMod("128"):
		return 4
	case in.HasMod("64"):
		return 2
	}
	return 1
}

// spillReg checks the register a spill stores or a refill loads.
func (v *rdVerifier) spillReg(in *ori.Inst, o ori.Operand, what string) (ori.Reg, bool) {
	if o.Kind != ori.OpdReg || o.Reg.Virtual || o.Reg.IsZero() {
		v.failf(in, 1, "%s %s is not a physical register", what, o)
		return ori.Reg{}, false
	}
	r := o.Reg
	switch {
	case r.Class != ori.ClassR:
		v.failf(in, 1, "%s %s is not an R register", what, r)
		return r, false
	case int(r.Words) != rdModWords(in):
		v.failf(in, 1, "%s %s is %d words, but %s moves %d", what, r, r.Words, in.Name(), rdModWords(in))
		return r, false
	case int(r.N)%int(r.Words) != 0 || int(r.N)+int(r.Words) > r.Class.Limit():
		v.failf(in, 1, "%s %s is not an aligned register tuple", what, r)
		return r, false
	}
	return r, true
}

// move copies the cells of from into to, word by word; under a guard the
// destination keeps only what both hold.
func (v *rdVerifier) move(s rdState, in *ori.Inst, to, from []int) {
	cells := make([]rdCell, len(from))
	for w, i := range from {
		cells[w] = s[i]
	}
	cond, condOK := rdCond{}, false
	if in.Guarded() {
		cond, condOK = v.guardCond(s, in)
		condOK = condOK && cond.on
	}
	for w, i := range to {
		if in.Guarded() && condOK {
			s[i] = rdGuardedMove(s[i], cells[w], cond)
		} else if in.Guarded() {
			s[i] = s.meetCells(s[i], cells[w])
		} else {
			s[i] = cells[w]
		}
		if i == v.r1 {
			v.forgetSlots(s, rdCond{})
		}
	}
}

// rdGuardedMove is a location after a move under cond (the guard's
// pre-allocation predicate value): what it held survives under the
// opposite, and it holds the source's values under cond. A value held
// both ways holds always. (regalloc's callee-saved returns copy the
// return address under the RET's guard, regalloc/calleesave.go.)
func rdGuardedMove(old, src rdCell, cond rdCond) rdCell {
	out := rdGuardedClobber(old, cond)
	for _, f := range src.facts {
		c, ok := rdMeetCond(f.c, cond)
		if !ok {
			continue
		}
		merged := false
		for k := range out.facts {
			if out.facts[k].v == f.v {
				if out.facts[k].c == c.not() {
					out.facts[k].c = rdCond{}
				}
				merged = true
				break
			}
		}
		if !merged {
			out.facts = append(out.facts, rdFact{v: f.v, c: c})
		}
	}
	rdSortFacts(out.facts)
	return out
}

func (v *rdVerifier) regLocs(r ori.Reg) []int {
	out := make([]int, r.Words)
	for w := range out {
		out[w] = v.locIdx[rdRegLoc(r, w)]
	}
	return out
}

func (v *rdVerifier) slotLocs(off int64, words int) []int {
	out := make([]int, words)
	for w := range out {
		out[w] = v.locIdx[rdLoc{kind: rdSlotKind, n: int32(off) + int32(4*w)}]
	}
	return out
}

// rdPredHolder matches the predicate spill "SEL Rh = 0x1, RZ, Pp" (USEL
// for UP into UR) and the predicate refill "ISETP.NE.U32.AND Pp, PT = Rh,
// RZ, PT" (UISETP), returning the holder register and the predicate.
func rdPredHolder(in *ori.Inst) (holder, pred ori.Reg, ok bool) {
	phys := func(o ori.Operand, c ori.RegClass) bool {
		return o.Kind == ori.OpdReg && !o.Reg.Virtual && !o.Reg.IsZero() && o.Reg.Class == c && o.Reg.Words == 1 &&
			!o.Neg && !o.Abs && !o.Not && int(o.Reg.N) < c.Limit()
	}
	is := func(o ori.Operand, r ori.Reg) bool { return o.Kind == ori.OpdReg && o.Reg == r && !o.Not && !o.Neg }
	rc, pc, zero, truth := ori.ClassR, ori.ClassP, ori.RZ, ori.PT
	sel, setp := ori.OpSEL, ori.OpISETP
	if in.Op == ori.OpUSEL || in.Op == ori.OpUISETP {
		rc, pc, zero, truth = ori.ClassUR, ori.ClassUP, ori.URZ, ori.UPT
		sel, setp = ori.OpUSEL, ori.OpUISETP
	}
	switch {
	case in.Op == sel && len(in.Mods) == 0 && len(in.Dsts) == 1 && len(in.Srcs) == 3 &&
		phys(in.Dsts[0], rc) && in.Srcs[0].Kind == ori.OpdImm && in.Srcs[0].Imm == 1 && is(in.Srcs[1], zero) && phys(in.Srcs[2], pc):
		return in.Dsts[0].Reg, in.Srcs[2].Reg, true
	case in.Op == setp && in.Name() == setp.String()+".NE.U32.AND" && len(in.Dsts) == 2 && len(in.Srcs) == 3 &&
		phys(in.Dsts[0], pc) && is(in.Dsts[1], truth) && phys(in.Srcs[0], rc) && is(in.Srcs[1], zero) && is(in.Srcs[2], truth):
		return in.Srcs[0].Reg, in.Dsts[0].Reg, true
	}
	return ori.Reg{}, ori.Reg{}, false
}

// spill: STL [R1+off], Rx copies Rx into the slot words; the predicate
// form SEL Rh = 0x1, RZ, Pp copies Pp into the holder Rh.
func (v *rdVerifier) spill(s rdState, in *ori.Inst) bool {
	if in.Op == ori.OpSEL || in.Op == ori.OpUSEL {
		h, p, ok := rdPredHolder(in)
		if !ok || in.Op == ori.OpSEL && h.Class != ori.ClassR {
			v.failf(in, 3, "predicate spill is %s, not SEL Rh = 0x1, RZ, Pp", rdInstText(in))
			return false
		}
		v.move(s, in, v.regLocs(h), v.regLocs(p))
		return true
	}
	if in.Op != ori.OpSTL || len(in.Dsts) != 0 || len(in.Srcs) != 2 {
		v.failf(in, 1, "spill is %s, not STL [R1+off], Rx", rdShape(in))
		return false
	}
	off, ok := v.frameSlot(in, in.Srcs[0], "spill")
	if !ok {
		return false
	}
	r, ok := v.spillReg(in, in.Srcs[1], "spilled register")
	if !ok {
		return false
	}
	v.move(s, in, v.slotLocs(off, int(r.Words)), v.regLocs(r))
	return true
}

// refill: LDL Rx = [R1+off] copies the slot words into Rx; the
// predicate form ISETP.NE.U32.AND Pp, PT = Rh, RZ, PT copies the holder
// Rh into Pp.
func (v *rdVerifier) refill(s rdState, in *ori.Inst) bool {
	if in.Op == ori.OpISETP || in.Op == ori.OpUISETP {
		h, p, ok := rdPredHolder(in)
		if !ok {
			v.failf(in, 3, "predicate refill is %s, not ISETP.NE.U32.AND Pp, PT = Rh, RZ, PT", rdInstText(in))
			return false
		}
		v.move(s, in, v.regLocs(p), v.regLocs(h))
		return true
	}
	if in.Op != ori.OpLDL || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		v.failf(in, 1, "refill is %s, not LDL Rx = [R1+off]", rdShape(in))
		return false
	}
	off, ok := v.frameSlot(in, in.Srcs[0], "refill")
	if !ok {
		return false
	}
	r, ok := v.spillReg(in, in.Dsts[0], "refilled register")
	if !ok {
		return false
	}
	v.move(s, in, v.regLocs(r), v.slotLocs(off, int(r.Words)))
	return true
}

// roleCopy: MOV Rp = Rq copies registers.
func (v *rdVerifier) roleCopy(s rdState, in *ori.Inst) bool {
	if !rdIsRegCopy(in) || in.Dsts[0].Reg.Virtual || in.Srcs[0].Reg.Virtual {
		v.failf(in, 6, "allocator copy is %s, not MOV (UMOV) Rp = Rq between physical registers of one file", rdInstText(in))
		return false
	}
	d, q := in.Dsts[0].Reg, in.Srcs[0].Reg
	for _, r := range []ori.Reg{d, q} {
		if int(r.N)%int(r.Words) != 0 || int(r.N)+int(r.Words) > r.Class.Limit() {
			v.failf(in, 6, "allocator copy uses %s, which is not an aligned register tuple", r)
			return false
		}
	}
	v.move(s, in, v.regLocs(d), v.regLocs(q))
	return true
}

// rdRematOK reports whether an instruction may be recomputed anywhere: it
// reads no memory but constant banks, has no side effect, and reads no
// time-varying special register.
func rdRematOK(in *ori.Inst) string {
	const bad = ori.FPseudo | ori.FBranch | ori.FIndirect | ori.FExit | ori.FRet | ori.FCall |
		ori.FStore | ori.FAtomic | ori.FBarrier | ori.FWarp | ori.FSideEffect
	switch fl := in.Op.Flags(); {
	case fl&bad != 0:
		return fmt.Sprintf("%s cannot be recomputed (memory, control or side effect)", in.Op)
	case fl&ori.FLoad != 0 && in.Op != ori.OpLDC && in.Op != ori.OpULDC:
		return fmt.Sprintf("%s reads memory that may change", in.Op)
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdSR && (strings.HasPrefix(o.Name, "SR_CLOCK") || strings.HasPrefix(o.Name, "SR_GLOBALTIMER")) {
			return fmt.Sprintf("%s reads the time-varying %s", in.Op, o.Name)
		}
	}
	if in.Guarded() {
		return fmt.Sprintf("#%d is guarded, so its value depends on what its result held before", in.ID)
	}
	return ""
}

// rdSameNonReg compares what an operand says besides its registers.
func rdSameNonReg(a, b ori.Operand) bool {
	if a.Kind != b.Kind || a.HasBase != b.HasBase || a.Neg != b.Neg || a.Abs != b.Abs || a.Not != b.Not {
		return false
	}
	switch a.Kind {
	case ori.OpdReg:
		return a.Reg.IsZero() == b.Reg.IsZero() && (!a.Reg.IsZero() || a.Reg.Class == b.Reg.Class)
	case ori.OpdImm:
		return a.Imm == b.Imm && a.FKind == b.FKind
	case ori.OpdCBank:
		return a.Bank == b.Bank && a.Imm == b.Imm
	case ori.OpdMem:
		return a.Imm == b.Imm
	case ori.OpdSR, ori.OpdSym:
		return a.Name == b.Name
	case ori.OpdBlock:
		return a.Block == b.Block
	}
	return false
}

// remat checks a rematerialization against its origin and makes its
// destinations hold the origin's values, without killing other copies.
func (v *rdVerifier) remat(s rdState, in *ori.Inst) bool {
	bad := func(format string, args ...any) bool {
		v.fail(in, RAMismatch{Code: 7, Operand: OperandNone, Origin: in.Origin,
			Msg: fmt.Sprintf("rematerialization problem: old instruction [%d] new instruction [%d]: ", in.Origin, in.ID) + fmt.Sprintf(format, args...)})
		return false
	}
	o := v.pre.byID[in.Origin]
	if o == nil {
		return bad("#%d is not an instruction of %s before allocation", in.Origin, v.pre.f.Name)
	}
	if in.Name() != o.Name() || len(in.Dsts) != len(o.Dsts) || len(in.Srcs) != len(o.Srcs) {
		return bad("it is %s, but the old one is %s", rdShape(in), rdShape(o))
	}
	if why := rdRematOK(o); why != "" {
		return bad("%s", why)
	}
	for i := range o.Srcs {
		if !rdSameNonReg(o.Srcs[i], in.Srcs[i]) {
			return bad("operand %d is %s, but %s in the old one", OperandNumber(o, i), in.Srcs[i], o.Srcs[i])
		}
		r, ok := rdOpReg(o.Srcs[i])
		if !ok || r.IsZero() {
			continue
		}
		for w := 0; w < int(r.Words); w++ {
			x := rdValOf(r, w)
			// Decision: R1 counts as one value between the prologue and
			// the epilogue, where everything that is rematerialized
			// lives, although the kernel's first MOV and the frame
			// IADD3 both define it.
			if n := v.pre.defs[v.pre.canon(x)]; n != 1 && x != rdSP {
				return bad("it reads %s, which has %d definitions before allocation, so its value here may differ from its value at #%d", x, n, o.ID)
			}
		}
	}
	var dw []rdDstWord
	for i := range o.Dsts {
		po, qo := o.Dsts[i], in.Dsts[i]
		if po.Kind != ori.OpdReg || qo.Kind != ori.OpdReg {
			return bad("result %d is %s, but %s in the old one", i, qo, po)
		}
		if po.Reg.IsZero() {
			if !qo.Reg.IsZero() && v.checkPhys(in, "", qo.Reg) {
				for w := 0; w < int(qo.Reg.Words); w++ {
					dw = append(dw, rdDstWord{loc: v.locIdx[rdRegLoc(qo.Reg, w)]})
				}
			}
			continue
		}
		for w := 0; w < int(po.Reg.Words); w++ {
			x := rdValOf(po.Reg, w)
			if n := v.pre.defs[v.pre.canon(x)]; n != 1 {
				return bad("it defines %s, which has %d definitions before allocation", x, n)
			}
		}
		if !v.checkReg(in, OperandNone, fmt.Sprintf("result %d", i), po.Reg, qo.Reg) {
			return false
		}
		for w := 0; w < int(po.Reg.Words); w++ {
			dw = append(dw, rdDstWord{loc: v.locIdx[rdRegLoc(qo.Reg, w)], val: v.pre.canon(rdValOf(po.Reg, w)), ok: true})
		}
	}
	// The sources must hold what the origin read; a single definition
	// makes "what it read" the same number here.
	for i := range o.Srcs {
		v.readOperand(s, in, OperandNumber(o, i), o.Srcs[i], in.Srcs[i], rdCond{})
	}
	for _, d := range dw {
		switch {
		case in.Guarded() && d.ok:
			s[d.loc] = s.meetCells(s[d.loc], rdOnly(d.val))
		case d.ok:
			s[d.loc] = rdOnly(d.val)
		default:
			s[d.loc] = rdCell{}
		}
		if d.loc == v.r1 {
			v.forgetSlots(s, rdCond{})
		}
	}
	return true
}
