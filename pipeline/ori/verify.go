package ori

import (
	"fmt"
	"strings"
)

// VerifyOptions selects the rules that depend on the pipeline position.
type VerifyOptions struct {
	// SSA enables the partial-SSA rules that hold between GenerateMovPhi
	// and ConvertAllMovPhiToMov: every MOV.PHI result has one definition
	// and MOV.PHI instructions are well formed. Without it, MOV.PHI is
	// itself an error.
	SSA bool
}

// VerifyError is one broken invariant.
type VerifyError struct {
	Func  string
	Block int32 // -1 when the problem is not inside a block
	Inst  int32 // 0 when the problem is not about one instruction
	Rule  string
	Msg   string
}

func (e *VerifyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "verify %s", e.Func)
	if e.Block >= 0 {
		fmt.Fprintf(&b, " BB%d", e.Block)
	}
	if e.Inst > 0 {
		fmt.Fprintf(&b, " #%d", e.Inst)
	}
	fmt.Fprintf(&b, ": [%s] %s", e.Rule, e.Msg)
	return b.String()
}

// VerifyErrors is every problem the verifier found, in block order.
type VerifyErrors []*VerifyError

func (l VerifyErrors) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Verify checks f's invariants and returns VerifyErrors, or nil.
//
// Rules, by name:
//
//	cfg            block IDs unique, branch targets exist, Preds/Succs match the terminators
//	terminator     a branch, EXIT or RET is the last instruction of its block
//	signature      operand counts and kinds match the opcode's signature
//	guard          the guard is a predicate register
//	use-before-def a virtual register is read on some path before any definition
//	phys-range     a physical register is outside its class's range
//	alignment      a physical 64/128-bit tuple is not aligned to its size
//	ssa            (SSA mode) a MOV.PHI result is defined more than once
//	phi            MOV.PHI placement and operands (only in SSA mode)
//	uniform        a uniform-datapath instruction (UIADD3, ULDC...) reads or writes a non-uniform register
func Verify(f *Func, opts VerifyOptions) error {
	v := &verifier{f: f, opts: opts}
	v.cfg()
	for _, b := range f.Blocks {
		for i, in := range b.Insts {
			v.inst(b, i, in)
		}
	}
	if opts.SSA {
		v.ssa()
	}
	v.useBeforeDef()
	if len(v.errs) == 0 {
		return nil
	}
	return v.errs
}

type verifier struct {
	f    *Func
	opts VerifyOptions
	errs VerifyErrors
}

func (v *verifier) errorf(b *Block, in *Inst, rule, format string, args ...any) {
	e := &VerifyError{Func: v.f.Name, Block: -1, Rule: rule, Msg: fmt.Sprintf(format, args...)}
	if b != nil {
		e.Block = b.ID
	}
	if in != nil {
		e.Inst = in.ID
	}
	v.errs = append(v.errs, e)
}

func (v *verifier) cfg() {
	if len(v.f.Blocks) == 0 {
		v.errorf(nil, nil, "cfg", "function has no blocks")
		return
	}
	seen := map[int32]bool{}
	for _, b := range v.f.Blocks {
		if seen[b.ID] {
			v.errorf(b, nil, "cfg", "block ID BB%d is used twice", b.ID)
		}
		seen[b.ID] = true
	}
	// Recompute the edges on a copy and compare with what the function
	// claims, so a phase that changed branches without ComputeCFG is caught.
	// Only the blocks are copied: the edges are computed from the
	// terminators, which the copy shares read-only (a deep copy of every
	// instruction was half of the verifier's time).
	c := &Func{Name: v.f.Name, Blocks: make([]*Block, len(v.f.Blocks))}
	for i, b := range v.f.Blocks {
		nb := *b
		nb.Preds, nb.Succs = nil, nil // computeEdges reuses their arrays
		c.Blocks[i] = &nb
	}
	if err := c.computeEdges(); err != nil {
		v.errorf(nil, nil, "cfg", "%v", err)
		return
	}
	for i, b := range v.f.Blocks {
		want := c.Blocks[i]
		if blockList(b.Succs) != blockList(want.Succs) {
			v.errorf(b, nil, "cfg", "successors are [%s] but the terminator gives [%s]", blockList(b.Succs), blockList(want.Succs))
		}
		if blockList(b.Preds) != blockList(want.Preds) {
			v.errorf(b, nil, "cfg", "predecessors are [%s] but the branches give [%s]", blockList(b.Preds), blockList(want.Preds))
		}
	}
}

