package pipeline

// PostFixForMercTargets (129): the operand legalization that makes every
// instruction the pipeline emits encodable, at the last position where
// it can still add instructions under the control-word passes (131, 139)
// that schedule their latencies.
//
// It does five things, per function, on the allocated code (the fourth
// and fifth are below the list):
//
//  1. the operand swaps of sass.Legalize (commuting sources, flipping
//     ISETP/FSETP comparisons, negating SEL's predicate, permuting
//     LOP3's truth table): no new instruction, same meaning;
//  2. the memory descriptor: on sm_80 and later every global and generic
//     access names a uniform register pair holding the descriptor that
//     ptxas loads with ULDC.64 from c[0x0][0x118] (sm_80-sm_89) or
//     c[0x0][0x208] (sm_90); measured on ptxas 13.0.88's cubins, where
//     the field holds UR4 on sm_80 too although nvdisasm prints desc[UR4]
//     only from sm_90. One pair that no function of the module uses is
//     chosen (UR4 when free, as ptxas), each function with such an access
//     loads it once at its entry, and the accesses name it;
//  3. immediates and constants in register-only positions (an immediate
//     or c[][] in ALU source A, two where the word holds one: SEL 0x1,
//     FSETP 1.0, FCHK 1.0, LOP3 and DFMA with two constants, IMAD
//     c[0x0][0x0] in A): the encoder is asked whether the instruction
//     encodes, and when it does not but does with one such source
//     replaced by a register (a pair for the f64 operations), or with
//     two (LOP3 c[0x0][0x190], 0x80000000, 0x3f800000: three constants),
//     MOVs of their words into registers dead at that point go right
//     before it; on sm_75-sm_89 an f64 constant goes into the kernel's
//     literal pool instead, read as c[0x2][] (poolLiteral). A uniform
//     register where the word has no room for it moves the same way
//     (LOP3.LUT R10 = RZ, -0x80000000, UR1, 0x88: one variable field
//     for both; DMUL R2.64 = UR0.64, 0d43F0000000000000: a pair in A),
//     and an operand modifier (-, |.|, ~) stays on the instruction.
//
// Example (sm_80, after allocation):
//
//	FSETP.GT.AND P0, PT = 0f3F800000, R2, PT
//	LDG.E R3 = [R4.64]
//
// becomes
//
//	ULDC.64 UR4 = c[0x0][0x118]           (entry block, first)
//	MOV R0 = 0f3F800000
//	FSETP.GT.AND P0, PT = R0, R2, PT
//	LDG.E R3 = desc[UR4][R4.64]
//
// The simulator executes the result unchanged: MOV and ULDC are ordinary
// instructions, and it does not read the descriptor.
//
// Decision: the wiki puts ptxas's operand legalization dispatcher
// (sub_13AF3D0) inside the encoding walk, "after all six Ori-level
// legalization passes" and before the per-instruction encoders
// (001:18441, 18551-18565), and describes PostFixForMercTargets as the
// fix-up "for Mercury encoding requirements" (001:9380). orilab runs it
// here, at 129, because what it inserts needs registers (so after
// allocation) and control words (so before 131/139), which the encoding
// walk at 141-147 is too late for.
//
// Fourth, a BRA guarded by a uniform predicate gets a P copy of it
// (uniformBranchGuards): no BRA word holds a UP. Fifth, REDUX writes a
// uniform register no function uses, and a MOV copies it into the R
// register the lowering gave it (reduxToUR): its only word has a UR
// destination.
//
// Sixth, BAR.RED's result moves into a B2R.RESULT right after it
// (barRedResults): no BAR word has a result field. Seventh, a kernel's
// BRX on an index becomes ptxas's jump table in its literal pool
// (jumpTables, at the end of this file).
//
// Known limits: the scratch registers of (3) and (4) are found by a
// liveness of physical R (P) registers in which CALL reads every R
// register and a .func's RET reads R0-R3 and its results (retLive), and,
// in a .func, only R registers it writes itself are taken; failing those,
// an unguarded instruction's own result register (scratchReg). Where
// every register is live (a .func that writes nothing but the register
// an FFMA with two immediates reads and writes) the instruction keeps
// its operand and the encoder refuses it with an error naming the
// instruction, except a plain IMAD with immediates in B and C, which
// becomes IMAD d = a, B, RZ and IADD3 d = d, C, RZ (splitIMADAddend). A
// constant with a register index (c[0x0][R2]) is not moved. A module whose
// functions use every uniform pair gets no descriptor, and the encoder
// refuses its global accesses.

import (
	"fmt"
	"slices"

	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
	"orilab/pipeline/sim/fp"
)

// descOffset is the constant-bank-0 offset of the memory descriptor.
func descOffset(arch int) int64 {
	if arch >= 90 {
		return 0x208
	}
	return 0x118
}

// postFixForMercTargets runs the three fix-ups over every function.
func postFixForMercTargets(c *PhaseContext) error {
	if err := checkEncodable(c.Arch); err != nil {
		return nil // no encoding tables for this target: nothing to fix for
	}
	used := usedURs(c.Module)
	desc, haveDesc := freeURPair(used)
	redux, haveRedux := freeUR(used, desc, haveDesc)
	if c.Backend != nil && c.Backend.PreRA != nil {
		// The mirror edits the copy from before allocation, which a
		// forked session shares with its parent (Session.Fork copies
		// Backend, not the module it points to): a fault campaign's
		// clean run would otherwise legalize its target's copy and the
		// verifier would compare unlegalized code with legalized.
		c.Backend.PreRA = c.Backend.PreRA.Clone()
	}
	// Each function is fixed up on its own (its own mirror, literal pool
	// and jump tables), so they may be fixed up at once.
	return eachFunc(c, func(f *ori.Func) error {
		m := newMirror(c.Backend, f)
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if sass.Legalize(in, c.Arch) {
					if p := m.byID[in.ID]; p != nil {
						sass.Legalize(p, c.Arch)
					}
				}
			}
		}
		if haveDesc {
			addDescriptor(f, c.Arch, desc, m)
		}
		materializeImms(f, c.Arch, m)
		uniformBranchGuards(f, m)
		if haveRedux {
			reduxToUR(f, redux, m)
		}
		barRedResults(f, m)
		for id, pads := range ldgstsPads(f, c.Arch) { // ldgstspad.go
			var copies []*ori.Inst
			for _, p := range pads {
				x := *p
				x.Dsts = append([]ori.Operand(nil), p.Dsts...)
				x.Srcs = append([]ori.Operand(nil), p.Srcs...)
				copies = append(copies, &x)
			}
			m.insertBefore(id, copies...)
		}
		jumpTables(f, m)
		return nil
	})
}

