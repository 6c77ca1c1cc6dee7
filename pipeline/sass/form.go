package sass

// The machine description of the encoder: one form per opcode variant,
// each a list of operand slots and modifier groups with their bit fields.
// The same description drives the encoder (encode.go) and the decoder
// (decode.go), so a field can only be wrong in both directions at once,
// and the nvdisasm test catches it.

import "orilab/pipeline/ori"

// slotKind says what an operand slot holds and how it is stored.
type slotKind uint8

const (
	sR        slotKind = iota // GPR, 8 bits at pos
	sUR                       // uniform GPR, 8 bits at pos
	sP                        // predicate, 3 bits at pos, negation at not
	sUP                       // uniform predicate, as sP
	sA                        // ALU source A: GPR at 24, neg 72, abs 73
	sB                        // ALU source B: GPR at 32 or the variable field (form 1, 4, 5, 6)
	sC                        // ALU source C: GPR at 64 or the variable field (form 2, 3, 7)
	sBC                       // ALU source that sits in B when it is a GPR, in C otherwise (FADD, DSETP)
	sImm                      // immediate of n bits at pos
	sMem                      // [R+off]: GPR at 24, signed offset of n bits at pos (24 at 40 when pos is 0)
	sCB                       // c[bank][R+off] of LDC: GPR at 24, offset at 38 (16 bits), bank at 54
	sUCB                      // c[bank][off] of ULDC: offset at 38, bank at 54
	sSR                       // special register, 8 bits at pos
	sTarget                   // branch target: signed byte offset from the next instruction, n bits at pos
	sBar                      // convergence barrier B0-B15, 4 bits at pos (an immediate in Ori)
	sSym                      // call target: a symbol, relocated (the field holds 0 until linked)
	sTarget90                 // sm_90 branch target: the offset in 4-byte units, bits 0-7 at 16, the rest at 34-81
	sAllLanes                 // an immediate that must be all ones (-1); the field (32-63) holds 0, as ptxas writes it (sm_90 WARPSYNC.ALL)
	sLUT2                     // PLOP3's first truth table: bits 0-2 at 64, bits 3-7 at 72
)

// Operand modifiers a slot accepts.
const (
	mNeg  = 1 << iota // -R
	mAbs              // |R|
	mNot              // ~R (R slots) or !P (predicate slots)
	mNoRZ             // sB/sC: never a GPR (the form needs the variable field)
)

// memOffset returns the position and width of an sMem slot's offset:
// 24 bits at 40 in most forms; sm_75's generic LD and ST hold 32 bits at
// 32.
func (s slot) memOffset() (pos, n int) {
	if s.pos == 0 {
		return 40, 24
	}
	return s.pos, s.n
}

// slot is one operand position of a form.
type slot struct {
	k   slotKind
	pos int
	n   int // sImm, sTarget: width in bits
	not int // sP, sUP: negation bit
	// ubit: an sP slot that also takes a uniform predicate, which sets
	// this bit (PLOP3's source C, bit 67: measured with nvdisasm -b
	// SM75/SM80/SM90 on ptxas's PLOP3 word with the bit set, which
	// prints P2 as UP2).
	ubit int
	mod  int // accepted modifiers (mNeg...)
	// opt: a trailing optional operand; absent means dflt (PT, !PT, RZ).
	// The decoder drops it again when the field holds dflt.
	opt bool
	// dfltNot: the absent predicate is !PT (carry-ins), not PT.
	dfltNot bool
	// keepIf: with this modifier the form prints the operand even when it
	// holds its default (IADD3.X prints its carry-ins).
	keepIf string
	// words is the register width the decoder gives the operand (1 if 0).
	words int
	// fk and signed say how an immediate decodes: float kind, and
	// whether the field sign-extends.
	fk     ori.FloatKind
	signed bool
	// f64hi: an f64 immediate stored as its upper 32 bits (DADD).
	f64hi bool
	// basePos: an sMem slot's base register field when it is not at 24
	// (LDGSTS's shared address, at 16).
	basePos int
	// narrow: an sMem slot whose base is a 32-bit register even under .E,
	// with no memory descriptor (LDGSTS's shared address).
	narrow bool
}

// memBase returns the position of an sMem slot's base register field.
func (s slot) memBase() int {
	if s.basePos == 0 {
		return 24
	}
	return s.basePos
}

// group is a modifier group: a bit field whose values print as names.
// A value named "" prints nothing and is the default when no modifier of
// the group is given; a group without one needs a modifier.
//
// A name may span several Ori modifiers ("STRONG.GPU"). A second range
// (pos2, n2) supplies the value's bits above n. implicit: when no
// modifier of the group is given, the value is 0 even though 0 has a
// name (orilab prints F2F.F32.F64.RN, other code leaves RN out).
type group struct {
	pos, n   int
	pos2, n2 int
	names    modNames
	implicit bool
}

