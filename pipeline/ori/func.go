package ori

import (
	"fmt"
	"maps"
)

// Module is a compiled PTX module: its functions and its module-scope data.
type Module struct {
	Arch        int // SM number, 75 for sm_75
	AddressSize int // 32 or 64
	Globals     []*Global
	// TexVars are the module's .texref and .surfref variables in
	// declaration order. They have no storage: the driver binds a
	// texture or surface to each by name and writes its header index
	// into the bank-0 words the kernels list in Func.TexRefs.
	TexVars []TexVar
	Funcs   []*Func
}

// TexVar is a module-scope .texref or .surfref.
type TexVar struct {
	Name    string
	Surface bool // a .surfref
}

// Space is a state space of module data.
type Space uint8

const (
	SpaceGlobal Space = iota // device memory; the address sits in constant bank 4
	SpaceConst               // constant bank 3
	SpaceShared              // per-CTA shared memory (module-scope .shared)
)

func (s Space) String() string {
	switch s {
	case SpaceGlobal:
		return "global"
	case SpaceConst:
		return "const"
	case SpaceShared:
		return "shared"
	}
	return fmt.Sprintf("space%d", int(s))
}

// Global is a module-scope variable.
//
// Decision: as in ptxas, the address of a .global variable is not an
// immediate: it is a 64-bit value in constant bank 4 at AddrSlot that the
// loader fills (a relocation in a real cubin), and .const variables live
// in constant bank 3 at Offset. Shared variables get their offset per
// kernel, in Func.SharedVars.
type Global struct {
	Name     string
	Space    Space
	Size     int64  // bytes
	Align    int64  // bytes
	Init     []byte // initial contents (shorter than Size: the rest is zero)
	Offset   int64  // SpaceConst: byte offset in bank 3
	AddrSlot int64  // SpaceGlobal: byte offset in bank 4 of the 64-bit address
}

// Param is a kernel or function parameter.
type Param struct {
	Name   string
	Size   int64 // bytes
	Align  int64 // bytes
	Offset int64 // kernels: byte offset in constant bank 0; .func: number of the first ABI register (R4 and up)
	// Words is, for a .func parameter or result, the number of ABI
	// registers it takes (a vector .reg of 8- or 16-bit elements takes
	// one per element, so Size alone cannot tell); 0 when unknown.
	Words int64
}

// TexRef is a .texref (or .surfref) a kernel reads through: the driver
// writes the bound texture's header index into the 32-bit word at Offset
// of constant bank 0, after the parameters (pipeline/lower/tex.go).
type TexRef struct {
	Name   string
	Offset int64 // byte offset in constant bank 0, a multiple of 4
}

// SharedVar is a shared-memory variable placed in a kernel's CTA window.
type SharedVar struct {
	Name   string
	Offset int64
	Size   int64
}

// Func is one kernel (.entry) or device function (.func).
type Func struct {
	Name   string
	Entry  bool
	Params []Param
	Rets   []Param // .func return values
	// TexRefs lists the .texref header words of a kernel, in the order
	// the kernel first uses them.
	TexRefs []TexRef
	// RetAddr is the first register of the R pair a .func receives its
	// return address in; 0 means R20, the ABI's. The lowering sets it
	// to R2 for a function only called directly and not recursive
	// (lower/private.go), and past the argument registers when they
	// reach R20 (lower's retAddrReg). Printed as ".retaddr R2" in the
	// header when set.
	RetAddr int32
	// Blocks in layout order. Blocks[0] is the entry block.
	Blocks []*Block
	// SharedVars lists the static shared variables of the CTA window, and
	// SharedBytes its size; dynamic shared memory starts at SharedBytes
	// rounded up to 16. On sm_90 and later the window of a module with
	// shared variables starts with SharedReserved bytes that the system
	// keeps: the variables are placed after them and SharedBytes counts
	// them, as ptxas's .nv.shared.NAME does.
	SharedVars  []SharedVar
	SharedBytes int64
	// LocalBytes is the per-thread local frame: .local variables, then
	// spill slots.
	LocalBytes int64
	// Literals is a kernel's literal pool, constant bank 2: c[0x2][8*i]
	// holds the 64 bits of Literals[i]. The legalization
	// (PostFixForMercTargets) fills it with the f64 constants no
	// instruction word can hold, each value once, and then appends the
	// jump tables of the kernel's BRXs (4 bytes per entry; entry i holds
	// i, which the cubin writer replaces with the i-th target's offset;
	// the BRX names its table as c[0x2][offset]); the cubin carries it
	// as the section .nv.constant2.NAME, and the simulator reads bank 2
	// from it.
	Literals []uint64
	// ReqNtid and MaxNtid are a kernel's .reqntid and .maxntid (x, y, z;
	// zero when absent): the cubin's EIATTR_REQNTID and
	// EIATTR_MAX_THREADS. They do not change the code, and Ori's text
	// form does not carry them.
	ReqNtid, MaxNtid [3]int
	nextID           int32
	nextVReg         [NumClasses]int32
	nextBlock        int32
	// cache holds the dominator trees between passes (see dom.go).
	cache analysisCache
	// fixed holds, per pass that asks (NoteFixedPoint), the Fingerprint
	// and shape of the function when that pass last left it at a fixed
	// point.
	fixed map[string]fixedPoint
}

