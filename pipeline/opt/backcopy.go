package opt

// OriBackCopyPropagate (phase 91): backward copy propagation.
//
// Forward copy propagation (OriCopyProp) rewrites the uses of a copy's
// result to its source and leaves the copy for dead-code elimination.
// That cannot remove a copy whose result must stay in its own register,
// typically a value computed into a temporary and then moved into the
// variable PTX named:
//
//	#12 IADD3 %r9 = %r4, 0x1, RZ          #12 IADD3 %r5 = %r4, 0x1, RZ
//	#13 MOV %r5 = %r9               ==>
//
// Backward propagation renames the temporary's definition to the copy's
// result and deletes the copy. The wiki ("Copy Propagation & CSE", phase
// 83 of its numbering, seed lines 14035-14120) gives the reconstructed
// algorithm: walk the blocks, each from its last instruction to its
// first; for every copy "d = MOV s" where s has exactly one use (this
// copy), rename the definition of s to d when that is possible and no
// definition of d intervenes; stop after BackCopyPropBudget rewrites.
// Walking backwards collapses chains: in "a = expr; b = a; c = b" the
// copy c = b first turns "b = a" into "c = a", which is then itself the
// next copy to look at, and the result is "c = expr".
//
// Conditions, all checked (orilab works on virtual registers that may be
// defined more than once, so it checks them itself rather than relying on
// partial SSA):
//
//   - the copy is an unguarded MOV or UMOV without modifiers of a whole
//     virtual R or UR register into a whole virtual register of the same
//     class and width, or into one word of a wider one (MOV %r30[1] = %r9,
//     how a vector store's data is assembled); a copy of a partial view
//     such as %r5[1] is not a candidate;
//   - s has exactly one definition in the function, an unguarded,
//     non-pseudo instruction D that writes all of s and nothing overlapping
//     d, and it lies earlier in the same block;
//   - no instruction strictly between D and the copy writes d or reads
//     d (D itself may read d: an instruction reads its sources before it
//     writes its results);
//   - every other read of s is either between D and the copy (it will
//     read d, which from D on holds s's value) or at a point where the
//     copy is the only definition of d that reaches (a small forward
//     dataflow over the three-point lattice "nothing yet / only the copy
//     / anything else", the function entry counting as anything else).
//     Such reads are rewritten to d. The second case matters because
//     forward copy propagation runs first and has already rewritten the
//     uses of d after the copy into uses of s; without it the temporary
//     would nearly never have a single use left.
//
// Then d's old value is never observed after D: nothing between D and
// the copy reads it, and the copy (unguarded, whole register) overwrote
// it anyway; every read of s sees the same value in d. s disappears
// from the function.
//
// Decision (wiki contradiction): the wiki says phase 83 itself is a
// progress marker that is a no-op unless an architecture backend installs
// the algorithm through AdvancedPhaseBackPropVReg (82). orilab has one
// backend for sm_75-sm_89 and installs the algorithm here, at
// OriBackCopyPropagate itself, for -O1 and above; the gate hook
// AdvancedPhaseBackPropVReg stays a no-op. BackCopyPropBudget (-1, the
// default: no limit) caps the rewrites per function; 0 switches the pass
// off.

import (
	"fmt"
	"slices"
	"sync"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "BackCopyPropBudget", Type: knobs.TypeInt, Default: "-1", Bounds: knobs.AtLeast(-1),
		Doc:     "Most backward copy propagations OriBackCopyPropagate performs in one function (-1: no limit, 0: none).",
		Readers: []string{"OriBackCopyPropagate"}})
}

// BackCopyPropagate is backward copy propagation: it renames a
// temporary's definition to the register it is then copied into and
// deletes the copy (phase OriBackCopyPropagate).
var BackCopyPropagate = Pass{
	Run: func(f *ori.Func, c *Context) (bool, error) {
		return backCopyProp(f, c.Int("BackCopyPropBudget"), !c.Bool("DisableBackCopyTuples"), c.Sites), nil
	},
	NoOp: func(c *Context) string {
		if c.Int("BackCopyPropBudget") == 0 {
			return "switched off by the knob BackCopyPropBudget=0 (its budget of rewrites)"
		}
		return ""
	},
}