// mirror applies the fix-ups to the function's copy from before
// allocation (Backend.PreRA), instruction by instruction (matched by ID),
// with virtual registers where the allocated code got physical ones: the
// post-allocation verifiers compare the two and would otherwise take a
// legalized operand for a wrong one.
type mirror struct {
	pre   *ori.Func
	byID  map[int32]*ori.Inst
	block map[int32]*ori.Block
}

func newMirror(b *Backend, f *ori.Func) *mirror {
	m := &mirror{byID: map[int32]*ori.Inst{}, block: map[int32]*ori.Block{}}
	if b == nil || b.PreRA == nil {
		return m
	}
	if m.pre = b.PreRA.Func(f.Name); m.pre == nil {
		return m
	}
	for _, blk := range m.pre.Blocks {
		for _, in := range blk.Insts {
			m.byID[in.ID] = in
			m.block[in.ID] = blk
		}
	}
	return m
}

// insertAfter puts ins after the instruction with ID at in the copy.
func (m *mirror) insertAfter(at int32, ins ...*ori.Inst) {
	blk := m.block[at]
	if blk == nil {
		return
	}
	for k, x := range blk.Insts {
		if x.ID == at {
			blk.Insts = append(blk.Insts[:k+1], append(ins, blk.Insts[k+1:]...)...)
			return
		}
	}
}

// insertBefore puts ins before the instruction with ID at in the copy.
func (m *mirror) insertBefore(at int32, ins ...*ori.Inst) {
	blk := m.block[at]
	if blk == nil {
		return
	}
	for k, x := range blk.Insts {
		if x.ID == at {
			blk.Insts = append(blk.Insts[:k], append(ins, blk.Insts[k:]...)...)
			return
		}
	}
}

// checkEncodable says whether orilab encodes SM arch.
func checkEncodable(arch int) error {
	for _, a := range sass.Archs {
		if a == arch {
			return nil
		}
	}
	return fmt.Errorf("no encoding for sm_%d", arch)
}

// freeURPair returns the lowest even uniform pair from UR4 up that no
// function touches (used, from usedURs).
func freeURPair(used [64]bool) (ori.Reg, bool) {
	for n := 4; n+1 < ori.ClassUR.Limit(); n += 2 {
		if !used[n] && !used[n+1] {
			return ori.PReg(ori.ClassUR, n, 2), true
		}
	}
	return ori.Reg{}, false
}

// freeUR returns the highest uniform register that no function
// touches (used) and that is not in the pair desc (the descriptor, when there
// is one): from the top, so that it stays clear of the descriptor's UR4
// and of the allocator's low registers.
func freeUR(used [64]bool, desc ori.Reg, haveDesc bool) (ori.Reg, bool) {
	for n := ori.ClassUR.Limit() - 1; n >= 0; n-- {
		if used[n] || haveDesc && (n == int(desc.N) || n == int(desc.N)+1) {
			continue
		}
		return ori.PReg(ori.ClassUR, n, 1), true
	}
	return ori.Reg{}, false
}

// usedURs marks the uniform registers some function of m touches.
func usedURs(m *ori.Module) [64]bool {
	var used [64]bool
	mark := func(r ori.Reg) {
		if r.Class != ori.ClassUR || r.Virtual || r.IsZero() {
			return
		}
		for w := 0; w < max(int(r.Words), 1); w++ {
			if n := int(r.N) + w; n < 64 {
				used[n] = true
			}
		}
	}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				for _, ops := range [2][]ori.Operand{in.Dsts, in.Srcs} {
					for k := range ops {
						if o := &ops[k]; o.Kind == ori.OpdReg || o.HasBase {
							mark(o.Reg)
						}
						if o := &ops[k]; o.HasDesc {
							mark(o.Desc)
						}
					}
				}
			}
		}
	}
	return used
}

// needsDesc reports whether o is an address that names no descriptor.
func needsDesc(o ori.Operand) bool { return o.Kind == ori.OpdMem && !o.HasDesc }

// addDescriptor names desc in every access of f that takes a descriptor
// and loads it at f's entry.
func addDescriptor(f *ori.Func, arch int, desc ori.Reg, m *mirror) {
	if len(f.Blocks) == 0 {
		return
	}
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			// Only an address without a descriptor gets one: the
			// encoder's forms are asked about those instructions alone.
			if !slices.ContainsFunc(in.Srcs, needsDesc) || !sass.TakesDesc(in, arch) {
				continue
			}
			for i := range in.Srcs {
				// LDGSTS's first address is the shared one, which has
				// no descriptor.
				if in.Srcs[i].Kind == ori.OpdMem && !in.Srcs[i].HasDesc && !(in.Op == ori.OpLDGSTS && i == 0) {
					in.Srcs[i].HasDesc, in.Srcs[i].Desc = true, desc
					n++
				}
			}
		}
	}
	if n == 0 {
		return
	}
	ld := ori.NewInst(ori.OpULDC, "64")
	ld.ID = f.NewID()
	ld.Dsts = []ori.Operand{ori.R(desc)}
	ld.Srcs = []ori.Operand{ori.CBank(0, descOffset(arch))}
	entry := f.Blocks[0]
	if len(entry.Insts) > 0 {
		ld.Line = entry.Insts[0].Line
	}
	if m.pre != nil && len(m.pre.Blocks) > 0 {
		pl := ld.Clone()
		pl.Dsts = []ori.Operand{ori.R(m.pre.NewVReg(ori.ClassUR, 2))}
		pb := m.pre.Blocks[0]
		pb.Insts = append([]*ori.Inst{pl}, pb.Insts...)
	}
	entry.Insts = append([]*ori.Inst{ld}, entry.Insts...)
}

