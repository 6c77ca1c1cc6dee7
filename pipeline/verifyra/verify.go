package verifyra

// The post-allocation reaching-definitions verifier: ptxas's "memcheck"
// (wiki, Fat-Point Allocation Algorithm, "Post-Allocation Verification").
//
// What it proves. Given the function right before allocation (virtual
// registers) and the same function after allocation and possibly later
// post-RA phases (physical registers, spill code), every register read of
// the allocated code reads a location that holds the value the same read
// saw before allocation. Instructions correspond by ID: an instruction
// that keeps its ID does what it did before, so its results now live in
// its destination registers and each source word must be a location that
// holds the original source's value.
//
// The abstract state. A location is one word: a register of R, UR, P or
// UP, or a spill-slot word [R1+off]. Values are words of virtual
// registers, plus the physical registers that pre-allocation code already
// names (R1, the ABI registers around CALL, .func entry and RET), each
// named by itself. The state maps each location to the values it is
// known to hold (verify_state.go). It is a forward dataflow over the
// allocated CFG with intersection at merges, iterated to a fixed point
// from the entry, where every register holds its own name and no slot
// holds anything; a final pass then checks every read.
//
// Transfer, per instruction of the allocated code:
//
//   - same ID as an instruction before allocation: the guard and the
//     sources are checked, then each result value v is redefined: v
//     leaves every location (copies elsewhere are stale now), facts
//     conditioned on v are dropped, and the destination holds v. A MOV
//     between registers is a copy: wherever the source value is held, the
//     destination value is held too.
//   - RoleSpill "STL [R1+off], Rx" copies what Rx holds into the slot
//     words, RoleRefill "LDL Rx = [R1+off]" the reverse, RoleCopy
//     "MOV Rp = Rq" copies registers; none of them defines a value. A
//     predicate spills into an R (UR) holder register as RoleSpill
//     "SEL Rh = 0x1, RZ, Pp" (USEL) and comes back as RoleRefill
//     "ISETP.NE.U32.AND Pp, PT = Rh, RZ, PT" (UISETP): copies too.
//   - RoleRemat with Origin o recomputes o's value: it must have o's
//     opcode, modifiers and non-register operands, o must be unguarded and
//     rematerializable (no memory but constant banks, no side effects, no
//     clock), each value it reads and defines must have exactly one
//     definition before allocation (so "holds %x" means the same number at
//     o and here), and its destination then holds o's value without
//     killing other copies of it.
//   - an instruction with a new ID and no role is unknown: its
//     destinations hold nothing afterwards. The exception is an inserted
//     prologue or epilogue "IADD3 R1 = R1, imm, RZ": R1 still names the
//     frame base the original code meant (checkFrame checks that the
//     entry allocates exactly LocalBytes, that each RET of a .func is
//     preceded by the matching release, and that spill slots lie in the
//     frame above the original .local variables).
//   - CALL: after checking its implicit reads (the ABI argument registers
//     written before it in its block, and R1), every register location
//     but R1 and the callee-saved R16-R31 holds only its own name (the
//     callee may have left results there) and every physical value is
//     redefined; a CALL to a whole-seen callee does that only to the
//     registers the callee changes (verify_calls.go). Spill slots survive:
//     the callee's frame lies below the caller's R1, which the callee
//     restores. RET reads the result registers and R1.
//   - a write to R1 moves the frame: every slot word is forgotten.
//   - a store through [R1+off] overwrites the slot words it covers.
//     Decision: stores through any other address are assumed to stay in
//     the local variables they address (the PTX program's accesses are in
//     bounds), so they cannot hit a spill slot, which lies above the
//     variables.
//
// A worked example, with R5 and the slot [R1+0x8]:
//
//	before                        after                            state afterwards
//	#4 IADD3 %r7 = %r2, 0x1, RZ   #4 IADD3 R5 = R4, 0x1, RZ        R5 {%r7}
//	                              #31 STL [R1+0x8], R5 ; spill     [R1+0x8] {%r7}
//	#9 IADD3 %r9 = %r2, 0x2, RZ   #9 IADD3 R5 = R4, 0x2, RZ        R5 {%r9}
//	                              #32 LDL R6 = [R1+0x8] ; refill   R6 {%r7}
//	#12 FADD %r3 = %r7, %r9       #12 FADD R4 = R6, R5             R6 holds %r7, R5 holds %r9: accepted
//
// Had #12 read R5 for its operand 0, the verifier would report
// "verify-ra k BB0 #12: operand 0 reads R5, which holds %r9 (not %r7,
// the value it read before allocation); rerun with -knob
// DUMPIR=AllocateRegisters to see the allocation".
//
// Guarded definitions. "@%p0 MOV %a = ..." leaves %a unchanged when %p0
// is false, so the rule must not pretend the destination holds %a
// unconditionally, nor drop a live %a that the guard preserves. Facts
// carry a condition: "always" or "while pre-allocation predicate value p
// is true (false)". After a definition of v under g, the destination
// holds v always if it held v before (always or under !g: the two
// complementary moves of an if-conversion together define v), else only
// under g; everything else it held, and v anywhere else, survives only
// under !g. A read by an instruction guarded by g accepts a fact under
// g. Redefining p drops the facts conditioned on it. Conditions are
// single literals; anything more complex is dropped, which is sound.
// Edges carry conditions too: the fall-through of "@%p0 RET" (or EXIT) is
// taken only while %p0 is false and the target of "@%p0 BRA" only while
// it is true, so along such an edge facts under the known value hold
// always and facts under its opposite are dropped (edgeState). A guarded
// write of R1 (the epilogue before "@P0 RET") keeps the spill slots'
// facts under the opposite of its guard instead of forgetting them.
//
// Undefined values. A read may see a value that no definition reaches on
// some path: "@%p0 div.s32 %r6, ..." and then an unguarded store of %r6
// (testdata/lower/int_div.ptx), or a value whose only definition an
// optimizer deleted. Before allocation such a read sees an unspecified
// value on that path, so after allocation any contents will do there.
// Decision: the verifier accepts that, as ptxas's memcheck does (its
// category 5 is an uninitialized value the allocation introduces, not
// one the program already reads); an earlier version demanded the value
// on every path and rejected the project's own lower tests at every -O
// level. The state has a pseudo-location "undefined" holding, at the
// entry, the virtual values live there (read on some path before any
// definition, or past only a guarded one); every location counts as
// holding them. It is updated like a location (a definition removes the
// value, a guarded one leaves it under the guard's negation, a copy of an
// undefined value is undefined), and at a join a location that holds a
// value on one side holds it on the join when the value is undefined on
// the other (the join is a lattice meet on what the states mean; see "The
// lattice of the fixed point" in verify_state.go). The rule never excuses a read that a definition made well
// defined: an instruction whose allocated form is reported as changed
// still removes its results from "undefined".
//
// Coalescing. A register-to-register MOV between virtual registers that
// is gone after allocation was coalesced: its destination and source
// become one value (union-find), since the allocation put them in the
// same place. Soundness limit: the union hides a later redefinition of
// one member while another is still live, which would overwrite the
// shared register. The verifier closes that hole with pre-allocation
// liveness: the copies of a class in which a member is defined while
// another is live (other than by a copy inside the class) are not merged
// but act as copies at their place, like the ABI moves below, so the
// forward walk sees the redefinition. An allocator may legitimately do
// that: coalesce a copy whose source is spilled right after it, so that
// only a dead temporary shares the destination's register (fuzz finding
// regalloc-bar-red-merge, which an earlier version reported as a merge of
// interfering values). A removed guarded copy "@%p MOV a = b" acts only
// under %p. Removed MOVs between a virtual and a
// physical register (an ABI move whose value the allocator placed in the
// ABI register directly) are not merged, since a CALL redefines the
// physical register but not the virtual one: they keep their meaning as
// copies, applied right before the first surviving instruction after
// them in their original block (Decision: as late as possible, so that
// the refill or remat the allocator inserted to put the value in the ABI
// register acts first; a post-RA scheduler that moved a read of the
// moved value above that point would cause a false alarm). Any other
// removed instruction whose result is still read is reported.
//
// Callee-saved registers. A CALL leaves R16-R31 as they were (the ABI of
// regalloc/calleesave.go), so the callee must give them back: a .func
// that writes one saves it to its frame after the prologue ("STL
// [R1+off], R16") and reloads it before each RET. At a .func's entry
// every callee-saved register Rn also holds the pseudo value "the
// caller's Rn", which no instruction defines; the saves and restores
// (new instructions without a role) are copies between the register and
// its slot word, like a spill and a refill, so the pseudo value follows
// them, through copies and across inner CALLs. At every RET
// (checkCalleeSaved) each callee-saved register must hold the caller's
// value again, under the RET's guard, and the pair RET jumps through
// must hold the caller's R20:R21 (Func.RetAddr's pair), the return
// address. Without this check a save of the wrong register was
// accepted, and the caller's R16 came back clobbered. checkCalleeSaves
// (verify_calleesave.go) checks the same protocol structurally (where
// the saves and restores are, which slot each uses) and names the
// misplaced instruction; this check follows the values, so it also
// rejects, for example, a save placed after a write of its register
// (TestVerifyCalleeSaved), and it checks the return address.
//
// Other limits: instructions in blocks unreachable from the entry are not
// checked; register numbers, not contents, are compared for RZ/PT; the
// implicit arguments of a CALL are the physical registers written in its
// block before it, which is how the lowering passes them.
//
// Reports. A failure is a *ReachingDefsError listing every mismatch; its
// message names the function, block, instruction ID, operand, location,
// and the value expected versus held, and suggests DUMPIR. Report
// renders ptxas's multi-line memcheck format, with the reaching producers
// before and after allocation (verify_report.go).

