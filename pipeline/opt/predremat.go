package opt

// LateArchOptimizeSecond (phase 89), predicate rematerialization: a
// comparison whose predicate is live across a point where more
// predicates are live than the register file holds is recomputed in the
// distant blocks that read it.
//
// The predicate file has seven registers (P0-P6). A predicate the
// allocator cannot place is kept in an R register (SEL before, ISETP
// after), so every predicate over seven costs an R register for its
// whole live range. PTX from old nvcc computes the loop-invariant tests
// of a kernel once, before its main loop (parboil pns PetrinetKernel:
// setp.le.u32 %p8, %r11, 226 and four more on %tid.x, read all over a
// 100-block loop body); with twelve predicates live there orilab kept
// five of them in R registers (40 registers), where ptxas 13.0.88
// compares again next to the branches (30 registers, ISETP P3 on R0
// repeated through the loop).
//
// A predicate qualifies when it is live at a point where more than
// seven predicate words are live, and its only definition is an
// unguarded ISETP (second result PT, no predicate source but PT) whose
// register sources each have one unguarded definition that dominates
// the ISETP, or are only ever written by S2R of one special register
// that keeps its value for the whole thread (%tid.x copied in two
// branches, as in PetrinetKernel). In every block U that the ISETP's block dominates and that
// reads the predicate, where each register source is live on entry (so
// no R range grows), the ISETP is cloned right before the first read in
// U into a fresh predicate, and U's reads are pointed at it. The clone
// computes the same value: every path from the last execution of a
// source's definition to U passes the ISETP (the definition dominates
// it, and a path around it would contradict the ISETP dominating U),
// so the sources still hold what the ISETP read. The original is
// deleted when nothing reads its predicate any more.
//
// A predicate that guards an instruction writing a register is left
// alone: the post-allocation verifier pairs a guarded definition with
// the reads under the same predicate register, and a read redirected
// to a clone would no longer match it.
//
// Knob: DisablePredRemat switches it off. Each cloned ISETP is one site.

