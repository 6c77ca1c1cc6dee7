package sass

// The encoder: allocated, scheduled Ori to 128-bit words, driven by the
// forms of forms.go. It refuses every operand form its target cannot hold
// with an error naming the instruction; it never drops a bit silently.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"orilab/pipeline/ori"
)

// Reloc is a place in a function's code that the linker (or the cubin
// writer) must fill once it knows where the function sits in its
// kernel's code.
type Reloc struct {
	Offset int       // byte offset of the instruction in the function
	Kind   RelocKind // what to fill
	Sym    string    // RelocCall: the called function
}

// RelocKind says what a Reloc fills.
type RelocKind uint8

const (
	// RelocCall: CALL.REL.NOINC's branch field, the offset to the callee.
	RelocCall RelocKind = iota
	// RelocBase: a branch field that points at address 0 of the
	// function's code (toBase forms: RET.REL.NODEC), which must point at
	// the kernel's start instead.
	RelocBase
	// RelocRetAddr: the 32-bit immediate of a MOV that loads a return
	// point (ori.RetAddrSym), an offset from the function's start that
	// must become one from the kernel's start.
	RelocRetAddr
	// RelocFuncAddr: the 32-bit immediate of a MOV that loads a function
	// pointer (ori.FuncAddrOf), which must become Sym's offset from the
	// kernel's start; the encoder leaves 0 there.
	RelocFuncAddr
)

// Code is the encoding of one function.
type Code struct {
	Words  []Word
	Relocs []Reloc
	// JumpTables are the function's indirect branches with their jump
	// tables, in code order.
	JumpTables []JumpTable
}

// JumpTable is one indirect branch (BRX) and its jump table: literal-pool
// entries (ori.Func.Literals) that the cubin writer fills with its
// targets' offsets, 4 bytes each from byte Base of bank 2, and lists in
// EIATTR_INDIRECT_BRANCH_TARGETS.
type JumpTable struct {
	// At is the BRX's offset in the function.
	At int
	// Base is the table's byte offset in bank 2.
	Base int
	// Targets are the offsets of the targets in the function.
	Targets []int
}

// jumpTable returns in's jump table, when in is a BRX that reads one.
func jumpTable(in *ori.Inst, pc int, addr map[int32]int) (JumpTable, bool) {
	if in.Op != ori.OpBRX || len(in.Srcs) < 2 || in.Srcs[1].Kind != ori.OpdCBank {
		return JumpTable{}, false
	}
	jt := JumpTable{At: pc, Base: int(in.Srcs[1].Imm)}
	for _, o := range in.Srcs[2:] {
		if o.Kind == ori.OpdBlock {
			jt.Targets = append(jt.Targets, addr[o.Block])
		}
	}
	return jt, true
}

// Bytes returns the function's instruction memory.
func (c *Code) Bytes() []byte {
	b := make([]byte, 0, 16*len(c.Words))
	for _, w := range c.Words {
		b = append(b, w.Bytes()...)
	}
	return b
}

// EncodeFunc encodes the allocated function f for SM arch: one word per
// instruction, in block order from address 0, as Text lays it out.
func EncodeFunc(f *ori.Func, arch int) (*Code, error) {
	if err := checkArch(arch); err != nil {
		return nil, err
	}
	addr := map[int32]int{}
	pc := 0
	for _, b := range f.Blocks {
		addr[b.ID] = pc
		pc += 16 * len(b.Insts)
	}
	c := &Code{}
	pc = 0
	rp := ori.ReturnPoints(f, 0)
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			e := &encoder{arch: arch, pc: pc, addr: addr}
			x, isRet := ResolveReturnPoint(in, rp)
			fn := funcAddrSym(x)
			if fn != "" {
				x = withImm(x, 0)
			}
			w, err := e.inst(x)
			if err != nil {
				return nil, fmt.Errorf("sass: %s BB%d #%d %s: %v", f.Name, b.ID, in.ID, in.Name(), err)
			}
			switch {
			case e.reloc != "":
				c.Relocs = append(c.Relocs, Reloc{Offset: pc, Kind: RelocCall, Sym: e.reloc})
			case e.toBase:
				c.Relocs = append(c.Relocs, Reloc{Offset: pc, Kind: RelocBase})
			case isRet:
				c.Relocs = append(c.Relocs, Reloc{Offset: pc, Kind: RelocRetAddr})
			case fn != "":
				c.Relocs = append(c.Relocs, Reloc{Offset: pc, Kind: RelocFuncAddr, Sym: fn})
			}
			if jt, ok := jumpTable(in, pc, addr); ok {
				c.JumpTables = append(c.JumpTables, jt)
			}
			c.Words = append(c.Words, w)
			pc += 16
		}
	}
	return c, nil
}