import (
	"fmt"
	"sort"

	"orilab/pipeline/ori"
)

// OperandNumber is the number messages and RAMismatch.Operand give
// source i of in: operands are counted as the Ori text writes them,
// destinations first, from 0, so in "IMAD R8 = R13, c[0x0][0x0], R12" R12
// is operand 3.
//
// Decision: this is the fault injector's numbering (faultinject's "in
// operand N", which must count destinations to name a faulty result), so
// that an injection report and the verifier's finding name the same
// operand; ptxas's memcheck counts sources only ("src opr #"), but a
// second convention in one report misleads more than it helps.
func OperandNumber(in *ori.Inst, i int) int { return len(in.Dsts) + i }

// Operand numbers of RAMismatch that are not an operand of the text.
const (
	OperandGuard    = -1 // the guard predicate
	OperandImplicit = -2 // an implicit read: CALL arguments, RET results, R1
	OperandNone     = -3 // not a read: a changed instruction, an interference
)

// RAMismatch is one unexplained difference between the allocated code and
// the code before allocation.
type RAMismatch struct {
	Block int32 // block of the allocated function (of the original one when the mismatch is found there)
	Inst  int32 // instruction ID
	// Code is the ptxas memcheck category (1-10): 1 spill-refill mismatch,
	// 2 refill of uninitialized memory, 3 predicate spill pattern, 5
	// uninitialized value introduced, 6 extra defs introduced, 7
	// rematerialization mismatch, 10 definitions disappeared; 0 for
	// orilab's own frame checks, which ptxas has no category for.
	Code int
	// Operand is the operand number (see OperandNumber: destinations
	// first, from 0, the numbering the fault injector's "in operand N"
	// uses), or OperandGuard, OperandImplicit, OperandNone.
	Operand int
	Loc     string // location read: "R5", "[R1+0x8]"; "" when not a read
	Want    string // value the read saw before allocation
	Holds   string // what the location holds instead
	Origin  int32  // RoleRemat: the instruction it recomputes
	Msg     string // the sentence after "verify-ra FUNC BBn #ID: "
	// Before and After are the definitions reaching the read before and
	// after allocation (filled for reads only).
	Before, After []Producer

	read       *rdRead                  // the value and location of a read mismatch
	expanded   map[int32]bool           // After, followed through spill/refill/copy chains
	expandedBy map[int32]map[int32]bool // the same, per producer in After
}

// Producer is a definition reaching a read.
type Producer struct {
	Inst int32  // instruction ID; 0 for the function entry
	Dst  int    // result operand index (0 for a spill's slot, -1 for a CALL's clobber)
	Role string // the role of an allocator-inserted instruction, "" if none
}

// ReachingDefsError reports that an allocation does not preserve the
// values read. It lists every mismatch in layout order.
type ReachingDefsError struct {
	Func       string
	Mismatches []RAMismatch
}

// DumpHint is the suggestion every failure ends with.
const DumpHint = "rerun with -knob DUMPIR=AllocateRegisters to see the allocation"

func (e *ReachingDefsError) Error() string {
	if len(e.Mismatches) == 0 {
		return fmt.Sprintf("verify-ra %s: no mismatches", e.Func)
	}
	m := e.Mismatches[0]
	s := fmt.Sprintf("verify-ra %s BB%d #%d: %s", e.Func, m.Block, m.Inst, m.Msg)
	if n := len(e.Mismatches) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more)", n)
	}
	return s + "; " + DumpHint
}

// VerifyReachingDefs proves that after, the allocated form of before,
// reads every value where before read it. Both CFGs (Preds/Succs) must be
// current. It returns nil, a *ReachingDefsError, or an error when before
// is not a function the allocator accepts (MOV.PHI left in it).
func VerifyReachingDefs(before, after *ori.Func) error {
	return verifyReachingDefs(before, after, nil)
}

// verifyReachingDefs is VerifyReachingDefs with the clobber sets of the
// whole-seen callees (VerifyReachingDefsCalls; nil: every call under the
// ABI).
func verifyReachingDefs(before, after *ori.Func, callees map[string]ori.RegSet) error {
	if before == nil || after == nil {
		return fmt.Errorf("verify-ra: VerifyReachingDefs needs both functions (before=%v, after=%v)", before != nil, after != nil)
	}
	if before.Name != after.Name {
		return fmt.Errorf("verify-ra: comparing function %s with function %s", before.Name, after.Name)
	}
	pre, err := rdNewPre(before, after)
	if err != nil {
		return err
	}
	v := rdNewVerifier(pre, after)
	v.callees = callees
	if !v.run() {
		return fmt.Errorf("verify-ra %s: the reaching-definitions dataflow did not reach a fixed point after %d sweeps over %d blocks (an orilab bug in the verifier, not in the allocation)", after.Name, rdMaxSweeps(after), len(after.Blocks))
	}
	mism := append(append([]RAMismatch(nil), v.mism...), pre.errs...)
	if len(mism) == 0 {
		return nil
	}
	// Layout order of the allocated function; mismatches found in the
	// original function sort by where their instruction was.
	order := map[int32]int{}
	for _, b := range before.Blocks {
		for _, in := range b.Insts {
			order[in.ID] = len(order)
		}
	}
	pos := map[int32]int{}
	n := 0
	for _, b := range after.Blocks {
		for _, in := range b.Insts {
			if o, ok := order[in.ID]; ok {
				// Surviving instructions keep their original rank so
				// removed ones sort between them.
				n = o
			}
			pos[in.ID] = n
		}
	}
	rank := func(m RAMismatch) int {
		if p, ok := pos[m.Inst]; ok {
			return p
		}
		return order[m.Inst]
	}
	sort.SliceStable(mism, func(i, j int) bool { return rank(mism[i]) < rank(mism[j]) })
	v.producers(mism)
	return &ReachingDefsError{Func: after.Name, Mismatches: mism}
}