// materializeImms moves one or two immediate or constant-bank sources
// into dead registers where that makes an instruction encodable.
func materializeImms(f *ori.Func, arch int, m *mirror) {
	live := physLiveness(f)
	var after []regSet
	for bi, b := range f.Blocks {
		// Room for a few moves: growing from nothing cost a copy of
		// every block.
		out := make([]*ori.Inst, 0, len(b.Insts)+4)
		after = live.afterEachInto(after, bi, b)
		for k, in := range b.Insts {
			// Two f64 constants (a DFMA of a contracted mul by a
			// constant and add of one): the first goes into registers,
			// and then the other into the pool or registers, as ptxas
			// 13.0 does ("DFMA R6, R2, R6, c[0x2][0x0]" after two MOVs of
			// the multiplier).
			if j2, two := firstF64Imm(in); two && !encodes(in, arch) {
				scratchMove(f, in, j2, 2, after[k], m, &out)
			}
			// Up to two sources: LOP3 with a constant in A and
			// immediates in B and C needs both of A and one of B, C in
			// registers (rodinia hotspot's copysign LOP3.LUT R4,
			// c[0x0][0x190], 0x80000000, 0x3f800000, 0xea).
			for moved := 0; moved < 2; moved++ {
				j, words, ok := operandToMove(in, arch)
				if !ok {
					break
				}
				if lit, ok := poolLiteral(f, in, j, words, arch); ok {
					in.Srcs[j] = lit
					if p := m.byID[in.ID]; p != nil {
						p.Srcs[j] = lit
					}
					continue
				}
				if !scratchMove(f, in, j, words, after[k], m, &out) {
					break
				}
			}
			out = append(out, in)
			if add := splitIMADAddend(f, in, arch, m); add != nil {
				out = append(out, add)
			}
		}
		b.Insts = out
	}
}

// splitIMADAddend rewrites an IMAD d = a, imm1, imm2 that still does not
// encode (no dead register held either immediate) into IMAD d = a,
// imm1, RZ followed by the IADD3 d = d, imm2, RZ it returns, in the
// allocated code and in its mirror; nil where in is not such an IMAD or
// the pair would not encode either. Neither instruction needs a register
// besides d: the IMAD has read a before the IADD3 writes d again, so d
// may be a.
//
// Decision: ptxas never meets this form (it folds or moves constants
// long before), so there is no word of its to follow; two instructions
// with the same result are the fix that needs no free register. The
// case is a .func whose registers are all live or reserved by the call
// ABI at the IMAD (fuzz finding regalloc-implicit-argument's fn2 at -O0,
// before the lowering dropped that uncalled function for its brx.idx:
// mad.lo.u32 %r5, %r2, 8, 0x80 became IMAD R0 = R0, 0x8, 0x80, and only
// registers the .func writes may be taken, see scratchReg).
func splitIMADAddend(f *ori.Func, in *ori.Inst, arch int, m *mirror) *ori.Inst {
	if in.Op != ori.OpIMAD || len(in.Mods) != 0 || len(in.Dsts) != 1 || len(in.Srcs) != 3 {
		return nil
	}
	d, b, c := in.Dsts[0], in.Srcs[1], in.Srcs[2]
	if d.Kind != ori.OpdReg || d.Reg.Class != ori.ClassR || d.Reg.Virtual || d.Reg.Words > 1 || d.Reg.IsZero() ||
		b.Kind == ori.OpdReg || c.Kind != ori.OpdImm || c.FKind != ori.ImmInt || c.Neg || c.Not || c.Abs ||
		encodes(in, arch) {
		return nil
	}
	mul := in.Clone()
	mul.Srcs[2] = ori.R(ori.RZ)
	add := ori.NewInst(ori.OpIADD3)
	add.ID = f.NewID()
	add.Guard, add.GuardNot, add.Line = in.Guard, in.GuardNot, in.Line
	add.Dsts = []ori.Operand{ori.R(d.Reg)}
	add.Srcs = []ori.Operand{ori.R(d.Reg), c, ori.R(ori.RZ)}
	if !encodes(mul, arch) || !encodes(add, arch) {
		return nil
	}
	in.Srcs[2] = mul.Srcs[2]
	if p := m.byID[in.ID]; p != nil && len(p.Dsts) == 1 && len(p.Srcs) == 3 {
		pa := add.Clone()
		pa.Guard = p.Guard
		pa.Dsts = []ori.Operand{p.Dsts[0]}
		pa.Srcs = []ori.Operand{ori.R(p.Dsts[0].Reg), p.Srcs[2], ori.R(ori.RZ)}
		p.Srcs[2] = ori.R(ori.RZ)
		m.insertAfter(p.ID, pa)
	}
	return add
}

// firstF64Imm returns the first of two or more f64 immediate sources of
// an f64 operation that does not encode.
func firstF64Imm(in *ori.Inst) (int, bool) {
	if !f64Ops[in.Op] {
		return 0, false
	}
	first, n := -1, 0
	for j, o := range in.Srcs {
		if o.Kind == ori.OpdImm {
			if first < 0 {
				first = j
			}
			n++
		}
	}
	return first, n >= 2
}

