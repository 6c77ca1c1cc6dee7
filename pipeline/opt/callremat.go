package opt

// OriPerformLiveDeadFourth, constants across calls: a register word that
// holds a constant-bank value or an immediate and is live across a CALL
// is loaded again right after the CALL instead.
//
// A value live across a call must sit in a register the callee leaves
// alone: above every register a whole-seen callee writes
// (regalloc/interproc.go), or in R16-R31 under the ABI. A kernel's
// output pointer, read from the parameter bank before the call and used
// after it, is the common case: in testdata/kernels/tex_func.ptx k4 it
// took R8:R9 because the callee f writes R2-R6, 12 registers where
// ptxas uses 8. ptxas (13.0.88, sm_80 -O3) reads such values again after
// the call (k4: "CALL.REL.NOINC; MOV R2, c[0x0][0x160]; IMAD.MOV.U32 R3,
// RZ, RZ, c[0x0][0x164]; STG.E [R2.64], R5"). Re-reading costs one
// instruction per word and call and frees the register across the call.
//
// A word qualifies when its only definition in the function is an
// unguarded MOV of a constant-bank operand without a base register, or
// of an immediate (constant banks do not change while a kernel runs),
// and it is live right after the CALL. The copy goes right after the
// CALL and writes the same word, so the value is no longer live across
// it; where the original definition is then read by nothing, LiveDead
// (which follows in the same phase) deletes it. A definition that does
// not reach the CALL on every path leaves the word undefined there, and
// the copy gives it the value it has everywhere else: no program can
// tell.
//
// A thread's and its CTA's indices qualify too (knob
// DisableCallRematS2R): a word whose only definition is an unguarded
// S2R of SR_TID.X/Y/Z, SR_CTAID.X/Y/Z or SR_LANEID, which do not change
// while the thread runs, is read again after the CALL the same way.
// Decision: ptxas keeps such a value in a register across the call, one
// its interprocedural allocation keeps the callee off (constret.ptx:
// the kernel's %tid.x stays in R0 across "CALL mid", 8 registers);
// orilab allocates a kernel after its whole-seen callees and must place
// the value above every register they write (constret: R8, 11
// registers), so it reads the index again, one S2R per call (10
// registers there).
//
// The row runs after the SSA window (the word is defined twice
// afterwards), before register allocation.
//
// Knob: DisableCallRemat switches it off. Each inserted copy is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableCallRemat", Type: knobs.TypeBool,
		Doc:     "Switch off loading a constant-bank value or immediate live across a CALL again after the call (phase OriPerformLiveDeadFourth).",
		Readers: []string{"OriPerformLiveDeadFourth"}})
	knobs.Default.Register(knobs.Knob{Name: "DisableCallRematS2R", Type: knobs.TypeBool,
		Doc:     "Switch off reading a thread or CTA index (S2R SR_TID, SR_CTAID, SR_LANEID) live across a CALL again after the call (phase OriPerformLiveDeadFourth).",
		Readers: []string{"OriPerformLiveDeadFourth"}})
}

// crInvariantSR are the special registers whose value a thread sees
// unchanged from its start to its end.
var crInvariantSR = map[string]bool{
	"SR_TID.X": true, "SR_TID.Y": true, "SR_TID.Z": true,
	"SR_CTAID.X": true, "SR_CTAID.Y": true, "SR_CTAID.Z": true,
	"SR_LANEID": true,
}

// CallRemat rematerializes constant words live across calls after them.
var CallRemat = Pass{
	Run:  callRemat,
	NoOp: offBy("DisableCallRemat"),
}

// crKey names a virtual register.
type crKey struct {
	class ori.RegClass
	n     int32
}

// crConstDef reports whether in is an unguarded one-word MOV of a
// constant-bank operand without a base, or of an immediate, into a
// virtual R register.
// With s2r, an unguarded S2R of an index in crInvariantSR qualifies too.
func crConstDef(in *ori.Inst, s2r bool) bool {
	if in.Op != ori.OpMOV && (!s2r || in.Op != ori.OpS2R) || len(in.Mods) != 0 || in.Guarded() || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return false
	}
	d, s := in.Dsts[0], in.Srcs[0]
	if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR || d.Reg.Words != 1 {
		return false
	}
	if in.Op == ori.OpS2R {
		return s.Kind == ori.OpdSR && crInvariantSR[s.Name]
	}
	return s.Kind == ori.OpdCBank && !s.HasBase || s.Kind == ori.OpdImm
}