// rdVerifier walks the allocated function.
type rdVerifier struct {
	pre    *rdPre
	f      *ori.Func
	locs   []rdLoc
	locIdx map[rdLoc]int
	regs   []int // indices of register locations
	slots  []int // indices of slot locations
	r1     int
	// eventsBefore maps an allocated instruction ID to the removed ABI
	// moves that act right before it; eventsAtEnd those acting at the end
	// of a block (by block ID).
	eventsBefore map[int32][]*ori.Inst
	eventsAtEnd  map[int32][]*ori.Inst
	record       bool
	mism         []RAMismatch
	cur          *ori.Block
	// callees holds what a call to each whole-seen callee may change
	// (verify_calls.go); nil: every call is under the ABI.
	callees map[string]ori.RegSet
}

func rdNewVerifier(pre *rdPre, f *ori.Func) *rdVerifier {
	v := &rdVerifier{pre: pre, f: f, locIdx: map[rdLoc]int{}, eventsBefore: map[int32][]*ori.Inst{}, eventsAtEnd: map[int32][]*ori.Inst{}}
	v.loc(rdLoc{kind: rdUndefKind}) // index rdUndef
	addReg := func(r ori.Reg) {
		if r.Virtual || r.IsZero() {
			return
		}
		for w := 0; w < int(r.Words); w++ {
			if int(r.N)+w < r.Class.Limit() {
				v.loc(rdRegLoc(r, w))
			}
		}
	}
	v.r1 = v.loc(rdLoc{kind: uint8(ori.ClassR), n: 1})
	for _, x := range pre.phys {
		v.loc(rdLoc{kind: uint8(x.class), n: x.n})
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			addReg(in.Guard)
			for _, ops := range [2][]ori.Operand{in.Dsts, in.Srcs} {
				for _, o := range ops {
					if r, ok := rdOpReg(o); ok {
						addReg(r)
					}
				}
			}
			if off, size, ok := rdSlotAccess(in); ok {
				for w := rdAlignDown(off); w < off+size; w += 4 {
					v.loc(rdLoc{kind: rdSlotKind, n: int32(w)})
				}
			}
			if v.calleeRestore(in) {
				v.loc(rdLoc{kind: rdSlotKind, n: int32(rdAlignDown(in.Srcs[0].Imm))})
			}
		}
	}
	for i, l := range v.locs {
		if l.kind == rdUndefKind {
			continue
		}
		if l.isSlot() {
			v.slots = append(v.slots, i)
		} else {
			v.regs = append(v.regs, i)
		}
	}
	v.placeEvents()
	return v
}

func rdAlignDown(off int64) int64 {
	if off >= 0 {
		return off / 4 * 4
	}
	return -((-off + 3) / 4 * 4)
}

func (v *rdVerifier) loc(l rdLoc) int {
	if i, ok := v.locIdx[l]; ok {
		return i
	}
	v.locIdx[l] = len(v.locs)
	v.locs = append(v.locs, l)
	return len(v.locs) - 1
}

// placeEvents anchors each removed ABI move right before the first
// instruction after it in its original block that survived allocation,
// or at the end of that block: as late as possible, so the spills,
// refills and remats the allocator inserted in the gap (which may be what
// put the value in the ABI register) act first.
func (v *rdVerifier) placeEvents() {
	for _, b := range v.pre.f.Blocks {
		var pending []*ori.Inst
		for _, in := range b.Insts {
			switch {
			case v.pre.present[in.ID]:
				if len(pending) > 0 {
					v.eventsBefore[in.ID] = pending
					pending = nil
				}
			case v.pre.events[in.ID]:
				pending = append(pending, in)
			}
		}
		if len(pending) > 0 {
			v.eventsAtEnd[b.ID] = pending
		}
	}
}

// rdMemBytes returns the bytes a load or store moves, from its size
// modifier, or from its data register when that is wider.
func rdMemBytes(in *ori.Inst, data *ori.Operand) int64 {
	size := int64(4)
	for _, m := range in.Mods {
		switch m {
		case "U8", "S8":
			size = 1
		case "U16", "S16":
			size = 2
		case "64":
			size = 8
		case "128":
			size = 16
		}
	}
	if data != nil && data.Kind == ori.OpdReg && !data.Reg.IsZero() && int64(data.Reg.Words)*4 > size {
		size = int64(data.Reg.Words) * 4
	}
	return size
}

// rdSlotAccess returns the frame bytes [off, off+size) that in writes
// through [R1+off] (any store), or that it reads as a refill. Other
// accesses return false.
func rdSlotAccess(in *ori.Inst) (off, size int64, ok bool) {
	isR1 := func(o ori.Operand) bool {
		return o.Kind == ori.OpdMem && o.HasBase && !o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.N == 1
	}
	flags := in.Op.Flags()
	switch {
	case flags&(ori.FStore|ori.FAtomic) != 0 && len(in.Srcs) > 0 && isR1(in.Srcs[0]):
		var data *ori.Operand
		if len(in.Srcs) > 1 {
			data = &in.Srcs[1]
		}
		return in.Srcs[0].Imm, rdMemBytes(in, data), true
	case in.Role == ori.RoleRefill && len(in.Srcs) == 1 && isR1(in.Srcs[0]):
		var data *ori.Operand
		if len(in.Dsts) > 0 {
			data = &in.Dsts[0]
		}
		return in.Srcs[0].Imm, rdMemBytes(in, data), true
	}
	return 0, 0, false
}

// entryState is the state at function entry: every register holds its
// own name, no slot holds anything, and the virtual values that may be
// read before any definition are undefined. In a .func, each
// callee-saved register and the return-address pair (which lies above
// R31 when the arguments reach R20) also hold the caller's value of
// them, which checkCalleeSaved looks for at every RET.
func (v *rdVerifier) entryState() rdState {
	s := make(rdState, len(v.locs))
	for _, i := range v.regs {
		s[i] = rdOnly(v.pre.canon(v.locs[i].own()))
		if l := v.locs[i]; !v.f.Entry && (v.calleeSaved(i) || l.kind == uint8(ori.ClassR) && (l.n == v.retAddr() || l.n == v.retAddr()+1)) {
			s[i].facts = append(s[i].facts, rdFact{v: rdCallerVal(v.locs[i].n)})
			rdSortFacts(s[i].facts)
		}
	}
	for _, x := range v.pre.undef {
		s[rdUndef].facts = append(s[rdUndef].facts, rdFact{v: x})
	}
	return s
}

// rdMaxSweeps bounds the sweeps of the fixed-point iteration. Each
// change of a block's entry state is a strict descent in a lattice of
// finite height (see "The lattice of the fixed point" in
// verify_state.go), so the iteration ends on every function; the bound
// only turns a future bug in that lattice into an internal error naming
// the function rather than a hang. It is far above what real functions
// need: every function of TestEveryValidInputCompiles (the testdata and
// shared corpus at -O0 and -O3) and of fuzz seeds 26121646 and 26121665
// at -O2 settles within 4 sweeps.
func rdMaxSweeps(f *ori.Func) int { return 64 + 8*len(f.Blocks) }