// bcRegStats counts, per virtual register, its definitions and reads and
// records its width (the largest word any operand names, plus one).
type bcRegStats struct {
	// c holds the counts of register k at word 0 of k's slot (a dense
	// table from bcStatsPool; three maps were a third of the pass).
	c *wordTable[bcCount]
	// readers lists, per virtual register, the instructions that read it
	// (built on first use by readersOf, kept up to date by addReaders);
	// an entry may be stale (deleted, or renamed away from the register),
	// so a user checks it again. Looking the readers of s up here instead
	// of scanning the whole function for each copy made the pass
	// quadratic in the function's size.
	readers map[cmReg][]bcUse
	// writers, calls and pos are built with readers: the instructions
	// that may write each virtual register (a superset, as readers), the
	// calls, and each block's index. They let bcReachIn find a block's
	// last event without walking every instruction for each copy.
	writers map[cmReg][]bcUse
	calls   []bcUse
	pos     map[*ori.Block]int
}

// bcUse is an instruction and its block.
type bcUse struct {
	b  *ori.Block
	in *ori.Inst
}

// readersOf returns the instructions that may read s (a superset of
// those that do), each once.
func (st *bcRegStats) readersOf(f *ori.Func, s ori.Reg) []bcUse {
	if st.readers == nil {
		st.readers, st.writers = map[cmReg][]bcUse{}, map[cmReg][]bcUse{}
		st.pos = make(map[*ori.Block]int, len(f.Blocks))
		for i, b := range f.Blocks {
			st.pos[b] = i
			for _, in := range b.Insts {
				if in.Op.Has(ori.FCall) {
					st.calls = append(st.calls, bcUse{b, in})
				}
				for _, o := range in.Dsts {
					if o.Kind == ori.OpdReg && o.Reg.Virtual {
						k := cmRegOf(o.Reg)
						st.writers[k] = append(st.writers[k], bcUse{b, in})
					}
				}
				cmReads(in, func(r ori.Reg) {
					if !r.Virtual {
						return
					}
					k := cmRegOf(r)
					if l := st.readers[k]; len(l) > 0 && l[len(l)-1].in == in {
						return // read twice by in
					}
					st.readers[k] = append(st.readers[k], bcUse{b, in})
				})
			}
		}
	}
	return st.readers[cmRegOf(s)]
}

// addWriter records that def, in block b, now writes d.
func (st *bcRegStats) addWriter(b *ori.Block, def *ori.Inst, d ori.Reg) {
	if st.writers != nil {
		k := cmRegOf(d)
		st.writers[k] = append(st.writers[k], bcUse{b, def})
	}
}

// addReaders records that uses, which read s, are about to read d
// instead (those that read d already are listed under it).
func (st *bcRegStats) addReaders(uses []bcUse, d ori.Reg) {
	if st.readers == nil {
		return // built later from the code as it is then
	}
	k := cmRegOf(d)
	for _, u := range uses {
		if !bcReadsRegister(u.in, k) {
			st.readers[k] = append(st.readers[k], u)
		}
	}
}

// bcReadsRegister reports whether in reads a word of virtual register k.
func bcReadsRegister(in *ori.Inst, k cmReg) bool {
	hit := false
	cmReads(in, func(r ori.Reg) { hit = hit || r.Virtual && cmRegOf(r) == k })
	return hit
}

// bcCount is what bcCollect counts of one virtual register: its
// definitions and reads, and its width (the largest word any operand
// names, plus one).
type bcCount struct {
	defs, reads, width int32
}

var bcStatsPool = sync.Pool{New: func() any { return new(wordTable[bcCount]) }}

// count returns k's counts.
func (st *bcRegStats) count(k cmReg) bcCount {
	c, _ := st.c.get(wkey{n: k.n, class: k.class})
	return c
}

// setCount replaces k's counts.
func (st *bcRegStats) setCount(k cmReg, c bcCount) { st.c.set(wkey{n: k.n, class: k.class}, c) }

// release hands the table back; st must not be used after.
func (st *bcRegStats) release() { bcStatsPool.Put(st.c) }

func bcCollect(f *ori.Func) *bcRegStats {
	st := &bcRegStats{c: bcStatsPool.Get().(*wordTable[bcCount])}
	st.c.reset()
	note := func(r ori.Reg, read, def int32) {
		if r.Virtual {
			k := cmRegOf(r)
			c := st.count(k)
			c.reads += read
			c.defs += def
			c.width = max(c.width, int32(r.Off)+int32(r.Words))
			st.setCount(k, c)
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			cmReads(in, func(r ori.Reg) { note(r, 1, 0) })
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg {
					note(o.Reg, 0, 1)
				}
			}
		}
	}
	return st
}

// whole reports whether r names all of its virtual register.
func (st *bcRegStats) whole(r ori.Reg) bool {
	return r.Virtual && r.Off == 0 && int32(r.Words) == st.count(cmRegOf(r)).width
}