func (v *verifier) inst(b *Block, i int, in *Inst) {
	if in.EndsBlock() && i != len(b.Insts)-1 {
		v.errorf(b, in, "terminator", "%s is not the last instruction of its block", in.Name())
	}
	if in.Op == OpInvalid || in.Op >= numOpcodes {
		v.errorf(b, in, "signature", "invalid opcode")
		return
	}
	if !in.Guard.Class.IsPred() || in.Guard.Words != 1 {
		v.errorf(b, in, "guard", "guard %s is not a predicate register", in.Guard)
	}
	if in.IsPhi() {
		if !v.opts.SSA {
			v.errorf(b, in, "phi", "MOV.PHI outside the partial-SSA window")
		}
		for j := 0; j < i; j++ {
			if !b.Insts[j].IsPhi() {
				v.errorf(b, in, "phi", "MOV.PHI after a non-phi instruction (#%d)", b.Insts[j].ID)
				break
			}
		}
		v.phiOperands(b, in)
	} else {
		info := opTable[in.Op]
		v.signature(b, in, "result", info.dsts, in.Dsts)
		v.signature(b, in, "source", info.srcs, in.Srcs)
	}
	if in.Op == OpMOV && len(in.Srcs) == 1 && in.Srcs[0].IsRetAddr() && ReturnCall(b, i) < 0 {
		v.errorf(b, in, "signature", "the return address `%s` is loaded but no CALL follows in its block", RetAddrSym)
	}
	check := func(r Reg) {
		if r.Virtual || r.IsZero() {
			return
		}
		if r.N < 0 || int(r.N)+int(r.Words) > r.Class.Limit() {
			v.errorf(b, in, "phys-range", "%s is outside %s0-%s%d", r, r.Class, r.Class, r.Class.Limit()-1)
		}
		if r.Words > 1 && int(r.N)%int(r.Words) != 0 {
			v.errorf(b, in, "alignment", "%s is a %d-register tuple that does not start at a multiple of %d", r, r.Words, r.Words)
		}
	}
	forRegs(in, func(r Reg, _ bool) { check(r) })
	if in.Op.Has(FUniform) {
		v.uniformOperands(b, in)
	}
}

// uniformOperands checks that a uniform-datapath instruction reads and
// writes only the uniform files (and immediates, special registers and
// constant banks without a base register): it runs once per warp and has
// no per-thread values to read.
func (v *verifier) uniformOperands(b *Block, in *Inst) {
	uniform := func(r Reg) bool { return r.Class == ClassUR || r.Class == ClassUP }
	if in.Guarded() && !uniform(in.Guard) {
		v.errorf(b, in, "uniform", "%s is guarded by %s, not a uniform predicate", in.Name(), in.Guard)
	}
	for _, o := range in.Dsts {
		if o.Kind == OpdReg && !uniform(o.Reg) {
			v.errorf(b, in, "uniform", "%s writes %s, not a uniform register", in.Name(), o.Reg)
		}
	}
	for _, o := range in.Srcs {
		switch {
		case o.Kind == OpdReg && !uniform(o.Reg):
			v.errorf(b, in, "uniform", "%s reads %s, not a uniform register", in.Name(), o.Reg)
		case (o.Kind == OpdCBank || o.Kind == OpdMem) && o.HasBase && !uniform(o.Reg):
			v.errorf(b, in, "uniform", "%s addresses through %s, not a uniform register", in.Name(), o.Reg)
		}
	}
}

