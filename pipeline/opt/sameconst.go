package opt

// LateArchOptimizeSecond (phase 89), same-constant remat: a register
// whose every definition moves the same constant, or copies the stack
// pointer, is replaced at its uses.
//
// PTX compiled by old nvcc reloads a symbol's address in each branch
// that needs it (mov.u64 %rd2, __cudart_i2opi_f in both arms of sinf's
// range reduction; mov.u64 %rd1, __cuda___cuda_result_1620, a local
// array, in three), so one virtual register gets several definitions,
// all the same value. Constant folding and the allocator's
// rematerialization only trust a register with one definition, so the
// value stays in a register from its first definition to its last use:
// in the sdk2.2 simpleTexture transformKernel the table address 0 and
// the local array's base (a copy of R1) each hold a register through
// the whole kernel, where ptxas 13.0.88 addresses c[0x3][0x4] and
// [R1+0x8] directly.
//
// A virtual R word qualifies when every definition is an unguarded MOV
// of one integer immediate K (two definitions at least: one is
// constant folding's), or every definition copies R1 or another
// register that qualifies as R1, or every definition is IADD3 R1, K, RZ
// with one K or copies a register that qualifies as that R1+K (two
// definitions at least, as each use then costs an IADD3: sdk2.2
// simpleTexture's second local array at R1+0x1c, set in three arms and
// held through the kernel, 24 registers against ptxas's 19, 23 with
// this), and no instruction touches it as part of a tuple. A use then
// reads the value itself: a copy of R1 is replaced by R1 (its only
// writes are the frame set-up at the top of the entry block, before the
// copy); R1+K by R1 with K added to a memory operand's offset (within
// its signed 24 bits) or else a fresh register that an IADD3 R1, K, RZ
// defines right before the use; a constant becomes the source of a
// MOV that copied the register, the offset of an LDC that addressed
// through it (within LDC's 16 bits), or else a fresh register that a
// MOV of K defines right before the use. The definitions are deleted.
// A use no definition reaches reads an undefined value, so K serves
// there as well as anything.
//
// Knob: DisableSameConstRemat switches it off. Each replaced register
// is one site.

import (
	"orilab/internal/keep"
	"slices"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableSameConstRemat", Type: knobs.TypeBool,
		Doc:     "Switch off replacing, at their uses, registers whose every definition moves the same constant or copies R1 (phase LateArchOptimizeSecond).",
		Readers: []string{"LateArchOptimizeSecond"}})
}

// RematSameConsts is the same-constant remat of LateArchOptimizeSecond.
var RematSameConsts = Pass{
	Run:  rematSameConsts,
	NoOp: offBy("DisableSameConstRemat"),
}

// sameVal is what every definition of a register moves: R1 (SP) or the
// immediate Imm.
type sameVal struct {
	SP    bool
	Off   int64 // with SP: the value is R1+Off
	Imm   ori.Operand
	defs  int
	first int32 // the ID of the first definition (the site)
	bad   bool
	srcs  []int32 // registers it copies (resolved to SP or bad)
}

// stackPtr is R1, the stack pointer.
var stackPtr = ori.PReg(ori.ClassR, 1, 1)

func rematSameConsts(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableSameConstRemat") || len(f.Blocks) == 0 {
		return false, nil
	}
	vals := sameConstCandidates(f)
	var ns []int32
	for n, v := range vals {
		// R1+Off with Off != 0 costs an IADD3 at each use, so only a
		// register with several definitions gains by it.
		if !v.bad && (v.SP && v.Off == 0 || v.defs >= 2) {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		return false, nil
	}
	slices.Sort(ns)
	chosen := map[int32]sameVal{}
	for _, n := range ns {
		if c.Sites.Allow(f, vals[n].first, "replace a register defined as the same constant everywhere") {
			chosen[n] = *vals[n]
		}
	}
	if len(chosen) == 0 {
		return false, nil
	}
	for _, b := range f.Blocks {
		out := make([]*ori.Inst, 0, len(b.Insts))
		for _, in := range b.Insts {
			if len(in.Dsts) > 0 && in.Dsts[0].Kind == ori.OpdReg && in.Dsts[0].Reg.Virtual && in.Dsts[0].Reg.Class == ori.ClassR {
				if _, ok := chosen[in.Dsts[0].Reg.N]; ok {
					continue // a definition: every use reads the value itself now
				}
			}
			out = append(out, sameConstUses(f, in, chosen)...)
		}
		b.Insts = out
	}
	return true, nil
}