// scratchMove moves source j of in (words registers wide) into
// registers dead after in (liveAfter) with MOVs appended to out, in the
// allocated code and in its mirror; false when no register is free.
func scratchMove(f *ori.Func, in *ori.Inst, j, words int, liveAfter regSet, m *mirror, out *[]*ori.Inst) bool {
	r, ok := scratchReg(f, in, liveAfter, words)
	if !ok {
		return false
	}
	p := m.byID[in.ID]
	var v ori.Reg
	var pmovs []*ori.Inst
	if p != nil {
		v = m.pre.NewVReg(ori.ClassR, words)
	}
	for w := 0; w < words; w++ {
		mv := ori.NewInst(ori.OpMOV)
		mv.ID = f.NewID()
		mv.Dsts = []ori.Operand{ori.R(ori.PReg(ori.ClassR, int(r.N)+w, 1))}
		mv.Srcs = []ori.Operand{wordOf(plainSource(in.Srcs[j]), w, words)}
		// Decision: no PTX line, as the constant it replaces had none;
		// the simulator's provenance then treats the register as that
		// constant (a SEL of constants is the predicate's doing:
		// TestProvenanceNamesStatement).
		mv.Line = 0
		*out = append(*out, mv)
		if p != nil {
			pm := mv.Clone()
			pm.Dsts = []ori.Operand{ori.R(v.Word(w))}
			// The copy's own source: a uniform register is still
			// virtual there.
			pm.Srcs = []ori.Operand{wordOf(plainSource(p.Srcs[j]), w, words)}
			pmovs = append(pmovs, pm)
		}
	}
	in.Srcs[j] = inReg(in.Srcs[j], r)
	if p != nil {
		p.Srcs[j] = inReg(p.Srcs[j], v)
		m.insertBefore(p.ID, pmovs...)
	}
	return true
}

// poolLiteral returns the c[0x2][] operand of the kernel's literal pool
// that holds source j of in, an f64 immediate that no instruction word
// can hold (its low 32 bits are not zero), when in encodes with it; the
// value is added to the pool (f.Literals) at its first use.
//
// Decision: as ptxas 13.0.88 does it (sm_75, sm_80, sm_86, sm_89; -O0
// and -O3; cuobjdump -sass and -elf of probe kernels): "mul.rn.f64 %x2, %x1,
// 0d3FB999999999999A" is "DMUL R2, R2, c[0x2][0x0]", and the section
// .nv.constant2.k holds the 8 bytes; a value is stored once (two uses of
// 0.1 read the same c[0x2][0x0]); entries are 8 bytes apart, in order of
// first use; a constant whose low word is zero stays an immediate (DADD
// R2, R4, 1); where the one constant slot of DFMA is taken the constant
// goes into registers (two MOVs), as here when in does not encode with
// the c[0x2] operand. ptxas fills the pool before register allocation;
// orilab here, at the legalization, where the immediates that do not
// encode are found; the constants that reach an f64 operation through a
// mov.f64 are put into its constant slot before, by the GeneralOptimize
// bundles (opt/f64constop.go), as ptxas propagates them. On sm_90 ptxas writes no
// pool: the same kernel loads each constant with two UMOVs into a
// uniform pair (DMUL R2, R2, UR4), and orilab keeps its MOVs there. Only
// kernels get a pool: bank 2 is the launched kernel's, and a .func may
// be called from several kernels.
func poolLiteral(f *ori.Func, in *ori.Inst, j, words int, arch int) (ori.Operand, bool) {
	o := in.Srcs[j]
	if arch >= 90 || !f.Entry || words != 2 || !f64Ops[in.Op] || o.Kind != ori.OpdImm || o.Neg || o.Abs || o.Not {
		return ori.Operand{}, false
	}
	bits := uint64(wordOf(o, 0, 2).Imm)&0xffffffff | uint64(wordOf(o, 1, 2).Imm)<<32
	i := 0
	for i < len(f.Literals) && f.Literals[i] != bits {
		i++
	}
	lit := ori.CBank(literalBank, int64(8*i))
	try := in.Clone()
	try.Srcs[j] = lit
	if !encodes(try, arch) {
		return ori.Operand{}, false
	}
	if i == len(f.Literals) {
		f.Literals = append(f.Literals, bits)
	}
	return lit, true
}

// literalBank is the constant bank of a kernel's literal pool.
const literalBank = 2

// f64Ops read their floating-point sources as register pairs.
var f64Ops = map[ori.Opcode]bool{ori.OpDADD: true, ori.OpDMUL: true, ori.OpDFMA: true, ori.OpDSETP: true}

// wordOf returns word w of a words-wide immediate or constant-bank
// operand, as a 32-bit MOV source.
func wordOf(o ori.Operand, w, words int) ori.Operand {
	if o.Kind == ori.OpdReg {
		if words == 2 {
			o.Reg = o.Reg.Word(w)
		}
		return o
	}
	if o.Kind == ori.OpdCBank {
		o.Imm += int64(4 * w)
		return o
	}
	if words == 2 {
		// The f64 value the simulator reads from the immediate: an f32
		// immediate is converted, an integer one is the bits.
		bits := uint64(o.Imm)
		if o.FKind == ori.ImmF32 {
			bits = fp.F32toF64(uint32(o.Imm), false)
		}
		return ori.Imm(int64(int32(uint32(bits >> (32 * w)))))
	}
	o.Imm = int64(uint32(o.Imm))
	if o.FKind == ori.ImmInt {
		o.Imm = int64(int32(o.Imm))
	}
	return o
}

// operandToMove returns the source of in (and its width in registers)
// whose immediate, constant or uniform register, moved into registers,
// makes in encodable, or, when no single source does, the first of two that
// together do (the caller moves the second next); false when in encodes
// already or no one or two sources help.
func operandToMove(in *ori.Inst, arch int) (int, int, bool) {
	if in.IsPseudo() {
		return 0, 0, false
	}
	words := 1
	if f64Ops[in.Op] {
		words = 2
	}
	uniform := in.Op.Has(ori.FUniform)
	movable := func(o ori.Operand) bool {
		if o.Kind == ori.OpdReg {
			// A uniform register where the word has no room for it
			// (LOP3.LUT R10 = RZ, -0x80000000, UR1, 0x88: one variable
			// field for the immediate and UR1) moves into an R register.
			// So does a uniform pair in an f64 operation's A (DMUL
			// R2.64 = UR0.64, 0d43F0000000000000).
			return !uniform && o.Reg.Class == ori.ClassUR && !o.Reg.Virtual && !o.Reg.IsZero() && max(int(o.Reg.Words), 1) == words
		}
		if o.Kind != ori.OpdImm && o.Kind != ori.OpdCBank || o.Kind == ori.OpdCBank && o.HasBase {
			return false
		}
		return !(words == 1 && o.Kind == ori.OpdImm && (o.FKind == ori.ImmF64 || o.Imm != int64(int32(o.Imm)) && o.Imm != int64(uint32(o.Imm))))
	}
	// Without a movable source there is nothing to move whether or not
	// in encodes: decided before the trial encoding, which ran for every
	// instruction of the function.
	if !slices.ContainsFunc(in.Srcs, movable) || encodes(in, arch) {
		return 0, 0, false
	}
	var pairs [][2]int
	for j, o := range in.Srcs {
		if !movable(o) {
			continue
		}
		try := in.Clone()
		try.Srcs[j] = inReg(o, ori.PReg(ori.ClassR, 0, words))
		if encodes(try, arch) {
			return j, words, true
		}
		for k := j + 1; k < len(in.Srcs); k++ {
			if movable(in.Srcs[k]) {
				pairs = append(pairs, [2]int{j, k})
			}
		}
	}
	for _, p := range pairs {
		try := in.Clone()
		try.Srcs[p[0]] = inReg(in.Srcs[p[0]], ori.PReg(ori.ClassR, 0, words))
		try.Srcs[p[1]] = inReg(in.Srcs[p[1]], ori.PReg(ori.ClassR, words, words))
		if encodes(try, arch) {
			return p[0], words, true
		}
	}
	return 0, 0, false
}

