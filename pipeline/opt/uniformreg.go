package opt

// ConvertToUniformReg (phase 82): moves CTA-uniform values from the R and
// P files to the UR and UP files, rewriting their definitions into
// uniform-datapath instructions.
//
// The wiki ("Uniform Register Optimization", phase 74 of its numbering,
// seed lines 17914-17997) gives the conversion criteria: the value is
// uniform, its defining instruction has a uniform-datapath form, every
// consumer can read a UR source, and the UR file (UR0-UR62) is not
// overrun. orilab applies them to a set of registers at once, because a
// uniform computation is a chain (a loop counter's MOV, its UIADD3, the
// UISETP that compares it and the branch on that UP):
//
//  1. Candidates: virtual R registers of 1 or 2 words and virtual P
//     registers that the uniformity analysis (uniform.go) proves
//     CTA-uniform and whose every definition is unguarded and one of
//     MOV, IADD3, IMAD, LOP3, SHF, SEL, ISETP, LEA without .HI or a
//     carry (which become UMOV, UIADD3, UIMAD, ULOP3, USHF, USEL,
//     UISETP, ULEA), LDC without a base register (ULDC) or S2R of
//     SR_CTAID/SR_NCTAID/SR_CgaCtaId (S2UR; sm_90's shared-address
//     sequence becomes ptxas's S2UR and ULEA).
//  2. Shrink to a fixed point: a candidate leaves the set when one of its
//     definitions reads anything but immediates, RZ/PT, constant-bank
//     operands without a base register and other candidates (uniform
//     instructions read no R register; a constant-bank source of a
//     converted ALU instruction is loaded by a ULDC inserted before it,
//     as ptxas does), or when one of its reads is not
//     allowed from the uniform file. Allowed reads of a UR value outside
//     the set: a plain source of an ALU instruction (not memory, not a
//     warp collective, barrier, call or pseudo-instruction) that then has
//     at most one source that is a UR, an immediate or a constant bank,
//     as the SASS encodings have one such slot. Allowed reads of a UP
//     value outside the set: the guard of a BRA (a uniform branch).
//     Registers defined in code that runs after a divergent branch and
//     before its threads meet again are left out altogether
//     (dropDiverged, uniformdiverge.go): a warp's diverged thread groups
//     share the uniform registers.
//  3. Cost: unless the knob UregAddsInstructions is set, a candidate
//     leaves the set when its uniform form would issue more instructions
//     than its R form (addsInstructions): a definition that reads a
//     constant bank and needs a ULDC before it, a UP predicate (its only
//     outside reads are BRA guards, and no BRA word reads a uniform
//     predicate: pipeline/mercfixup.go adds a PLOP3 before each), or a
//     value whose every read is a copy into R (MOV R, UR, where the
//     allocator would have coalesced the R copy away). Where more R words
//     are live than full occupancy allows, ptxas's full conversion is
//     taken instead.
//  4. Budget: the conversion is undone when the converted function would
//     need more UR words live at once than urBudget, or more than
//     upBudget UP registers; the allocator cannot spill uniform
//     registers (pipeline/regalloc), so this is a hard limit.
//
// Each converted register gets a fresh %urN or %upN; RZ and PT sources of
// converted instructions become URZ and UPT.
//
// Example (a loop whose trip count is a parameter; with the knob
// UregAddsInstructions, as the ULDC and the PLOP3 before the branch cost
// two instructions an iteration):
//
//	#14 MOV %r9 = 0x0                     #14 UMOV %ur0 = 0x0
//	...                                   ...
//	#20 IADD3 %r9 = %r9, 0x1, RZ    =>    #20 UIADD3 %ur0 = %ur0, 0x1, URZ
//	                                      #40 ULDC %ur1 = c[0x0][0x170]
//	#21 ISETP.LT.U32.AND %p1, PT =        #21 UISETP.LT.U32.AND %up0, UPT =
//	      %r9, c[0x0][0x170], PT                %ur0, %ur1, UPT
//	#22 @%p1 BRA BB1                      #22 @%up0 BRA BB1
//
// Decisions: runs at -O1 and above on sm_75 and later (every target orilab
// has), in functions without calls (every register is caller-saved and
// the allocator cannot spill uniform registers) other than calls to the
// lowering's slow-path subroutines (callsBlockUniform); the knob DisableUreg (the wiki's "uniform register file usage
// entirely") switches it off. orilab has no R2UR/UR2R bridges: a value
// with a consumer that cannot read the uniform file stays in R.

