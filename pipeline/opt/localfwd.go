package opt

// ConvertMemoryToRegisterOrUniform (orilab's part): local-memory slots
// stored once are forwarded into their loads, and stores nobody loads
// are deleted.
//
// A PTX .local variable (a function's own, or a module-scope one before
// PTX 3.0) lives in the function's frame, addressed [R1+offset]. When
// its address never escapes, each access names its slot exactly, and a
// load can read the stored register instead of memory. ptxas promotes
// such variables to registers (testdata/lower/mem_module_local.ptx: no
// local access at all in its SASS, 6 registers; orilab kept three stores
// and four loads, 10 registers).
//
// The pass runs in the SSA window, but a guarded definition there keeps
// its register's name (the fuzz programs fuzz5551688 and fuzz5551812 of
// the hardware-truth set store a register a guarded instruction rewrites
// later), so the pass forwards only a register each of whose words has
// one definition that comes before the store: it holds the stored value
// wherever the store dominates. It works on one function:
//
//  1. The frame must not escape. Every read of R1 and of the registers
//     derived from it ("MOV %v = R1", "IADD3 %v = R1, imm, RZ" with one
//     definition) must be the base of an LDL or STL, or one of those
//     derivations, or R1's own frame adjustment (IADD3 R1 = R1, imm).
//     Anything else (the address converted to a generic pointer, passed
//     to a call, stored, compared) leaves the function alone.
//  2. Each access is then a byte range [off, off+size) of the frame.
//     A slot is the range of an unguarded STL of 4, 8 or 16 bytes that
//     is the only store overlapping that range in the function.
//  3. An unguarded LDL of exactly that range, whose block the store's
//     block dominates (the load after the store when they share one),
//     becomes a MOV of the stored register (one MOV per word), when that
//     register (or RZ) is defined once, before the store.
//  4. A store whose range no remaining load overlaps is deleted.
//
// A load no store reaches (reading uninitialized local memory) is left
// as it is. The frame keeps its size (CompactLocalMemory, not built, is
// where ptxas drops dead slots).
//
// Knob: DisableLocalForwarding switches it off. Each forwarded load and
// each deleted store is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableLocalForwarding", Type: knobs.TypeBool,
		Doc:     "Switch off forwarding a local-memory slot stored once into its loads and deleting stores nobody loads, in functions whose frame address does not escape (phase ConvertMemoryToRegisterOrUniform).",
		Readers: []string{"ConvertMemoryToRegisterOrUniform"}})
}

// ForwardLocals forwards single-store local slots into their loads.
var ForwardLocals = Pass{
	Run:  forwardLocals,
	NoOp: offBy("DisableLocalForwarding"),
}

// lfAccess is one LDL or STL with its frame range.
type lfAccess struct {
	b      *ori.Block
	in     *ori.Inst
	off    int64
	size   int64
	store  bool
	words  int // 1, 2 or 4 for a whole-word access; 0 otherwise
	guard  bool
	active bool
}

// lfSize returns the bytes an LDL/STL moves and its word count (0 for a
// sub-word or modified access, which is never forwarded).
func lfSize(in *ori.Inst) (int64, int) {
	size, words, other := int64(4), 1, false
	for _, m := range in.Mods {
		switch m {
		case "64":
			size, words = 8, 2
		case "128":
			size, words = 16, 4
		case "U8", "S8":
			size, other = 1, true
		case "U16", "S16":
			size, other = 2, true
		default:
			other = true
		}
	}
	if other {
		words = 0
	}
	return size, words
}

