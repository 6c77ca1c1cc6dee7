package opt

// LateArchOptimizeFirst (phase 83): narrow a vector load of which only
// some words are read.
//
// PTX reads a vector and uses one element (ZLUDA's vector4 test:
// ld.v4.u32 then mov.b32 of .w); the lowering loads the whole 128 bits,
// and the allocator must give the load four consecutive registers, live
// together until the last read. ptxas 13.0.88 loads only the word it
// needs: `LD.E R3, [R2.64+0xc]` (8 registers against orilab's 14). This
// pass does the same:
//
//	LD.E.128 %r8.128 = [%r2.64]            #5 LD.E %r9 = [%r2.64+0xc]
//	ST.E [%r4.64], %r8[3]           ==>       ST.E [%r4.64], %r9
//
// A 64- or 128-bit load (LDG, LD, LDS, LDL) whose reads all fall in one
// naturally aligned slice of its result (one word, or an aligned pair of
// a 128-bit load) becomes a load of that slice at the offset plus the
// slice's byte position, into a fresh register, and the reads are pointed
// at it. Conditions: the load is the only definition of its result, its
// modifiers are only .E, .64/.128 and .CONSTANT (no .STRONG or other
// ordering: those accesses stay as written), and it reads at least one
// word (a load nothing reads stays whole for the dead-code pass, which
// keeps dead loads).
//
// Decision: the narrow access lies inside the wide one's naturally
// aligned block, so it touches no byte the original did not; what changes
// is that a misaligned vector address (undefined behaviour in PTX) no
// longer faults when the narrow slice happens to be aligned. ptxas makes
// the same trade (measured above).
//
// Knob: DisableLoadNarrowing switches it off. Each load is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableLoadNarrowing", Type: knobs.TypeBool,
		Doc:     "Switch off narrowing a 64- or 128-bit load of which only one aligned slice is read (phase LateArchOptimizeFirst).",
		Readers: []string{"LateArchOptimizeFirst"}})
}

// NarrowLoads is the load-narrowing part of LateArchOptimizeFirst.
var NarrowLoads = Pass{
	Run:  narrowLoads,
	NoOp: offBy("DisableLoadNarrowing"),
}

// lnSpan is the words of a load's result some instruction reads.
type lnSpan struct{ lo, hi int } // [lo, hi); lo > hi while empty

func narrowLoads(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableLoadNarrowing") {
		return false, nil
	}
	defs, cands := defsAndCandidates(f, func(in *ori.Inst) bool { return lnWide(in) > 0 })
	if len(cands) == 0 {
		return false, nil
	}
	spans := map[cmReg]*lnSpan{}
	for _, in := range cands {
		if defs[cmRegOf(in.Dsts[0].Reg)] == 1 {
			spans[cmRegOf(in.Dsts[0].Reg)] = &lnSpan{lo: 1 << 30, hi: -1}
		}
	}
	// Every read counts, MOV.PHI operands and address bases included.
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			cmReads(in, func(r ori.Reg) {
				if s := spans[cmRegOf(r)]; s != nil && r.Virtual {
					s.lo = min(s.lo, int(r.Off))
					s.hi = max(s.hi, int(r.Off)+int(r.Words))
				}
			})
		}
	}
	// remap: the loads narrowed, with their fresh register and the first
	// word of the old one it holds.
	type narrowed struct {
		t  ori.Reg
		lo int
	}
	remap := map[cmReg]narrowed{}
	for _, in := range cands {
		d := in.Dsts[0].Reg
		s := spans[cmRegOf(d)]
		w := lnWide(in)
		if s == nil || s.hi <= s.lo {
			continue
		}
		n := s.hi - s.lo
		if n != 1 && n != 2 || s.lo%n != 0 || n >= w {
			continue
		}
		if !c.Sites.Allow(f, in.ID, "narrow a vector load to the words read") {
			continue
		}
		t := f.NewVReg(ori.ClassR, n)
		// The size modifier is replaced where it stands.
		mods := make([]string, 0, len(in.Mods))
		for _, m := range in.Mods {
			switch {
			case m != "64" && m != "128":
				mods = append(mods, m)
			case n == 2:
				mods = append(mods, "64")
			}
		}
		in.Mods = mods
		in.Dsts[0] = ori.R(t)
		in.Srcs[0].Imm += int64(4 * s.lo)
		remap[cmRegOf(d)] = narrowed{t, s.lo}
	}
	if len(remap) == 0 {
		return false, nil
	}
	fix := func(o *ori.Operand) {
		if !o.Reg.Virtual {
			return
		}
		if nw, ok := remap[cmRegOf(o.Reg)]; ok {
			r := nw.t
			r.Off = o.Reg.Off - uint8(nw.lo)
			r.Words = o.Reg.Words
			o.Reg = r
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			eachRegReadOperand(in, fix)
		}
	}
	return true, nil
}

// lnWide returns the words (2 or 4) of a load the pass may narrow, 0 for
// any other instruction.
func lnWide(in *ori.Inst) int {
	switch in.Op {
	case ori.OpLDG, ori.OpLD, ori.OpLDS, ori.OpLDL:
	default:
		return 0
	}
	if len(in.Dsts) != 1 || len(in.Srcs) != 1 || in.Srcs[0].Kind != ori.OpdMem {
		return 0
	}
	d := in.Dsts[0]
	if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR || d.Reg.Off != 0 {
		return 0
	}
	w := 0
	for _, m := range in.Mods {
		switch m {
		case "64":
			w = 2
		case "128":
			w = 4
		case "E", "CONSTANT":
		default:
			return 0
		}
	}
	if int(d.Reg.Words) != w {
		return 0
	}
	return w
}