// sameConstCandidates classifies the virtual R registers by their
// definitions. Only registers every definition of which has one of the
// forms that can qualify (sameConstDefOK) get an entry: any other
// register is bad, and a missing entry counts as bad everywhere (a
// record for every register the function touches was most of the
// pass's time and memory).
func sameConstCandidates(f *ori.Func) map[int32]*sameVal {
	screen := sameConstScreenPool.Get()
	defer sameConstScreenPool.Put(screen)
	screen.reset()
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for k, d := range in.Dsts {
				if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR {
					continue
				}
				w := wkey{n: d.Reg.N, class: ori.ClassR}
				ok, seen := screen.get(w)
				screen.set(w, (ok || !seen) && sameConstDefOK(in, k))
			}
		}
	}
	vals := map[int32]*sameVal{}
	var sink sameVal // what a register without an entry writes to
	get := func(n int32) *sameVal {
		if ok, _ := screen.get(wkey{n: n, class: ori.ClassR}); !ok {
			sink = sameVal{}
			return &sink
		}
		v := vals[n]
		if v == nil {
			v = &sameVal{}
			vals[n] = v
		}
		return v
	}
	// R1 keeps one value only if the entry block alone writes it; a copy
	// taken there before the last write does not qualify.
	spStable, lastSP := true, -1
	for bi, b := range f.Blocks {
		for i, in := range b.Insts {
			for _, d := range in.Dsts {
				if d.Kind == ori.OpdReg && d.Reg.Overlaps(stackPtr) {
					if bi != 0 {
						spStable = false
					}
					lastSP = i
				}
			}
		}
	}
	for bi, b := range f.Blocks {
		for i, in := range b.Insts {
			touch := func(r ori.Reg) {
				if r.Virtual && r.Class == ori.ClassR && (r.Words != 1 || r.Off != 0) {
					get(r.N).bad = true
				}
			}
			cmReads(in, touch)
			for _, d := range in.Dsts {
				if d.Kind == ori.OpdReg {
					touch(d.Reg)
				}
			}
			if in.IsPhi() {
				for _, o := range in.Srcs {
					if o.Kind == ori.OpdReg && o.Reg.Virtual {
						get(o.Reg.N).bad = true
					}
				}
			}
			for k, d := range in.Dsts {
				if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR {
					continue
				}
				v := get(d.Reg.N)
				if v.defs == 0 {
					v.first = in.ID
				}
				v.defs++
				if off, ok := spPlusImm(in); ok && k == 0 {
					if v.Imm.Kind == ori.OpdImm || !spStable || bi == 0 && i <= lastSP || v.SP && v.Off != off {
						v.bad = true
					}
					v.SP, v.Off = true, off
					continue
				}
				if k != 0 || len(in.Dsts) != 1 || in.Op != ori.OpMOV || len(in.Mods) != 0 || in.Guarded() || in.IsPhi() || len(in.Srcs) != 1 {
					v.bad = true
					continue
				}
				s := in.Srcs[0]
				switch {
				case s.Kind == ori.OpdImm && s.FKind == ori.ImmInt:
					if v.SP || len(v.srcs) > 0 || v.Imm.Kind == ori.OpdImm && v.Imm.Imm != s.Imm {
						v.bad = true
					}
					v.Imm = s
				case s.Kind == ori.OpdReg && !s.Neg && !s.Abs && !s.Not && s.Reg == stackPtr:
					if v.Imm.Kind == ori.OpdImm || !spStable || bi == 0 && i <= lastSP || v.SP && v.Off != 0 {
						v.bad = true
					}
					v.SP = true
				case s.Kind == ori.OpdReg && !s.Neg && !s.Abs && !s.Not && s.Reg.Virtual && s.Reg.Class == ori.ClassR && s.Reg.Words == 1 && s.Reg.Off == 0:
					if v.Imm.Kind == ori.OpdImm {
						v.bad = true
					}
					v.srcs = append(v.srcs, s.Reg.N)
				default:
					v.bad = true
				}
			}
		}
	}
	// A copy qualifies as R1 when all it copies does: iterate to the
	// fixed point, a register is bad as soon as one source is.
	for changed := true; changed; {
		changed = false
		for _, v := range vals {
			if v.bad || len(v.srcs) == 0 {
				continue
			}
			for _, s := range v.srcs {
				if w := vals[s]; w == nil || w.bad || !w.SP && len(w.srcs) == 0 {
					v.bad, changed = true, true
					break
				}
			}
			if v.bad {
				continue
			}
			// SP once a source is known to be; every source that is
			// must hold the same R1+Off.
			for _, s := range v.srcs {
				if w := vals[s]; w.SP {
					if !v.SP {
						v.SP, v.Off, changed = true, w.Off, true
					} else if v.Off != w.Off {
						v.bad, changed = true, true
						break
					}
				}
			}
		}
	}
	for _, v := range vals {
		if !v.bad && len(v.srcs) > 0 && !v.SP {
			v.bad = true // a cycle of copies with no R1 behind it
		}
	}
	return vals
}

