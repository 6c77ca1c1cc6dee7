package opt

// LateArchOptimizeSecond (phase 89), address-chain fold: 32-bit
// addresses built by a chain of constant adds fold into the immediates
// of the local, shared and constant-bank accesses that use them.
//
// A fully unrolled loop that walks a local array and a constant table
// (the Payne-Hanek reduction that CUDA's sinf/cosf inline, six copies)
// leaves one new register per copy for each pointer, each the previous
// one plus 4, and a constant address per copy for the table:
//
//	MOV %r16 = 0x0
//	LDC %r21 = c[0x3][%r16]
//	STL [%r18], %r22
//	IADD3 %r495, PT = %r18, 0x4, RZ
//	MOV %r496 = 0x4
//	LDC %r497 = c[0x3][%r496]
//	STL [%r495], %r499
//	IADD3 %r505, PT = %r495, 0x4, RZ
//	STL [%r505], %r509
//
// The pre-RA scheduler then hoists the adds and the loads of the table,
// and every address stays live in its own register until its access:
// simpleTexture's transformKernel needs 28 registers where ptxas
// 13.0.88 needs 14, and ptxas addresses the copies from one register
// with immediates. The pass walks each block and remembers, for every
// virtual R register defined there by an unguarded add of an immediate
// to a virtual R register (IADD3 v = u, imm, RZ) or by a move of an
// immediate (MOV v = imm), its root and offset, following chains; an
// add whose source has a root is rewritten to add to the root, and a
// local or shared access (LDL, STL, LDS, STS) or an LDC whose address
// base has a root takes the root and the summed offset:
//
//	LDC %r21 = c[0x3][0x0]
//	STL [%r18], %r22
//	IADD3 %r495, PT = %r18, 0x4, RZ
//	LDC %r497 = c[0x3][0x4]
//	STL [%r18+0x4], %r499
//	IADD3 %r505, PT = %r18, 0x8, RZ
//	STL [%r18+0x8], %r509
//
// and the adds and moves nobody reads any more die at
// OriPerformLiveDeadFourth. A write of the register or of its root, in
// the block, forgets the entry (the root's value at the access would not
// be the one the add read); nothing is carried across blocks. The
// address arithmetic is 32-bit, so u+a+b wraps exactly as (u+a)+b; an
// offset must fit the access's immediate (24 signed bits for the local
// and shared accesses, 16 unsigned bits for LDC), otherwise the access
// keeps its register.
//
// Knob: DisableAddressChainFold switches it off. Each rewritten access
// or add is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableAddressChainFold", Type: knobs.TypeBool,
		Doc:     "Switch off folding chains of constant adds to 32-bit local, shared and constant-bank addresses into the accesses' immediates (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// FoldAddressChains is the address-chain fold of LateArchOptimizeSecond.
var FoldAddressChains = Pass{
	Run:  foldAddressChains,
	NoOp: offBy("DisableAddressChainFold"),
}

// chainRoot is what a register holds: Root + Off, or the constant Off
// when Const.
type chainRoot struct {
	Root  ori.Reg
	Const bool
	Off   int64
}

func foldAddressChains(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableAddressChainFold") {
		return false, nil
	}
	reads := virtualReads(f)
	changed := false
	for _, b := range f.Blocks {
		// A register is dissolved when every read of it, in the whole
		// function, is in this block and is one the fold rewrites to its
		// root: then it dies, and the root's longer life replaces it.
		// Otherwise it stays live anyway, and its uses keep reading it
		// (the root would live longer beside it).
		local := chainLocalReads(b)
		dissolved := func(n int32) bool {
			k := ori.VReg(ori.ClassR, int(n), 1)
			return local[n] > 0 && local[n] == reads.of(cmRegOf(k))
		}
		roots := map[int32]chainRoot{}
		for _, in := range b.Insts {
			if foldChainUses(f, in, roots, dissolved, c) {
				changed = true
			}
			// Forget what this instruction's writes invalidate.
			for _, d := range in.Dsts {
				if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR {
					continue
				}
				for n, r := range roots {
					if n == d.Reg.N || (!r.Const && r.Root.N == d.Reg.N) {
						delete(roots, n)
					}
				}
			}
			if v, r, ok := chainDef(in, roots); ok {
				roots[v] = r
			}
		}
	}
	return changed, nil
}

// chainLocalReads counts, per virtual R register, the reads in b that
// the fold can rewrite: the address base of a local, shared or LDC
// access and the register source of an add of an immediate.
func chainLocalReads(b *ori.Block) map[int32]int {
	local := map[int32]int{}
	for _, in := range b.Insts {
		switch in.Op {
		case ori.OpLDL, ori.OpSTL, ori.OpLDS, ori.OpSTS, ori.OpLDC:
			if a := in.Srcs[0]; (a.Kind == ori.OpdMem || a.Kind == ori.OpdCBank) && a.HasBase && chainScalar(a.Reg) && a.Reg.Off == 0 {
				local[a.Reg.N]++
			}
		case ori.OpIADD3:
			if u, _, ok := chainAdd(in); ok && u.Reg.Off == 0 {
				local[u.Reg.N]++
			}
		}
	}
	return local
}

// chainScalar reports whether r is a single virtual R word (the
// registers the fold tracks).
func chainScalar(r ori.Reg) bool {
	return r.Virtual && r.Class == ori.ClassR && r.Words == 1
}