import (
	"fmt"
	"sort"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// Uniform register budgets: UR0-UR62 and UP0-UP6 exist; keep headroom
// for the values the back end itself puts there.
const (
	urBudget = 48
	upBudget = 6
	// urPressureR is the most R words live at once under which the
	// instruction count alone decides (see convertToUniform): full
	// occupancy on sm_80 and later.
	urPressureR = 32
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableUreg", Type: knobs.TypeBool,
		Doc:     "Do not use the uniform register file: ConvertToUniformReg leaves every value in R and P.",
		Readers: []string{"ConvertToUniformReg"}})
	knobs.Default.Register(knobs.Knob{Name: "UregAddsInstructions", Type: knobs.TypeBool,
		Doc:     "Let ConvertToUniformReg move a value to UR/UP even when that issues more instructions (a ULDC for a constant operand, a PLOP3 for a branch on UP, a MOV R, UR for a value only copied to R), as ptxas does.",
		Readers: []string{"ConvertToUniformReg"}})
}

// ConvertToUniformReg moves CTA-uniform values and their computations to
// the UR/UP files (UMOV, UIADD3, UISETP...; phase ConvertToUniformReg).
var ConvertToUniformReg = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		if c.Bool("DisableUreg") {
			return false, nil
		}
		if ori.IsSlowPathName(f.Name) && !f.Entry {
			// A slow-path subroutine keeps every value in R, so its
			// callers' uniform values never compete with it (see
			// callsBlockUniform).
			return false, nil
		}
		return convertToUniform(f, c.Module, c.Sites, c.Arch, c.Bool("UregAddsInstructions"), !c.Bool("DisableUregReconvergence"))
	},
	NoOp: func(c *Context) string {
		if c.Bool("DisableUreg") {
			return "switched off by the knob DisableUreg"
		}
		return ""
	},
}

// uniformForms maps an R/P-file opcode to its uniform-datapath form.
var uniformForms = map[ori.Opcode]ori.Opcode{
	ori.OpMOV: ori.OpUMOV, ori.OpIADD3: ori.OpUIADD3, ori.OpIMAD: ori.OpUIMAD, ori.OpLOP3: ori.OpULOP3,
	ori.OpSHF: ori.OpUSHF, ori.OpSEL: ori.OpUSEL, ori.OpISETP: ori.OpUISETP, ori.OpLDC: ori.OpULDC,
	ori.OpS2R: ori.OpS2UR, ori.OpLEA: ori.OpULEA,
}

// callsBlockUniform reports whether f has a call that keeps it out of
// the uniform datapath: under the ABI every register is caller-saved and
// the allocator cannot spill uniform ones, so a function that calls
// stays in R, except for calls to the lowering's slow-path subroutines
// (ori.IsSlowPathName: f64 and f32 division, rsqrt). Those are
// whole-seen callees, allocated before their callers, and a call to one
// clobbers only the registers its allocated code writes, in every class
// (regalloc/interproc.go), so a uniform value live across it takes a
// uniform register the callee leaves alone; and the subroutine itself
// never uses the uniform datapath (ConvertToUniformReg skips it), so it
// clobbers no UR or UP at all.
// Decision: only these calls; values across any other call stay in R.
// hotspot's calculate_temp (4 f32 divisions, their slow paths out of
// line since OutlineF32SlowPath) keeps its 36 registers this way, 41
// with every call blocking (ptxas 32, with uniform registers).
func callsBlockUniform(f *ori.Func, m *ori.Module) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if !in.Op.Has(ori.FCall) {
				continue
			}
			name, ok := ori.CallTarget(in)
			if !ok || m == nil || !ori.IsSlowPathName(name) {
				return true
			}
			if g := m.Func(name); g == nil || !g.WholeSeen() {
				return true
			}
		}
	}
	return false
}

type urState struct {
	f   *ori.Func
	set map[cmReg]bool
	// The virtual registers of f are numbered densely (index), in the
	// order first met: regs[i] is register i, and its definitions (one
	// entry per result operand naming it) and readers (one entry per
	// instruction) are defs[i] and users[i], in layout order, cut from two
	// arrays.
	num   wordTable[int32]
	regs  []cmReg
	defs  [][]*ori.Inst
	users [][]*ori.Inst
}