// bcCopy returns the copy's result and source, or ok=false.
func bcCopy(in *ori.Inst, st *bcRegStats) (d, s ori.Reg, ok bool) {
	if in.Op != ori.OpMOV && in.Op != ori.OpUMOV || len(in.Mods) != 0 || in.Guarded() ||
		len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return d, s, false
	}
	do, so := in.Dsts[0], in.Srcs[0]
	if do.Kind != ori.OpdReg || so.Kind != ori.OpdReg || so.Neg || so.Abs || so.Not {
		return d, s, false
	}
	d, s = do.Reg, so.Reg
	if d.Class != s.Class || (d.Class != ori.ClassR && d.Class != ori.ClassUR) || d.Words != s.Words ||
		!d.Virtual || !st.whole(s) || cmRegOf(d) == cmRegOf(s) {
		return d, s, false
	}
	// d may be one word of a wider register (a vector store's data tuple,
	// built word by word): the copy writes exactly that word, and every
	// check below is on the words d names.
	return d, s, st.whole(d) || d.Words == 1
}

// bcTouches reports whether in reads or writes any word of r.
func bcTouches(in *ori.Inst, r ori.Reg) bool {
	hit := readsReg(in, r)
	for _, o := range in.Dsts {
		hit = hit || o.Kind == ori.OpdReg && o.Reg.Overlaps(r)
	}
	return hit
}

func backCopyProp(f *ori.Func, budget int, tuples bool, sites *Sites) bool {
	if err := f.ComputeCFG(); err != nil {
		return false
	}
	st := bcCollect(f)
	defer st.release()
	done := 0
	for _, b := range f.Blocks {
		for i := len(b.Insts) - 1; i >= 0; i-- {
			if budget >= 0 && done >= budget {
				return done > 0
			}
			mov := b.Insts[i]
			d, s, ok := bcCopy(mov, st)
			first := i // the group of word copies b.Insts[first..i] (backcopytuple.go), or the copy
			if !ok && tuples {
				d, s, first, ok = bcGroup(b, i, st)
			}
			if !ok || st.count(cmRegOf(s)).defs != 1 {
				continue
			}
			// Find D, the definition of s, above the copy; give up at
			// anything that reads or writes d first. Reads of s between
			// them are fine: they will read d.
			at := -1
			for j := first - 1; j >= 0; j-- {
				in := b.Insts[j]
				if bcWritesWhole(in, s) {
					at = j
					break
				}
				if bcTouches(in, d) {
					break
				}
			}
			if at < 0 {
				continue
			}
			def := b.Insts[at]
			if def.Guarded() || def.IsPseudo() || def.Op.Has(ori.FCall) || bcWritesOther(def, s, d) {
				continue
			}
			var uses []bcUse
			switch {
			case first < i:
				uses, ok = bcGroupUses(f, st, b, at, first, i, s)
			case st.count(cmRegOf(s)).reads != 1:
				uses, ok = bcOtherUses(f, st, b, at, i, s, d)
			default:
				// The counts are exact (kept up to date below), so when
				// the copy is s's only reader there is nothing to look
				// for: the search scans the whole function, once per
				// copy.
			}
			if !ok {
				continue
			}
			if sites != nil && !sites.Allow(f, mov.ID, fmt.Sprintf("rename #%d's result %s to %s and delete the copy", def.ID, s, d)) {
				continue
			}
			for k, o := range def.Dsts {
				if o.Kind == ori.OpdReg && o.Reg == s {
					def.Dsts[k].Reg = d
				}
			}
			st.addWriter(b, def, d)
			st.addReaders(uses, d)
			for _, u := range uses {
				bcRename(u.in, s, d)
			}
			b.Insts = append(b.Insts[:first], b.Insts[i+1:]...)
			// s is gone; d keeps its number of definitions (D's replaces
			// the copy's, or the group's) and gains the reads of s but
			// the copies'.
			cs, cd := st.count(cmRegOf(s)), st.count(cmRegOf(d))
			cd.reads += cs.reads - int32(i-first+1)
			cd.defs -= int32(i - first)
			cs.reads, cs.defs = 0, 0
			st.setCount(cmRegOf(d), cd)
			st.setCount(cmRegOf(s), cs)
			done++
			i = first
			// Go on with the instruction before the deleted copy; walking
			// backwards reaches D, which may itself be a copy that now
			// feeds d (the chain collapse).
		}
	}
	return done > 0
}