// inReg returns the register r standing for the source o moved into it:
// o's operand modifiers (-, |.|, ~) stay on the instruction, and the MOV
// (plainSource) copies the bare value.
func inReg(o ori.Operand, r ori.Reg) ori.Operand {
	x := ori.R(r)
	x.Neg, x.Abs, x.Not = o.Neg, o.Abs, o.Not
	return x
}

// plainSource is o without its operand modifiers, as a MOV reads it.
func plainSource(o ori.Operand) ori.Operand {
	o.Neg, o.Abs, o.Not, o.Reuse = false, false, false, false
	return o
}

// encodes reports whether the encoder takes in as it stands (branch
// targets resolved to address 0: only the operand forms matter here).
func encodes(in *ori.Inst, arch int) bool {
	var addr map[int32]int
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdBlock {
			if addr == nil {
				addr = map[int32]int{}
			}
			addr[o.Block] = 0
		}
	}
	_, err := sass.Encode(in, arch, 0, addr)
	return err == nil
}

// scratchReg returns the lowest aligned run of words R registers that
// are not live after in, not read or written by in and not R1 (the
// stack pointer); outside kernels only registers f already writes.
// Where there is none and in is unguarded, in's own result registers
// that it does not read are taken: the MOV's value is read by in and
// then overwritten by it (ptxas 13.0.88 does the same for x * -1.5 + 3:
// HFMA2.MMA R5, -RZ, RZ, 1.9375, 0 loads 1.5 into the result register
// of FFMA R5, R0, -R5, 3). Only as a fallback, so that code which had a
// free register keeps its listing. A .func that writes few registers
// needs it (bicubicTexture's w2f: FFMA R5 = R4, -0x3fc00000,
// 0x40400000, where every other register it writes is live;
// particles_kernel's calcGridHash: SGXT R7 = c[0x3][0x2c], 0x18).
func scratchReg(f *ori.Func, in *ori.Inst, liveAfter regSet, words int) (ori.Reg, bool) {
	busy := liveAfter
	busy.addInst(in, true)
	busy.add(1)
	if r, ok := scratchFrom(f, busy, words); ok || in.Guarded() {
		return r, ok
	}
	busy = liveAfter
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassR && !o.Reg.Virtual && !o.Reg.IsZero() {
			for w := 0; w < max(int(o.Reg.Words), 1); w++ {
				busy.del(int(o.Reg.N) + w)
			}
		}
	}
	busy.addInst(in, false)
	busy.add(1)
	return scratchFrom(f, busy, words)
}

// scratchFrom returns the lowest aligned run of words R registers not in
// busy; outside kernels only registers f already writes.
func scratchFrom(f *ori.Func, busy regSet, words int) (ori.Reg, bool) {
	var written regSet
	if !f.Entry {
		for _, b := range f.Blocks {
			for _, x := range b.Insts {
				for _, o := range x.Dsts {
					if o.Kind == ori.OpdReg {
						written.addReg(o.Reg)
					}
				}
			}
		}
	}
	free := func(n int) bool { return !busy.has(n) && (f.Entry || written.has(n)) }
	for n := 0; n+words <= ori.ClassR.Limit(); n += words {
		ok := true
		for w := 0; w < words; w++ {
			ok = ok && free(n+w)
		}
		if ok {
			return ori.PReg(ori.ClassR, n, words), true
		}
	}
	return ori.Reg{}, false
}

// regSet is a set of physical R registers.
type regSet [4]uint64

func (s *regSet) add(n int)     { s[n/64] |= 1 << (n % 64) }
func (s *regSet) del(n int)     { s[n/64] &^= 1 << (n % 64) }
func (s regSet) has(n int) bool { return s[n/64]>>(n%64)&1 != 0 }

func (s *regSet) union(o regSet) bool {
	changed := false
	for i := range s {
		if s[i]|o[i] != s[i] {
			s[i] |= o[i]
			changed = true
		}
	}
	return changed
}

func (s *regSet) addReg(r ori.Reg) { s.addRegOf(r, ori.ClassR) }

// addRegOf adds r when it is a physical register of class c.
func (s *regSet) addRegOf(r ori.Reg, c ori.RegClass) {
	if r.Class != c || r.Virtual || r.IsZero() {
		return
	}
	for w := 0; w < max(int(r.Words), 1); w++ {
		if n := int(r.N) + w; n < c.Limit() {
			s.add(n)
		}
	}
}

// addInst adds the R registers in reads (and, with dsts, writes).
func (s *regSet) addInst(in *ori.Inst, dsts bool) { s.addInstOf(in, dsts, ori.ClassR) }

// addInstOf adds the class-c registers in reads, the guard included
// (and, with dsts, writes).
func (s *regSet) addInstOf(in *ori.Inst, dsts bool, c ori.RegClass) {
	s.addRegOf(in.Guard, c)
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdReg || o.HasBase {
			s.addRegOf(o.Reg, c)
		}
	}
	if dsts {
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg || o.HasBase {
				s.addRegOf(o.Reg, c)
			}
		}
	}
}