// Block is a basic block. Preds and Succs are derived from the terminators
// by ComputeCFG and must be recomputed after a phase changes control flow.
type Block struct {
	ID    int32  // stable identifier, printed as BB<ID>
	Label string // the PTX label the block started at, or ""
	// NoUnroll is set when PTX's .pragma "nounroll" stood in this block
	// (a loop header): OriLoopUnrolling leaves the loop alone. ptxas
	// keeps the same flag in its block descriptor (wiki 001:12323).
	// Printed as "[nounroll]" after the block name.
	NoUnroll bool
	Insts    []*Inst
	Preds    []*Block
	Succs    []*Block
}

// NewID returns a fresh instruction ID.
func (f *Func) NewID() int32 {
	f.nextID++
	return f.nextID
}

// NewVReg returns a fresh virtual register of class c holding words words.
func (f *Func) NewVReg(c RegClass, words int) Reg {
	n := f.nextVReg[c]
	f.nextVReg[c]++
	return VReg(c, int(n), words)
}

// NewBlock appends a new empty block to the layout.
func (f *Func) NewBlock(label string) *Block {
	b := &Block{ID: f.nextBlock, Label: label}
	f.nextBlock++
	f.Blocks = append(f.Blocks, b)
	return b
}

// Add appends in to b, giving it a fresh ID when it has none.
func (f *Func) Add(b *Block, in *Inst) *Inst {
	if in.ID == 0 {
		in.ID = f.NewID()
	}
	b.Insts = append(b.Insts, in)
	return in
}

// noteIDs makes the allocators continue after the IDs, registers and
// blocks already in f (after parsing or hand construction).
func (f *Func) noteIDs() {
	for _, b := range f.Blocks {
		if b.ID >= f.nextBlock {
			f.nextBlock = b.ID + 1
		}
		for _, in := range b.Insts {
			if in.ID > f.nextID {
				f.nextID = in.ID
			}
			note := func(r Reg) {
				if r.Virtual && r.N >= f.nextVReg[r.Class] {
					f.nextVReg[r.Class] = r.N + 1
				}
			}
			if in.Guard.Virtual {
				note(in.Guard)
			}
			for _, o := range in.Dsts {
				if r, ok := o.usesReg(); ok {
					note(r)
				}
			}
			for _, o := range in.Srcs {
				if r, ok := o.usesReg(); ok {
					note(r)
				}
			}
		}
	}
}

// BlockByID returns the block with the given ID, or nil.
func (f *Func) BlockByID(id int32) *Block {
	for _, b := range f.Blocks {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// NumInsts returns the number of instructions in f.
func (f *Func) NumInsts() int {
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Insts)
	}
	return n
}

// ComputeCFG rebuilds every block's Preds and Succs from the terminators:
// BRA targets its block (and falls through when guarded), BRX targets
// every block operand, EXIT and RET end the thread or function (falling
// through when guarded), and any other last instruction falls through to
// the next block in the layout. It reports branches to unknown blocks.
func (f *Func) ComputeCFG() error {
	if err := f.computeEdges(); err != nil {
		f.cache.gen++ // the edges are half rebuilt
		f.cache.edges = nil
		return err
	}
	f.cache.noteEdges(f)
	return nil
}