// bcOtherUses returns the instructions other than the copy (b.Insts[ci])
// that read s, or ok=false when one of them may see a different value in
// d than in s. D is b.Insts[di].
func bcOtherUses(f *ori.Func, st *bcRegStats, b *ori.Block, di, ci int, s, d ori.Reg) (uses []bcUse, ok bool) {
	copyInst := b.Insts[ci]
	var in map[*ori.Block]bcReach
	for _, x := range st.readersOf(f, s) {
		u := x.in
		if u == copyInst || !readsReg(u, s) {
			continue
		}
		j := slices.Index(x.b.Insts, u)
		if j < 0 {
			continue // deleted
		}
		if x.b == b && j > di && j < ci {
			uses = append(uses, x)
			continue
		}
		if in == nil {
			in = bcReachIn(f, st, b, copyInst, d)
		}
		r := in[x.b]
		for _, p := range x.b.Insts[:j] {
			r = bcStep(r, p, copyInst, d)
		}
		if r != bcOnlyCopy {
			return nil, false
		}
		uses = append(uses, x)
	}
	return uses, true
}

// bcReach is what reaches a point as d's definition.
type bcReach uint8

const (
	bcNothing  bcReach = iota // no path reaches yet (dataflow top)
	bcOnlyCopy                // only the copy
	bcOther                   // anything else too (the entry, another definition)
)

func bcMeet(a, b bcReach) bcReach {
	switch {
	case a == bcNothing:
		return b
	case b == bcNothing:
		return a
	case a == b:
		return a
	}
	return bcOther
}

// bcStep applies one instruction to what reaches.
func bcStep(r bcReach, in, copyInst *ori.Inst, d ori.Reg) bcReach {
	if in == copyInst {
		return bcOnlyCopy
	}
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg.Overlaps(d) {
			return bcOther
		}
	}
	if in.Op.Has(ori.FCall) {
		return bcOther // a callee writes physical registers only, but be safe
	}
	return r
}

// bcReachIn computes, per block, what reaches its entry as d's definition.
// copyInst is in block cb; st's index (readersOf) is built.
func bcReachIn(f *ori.Func, st *bcRegStats, cb *ori.Block, copyInst *ori.Inst, d ori.Reg) map[*ori.Block]bcReach {
	in := map[*ori.Block]bcReach{}
	if len(f.Blocks) == 0 {
		return in
	}
	// A block's effect is that of its last instruction that is the copy,
	// writes d or calls (bcNothing: none, what reaches its entry passes
	// through). Only those instructions can be such an event: the copy,
	// the writers of d's register and the calls, which st lists, so the
	// blocks are not walked for each copy.
	last := make([]bcReach, len(f.Blocks))
	lastAt := make([]int, len(f.Blocks))
	consider := func(u bcUse) {
		t := bcStep(bcNothing, u.in, copyInst, d)
		if t == bcNothing {
			return // no longer writes d
		}
		bi, ok := st.pos[u.b]
		if !ok {
			return
		}
		j := slices.Index(u.b.Insts, u.in)
		if j < 0 {
			return // deleted
		}
		if j+1 > lastAt[bi] {
			lastAt[bi], last[bi] = j+1, t
		}
	}
	consider(bcUse{cb, copyInst})
	for _, u := range st.writers[cmRegOf(d)] {
		consider(u)
	}
	for _, u := range st.calls {
		consider(u)
	}
	in[f.Blocks[0]] = bcOther
	for changed := true; changed; {
		changed = false
		for i, b := range f.Blocks {
			r := in[b]
			if r == bcNothing {
				continue
			}
			if last[i] != bcNothing {
				r = last[i]
			}
			for _, sb := range b.Succs {
				if m := bcMeet(in[sb], r); m != in[sb] {
					in[sb] = m
					changed = true
				}
			}
		}
	}
	return in
}

// bcRename makes in read d where it read s (same words).
func bcRename(in *ori.Inst, s, d ori.Reg) {
	fix := func(r ori.Reg) ori.Reg {
		if r.Virtual && r.Class == s.Class && r.N == s.N {
			r.N, r.Off = d.N, d.Off+r.Off
		}
		return r
	}
	in.Guard = fix(in.Guard)
	eachRegReadOperand(in, func(o *ori.Operand) { o.Reg = fix(o.Reg) })
}

// bcWritesWhole reports whether in writes s through a result that names
// exactly s.
func bcWritesWhole(in *ori.Inst, s ori.Reg) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg == s {
			return true
		}
	}
	return false
}

// bcWritesOther reports whether in has a result other than s that
// overlaps s or d (renaming would then merge two results).
func bcWritesOther(in *ori.Inst, s, d ori.Reg) bool {
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && o.Reg != s && (o.Reg.Overlaps(s) || o.Reg.Overlaps(d)) {
			return true
		}
	}
	return false
}