// all is every R register.
var all = regSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// physLive is the liveness of the physical registers of one class (R
// or P) at block ends.
type physLive struct {
	f     *ori.Func
	out   []regSet
	entry bool
	class ori.RegClass
	// ret is what a .func's caller may read once it returns.
	ret regSet
}

// retLive is the set of class-c registers a .func's caller may read after
// it returns.
//
// Decision: regalloc's calling convention preserves R16-R31 across a
// call (the callee saves those it writes, regalloc/calleesave.go) and
// every other register is caller-saved; results travel in R registers
// only, from the register each .ret parameter's Offset names
// (lower/ctrl.go's abiLayout). So a caller reads no P register and, of
// the R registers, only R0-R3 (ABI-reserved, R1 the stack pointer),
// R16-R31 and the results. A
// result's width in registers is the lowering's count (Param.Words, lower's
// abiWords): its size in words, except a vector .reg result of 8- or
// 16-bit elements, which takes one register per element. Where the count
// is unknown (IR text without words=), the size alone cannot tell those
// apart, so results of at most 8 bytes count as min(size, 4) registers,
// an upper bound; with it, a .b32 result in R4 no longer keeps R5-R7
// live (bisect_small.ptx's ceilPow2 at -O3 had no scratch register for
// SHF.L.U32's immediate 0x1 in A).
// Before this, RET read every register and no .func had a scratch
// register for an immediate or a P register for a uniform branch guard
// (nbody_kernel.ptx's FCHK.DIVIDE 1.0 and @UP0 BRA stayed unencodable).
func retLive(f *ori.Func, c ori.RegClass) regSet {
	var s regSet
	if c != ori.ClassR {
		return s
	}
	for n := 0; n < 4; n++ {
		s.add(n)
	}
	for n := 16; n < 32; n++ {
		s.add(n)
	}
	for _, p := range f.Rets {
		w := int((p.Size + 3) / 4)
		switch {
		case p.Words > 0:
			w = int(p.Words)
		case p.Size <= 8:
			w = max(w, int(min(p.Size, 4)))
		}
		for i := 0; i < max(w, 1); i++ {
			if n := int(p.Offset) + i; n >= 0 && n < c.Limit() {
				s.add(n)
			}
		}
	}
	return s
}

// transfer steps live backwards over in.
func (l *physLive) transfer(live regSet, in *ori.Inst) regSet {
	switch {
	case in.Op == ori.OpCALL && l.class == ori.ClassR:
		return all // conservative: the callee may read anything
	case in.Op == ori.OpRET && !l.entry:
		// What the caller may read; a guarded RET also falls through,
		// so what the code after it reads stays live.
		if in.Guarded() {
			live.union(l.ret)
		} else {
			live = l.ret
		}
	case in.Op == ori.OpP2R && l.class == ori.ClassP:
		return all // reads the whole predicate file
	case (in.Op == ori.OpEXIT || in.Op == ori.OpRET) && !in.Guarded():
		live = regSet{} // a guarded one falls through: its live set stays
	}
	if !in.Guarded() {
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Class == l.class && !o.Reg.Virtual && !o.Reg.IsZero() {
				for w := 0; w < max(int(o.Reg.Words), 1); w++ {
					live.del(int(o.Reg.N) + w)
				}
			}
		}
	}
	live.addInstOf(in, false, l.class)
	return live
}

// physLiveness solves the backward dataflow over f's blocks.
func physLiveness(f *ori.Func) *physLive { return physLivenessOf(f, ori.ClassR) }

// physLivenessOf solves it for the registers of class c.
func physLivenessOf(f *ori.Func, c ori.RegClass) *physLive {
	l := &physLive{f: f, out: make([]regSet, len(f.Blocks)), entry: f.Entry, class: c, ret: retLive(f, c)}
	index := map[*ori.Block]int{}
	for i, b := range f.Blocks {
		index[b] = i
	}
	in := make([]regSet, len(f.Blocks))
	for changed := true; changed; {
		changed = false
		for i := len(f.Blocks) - 1; i >= 0; i-- {
			b := f.Blocks[i]
			var out regSet
			for _, s := range b.Succs {
				out.union(in[index[s]])
			}
			if len(b.Succs) == 0 && !f.Entry {
				out = l.ret // falling off a .func: returning
			}
			l.out[i] = out
			live := out
			for k := len(b.Insts) - 1; k >= 0; k-- {
				live = l.transfer(live, b.Insts[k])
			}
			if in[i].union(live) {
				changed = true
			}
		}
	}
	return l
}

// afterEach returns the live set right after each instruction of block bi.
func (l *physLive) afterEach(bi int, b *ori.Block) []regSet {
	return l.afterEachInto(nil, bi, b)
}

// afterEachInto is afterEach into dst's storage (a caller walking every
// block reuses one buffer).
func (l *physLive) afterEachInto(dst []regSet, bi int, b *ori.Block) []regSet {
	out := dst[:0]
	if cap(out) < len(b.Insts) {
		out = make([]regSet, len(b.Insts))
	}
	out = out[:len(b.Insts)]
	live := l.out[bi]
	for k := len(b.Insts) - 1; k >= 0; k-- {
		out[k] = live
		live = l.transfer(live, b.Insts[k])
	}
	return out
}

// unwrittenP returns the P registers f never writes (none when it has an
// R2P, which may write any of them).
func unwrittenP(f *ori.Func) regSet {
	var written regSet
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpR2P {
				return regSet{}
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg {
					written.addRegOf(o.Reg, ori.ClassP)
				}
			}
		}
	}
	var out regSet
	for n := 0; n < ori.ClassP.Limit(); n++ {
		if !written.has(n) {
			out.add(n)
		}
	}
	return out
}