// forRegs calls f for every register in: the guard, results (def=true) and
// sources, including address bases.
func forRegs(in *Inst, f func(r Reg, def bool)) {
	f(in.Guard, false)
	for _, o := range in.Srcs {
		if r, ok := o.usesReg(); ok {
			f(r, false)
		}
	}
	for _, o := range in.Dsts {
		if o.Kind == OpdReg {
			f(o.Reg, true)
		} else if r, ok := o.usesReg(); ok {
			f(r, false)
		}
	}
}

func (v *verifier) signature(b *Block, in *Inst, what, sig string, ops []Operand) {
	if sig == "*" {
		return
	}
	letters := strings.Fields(sig)
	req := 0
	for i, l := range letters {
		if !strings.HasSuffix(l, "?") {
			req = i + 1
		}
	}
	if len(ops) < req || len(ops) > len(letters) {
		want := fmt.Sprint(req)
		if len(letters) != req {
			want = fmt.Sprintf("%d to %d", req, len(letters))
		}
		v.errorf(b, in, "signature", "%s has %d %ss, want %s", in.Name(), len(ops), what, want)
		return
	}
	for i, o := range ops {
		if !fitsSig(letters[i][0], o) {
			v.errorf(b, in, "signature", "%s %d of %s is %s, want %s", what, i+1, in.Name(), o, sigWant[letters[i][0]])
		}
	}
}

var sigWant = map[byte]string{
	'R': "an R or UR register",
	'P': "a predicate register",
	'v': "a register, immediate, constant or special register",
	'a': "a register, immediate, constant, special register, the return address or a function address",
	'M': "a memory address",
	'C': "a constant-bank operand",
	'B': "a block",
	'S': "a special register",
	'Y': "a symbol",
	'i': "an immediate",
}

func fitsSig(l byte, o Operand) bool {
	switch l {
	case 'R':
		return o.Kind == OpdReg && !o.Reg.Class.IsPred()
	case 'P':
		return o.Kind == OpdReg && o.Reg.Class.IsPred()
	case 'v':
		return o.Kind == OpdReg && !o.Reg.Class.IsPred() || o.Kind == OpdImm || o.Kind == OpdCBank || o.Kind == OpdSR
	case 'a':
		return fitsSig('v', o) || o.IsRetAddr() || o.IsFuncAddr()
	case 'M':
		return o.Kind == OpdMem
	case 'C':
		return o.Kind == OpdCBank
	case 'B':
		return o.Kind == OpdBlock
	case 'S':
		return o.Kind == OpdSR
	case 'Y':
		return o.Kind == OpdSym
	case 'i':
		return o.Kind == OpdImm
	}
	return false
}

func (v *verifier) phiOperands(b *Block, in *Inst) {
	if len(in.Dsts) != 1 || in.Dsts[0].Kind != OpdReg || !in.Dsts[0].Reg.Virtual {
		v.errorf(b, in, "phi", "MOV.PHI needs exactly one virtual register result")
	}
	if len(in.Srcs)%2 != 0 {
		v.errorf(b, in, "phi", "MOV.PHI sources must be (value, block) pairs")
		return
	}
	got := map[int32]bool{}
	for j := 0; j < len(in.Srcs); j += 2 {
		if in.Srcs[j+1].Kind != OpdBlock {
			v.errorf(b, in, "phi", "MOV.PHI source %d is not followed by a block", j/2+1)
			return
		}
		id := in.Srcs[j+1].Block
		if got[id] {
			v.errorf(b, in, "phi", "MOV.PHI names predecessor BB%d twice", id)
		}
		got[id] = true
	}
	for _, p := range b.Preds {
		if !got[p.ID] {
			v.errorf(b, in, "phi", "MOV.PHI has no value for predecessor BB%d", p.ID)
		}
		delete(got, p.ID)
	}
	for id := range got {
		v.errorf(b, in, "phi", "MOV.PHI names BB%d, which is not a predecessor", id)
	}
}

