package sim

import (
	"fmt"
	"strings"

	"orilab/pipeline/ori"
)

// Operand kinds after decoding.
const (
	okReg   uint8 = iota // R/UR register word(s)
	okPred               // P/UP predicate
	okImm                // immediate
	okCBank              // c[bank][off] or c[bank][reg+off]
	okMem                // [reg+off] or [off]
	okSR                 // special register
	okBlock              // branch target
	okSym                // symbol
)

// opnd is a decoded operand. Register operands name a slot: for virtual
// registers an index into the frame's register array, for physical ones
// into the warp's. Both arrays hold 32 lanes per slot.
type opnd struct {
	kind  uint8
	phys  bool
	zero  bool // RZ/URZ (reads 0) or PT/UPT (reads true)
	words uint8
	neg   bool
	abs   bool
	not   bool
	fk    ori.FloatKind
	// uniform marks a UR/UP register: one value per warp. After an
	// instruction writes one, every lane gets the value (see
	// machine.broadcastUniform), as the uniform datapath does, so a value
	// written under divergence is seen by the whole warp (and a
	// conversion to UR that is wrong under divergence shows up in the
	// simulator).
	uniform bool
	slot    int32 // register slot (first word) or predicate index; base register for okMem/okCBank
	base    bool  // okMem/okCBank: has a base register (slot is valid)
	bank    int32
	imm     uint64 // immediate bits, or address offset
	sr      string
	block   int32 // okBlock: instruction index of the target
	// from is, on an okBlock branch target, the block a thread that takes
	// the branch arrives from at the target's first instruction: the
	// branching block, or the last block of a run of empty blocks the
	// target starts (see code.enterFrom).
	from int32
	sym  string
}

// dinst is a decoded instruction.
type dinst struct {
	in     *ori.Inst
	op     ori.Opcode
	mods   map[string]bool
	guard  opnd
	dst    []opnd
	src    []opnd
	exec   execFn
	callee *code // CALL target
	// retPoint is, on a CALL, the return point its caller's MOV of
	// ori.RetAddrSym loads: the callee's RET.REL.NODEC must read it back.
	retPoint uint32
	// uniformDst is set when a result is a UR or UP register.
	uniformDst bool
	// blk is the ID of the instruction's block; last marks the last
	// instruction of a block: threads leave the block after it, recording
	// the block they arrive from, which MOV.PHI reads. fall is that block
	// for a thread that falls through: blk, or the last of the empty
	// blocks that follow it. BRA and BRX (jumps) record it themselves,
	// per thread, from the edge each takes.
	blk   int32
	last  bool
	fall  int32
	jumps bool
	// phiGroup is, on the first MOV.PHI of a block, the number of phis
	// that start the block: they execute together as one parallel copy.
	// phiFrom[j] is the predecessor block of value j of a MOV.PHI.
	phiGroup int
	phiFrom  []int32
}

func (d *dinst) has(m string) bool { return d.mods[m] }

// code is a decoded function.
type code struct {
	fn     *ori.Func
	insts  []dinst
	nSlots int // virtual R/UR word slots
	nPreds int // virtual P/UP predicates
	// blockIndex maps block IDs to the index of their first instruction;
	// blockOf maps instruction indices back to block IDs (for messages).
	blockIndex map[int32]int32
	// entryFrom is the block a thread arrives from at the first
	// instruction: -1 (none), or the last block of a run of empty blocks
	// the function starts with.
	entryFrom int32
}

type execFn func(s *machine, w *warp, f *frame, d *dinst, mask uint32) error

// decoder turns a module's functions into code.
type decoder struct {
	m     *ori.Module
	codes map[string]*code
}

func decodeModule(m *ori.Module) (map[string]*code, error) {
	d := &decoder{m: m, codes: map[string]*code{}}
	for _, f := range m.Funcs {
		d.codes[f.Name] = &code{fn: f}
	}
	for _, f := range m.Funcs {
		if err := d.decode(d.codes[f.Name]); err != nil {
			return nil, err
		}
	}
	return d.codes, nil
}

type vkey struct {
	class ori.RegClass
	n     int32
}