// run iterates the dataflow to its fixed point and keeps the mismatches
// of every reachable block's visit from its final entry state. It
// reports false when
// the iteration did not converge within rdMaxSweeps.
func (v *rdVerifier) run() bool {
	f := v.f
	if len(f.Blocks) == 0 {
		return true
	}
	pos := map[*ori.Block]int{}
	for i, b := range f.Blocks {
		pos[b] = i
	}
	// The sweeps visit every block in order until nothing changes, but
	// each sweep redoes only work whose inputs changed: a block's out
	// state is recomputed only when its in state was replaced (inVer
	// counts the replacements), and the join along an edge is skipped
	// when neither end's state was replaced since that join last left
	// the successor's state as it was. Block transfer, edgeState and
	// rdMeetState are functions of those states alone, so the skipped
	// work would recompute exactly what it did before, and the fixed
	// point (and its order of sweeps, which matters because the join is
	// not monotone, see rdMaxSweeps) is the one the plain sweeps reach.
	// Without this, every sweep re-ran every block and every join: most
	// of the verifier's time on large functions.
	n := len(f.Blocks)
	in := make([]rdState, n)
	inVer := make([]int, n)
	outs := make([]rdState, n)
	outVer := make([]int, n)
	type edgeMemo struct{ pred, succ int } // versions of in[pred] (that out was computed from) and in[succ] at a join that changed nothing; -1: none
	memo := make([][]edgeMemo, n)
	for bi, b := range f.Blocks {
		memo[bi] = make([]edgeMemo, len(b.Succs))
		for k := range memo[bi] {
			memo[bi][k] = edgeMemo{-1, -1}
		}
	}
	in[0] = v.entryState()
	// Mismatches are recorded on every visit, and each block keeps those
	// of its last one. At the fixed point that visit ran from the block's
	// final entry state (a change of an entry state causes another sweep,
	// which revisits the block), so they are exactly what a separate
	// recording pass over every block would find, without that pass.
	v.record = true
	mism := make([][]RAMismatch, n)
	sweeps := 0
	for changed := true; changed; {
		if sweeps++; sweeps > rdMaxSweeps(f) {
			return false
		}
		changed = false
		for bi, b := range f.Blocks {
			if in[bi] == nil {
				continue
			}
			if outs[bi] == nil || outVer[bi] != inVer[bi] {
				v.mism = nil
				outs[bi], outVer[bi] = v.block(b, in[bi]), inVer[bi]
				mism[bi] = v.mism
			}
			out := outs[bi]
			for k, s := range b.Succs {
				si, ok := pos[s]
				if !ok {
					continue
				}
				m := &memo[bi][k]
				if m.pred == outVer[bi] && m.succ == inVer[si] {
					continue
				}
				next := rdMeetState(in[si], v.edgeState(b, bi, s, out))
				if !next.equal(in[si]) {
					in[si] = next
					inVer[si]++
					changed = true
					*m = edgeMemo{-1, -1}
					continue
				}
				*m = edgeMemo{outVer[bi], inVer[si]}
			}
		}
	}
	v.mism = nil
	for bi, b := range f.Blocks {
		if in[bi] == nil {
			continue
		}
		if outVer[bi] != inVer[bi] { // not reached at a fixed point; kept for safety
			saved := v.mism
			v.mism = nil
			v.block(b, in[bi])
			mism[bi] = v.mism
			v.mism = saved
		}
		v.mism = append(v.mism, mism[bi]...)
	}
	v.checkFrame()
	v.checkCalleeSaves()
	return true
}

// block runs the transfer function of b on a copy of st.
func (v *rdVerifier) block(b *ori.Block, st rdState) rdState {
	s := st.clone()
	v.cur = b
	for _, in := range b.Insts {
		for _, ev := range v.eventsBefore[in.ID] {
			v.copyEvent(s, ev)
		}
		v.step(s, in)
	}
	for _, ev := range v.eventsAtEnd[b.ID] {
		v.copyEvent(s, ev)
	}
	return s
}

func (v *rdVerifier) fail(in *ori.Inst, m RAMismatch) {
	if !v.record {
		return
	}
	m.Block, m.Inst = v.cur.ID, in.ID
	v.mism = append(v.mism, m)
}

func (v *rdVerifier) failf(in *ori.Inst, code int, format string, args ...any) {
	v.fail(in, RAMismatch{Code: code, Operand: OperandNone, Msg: fmt.Sprintf(format, args...)})
}

// step is the transfer function of one allocated instruction.
func (v *rdVerifier) step(s rdState, in *ori.Inst) {
	if in.Role != ori.RoleNone {
		v.role(s, in)
		return
	}
	p := v.pre.byID[in.ID]
	if p == nil {
		if _, ok := rdFrameAdjust(in); ok {
			// An inserted prologue or epilogue: R1 still names the
			// frame base, which is what the original code meant by it
			// (checkFrame checks the amounts). A guarded one (before a
			// guarded RET) acts under the original predicate its guard
			// register holds.
			cond, ok := v.guardCond(s, in)
			if !ok {
				v.unknown(s, in)
				return
			}
			v.read(s, in, 0, "operand 0", in.Srcs[0].Reg, in.Srcs[0].Reg, cond)
			v.apply(s, in.ID, []rdDstWord{{loc: v.r1, val: v.pre.canon(rdSP), ok: true}}, cond, nil, nil)
			return
		}
		// The saves and restores of callee-saved registers
		// (regalloc/calleesave.go) copy between a register and its
		// frame slot, so the caller's value travels through the slot
		// and back; a guarded restore (before a guarded RET) copies
		// only where the RET is taken, and on the fall-through the
		// register keeps its value (move).
		if v.calleeSave(in) {
			v.move(s, in, v.slotLocs(rdAlignDown(in.Srcs[0].Imm), 1), v.regLocs(in.Srcs[1].Reg))
			return
		}
		if v.calleeRestore(in) {
			v.move(s, in, v.regLocs(in.Dsts[0].Reg), v.slotLocs(rdAlignDown(in.Srcs[0].Imm), 1))
			return
		}
		v.unknown(s, in)
		return
	}
	v.matched(s, in, p)
}

// guardCond returns the condition an allocator-inserted instruction runs
// under: always when unguarded, else the original predicate value its
// guard register holds for sure. ok is false when it holds none.
func (v *rdVerifier) guardCond(s rdState, in *ori.Inst) (rdCond, bool) {
	if !in.Guarded() {
		return rdCond{}, true
	}
	if in.Guard.Virtual || in.Guard.IsZero() {
		return rdCond{}, false
	}
	i, ok := v.locIdx[rdRegLoc(in.Guard, 0)]
	if !ok {
		return rdCond{}, false
	}
	for _, f := range s[i].facts {
		if !f.c.on {
			return rdCond{on: true, p: f.v, neg: in.GuardNot}, true
		}
	}
	return rdCond{}, false
}

// rdFrameAdjust recognizes the stack-pointer update "IADD3 R1 = R1, imm, RZ"
// of a prologue or epilogue (guarded or not) and returns imm.
func rdFrameAdjust(in *ori.Inst) (int64, bool) {
	isR1 := func(o ori.Operand) bool {
		return o.Kind == ori.OpdReg && !o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.N == 1 && o.Reg.Words == 1 && !o.Neg
	}
	if in.Op != ori.OpIADD3 || len(in.Mods) != 0 || len(in.Dsts) != 1 || len(in.Srcs) != 3 ||
		!isR1(in.Dsts[0]) || !isR1(in.Srcs[0]) || in.Srcs[1].Kind != ori.OpdImm || in.Srcs[1].FKind != ori.ImmInt ||
		in.Srcs[2].Kind != ori.OpdReg || in.Srcs[2].Reg != ori.RZ {
		return 0, false
	}
	return in.Srcs[1].Imm, true
}

