package opt

// Vectorization (41) and LateVectorization (73): merge adjacent 32-bit
// shared and local memory accesses into 64- and 128-bit ones.
//
// The wiki names the positions and their knobs, DisableReadVectorization
// ("coalescing scalar reads into vector loads") and
// DisableWriteVectorization ("... scalar writes into vector stores"),
// without the algorithm (seed 9131-9134, knobs 951-957). orilab's:
//
//  1. Alignment. A vector access must be naturally aligned, so each
//     32-bit virtual register gets a proven power-of-two alignment (up to
//     16 bytes) by a greatest-fixed-point dataflow over its definitions:
//     immediates by their trailing zeros, MOV copies, IADD3 the minimum of
//     its sources, IMAD (no WIDE/HI) the product of its factors' and the
//     addend's minimum, SHF.L.U32 by an immediate shifts it, LOP3 AND the
//     larger of its inputs; anything else (constant banks, loads, special
//     registers) is 1. The stack pointer R1 is 16-aligned (every frame
//     is a multiple of 16, pipeline/regalloc/frame.go) and shared variables
//     are laid out at their .align, so shared and local addresses are the
//     ones this can prove; global pointers come from parameters, which PTX
//     does not promise to align, and are left alone.
//  2. Windows. In each block, a run of LDS (or LDL) without size
//     modifiers, unguarded, on one base register that nothing in the run
//     redefines, with no store, atomic, barrier, fence, warp collective or
//     call in between, is a load window; a run of STS (or STL) on one base
//     with no other memory access, barrier or call in between (and no
//     offset written twice) is a store window.
//  3. Groups. In a window, four loads (stores) at base+o..base+o+12 with
//     o and the base both 16-aligned become one .128 access; two at
//     base+o, base+o+4 with 8-alignment one .64 access.
//  4. Rewrite. Loads: the vector load goes where the first of the group
//     was, into a fresh register tuple, and each original load becomes a
//     MOV of its word at its own position (the values are the same: no
//     store intervenes). Stores: each original store becomes a MOV of its
//     value into its word of a fresh tuple at its own position, and the
//     vector store goes where the last one was (nothing in between reads
//     the memory). Copy propagation and the allocator's coalescing remove
//     the MOVs.
//
// Example:
//
//	#20 LDS %r7 = [%r5]                  #20 LDS.128 %r30.128 = [%r5]
//	                                         MOV %r7 = %r30[0]
//	#21 IADD3 %r8 = %r7, 0x1, RZ         #21 IADD3 %r8 = %r7, 0x1, RZ
//	#22 LDS %r9 = [%r5+0x4]       =>     #22 MOV %r9 = %r30[1]
//	#23 LDS %r10 = [%r5+0x8]             #23 MOV %r10 = %r30[2]
//	#24 LDS %r11 = [%r5+0xc]             #24 MOV %r11 = %r30[3]
//
// (with %r5 = tid.x << 4). Both positions run the same algorithm at -O1
// and above; the late one sees accesses that unrolling and the other
// passes brought together.

import (
	"fmt"
	"math/bits"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	for _, k := range []knobs.Knob{
		{Name: "DisableReadVectorization", Type: knobs.TypeBool,
			Doc: "Do not merge scalar shared/local loads into vector loads (Vectorization, LateVectorization)."},
		{Name: "DisableWriteVectorization", Type: knobs.TypeBool,
			Doc: "Do not merge scalar shared/local stores into vector stores (Vectorization, LateVectorization)."},
	} {
		k.Readers = []string{"Vectorization", "LateVectorization"}
		knobs.Default.Register(k)
	}
}

// Vectorization merges adjacent aligned 32-bit shared/local loads and
// stores into .64/.128 ones (phases Vectorization and LateVectorization).
var Vectorization = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		return vectorize(f, !c.Bool("DisableReadVectorization"), !c.Bool("DisableWriteVectorization"), c.Sites), nil
	},
	NoOp: func(c *Context) string {
		if c.Bool("DisableReadVectorization") && c.Bool("DisableWriteVectorization") {
			return "switched off by the knobs DisableReadVectorization and DisableWriteVectorization"
		}
		return ""
	},
}

// vecAccess is one scalar access of a window.
type vecAccess struct {
	at  int // index in the block
	in  *ori.Inst
	off int64
}

func vectorize(f *ori.Func, reads, writes bool, sites *Sites) bool {
	if !reads && !writes {
		return false
	}
	align := alignments(f)
	changed := false
	for _, b := range f.Blocks {
		for i := 0; i < len(b.Insts); i++ {
			in := b.Insts[i]
			load, ok := vecScalar(in)
			if !ok || load && !reads || !load && !writes {
				continue
			}
			win := vecWindow(b, i, load)
			if vecGroup(f, b, win, load, align, sites) {
				changed = true
				i = -1 // the block changed: look again from its start
			}
		}
	}
	return changed
}