func forwardLocals(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableLocalForwarding") {
		return false, nil
	}
	// Registers derived from R1, with their offset from it.
	type base struct{ off int64 }
	derived := map[int32]base{}
	defs := map[int32]int{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR {
					defs[o.Reg.N]++
				}
			}
		}
	}
	isR1 := func(r ori.Reg) bool { return !r.Virtual && r.Class == ori.ClassR && r.N == 1 }
	// baseOf reports the offset from R1 of register r, if it is R1 or
	// derived from it.
	baseOf := func(r ori.Reg) (int64, bool) {
		if isR1(r) {
			return 0, true
		}
		if r.Virtual && r.Class == ori.ClassR && r.Words == 1 && r.Off == 0 {
			if d, ok := derived[r.N]; ok {
				return d.off, true
			}
		}
		return 0, false
	}
	// Derivations, in layout order (SSA: a definition precedes its uses
	// in a dominator-ordered layout; one that does not is simply not
	// recognized and its reads of R1 make the frame escape).
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Guarded() || len(in.Dsts) != 1 || in.Dsts[0].Kind != ori.OpdReg || len(in.Mods) != 0 {
				continue
			}
			d := in.Dsts[0].Reg
			if !d.Virtual || d.Class != ori.ClassR || d.Words != 1 || d.Off != 0 || defs[d.N] != 1 {
				continue
			}
			switch {
			case in.Op == ori.OpMOV && len(in.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdReg && !in.Srcs[0].Neg:
				if off, ok := baseOf(in.Srcs[0].Reg); ok {
					derived[d.N] = base{off}
				}
			case in.Op == ori.OpIADD3 && len(in.Srcs) == 3 && in.Srcs[0].Kind == ori.OpdReg && !in.Srcs[0].Neg &&
				in.Srcs[1].Kind == ori.OpdImm && in.Srcs[1].FKind == ori.ImmInt && in.Srcs[2].Kind == ori.OpdReg && in.Srcs[2].Reg.IsZero():
				if off, ok := baseOf(in.Srcs[0].Reg); ok {
					derived[d.N] = base{off + in.Srcs[1].Imm}
				}
			}
		}
	}
	isDerivation := func(in *ori.Inst) bool {
		if len(in.Dsts) != 1 || in.Dsts[0].Kind != ori.OpdReg {
			return false
		}
		d := in.Dsts[0].Reg
		if isR1(d) { // the frame adjustment
			return in.Op == ori.OpIADD3 || in.Op == ori.OpMOV
		}
		_, ok := derived[d.N]
		return ok && d.Virtual && d.Class == ori.ClassR
	}
	var acc []*lfAccess
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			mem := in.Op == ori.OpLDL || in.Op == ori.OpSTL
			for i, o := range in.Srcs {
				var r ori.Reg
				switch {
				case o.Kind == ori.OpdReg:
					r = o.Reg
				case (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase:
					r = o.Reg
				default:
					if mem && i == 0 && o.Kind == ori.OpdMem {
						return false, nil // an absolute local address
					}
					continue
				}
				off, ok := baseOf(r)
				if !ok {
					continue
				}
				if mem && i == 0 && o.Kind == ori.OpdMem {
					size, words := lfSize(in)
					acc = append(acc, &lfAccess{b: b, in: in, off: off + o.Imm, size: size, store: in.Op == ori.OpSTL,
						words: words, guard: in.Guarded(), active: true})
					continue
				}
				if !isDerivation(in) {
					return false, nil // the frame escapes
				}
			}
			if in.Op == ori.OpLDL && len(in.Dsts) == 1 && in.Dsts[0].Kind == ori.OpdReg && in.Dsts[0].Reg.Virtual {
				// a load into a derived register would confuse the base map
				if _, ok := derived[in.Dsts[0].Reg.N]; ok {
					return false, nil
				}
			}
		}
	}
	if len(acc) == 0 {
		return false, nil
	}
	overlaps := func(a, b *lfAccess) bool { return a.off < b.off+b.size && b.off < a.off+a.size }
	var dom *ori.DomTree
	pos := map[*ori.Inst]int{}
	for _, b := range f.Blocks {
		for i, in := range b.Insts {
			pos[in] = i
		}
	}
	// The definitions of every virtual R word, for stable.
	type lfDef struct {
		n  int
		in *ori.Inst
		b  *ori.Block
	}
	wdefs := map[[2]int32]*lfDef{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || !o.Reg.Virtual || o.Reg.Class != ori.ClassR {
					continue
				}
				for w := 0; w < max(int(o.Reg.Words), 1); w++ {
					k := [2]int32{o.Reg.N, int32(o.Reg.Off) + int32(w)}
					d := wdefs[k]
					if d == nil {
						d = &lfDef{}
						wdefs[k] = d
					}
					d.n++
					d.in, d.b = in, b
				}
			}
		}
	}
	// stable reports whether every word of r has one definition in the
	// function, which comes before the store st on every path (its block
	// dominates st's, or it precedes st in st's block). Guarded
	// definitions keep the register's name in the SSA window, and a value
	// can change around a loop, so a register with another definition,
	// or one the store may read before its definition, could hold a
	// different value at a load than the store wrote.
	stable := func(r ori.Reg, st *lfAccess) bool {
		if !r.Virtual {
			return false
		}
		for w := 0; w < max(int(r.Words), 1); w++ {
			d := wdefs[[2]int32{r.N, int32(r.Off) + int32(w)}]
			if d == nil || d.n != 1 {
				return false
			}
			if d.b == st.b {
				if pos[d.in] >= pos[st.in] {
					return false
				}
				continue
			}
			if dom == nil {
				dom = ori.Dominators(f)
			}
			if !dom.Dominates(d.b, st.b) {
				return false
			}
		}
		return true
	}
	replace := map[*ori.Inst][]*ori.Inst{}
	changed := false
	for _, st := range acc {
		if !st.store || st.guard || st.words == 0 {
			continue
		}
		single := true
		for _, o := range acc {
			if o != st && o.store && overlaps(o, st) {
				single = false
				break
			}
		}
		if !single {
			continue
		}
		data := st.in.Srcs[1]
		if data.Kind != ori.OpdReg || data.Reg.Class != ori.ClassR || !data.Reg.IsZero() && !stable(data.Reg, st) {
			continue
		}
		for _, ld := range acc {
			if ld.store || !ld.active || ld.guard || ld.off != st.off || ld.size != st.size || ld.words != st.words {
				continue
			}
			reaches := false
			if ld.b == st.b {
				reaches = pos[ld.in] > pos[st.in]
			} else {
				if dom == nil {
					dom = ori.Dominators(f)
				}
				reaches = dom.Dominates(st.b, ld.b)
			}
			d := ld.in.Dsts[0].Reg
			if !reaches || !d.Virtual || !c.Sites.Allow(f, ld.in.ID, "forward a local store into its load") {
				continue
			}
			var movs []*ori.Inst
			for w := 0; w < st.words; w++ {
				src := data.Reg
				if !src.IsZero() {
					src.Off += uint8(w)
				}
				src.Words = 1
				dst := d
				dst.Off += uint8(w)
				dst.Words = 1
				mv := ori.NewInst(ori.OpMOV)
				mv.ID = f.NewID()
				mv.Line = ld.in.Line
				mv.Dsts = []ori.Operand{ori.R(dst)}
				mv.Srcs = []ori.Operand{ori.R(src)}
				movs = append(movs, mv)
			}
			replace[ld.in] = movs
			ld.active = false
			changed = true
		}
	}
	// Stores no remaining load reads.
	for _, st := range acc {
		if !st.store {
			continue
		}
		read := false
		for _, ld := range acc {
			if !ld.store && ld.active && overlaps(ld, st) {
				read = true
				break
			}
		}
		if !read && c.Sites.Allow(f, st.in.ID, "delete a local store nobody loads") {
			replace[st.in] = []*ori.Inst{}
			changed = true
		}
	}
	if !changed {
		return false, nil
	}
	for _, b := range f.Blocks {
		var out []*ori.Inst
		for _, in := range b.Insts {
			if r, ok := replace[in]; ok {
				out = append(out, r...)
				continue
			}
			out = append(out, in)
		}
		b.Insts = out
	}
	return true, nil
}