// checkFrame checks the frame the allocation leaves: the entry block
// allocates exactly LocalBytes (when there are any), every RET of a .func
// is preceded by the matching release, nothing else moves R1 by an
// immediate, and every spill slot lies in the frame above the local
// variables of the original function.
func (v *rdVerifier) checkFrame() {
	f := v.f
	frame := f.LocalBytes
	locals := v.pre.f.LocalBytes
	fail := func(b *ori.Block, in *ori.Inst, code int, format string, args ...any) {
		v.mism = append(v.mism, RAMismatch{Block: b.ID, Inst: in.ID, Code: code, Operand: OperandNone, Msg: fmt.Sprintf(format, args...)})
	}
	if len(f.Blocks) == 0 {
		return
	}
	sawPrologue := false
	for bi, b := range f.Blocks {
		for i, in := range b.Insts {
			if in.Role == ori.RoleSpill || in.Role == ori.RoleRefill {
				if off, size, ok := rdSlotAccess(in); ok {
					switch {
					case off < locals:
						fail(b, in, 1, "%s slot [R1+%#x] overlaps the local variables at [R1+0x0, R1+%#x)", in.Role, off, locals)
					case off+size > frame:
						fail(b, in, 1, "%s slot [R1+%#x] ends past the frame of %#x bytes", in.Role, off, frame)
					}
				}
			}
			imm, ok := rdFrameAdjust(in)
			if !ok {
				continue
			}
			nextRet := i+1 < len(b.Insts) && b.Insts[i+1].Op.Has(ori.FRet)
			switch {
			case bi == 0 && imm < 0 && !sawPrologue:
				sawPrologue = true
				if -imm != frame {
					fail(b, in, 0, "the prologue allocates %#x bytes, but the frame is %#x bytes", -imm, frame)
				}
			case nextRet && !f.Entry:
				if imm != frame {
					fail(b, in, 0, "the epilogue releases %#x bytes, but the frame is %#x bytes", imm, frame)
				}
			default:
				fail(b, in, 0, "moves the stack pointer by %#x outside the prologue and epilogue", imm)
			}
		}
		if n := len(b.Insts); !f.Entry && frame > 0 && n > 0 && b.Insts[n-1].Op.Has(ori.FRet) {
			if n < 2 {
				fail(b, b.Insts[n-1], 0, "returns without releasing the frame of %#x bytes", frame)
			} else if _, ok := rdFrameAdjust(b.Insts[n-2]); !ok {
				fail(b, b.Insts[n-1], 0, "returns without releasing the frame of %#x bytes", frame)
			}
		}
	}
	if frame > 0 && !sawPrologue {
		in := &ori.Inst{}
		if len(f.Blocks[0].Insts) > 0 {
			in = f.Blocks[0].Insts[0]
		}
		fail(f.Blocks[0], in, 0, "the frame is %#x bytes, but the entry block never allocates it", frame)
	}
}

// rdShape describes an instruction's form for "changed" messages.
func rdShape(in *ori.Inst) string {
	return fmt.Sprintf("%s (%s, %s)", in.Name(), rdPlural(len(in.Dsts), "result"), rdPlural(len(in.Srcs), "source"))
}

func rdPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func rdGuardText(in *ori.Inst) string {
	if !in.Guarded() {
		return "unguarded"
	}
	g := "@"
	if in.GuardNot {
		g += "!"
	}
	return "under " + g + in.Guard.String()
}

// matched handles an instruction that kept its pre-allocation ID.
func (v *rdVerifier) matched(s rdState, in, p *ori.Inst) {
	if in.Op != p.Op || len(in.Dsts) != len(p.Dsts) || len(in.Srcs) != len(p.Srcs) {
		v.failf(in, 6, "is %s after allocation, but %s before", rdShape(in), rdShape(p))
		v.definedSomehow(s, p)
		v.unknown(s, in)
		return
	}
	var cond rdCond
	if p.Guarded() != in.Guarded() || in.GuardNot != p.GuardNot || p.Guard.IsZero() != in.Guard.IsZero() {
		v.failf(in, 6, "runs %s after allocation, but %s before", rdGuardText(in), rdGuardText(p))
		v.definedSomehow(s, p)
		v.unknown(s, in)
		return
	}
	if p.Guarded() {
		if p.Guard.IsZero() {
			return // @!PT never executes
		}
		v.read(s, in, OperandGuard, "the guard", p.Guard, in.Guard, rdCond{})
		cond = rdCond{on: true, p: v.pre.canon(rdValOf(p.Guard, 0)), neg: p.GuardNot}
	}
	for i := range p.Srcs {
		v.readOperand(s, in, OperandNumber(p, i), p.Srcs[i], in.Srcs[i], cond)
	}
	for _, x := range v.pre.implicitReads(p) {
		label := "the implicit stack pointer"
		switch {
		case x == rdSP:
		case p.Op == ori.OpCALL:
			label = "the implicit argument"
		default:
			label = "the implicit result"
		}
		r := ori.PReg(x.class, int(x.n), 1)
		v.read(s, in, OperandImplicit, label, r, r, cond)
	}
	if p.Op == ori.OpCALL {
		v.callClobber(s, in)
	}
	if p.Op == ori.OpRET && !v.f.Entry {
		v.checkCalleeSaved(s, in, p, cond)
	}
	v.define(s, in, p, cond)
	v.storeSlots(s, in, cond)
}

// definedSomehow is the effect, on the "undefined" cell, of an original
// instruction p that the allocated code changed beyond recognition (the
// change is reported): its results are no longer undefined, although no
// location is known to hold them. Without this, a read that only p's
// definition made well defined would pass as a read of an undefined value.
func (v *rdVerifier) definedSomehow(s rdState, p *ori.Inst) {
	u := s[rdUndef]
	if len(u.facts) == 0 {
		return
	}
	drop := map[rdVal]bool{}
	for _, x := range v.pre.rdDefs(p) {
		drop[v.pre.canon(x)] = true
	}
	var facts []rdFact
	for _, f := range u.facts {
		if !drop[f.v] {
			facts = append(facts, f)
		}
	}
	s[rdUndef] = rdCell{facts: facts, stale: u.stale, weak: u.weak}
}

// readOperand checks the register, or the address base, of operand n
// (numbered as OperandNumber says: destinations first).
func (v *rdVerifier) readOperand(s rdState, in *ori.Inst, n int, po, qo ori.Operand, cond rdCond) {
	pr, pok := rdOpReg(po)
	qr, qok := rdOpReg(qo)
	if po.Kind != qo.Kind || pok != qok {
		v.failf(in, 6, "operand %d is %s after allocation, but %s before", n, qo, po)
		return
	}
	if !pok {
		return
	}
	label := rdLabel(rdOperandLabels[:], "operand %d", n)
	if po.Kind != ori.OpdReg {
		label = rdLabel(rdAddressLabels[:], "the address of operand %d", n)
	}
	v.read(s, in, n, label, pr, qr, cond)
}

// The operand names of messages, formatted once: every sweep names every
// operand it checks, and formatting them there was a tenth of the
// verifier's time, almost all of it for messages nobody prints.
var rdOperandLabels, rdAddressLabels, rdResultLabels [16]string