func (f *Func) computeEdges() error {
	// Block IDs are small and dense (NewBlock counts up), so a slice
	// indexed by ID finds a branch target; the map it replaced was most
	// of the cost of a ComputeCFG, which every pass runs several times.
	// A later block with the same ID wins, as it did in the map.
	lo, hi := int32(0), int32(-1)
	for _, b := range f.Blocks {
		b.Preds, b.Succs = b.Preds[:0], b.Succs[:0]
		lo, hi = min(lo, b.ID), max(hi, b.ID)
	}
	// The slice is kept with the function for the next call (ComputeCFG
	// runs several times per pass).
	var dense []*Block
	var m map[int32]*Block
	if lo >= 0 && hi < int32(4*len(f.Blocks)+64) {
		dense = f.cache.byID
		if cap(dense) < int(hi+1) {
			dense = make([]*Block, hi+1)
		}
		dense = dense[:hi+1]
		clear(dense)
		for _, b := range f.Blocks {
			dense[b.ID] = b
		}
		f.cache.byID = dense
	} else {
		m = make(map[int32]*Block, len(f.Blocks))
		for _, b := range f.Blocks {
			m[b.ID] = b
		}
	}
	byID := func(id int32) *Block {
		if m != nil {
			return m[id]
		}
		if id < 0 || int(id) >= len(dense) {
			return nil
		}
		return dense[id]
	}
	addEdge := func(from, to *Block) {
		for _, s := range from.Succs {
			if s == to {
				return
			}
		}
		from.Succs = append(from.Succs, to)
		to.Preds = append(to.Preds, from)
	}
	for i, b := range f.Blocks {
		var next *Block
		if i+1 < len(f.Blocks) {
			next = f.Blocks[i+1]
		}
		fall := true
		if n := len(b.Insts); n > 0 {
			last := b.Insts[n-1]
			if last.EndsBlock() {
				for _, o := range last.Srcs {
					if o.Kind != OpdBlock {
						continue
					}
					t := byID(o.Block)
					if t == nil {
						return fmt.Errorf("%s: instruction #%d branches to BB%d, which does not exist", f.Name, last.ID, o.Block)
					}
					addEdge(b, t)
				}
				fall = last.Guarded()
			}
		}
		if fall && next != nil {
			addEdge(b, next)
		}
	}
	return nil
}

// Clone returns a deep copy of f: blocks, instructions and operands. CFG
// edges are rebuilt to point into the copy.
func (f *Func) Clone() *Func {
	c := *f
	c.cache = analysisCache{}     // the trees hold f's blocks
	c.fixed = maps.Clone(f.fixed) // the same code: the same fixed points, noted apart
	c.Params = append([]Param(nil), f.Params...)
	c.Rets = append([]Param(nil), f.Rets...)
	c.TexRefs = append([]TexRef(nil), f.TexRefs...)
	c.SharedVars = append([]SharedVar(nil), f.SharedVars...)
	c.Literals = append([]uint64(nil), f.Literals...)
	c.Blocks = make([]*Block, len(f.Blocks))
	idx := make(map[*Block]*Block, len(f.Blocks))
	// One array each for the instructions, their operands and their
	// modifiers (see cloneArena).
	var nInsts, nOps, nMods int
	for _, b := range f.Blocks {
		nInsts += len(b.Insts)
		for _, in := range b.Insts {
			nOps += len(in.Dsts) + len(in.Srcs)
			nMods += len(in.Mods)
		}
	}
	insts := make([]Inst, nInsts)
	a := cloneArena{ops: make([]Operand, 0, nOps), mods: make([]string, 0, nMods)}
	for i, b := range f.Blocks {
		nb := &Block{ID: b.ID, Label: b.Label, NoUnroll: b.NoUnroll, Insts: make([]*Inst, len(b.Insts))}
		for j, in := range b.Insts {
			ni := &insts[0]
			insts = insts[1:]
			in.cloneInto(ni, &a)
			nb.Insts[j] = ni
		}
		c.Blocks[i] = nb
		idx[b] = nb
	}
	for i, b := range f.Blocks {
		nb := c.Blocks[i]
		for _, p := range b.Preds {
			nb.Preds = append(nb.Preds, idx[p])
		}
		for _, s := range b.Succs {
			nb.Succs = append(nb.Succs, idx[s])
		}
	}
	return &c
}