// sameConstDefOK reports whether result k of in has a form that can
// make its register qualify (the forms sameConstCandidates accepts,
// before it compares the definitions with each other).
func sameConstDefOK(in *ori.Inst, k int) bool {
	if k != 0 {
		return false
	}
	if _, ok := spPlusImm(in); ok {
		return true
	}
	if len(in.Dsts) != 1 || in.Op != ori.OpMOV || len(in.Mods) != 0 || in.Guarded() || in.IsPhi() || len(in.Srcs) != 1 {
		return false
	}
	s := in.Srcs[0]
	switch {
	case s.Kind == ori.OpdImm && s.FKind == ori.ImmInt:
		return true
	case s.Kind == ori.OpdReg && !s.Neg && !s.Abs && !s.Not && s.Reg == stackPtr:
		return true
	case s.Kind == ori.OpdReg && !s.Neg && !s.Abs && !s.Not && s.Reg.Virtual && s.Reg.Class == ori.ClassR && s.Reg.Words == 1 && s.Reg.Off == 0:
		return true
	}
	return false
}

// sameConstScreenPool keeps sameConstCandidates's screen between calls.
var sameConstScreenPool keep.Pool[wordTable[bool]]

// sameConstUses rewrites in's reads of chosen registers and returns it,
// preceded by the MOVs of constants it needs.
func sameConstUses(f *ori.Func, in *ori.Inst, chosen map[int32]sameVal) []*ori.Inst {
	var pre []*ori.Inst
	fresh := map[int32]ori.Reg{}
	for k := range in.Srcs {
		o := &in.Srcs[k]
		isBase := (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase
		if o.Kind != ori.OpdReg && !isBase || !o.Reg.Virtual || o.Reg.Class != ori.ClassR {
			continue
		}
		v, ok := chosen[o.Reg.N]
		if !ok {
			continue
		}
		switch {
		case v.SP && v.Off == 0:
			o.Reg = stackPtr
		case v.SP && isBase && o.Kind == ori.OpdMem && fitsLocalOffset(o.Imm+v.Off):
			o.Reg, o.Imm = stackPtr, o.Imm+v.Off
		case v.SP:
			r, ok := fresh[o.Reg.N]
			if !ok {
				r = f.NewVReg(ori.ClassR, 1)
				fresh[o.Reg.N] = r
				pre = append(pre, spPlusInst(f, in, r, v.Off))
			}
			o.Reg = r
		case in.Op == ori.OpMOV && len(in.Mods) == 0 && o.Kind == ori.OpdReg && !o.Neg && !o.Abs && !o.Not:
			*o = v.Imm
		case in.Op == ori.OpLDC && o.Kind == ori.OpdCBank && o.Imm+v.Imm.Imm >= 0 && o.Imm+v.Imm.Imm < 1<<16:
			o.HasBase, o.Reg, o.Imm = false, ori.Reg{}, o.Imm+v.Imm.Imm
		default:
			r, ok := fresh[o.Reg.N]
			if !ok {
				r = f.NewVReg(ori.ClassR, 1)
				fresh[o.Reg.N] = r
				m := ori.NewInst(ori.OpMOV)
				m.ID, m.Line = f.NewID(), in.Line
				m.Dsts = []ori.Operand{ori.R(r)}
				m.Srcs = []ori.Operand{v.Imm}
				pre = append(pre, m)
			}
			o.Reg = r
		}
	}
	for k := range in.Dsts {
		o := &in.Dsts[k]
		if (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase && o.Reg.Virtual && o.Reg.Class == ori.ClassR {
			if v, ok := chosen[o.Reg.N]; ok && v.SP && v.Off == 0 {
				o.Reg = stackPtr
			} else if ok && v.SP && o.Kind == ori.OpdMem && fitsLocalOffset(o.Imm+v.Off) {
				o.Reg, o.Imm = stackPtr, o.Imm+v.Off
			} else if ok && v.SP {
				r := f.NewVReg(ori.ClassR, 1)
				pre = append(pre, spPlusInst(f, in, r, v.Off))
				o.Reg = r
			} else if ok {
				r := f.NewVReg(ori.ClassR, 1)
				m := ori.NewInst(ori.OpMOV)
				m.ID, m.Line = f.NewID(), in.Line
				m.Dsts = []ori.Operand{ori.R(r)}
				m.Srcs = []ori.Operand{v.Imm}
				pre = append(pre, m)
				o.Reg = r
			}
		}
	}
	return append(pre, in)
}

// spPlusImm reports whether in is an unguarded IADD3 d = R1, K, RZ (in
// any source order) with one result, and returns K.
func spPlusImm(in *ori.Inst) (int64, bool) {
	if in.Op != ori.OpIADD3 || len(in.Mods) != 0 || in.Guarded() || len(in.Dsts) != 1 || len(in.Srcs) != 3 {
		return 0, false
	}
	sp, zero, imm := 0, 0, int64(0)
	for _, s := range in.Srcs {
		if s.Neg || s.Abs || s.Not {
			return 0, false
		}
		switch {
		case s.Kind == ori.OpdReg && s.Reg == stackPtr:
			sp++
		case s.Kind == ori.OpdReg && s.Reg.IsZero():
			zero++
		case s.Kind == ori.OpdImm && s.FKind == ori.ImmInt:
			imm = s.Imm
		default:
			return 0, false
		}
	}
	return imm, sp == 1 && zero == 1
}

// fitsLocalOffset reports whether off fits the signed 24-bit immediate
// of a local or shared memory address.
func fitsLocalOffset(off int64) bool { return off >= -1<<23 && off < 1<<23 }

// spPlusInst builds IADD3 r = R1, off, RZ, at in's line.
func spPlusInst(f *ori.Func, in *ori.Inst, r ori.Reg, off int64) *ori.Inst {
	m := ori.NewInst(ori.OpIADD3)
	m.ID, m.Line = f.NewID(), in.Line
	m.Dsts = []ori.Operand{ori.R(r)}
	m.Srcs = []ori.Operand{ori.R(stackPtr), ori.Imm(off), ori.R(ori.RZ)}
	return m
}