// ssa checks the single-definition property of the partial-SSA window:
// a register that a MOV.PHI defines has no other definition. Registers
// GenerateMovPhi leaves out (guarded definitions, tuples) may still have
// several, which is what makes the form partial.
func (v *verifier) ssa() {
	phiDef := map[Reg]int32{}
	for _, b := range v.f.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() && len(in.Dsts) == 1 && in.Dsts[0].Kind == OpdReg && in.Dsts[0].Reg.Virtual {
				r := in.Dsts[0].Reg
				phiDef[Reg{Class: r.Class, Virtual: true, N: r.N}] = in.ID
			}
		}
	}
	if len(phiDef) == 0 {
		return
	}
	defs := map[Reg]int32{}
	for _, b := range v.f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind != OpdReg || !o.Reg.Virtual {
					continue
				}
				key := Reg{Class: o.Reg.Class, Virtual: true, N: o.Reg.N}
				if _, ok := phiDef[key]; !ok {
					continue
				}
				if first, ok := defs[key]; ok {
					v.errorf(b, in, "ssa", "%s, the result of a MOV.PHI, is defined again (first definition #%d)", key.Word(0).Wide(1), first)
					continue
				}
				defs[key] = in.ID
			}
		}
	}
}

// wordKey identifies one 32-bit word of a virtual register.
//
// The fields are ordered, and padded by a named always-zero field, so that
// the struct is eight bytes of plain memory, which maps hash as one word.
type wordKey struct {
	n     int32
	class RegClass
	word  uint8
	pad   uint16 // always 0
}

// UndefinedReads returns the virtual register words that some path from
// the entry reads before writing (each once, in program order). PTX
// registers start undefined, so the lowering uses this to give such
// registers a definite value.
func UndefinedReads(f *Func) []Reg {
	v := &verifier{f: f}
	return v.undefinedReads(nil)
}

func (v *verifier) useBeforeDef() {
	v.undefinedReads(func(b *Block, in *Inst, r Reg) {
		v.errorf(b, in, "use-before-def", "%s is read before it is defined on some path from the entry", r)
	})
}