func (dc *decoder) decode(c *code) error {
	f := c.fn
	// Size every virtual register by the widest slice any operand uses.
	width := map[vkey]int{}
	note := func(r ori.Reg) {
		if !r.Virtual {
			return
		}
		k := vkey{r.Class, r.N}
		if w := int(r.Off) + int(r.Words); w > width[k] {
			width[k] = w
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			note(in.Guard)
			for _, o := range append(append([]ori.Operand(nil), in.Dsts...), in.Srcs...) {
				if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
					note(o.Reg)
				}
			}
		}
	}
	base := map[vkey]int32{}
	keys := make([]vkey, 0, len(width))
	for k := range width {
		keys = append(keys, k)
	}
	// Deterministic slot order: by class, then number.
	sortKeys(keys)
	for _, k := range keys {
		if k.class.IsPred() {
			base[k] = int32(c.nPreds)
			c.nPreds++
			continue
		}
		base[k] = int32(c.nSlots)
		c.nSlots += width[k]
	}
	c.blockIndex = map[int32]int32{}
	layout := map[int32]int{}
	n := 0
	for i, b := range f.Blocks {
		c.blockIndex[b.ID] = int32(n)
		layout[b.ID] = i
		n += len(b.Insts)
	}
	c.entryFrom = enterFrom(f.Blocks, 0, -1)
	c.insts = make([]dinst, 0, n)
	reg := func(r ori.Reg) (opnd, error) {
		o := opnd{kind: okReg, words: r.Words, uniform: r.Class == ori.ClassUR || r.Class == ori.ClassUP}
		if r.Class.IsPred() {
			o.kind = okPred
		}
		switch {
		case r.IsZero():
			o.zero, o.phys = true, true
		case r.Virtual:
			b := base[vkey{r.Class, r.N}]
			if o.kind == okPred {
				o.slot = b
			} else {
				o.slot = b + int32(r.Off)
			}
		default:
			o.phys = true
			o.slot = r.N
			if r.Class == ori.ClassUR || r.Class == ori.ClassUP {
				o.slot += uniformBase
			}
		}
		return o, nil
	}
	// cur is the block being decoded: the source of its branch edges.
	var cur int32
	operand := func(x ori.Operand) (opnd, error) {
		switch x.Kind {
		case ori.OpdReg:
			o, err := reg(x.Reg)
			o.neg, o.abs, o.not = x.Neg, x.Abs, x.Not
			return o, err
		case ori.OpdImm:
			return opnd{kind: okImm, imm: uint64(x.Imm), fk: x.FKind, words: 1}, nil
		case ori.OpdCBank, ori.OpdMem:
			o := opnd{kind: okCBank, bank: x.Bank, imm: uint64(x.Imm)}
			if x.Kind == ori.OpdMem {
				o.kind = okMem
			}
			if x.HasBase {
				r, err := reg(x.Reg)
				if err != nil {
					return o, err
				}
				o.base, o.slot, o.phys, o.zero, o.words = true, r.slot, r.phys, r.zero, r.words
			}
			return o, nil
		case ori.OpdSR:
			return opnd{kind: okSR, sr: x.Name, words: 1}, nil
		case ori.OpdBlock:
			idx, ok := c.blockIndex[x.Block]
			if !ok {
				return opnd{}, fmt.Errorf("%s: branch to unknown block BB%d", f.Name, x.Block)
			}
			return opnd{kind: okBlock, block: idx, from: enterFrom(f.Blocks, layout[x.Block], cur)}, nil
		case ori.OpdSym:
			return opnd{kind: okSym, sym: x.Name}, nil
		}
		return opnd{}, fmt.Errorf("%s: unknown operand kind", f.Name)
	}
	for bi, b := range f.Blocks {
		cur = b.ID
		phis := 0
		for phis < len(b.Insts) && b.Insts[phis].IsPhi() {
			phis++
		}
		for i, in := range b.Insts {
			d := dinst{in: in, op: in.Op, mods: map[string]bool{}, blk: b.ID, last: i == len(b.Insts)-1,
				fall: enterFrom(f.Blocks, bi+1, b.ID), jumps: in.Op == ori.OpBRA || in.Op == ori.OpBRX}
			if i == 0 {
				d.phiGroup = phis
			}
			for _, m := range in.Mods {
				d.mods[m] = true
			}
			g, err := reg(in.Guard)
			if err != nil {
				return err
			}
			g.not = in.GuardNot
			d.guard = g
			for _, o := range in.Dsts {
				x, err := operand(o)
				if err != nil {
					return err
				}
				d.dst = append(d.dst, x)
				d.uniformDst = d.uniformDst || x.uniform
			}
			for j, o := range in.Srcs {
				if in.IsPhi() && j%2 == 1 {
					if o.Kind != ori.OpdBlock {
						return fmt.Errorf("%s: #%d: MOV.PHI source %d is not followed by a block", f.Name, in.ID, j/2+1)
					}
					d.phiFrom = append(d.phiFrom, o.Block)
				}
				x, err := operand(o)
				if err != nil {
					return err
				}
				d.src = append(d.src, x)
			}
			if in.Op == ori.OpMOV && len(in.Srcs) == 1 && in.Srcs[0].IsRetAddr() {
				// The return point of the block's next CALL: the byte
				// offset after it in this function's linear order, the
				// number that CALL hands its callee to return with.
				j := ori.ReturnCall(b, i)
				if j < 0 {
					return fmt.Errorf("%s: #%d: the return address is loaded but no CALL follows in its block", f.Name, in.ID)
				}
				d.src[0] = opnd{kind: okImm, imm: uint64(16 * (c.blockIndex[b.ID] + int32(j) + 1)), words: 1}
			}
			if in.Op == ori.OpMOV && len(in.Srcs) == 1 && in.Srcs[0].IsFuncAddr() {
				// A function address: the simulator's own (ori.FuncAddr),
				// the index of the function in the module.
				idx := -1
				for k, g := range dc.m.Funcs {
					if g.Name == in.Srcs[0].Name {
						idx = k
					}
				}
				if idx < 0 {
					return fmt.Errorf("%s: #%d: the address of %s, which is not a function of the module", f.Name, in.ID, in.Srcs[0].Name)
				}
				d.src[0] = opnd{kind: okImm, imm: ori.FuncAddr(idx), words: 1}
			}
			if in.Op == ori.OpCALL {
				d.retPoint = uint32(16 * (c.blockIndex[b.ID] + int32(i) + 1))
			}
			if in.Op == ori.OpCALL && len(d.src) > 0 && d.src[0].kind == okReg {
				// An indirect call: the target is read at run time.
			} else if in.Op == ori.OpCALL {
				if len(d.src) == 0 || d.src[0].kind != okSym {
					return fmt.Errorf("%s: #%d: CALL needs a function symbol or an address register", f.Name, in.ID)
				}
				d.callee = dc.codes[d.src[0].sym]
				if d.callee == nil {
					return fmt.Errorf("%s: #%d: call to unknown function %s", f.Name, in.ID, d.src[0].sym)
				}
			}
			fn, err := selectExec(&d)
			if err != nil {
				return fmt.Errorf("%s: #%d %s: %v", f.Name, in.ID, in.Name(), err)
			}
			d.exec = fn
			c.insts = append(c.insts, d)
		}
	}
	return nil
}

// enterFrom returns the block a thread arrives from when it enters
// blocks[i] from block src. Empty blocks are legal (hoisting can empty
// one) and fall through to the next block in the layout, so a thread
// entering a run of them reaches the next instruction from the run's last
// block, which is the predecessor a MOV.PHI there names.
func enterFrom(blocks []*ori.Block, i int, src int32) int32 {
	for ; i < len(blocks) && len(blocks[i].Insts) == 0; i++ {
		src = blocks[i].ID
	}
	return src
}

func sortKeys(ks []vkey) {
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && (ks[j].class < ks[j-1].class || ks[j].class == ks[j-1].class && ks[j].n < ks[j-1].n); j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
}

// selectExec picks the implementation of an instruction.
func selectExec(d *dinst) (execFn, error) {
	if d.in.IsPhi() {
		return execPhi, nil
	}
	fn := execTable[d.op]
	if fn == nil {
		return nil, fmt.Errorf("the simulator does not implement %s", d.op)
	}
	return fn, nil
}

// execTable is filled by the exec_*.go files.
var execTable = map[ori.Opcode]execFn{}

func modsString(d *dinst) string { return strings.Join(d.in.Mods, ".") }