// vecScalar reports whether in is a 32-bit unguarded shared or local
// access through a register base (and whether it is a load).
func vecScalar(in *ori.Inst) (load, ok bool) {
	if len(in.Mods) != 0 || in.Guarded() {
		return false, false
	}
	switch in.Op {
	case ori.OpLDS, ori.OpLDL:
		return true, len(in.Dsts) == 1 && in.Dsts[0].Kind == ori.OpdReg && in.Dsts[0].Reg.Words == 1 &&
			len(in.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdMem && in.Srcs[0].HasBase
	case ori.OpSTS, ori.OpSTL:
		return false, len(in.Srcs) == 2 && in.Srcs[0].Kind == ori.OpdMem && in.Srcs[0].HasBase &&
			in.Srcs[1].Kind == ori.OpdReg && in.Srcs[1].Reg.Words == 1 && !in.Srcs[1].Neg && !in.Srcs[1].Not
	}
	return false, false
}

// vecWindow collects the accesses of the window that starts at b.Insts[i].
func vecWindow(b *ori.Block, i int, load bool) []vecAccess {
	first := b.Insts[i]
	base := first.Srcs[0].Reg
	var win []vecAccess
	seen := map[int64]bool{}
	for j := i; j < len(b.Insts); j++ {
		in := b.Insts[j]
		if l, ok := vecScalar(in); ok && l == load && in.Op == first.Op && in.Srcs[0].Reg == base {
			off := in.Srcs[0].Imm
			if seen[off] {
				break
			}
			seen[off] = true
			win = append(win, vecAccess{at: j, in: in, off: off})
			if load && (in.Dsts[0].Reg.Overlaps(base)) {
				break // the base changes after this load
			}
			continue
		}
		fl := in.Op.Flags()
		if fl&(ori.FStore|ori.FAtomic|ori.FBarrier|ori.FCall|ori.FWarp|ori.FIndirect) != 0 || !load && fl&ori.FLoad != 0 {
			break
		}
		if writesReg(in, base) {
			break
		}
	}
	return win
}

func writesReg(in *ori.Inst, r ori.Reg) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Overlaps(r) {
			return true
		}
	}
	return in.Op.Has(ori.FCall) && !r.Virtual
}

// vecGroup merges the first group it finds in win.
func vecGroup(f *ori.Func, b *ori.Block, win []vecAccess, load bool, align map[cmReg]int64, sites *Sites) bool {
	if len(win) < 2 {
		return false
	}
	base := win[0].in.Srcs[0].Reg
	baseAlign := regAlign(base, align)
	byOff := map[int64]vecAccess{}
	for _, a := range win {
		byOff[a.off] = a
	}
	for _, size := range []int64{16, 8} {
		if baseAlign < size {
			continue
		}
		for _, a := range win {
			if a.off%size != 0 {
				continue
			}
			group := []vecAccess{}
			for o := a.off; o < a.off+size; o += 4 {
				if x, ok := byOff[o]; ok {
					group = append(group, x)
				}
			}
			if int64(len(group))*4 != size {
				continue
			}
			if !vecSafe(group, load) {
				continue
			}
			what := "load"
			if !load {
				what = "store"
			}
			if !sites.Allow(f, group[0].in.ID, fmt.Sprintf("merge %d %ss at [%s+%#x] into one %d-bit %s", len(group), what, base, a.off, size*8, what)) {
				continue
			}
			vecRewrite(f, b, group, load, a.off, size)
			return true
		}
	}
	return false
}

// vecSafe checks what merging a group needs beyond the window: the loads'
// results are distinct virtual registers. (Stores need nothing more: each
// value is captured by a MOV at its own store's position.)
func vecSafe(group []vecAccess, load bool) bool {
	if !load {
		return true
	}
	seen := map[cmReg]bool{}
	for _, a := range group {
		r := a.in.Dsts[0].Reg
		if !r.Virtual {
			return false
		}
		if seen[cmRegOf(r)] {
			return false
		}
		seen[cmRegOf(r)] = true
	}
	return true
}