// foldChainUses rewrites in's address base, or its add source, to its
// root when roots knows it.
func foldChainUses(f *ori.Func, in *ori.Inst, roots map[int32]chainRoot, dissolved func(int32) bool, c *Context) bool {
	switch in.Op {
	case ori.OpLDL, ori.OpSTL, ori.OpLDS, ori.OpSTS:
		a := &in.Srcs[0]
		if a.Kind != ori.OpdMem || !a.HasBase || !chainScalar(a.Reg) {
			return false
		}
		r, ok := roots[a.Reg.N]
		if !ok || r.Const || a.Reg.Off != 0 || !dissolved(a.Reg.N) {
			return false
		}
		off := a.Imm + r.Off
		if off < -(1<<23) || off >= 1<<23 || !c.Sites.Allow(f, in.ID, "fold an address chain into a local/shared access") {
			return false
		}
		a.Reg, a.Imm = r.Root, off
		return true
	case ori.OpLDC:
		a := &in.Srcs[0]
		if a.Kind != ori.OpdCBank || !a.HasBase || !chainScalar(a.Reg) || a.Reg.Off != 0 {
			return false
		}
		r, ok := roots[a.Reg.N]
		if !ok || !dissolved(a.Reg.N) {
			return false
		}
		off := a.Imm + r.Off
		if off < 0 || off >= 1<<16 || !c.Sites.Allow(f, in.ID, "fold an address chain into LDC") {
			return false
		}
		if r.Const {
			a.HasBase, a.Reg, a.Imm = false, ori.Reg{}, off
		} else {
			a.Reg, a.Imm = r.Root, off
		}
		return true
	case ori.OpIADD3:
		u, imm, ok := chainAdd(in)
		if !ok {
			return false
		}
		r, known := roots[u.Reg.N]
		if !known || r.Const || u.Reg.Off != 0 || !dissolved(u.Reg.N) || !c.Sites.Allow(f, in.ID, "add to the root of an address chain") {
			return false
		}
		sum := int64(int32(uint32(imm + r.Off)))
		for k := range in.Srcs {
			o := &in.Srcs[k]
			switch {
			case o.Kind == ori.OpdReg && o.Reg == u.Reg:
				o.Reg = r.Root
			case o.Kind == ori.OpdImm:
				o.Imm = sum
			}
		}
		return true
	}
	return false
}

// chainDef returns the root of the register in defines when it is an
// unguarded add of an immediate to a virtual R word (the root is that
// word) or a move of an immediate.
func chainDef(in *ori.Inst, roots map[int32]chainRoot) (int32, chainRoot, bool) {
	if in.Guarded() || len(in.Dsts) == 0 || in.Dsts[0].Kind != ori.OpdReg || !chainScalar(in.Dsts[0].Reg) || in.Dsts[0].Reg.Off != 0 {
		return 0, chainRoot{}, false
	}
	v := in.Dsts[0].Reg
	switch in.Op {
	case ori.OpMOV:
		if len(in.Dsts) != 1 || len(in.Srcs) != 1 || in.Srcs[0].Kind != ori.OpdImm || in.Srcs[0].FKind != ori.ImmInt {
			return 0, chainRoot{}, false
		}
		return v.N, chainRoot{Const: true, Off: int64(int32(uint32(in.Srcs[0].Imm)))}, true
	case ori.OpIADD3:
		u, imm, ok := chainAdd(in)
		if !ok || u.Reg.N == v.N || u.Reg.Off != 0 {
			return 0, chainRoot{}, false
		}
		// foldChainUses has rewritten the add to its source's root
		// already where it could; v is its source plus imm either way.
		return v.N, chainRoot{Root: u.Reg, Off: int64(int32(uint32(imm)))}, true
	}
	return 0, chainRoot{}, false
}

// chainAdd matches IADD3 d[, PT...] = u, imm, RZ (in any order, nothing
// negated, unguarded, any further destinations PT) with u a virtual R
// word and d one; it returns u's operand and the immediate.
func chainAdd(in *ori.Inst) (ori.Operand, int64, bool) {
	if in.Op != ori.OpIADD3 || len(in.Mods) != 0 || in.Guarded() || len(in.Srcs) != 3 || len(in.Dsts) == 0 ||
		in.Dsts[0].Kind != ori.OpdReg || !chainScalar(in.Dsts[0].Reg) {
		return ori.Operand{}, 0, false
	}
	for _, d := range in.Dsts[1:] {
		if d.Kind != ori.OpdReg || d.Reg != ori.PT {
			return ori.Operand{}, 0, false
		}
	}
	var u ori.Operand
	var imm int64
	nu, ni, nz := 0, 0, 0
	for _, o := range in.Srcs {
		switch {
		case o.Neg || o.Abs || o.Not:
			return ori.Operand{}, 0, false
		case o.Kind == ori.OpdReg && o.Reg.IsZero():
			nz++
		case o.Kind == ori.OpdReg && chainScalar(o.Reg):
			u = o
			nu++
		case o.Kind == ori.OpdImm && o.FKind == ori.ImmInt:
			imm = o.Imm
			ni++
		default:
			return ori.Operand{}, 0, false
		}
	}
	if nu != 1 || ni != 1 || nz != 1 {
		return ori.Operand{}, 0, false
	}
	return u, imm, true
}