// ResolveReturnPoint returns in with a return-point source
// (ori.RetAddrSym) replaced by the immediate address rp gives it
// (ori.ReturnPoints), and whether it did; other instructions come back
// unchanged.
func ResolveReturnPoint(in *ori.Inst, rp map[*ori.Inst]int) (*ori.Inst, bool) {
	a, ok := rp[in]
	if !ok {
		return in, false
	}
	x := *in
	x.Srcs = []ori.Operand{ori.Imm(int64(a))}
	return &x, true
}

// funcAddrSym returns the function whose address in loads (a MOV of
// ori.FuncAddrOf), or "".
func funcAddrSym(in *ori.Inst) string {
	if in.Op == ori.OpMOV && len(in.Srcs) == 1 && in.Srcs[0].IsFuncAddr() {
		return in.Srcs[0].Name
	}
	return ""
}

// withImm returns a copy of the one-source instruction in with the
// immediate v as its source.
func withImm(in *ori.Inst, v int64) *ori.Inst {
	x := *in
	x.Srcs = []ori.Operand{ori.Imm(v)}
	return &x
}

// ResolveFuncAddr returns in with a function-address source
// (ori.FuncAddrOf) replaced by the function's offset from the kernel's
// start in starts, and whether it did; other instructions, and
// functions starts does not place, come back unchanged.
func ResolveFuncAddr(in *ori.Inst, starts map[string]int) (*ori.Inst, bool) {
	a, ok := starts[funcAddrSym(in)]
	if !ok || funcAddrSym(in) == "" {
		return in, false
	}
	return withImm(in, int64(a)), true
}

// Encode encodes one instruction at byte address pc; addr maps block IDs
// to addresses for branch targets (nil when in has none). A return-point
// MOV must be resolved first (ResolveReturnPoint).
func Encode(in *ori.Inst, arch, pc int, addr map[int32]int) (Word, error) {
	if err := checkArch(arch); err != nil {
		return Word{}, err
	}
	e := &encoder{arch: arch, pc: pc, addr: addr}
	w, err := e.inst(in)
	if err != nil {
		return Word{}, fmt.Errorf("sass: %s: %v", in.Name(), err)
	}
	return w, nil
}

// Archs are the targets the encoder knows.
var Archs = []int{75, 80, 86, 89, 90}

func checkArch(arch int) error {
	for _, a := range Archs {
		if a == arch {
			return nil
		}
	}
	return fmt.Errorf("sass: no encoding tables for sm_%d (orilab encodes sm_75, sm_80, sm_86, sm_89 and sm_90)", arch)
}

type encoder struct {
	wide  bool // the instruction addresses memory with 64 bits (.E)
	desc  int  // the form's memory-descriptor field (descPos), 0 for none
	arch  int
	pc    int
	addr  map[int32]int
	w     Word
	reuse uint64
	reloc string
	// toBase: the word's branch field points at address 0 (form.toBase).
	toBase bool
}

func (e *encoder) inst(in *ori.Inst) (Word, error) {
	if in.IsPseudo() {
		return Word{}, fmt.Errorf("a pseudo instruction has no encoding; it must be expanded first")
	}
	var buf [8]*form
	cands := candidates(buf[:0], in, e.arch)
	if len(cands) == 0 {
		if len(forms().of[in.Op]) == 0 {
			return Word{}, fmt.Errorf("orilab has no encoding for %s", in.Op)
		}
		return Word{}, fmt.Errorf("no encoding of this modifier form for sm_%d", e.arch)
	}
	var first error
	for _, fm := range cands {
		w, err := e.form(in, fm, in.Mods[len(fm.key):])
		if err == nil {
			return w, nil
		}
		if first == nil {
			first = err
		}
	}
	return Word{}, first
}