func init() {
	for i := range rdOperandLabels {
		rdOperandLabels[i] = fmt.Sprintf("operand %d", i)
		rdAddressLabels[i] = fmt.Sprintf("the address of operand %d", i)
		rdResultLabels[i] = fmt.Sprintf("result %d", i)
	}
}

// rdLabel is format applied to n, from table when n is in it.
func rdLabel(table []string, format string, n int) string {
	if n >= 0 && n < len(table) {
		return table[n]
	}
	return fmt.Sprintf(format, n)
}

// checkReg validates that allocated register q can stand for original
// register p; what names the operand in messages. It returns false (after
// reporting) when it cannot.
func (v *rdVerifier) checkReg(in *ori.Inst, op int, what string, p, q ori.Reg) bool {
	bad := func(format string, args ...any) bool {
		v.fail(in, RAMismatch{Code: 6, Operand: op, Msg: what + " " + fmt.Sprintf(format, args...)})
		return false
	}
	switch {
	case q.Virtual:
		return bad("is still the virtual register %s after allocation", q)
	case p.IsZero() || q.IsZero():
		if p.IsZero() && q.IsZero() && p.Class == q.Class {
			return true
		}
		return bad("is %s after allocation, but %s before", q, p)
	case p.Class != q.Class:
		return bad("is %s, in another register file than %s before allocation", q, p)
	case p.Words != q.Words:
		return bad("is %s after allocation, %d words, but %s was %d words", q, q.Words, p, p.Words)
	case int(q.N)%int(q.Words) != 0:
		return bad("is %s, which is not aligned to %d registers", q, q.Words)
	case int(q.N)+int(q.Words) > q.Class.Limit():
		return bad("is %s, past the last %s register", q, q.Class)
	}
	return true
}

// read checks that each word of allocated register q holds the value the
// same word of p held before allocation.
func (v *rdVerifier) read(s rdState, in *ori.Inst, op int, what string, p, q ori.Reg, cond rdCond) {
	if !v.checkReg(in, op, what, p, q) || p.IsZero() {
		return
	}
	for w := 0; w < int(p.Words); w++ {
		want := rdValOf(p, w)
		cw := v.pre.canon(want)
		l := rdRegLoc(q, w)
		li := v.locIdx[l]
		if s.holdsAt(li, cw, cond) {
			continue
		}
		cell := &s[li]
		holds := cell.describe(cw, want)
		// Another value, or an old version of this one, reaches the
		// read: extra defs (6). Nothing does on some path:
		// uninitialized (5).
		code := 5
		if len(cell.facts) > 0 || cell.staleOf(cw) {
			code = 6
		}
		v.fail(in, RAMismatch{
			Code: code, Operand: op, Loc: l.String(), Want: want.String(), Holds: holds, read: &rdRead{want: want, loc: l},
			Msg: cell.readMsg(what, l, cw, want, cond),
		})
	}
}

// rdDstWord is one destination word of a definition: the location
// written (-1: none) and the value it now holds (ok false: none).
type rdDstWord struct {
	loc int
	val rdVal
	ok  bool
}

// define applies the results of matched instruction in (original p).
func (v *rdVerifier) define(s rdState, in, p *ori.Inst, cond rdCond) {
	var dw []rdDstWord
	for i := range p.Dsts {
		po, qo := p.Dsts[i], in.Dsts[i]
		if po.Kind != ori.OpdReg || qo.Kind != ori.OpdReg {
			if po.Kind != qo.Kind {
				v.failf(in, 6, "result %d is %s after allocation, but %s before", i, qo, po)
			} else {
				v.readOperand(s, in, i, po, qo, cond)
			}
			continue
		}
		pr, qr := po.Reg, qo.Reg
		what := rdLabel(rdResultLabels[:], "result %d", i)
		if pr.IsZero() {
			if !qr.IsZero() && v.checkPhys(in, what, qr) {
				for w := 0; w < int(qr.Words); w++ {
					dw = append(dw, rdDstWord{loc: v.locIdx[rdRegLoc(qr, w)]})
				}
			}
			continue
		}
		if !v.checkReg(in, OperandNone, what, pr, qr) {
			for w := 0; w < int(pr.Words); w++ {
				dw = append(dw, rdDstWord{loc: -1, val: v.pre.canon(rdValOf(pr, w)), ok: true})
			}
			if v.checkPhys(in, "", qr) {
				for w := 0; w < int(qr.Words); w++ {
					dw = append(dw, rdDstWord{loc: v.locIdx[rdRegLoc(qr, w)]})
				}
			}
			continue
		}
		for w := 0; w < int(pr.Words); w++ {
			dw = append(dw, rdDstWord{loc: v.locIdx[rdRegLoc(qr, w)], val: v.pre.canon(rdValOf(pr, w)), ok: true})
		}
	}
	// Results of one instruction that share a register (TEX's two pairs
	// placed on each other): which write lands last is the hardware's
	// business, so one value disappears. Each result is checked on its
	// own above and would pass.
	owner := map[int]int{}
	k := 0
	for i := range in.Dsts {
		q := in.Dsts[i]
		if q.Kind != ori.OpdReg || q.Reg.IsZero() || !v.checkPhys(in, "", q.Reg) {
			continue
		}
		for w := 0; w < int(q.Reg.Words); w++ {
			l := v.locIdx[rdRegLoc(q.Reg, w)]
			if j, dup := owner[l]; dup && j != i {
				v.failf(in, 10, "results %d and %d both write %s", j, i, rdRegLoc(q.Reg, w))
				k++
				break
			}
			owner[l] = i
		}
		if k > 0 {
			break
		}
	}
	// A MOV between registers copies: the destination also holds what
	// the source location holds, and wherever the source value is held,
	// the destination value is held too.
	var copySrc []rdVal
	var copyCells []rdCell
	if rdIsRegCopy(p) && !cond.on && rdAllWritten(dw, int(p.Dsts[0].Reg.Words)) && in.Srcs[0].Kind == ori.OpdReg &&
		v.checkPhys(in, "", in.Srcs[0].Reg) && in.Srcs[0].Reg.Words == p.Srcs[0].Reg.Words {
		for w := 0; w < int(p.Srcs[0].Reg.Words); w++ {
			copySrc = append(copySrc, v.pre.canon(rdValOf(p.Srcs[0].Reg, w)))
			copyCells = append(copyCells, s[v.locIdx[rdRegLoc(in.Srcs[0].Reg, w)]])
		}
	}
	v.apply(s, in.ID, dw, cond, copySrc, copyCells)
}

// rdAllWritten reports whether dw is exactly n located value words.
func rdAllWritten(dw []rdDstWord, n int) bool {
	if len(dw) != n {
		return false
	}
	for _, d := range dw {
		if d.loc < 0 || !d.ok {
			return false
		}
	}
	return true
}

// checkPhys reports whether q is a physical register the state tracks.
func (v *rdVerifier) checkPhys(in *ori.Inst, what string, q ori.Reg) bool {
	if q.Virtual || q.IsZero() || int(q.N)+int(q.Words) > q.Class.Limit() {
		if what != "" && q.Virtual {
			v.failf(in, 6, "%s is still the virtual register %s after allocation", what, q)
		}
		return false
	}
	return true
}