import (
	"fmt"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisablePredRemat", Type: knobs.TypeBool,
		Doc:     "Switch off recomputing, next to distant reads, ISETP predicates live where more than seven predicates are live (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// RematPredicates is the predicate rematerialization of
// LateArchOptimizeSecond.
var RematPredicates = Pass{
	Run:  rematPredicates,
	NoOp: offBy("DisablePredRemat"),
}

// predFile is the number of allocatable predicate registers (P0-P6).
const predFile = 7

// prVal identifies a virtual register word.
type prVal struct {
	class ori.RegClass
	n     int32
	off   uint8
}

func prWord(r ori.Reg, w int) prVal {
	return prVal{class: r.Class, n: r.N, off: r.Off + uint8(w)}
}

func rematPredicates(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisablePredRemat") {
		return false, nil
	}
	if err := f.ComputeCFG(); err != nil {
		return false, err
	}
	if ori.MaxPressure(f).P <= predFile {
		return false, nil
	}
	// One pass over the code: how often each virtual word is written
	// (guarded writes count as two, so they never qualify), the sole
	// definition and its block, and which predicates guard a register
	// write.
	defs := map[prVal]*prDef{}
	guardsWrite := map[prVal]bool{}
	var preds []ori.Reg
	seenPred := map[prVal]bool{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			writes := false
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || o.Reg.IsZero() {
					continue
				}
				if o.Reg.Class == ori.ClassR || o.Reg.Class == ori.ClassUR {
					writes = true
				}
				if !o.Reg.Virtual {
					continue
				}
				for w := 0; w < int(o.Reg.Words); w++ {
					k := prWord(o.Reg, w)
					d := defs[k]
					if d == nil {
						d = &prDef{}
						defs[k] = d
					}
					d.all = append(d.all, in)
					d.n++
					if in.Guarded() {
						d.n++
					}
					d.in, d.blk = in, b
				}
				if o.Reg.Class == ori.ClassP && !seenPred[prWord(o.Reg, 0)] {
					seenPred[prWord(o.Reg, 0)] = true
					preds = append(preds, ori.Reg{Class: ori.ClassP, Virtual: true, N: o.Reg.N, Off: o.Reg.Off, Words: 1})
				}
			}
			if writes && in.Guarded() && in.Guard.Virtual {
				guardsWrite[prWord(in.Guard, 0)] = true
			}
		}
	}
	live := ori.Liveness(f)
	// hot: the predicates live where the predicate file overflows.
	//
	// A predicate live after an instruction of b is live out of b or read
	// by a later instruction of b, so only those (local) are asked about
	// at b's points: asking about every predicate of the function at
	// every instruction was quadratic in kernels with many predicates.
	// Any operand or guard naming the predicate counts as a read here (a
	// superset does not change the counts).
	hot := map[prVal]bool{}
	predAt := make(map[prVal]int, len(preds))
	for i, p := range preds {
		predAt[prWord(p, 0)] = i
	}
	stamp := make([]int, len(preds))
	var local []ori.Reg
	for bi, b := range f.Blocks {
		local = local[:0]
		note := func(r ori.Reg) {
			if r.Virtual && r.Class == ori.ClassP {
				if i, ok := predAt[prWord(r, 0)]; ok && stamp[i] != bi+1 {
					stamp[i] = bi + 1
					local = append(local, preds[i])
				}
			}
		}
		for _, p := range preds {
			if live.LiveOut(b, p) {
				note(p)
			}
		}
		for _, in := range b.Insts {
			note(in.Guard)
			for _, o := range in.Srcs {
				note(o.Reg)
			}
			for _, o := range in.Dsts {
				note(o.Reg)
			}
		}
		if len(local) <= predFile {
			continue // never more than the file holds at one point of b
		}
		live.Walk(b, func(_ *ori.Inst, liveAfter func(ori.Reg) bool, _ bool) {
			n := 0
			for _, p := range local {
				if liveAfter(p) {
					n++
				}
			}
			if n <= predFile {
				return
			}
			for _, p := range local {
				if liveAfter(p) {
					hot[prWord(p, 0)] = true
				}
			}
		})
	}
	if len(hot) == 0 {
		return false, nil
	}
	dom := ori.Dominators(f)
	// sourcesOK: every register source of in is RZ/PT or a virtual R
	// word with one unguarded definition dominating in (in block b); the
	// R sources are returned for the live-in test.
	sourcesOK := func(in *ori.Inst, b *ori.Block) ([]ori.Reg, bool) {
		var regs []ori.Reg
		for _, o := range in.Srcs {
			switch o.Kind {
			case ori.OpdImm:
				continue
			case ori.OpdCBank:
				if o.HasBase {
					return nil, false
				}
				continue
			case ori.OpdReg:
			default:
				return nil, false
			}
			r := o.Reg
			if r.IsZero() && !o.Not {
				continue
			}
			if !r.Virtual || r.Class != ori.ClassR {
				return nil, false
			}
			for w := 0; w < int(r.Words); w++ {
				d := defs[prWord(r, w)]
				if stableSR(defs, prWord(r, w), 0) != "" {
					// The same thread-constant special register
					// everywhere: any definition reaching the clone
					// holds what the ISETP read.
					continue
				}
				if d == nil || d.n != 1 {
					return nil, false
				}
				if d.blk == b && !before(b, d.in, in) || d.blk != b && !dom.Dominates(d.blk, b) {
					return nil, false
				}
			}
			regs = append(regs, r)
		}
		return regs, true
	}
	// readers: the blocks reading each hot predicate.
	reads := func(in *ori.Inst, p prVal) bool {
		if in.Guard.Virtual && prWord(in.Guard, 0) == p {
			return true
		}
		for _, o := range in.Srcs {
			if o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassP && prWord(o.Reg, 0) == p {
				return true
			}
		}
		return false
	}
	changed := false
	for _, p := range preds {
		k := prWord(p, 0)
		d := defs[k]
		if !hot[k] || guardsWrite[k] || d == nil || d.n != 1 {
			continue
		}
		in := d.in
		if in.Op != ori.OpISETP || in.Guarded() || len(in.Dsts) != 2 || !in.Dsts[1].Reg.IsZero() ||
			in.Dsts[0].Reg.Words != 1 {
			continue
		}
		srcs, ok := sourcesOK(in, d.blk)
		if !ok {
			continue
		}
		remaining, cloned := false, false
		for _, u := range f.Blocks {
			first := -1
			for i, x := range u.Insts {
				if x != in && reads(x, k) {
					first = i
					break
				}
			}
			if first < 0 {
				continue
			}
			if u == d.blk || !dom.Dominates(d.blk, u) || !liveInAll(live, u, srcs) ||
				!c.Sites.Allow(f, in.ID, fmt.Sprintf("recompute predicate %v in BB%d", p, u.ID)) {
				remaining = true
				continue
			}
			np := f.NewVReg(ori.ClassP, 1)
			cl := in.Clone()
			cl.ID = f.NewID()
			cl.Dsts[0].Reg = np
			for _, x := range u.Insts[first:] {
				if x.Guard.Virtual && prWord(x.Guard, 0) == k {
					x.Guard = np
				}
				for j := range x.Srcs {
					o := &x.Srcs[j]
					if o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassP && prWord(o.Reg, 0) == k {
						o.Reg = np
					}
				}
			}
			u.Insts = append(u.Insts[:first], append([]*ori.Inst{cl}, u.Insts[first:]...)...)
			changed, cloned = true, true
		}
		if !cloned {
			continue
		}
		for _, x := range d.blk.Insts {
			if x != in && reads(x, k) {
				remaining = true
				break
			}
		}
		if !remaining {
			for i, x := range d.blk.Insts {
				if x == in {
					d.blk.Insts = append(d.blk.Insts[:i], d.blk.Insts[i+1:]...)
					break
				}
			}
		}
	}
	return changed, nil
}