// id returns k's number, or -1 when f does not mention k.
func (st *urState) id(k cmReg) int32 {
	if i, ok := st.num.get(wkey{n: k.n, class: k.class}); ok {
		return i
	}
	return -1
}

// defsOf returns the instructions that write k (one entry per result).
func (st *urState) defsOf(k cmReg) []*ori.Inst {
	if i := st.id(k); i >= 0 {
		return st.defs[i]
	}
	return nil
}

// usersOf returns the instructions that read k.
func (st *urState) usersOf(k cmReg) []*ori.Inst {
	if i := st.id(k); i >= 0 {
		return st.users[i]
	}
	return nil
}

// index numbers f's virtual registers and lists their definitions and
// readers: a count, then a fill of arrays cut by the counts (a map of
// growing lists per register was most of this pass's allocation).
func (st *urState) index() {
	f := st.f
	var nDefs, nUses []int32
	number := func(k cmReg) int32 {
		key := wkey{n: k.n, class: k.class}
		if i, ok := st.num.get(key); ok {
			return i
		}
		i := int32(len(st.regs))
		st.num.set(key, i)
		st.regs = append(st.regs, k)
		nDefs, nUses = append(nDefs, 0), append(nUses, 0)
		return i
	}
	// seen holds the registers the current instruction has read so far
	// (an instruction reads a handful: a list, not a map per instruction).
	var seen []int32
	var fill bool
	var in *ori.Inst
	var defs, users [][]*ori.Inst
	noteRead := func(r ori.Reg) {
		if !r.Virtual {
			return
		}
		i := number(cmRegOf(r))
		for _, x := range seen {
			if x == i {
				return
			}
		}
		seen = append(seen, i)
		if fill {
			users[i] = append(users[i], in)
		} else {
			nUses[i]++
		}
	}
	walk := func() {
		for _, b := range f.Blocks {
			for _, in = range b.Insts {
				for _, o := range in.Dsts {
					if o.Kind == ori.OpdReg && o.Reg.Virtual {
						i := number(cmRegOf(o.Reg))
						if fill {
							defs[i] = append(defs[i], in)
						} else {
							nDefs[i]++
						}
					}
				}
				seen = seen[:0]
				cmReads(in, noteRead)
			}
		}
	}
	walk()
	totalDefs, totalUses := 0, 0
	for i := range st.regs {
		totalDefs += int(nDefs[i])
		totalUses += int(nUses[i])
	}
	defArr := make([]*ori.Inst, totalDefs)
	useArr := make([]*ori.Inst, totalUses)
	defs, users = make([][]*ori.Inst, len(st.regs)), make([][]*ori.Inst, len(st.regs))
	atDef, atUse := 0, 0
	for i := range st.regs {
		nd, nu := int(nDefs[i]), int(nUses[i])
		defs[i] = defArr[atDef : atDef : atDef+nd]
		users[i] = useArr[atUse : atUse : atUse+nu]
		atDef, atUse = atDef+nd, atUse+nu
	}
	fill = true
	walk()
	st.defs, st.users = defs, users
}