// apply performs definitions: dw are the written words, cond the guard
// (or always); copySrc/copyCells, when set, make it a copy whose source
// value word i is copySrc[i], held by a location that held copyCells[i].
func (v *rdVerifier) apply(s rdState, id int32, dw []rdDstWord, cond rdCond, copySrc []rdVal, copyCells []rdCell) {
	writesR1 := false
	for _, d := range dw {
		if d.loc == v.r1 {
			writesR1 = true
		}
	}
	if !cond.on {
		// Values held wherever a copy's source value is held, before
		// the kill.
		var holders [][]rdHolder
		if copySrc != nil {
			holders = make([][]rdHolder, len(copySrc))
			for w, src := range copySrc {
				if src != dw[w].val {
					holders[w] = s.holders(src)
				}
			}
		}
		for w, d := range dw {
			if d.ok && !(copySrc != nil && copySrc[w] == d.val) {
				s.kill(d.val, id)
			}
		}
		for w, d := range dw {
			if d.loc < 0 {
				continue
			}
			switch {
			case !d.ok:
				s[d.loc] = rdCell{}
			case copySrc != nil:
				c := copyCells[w]
				facts := []rdFact{{v: d.val}}
				for _, f := range c.facts {
					if f.v != d.val && !(f.c.on && f.c.p == d.val) {
						facts = append(facts, f)
					}
				}
				rdSortFacts(facts)
				s[d.loc] = rdCell{facts: facts}
			default:
				s[d.loc] = rdOnly(d.val)
			}
		}
		for w, hs := range holders {
			s.addHolders(hs, dw[w].val)
		}
	} else {
		for _, d := range dw {
			if !d.ok {
				if d.loc >= 0 {
					s[d.loc] = rdGuardedClobber(s[d.loc], cond)
				}
				continue
			}
			skip := map[int]bool{}
			var nc rdCell
			if d.loc >= 0 {
				skip[d.loc] = true
				nc = rdGuardedDef(s.withUndef(d.loc, rdOnly(d.val)), d.val, cond)
			}
			s.restrictNot(d.val, cond, skip)
			if d.loc >= 0 {
				s[d.loc] = nc
			}
		}
		for _, d := range dw {
			if d.ok {
				s.dropConds(d.val)
			}
		}
	}
	if writesR1 {
		v.forgetSlots(s, cond)
	}
}

// rdGuardedClobber is a location written under g with a value nobody
// names: it keeps what it held only while g is false.
func rdGuardedClobber(old rdCell, g rdCond) rdCell {
	var out rdCell
	for _, f := range old.facts {
		if c, ok := rdMeetCond(f.c, g.not()); ok {
			out.facts = append(out.facts, rdFact{v: f.v, c: c})
		}
	}
	return out
}

// dropConds removes the facts whose condition is predicate value p,
// which has just been redefined.
func (s rdState) dropConds(p rdVal) {
	for i := range s {
		c := &s[i]
		drop := false
		for _, f := range c.facts {
			if f.c.on && f.c.p == p {
				drop = true
			}
		}
		if !drop {
			continue
		}
		var facts []rdFact
		weak := append([]rdVal(nil), c.weak...)
		for _, f := range c.facts {
			if f.c.on && f.c.p == p {
				weak = append(weak, f.v)
			} else {
				facts = append(facts, f)
			}
		}
		rdSortVals(weak)
		*c = rdCell{facts: facts, stale: c.stale, weak: rdDedupVals(weak)}
	}
}

// forgetSlots is the effect of moving the frame (a write to R1) under
// cond on the slot words: what they held is gone, except, for a guarded
// write (the epilogue before "@P0 RET"), while the guard is false.
func (v *rdVerifier) forgetSlots(s rdState, cond rdCond) {
	for _, i := range v.slots {
		if cond.on {
			s[i] = rdGuardedClobber(s[i], cond)
		} else {
			s[i] = rdCell{}
		}
	}
}

// edgeState is the state out of block b (at layout index bi) along its
// edge to succ. When b ends in a guarded BRA, RET or EXIT of the original
// code, the edge itself says which way the guard went: the fall-through
// of "@%p0 RET" is only taken while %p0 is false, the branch target of
// "@%p0 BRA" only while it is true. On such an edge, facts that held
// under the guard's known value hold always, and facts that held under
// its opposite hold on no execution of the edge and are dropped. Without
// this, a guarded return whose epilogue released the frame under the
// guard would leave every spill slot known only "when !%p0" on the path
// that continues, although that path is exactly where %p0 is false.
//
// The guard's value is the pre-allocation predicate the terminator read
// (matched reads check that its guard register holds it; a mismatch is
// reported there). An edge that is both the target and the fall-through
// says nothing, and neither do instructions the allocator inserted.
func (v *rdVerifier) edgeState(b *ori.Block, bi int, succ *ori.Block, out rdState) rdState {
	n := len(b.Insts)
	if n == 0 {
		return out
	}
	last := b.Insts[n-1]
	if !last.EndsBlock() || !last.Guarded() {
		return out
	}
	p := v.pre.byID[last.ID]
	if p == nil || !p.Guarded() || p.Guard.IsZero() || last.Role != ori.RoleNone {
		return out
	}
	var next *ori.Block
	if bi+1 < len(v.f.Blocks) {
		next = v.f.Blocks[bi+1]
	}
	target := false
	for _, o := range last.Srcs {
		if o.Kind == ori.OpdBlock && o.Block == succ.ID {
			target = true
		}
	}
	g := rdCond{on: true, p: v.pre.canon(rdValOf(p.Guard, 0)), neg: p.GuardNot}
	switch {
	case target && succ != next:
		// taken: the guard is true
	case !target && succ == next:
		g = g.not() // fell through: the guard is false
	default:
		return out
	}
	return out.assume(g)
}

// calleeRestore reports whether in, which the original function does
// not have, reloads one callee-saved register of a .func from a word of
// its frame: "LDL Rn = [R1+off]" (regalloc/calleesave.go).
func (v *rdVerifier) calleeRestore(in *ori.Inst) bool {
	if v.f.Entry || in.Role != ori.RoleNone || in.Op != ori.OpLDL || len(in.Mods) != 0 || len(in.Dsts) != 1 || len(in.Srcs) != 1 || in.Dsts[0].Kind != ori.OpdReg {
		return false
	}
	return rdCalleeSavedReg(in.Dsts[0]) && rdFrameWord(in.Srcs[0])
}

// calleeSave reports whether in, which the original function does not
// have, stores one callee-saved register of a .func to a word of its
// frame: "STL [R1+off], Rn" (regalloc/calleesave.go).
func (v *rdVerifier) calleeSave(in *ori.Inst) bool {
	if v.f.Entry || in.Role != ori.RoleNone || in.Op != ori.OpSTL || len(in.Mods) != 0 || len(in.Dsts) != 0 || len(in.Srcs) != 2 {
		return false
	}
	return rdCalleeSavedReg(in.Srcs[1]) && rdFrameWord(in.Srcs[0])
}

// rdCalleeSavedReg reports whether o is one of R16-R31, unmodified.
func rdCalleeSavedReg(o ori.Operand) bool {
	r := o.Reg
	return o.Kind == ori.OpdReg && !o.Neg && !o.Abs && !o.Not && !r.Virtual && r.Class == ori.ClassR && r.Words == 1 && r.N >= 16 && r.N <= 31
}

// rdFrameWord reports whether o is a word-aligned frame address
// [R1+off]: the one slot word a 32-bit access there covers.
func rdFrameWord(o ori.Operand) bool {
	return o.Kind == ori.OpdMem && o.HasBase && !o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.N == 1 && o.Reg.Words == 1 && o.Imm%4 == 0
}

// retAddr is the first register of the pair a .func receives its return
// address in: R20 under the ABI, or the one Func.RetAddr names.
func (v *rdVerifier) retAddr() int32 {
	if v.pre.f.RetAddr != 0 {
		return v.pre.f.RetAddr
	}
	return 20
}

