package opt

// OriPerformLiveDeadFourth, call arguments: the moves of arguments a
// whole-seen callee never reads are deleted.
//
// The lowering passes a call's arguments in R4.. (lower/ctrl.go): one
// MOV per word into the physical register, right before the CALL. Dead
// code elimination keeps every write of a physical register (it cannot
// see the callee), so an argument the callee ignores, or whose read the
// callee's own dead code elimination removed, still costs its move, the
// value feeding it, and the registers both occupy at the call. A fuzz
// kernel that calls an empty .func with four arguments shows it:
//
//	MOV R4 = RZ                          (deleted)
//	MOV R5 = RZ                          (deleted)
//	MOV R6 = RZ ; MOV R8 = RZ ; MOV R9 = RZ   (deleted)
//	MOV R2 = `.ret`
//	CALL.REL.NOINC `fn1`
//
// ptxas (13.0.88, sm_80 -O3) passes nothing there: testdata/fuzzfindings/
// placeblocks-bar-sync-deadlock/shrunk.reduced.ptx uses 6 registers in
// ptxas and 12 in orilab before this pass (R0-R9), 6 after.
//
// Only calls to whole-seen callees (ori.Func.WholeSeen: every call of
// the callee is visible, so its entry is the only way in) of this module
// qualify. The registers such a callee reads are its physical R words
// live at its entry (calleeEntryReads: a backward dataflow over the
// callee in which a source or address base reads, an unguarded write
// kills, RET reads the callee's result registers, and a CALL of the
// callee reads every register, as its own arguments are not tracked).
// An instruction before the CALL, after the block's previous CALL, is
// deleted when
//
//   - its opcode has no effect but its results (not a load, store,
//     barrier, call or branch: keptFlags of deadcode.go);
//   - every result is a physical R register word from R4 up that the
//     callee does not read (R1 is the stack pointer, R2:R3 the return
//     address);
//   - no instruction between it and the CALL reads those words;
//   - the caller does not read the words after the CALL before writing
//     them again in the same block; when the block does not write them
//     again, nothing else in the caller reads them (and a .func caller
//     does not return them).
//
// The last rule keeps a result the callee leaves unwritten from reading
// the deleted argument, which the unchanged code would have returned.
// The values that fed the deleted moves are then dead, and LiveDead,
// which follows in the same phase, removes them.
//
// Knob: DisableDeadCallArgs switches it off. Each deleted move is one
// site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableDeadCallArgs", Type: knobs.TypeBool,
		Doc:     "Switch off deleting the argument moves of a call whose whole-seen callee never reads them (phase OriPerformLiveDeadFourth).",
		Readers: []string{"OriPerformLiveDeadFourth"}})
}

// DeadCallArgs deletes argument moves a whole-seen callee does not read.
var DeadCallArgs = Pass{
	Run:  deadCallArgs,
	NoOp: offBy("DisableDeadCallArgs"),
}

// firstArgReg is the first register a call's arguments may take; below
// it are R1 (stack pointer) and the return-address pair.
const firstArgReg = 4

// rWords is a set of physical R register words.
type rWords [4]uint64

func (s *rWords) add(k int) {
	if k >= 0 && k < 256 {
		s[k/64] |= 1 << (k % 64)
	}
}
func (s *rWords) del(k int) {
	if k >= 0 && k < 256 {
		s[k/64] &^= 1 << (k % 64)
	}
}
func (s rWords) has(k int) bool { return k >= 0 && k < 256 && s[k/64]&(1<<(k%64)) != 0 }

// physRWords calls fn for every word of r when r is a physical R
// register (not RZ).
func physRWords(r ori.Reg, fn func(k int)) {
	if r.Virtual || r.Class != ori.ClassR || r.IsZero() {
		return
	}
	for w := 0; w < max(int(r.Words), 1); w++ {
		fn(int(r.N) + w)
	}
}

// readsPhysR calls fn for every physical R word in reads.
func readsPhysR(in *ori.Inst, fn func(k int)) {
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			physRWords(o.Reg, fn)
		}
	}
}

// calleeEntryReads returns the physical R words g may read before
// writing them, along some path from its entry.
func calleeEntryReads(g *ori.Func) rWords {
	var all rWords
	for k := 0; k < 255; k++ {
		all.add(k)
	}
	var retRead rWords
	for _, r := range g.Rets {
		words := int(r.Words)
		if words == 0 {
			words = int((r.Size + 3) / 4)
		}
		for w := 0; w < words; w++ {
			retRead.add(int(r.Offset) + w)
		}
	}
	// transfer applies block b backwards to the words live at its end.
	transfer := func(b *ori.Block, live rWords) rWords {
		for i := len(b.Insts) - 1; i >= 0; i-- {
			in := b.Insts[i]
			if !in.Guarded() {
				for _, o := range in.Dsts {
					if o.Kind == ori.OpdReg {
						physRWords(o.Reg, live.del)
					}
				}
			}
			switch in.Op {
			case ori.OpCALL:
				return all
			case ori.OpRET:
				for j := range live {
					live[j] |= retRead[j]
				}
			}
			readsPhysR(in, live.add)
		}
		return live
	}
	in := make(map[*ori.Block]rWords, len(g.Blocks))
	for changed := true; changed; {
		changed = false
		for i := len(g.Blocks) - 1; i >= 0; i-- {
			b := g.Blocks[i]
			var out rWords
			for _, s := range b.Succs {
				x := in[s]
				for j := range out {
					out[j] |= x[j]
				}
			}
			if n := transfer(b, out); n != in[b] {
				in[b] = n
				changed = true
			}
		}
	}
	if len(g.Blocks) == 0 {
		return all
	}
	return in[g.Blocks[0]]
}