// uniformBranchGuards moves the uniform predicate guarding a BRA into a
// P register dead there: no BRA word holds a uniform predicate (see
// the BRA forms), so
//
//	@!UP0 BRA BB3
//
// becomes
//
//	PLOP3.LUT P1, PT = PT, PT, UP0, 0x80, 0x0
//	@!P1 BRA BB3
//
// PLOP3's source C is the one that may be uniform (bit 67), and 0x80
// (a & b & c) with PT in A and B is C. A BRA where every P register is
// live (a .func: CALL and RET read everything here) keeps its guard and
// the encoder refuses it. In a whole-seen .func only the P registers it
// writes itself are candidates: its callers were allocated knowing only
// those change (regalloc/interproc.go).
func uniformBranchGuards(f *ori.Func, m *mirror) {
	var live *physLive
	for bi, b := range f.Blocks {
		var after []regSet
		var out []*ori.Inst
		for k, in := range b.Insts {
			if in.Op != ori.OpBRA || in.Guard.Class != ori.ClassUP || in.Guard.Virtual || in.Guard.IsZero() {
				out = append(out, in)
				continue
			}
			if live == nil {
				live = physLivenessOf(f, ori.ClassP)
			}
			if after == nil {
				after = live.afterEach(bi, b)
			}
			busy := after[k]
			busy.addInstOf(in, true, ori.ClassP)
			if f.WholeSeen() {
				// Its callers keep predicates across the call in every
				// P register it does not write (regalloc/interproc.go).
				busy.union(unwrittenP(f))
			}
			n := 0
			for n < ori.ClassP.Limit() && busy.has(n) {
				n++
			}
			if n == ori.ClassP.Limit() {
				out = append(out, in)
				continue
			}
			p := ori.PReg(ori.ClassP, n, 1)
			mv := ori.NewInst(ori.OpPLOP3, "LUT")
			mv.ID = f.NewID()
			mv.Line = in.Line
			mv.Dsts = []ori.Operand{ori.R(p), ori.R(ori.PT)}
			mv.Srcs = []ori.Operand{ori.R(ori.PT), ori.R(ori.PT), ori.R(in.Guard), ori.Imm(0x80), ori.Imm(0)}
			out = append(out, mv, in)
			if pre := m.byID[in.ID]; pre != nil {
				v := m.pre.NewVReg(ori.ClassP, 1)
				pm := mv.Clone()
				pm.Dsts = []ori.Operand{ori.R(v), ori.R(ori.PT)}
				pm.Srcs[2] = ori.R(pre.Guard)
				m.insertBefore(pre.ID, pm)
				pre.Guard = v
			}
			in.Guard = p
		}
		b.Insts = out
	}
}

// reduxToUR gives REDUX its uniform destination: the lowering writes
// redux.sync's result into an R register, but the only REDUX word has a
// UR destination (bits 16-23; ptxas writes REDUX.SUM UR5, R0 and moves
// UR5 on when it needs it in R), so
//
//	REDUX.SUM R7 = R0
//
// becomes
//
//	REDUX.SUM UR63 = R0
//	MOV R7 = UR63
//
// with ur a uniform register no function of the module uses (the MOV
// takes REDUX's guard, so a false guard leaves R7 as it was). Where the
// module uses every one, REDUX keeps its R destination and the encoder
// refuses it.
func reduxToUR(f *ori.Func, ur ori.Reg, m *mirror) {
	for _, b := range f.Blocks {
		var out []*ori.Inst
		for _, in := range b.Insts {
			out = append(out, in)
			if in.Op != ori.OpREDUX || len(in.Dsts) != 1 || in.Dsts[0].Kind != ori.OpdReg || in.Dsts[0].Reg.Class != ori.ClassR {
				continue
			}
			mv := ori.NewInst(ori.OpMOV)
			mv.ID = f.NewID()
			mv.Line = in.Line
			mv.Guard, mv.GuardNot = in.Guard, in.GuardNot
			mv.Dsts = []ori.Operand{in.Dsts[0]}
			mv.Srcs = []ori.Operand{ori.R(ur)}
			in.Dsts[0] = ori.R(ur)
			out = append(out, mv)
			if pre := m.byID[in.ID]; pre != nil {
				preUR := m.pre.NewVReg(ori.ClassUR, 1)
				pm := mv.Clone()
				pm.Guard = pre.Guard
				pm.Dsts = []ori.Operand{pre.Dsts[0]}
				pm.Srcs = []ori.Operand{ori.R(preUR)}
				pre.Dsts[0] = ori.R(preUR)
				m.insertAfter(pre.ID, pm)
			}
		}
		b.Insts = out
	}
}

// barRedResults splits orilab's BAR.RED d = id, [n,] p, whose result no
// BAR word holds, into the two instructions ptxas writes (measured on
// ptxas 13.0.88's words for bar.red.popc/.and/.or):
//
//	BAR.RED.AND 0x0, P1
//	B2R.RESULT RZ, P2          (AND, OR: the predicate result)
//	B2R.RESULT R4              (POPC: the count)
//
// B2R takes BAR.RED's guard. The simulator keeps each lane's reduction
// of its last BAR.RED without a result for B2R to read.
func barRedResults(f *ori.Func, m *mirror) {
	split := func(in *ori.Inst, id int32) *ori.Inst {
		b2r := ori.NewInst(ori.OpB2R, "RESULT")
		b2r.ID = id
		b2r.Line = in.Line
		b2r.Guard, b2r.GuardNot = in.Guard, in.GuardNot
		d := in.Dsts[0]
		if d.Kind == ori.OpdReg && (d.Reg.Class == ori.ClassP || d.Reg.Class == ori.ClassUP) {
			b2r.Dsts = []ori.Operand{ori.R(ori.RZ), d}
		} else {
			b2r.Dsts = []ori.Operand{d}
		}
		in.Dsts = nil
		return b2r
	}
	isBarRed := func(in *ori.Inst) bool {
		return in.Op == ori.OpBAR && len(in.Mods) > 0 && in.Mods[0] == "RED" && len(in.Dsts) == 1
	}
	for _, b := range f.Blocks {
		var out []*ori.Inst
		for _, in := range b.Insts {
			out = append(out, in)
			if !isBarRed(in) {
				continue
			}
			pre := m.byID[in.ID]
			b2r := split(in, f.NewID())
			out = append(out, b2r)
			if pre != nil && isBarRed(pre) {
				m.insertAfter(pre.ID, split(pre, b2r.ID))
			}
		}
		b.Insts = out
	}
}

