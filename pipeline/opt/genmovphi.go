package opt

import (
	"fmt"

	"orilab/pipeline/ori"
)

// GenerateMovPhi (phase 24): enter the partial-SSA form.
//
// The wiki ("IR Overview & Design", Partial SSA, seed lines 5898-5958)
// describes a window from GenerateMovPhi to ConvertAllMovPhiToMov (81)
// in which registers have a single definition and values merge at join
// points through MovPhi pseudo-instructions: MOV with a flag, operands
// (result, value0, BB0, value1, BB1...), "if from bix1, R3 = R7; if from
// bix2, R3 = R9". orilab prints it MOV.PHI and keeps the phis at the top
// of their block; ori/SEMANTICS.md gives the parallel-copy meaning and
// the simulator executes it.
//
// Algorithm: pruned SSA construction (Cytron et al.; dominance frontiers
// computed as Cooper, Harvey and Kennedy do, from each join block's
// predecessors up to its immediate dominator).
//
//  1. Candidates: virtual R and P registers defined more than once (a
//     register defined once is already in SSA form).
//  2. For each candidate, phis go on the iterated dominance frontier of
//     its definition blocks, but only where the register is live on
//     entry (pruned form: no phi that nothing reads).
//  3. One walk of the dominator tree renames: each definition gets a new
//     register, each read takes the definition on top of the register's
//     stack, and each successor's phi takes, for the edge from this
//     block, the value on top of the stack. The first definition the walk
//     meets keeps the PTX-derived name, so the TUI's before/after diff
//     stays readable.
//
// What makes the form partial (decision: the wiki says "partial" without
// saying which registers stay out; these are the ones whose definitions
// are not whole values):
//
//   - a register with a guarded definition (@p MOV r = ...: the old value
//     survives where the guard is false, so the definition is also a
//     read; ptxas's own predicated MOV-pairs stay as they are);
//   - a register used as a tuple or a slice of one (64-bit pairs built
//     word by word, vector results);
//   - a register read on some path before any definition, or mentioned in
//     a block the entry does not reach;
//   - uniform registers (none exist before ConvertToUniformReg, 82).
//
// Such registers keep several definitions; the verifier's SSA mode
// checks that every MOV.PHI result has exactly one definition, which is
// the property the wiki says passes in the window rely on ("the
// single-definition property of MovPhi nodes", 5933).
//
// The phase runs at every level, as the wiki's table has it (no O-level
// gate). At -O0 nothing in the window transforms code, so the two ends
// make a round trip, and ConvertAllMovPhiToMov's coalescing gives back
// the registers the code had, minus some of the lowering's copies: over
// the spec set -O0 code is 0.6% smaller with the window than without
// (4,925 against 4,957 instructions).
//
// Site bisection: converting one register (its phis and its renames) is
// one site, so a refused site leaves that register as it was; registers
// are independent of each other, which keeps prefixes stable.
// GenerateMovPhi enters partial SSA: it renames multiply-defined scalar
// registers and inserts MOV.PHI at joins (phase GenerateMovPhi).
var GenerateMovPhi = Pass{Run: generateMovPhi}

// mpKey names a virtual register independently of the slice accessed.
type mpKey struct {
	class ori.RegClass
	n     int32
}

func mpKeyOf(r ori.Reg) mpKey { return mpKey{r.Class, r.N} }

// mpReadRefs calls fn with a pointer to every register the instruction
// reads: the guard, register sources, and address bases in sources and
// destinations. MOV.PHI sources are not included (they are read in the
// predecessors).
func mpReadRefs(in *ori.Inst, fn func(r *ori.Reg)) {
	fn(&in.Guard)
	if !in.IsPhi() {
		for i := range in.Srcs {
			o := &in.Srcs[i]
			if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
				fn(&o.Reg)
			}
		}
	}
	for i := range in.Dsts {
		o := &in.Dsts[i]
		if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fn(&o.Reg)
		}
	}
}

// mpReg is what both ends of the partial-SSA window need to know about
// one virtual register.
type mpReg struct {
	defs      int          // instructions that write it (MOV.PHI included)
	blocks    []*ori.Block // the blocks defining it, each once, in layout order
	partial   bool         // some mention is not the whole value (a tuple, a slice)
	guarded   bool         // some definition is guarded
	odd       bool         // written twice by one instruction, or by a MOV.PHI
	unreached bool         // mentioned in a block the entry does not reach
}

// mpRegs holds the mpReg of each virtual register of a function: one
// slice of them, found through a slice per class indexed by register
// number (numbers are small and dense), and a map for the rest. A map of
// pointers allocated one register at a time was most of the scan.
type mpRegs struct {
	dense [ori.NumClasses][]int32 // index in list, plus one
	other map[mpKey]int32
	list  []mpReg
}

// mpRegsDenseLimit bounds the dense part (as wordIDsDenseLimit).
const mpRegsDenseLimit = 1 << 22