// CloneBlocks returns a copy of f that holds copies of blocks only, in the
// order given, and the map from each of those blocks to its copy. The copy
// keeps f's ID, register and block allocators, so what a rewrite confined
// to those blocks creates in it is numbered as it would be in f. Preds and
// Succs name the copies of the given blocks and f's own blocks otherwise.
// It is for trying a local rewrite out and measuring the result (an
// if-conversion's size) at the cost of the blocks involved, not of the
// whole function; it is not a function to compile.
func (f *Func) CloneBlocks(blocks []*Block) (*Func, map[*Block]*Block) {
	c := &Func{Name: f.Name, Entry: f.Entry, nextID: f.nextID, nextVReg: f.nextVReg, nextBlock: f.nextBlock}
	idx := make(map[*Block]*Block, len(blocks))
	// One array each for the instructions, their operands and their
	// modifiers, as Clone does: if-conversion clones every candidate
	// region to measure it, and an allocation per instruction was most
	// of that trial's cost.
	var nInsts, nOps, nMods int
	for _, b := range blocks {
		nInsts += len(b.Insts)
		for _, in := range b.Insts {
			nOps += len(in.Dsts) + len(in.Srcs)
			nMods += len(in.Mods)
		}
	}
	insts := make([]Inst, nInsts)
	a := cloneArena{ops: make([]Operand, 0, nOps), mods: make([]string, 0, nMods)}
	for _, b := range blocks {
		nb := &Block{ID: b.ID, Label: b.Label, NoUnroll: b.NoUnroll, Insts: make([]*Inst, len(b.Insts))}
		for j, in := range b.Insts {
			ni := &insts[0]
			insts = insts[1:]
			in.cloneInto(ni, &a)
			nb.Insts[j] = ni
		}
		c.Blocks = append(c.Blocks, nb)
		idx[b] = nb
	}
	copyOf := func(b *Block) *Block {
		if nb, ok := idx[b]; ok {
			return nb
		}
		return b
	}
	for _, b := range blocks {
		nb := idx[b]
		for _, p := range b.Preds {
			nb.Preds = append(nb.Preds, copyOf(p))
		}
		for _, s := range b.Succs {
			nb.Succs = append(nb.Succs, copyOf(s))
		}
	}
	return c, idx
}

// Clone returns a deep copy of the module.
func (m *Module) Clone() *Module {
	c := *m
	c.Globals = make([]*Global, len(m.Globals))
	for i, g := range m.Globals {
		ng := *g
		ng.Init = append([]byte(nil), g.Init...)
		c.Globals[i] = &ng
	}
	c.TexVars = append([]TexVar(nil), m.TexVars...)
	c.Funcs = make([]*Func, len(m.Funcs))
	for i, f := range m.Funcs {
		c.Funcs[i] = f.Clone()
	}
	return &c
}

// Func returns the function named name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FuncAddrBase is where the simulator places function addresses: the
// value of a function-address MOV (FuncAddrOf) when the simulator runs
// it, and what an indirect CALL maps back to a function.
//
// Decision: on the GPU a function pointer is the callee's byte offset
// from the start of the kernel's code (ptxas 13.0, sm_80 -O3: "UMOV UR4,
// 0x100" then CALL.REL.NOINC R2, no relocation), which only the cubin
// writer knows, since each kernel lays its callees out anew. The
// simulator runs the IR before that layout, so it keeps its own
// mapping; both are 32-bit values with a zero upper word, so code that
// only calls through, compares or copies function pointers behaves
// alike, and only a kernel that prints a pointer's number sees them
// differ.
const FuncAddrBase = 0xF000_0000

// FuncAddr returns the simulator's address of the i-th function of a
// module.
func FuncAddr(i int) uint64 {
	return FuncAddrBase + 16*uint64(i)
}

// SharedReservedSM90 is the size of the system's part at the start of a
// CTA's shared window on sm_90 and later.
const SharedReservedSM90 = 0x400

// SharedReserved returns how many bytes at the start of a CTA's shared
// window the system keeps on arch.
//
// Decision: 1 KB from sm_90 on, nothing before. ptxas 13.0.88 places a
// kernel's shared variables from 0x400 on sm_90 (its cubins declare the
// reservation: .nv.reservedSmem.offset0, .nv.shared.reserved.0, and
// .nv.shared.NAME counts the KB) and from 0 on sm_75-sm_89 (measured with
// ptxas -arch=sm_XX and cuobjdump -elf -sass on the same PTX).
func SharedReserved(arch int) int64 {
	if arch >= 90 {
		return SharedReservedSM90
	}
	return 0
}