// jumpTables turns each indirect branch of a kernel into ptxas's jump
// table, at PostFixForMercTargets. Ori's BRX a, BB0, ..., BBn-1 jumps to
// the a-th block; no SASS word holds a target list. ptxas 13.0.88 writes
// brx.idx (and its own switch tables) as
//
//	IMAD.SHL.U32 R0, R0, 0x4, RZ          the index times 4
//	LDC R4, c[0x2][R0]                    the entry: a target's offset
//	                                      from the kernel's start
//	SHF.R.S32.HI R5, RZ, 0x1f, R4         the pair's high word
//	BRX R4 -0x90                          jump to the kernel's start + R4
//
// with the table in .nv.constant2.KERNEL (4 bytes per entry, no
// relocations) and EIATTR_INDIRECT_BRANCH_TARGETS naming the BRX and
// its targets (measured: ptxas -O3 -arch sm_80 and sm_90 on brx.idx
// probes and testdata/opt/switch_chain, cuobjdump -sass and -elf).
//
// Here the table goes into the kernel's literal pool (ori.Func.Literals,
// bank 2), two 4-byte entries per 8-byte literal, after the literals
// already there; the BRX keeps its targets and names the table:
//
//	BRX R4.64, c[0x2][0x8], BB1, BB2, BB3
//
// Decision: in Ori, entry i holds i, and the simulator's BRX jumps to
// target i of the register's value, so the legalized code runs exactly
// as before; the cubin writer writes the targets' offsets into those
// entries (sass.JumpTable), which is what the hardware's BRX adds to the
// kernel's start. A BRX outside a kernel keeps its index form, and the
// encoder refuses it: bank 2 is the launched kernel's, and a .func may
// be called from several kernels. So does a BRX where no register pair
// is free. The lowering inlines every .func holding brx.idx that it can
// (lower/inlinebrx.go), so this refusal remains only for a BRX in a .func
// whose address is taken, that is recursive, or whose call could not be
// inlined.
//
// What ptxas does there (13.0.88, sm_80 and sm_90, -O0 and -O3, brx.idx
// in a .visible .func called from one kernel; cuobjdump -sass and -elf):
// the callee's code lies inside .text.KERNEL after the kernel's EXIT (no
// .text.FUNC section), and its table is in .nv.constant2.KERNEL with the
// targets' offsets from the kernel's start, read by LDC c[0x2][R] and
// BRX R -PC as above; no relocation touches the table (sm_90's
// .rela.nv.constant2.k is empty). So ptxas sidesteps the question by
// giving each kernel its own copy of its callees. orilab writes every
// .func once, in its own .text.FUNC section, and instead inlines such a
// callee at each call in the lowering (lower/inlinebrx.go, whose
// Decision compares the two).

func jumpTables(f *ori.Func, m *mirror) {
	if !f.Entry {
		return
	}
	var live *physLive
	for bi, b := range f.Blocks {
		k := len(b.Insts) - 1
		if k < 0 {
			continue
		}
		in := b.Insts[k]
		if in.Op != ori.OpBRX || len(in.Srcs) < 2 || in.Srcs[1].Kind != ori.OpdBlock ||
			in.Srcs[0].Kind != ori.OpdReg || in.Srcs[0].Reg.Class != ori.ClassR {
			continue
		}
		if live == nil {
			live = physLiveness(f)
		}
		after := live.afterEach(bi, b)
		pair, ok := scratchReg(f, in, after[k], 2)
		if !ok {
			continue
		}
		n := len(in.Srcs) - 1
		base := 8 * len(f.Literals)
		for i := 0; i < n; i += 2 {
			v := uint64(i)
			if i+1 < n {
				v |= uint64(i+1) << 32
			}
			f.Literals = append(f.Literals, v)
		}
		lo := ori.PReg(ori.ClassR, int(pair.N), 1)
		hi := ori.PReg(ori.ClassR, int(pair.N)+1, 1)
		ins := tableLoad(f, in, in.Srcs[0], lo, hi, base)
		b.Insts = append(b.Insts[:k], append(ins, in)...)
		table := ori.CBank(literalBank, int64(base))
		in.Srcs = append([]ori.Operand{ori.R(pair), table}, in.Srcs[1:]...)
		if p := m.byID[in.ID]; p != nil && p.Op == ori.OpBRX && len(p.Srcs) == len(in.Srcs)-1 {
			v := m.pre.NewVReg(ori.ClassR, 2)
			pins := tableLoad(f, p, p.Srcs[0], v.Word(0), v.Word(1), base)
			m.insertBefore(p.ID, pins...)
			p.Srcs = append([]ori.Operand{ori.R(v), table}, p.Srcs[1:]...)
			m.pre.Literals = append([]uint64(nil), f.Literals...)
		}
	}
}

// tableLoad returns the three instructions that load the jump-table
// entry of index idx, for the BRX in, into the pair lo, hi.
func tableLoad(f *ori.Func, in *ori.Inst, idx ori.Operand, lo, hi ori.Reg, base int) []*ori.Inst {
	mk := func(op ori.Opcode, mods []string, d ori.Reg, srcs ...ori.Operand) *ori.Inst {
		x := ori.NewInst(op, mods...)
		x.ID = f.NewID()
		x.Line = in.Line
		x.Guard, x.GuardNot = in.Guard, in.GuardNot
		x.Dsts = []ori.Operand{ori.R(d)}
		x.Srcs = srcs
		return x
	}
	entry := ori.CBank(literalBank, int64(base))
	entry.HasBase, entry.Reg = true, lo
	return []*ori.Inst{
		mk(ori.OpIMAD, []string{"SHL", "U32"}, lo, idx, ori.Imm(2), ori.R(ori.RZ)),
		mk(ori.OpLDC, nil, lo, entry),
		mk(ori.OpSHF, []string{"R", "S32", "HI"}, hi, ori.R(ori.RZ), ori.Imm(0x1f), ori.R(lo)),
	}
}