// form encodes in with one candidate form.
func (e *encoder) form(in *ori.Inst, fm *form, mods []string) (Word, error) {
	e.w, e.reuse, e.reloc, e.toBase = Word{}, 0, "", fm.toBase
	if fm.pre != nil {
		var err error
		n := len(in.Mods)
		if in, err = fm.pre(in, e.arch); err != nil {
			return Word{}, err
		}
		// pre may consume key modifiers (IMAD.SHL becomes IMAD).
		mods = in.Mods[len(in.Mods)-(n-len(fm.key)):]
	}
	e.w.SetField(0, 12, uint64(fm.opc))
	for _, f := range fm.tmpl {
		e.w.SetField(f.pos, f.n, f.v)
	}
	for _, f := range fm.fix {
		e.w.SetField(f.pos, f.n, f.v)
	}
	if fm.uni {
		e.w.SetBit(91, true)
	}
	if err := e.mods(fm, mods); err != nil {
		return Word{}, err
	}
	notX := fm.notX != "" && in.HasMod(fm.notX)
	e.wide = in.HasMod("E")
	e.desc = fm.descPos()
	if len(in.Dsts) > len(fm.dsts) {
		return Word{}, fmt.Errorf("%d results; the encoding has %d", len(in.Dsts), len(fm.dsts))
	}
	if len(in.Srcs) > len(fm.srcs) {
		return Word{}, fmt.Errorf("%d sources; the encoding has %d", len(in.Srcs), len(fm.srcs))
	}
	for i, s := range fm.dsts {
		o, err := operandAt(in.Dsts, i, s, "result")
		if err != nil {
			return Word{}, err
		}
		if err := e.operand(s, o, notX); err != nil {
			return Word{}, fmt.Errorf("result %d: %v", i, err)
		}
	}
	var alu [3]*ori.Operand // A, B, C
	// ops holds the A, B and C operands alu points at: pointing at the
	// loop's own variable would move it to the heap every iteration.
	var ops [3]ori.Operand
	var aluMod [3]int
	// bIsC: the register in B is the operation's C (FADD, DSETP: their
	// reuse flag is C's; measured, nvdisasm rejects B's).
	bIsC := false
	for i, s := range fm.srcs {
		o, err := operandAt(in.Srcs, i, s, "source")
		if err != nil {
			return Word{}, err
		}
		switch s.k {
		case sA:
			ops[0] = o
			alu[0], aluMod[0] = &ops[0], s.mod
		case sB:
			ops[1] = o
			alu[1], aluMod[1] = &ops[1], s.mod
		case sC:
			ops[2] = o
			alu[2], aluMod[2] = &ops[2], s.mod
		case sBC:
			if o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassR {
				ops[1] = o
				alu[1], aluMod[1] = &ops[1], s.mod
				bIsC = true
			} else {
				ops[2] = o
				alu[2], aluMod[2] = &ops[2], s.mod
			}
		default:
			if err := e.operand(s, o, notX); err != nil {
				return Word{}, fmt.Errorf("source %d (%s): %v", i, o, err)
			}
		}
	}
	if fm.alu {
		if err := e.aluSrcs(fm, alu, aluMod, notX, bIsC); err != nil {
			return Word{}, err
		}
	}
	if fm.toBase {
		setBranchField(&e.w, e.arch, -(e.pc + 16))
	}
	if err := e.guard(in, fm.uni); err != nil {
		return Word{}, err
	}
	if err := encodeCtrl(&e.w, in.Ctrl); err != nil {
		return Word{}, err
	}
	e.w.SetField(bitReuse, 4, e.reuse)
	return e.w, nil
}

// operandAt returns operand i of ops, or the slot's default when it is
// an absent optional operand.
func operandAt(ops []ori.Operand, i int, s slot, what string) (ori.Operand, error) {
	if i < len(ops) {
		return ops[i], nil
	}
	if !s.opt {
		return ori.Operand{}, fmt.Errorf("missing %s %d", what, i)
	}
	return defaultOperand(s), nil
}

// defaultOperand is what an absent optional operand encodes as.
func defaultOperand(s slot) ori.Operand {
	switch s.k {
	case sP:
		o := ori.R(ori.PT)
		o.Not = s.dfltNot
		return o
	case sUP:
		o := ori.R(ori.UPT)
		o.Not = s.dfltNot
		return o
	case sUR:
		return ori.R(ori.URZ)
	case sImm:
		return ori.Imm(0)
	}
	return ori.R(ori.RZ)
}

// candidates appends to out (an empty buffer the caller owns, so that
// encoding an instruction allocates no list) the forms of in's opcode for
// arch whose key the instruction's modifiers start with, longest key
// first.
func candidates(out []*form, in *ori.Inst, arch int) []*form {
	for _, fm := range forms().of[in.Op] {
		if fm.arch > arch || (fm.archMax != 0 && arch > fm.archMax) {
			continue
		}
		if len(fm.key) > len(in.Mods) {
			continue
		}
		ok := true
		for i, k := range fm.key {
			if in.Mods[i] != k {
				ok = false
			}
		}
		if ok && fm.accepts(in) {
			out = append(out, fm)
		}
	}
	// Longest key first, in table order among equals (a stable sort; the
	// generic one, without sort.SliceStable's reflection, as the encoder
	// asks for every instruction).
	if len(out) > 1 {
		slices.SortStableFunc(out, func(a, b *form) int { return len(b.key) - len(a.key) })
	}
	return out
}

