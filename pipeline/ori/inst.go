package ori

import "strings"

// Inst is one Ori instruction.
type Inst struct {
	// ID identifies the instruction for its whole life in the pipeline:
	// phases that rewrite an instruction in place keep it, new instructions
	// take Func.NewID(). IDs are unique within a function and never reused.
	ID int32
	Op Opcode
	// Mods are the opcode's modifiers in order, without dots: IMAD.WIDE.U32
	// has ["WIDE", "U32"]. The MovPhi pseudo-instruction is MOV with a
	// leading "PHI" modifier, as in ptxas where MovPhi is MOV plus a flag.
	Mods []string
	// Guard is the predicate the instruction executes under; an unguarded
	// instruction has Guard == PT (the zero value is not a valid guard, so
	// use NewInst or set it explicitly).
	Guard    Reg
	GuardNot bool
	Dsts     []Operand // results, in SASS order
	Srcs     []Operand // sources, in SASS order
	Ctrl     Ctrl      // control word; meaningful only once Ctrl.Set
	Line     int32     // PTX source line the instruction came from, 0 if none
	// Role says why the register allocator created the instruction
	// (spill, refill, rematerialization). The post-RA verifier and the
	// fault injector find their candidates by it, so it is part of the
	// text form (printed after the line: "; line 7 spill").
	Role Role
	// Origin is, for RoleRemat, the ID of the pre-allocation instruction
	// whose value this one recomputes.
	Origin int32
}

// Role classifies instructions the back end inserted.
type Role uint8

const (
	RoleNone   Role = iota
	RoleSpill       // STL of a register value to its spill slot
	RoleRefill      // LDL of a spilled value back into a register
	RoleRemat       // recomputation of a value instead of a refill (Origin says which)
	RoleCopy        // a register-to-register move the allocator inserted (live-range split)
)

var roleNames = [...]string{RoleSpill: "spill", RoleRefill: "refill", RoleRemat: "remat", RoleCopy: "copy"}

func (r Role) String() string {
	if int(r) < len(roleNames) && roleNames[r] != "" {
		return roleNames[r]
	}
	return ""
}

// Ctrl is the per-instruction control information of Volta-and-later SASS:
// the stall count, the yield hint, the dependency (scoreboard) barrier the
// instruction sets on write and on read, and the barriers it waits for.
// Operand reuse flags live on the operands (Operand.Reuse).
type Ctrl struct {
	Set   bool  // the scheduler has filled the fields; print and check them
	Stall uint8 // cycles to stall after issue, 0-15
	Yield bool  // allow the warp scheduler to switch warps after this instruction
	WrBar int8  // scoreboard barrier (0-5) released when the results are written, -1 for none
	RdBar int8  // scoreboard barrier (0-5) released when the sources have been read, -1 for none
	Wait  uint8 // bit i set: wait for barrier i before issuing
}

// NoCtrl is a cleared control word: no barriers, no wait, no stall.
var NoCtrl = Ctrl{WrBar: -1, RdBar: -1}

// NewInst returns an unguarded instruction with a cleared control word.
// The caller assigns the ID (usually Func.NewID).
func NewInst(op Opcode, mods ...string) *Inst {
	return &Inst{Op: op, Mods: mods, Guard: PT, Ctrl: NoCtrl}
}

// Name returns the full mnemonic with modifiers: "IMAD.WIDE.U32".
func (in *Inst) Name() string {
	if len(in.Mods) == 0 {
		return in.Op.String()
	}
	return in.Op.String() + "." + strings.Join(in.Mods, ".")
}

// HasMod reports whether the instruction carries modifier m (no dot).
func (in *Inst) HasMod(m string) bool {
	for _, x := range in.Mods {
		if x == m {
			return true
		}
	}
	return false
}

// IsPhi reports whether in is a MovPhi: MOV.PHI dst = src0, BB0, src1, BB1...
func (in *Inst) IsPhi() bool { return in.Op == OpMOV && len(in.Mods) > 0 && in.Mods[0] == "PHI" }

// IsPseudo reports whether in must be expanded before SASS emission.
func (in *Inst) IsPseudo() bool { return in.Op.Has(FPseudo) || in.IsPhi() }

// Guarded reports whether the instruction has a real guard (not PT).
func (in *Inst) Guarded() bool { return !(in.Guard == PT && !in.GuardNot) }

// EndsBlock reports whether in transfers control: a branch, an indirect
// branch, EXIT or RET. Calls return and do not end their block.
func (in *Inst) EndsBlock() bool {
	return in.Op.Flags()&(FBranch|FIndirect|FExit|FRet) != 0
}

// Clone returns a deep copy of in with the same ID.
func (in *Inst) Clone() *Inst {
	a := cloneArena{ops: make([]Operand, 0, len(in.Dsts)+len(in.Srcs))}
	c := new(Inst)
	in.cloneInto(c, &a)
	return c
}

// cloneInto makes c a deep copy of in, its operand and modifier slices cut
// from a's backing arrays.
func (in *Inst) cloneInto(c *Inst, a *cloneArena) {
	*c = *in
	c.Mods = a.mods.take(in.Mods)
	c.Dsts = a.ops.take(in.Dsts)
	c.Srcs = a.ops.take(in.Srcs)
}

// cloneArena holds the backing arrays a clone's instructions share, so
// that copying a function costs a few allocations rather than four per
// instruction (snapshots copy the module at every changed phase).
type cloneArena struct {
	ops  arenaSlice[Operand]
	mods arenaSlice[string]
}

type arenaSlice[T any] []T

// take copies s to the end of the arena and returns the copy, nil for an
// empty s as append([]T(nil), s...) would. The copy's capacity is its
// length, so an append to it reallocates rather than writing over the
// next instruction's operands.
func (a *arenaSlice[T]) take(s []T) []T {
	if len(s) == 0 {
		return nil
	}
	n := len(*a)
	*a = append(*a, s...)
	return (*a)[n:len(*a):len(*a)]
}