// undefinedReads runs a forward must-be-defined analysis over virtual
// register words. A word is defined at a point when every path from the
// entry defines it. Decision: a guarded definition counts as a definition,
// as PTX compilers emit complementary guarded moves (@p mov; @!p mov) that
// together define a value; flagging those would reject real code.
// MOV.PHI sources are uses at the end of the named predecessor.
func (v *verifier) undefinedReads(report func(b *Block, in *Inst, r Reg)) []Reg {
	f := v.f
	var found []Reg
	if len(f.Blocks) == 0 {
		return nil
	}
	// The dense index of the live sets (a map here was a third of the
	// analysis), sized for every virtual register the function numbered,
	// and its sets, reused from call to call (indexScratch).
	sc := indexPool.Get().(*indexScratch)
	defer sc.release()
	index := &sc.index
	index.size(f)
	key := func(r Reg, w int) int {
		k := wordKey{n: r.N, class: r.Class, word: r.Off + uint8(w)}
		if i, ok := index.get(k); ok {
			return i
		}
		index.set(k, len(sc.keys))
		sc.keys = append(sc.keys, k)
		return len(sc.keys) - 1
	}
	// Number every word first so bitsets have a fixed size.
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			forRegs(in, func(r Reg, _ bool) {
				if r.Virtual {
					for w := 0; w < int(r.Words); w++ {
						key(r, w)
					}
				}
			})
		}
	}
	n := len(sc.keys)
	if n == 0 {
		return nil
	}
	nb := len(f.Blocks)
	sc.sets, sc.slab = cutBitsetsInto(sc.sets, sc.slab, 3*nb+2, n)
	sets := sc.sets
	gen, in, out := sets[:nb:nb], sets[nb:2*nb:2*nb], sets[2*nb:3*nb:3*nb]
	reported := sets[3*nb]
	blocks := newBlockIndex(f.Blocks)
	// pos is a block's index, 0 for a block not in f (as a map answered).
	pos := func(b *Block) int {
		i, _ := blocks.pos(b)
		return i
	}
	for i, b := range f.Blocks {
		out[i].fill() // optimistic start for a must-analysis
		for _, ins := range b.Insts {
			for _, o := range ins.Dsts {
				if o.Kind == OpdReg && o.Reg.Virtual {
					for w := 0; w < int(o.Reg.Words); w++ {
						gen[i].set(key(o.Reg, w))
					}
				}
			}
		}
	}
	// Unreachable blocks never execute: they are skipped, and as
	// predecessors they do not constrain the blocks they branch to.
	reach := make([]bool, len(f.Blocks))
	stack := []*Block{f.Blocks[0]}
	reach[0] = true
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range b.Succs {
			if i, ok := blocks.pos(s); ok && !reach[i] {
				reach[i] = true
				stack = append(stack, s)
			}
		}
	}
	// The sets are updated in place: in[i] is only read by block i, and
	// o is scratch.
	o := sets[3*nb+1]
	for changed := true; changed; {
		changed = false
		for i, b := range f.Blocks {
			if !reach[i] {
				continue
			}
			cur := in[i]
			clear(cur)
			if i != 0 {
				// The entry starts with nothing defined.
				cur.fill()
				for _, p := range b.Preds {
					if reach[pos(p)] {
						cur.and(out[pos(p)])
					}
				}
			}
			copy(o, cur)
			o.or(gen[i])
			if !o.equal(out[i]) {
				copy(out[i], o)
				changed = true
			}
		}
	}
	cur := o
	for i, b := range f.Blocks {
		if !reach[i] {
			continue // unreachable: nothing executes here
		}
		copy(cur, in[i])
		for _, ins := range b.Insts {
			use := func(r Reg) {
				if !r.Virtual {
					return
				}
				for w := 0; w < int(r.Words); w++ {
					k := key(r, w)
					if !cur.has(k) && !reported.has(k) {
						reported.set(k)
						found = append(found, r.Word(w))
						if report != nil {
							report(b, ins, r.Word(w))
						}
					}
				}
			}
			if ins.IsPhi() {
				for j := 0; j+1 < len(ins.Srcs); j += 2 {
					if ins.Srcs[j].Kind != OpdReg || !ins.Srcs[j].Reg.Virtual {
						continue
					}
					// The first block with the ID, as BlockByID answers,
					// without its scan of the blocks.
					pi, ok := blocks.first(ins.Srcs[j+1].Block)
					if !ok {
						continue
					}
					r := ins.Srcs[j].Reg
					for w := 0; w < int(r.Words); w++ {
						k := key(r, w)
						if !out[pi].has(k) && !reported.has(k) {
							reported.set(k)
							found = append(found, r.Word(w))
							if report != nil {
								report(b, ins, r.Word(w))
							}
						}
					}
				}
			} else {
				forRegs(ins, func(r Reg, def bool) {
					if !def {
						use(r)
					}
				})
			}
			for _, o := range ins.Dsts {
				if o.Kind == OpdReg && o.Reg.Virtual {
					for w := 0; w < int(o.Reg.Words); w++ {
						cur.set(key(o.Reg, w))
					}
				}
			}
		}
	}
	return found
}

// bitset is a fixed-size set of small integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (s bitset) set(i int)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) fill() {
	for i := range s {
		s[i] = ^uint64(0)
	}
}
func (s bitset) and(o bitset) {
	for i := range s {
		s[i] &= o[i]
	}
}
func (s bitset) or(o bitset) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s bitset) clone() bitset { return append(bitset(nil), s...) }
func (s bitset) equal(o bitset) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// newBitsets returns count empty sets of n bits cut from one allocation
// (each capped, so that growing one cannot write into the next): the
// live sets of every block of a function, allocated one by one, were the
// most frequent allocation of a compile.
func newBitsets(count, n int) []bitset {
	w := (n + 63) / 64
	slab := make([]uint64, count*w)
	sets := make([]bitset, count)
	for i := range sets {
		sets[i] = bitset(slab[i*w : (i+1)*w : (i+1)*w])
	}
	return sets
}
