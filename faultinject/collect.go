package faultinject

import (
	"fmt"

	"orilab/pipeline/ori"
)

// Candidate collection: which instructions of post-allocation Ori each
// category may corrupt, and where.
//
// ptxas walks its instruction list once and asks, for each active
// category, whether the instruction qualifies. orilab does the same over
// the module's functions in order (layout order of blocks, then
// instruction order), so a candidate's index is stable for a given module.
// Where ptxas consults allocator side tables (its spill/refill and remat
// maps), orilab reads Inst.Role, which the allocator sets on every
// instruction it creates (spill, refill, remat, copy).
//
// Every candidate is decided with its mutation: an instruction qualifies
// only if the category can corrupt it while keeping the IR well formed
// (same register class, aligned tuple, a register inside the function's
// used range that differs from the original). The plan is computed on the
// pristine function; the random choices (which register, which bit) are
// made when the fault is applied.

// funcInfo is one function taking part in the injection, with the range of
// registers mutations may use.
type funcInfo struct {
	idx int // position in Module.Funcs
	f   *ori.Func
	// lo[c]..hi[c] is the range a replacement register of class c may
	// use: from the first allocatable register (R4; R0-R3 are
	// ABI-reserved, R1 is the stack pointer) to the highest register word
	// the function uses. hi < lo when the class is unused.
	lo, hi [ori.NumClasses]int
}

// prepare checks that the selected functions are post-allocation and
// computes their register ranges.
func prepare(m *ori.Module, opts Options) ([]*funcInfo, error) {
	want := map[string]bool{}
	for _, n := range opts.Funcs {
		if m.Func(n) == nil {
			return nil, fmt.Errorf("faultinject: no function named %q in the module", n)
		}
		want[n] = true
	}
	var fis []*funcInfo
	for i, f := range m.Funcs {
		if len(want) > 0 && !want[f.Name] {
			continue
		}
		fi := &funcInfo{idx: i, f: f}
		for c := range fi.hi {
			fi.hi[c] = -1
		}
		fi.lo[ori.ClassR] = 4
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if err := fi.noteInst(b, in); err != nil {
					return nil, err
				}
			}
		}
		fis = append(fis, fi)
	}
	return fis, nil
}