func convertToUniform(f *ori.Func, m *ori.Module, sites *Sites, arch int, addsOK, reconv bool) (bool, error) {
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	if callsBlockUniform(f, m) {
		return false, nil
	}
	st := &urState{f: f, set: map[cmReg]bool{}}
	st.index()
	// The candidates are first the registers whose every definition has
	// a uniform form, and only then those the uniformity analysis does
	// not find divergent: a function without any of the first kind
	// skips the analysis.
	type cand struct {
		k  cmReg
		wd int
	}
	var cands []cand
	for i, k := range st.regs {
		ds := st.defs[i]
		if len(ds) == 0 || k.class != ori.ClassR && k.class != ori.ClassP {
			continue
		}
		ok, wd := true, 0
		for _, d := range ds {
			ok = ok && convertibleDef(d)
			for _, o := range d.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual && cmRegOf(o.Reg) == k {
					wd = max(wd, int(o.Reg.Off)+int(o.Reg.Words))
				}
			}
		}
		if ok && wd <= 2 {
			cands = append(cands, cand{k, wd})
		}
	}
	if len(cands) == 0 {
		return false, nil
	}
	u := analyzeUniformity(f)
	width := map[cmReg]int{}
	for _, c := range cands {
		if !u.divReg.has(c.k) {
			st.set[c.k] = true
			width[c.k] = c.wd
		}
	}
	if len(st.set) == 0 {
		// No candidate: neither trial would convert anything,
		// dropDiverged would have nothing to drop, and the pressure of
		// the code as it is decides nothing.
		return false, nil
	}
	dropDiverged(f, u, st.set, reconv)
	// Decision: drop candidates in register order. usesOK is not monotone
	// (an instruction may read one uniform source, so dropping one of two
	// candidates it reads makes the other acceptable again), so the set
	// that survives depends on the order; iterating the map made the
	// output differ from run to run.
	order := sortedRegs(st.set)
	shrink := func(costed bool) {
		for changed := true; changed; {
			changed = false
			for _, k := range order {
				if st.set[k] && (!st.defsOK(k) || !st.usesOK(k) || costed && st.addsInstructions(k)) {
					delete(st.set, k)
					changed = true
				}
			}
		}
	}
	// trial converts f in place (urTrial: the instructions it changes are
	// copies, so it can be undone): the budget is checked on the result.
	// Decision: the trial rewrites copies of the instructions that change
	// and keeps the rest, instead of converting a clone of the whole
	// function: the clone (every instruction, operand and block) was most
	// of this pass's cost on the large corpus files, and the result is the
	// same code with the same numbers (registers and IDs come from the
	// same counters, see urTrial).
	//
	// A trial's pressure is TrialPressure's, uncached: the state it
	// checks is most often undone or changed by the next pass before
	// anyone asks again, so hashing it for the cache is wasted, and
	// keeping its answer would evict the one for the unconverted code.
	// A trial that fails answers no pressure: only the first trial's
	// caller reads the pressure of the unconverted code (MaxPressure,
	// asked for there and only when it is read).
	var cur *urTrial
	trial := func() (bool, ori.Pressure) {
		if len(st.set) == 0 {
			return false, ori.Pressure{}
		}
		t := st.rewrite(width)
		p := ori.TrialPressure(f)
		if p.UR > urBudget || p.UP > upBudget {
			t.undo(f)
			return false, ori.Pressure{}
		}
		cur = t
		return true, p
	}
	if len(st.set) == 0 {
		// dropDiverged left no candidate.
		return false, nil
	}
	all := make(map[cmReg]bool, len(st.set))
	for k := range st.set {
		all[k] = true
	}
	shrink(!addsOK)
	ok, p := trial()
	// shrunk says all is already shrink(false)'s set.
	shrunk := false
	if !ok && !addsOK {
		// Without a converted cheap set, only the full conversion can
		// still happen: when no candidate survives it, the pressure of
		// the code as it is decides nothing.
		cheap := st.set
		st.set = all
		shrink(false)
		if len(st.set) == 0 {
			return false, nil
		}
		st.set, shrunk = cheap, true
		p = ori.MaxPressure(f)
	}
	// Decision: the instruction count gives way to occupancy. When more
	// R words are live at once than full occupancy allows, take ptxas's
	// full conversion unless it needs more: every value in the uniform
	// file is one the allocator and the later rematerialization need not
	// place in R. The peak here need not move for the final count to
	// (rodinia needle_cuda_shared_1: 40 words live either way here, 42
	// registers allocated with the cost rule, 32 without, as ptxas). The
	// bar is at most urPressureR on every target: on sm_75, whose full
	// occupancy allows 64, needle would otherwise keep 42.
	if !addsOK && p.R > min(fullOccupancyRegs(arch), urPressureR) {
		cheap, cheapTrial := st.set, cur
		if ok {
			cur.undo(f)
		}
		st.set = all
		if !shrunk {
			shrink(false)
		}
		ok2, p2 := trial()
		if ok2 && p2.R <= p.R {
			ok = true
		} else {
			if ok2 {
				cur.undo(f)
			}
			st.set, cur = cheap, cheapTrial
			if ok {
				cur.redo(f)
			}
		}
	}
	if !ok {
		return false, nil
	}
	n, first := 0, int32(0)
	for _, insts := range cur.old {
		for _, in := range insts {
			if st.member(in) {
				if n == 0 {
					first = in.ID
				}
				n++
			}
		}
	}
	if !sites.Allow(f, first, fmt.Sprintf("move %d uniform registers (%d instructions) to the UR/UP files", len(st.set), n)) {
		cur.undo(f)
		return false, nil
	}
	cur.commit(f)
	return true, nil
}