// vecRewrite replaces group (sorted by offset from lo) with one access of
// size bytes.
func vecRewrite(f *ori.Func, b *ori.Block, group []vecAccess, load bool, lo, size int64) {
	words := int(size / 4)
	t := f.NewVReg(ori.ClassR, words)
	mod := []string{"64"}
	if size == 16 {
		mod = []string{"128"}
	}
	firstAt, lastAt := len(b.Insts), -1
	for _, a := range group {
		firstAt, lastAt = min(firstAt, a.at), max(lastAt, a.at)
	}
	word := func(a vecAccess) ori.Reg {
		r := t
		r.Off, r.Words = uint8((a.off-lo)/4), 1
		return r
	}
	mem := group[0].in.Srcs[0]
	mem.Imm = lo
	var vec *ori.Inst
	if load {
		vec = ori.NewInst(group[0].in.Op, mod...)
		vec.Dsts = []ori.Operand{ori.R(t)}
		vec.Srcs = []ori.Operand{mem}
		vec.Line = b.Insts[firstAt].Line
	} else {
		vec = ori.NewInst(group[0].in.Op, mod...)
		vec.Srcs = []ori.Operand{mem, ori.R(t)}
		vec.Line = b.Insts[lastAt].Line
	}
	vec.ID = f.NewID()
	// Each original access becomes a MOV in place (same ID: it is the same
	// value moving at the same point).
	for _, a := range group {
		in := a.in
		if load {
			in.Op, in.Mods = ori.OpMOV, nil
			in.Srcs = []ori.Operand{ori.R(word(a))}
		} else {
			v := in.Srcs[1]
			in.Op, in.Mods = ori.OpMOV, nil
			in.Dsts = []ori.Operand{ori.R(word(a))}
			in.Srcs = []ori.Operand{v}
		}
	}
	out := make([]*ori.Inst, 0, len(b.Insts)+1)
	for i, in := range b.Insts {
		if load && i == firstAt {
			out = append(out, vec)
		}
		out = append(out, in)
		if !load && i == lastAt {
			out = append(out, vec)
		}
	}
	b.Insts = out
}

// regAlign returns the proven alignment of an address base register.
func regAlign(r ori.Reg, align map[cmReg]int64) int64 {
	switch {
	case r.IsZero():
		return 16
	case !r.Virtual:
		if r.Class == ori.ClassR && r.N == 1 && r.Words == 1 {
			return 16 // the stack pointer: every frame is a multiple of 16
		}
		return 1
	case r.Words != 1 || r.Off != 0:
		return 1
	}
	if a, ok := align[cmRegOf(r)]; ok {
		return a
	}
	return 1
}

// immAlign is the alignment an immediate guarantees (up to 16).
func immAlign(v int64) int64 {
	if uint32(v) == 0 {
		return 16
	}
	return min(16, int64(1)<<bits.TrailingZeros32(uint32(v)))
}

// alignments computes the proven alignment of every single-word virtual
// R register (greatest fixed point: start at 16, lower until stable).
func alignments(f *ori.Func) map[cmReg]int64 {
	align := map[cmReg]int64{}
	var defs []*ori.Inst
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR {
					align[cmRegOf(o.Reg)] = 16
					defs = append(defs, in)
					break
				}
			}
		}
	}
	src := func(o ori.Operand) int64 {
		switch o.Kind {
		case ori.OpdImm:
			if o.FKind != ori.ImmInt {
				return 1
			}
			return immAlign(o.Imm)
		case ori.OpdReg:
			return regAlign(o.Reg, align)
		}
		return 1
	}
	for changed := true; changed; {
		changed = false
		for _, in := range defs {
			a := defAlign(in, src)
			for i, o := range in.Dsts {
				if o.Kind != ori.OpdReg || !o.Reg.Virtual || o.Reg.Class != ori.ClassR {
					continue
				}
				k := cmRegOf(o.Reg)
				v := a
				if o.Reg.Words != 1 || o.Reg.Off != 0 || i > 0 {
					v = 1 // wide values, partial writes, second results
				}
				if v < align[k] {
					align[k] = v
					changed = true
				}
			}
		}
	}
	return align
}

// defAlign is the alignment of in's first result.
func defAlign(in *ori.Inst, src func(ori.Operand) int64) int64 {
	switch {
	case in.Op == ori.OpMOV && len(in.Mods) == 0 && len(in.Srcs) == 1:
		return src(in.Srcs[0])
	case in.Op == ori.OpIADD3 && len(in.Mods) == 0 && len(in.Srcs) == 3:
		return min(src(in.Srcs[0]), src(in.Srcs[1]), src(in.Srcs[2]))
	case in.Op == ori.OpIMAD && len(in.Mods) == 0 && len(in.Srcs) == 3:
		return min(16, src(in.Srcs[0])*src(in.Srcs[1]), src(in.Srcs[2]))
	case in.Op == ori.OpSHF && len(in.Mods) == 2 && in.Mods[0] == "L" && in.Mods[1] == "U32" && len(in.Srcs) == 3 &&
		in.Srcs[1].Kind == ori.OpdImm && in.Srcs[2].Kind == ori.OpdReg && in.Srcs[2].Reg.IsZero():
		k := in.Srcs[1].Imm & 31
		if k >= 4 {
			return 16
		}
		return min(16, src(in.Srcs[0])<<k)
	case in.Op == ori.OpLOP3 && len(in.Srcs) == 5 && in.Srcs[3].Kind == ori.OpdImm && in.Srcs[3].Imm == 0xc0 &&
		in.Srcs[2].Kind == ori.OpdReg && in.Srcs[2].Reg.IsZero():
		return max(src(in.Srcs[0]), src(in.Srcs[1]))
	}
	return 1
}