// checkCalleeSaved checks, at RET in (p before allocation, executing
// under cond) of a .func, the calling convention the caller relies on:
// every callee-saved register holds the caller's value of it again
// (regalloc/calleesave.go saves the ones the function writes and
// reloads them before each RET), and the register pair RET jumps
// through holds the return address the function received.
//
// Decision: the return-address pair itself (R20:R21, or the pair
// Func.RetAddr names) is not required to be restored: the caller writes
// it right before the CALL, so none of the caller's values lives there
// across the call, and a function that makes calls itself overwrites it
// for them (regalloc/calleesave.go returns through it instead). Nor are
// the result registers the RET reads: the caller expects the results
// there, not its old values (the implicit-result reads check those).
func (v *rdVerifier) checkCalleeSaved(s rdState, in, p *ori.Inst, cond rdCond) {
	ra := v.retAddr()
	skip := map[int32]bool{ra: true, ra + 1: true}
	for _, x := range v.pre.rets {
		if x.class == ori.ClassR && !x.virtual {
			skip[x.n] = true
		}
	}
	// The return address: the pair RET jumps through must hold what the
	// caller passed in R(ra):R(ra+1).
	if len(in.Srcs) == 1 && len(p.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdReg && in.Srcs[0].Reg.Words == 2 &&
		v.checkPhys(in, "", in.Srcs[0].Reg) {
		q := in.Srcs[0].Reg
		for w := 0; w < 2; w++ {
			want := rdCallerVal(ra + int32(w))
			l := rdRegLoc(q, w)
			li := v.locIdx[l]
			if s.holdsAt(li, want, cond) {
				continue
			}
			cell := &s[li]
			v.fail(in, RAMismatch{Code: 6, Operand: OperandNumber(in, 0), Loc: l.String(), Want: want.String(), Holds: cell.describe(want, want),
				Msg: fmt.Sprintf("returns through %s, which holds %s (not %s, the return address)", l, cell.describe(want, want), want)})
		}
	}
	for _, i := range v.regs {
		l := v.locs[i]
		if !v.calleeSaved(i) || skip[l.n] || v.private() {
			continue
		}
		want := rdCallerVal(l.n)
		if s.holdsAt(i, want, cond) {
			continue
		}
		cell := &s[i]
		v.fail(in, RAMismatch{Code: 6, Operand: OperandNone, Loc: l.String(), Want: want.String(), Holds: cell.describe(want, want),
			Msg: fmt.Sprintf("returns with the callee-saved register %s holding %s (not %s, which a .func must restore before RET)", l, cell.describe(want, want), want)})
	}
}

// calleeSaved reports whether location i is an R register the calling
// convention preserves across a CALL (R16-R31; regalloc/calleesave.go).
func (v *rdVerifier) calleeSaved(i int) bool {
	l := v.locs[i]
	return l.kind == uint8(ori.ClassR) && l.n >= 16 && l.n <= 31
}

// callClobber is the effect of CALL in: under the ABI every physical
// value but R1 is redefined, and every register but R1 and the
// callee-saved ones holds its own name; a call to a whole-seen callee
// does that only to the registers the callee may change (callSet).
func (v *rdVerifier) callClobber(s rdState, in *ori.Inst) {
	id := in.ID
	set, abi := v.callSet(in)
	for _, x := range v.pre.phys {
		if x != rdSP && (abi || set.Has(x.class, int(x.n))) {
			s.kill(v.pre.canon(x), id)
		}
	}
	for _, i := range v.regs {
		if i == v.r1 || abi && v.calleeSaved(i) || !abi && !set.Has(ori.RegClass(v.locs[i].kind), int(v.locs[i].n)) {
			continue
		}
		var stale []rdStale
		for _, f := range s[i].facts {
			if f.v.virtual {
				stale = append(stale, rdStale{v: f.v, by: id, call: true})
			}
		}
		c := rdOnly(v.pre.canon(v.locs[i].own()))
		c.stale = stale
		s[i] = c
	}
}

// copyEvent applies a removed move "MOV a = b" at its place (an ABI move,
// or a copy between interfering virtual registers): a is redefined and
// held wherever b is. A guarded one, "@%p MOV a = b", does that only
// while %p is true: a is then held wherever b is under %p, and its old
// copies survive under !%p.
func (v *rdVerifier) copyEvent(s rdState, ev *ori.Inst) {
	d, src := ev.Dsts[0].Reg, ev.Srcs[0].Reg
	var g rdCond
	if ev.Guarded() {
		if ev.Guard.IsZero() {
			return // @!PT never executes
		}
		g = rdCond{on: true, p: v.pre.canon(rdValOf(ev.Guard, 0)), neg: ev.GuardNot}
	}
	for w := 0; w < int(d.Words); w++ {
		a, b := v.pre.canon(rdValOf(d, w)), v.pre.canon(rdValOf(src, w))
		if a == b {
			continue
		}
		holders := s.holders(b)
		if !g.on {
			s.kill(a, ev.ID)
			s.addHolders(holders, a)
			continue
		}
		s.restrictNot(a, g, nil)
		s.dropConds(a)
		for _, h := range holders {
			if h.c.on && h.c.p == a {
				continue // the condition named the old a
			}
			c, ok := rdMeetCond(h.c, g)
			if !ok {
				continue
			}
			cell := &s[h.loc]
			var facts []rdFact
			merged := false
			for _, f := range cell.facts {
				if f.v == a {
					// a held before under !%p (restrictNot kept only
					// that) and now under %p: always.
					// Otherwise the location holds a under either
					// condition; keeping the old one is sound.
					if f.c == g.not() && c == g {
						f.c = rdCond{}
					}
					merged = true
				}
				facts = append(facts, f)
			}
			if !merged {
				facts = append(facts, rdFact{v: a, c: c})
			}
			rdSortFacts(facts)
			*cell = rdCell{facts: facts, stale: cell.stale, weak: cell.weak}
		}
	}
}

// unknown is an instruction the verifier cannot relate to the original
// function: everything it writes holds nothing afterwards.
func (v *rdVerifier) unknown(s rdState, in *ori.Inst) {
	if in.Op == ori.OpCALL {
		v.callClobber(s, in)
	}
	// Guarded or not, the written locations are forgotten: without a
	// pre-allocation guard value there is no condition to keep facts
	// under, and forgetting is always sound.
	var dw []rdDstWord
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && v.checkPhys(in, "", o.Reg) {
			for w := 0; w < int(o.Reg.Words); w++ {
				dw = append(dw, rdDstWord{loc: v.locIdx[rdRegLoc(o.Reg, w)]})
			}
		}
	}
	v.apply(s, in.ID, dw, rdCond{}, nil, nil)
	v.storeSlots(s, in, rdCond{})
}

// storeSlots forgets the slot words a store through [R1+off] overwrites.
func (v *rdVerifier) storeSlots(s rdState, in *ori.Inst, cond rdCond) {
	if in.Role == ori.RoleSpill || in.Role == ori.RoleRefill || in.Op.Flags()&(ori.FStore|ori.FAtomic) == 0 {
		return
	}
	off, size, ok := rdSlotAccess(in)
	if !ok {
		return
	}
	for w := rdAlignDown(off); w < off+size; w += 4 {
		i := v.locIdx[rdLoc{kind: rdSlotKind, n: int32(w)}]
		if cond.on {
			s[i] = rdGuardedClobber(s[i], cond)
		} else {
			s[i] = rdCell{}
		}
	}
}