// accepts reports whether the operand kinds of in fit fm's fixed (non-ALU)
// slots; forms that differ only in operand kinds (SHFL's immediates) are
// told apart here.
func (fm *form) accepts(in *ori.Inst) bool {
	for i, s := range fm.srcs {
		if i >= len(in.Srcs) {
			break
		}
		o := in.Srcs[i]
		switch s.k {
		case sImm:
			if o.Kind != ori.OpdImm {
				return false
			}
		case sR:
			if o.Kind != ori.OpdReg {
				return false
			}
		}
	}
	return true
}

func (e *encoder) mods(fm *form, mods []string) error {
	gi := 0
	// set marks the groups a modifier gave a value (forms have far fewer
	// than 64 groups; larger tables fall back to a slice).
	var set uint64
	var setBig []bool
	if len(fm.mods) > 64 {
		setBig = make([]bool, len(fm.mods))
	}
	for i := 0; i < len(mods); {
		found := false
		for ; gi < len(fm.mods); gi++ {
			if v, k := match(fm.mods[gi], mods[i:]); k > 0 {
				setGroup(&e.w, fm.mods[gi], v)
				if setBig != nil {
					setBig[gi] = true
				} else {
					set |= 1 << gi
				}
				gi++
				i += k
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("modifier .%s has no encoding here for sm_%d (or is out of order)", mods[i], e.arch)
		}
	}
	for i, g := range fm.mods {
		if setBig != nil && setBig[i] || setBig == nil && set&(1<<i) != 0 {
			continue
		}
		v, ok := valueOf(g, "")
		if !ok {
			if !g.implicit {
				return fmt.Errorf("a modifier of bits %d-%d is required", g.pos, g.pos+g.n-1)
			}
			v = 0
		}
		setGroup(&e.w, g, v)
	}
	return nil
}

// match finds the longest name of g that the modifiers start with; it
// returns the value and how many modifiers the name spans (0: none).
func match(g group, mods []string) (uint64, int) {
	var bv uint64
	bk := 0
	for _, vn := range g.names {
		v, n := vn.v, vn.name
		if n == "" {
			continue
		}
		// The name's modifiers are compared in place: splitting it
		// allocated for every group of every instruction encoded.
		k := strings.Count(n, ".") + 1
		if k > len(mods) || k <= bk {
			continue
		}
		if nameMatches(n, mods) {
			bv, bk = v, k
		}
	}
	return bv, bk
}

// nameMatches reports whether mods start with the modifiers of the
// dotted name n ("STRONG.GPU" spans two); mods must be at least as long.
func nameMatches(n string, mods []string) bool {
	for i := 0; ; i++ {
		part, rest, more := strings.Cut(n, ".")
		if mods[i] != part {
			return false
		}
		if !more {
			return true
		}
		n = rest
	}
}

// appendModParts appends the modifiers of the dotted name n to mods, as
// append(mods, strings.Split(n, ".")...) without the intermediate slice.
func appendModParts(mods []string, n string) []string {
	for {
		part, rest, more := strings.Cut(n, ".")
		mods = append(mods, part)
		if !more {
			return mods
		}
		n = rest
	}
}

func setGroup(w *Word, g group, v uint64) {
	w.SetField(g.pos, g.n, v)
	if g.n2 > 0 {
		w.SetField(g.pos2, g.n2, v>>g.n)
	}
}

func getGroup(w Word, g group) uint64 {
	v := w.Field(g.pos, g.n)
	if g.n2 > 0 {
		v |= w.Field(g.pos2, g.n2) << g.n
	}
	return v
}

func valueOf(g group, name string) (uint64, bool) {
	for _, vn := range g.names {
		v, n := vn.v, vn.name
		if n == name {
			return v, true
		}
	}
	return 0, false
}

// guard writes in's guard. A uniform-datapath instruction's guard field
// names a uniform predicate (measured: nvdisasm prints ptxas's UIADD3
// word with guard bits 7 and the negation as @!UPT), so there a P guard
// other than PT would run under the UP of the same number: refused.
func (e *encoder) guard(in *ori.Inst, uni bool) error {
	g := in.Guard
	switch {
	case g.Virtual:
		return fmt.Errorf("guard %s is not a physical register", g)
	case uni && g.Class == ori.ClassP && g != ori.PT:
		return fmt.Errorf("guard %s: a uniform instruction's guard is a uniform predicate", g)
	case uni && g.Class == ori.ClassUP:
	case g.Class != ori.ClassP:
		return fmt.Errorf("guard %s is not a physical P register", g)
	}
	e.w.SetField(bitsGuard, 3, uint64(g.N))
	e.w.SetBit(15, in.GuardNot)
	return nil
}

// reg checks that o is a plain physical register of class c (modifiers
// checked by the caller) and returns its number.
func reg(o ori.Operand, c ori.RegClass) (uint64, error) {
	if o.Kind != ori.OpdReg {
		return 0, fmt.Errorf("%s where the encoding holds a %s register", o, c)
	}
	r := o.Reg
	if r.Virtual {
		return 0, fmt.Errorf("virtual register %s", r)
	}
	if r.Class != c {
		return 0, fmt.Errorf("%s where the encoding holds a %s register", r, c)
	}
	if r.Words > 1 && !r.IsZero() && int(r.N)%int(r.Words) != 0 {
		return 0, fmt.Errorf("%s is a %d-register tuple that is not aligned", r, r.Words)
	}
	if !r.IsZero() && int(r.N)+int(r.Words) > c.Limit() {
		return 0, fmt.Errorf("%s runs past the last register", r)
	}
	return uint64(r.N), nil
}

// checkMods refuses operand modifiers the slot cannot hold.
func checkMods(o ori.Operand, allowed int, pred bool) error {
	if o.Neg && allowed&mNeg == 0 {
		return fmt.Errorf("operand %s: negation has no bit here", o)
	}
	if o.Abs && allowed&mAbs == 0 {
		return fmt.Errorf("operand %s: absolute value has no bit here", o)
	}
	if o.Not && allowed&mNot == 0 && !pred {
		return fmt.Errorf("operand %s: bitwise not has no bit here", o)
	}
	return nil
}

func (e *encoder) setReuse(o ori.Operand, pos int) error {
	if !o.Reuse {
		return nil
	}
	switch pos {
	case 24:
		e.reuse |= 1 << reuseA
	case 32:
		e.reuse |= 1 << reuseB
	case 64:
		e.reuse |= 1 << reuseC
	default:
		return fmt.Errorf("operand %s: no reuse slot at bit %d", o, pos)
	}
	return nil
}

// operand encodes a non-ALU slot.
func (e *encoder) operand(s slot, o ori.Operand, notX bool) error {
	switch s.k {
	case sR, sUR:
		c := ori.ClassR
		if s.k == sUR {
			c = ori.ClassUR
		}
		n, err := reg(o, c)
		if err != nil {
			return err
		}
		if err := checkMods(o, s.mod&^(mNeg|mAbs), false); err != nil {
			return err
		}
		if o.Neg || o.Abs {
			return fmt.Errorf("operand %s: no modifier bits here", o)
		}
		if o.Not {
			e.w.SetBit(s.not, true)
		}
		e.w.SetField(s.pos, 8, n)
		return e.setReuse(o, s.pos)
	case sP, sUP:
		c := ori.ClassP
		if s.k == sUP || s.ubit != 0 && o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassUP {
			c = ori.ClassUP
		}
		if s.k == sP && c == ori.ClassUP {
			e.w.SetBit(s.ubit, true)
		}
		n, err := reg(o, c)
		if err != nil {
			return err
		}
		if o.Neg || o.Abs || o.Reuse {
			return fmt.Errorf("operand %s: a predicate takes only !", o)
		}
		if o.Not {
			if s.not == 0 {
				return fmt.Errorf("operand %s: this predicate has no negation bit", o)
			}
			e.w.SetBit(s.not, true)
		}
		e.w.SetField(s.pos, 3, n)
		return nil
	case sImm:
		if o.Kind != ori.OpdImm {
			return fmt.Errorf("%s where the encoding holds an immediate", o)
		}
		v, err := immField(o, s)
		if err != nil {
			return err
		}
		e.w.SetField(s.pos, s.n, v)
		return nil
	case sMem:
		if o.Kind != ori.OpdMem {
			return fmt.Errorf("%s where the encoding holds a memory address", o)
		}
		base := uint64(255)
		if o.HasBase {
			b := o
			b.Kind = ori.OpdReg
			n, err := reg(b, ori.ClassR)
			if err != nil {
				return err
			}
			base = n
		}
		offPos, offN := s.memOffset()
		if o.Imm < -(1<<(offN-1)) || o.Imm >= 1<<(offN-1) {
			return fmt.Errorf("address offset %s does not fit %d signed bits", hexInt(o.Imm), offN)
		}
		// .E addresses are 64-bit: the base is a register pair. A 32-bit
		// base under .E would read the next register as the high word.
		wide := e.wide && !s.narrow
		if o.HasBase && !o.Reg.IsZero() && (o.Reg.Words == 2) != wide {
			if wide {
				return fmt.Errorf("%s: a .E address needs a 64-bit register pair", o)
			}
			return fmt.Errorf("%s: a 64-bit base needs .E", o)
		}
		// The memory descriptor: a word without one (URZ) cannot run on
		// the GPU, so its absence is refused rather than encoded.
		switch {
		case s.narrow && o.HasDesc:
			return fmt.Errorf("%s: a shared address takes no memory descriptor", o)
		case s.narrow:
		case o.HasDesc && e.desc == 0:
			return fmt.Errorf("%s: this form has no memory descriptor field", o)
		case !o.HasDesc && e.desc != 0:
			return fmt.Errorf("%s: a global or generic access on sm_%d needs a memory descriptor desc[URx] (the phase PostFixForMercTargets loads it)", o, e.arch)
		case o.HasDesc:
			d := ori.R(o.Desc)
			n, err := reg(d, ori.ClassUR)
			if err != nil {
				return fmt.Errorf("memory descriptor: %v", err)
			}
			if o.Desc.Words != 2 || n == 63 {
				return fmt.Errorf("memory descriptor %s: want a uniform register pair", o.Desc)
			}
			e.w.SetField(e.desc, 6, n)
		}
		e.w.SetField(s.memBase(), 8, base)
		e.w.SetField(offPos, offN, uint64(o.Imm))
		return nil
	case sCB, sUCB:
		if o.Kind != ori.OpdCBank {
			return fmt.Errorf("%s where the encoding holds a constant bank", o)
		}
		if o.Bank < 0 || o.Bank > 31 {
			return fmt.Errorf("constant bank %d is not 0-31", o.Bank)
		}
		if o.Imm < 0 || o.Imm > 0xffff {
			return fmt.Errorf("constant offset %s is not 0-0xffff", hexInt(o.Imm))
		}
		if s.k == sUCB && o.HasBase {
			return fmt.Errorf("%s: a uniform constant load takes no index register", o)
		}
		if s.k == sCB {
			base := uint64(255)
			if o.HasBase {
				b := o
				b.Kind = ori.OpdReg
				n, err := reg(b, ori.ClassR)
				if err != nil {
					return err
				}
				base = n
			}
			e.w.SetField(24, 8, base)
		}
		e.w.SetField(38, 16, uint64(o.Imm))
		e.w.SetField(54, 5, uint64(o.Bank))
		return nil
	case sSR:
		if o.Kind != ori.OpdSR {
			return fmt.Errorf("%s where the encoding holds a special register", o)
		}
		n, ok := srNumber[o.Name]
		if !ok {
			return fmt.Errorf("special register %s has no number in orilab's table", o.Name)
		}
		e.w.SetField(s.pos, 8, uint64(n))
		return nil
	case sTarget:
		rel, err := e.branchOffset(o)
		if err != nil {
			return err
		}
		if rel < -(1<<(s.n-1)) || rel >= 1<<(s.n-1) {
			return fmt.Errorf("branch offset %d does not fit %d bits", rel, s.n)
		}
		e.w.SetField(s.pos, s.n, uint64(rel))
		return nil
	case sTarget90:
		rel, err := e.branchOffset(o)
		if err != nil {
			return err
		}
		if rel < -(1<<55) || rel >= 1<<55 {
			return fmt.Errorf("branch offset %d does not fit", rel)
		}
		e.w.SetField(16, 8, uint64(rel))
		e.w.SetField(34, 48, uint64(rel>>8))
		return nil
	case sBar:
		if o.Kind != ori.OpdImm || o.Imm < 0 || o.Imm > 15 {
			return fmt.Errorf("%s is not a convergence barrier 0-15", o)
		}
		e.w.SetField(s.pos, 4, uint64(o.Imm))
		return nil
	case sAllLanes:
		if o.Kind != ori.OpdImm || uint32(o.Imm) != 0xffffffff {
			return fmt.Errorf("sm_%d has no form with an immediate mask other than all lanes (%s); the mask must be in a register", e.arch, o)
		}
		return nil
	case sLUT2:
		if o.Kind != ori.OpdImm || o.Imm < 0 || o.Imm > 0xff {
			return fmt.Errorf("%s is not an 8-bit truth table", o)
		}
		e.w.SetField(64, 3, uint64(o.Imm))
		e.w.SetField(72, 5, uint64(o.Imm)>>3)
		return nil
	case sSym:
		if o.Kind != ori.OpdSym {
			return fmt.Errorf("%s where the encoding holds a call target", o)
		}
		if o.IsRetAddr() {
			return fmt.Errorf("the return point %s where the encoding holds a call target", o)
		}
		e.reloc = o.Name
		return nil
	}
	return fmt.Errorf("slot kind %d is not a fixed slot", s.k)
}

// immField returns the field bits of immediate o for slot s.
func immField(o ori.Operand, s slot) (uint64, error) {
	v := o.Imm
	if s.f64hi || o.FKind == ori.ImmF64 {
		if o.FKind != ori.ImmF64 {
			return 0, fmt.Errorf("immediate %s where the encoding holds an f64", o)
		}
		if uint64(v)&0xffffffff != 0 {
			return 0, fmt.Errorf("f64 immediate %s needs more than the 32 upper bits the encoding holds", floatText(math.Float64frombits(uint64(v)), true))
		}
		return uint64(v) >> 32, nil
	}
	n := s.n
	if n == 0 {
		n = 32
	}
	if o.FKind == ori.ImmF32 && n != 32 {
		return 0, fmt.Errorf("f32 immediate in a %d-bit field", n)
	}
	lo, hi := -(int64(1) << (n - 1)), (int64(1)<<n)-1
	if n == 64 {
		return uint64(v), nil
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("immediate %s does not fit %d bits", hexInt(v), n)
	}
	return uint64(v) & (1<<n - 1), nil
}

// aluSrcs places the A, B and C sources of an ALU form and sets the form
// number.
func (e *encoder) aluSrcs(fm *form, alu [3]*ori.Operand, mods [3]int, notX, bIsC bool) error {
	slotB := reuseB
	if bIsC || fm.bReuseC {
		slotB = reuseC
	}
	file := ori.ClassR
	if fm.uni {
		file = ori.ClassUR
	}
	negBit := func(o *ori.Operand) bool {
		if notX {
			return o.Not
		}
		return o.Neg
	}
	regAt := func(o *ori.Operand, allowed, pos, neg, abs, slot int) error {
		if notX {
			if o.Neg {
				return fmt.Errorf("operand %s: .X takes ~, not -", *o)
			}
			if o.Not && allowed&(mNot|mNeg) == 0 {
				return fmt.Errorf("operand %s: bitwise not has no bit here", *o)
			}
		} else if err := checkMods(*o, allowed, false); err != nil {
			return err
		}
		n, err := reg(*o, file)
		if err != nil {
			return err
		}
		e.w.SetField(pos, 8, n)
		if negBit(o) {
			e.w.SetBit(neg, true)
		}
		if o.Abs {
			e.w.SetBit(abs, true)
		}
		// Reuse follows the logical source (A, B, C), not the bits the
		// register sits in: nvdisasm prints bit 1 on a B moved to 64.
		if o.Reuse {
			e.reuse |= 1 << slot
		}
		return nil
	}
	// variable puts o into bits 32-63 and returns its form kind.
	variable := func(o *ori.Operand, allowed int, slotName string) (string, error) {
		if notX && o.Kind != ori.OpdImm && o.Kind != ori.OpdReg || notX && o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassUR && !fm.uni {
			// Under .X the negation bit (63) of a constant or uniform
			// register is a bitwise not, as for registers (measured:
			// nvdisasm -b SM80/SM90 prints IADD3.X's form-6 word with
			// bit 63 set as ~UR4, form 5 as ~c[0x0][0x164]).
			if o.Neg {
				return "", fmt.Errorf("operand %s: .X takes ~, not -", *o)
			}
			if o.Not && allowed&(mNot|mNeg) == 0 {
				return "", fmt.Errorf("operand %s: bitwise not has no bit here", *o)
			}
			x := *o
			x.Neg, x.Not = o.Not, false
			o = &x
		}
		switch o.Kind {
		case ori.OpdImm:
			if o.Neg || o.Abs || o.Not {
				return "", fmt.Errorf("immediate with a modifier")
			}
			v, err := immField(*o, slot{n: 32, fk: o.FKind})
			if err != nil {
				return "", err
			}
			e.w.SetField(32, 32, v)
			return "imm", nil
		case ori.OpdCBank:
			if fm.uni {
				return "", fmt.Errorf("%s: the uniform datapath reads no constant bank", *o)
			}
			if o.HasBase {
				return "", fmt.Errorf("%s: an ALU source cannot index a constant bank", *o)
			}
			if o.Bank < 0 || o.Bank > 31 || o.Imm < 0 || o.Imm > 0xffff {
				return "", fmt.Errorf("%s: bank 0-31 and offset 0-0xffff only", *o)
			}
			// Measured: nvdisasm prints c[0x0][0x211] as c[0x0][0x210];
			// an ALU source reads a whole aligned word.
			if o.Imm%4 != 0 {
				return "", fmt.Errorf("%s: an ALU constant operand must be 4-byte aligned (load it with LDC)", *o)
			}
			if err := checkMods(*o, allowed, false); err != nil {
				return "", err
			}
			e.w.SetField(38, 16, uint64(o.Imm))
			e.w.SetField(54, 5, uint64(o.Bank))
			// The negation and absolute-value bits of B apply to a
			// constant too (the decoder reads them; nvdisasm prints
			// FFMA R0, R2, -c[0x0][0x160], R3 for bit 63).
			e.w.SetBit(63, o.Neg)
			e.w.SetBit(62, o.Abs)
			return "cb", nil
		case ori.OpdReg:
			if o.Reg.Class == ori.ClassUR && !fm.uni {
				if err := checkMods(*o, allowed, false); err != nil {
					return "", err
				}
				n, err := reg(*o, ori.ClassUR)
				if err != nil {
					return "", err
				}
				e.w.SetField(32, 8, n)
				e.w.SetBit(91, true) // a uniform register source
				if o.Neg {
					e.w.SetBit(63, true)
				}
				if o.Abs {
					e.w.SetBit(62, true)
				}
				if o.Reuse {
					return "", fmt.Errorf("operand %s: uniform registers have no reuse", *o)
				}
				return "ur", nil
			}
			return "", regAt(o, allowed, 32, 63, 62, slotB)
		}
		return "", fmt.Errorf("%s cannot be source %s of an ALU instruction", *o, slotName)
	}
	a, b, c := alu[0], alu[1], alu[2]
	if a != nil {
		if a.Kind != ori.OpdReg || a.Reg.Class != file {
			return fmt.Errorf("source A %s must be a %s register (legalize it first)", *a, file)
		}
		if err := regAt(a, mods[0], 24, 72, 73, reuseA); err != nil {
			return err
		}
	}
	isReg := func(o *ori.Operand) bool { return o == nil || (o.Kind == ori.OpdReg && o.Reg.Class == file) }
	form := formRR
	switch {
	case isReg(b) && isReg(c):
		if b != nil {
			if err := regAt(b, mods[1], 32, 63, 62, slotB); err != nil {
				return err
			}
		}
		if c != nil {
			if err := regAt(c, mods[2], 64, 75, 74, reuseC); err != nil {
				return err
			}
		}
	case !isReg(b):
		if c != nil && !isReg(c) {
			return fmt.Errorf("sources B %s and C %s: only one may be an immediate, constant or uniform register", *b, *c)
		}
		k, err := variable(b, mods[1], "B")
		if err != nil {
			return err
		}
		form = map[string]int{"imm": formBImm, "cb": formBCB, "ur": formBUR}[k]
		if c != nil {
			if err := regAt(c, mods[2], 64, 75, 74, reuseC); err != nil {
				return err
			}
		}
	default: // C is the variable one
		if fm.noCVar {
			return fmt.Errorf("source C %s: this instruction has no form with an immediate, constant or uniform register in C (legalize it first)", *c)
		}
		if c.Reuse {
			return fmt.Errorf("operand %s: only registers have reuse", *c)
		}
		k, err := variable(c, mods[2], "C")
		if err != nil {
			return err
		}
		form = map[string]int{"imm": formCImm, "cb": formCCB, "ur": formCUR}[k]
		if b != nil {
			if err := regAt(b, mods[1], 64, 75, 74, reuseB); err != nil {
				return err
			}
		} else {
			// A C-only source (DADD R, R, imm) leaves B at 64 as RZ.
			e.w.SetField(64, 8, 255)
		}
	}
	if fm.uni && form != formRR && form != formCImm && form != formBImm {
		return fmt.Errorf("the uniform datapath has no ALU form %d", form)
	}
	e.w.SetField(9, 3, uint64(form))
	return nil
}

// branchOffset is the distance, in 4-byte units from the next
// instruction, to the block a branch operand names.
func (e *encoder) branchOffset(o ori.Operand) (int64, error) {
	if o.Kind != ori.OpdBlock {
		return 0, fmt.Errorf("%s where the encoding holds a branch target", o)
	}
	t, ok := e.addr[o.Block]
	if !ok {
		return 0, fmt.Errorf("branch to BB%d, which is not a block of the function", o.Block)
	}
	return int64(t-(e.pc+16)) / 4, nil
}