func (x *mpRegs) dslot(k mpKey) bool {
	return k.n >= 0 && k.n < mpRegsDenseLimit && k.class < ori.NumClasses
}

// at returns k's entry, or nil. The pointer is good until the next add.
func (x *mpRegs) at(k mpKey) *mpReg {
	if x.dslot(k) {
		if d := x.dense[k.class]; int(k.n) < len(d) && d[k.n] > 0 {
			return &x.list[d[k.n]-1]
		}
		return nil
	}
	if i, ok := x.other[k]; ok {
		return &x.list[i]
	}
	return nil
}

// add returns k's entry, making an empty one if k has none, and whether
// it did. The pointer is good until the next add.
func (x *mpRegs) add(k mpKey) (*mpReg, bool) {
	if r := x.at(k); r != nil {
		return r, false
	}
	i := int32(len(x.list))
	x.list = append(x.list, mpReg{})
	if x.dslot(k) {
		d := x.dense[k.class]
		if int(k.n) >= len(d) {
			d = append(d, make([]int32, max(int(k.n)+1-len(d), len(d)))...)
			x.dense[k.class] = d
		}
		d[k.n] = i + 1
	} else {
		if x.other == nil {
			x.other = map[mpKey]int32{}
		}
		x.other[k] = i
	}
	return &x.list[i], true
}

// mpScan collects mpReg for every virtual register of f, and the
// registers in the order of their first mention. reached says which
// blocks the entry reaches (nil: all).
func mpScan(f *ori.Func, reached func(*ori.Block) bool) (*mpRegs, []mpKey) {
	regs := &mpRegs{}
	var order []mpKey
	for _, b := range f.Blocks {
		unreached := reached != nil && !reached(b)
		mention := func(r ori.Reg) *mpReg {
			k := mpKeyOf(r)
			x, added := regs.add(k)
			if added {
				order = append(order, k)
			}
			x.partial = x.partial || r.Off != 0 || r.Words != 1
			x.unreached = x.unreached || unreached
			return x
		}
		for _, in := range b.Insts {
			mpReadRefs(in, func(r *ori.Reg) {
				if r.Virtual {
					mention(*r)
				}
			})
			if in.IsPhi() {
				for j := 0; j < len(in.Srcs); j += 2 {
					if o := in.Srcs[j]; o.Kind == ori.OpdReg && o.Reg.Virtual {
						mention(o.Reg)
					}
				}
			}
			for i, o := range in.Dsts {
				if o.Kind != ori.OpdReg || !o.Reg.Virtual {
					continue
				}
				x := mention(o.Reg)
				k := mpKeyOf(o.Reg)
				// Written by an earlier result of in too?
				seen := false
				for _, p := range in.Dsts[:i] {
					seen = seen || p.Kind == ori.OpdReg && p.Reg.Virtual && mpKeyOf(p.Reg) == k
				}
				x.guarded = x.guarded || in.Guarded()
				x.odd = x.odd || seen || in.IsPhi()
				x.defs++
				if n := len(x.blocks); n == 0 || x.blocks[n-1] != b {
					x.blocks = append(x.blocks, b)
				}
			}
		}
	}
	return regs, order
}

// mpCandidates returns the registers GenerateMovPhi converts, in the
// order of their first mention, and the blocks defining each.
func mpCandidates(f *ori.Func, dom *ori.DomTree) ([]mpKey, map[mpKey][]*ori.Block) {
	regs, order := mpScan(f, dom.Reached)
	for _, r := range ori.UndefinedReads(f) {
		if x := regs.at(mpKeyOf(r)); x != nil {
			x.unreached = true // read before defined: no value to start from
		}
	}
	var out []mpKey
	blocks := map[mpKey][]*ori.Block{}
	for _, k := range order {
		x := regs.at(k)
		if x.defs > 1 && !x.partial && !x.guarded && !x.odd && !x.unreached && (k.class == ori.ClassR || k.class == ori.ClassP) {
			out = append(out, k)
			blocks[k] = x.blocks
		}
	}
	return out, blocks
}