// liveInAll reports whether every word of each register in regs is live
// on entry to b.
func liveInAll(live *ori.LiveSets, b *ori.Block, regs []ori.Reg) bool {
	for _, r := range regs {
		if !live.LiveIn(b, r) {
			return false
		}
	}
	return true
}

// before reports whether a comes before b in block blk.
func before(blk *ori.Block, a, b *ori.Inst) bool {
	for _, x := range blk.Insts {
		switch x {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

// prDef is what the pass knows of the writes of one virtual word: how
// many (a guarded write counts twice, so it never qualifies as sole),
// the last one and its block, and all of them.
type prDef struct {
	n   int
	in  *ori.Inst
	blk *ori.Block
	all []*ori.Inst
}

// stableSR returns the special register that every definition of word k
// reads, directly (an unguarded S2R of a register that keeps its value
// for the whole thread) or through unguarded copies of such words, or ""
// when there is none.
func stableSR(defs map[prVal]*prDef, k prVal, depth int) string {
	d := defs[k]
	if d == nil || depth > 4 {
		return ""
	}
	sr := ""
	for _, in := range d.all {
		var got string
		switch {
		case in.Guarded() || len(in.Srcs) != 1 || len(in.Dsts) != 1 || in.Dsts[0].Reg.Words != 1:
			return ""
		case in.Op == ori.OpS2R && in.Srcs[0].Kind == ori.OpdSR && cmStableSR(in.Srcs[0].Name):
			got = in.Srcs[0].Name
		case in.Op == ori.OpMOV && len(in.Mods) == 0 && in.Srcs[0].Kind == ori.OpdReg && in.Srcs[0].Reg.Virtual &&
			in.Srcs[0].Reg.Words == 1 && in.Srcs[0].Reg.Class == ori.ClassR:
			got = stableSR(defs, prWord(in.Srcs[0].Reg, 0), depth+1)
		}
		if got == "" || sr != "" && got != sr {
			return ""
		}
		sr = got
	}
	return sr
}
