package opt

// LateArchOptimizeFirst (phase 83): fold a 64-bit constant-bank addend
// into IMAD.WIDE.
//
// The lowering computes an element address base + index*size as a wide
// multiply followed by a 64-bit add of the base, which for a kernel
// parameter is a constant-bank pair:
//
//	IMAD.WIDE.U32 %w.64 = %i, 0x4, RZ
//	IADD3 %d, %p = c[0x0][0x160], %w, RZ
//	IADD3.X %d[1] = c[0x0][0x164], %w[1], RZ, %p, !PT
//
// IMAD.WIDE adds a 64-bit third operand itself, and SASS lets that operand
// be a constant-bank pair (the R-R-c[] form), which is what ptxas emits:
// `IMAD.WIDE R2, R3, R2, c[0x0][0x160]` (ptxas 13.0.88 has 1,497 of them
// over the corpus at -O3, orilab had none). The three instructions become
//
//	MOV %t = 0x4
//	IMAD.WIDE.U32 %d.64 = %i, %t, c[0x0][0x160]
//
// (no MOV when the multiplier is already a register). The immediate goes
// to a register because SASS has no form with both an immediate and a
// constant bank among the sources; the later LICM positions hoist the MOV
// out of loops.
//
// Conditions: the three instructions are unguarded and in one block, the
// two IADD3s adjacent, the constant-bank words k and k+4 of one bank with
// no index register, no operand negated; %w is read only by the two
// IADD3s and %p only by IADD3.X, and nothing between the IMAD.WIDE and the
// first IADD3 writes its sources. The phase runs after ConvertToUniformReg
// (its row in the table), so the constant-bank operand is still where the
// lowering put it, and before register allocation.
//
// Decision: the wiki's LateArchOptimizeFirst is an architecture-specific
// peephole hook whose contents it does not list; orilab puts this fold
// there because it is a SASS-form fold that must follow the uniform
// conversion and precede allocation.
//
// Knob: DisableIMADWideFold switches it off (as DisablePhases does).
// Each fold is one site.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableIMADWideFold", Type: knobs.TypeBool,
		Doc:     "Switch off folding a constant-bank 64-bit add into IMAD.WIDE (phase LateArchOptimizeFirst).",
		Readers: []string{"LateArchOptimizeFirst"}})
}

// FoldIMADWide is the LateArchOptimizeFirst pass.
var FoldIMADWide = Pass{
	Run:  foldIMADWide,
	NoOp: offBy("DisableIMADWideFold"),
}

func foldIMADWide(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableIMADWideFold") {
		return false, nil
	}
	reads := virtualReads(f)
	changed := false
	for _, b := range f.Blocks {
		for i := 1; i+1 < len(b.Insts); i++ {
			y, z := b.Insts[i], b.Insts[i+1]
			cb, w, ok := imadWideAdd(y, z)
			if !ok || reads.of(cmRegOf(w)) != 2 || reads.of(cmRegOf(y.Dsts[1].Reg)) != 1 {
				continue
			}
			xi := imadWideDef(b, i, w)
			if xi < 0 {
				continue
			}
			x := b.Insts[xi]
			if !c.Sites.Allow(f, x.ID, "fold a constant-bank 64-bit add into IMAD.WIDE") {
				continue
			}
			d := y.Dsts[0].Reg
			d.Words = 2
			nw := ori.NewInst(ori.OpIMAD, x.Mods...)
			nw.ID, nw.Line = x.ID, y.Line
			bop := x.Srcs[1]
			var mov *ori.Inst
			if bop.Kind != ori.OpdReg {
				t := f.NewVReg(ori.ClassR, 1)
				mov = ori.NewInst(ori.OpMOV)
				mov.ID, mov.Line = f.NewID(), x.Line
				mov.Dsts = []ori.Operand{ori.R(t)}
				mov.Srcs = []ori.Operand{bop}
				bop = ori.R(t)
			}
			nw.Dsts = []ori.Operand{ori.R(d)}
			nw.Srcs = []ori.Operand{x.Srcs[0], bop, cb}
			repl := []*ori.Inst{nw}
			if mov != nil {
				repl = []*ori.Inst{mov, nw}
			}
			out := make([]*ori.Inst, 0, len(b.Insts)+1)
			out = append(out, b.Insts[:xi]...)
			out = append(out, b.Insts[xi+1:i]...)
			out = append(out, repl...)
			out = append(out, b.Insts[i+2:]...)
			b.Insts = out
			changed = true
		}
	}
	if foldIMADWideShared(f, c) {
		changed = true
	}
	return changed, nil
}