// convertibleDef reports whether d has a uniform-datapath form.
func convertibleDef(d *ori.Inst) bool {
	if d.Guarded() || d.IsPseudo() {
		return false
	}
	if _, ok := uniformForms[d.Op]; !ok {
		return false
	}
	switch d.Op {
	case ori.OpS2R:
		return len(d.Srcs) == 1 && d.Srcs[0].Kind == ori.OpdSR && uniformSR(d.Srcs[0].Name)
	case ori.OpLDC:
		return len(d.Srcs) == 1 && d.Srcs[0].Kind == ori.OpdCBank && !d.Srcs[0].HasBase
	case ori.OpLEA:
		// ULEA d = a, b, s: the plain form only (no .HI, .X or carry).
		return len(d.Mods) == 0 && len(d.Srcs) == 3 && len(d.Dsts) == 1
	}
	return true
}

// member reports whether in defines a register of the set.
func (st *urState) member(in *ori.Inst) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual && st.set[cmRegOf(o.Reg)] {
			return true
		}
	}
	return false
}

// defsOK checks that every definition of k writes only set members (or
// RZ/PT) and reads only immediates, RZ/PT and set members.
func (st *urState) defsOK(k cmReg) bool {
	for _, d := range st.defsOf(k) {
		for _, o := range d.Dsts {
			if o.Kind != ori.OpdReg {
				return false
			}
			if !o.Reg.IsZero() && !(o.Reg.Virtual && st.set[cmRegOf(o.Reg)]) {
				return false
			}
		}
		for _, o := range d.Srcs {
			switch o.Kind {
			case ori.OpdImm, ori.OpdSR:
			case ori.OpdCBank:
				// Read through a ULDC inserted before the instruction.
				if o.HasBase {
					return false
				}
			case ori.OpdReg:
				if !o.Reg.IsZero() && !(o.Reg.Virtual && st.set[cmRegOf(o.Reg)]) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// usesOK checks every instruction outside the set that reads k.
func (st *urState) usesOK(k cmReg) bool {
	for _, in := range st.usersOf(k) {
		if st.member(in) {
			continue
		}
		if k.class == ori.ClassP {
			// Only as a branch's guard.
			if in.Op != ori.OpBRA || in.Guard.Class != ori.ClassP || !in.Guard.Virtual || cmRegOf(in.Guard) != k {
				return false
			}
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdReg && o.Reg.Virtual && cmRegOf(o.Reg) == k {
					return false
				}
			}
			continue
		}
		fl := in.Op.Flags()
		if fl&(ori.FLoad|ori.FStore|ori.FAtomic|ori.FWarp|ori.FBarrier|ori.FCall|ori.FIndirect|ori.FUniform) != 0 ||
			in.IsPseudo() || in.Op.Has(ori.FSideEffect) {
			return false
		}
		switch in.Op {
		case ori.OpTEX, ori.OpTLD, ori.OpTLD4, ori.OpTXQ:
			// The sm_80 texture forms read coordinates and handles from
			// R registers only (lower/tex.go).
			return false
		case ori.OpFCHK:
			// Every FCHK word reads source A from an R register (the
			// encoder refused FCHK P1, UR0, R9 in bodysystemcuda's
			// bodyBodyInteraction at -O3).
			return false
		}
		if in.Guarded() && in.Guard.Virtual && cmRegOf(in.Guard) == k {
			return false
		}
		special := 0
		for _, o := range in.Srcs {
			switch {
			case o.Kind == ori.OpdImm || o.Kind == ori.OpdCBank:
				special++
			case o.Kind == ori.OpdReg && o.Reg.Virtual && (o.Reg.Class == ori.ClassUR || st.set[cmRegOf(o.Reg)]):
				special++
			case (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase && o.Reg.Virtual && cmRegOf(o.Reg) == k:
				return false
			}
		}
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Virtual && cmRegOf(o.Reg) == k {
				return false
			}
		}
		if special > 1 {
			return false
		}
	}
	return true
}

// addsInstructions reports whether converting k issues more instructions
// than leaving it in R; the conversion itself is one for one.
//
// Decision: the dynamic instruction count decides, not ptxas's habit.
// ptxas moves loop counters and parameter arithmetic to the uniform
// datapath even where that costs a ULDC in the loop and a PLOP3 before
// the branch, for issue slots orilab's simulator does not model; at -O3
// that made surf_forms issue 65 warp-instructions against 57 at -O0, and
// backcopy 154 against 150 (issue 21, TestDynamicCountO3NotAboveO0). The
// knob UregAddsInstructions restores ptxas's choice.
func (st *urState) addsInstructions(k cmReg) bool {
	if k.class == ori.ClassP {
		// Read outside the set only as a BRA guard (usesOK): each such
		// branch gets a PLOP3 copying the UP into a P register.
		for _, in := range st.usersOf(k) {
			if !st.member(in) {
				return true
			}
		}
	}
	for _, d := range st.defsOf(k) {
		if d.Op == ori.OpMOV || d.Op == ori.OpLDC {
			continue // becomes a ULDC or UMOV one for one
		}
		for _, o := range d.Srcs {
			if o.Kind == ori.OpdCBank {
				return true // a ULDC goes before it
			}
		}
	}
	// A value only copied into R registers: each copy becomes a
	// MOV R, UR the allocator cannot coalesce, where the R value's copies
	// would have gone.
	copies := 0
	for _, in := range st.usersOf(k) {
		if st.member(in) {
			if !st.definesOnly(in, k) {
				return false // read by another uniform value
			}
			continue
		}
		if in.Op != ori.OpMOV || in.Guarded() || len(in.Srcs) != 1 || len(in.Dsts) != 1 {
			return false
		}
		copies++
	}
	return copies > 0
}

// definesOnly reports whether in writes k and no other register (a
// definition of k reading k, such as a counter's increment).
func (st *urState) definesOnly(in *ori.Inst, k cmReg) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual && cmRegOf(o.Reg) != k {
			return false
		}
	}
	return true
}

// urTrial is a conversion applied to f in place. The instructions it
// changes are rewritten as copies, so the blocks' instruction lists before
// (old) and after (new) both stay intact and the trial can be undone and
// applied again by swapping lists. The registers and IDs it numbered come
// from a copy of f's counters; commit takes the same numbers from f's own.
type urTrial struct {
	blocks   []*ori.Block
	old, new [][]*ori.Inst
	regs     []ori.Reg // numbered, in order
	ids      int32     // instruction IDs numbered (ULDCs)
}

func (t *urTrial) undo(f *ori.Func) {
	for i, b := range t.blocks {
		b.Insts = t.old[i]
	}
}

func (t *urTrial) redo(f *ori.Func) {
	for i, b := range t.blocks {
		b.Insts = t.new[i]
	}
}

// commit keeps the applied trial: f's counters hand out the numbers the
// trial used, in the same order.
func (t *urTrial) commit(f *ori.Func) {
	for _, r := range t.regs {
		if n := f.NewVReg(r.Class, int(r.Words)); n != r {
			panic(fmt.Sprintf("opt: uniform conversion of %s numbered %v, the function's counter %v", f.Name, r, n))
		}
	}
	for range t.ids {
		f.NewID()
	}
}

// touches reports whether rewrite changes in: it defines a set member, or
// names one as its guard or an operand's register.
func (st *urState) touches(in *ori.Inst) bool {
	if st.member(in) {
		return true
	}
	if in.Guard.Virtual && st.set[cmRegOf(in.Guard)] {
		return true
	}
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Virtual && st.set[cmRegOf(o.Reg)] {
			return true
		}
	}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdReg && o.Reg.Virtual && st.set[cmRegOf(o.Reg)] {
			return true
		}
	}
	return false
}