// modNames is a group's table of values and their names, in the order
// written. A slice of pairs rather than a map, so that the form tables
// are static data the linker lays out instead of code every orilab
// process ran at initialization (a map literal is always built at run
// time); a group has at most 16 names, so a search is as fast.
type modNames []modName

type modName struct {
	v    uint64
	name string
}

// lookup returns the name of value v.
func (ns modNames) lookup(v uint64) (string, bool) {
	for _, n := range ns {
		if n.v == v {
			return n.name, true
		}
	}
	return "", false
}

// fix is a constant field of a form.
type fix struct {
	pos, n int
	v      uint64
}

// form is one encoding of an opcode variant.
type form struct {
	op ori.Opcode
	// key: modifiers that select this form, the instruction's first ones
	// (IMAD.WIDE); they are not groups.
	key []string
	// opc is bits 0-11; for ALU forms (alu) only bits 0-8, the form
	// number in bits 9-11 following from the operands.
	opc  uint16
	alu  bool
	uni  bool // uniform datapath ALU: bit 91 set, UR operands, forms 1, 2, 4
	dsts []slot
	srcs []slot
	mods []group
	// fix: constant fields that also identify the form when decoding;
	// tmpl: constant fields the decoder does not check (ptxas's values
	// for fields orilab does not model).
	fix  []fix
	tmpl []fix
	// arch is the lowest SM the form exists on; archMax the highest (0:
	// no limit).
	arch, archMax int
	// noCVar: the ALU has no form with an immediate, constant or
	// uniform register in C (IADD3, LOP3: nvdisasm rejects forms 2, 3, 7).
	noCVar bool
	// pre rewrites an instruction into the form's terms before encoding
	// (IMAD.SHL's shift count becomes IMAD's multiplier), or refuses it.
	pre func(in *ori.Inst, arch int) (*ori.Inst, error)
	// encodeOnly: the decoder never yields this form (IMAD.SHL decodes
	// as the IMAD it is).
	encodeOnly bool
	// notX: the ALU neg bits print as ~ (bitwise not) when the
	// instruction has this modifier (IADD3.X, LEA.X).
	notX string
	// bReuseC: source B's register takes C's reuse flag (HSETP2; FADD
	// and DSETP, whose B is C, get it from sBC).
	bReuseC bool
	// toBase: the word's branch field (BRA's layout on each target)
	// holds the offset from the next instruction back to address 0 of
	// the code, the start of the kernel once the cubin is linked
	// (RET.REL.NODEC, CALL.REL.NOINC Rx: their register holds an offset
	// from there). The Ori instruction has no operand for it.
	toBase bool
}

// ALU form numbers (bits 9-11): where source B or C comes from.
const (
	formRR   = 1 // B and C GPRs
	formCImm = 2 // C immediate, B at 64
	formCCB  = 3 // C constant bank, B at 64
	formBImm = 4 // B immediate
	formBCB  = 5 // B constant bank
	formBUR  = 6 // B uniform register
	formCUR  = 7 // C uniform register, B at 64
)

// names builds a modifier table from alternating values and names (the
// tables write modNames literals, which stay static data).
func names(kv ...any) modNames {
	var m modNames
	for i := 0; i < len(kv); i += 2 {
		m = append(m, modName{uint64(kv[i].(int)), kv[i+1].(string)})
	}
	return m
}

// descPos is the bit position of the form's memory-descriptor field (a
// uniform register, 6 bits), 0 when it has none. Global and generic
// accesses on sm_80 and later have one at 32 (loads) or 64 (stores,
// atomics); the form table writes URZ there (tmpl) for words without a
// descriptor, which is how the forms mark it.
func (fm *form) descPos() int {
	switch fm.op {
	case ori.OpLDG, ori.OpLD, ori.OpSTG, ori.OpST, ori.OpATOMG, ori.OpATOM, ori.OpRED, ori.OpLDGSTS:
	default:
		return 0
	}
	for _, f := range fm.tmpl {
		if f.n == 6 && f.v == 63 && (f.pos == 32 || f.pos == 64) {
			return f.pos
		}
	}
	return 0
}

// TakesDesc reports whether in, encoded for SM arch, is a global or
// generic access whose word names a memory descriptor (desc[URx]): every
// form that could hold it has the field.
func TakesDesc(in *ori.Inst, arch int) bool {
	var buf [8]*form
	cands := candidates(buf[:0], in, arch)
	for _, fm := range cands {
		if fm.descPos() == 0 {
			return false
		}
	}
	return len(cands) > 0
}