func deadCallArgs(f *ori.Func, c *Context) (bool, error) {
	if c == nil || c.Module == nil || c.Bool("DisableDeadCallArgs") {
		return false, nil
	}
	reads := map[string]rWords{}
	calleeReads := func(name string) (rWords, bool) {
		if r, ok := reads[name]; ok {
			return r, true
		}
		g := c.Module.Func(name)
		if g == nil || !g.WholeSeen() || len(g.Blocks) == 0 {
			return rWords{}, false
		}
		if err := g.ComputeCFG(); err != nil {
			return rWords{}, false
		}
		r := calleeEntryReads(g)
		reads[name] = r
		return r, true
	}
	// readers counts, per physical R word, the instructions of f that
	// read it, and retWords holds f's own result words (RET reads them).
	var readers [256]int
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			readsPhysR(in, func(k int) { readers[k]++ })
		}
	}
	var retWords rWords
	if !f.Entry {
		for _, r := range f.Rets {
			words := int(r.Words)
			if words == 0 {
				words = int((r.Size + 3) / 4)
			}
			for w := 0; w < words; w++ {
				retWords.add(int(r.Offset) + w)
			}
		}
	}
	changed := false
	for _, b := range f.Blocks {
		dead := map[*ori.Inst]bool{}
		prevCall := -1
		for ci, call := range b.Insts {
			if call.Op != ori.OpCALL {
				continue
			}
			lo := prevCall + 1
			prevCall = ci
			name, ok := ori.CallTarget(call)
			if !ok {
				continue
			}
			ins, ok := calleeReads(name)
			if !ok {
				continue
			}
			for j := ci - 1; j >= lo; j-- {
				in := b.Insts[j]
				if !deadArgMove(f, b, j, ci, ins, &readers, retWords) {
					continue
				}
				if !c.Sites.Allow(f, in.ID, "delete an argument move the whole-seen callee does not read") {
					continue
				}
				dead[in] = true
				readsPhysR(in, func(k int) { readers[k]-- })
			}
		}
		if len(dead) == 0 {
			continue
		}
		kept := b.Insts[:0]
		for _, in := range b.Insts {
			if !dead[in] {
				kept = append(kept, in)
			}
		}
		b.Insts = kept
		changed = true
	}
	return changed, nil
}

// deadArgMove reports whether b.Insts[j], before the CALL b.Insts[ci],
// writes only argument words the callee does not read (ins) and that the
// caller does not read either (deadcallargs.go's rules).
func deadArgMove(f *ori.Func, b *ori.Block, j, ci int, ins rWords, readers *[256]int, retWords rWords) bool {
	in := b.Insts[j]
	if in.Op.Flags()&keptFlags != 0 || len(in.Dsts) == 0 {
		return false
	}
	var words []int
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg || o.Reg.Virtual || o.Reg.Class != ori.ClassR || o.Reg.IsZero() {
			return false
		}
		ok := true
		physRWords(o.Reg, func(k int) {
			if k < firstArgReg || ins.has(k) {
				ok = false
			}
			words = append(words, k)
		})
		if !ok {
			return false
		}
	}
	for _, k := range words {
		// Readers between the move and the CALL.
		read := false
		for x := j + 1; x < ci; x++ {
			readsPhysR(b.Insts[x], func(r int) { read = read || r == k })
		}
		if read {
			return false
		}
		// After the CALL: a write must come before any read in the block;
		// without one, nothing else may read the word.
		rewritten := false
		for x := ci + 1; x < len(b.Insts) && !rewritten && !read; x++ {
			u := b.Insts[x]
			readsPhysR(u, func(r int) { read = read || r == k })
			if u.Op == ori.OpCALL || u.Op == ori.OpRET {
				read = true
			}
			if !u.Guarded() {
				for _, o := range u.Dsts {
					if o.Kind == ori.OpdReg {
						physRWords(o.Reg, func(r int) { rewritten = rewritten || r == k })
					}
				}
			}
		}
		if read {
			return false
		}
		if !rewritten && (readers[k] > 0 || retWords.has(k)) {
			return false
		}
	}
	return true
}