// crCand is a register every word of which has one constant definition.
type crCand struct {
	key   crKey
	words []*ori.Inst // the definition of each word
	bad   bool
}

func callRemat(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableCallRemat") {
		return false, nil
	}
	hasCall := false
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			hasCall = hasCall || in.Op == ori.OpCALL
		}
	}
	if !hasCall {
		return false, nil
	}
	s2r := !c.Bool("DisableCallRematS2R")
	info := map[crKey]*crCand{}
	var order []*crCand
	get := func(r ori.Reg) *crCand {
		k := crKey{r.Class, r.N}
		x := info[k]
		if x == nil {
			x = &crCand{key: k}
			info[k] = x
			order = append(order, x)
		}
		if n := int(r.Off) + max(int(r.Words), 1); n > len(x.words) {
			x.words = append(x.words, make([]*ori.Inst, n-len(x.words))...)
		}
		return x
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdReg && o.Reg.Virtual || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase && o.Reg.Virtual {
					get(o.Reg)
				}
			}
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || !o.Reg.Virtual {
					continue
				}
				x := get(o.Reg)
				if !crConstDef(in, s2r) || x.words[o.Reg.Off] != nil {
					x.bad = true
					continue
				}
				x.words[o.Reg.Off] = in
			}
		}
	}
	var cands []*crCand
	for _, x := range order {
		for _, d := range x.words {
			x.bad = x.bad || d == nil
		}
		if !x.bad && len(x.words) > 0 {
			cands = append(cands, x)
		}
	}
	if len(cands) == 0 {
		return false, nil
	}
	live := ori.Liveness(f)
	whole := func(x *crCand) ori.Reg {
		return ori.Reg{Class: x.key.class, Virtual: true, N: x.key.n, Words: uint8(len(x.words))}
	}
	changed := false
	for _, b := range f.Blocks {
		var after map[*ori.Inst][]*crCand
		live.Walk(b, func(in *ori.Inst, liveAfter func(ori.Reg) bool, _ bool) {
			if in.Op != ori.OpCALL {
				return
			}
			for _, x := range cands {
				for w := range x.words {
					if liveAfter(ori.Reg{Class: x.key.class, Virtual: true, N: x.key.n, Off: uint8(w), Words: 1}) {
						if after == nil {
							after = map[*ori.Inst][]*crCand{}
						}
						after[in] = append(after[in], x)
						break
					}
				}
			}
		})
		if after == nil {
			continue
		}
		// rename maps a register whose reads in the rest of the block
		// take the copy's register instead.
		rename := map[crKey]int32{}
		var out []*ori.Inst
		for _, in := range b.Insts {
			if len(rename) > 0 {
				crRename(in, rename)
			}
			out = append(out, in)
			for _, x := range after[in] {
				if !c.Sites.Allow(f, x.words[0].ID, "load a constant or thread index live across a call again after it") {
					continue
				}
				// A register live out of the block keeps its name (its
				// readers elsewhere need it defined); otherwise the copy
				// is a new register, free of the old one's range before
				// the call.
				n := x.key.n
				if !live.LiveOut(b, whole(x)) {
					n = f.NewVReg(x.key.class, len(x.words)).N
					rename[x.key] = n
				}
				for w, def := range x.words {
					cp := def.Clone()
					cp.ID = f.NewID()
					cp.Line = in.Line
					cp.Dsts[0].Reg = ori.Reg{Class: x.key.class, Virtual: true, N: n, Off: uint8(w), Words: 1}
					out = append(out, cp)
				}
				changed = true
			}
		}
		b.Insts = out
	}
	return changed, nil
}

// crRename points in's reads of the registers in rename at their copies.
func crRename(in *ori.Inst, rename map[crKey]int32) {
	fix := func(r *ori.Reg) {
		if r.Virtual {
			if n, ok := rename[crKey{r.Class, r.N}]; ok {
				r.N = n
			}
		}
	}
	for i := range in.Srcs {
		o := &in.Srcs[i]
		if o.Kind == ori.OpdReg || (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase {
			fix(&o.Reg)
		}
	}
}