func generateMovPhi(f *ori.Func, c *Context) (bool, error) {
	if loopHasPhi(f) {
		return false, nil // already in partial SSA (a pass ran twice)
	}
	dom := ori.Dominators(f)
	cands, defBlocks := mpCandidates(f, dom)
	if len(cands) == 0 {
		return false, nil
	}
	live := ori.Liveness(f)

	// Dominance frontiers of the reached blocks.
	df := map[*ori.Block][]*ori.Block{}
	for _, b := range f.Blocks {
		if !dom.Reached(b) || len(b.Preds) < 2 {
			continue
		}
		for _, p := range b.Preds {
			if !dom.Reached(p) {
				continue
			}
			for x := p; x != nil && x != dom.Idom(b); x = dom.Idom(x) {
				if n := len(df[x]); n == 0 || df[x][n-1] != b {
					df[x] = append(df[x], b)
				}
			}
		}
	}

	// Phi placement, one register at a time; each register is a site.
	conv := map[mpKey]bool{}
	phisOf := map[*ori.Block][]*ori.Inst{} // in insertion order
	phiReg := map[*ori.Inst]mpKey{}
	for _, k := range cands {
		firstDef := mpFirstDef(defBlocks[k][0], k)
		if !c.Sites.Allow(f, firstDef, fmt.Sprintf("partial SSA for %s", ori.VReg(k.class, int(k.n), 1))) {
			continue
		}
		conv[k] = true
		r := ori.VReg(k.class, int(k.n), 1)
		has := map[*ori.Block]bool{}
		work := append([]*ori.Block(nil), defBlocks[k]...)
		inWork := map[*ori.Block]bool{}
		for _, b := range work {
			inWork[b] = true
		}
		for len(work) > 0 {
			x := work[len(work)-1]
			work = work[:len(work)-1]
			for _, y := range df[x] {
				if has[y] || !live.LiveIn(y, r) {
					continue
				}
				has[y] = true
				phi := ori.NewInst(ori.OpMOV, "PHI")
				phi.ID = f.NewID()
				phi.Line = loopLine(y)
				phi.Dsts = []ori.Operand{ori.R(r)}
				for _, p := range y.Preds {
					phi.Srcs = append(phi.Srcs, ori.R(r), ori.BlockRef(int(p.ID)))
				}
				phisOf[y] = append(phisOf[y], phi)
				phiReg[phi] = k
				if !inWork[y] {
					inWork[y] = true
					work = append(work, y)
				}
			}
		}
	}
	if len(conv) == 0 {
		return false, nil
	}
	for b, phis := range phisOf {
		b.Insts = append(append([]*ori.Inst(nil), phis...), b.Insts...)
	}

	// Renaming over the dominator tree.
	children := map[*ori.Block][]*ori.Block{}
	for _, b := range f.Blocks {
		if p := dom.Idom(b); p != nil {
			children[p] = append(children[p], b)
		}
	}
	stacks := map[mpKey][]ori.Reg{}
	named := map[mpKey]bool{} // the original name has been given out
	newName := func(k mpKey) ori.Reg {
		if !named[k] {
			named[k] = true
			return ori.VReg(k.class, int(k.n), 1)
		}
		return f.NewVReg(k.class, 1)
	}
	var err error
	var rename func(b *ori.Block)
	rename = func(b *ori.Block) {
		var pushed []mpKey
		for _, in := range b.Insts {
			if in.IsPhi() {
				k, ok := phiReg[in]
				if !ok {
					continue
				}
				nr := newName(k)
				in.Dsts[0].Reg = nr
				stacks[k] = append(stacks[k], nr)
				pushed = append(pushed, k)
				continue
			}
			mpReadRefs(in, func(r *ori.Reg) {
				if !r.Virtual || !conv[mpKeyOf(*r)] {
					return
				}
				s := stacks[mpKeyOf(*r)]
				if len(s) == 0 {
					if err == nil {
						err = fmt.Errorf("GenerateMovPhi: BB%d #%d reads %s with no definition reaching it", b.ID, in.ID, *r)
					}
					return
				}
				r.N = s[len(s)-1].N
			})
			for i := range in.Dsts {
				o := &in.Dsts[i]
				if o.Kind != ori.OpdReg || !o.Reg.Virtual || !conv[mpKeyOf(o.Reg)] {
					continue
				}
				k := mpKeyOf(o.Reg)
				nr := newName(k)
				o.Reg.N = nr.N
				stacks[k] = append(stacks[k], nr)
				pushed = append(pushed, k)
			}
		}
		for _, s := range b.Succs {
			for _, phi := range phisOf[s] {
				k := phiReg[phi]
				for j := 0; j+1 < len(phi.Srcs); j += 2 {
					if phi.Srcs[j+1].Block != b.ID {
						continue
					}
					st := stacks[k]
					if len(st) == 0 {
						if err == nil {
							err = fmt.Errorf("GenerateMovPhi: no definition of %s reaches the end of BB%d for the phi in BB%d", ori.VReg(k.class, int(k.n), 1), b.ID, s.ID)
						}
						continue
					}
					phi.Srcs[j].Reg.N = st[len(st)-1].N
				}
			}
		}
		for _, ch := range children[b] {
			rename(ch)
		}
		for i := len(pushed) - 1; i >= 0; i-- {
			k := pushed[i]
			stacks[k] = stacks[k][:len(stacks[k])-1]
		}
	}
	rename(f.Blocks[0])
	return true, err
}

// mpFirstDef returns the ID of the first instruction of b defining k (the
// site's anchor).
func mpFirstDef(b *ori.Block, k mpKey) int32 {
	for _, in := range b.Insts {
		for _, o := range in.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Virtual && mpKeyOf(o.Reg) == k {
				return in.ID
			}
		}
	}
	return 0
}