// noteInst widens the used ranges by in's registers and rejects virtual
// ones: faults model allocator mistakes, so they only make sense after
// allocation.
func (fi *funcInfo) noteInst(b *ori.Block, in *ori.Inst) error {
	note := func(r ori.Reg) error {
		if r.Virtual {
			return fmt.Errorf("faultinject: %s BB%d #%d: virtual register %s: faults are injected into post-register-allocation code only",
				fi.f.Name, b.ID, in.ID, r)
		}
		if r.IsZero() {
			return nil
		}
		if top := int(r.N) + int(r.Words) - 1; top > fi.hi[r.Class] {
			fi.hi[r.Class] = top
		}
		return nil
	}
	if err := note(in.Guard); err != nil {
		return err
	}
	for _, ops := range [][]ori.Operand{in.Dsts, in.Srcs} {
		for _, o := range ops {
			if o.Kind == ori.OpdReg || ((o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase) {
				if err := note(o.Reg); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// alternatives returns the registers that may replace r: same class and
// width, aligned to the width, inside the used range, different from r.
// Registers the allocator does not assign (RZ/PT, R0-R3) have none.
func (fi *funcInfo) alternatives(r ori.Reg) []int32 {
	c := r.Class
	w := int(r.Words)
	if r.Virtual || r.IsZero() || w == 0 || int(r.N) < fi.lo[c] {
		return nil
	}
	var alts []int32
	for s := fi.lo[c]; s+w-1 <= fi.hi[c]; s++ {
		if s%w == 0 && s != int(r.N) {
			alts = append(alts, int32(s))
		}
	}
	return alts
}

// how is a mutation method.
type how uint8

const (
	mutReg      how = iota // replace a register operand with another of its class
	mutGuardReg            // replace the guard predicate with another predicate
	mutGuardNot            // invert the guard (when no other predicate is in range)
	mutOffset              // add 16 to a memory offset, as a signed 24-bit field
	mutImmBit              // flip one bit of an immediate
	mutCBank               // move a constant-bank read to the next word
	mutMask                // move the single bit of a P2R/R2P mask to another predicate
)

// plan is what a candidate's fault will do.
type plan struct {
	kind Kind
	opd  int // operand index: Dsts, then Srcs; the guard is len(Dsts)+len(Srcs)
	how  how
}

// candidate is one instruction a category may corrupt.
type candidate struct {
	fi   *funcInfo
	b    *ori.Block
	in   *ori.Inst
	plan plan
}

func (c candidate) key() instKey { return instKey{fn: int32(c.fi.idx), id: c.in.ID} }

// operand returns a pointer to operand i of in (Dsts first, then Srcs).
func operand(in *ori.Inst, i int) *ori.Operand {
	if i < len(in.Dsts) {
		return &in.Dsts[i]
	}
	return &in.Srcs[i-len(in.Dsts)]
}

func numOperands(in *ori.Inst) int { return len(in.Dsts) + len(in.Srcs) }

// lastReg returns the index of the last register operand that has an
// alternative, as ptxas's mutator takes the last register operand, or -1.
func (fi *funcInfo) lastReg(in *ori.Inst, ok func(ori.Reg) bool) int {
	for i := numOperands(in) - 1; i >= 0; i-- {
		o := operand(in, i)
		if o.Kind == ori.OpdReg && ok(o.Reg) && len(fi.alternatives(o.Reg)) > 0 {
			return i
		}
	}
	return -1
}

func anyClass(ori.Reg) bool { return true }

// singleBitMask returns the predicate number a one-bit P2R/R2P mask
// selects, or -1. The mask is the last source of both (P2R d = base,
// mask; R2P a, mask). ptxas also asks for more than two operands, which
// in its operand array every P2R/R2P has (the predicate file counts); Ori
// leaves that operand implicit, so the test is on the sources.
func singleBitMask(in *ori.Inst) int {
	if (in.Op != ori.OpP2R && in.Op != ori.OpR2P) || len(in.Srcs) < 2 {
		return -1
	}
	m := in.Srcs[len(in.Srcs)-1]
	if m.Kind != ori.OpdImm || m.FKind != ori.ImmInt || m.Imm <= 0 || m.Imm > 0x7f || m.Imm&(m.Imm-1) != 0 {
		return -1
	}
	for i := 0; ; i++ {
		if m.Imm == 1<<i {
			return i
		}
	}
}

// planFor decides whether category cat can corrupt in, and how.
func (fi *funcInfo) planFor(cat Category, in *ori.Inst) (plan, bool) {
	switch cat {
	case CatRegister:
		// The last register operand of any class the allocator assigns;
		// R/UR give kind 1, P/UP kind 2. The guard is the predicate
		// category's business.
		if i := fi.lastReg(in, anyClass); i >= 0 {
			k := KindRUR
			if operand(in, i).Reg.Class.IsPred() {
				k = KindPUP
			}
			return plan{kind: k, opd: i, how: mutReg}, true
		}
	case CatPredicate:
		if !in.Guarded() {
			break
		}
		p := plan{kind: KindPredicate, opd: numOperands(in), how: mutGuardNot}
		if len(fi.alternatives(in.Guard)) > 0 {
			p.how = mutGuardReg
		}
		return p, true
	case CatSpill:
		if in.Role != ori.RoleSpill && in.Role != ori.RoleRefill {
			break
		}
		for i := 0; i < numOperands(in); i++ {
			if operand(in, i).Kind == ori.OpdMem {
				return plan{kind: KindOffset, opd: i, how: mutOffset}, true
			}
		}
		// A spill through a register (a predicate saved with SEL and
		// restored with ISETP, say) has no offset: corrupt its value.
		if i := fi.lastReg(in, anyClass); i >= 0 {
			return plan{kind: KindSpill, opd: i, how: mutReg}, true
		}
	case CatRemat:
		if in.Role != ori.RoleRemat {
			break
		}
		// The recomputed value: an immediate if there is one, else a
		// constant-bank read, else a register (the result included, so
		// an S2R remat lands in the wrong register).
		for i := numOperands(in) - 1; i >= len(in.Dsts); i-- {
			if operand(in, i).Kind == ori.OpdImm {
				return plan{kind: KindRemat, opd: i, how: mutImmBit}, true
			}
		}
		for i := numOperands(in) - 1; i >= len(in.Dsts); i-- {
			if operand(in, i).Kind == ori.OpdCBank {
				return plan{kind: KindRemat, opd: i, how: mutCBank}, true
			}
		}
		if i := fi.lastReg(in, anyClass); i >= 0 {
			return plan{kind: KindRemat, opd: i, how: mutReg}, true
		}
	case CatP2R:
		// The general register of the conversion: P2R's result, R2P's
		// source.
		var i int
		switch {
		case in.Op == ori.OpP2R && len(in.Dsts) > 0:
			i = 0
		case in.Op == ori.OpR2P && len(in.Srcs) > 0:
			i = len(in.Dsts)
		default:
			return plan{}, false
		}
		if o := operand(in, i); o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassR && len(fi.alternatives(o.Reg)) > 0 {
			return plan{kind: KindP2R, opd: i, how: mutReg}, true
		}
	case CatBitSpill:
		if singleBitMask(in) >= 0 {
			return plan{kind: KindBitSpill, opd: numOperands(in) - 1, how: mutMask}, true
		}
	}
	return plan{}, false
}

// collect returns the candidates of category cat over every function, in
// module, block-layout and instruction order.
func collect(fis []*funcInfo, cat Category) []candidate {
	var cs []candidate
	for _, fi := range fis {
		for _, b := range fi.f.Blocks {
			for _, in := range b.Insts {
				if p, ok := fi.planFor(cat, in); ok {
					cs = append(cs, candidate{fi: fi, b: b, in: in, plan: p})
				}
			}
		}
	}
	return cs
}