// imadWideAdd matches y, z as the 64-bit add of a constant-bank pair to
// a virtual register pair: it returns the pair's constant-bank operand
// (the low word's) and the register's low word.
func imadWideAdd(y, z *ori.Inst) (ori.Operand, ori.Reg, bool) {
	var none ori.Operand
	if y.Op != ori.OpIADD3 || len(y.Mods) != 0 || y.Guarded() || len(y.Dsts) != 2 || len(y.Srcs) != 3 ||
		z.Op != ori.OpIADD3 || len(z.Mods) != 1 || z.Mods[0] != "X" || z.Guarded() || len(z.Dsts) != 1 || len(z.Srcs) != 5 {
		return none, ori.Reg{}, false
	}
	d, p := y.Dsts[0], y.Dsts[1]
	if d.Kind != ori.OpdReg || !d.Reg.Virtual || d.Reg.Class != ori.ClassR || d.Reg.Words != 1 || d.Reg.Off != 0 ||
		p.Kind != ori.OpdReg || !p.Reg.Virtual || p.Reg.Class != ori.ClassP {
		return none, ori.Reg{}, false
	}
	cb, w, ok := imadWideSrcs(y.Srcs)
	if !ok || w.Off != 0 {
		return none, ori.Reg{}, false
	}
	cb1, w1, ok := imadWideSrcs(z.Srcs[:3])
	hi := z.Dsts[0]
	if !ok || cb1.Bank != cb.Bank || cb1.Imm != cb.Imm+4 || w1.N != w.N || w1.Off != 1 ||
		hi.Kind != ori.OpdReg || hi.Reg.N != d.Reg.N || !hi.Reg.Virtual || hi.Reg.Class != ori.ClassR || hi.Reg.Off != 1 || hi.Reg.Words != 1 {
		return none, ori.Reg{}, false
	}
	carry, last := z.Srcs[3], z.Srcs[4]
	if carry.Kind != ori.OpdReg || carry.Reg != p.Reg || carry.Not || last.Kind != ori.OpdReg || last.Reg != ori.PT || !last.Not {
		return none, ori.Reg{}, false
	}
	if cb.Imm%8 != 0 {
		// A 64-bit constant-bank operand is 8-byte aligned.
		return none, ori.Reg{}, false
	}
	return cb, w, true
}

// imadWideSrcs finds, among three IADD3 sources, exactly one constant-bank
// word without index register, one virtual R word and RZ, none negated.
func imadWideSrcs(srcs []ori.Operand) (ori.Operand, ori.Reg, bool) {
	var cb ori.Operand
	var w ori.Reg
	nc, nw, nz := 0, 0, 0
	for _, o := range srcs {
		switch {
		case o.Neg || o.Abs || o.Not:
			return cb, w, false
		case o.Kind == ori.OpdCBank && !o.HasBase:
			cb = o
			nc++
		case o.Kind == ori.OpdReg && o.Reg.IsZero():
			nz++
		case o.Kind == ori.OpdReg && o.Reg.Virtual && o.Reg.Class == ori.ClassR && o.Reg.Words == 1:
			w = o.Reg
			nw++
		default:
			return cb, w, false
		}
	}
	return cb, w, nc == 1 && nw == 1 && nz == 1
}

// imadWideDef returns the index before i in b of the unguarded IMAD.WIDE
// that writes w's pair with RZ as addend, when nothing between it and i
// writes its sources or w; -1 otherwise.
func imadWideDef(b *ori.Block, i int, w ori.Reg) int {
	pair := w
	pair.Off, pair.Words = 0, 2
	for j := i - 1; j >= 0; j-- {
		x := b.Insts[j]
		writes := false
		for _, o := range x.Dsts {
			if o.Kind == ori.OpdReg && o.Reg.Overlaps(pair) {
				writes = true
			}
		}
		if !writes {
			continue
		}
		if x.Op != ori.OpIMAD || !x.HasMod("WIDE") || x.Guarded() || len(x.Dsts) != 1 || len(x.Srcs) != 3 ||
			x.Dsts[0].Reg != pair || x.Srcs[2].Kind != ori.OpdReg || !x.Srcs[2].Reg.IsZero() ||
			x.Srcs[0].Kind != ori.OpdReg || x.Srcs[0].Neg || x.Srcs[1].Neg ||
			x.Srcs[1].Kind != ori.OpdReg && x.Srcs[1].Kind != ori.OpdImm {
			return -1
		}
		for k := j + 1; k < i; k++ {
			for _, o := range b.Insts[k].Dsts {
				if o.Kind != ori.OpdReg {
					continue
				}
				for _, s := range x.Srcs[:2] {
					if s.Kind == ori.OpdReg && o.Reg.Overlaps(s.Reg) {
						return -1
					}
				}
			}
		}
		return j
	}
	return -1
}