// rewrite converts the set to the uniform files in st.f, in place, and
// returns the trial to undo or keep. Only rewrite's copies of the
// instructions it changes are edited; the originals stay in t.old.
func (st *urState) rewrite(width map[cmReg]int) *urTrial {
	f := st.f
	t := &urTrial{}
	// ctr numbers the new registers and IDs as f would (a copy of f's
	// header, whose counters advance while f's stay put until commit).
	ctr := *f
	newVReg := func(c ori.RegClass, words int) ori.Reg {
		r := ctr.NewVReg(c, words)
		t.regs = append(t.regs, r)
		return r
	}
	newReg := map[cmReg]ori.Reg{}
	// In register order, so the new registers' numbers do not depend on
	// map order.
	for _, k := range sortedRegs(st.set) {
		if k.class == ori.ClassP {
			newReg[k] = newVReg(ori.ClassUP, 1)
		} else {
			newReg[k] = newVReg(ori.ClassUR, width[k])
		}
	}
	fix := func(r ori.Reg) ori.Reg {
		if !r.Virtual {
			return r
		}
		if n, ok := newReg[cmRegOf(r)]; ok {
			r.Class, r.N = n.Class, n.N
		}
		return r
	}
	// The copies are cut from two arrays sized for them.
	nInsts, nOps := 0, 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if st.touches(in) {
				nInsts++
				nOps += len(in.Dsts) + len(in.Srcs)
			}
		}
	}
	insts := make([]ori.Inst, nInsts)
	ops := make([]ori.Operand, 0, nOps)
	take := func(s []ori.Operand) []ori.Operand {
		if len(s) == 0 {
			return nil
		}
		at := len(ops)
		ops = append(ops, s...)
		return ops[at:len(ops):len(ops)]
	}
	for _, b := range f.Blocks {
		var out []*ori.Inst
		for ii, orig := range b.Insts {
			if !st.touches(orig) {
				if out != nil {
					out = append(out, orig)
				}
				continue
			}
			if out == nil {
				out = make([]*ori.Inst, ii, len(b.Insts)+4)
				copy(out, b.Insts[:ii])
			}
			conv := st.member(orig)
			in := &insts[0]
			insts = insts[1:]
			*in = *orig
			in.Dsts, in.Srcs = take(orig.Dsts), take(orig.Srcs)
			if conv && in.Op != ori.OpMOV && in.Op != ori.OpLDC {
				// Uniform ALU instructions read no constant bank: load
				// each one into a UR first, as ptxas does with ULDC.
				for i, o := range in.Srcs {
					if o.Kind != ori.OpdCBank {
						continue
					}
					tr := newVReg(ori.ClassUR, 1)
					ld := ori.NewInst(ori.OpULDC)
					t.ids++
					ld.ID = ctr.NewID()
					ld.Dsts = []ori.Operand{ori.R(tr)}
					ld.Srcs = []ori.Operand{o}
					ld.Line = in.Line
					out = append(out, ld)
					in.Srcs[i] = ori.R(tr)
					in.Srcs[i].Neg, in.Srcs[i].Abs, in.Srcs[i].Not = o.Neg, o.Abs, o.Not
				}
			}
			out = append(out, in)
			in.Guard = fix(in.Guard)
			for i, o := range in.Dsts {
				if o.Kind == ori.OpdReg {
					in.Dsts[i].Reg = fix(o.Reg)
					if conv && o.Reg.IsZero() {
						in.Dsts[i].Reg = uniformZero(o.Reg)
					}
				}
			}
			for i, o := range in.Srcs {
				if o.Kind == ori.OpdReg {
					in.Srcs[i].Reg = fix(o.Reg)
					if conv && o.Reg.IsZero() {
						in.Srcs[i].Reg = uniformZero(o.Reg)
					}
				}
			}
			if conv {
				in.Op = uniformForms[in.Op]
				if in.Op == ori.OpUMOV && in.Srcs[0].Kind == ori.OpdCBank {
					in.Op = ori.OpULDC // a constant-bank read is a ULDC
				}
			}
		}
		if out != nil {
			t.blocks = append(t.blocks, b)
			t.old = append(t.old, b.Insts)
			t.new = append(t.new, out)
			b.Insts = out
		}
	}
	return t
}

// sortedRegs returns the registers of set by class, then number.
func sortedRegs(set map[cmReg]bool) []cmReg {
	keys := make([]cmReg, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].class != keys[j].class {
			return keys[i].class < keys[j].class
		}
		return keys[i].n < keys[j].n
	})
	return keys
}

// uniformZero maps RZ to URZ and PT to UPT.
func uniformZero(r ori.Reg) ori.Reg {
	if r.Class.IsPred() {
		return ori.UPT
	}
	return ori.URZ
}
