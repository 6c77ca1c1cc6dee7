package sass

// The decoder: 128-bit words back to Ori instructions, driven by the same
// forms as the encoder. Decode(Encode(in)) prints as in does; the tests
// check that over all compiled corpus code.

import (
	"cmp"
	"fmt"
	"slices"

	"orilab/pipeline/ori"
)

// DecodeContext resolves what a word alone cannot say: which block a
// branch target address starts, and which symbol a relocated call names.
type DecodeContext struct {
	PC     int            // byte address of the word
	Blocks map[int]int32  // block start address -> block ID
	Syms   map[int]string // instruction address -> relocated call target
	// Raw: without a function around the word, a branch target decodes
	// as a block whose ID is the target address, and a call as the
	// symbol "?" (InstTextRaw prints them as nvdisasm's raw mode does).
	Raw bool
}

// Decode decodes one word of SM arch.
func Decode(w Word, arch int, ctx DecodeContext) (*ori.Inst, error) {
	return decode(w, arch, ctx, nil)
}

// A Decoder decodes words as Decode does into one instruction and
// operand buffers it reuses, so the instruction it returns is valid only
// until its next call. The encoding round trip decodes every word of a
// module and drops each result at once; a fresh instruction per word was
// most of the round trip's allocation.
type Decoder struct {
	in   ori.Inst
	mods []string
	ops  []ori.Operand
}

// Decode decodes one word of SM arch into x's instruction.
func (x *Decoder) Decode(w Word, arch int, ctx DecodeContext) (*ori.Inst, error) {
	return decode(w, arch, ctx, x)
}

// decode decodes w into a new instruction, or into x's when x is set.
func decode(w Word, arch int, ctx DecodeContext, x *Decoder) (*ori.Inst, error) {
	if err := checkArch(arch); err != nil {
		return nil, err
	}
	fm := matchForm(w, arch)
	if fm == nil {
		return nil, fmt.Errorf("sass: word %s at 0x%04x: no orilab form has opcode 0x%03x on sm_%d", w, ctx.PC, w.Field(0, 12), arch)
	}
	var in *ori.Inst
	if x != nil {
		in = &x.in
		*in = ori.Inst{Op: fm.op, Guard: ori.PT, Ctrl: ori.NoCtrl} // as ori.NewInst
		in.Mods = append(x.mods[:0], fm.key...)
		x.ops = x.ops[:0]
	} else {
		in = ori.NewInst(fm.op, fm.key...)
		in.Mods = append([]string(nil), fm.key...)
	}
	for _, g := range fm.mods {
		v := getGroup(w, g)
		name, ok := g.names.lookup(v)
		if !ok {
			return nil, fmt.Errorf("sass: word %s at 0x%04x (%s): bits %d-%d hold %d, which orilab has no modifier for", w, ctx.PC, fm.op, g.pos, g.pos+g.n-1, v)
		}
		if name != "" {
			in.Mods = appendModParts(in.Mods, name)
		}
	}
	if fm.toBase {
		// Unlinked code (or a listing from address 0): the field points
		// at address 0 (form.toBase), which the printer shows.
		var want Word
		setBranchField(&want, arch, -(ctx.PC + 16))
		if w.Field(16, 8) != want.Field(16, 8) && arch >= 90 || w.Field(34, 48) != want.Field(34, 48) {
			return nil, fmt.Errorf("sass: word %s at 0x%04x (%s): the branch field does not point at the start of the code", w, ctx.PC, fm.op)
		}
	}
	if x != nil {
		x.mods = in.Mods
	}
	d := &decoder{w: w, fm: fm, in: in, ctx: ctx, arch: arch, x: x}
	d.notX = fm.notX != "" && in.HasMod(fm.notX)
	var err error
	if in.Dsts, err = d.slots(fm.dsts); err != nil {
		return nil, err
	}
	if in.Srcs, err = d.slots(fm.srcs); err != nil {
		return nil, err
	}
	in.Guard = ori.PReg(ori.ClassP, int(w.Field(bitsGuard, 3)), 1)
	in.GuardNot = w.Bit(15)
	if fm.uni && in.Guarded() {
		// The uniform datapath's guard is a UP (encoder.guard).
		in.Guard.Class = ori.ClassUP
	}
	in.Ctrl = decodeCtrl(w)
	if pos := fm.descPos(); pos != 0 {
		// The memory descriptor: a uniform register pair, URZ for none.
		if n := int(w.Field(pos, 6)); n != 63 {
			for i := range in.Srcs {
				if in.Srcs[i].Kind == ori.OpdMem && !narrowSlot(fm, i) {
					in.Srcs[i].HasDesc, in.Srcs[i].Desc = true, ori.PReg(ori.ClassUR, n, 2)
				}
			}
		}
	}
	if in.HasMod("E") {
		// A .E address is 64-bit: its base is a register pair.
		for i := range in.Srcs {
			if in.Srcs[i].Kind == ori.OpdMem && in.Srcs[i].HasBase && !narrowSlot(fm, i) {
				in.Srcs[i].Reg.Words = 2
			}
		}
	}
	return in, nil
}

// narrowSlot reports whether source i of fm is a 32-bit address without
// a descriptor under .E (LDGSTS's shared address).
func narrowSlot(fm *form, i int) bool { return i < len(fm.srcs) && fm.srcs[i].narrow }

// matchForm finds the form whose opcode and constant fields w has.
func matchForm(w Word, arch int) *form {
	opc := uint16(w.Field(0, 12))
	for _, fm := range forms().all {
		if fm.encodeOnly || fm.arch > arch || (fm.archMax != 0 && arch > fm.archMax) {
			continue
		}
		if fm.alu {
			if opc&0x1ff != fm.opc&0x1ff {
				continue
			}
			f := int(opc >> 9)
			if f == 0 || (fm.uni && f != formRR && f != formCImm && f != formBImm) {
				continue
			}
		} else if opc != fm.opc {
			continue
		}
		if fm.uni && !w.Bit(91) {
			continue
		}
		ok := true
		for _, f := range fm.fix {
			if w.Field(f.pos, f.n) != f.v {
				ok = false
			}
		}
		if ok {
			return fm
		}
	}
	return nil
}

type decoder struct {
	w    Word
	fm   *form
	in   *ori.Inst
	ctx  DecodeContext
	arch int
	notX bool
	x    *Decoder // the buffers to decode into, or nil
}

func (d *decoder) reuse(pos int) bool {
	switch pos {
	case 24:
		return d.w.Bit(bitReuse + reuseA)
	case 32:
		return d.w.Bit(bitReuse + reuseB)
	case 64:
		return d.w.Bit(bitReuse + reuseC)
	}
	return false
}

func (d *decoder) gpr(pos int, c ori.RegClass, words int) ori.Operand {
	return d.gprReuse(pos, c, words, d.reuse(pos))
}

func (d *decoder) gprReuse(pos int, c ori.RegClass, words int, reuse bool) ori.Operand {
	n := int(d.w.Field(pos, 8))
	if c == ori.ClassUR && n > 63 {
		n = 63
	}
	if words == 0 {
		words = 1
	}
	r := ori.PReg(c, n, words)
	if r.IsZero() {
		r.Words = 1
	}
	o := ori.R(r)
	o.Reuse = reuse
	return o
}

// aluReg reads an ALU register source at pos with its neg and abs bits.
func (d *decoder) aluReg(pos, neg, abs, allowed int, c ori.RegClass, words, slot int) ori.Operand {
	o := d.gprReuse(pos, c, words, d.w.Bit(bitReuse+slot))
	if d.w.Bit(neg) && allowed&(mNeg|mNot) != 0 {
		if d.notX || allowed&mNeg == 0 {
			o.Not = true
		} else {
			o.Neg = true
		}
	}
	if d.w.Bit(abs) && allowed&mAbs != 0 {
		o.Abs = true
	}
	return o
}

// variable reads the 32-63 field of ALU form f.
func (d *decoder) variable(s slot, f int) ori.Operand {
	switch f {
	case formBImm, formCImm:
		v := d.w.Field(32, 32)
		o := ori.Imm(int64(v))
		switch {
		case s.fk == ori.ImmF64 || s.f64hi:
			o.Imm = int64(v << 32)
			o.FKind = ori.ImmF64
		case s.fk == ori.ImmF32:
			o.FKind = ori.ImmF32
		default:
			// Ori keeps 32-bit integer immediates sign-extended.
			o.Imm = int64(int32(uint32(v)))
		}
		return o
	case formBCB, formCCB:
		o := ori.CBank(int(d.w.Field(54, 5)), int64(d.w.Field(38, 16)))
		if d.w.Bit(63) && s.mod&mNeg != 0 {
			o.Neg = true
		}
		if d.notX {
			o.Not, o.Neg = o.Neg, false
		}
		if d.w.Bit(62) && s.mod&mAbs != 0 {
			o.Abs = true
		}
		return o
	}
	o := ori.R(ori.PReg(ori.ClassUR, int(d.w.Field(32, 6)), 1))
	if d.w.Field(32, 8) == 63 || d.w.Field(32, 8) == 255 {
		o = ori.R(ori.URZ)
	}
	if d.w.Bit(63) && s.mod&mNeg != 0 {
		o.Neg = true
	}
	if d.w.Bit(62) && s.mod&mAbs != 0 {
		o.Abs = true
	}
	if d.notX {
		o.Not, o.Neg = o.Neg, false
	}
	return o
}

func (d *decoder) slots(ss []slot) ([]ori.Operand, error) {
	file := ori.ClassR
	if d.fm.uni {
		file = ori.ClassUR
	}
	f := int(d.w.Field(9, 3))
	hasB := false
	for _, s := range ss {
		if s.k == sB || s.k == sBC {
			hasB = true
		}
	}
	var out []ori.Operand
	if x := d.x; x != nil {
		// A region of x.ops of its own, so that the destinations and
		// the sources do not overlap (a new buffer leaves the earlier
		// regions where they are).
		at := len(x.ops)
		if cap(x.ops)-at < len(ss) {
			x.ops, at = make([]ori.Operand, 0, max(2*cap(x.ops), 16, len(ss))), 0
		}
		out = x.ops[at : at : at+len(ss)]
		x.ops = x.ops[:at+len(ss)]
	} else {
		out = make([]ori.Operand, 0, len(ss))
	}
	for _, s := range ss {
		var o ori.Operand
		switch s.k {
		case sA:
			o = d.aluReg(24, 72, 73, s.mod, file, s.words, reuseA)
		case sB, sBC:
			switch {
			case f == formRR && (s.k == sBC || d.fm.bReuseC):
				o = d.aluReg(32, 63, 62, s.mod, file, s.words, reuseC)
			case f == formRR:
				o = d.aluReg(32, 63, 62, s.mod, file, s.words, reuseB)
			case f == formBImm || f == formBCB || f == formBUR:
				o = d.variable(s, f)
			case s.k == sBC:
				o = d.variable(s, f)
			default:
				o = d.aluReg(64, 75, 74, s.mod, file, s.words, reuseB)
			}
		case sC:
			switch {
			case f == formCImm || f == formCCB || f == formCUR:
				o = d.variable(s, f)
			case !hasB && (f == formBImm || f == formBCB || f == formBUR):
				o = d.variable(s, f)
			default:
				o = d.aluReg(64, 75, 74, s.mod, file, s.words, reuseC)
			}
		case sR, sUR:
			c := ori.ClassR
			if s.k == sUR {
				c = ori.ClassUR
			}
			o = d.gpr(s.pos, c, s.words)
			if s.mod&mNot != 0 && d.w.Bit(s.not) {
				o.Not = true
			}
		case sP, sUP:
			c := ori.ClassP
			if s.k == sUP || s.ubit != 0 && d.w.Bit(s.ubit) {
				c = ori.ClassUP
			}
			o = ori.R(ori.PReg(c, int(d.w.Field(s.pos, 3)), 1))
			if s.not != 0 && d.w.Bit(s.not) {
				o.Not = true
			}
		case sImm:
			v := d.w.Field(s.pos, s.n)
			o = ori.Imm(int64(v))
			if s.signed && s.n < 64 && v>>(s.n-1)&1 != 0 {
				o.Imm = int64(v) - int64(1)<<s.n
			}
			o.FKind = s.fk
			if s.f64hi {
				o.Imm = int64(v << 32)
				o.FKind = ori.ImmF64
			}
		case sMem:
			base := int(d.w.Field(s.memBase(), 8))
			offPos, offN := s.memOffset()
			off := int64(d.w.Field(offPos, offN))
			if off >= 1<<(offN-1) {
				off -= 1 << offN
			}
			if base == 255 {
				o = ori.AbsMem(off)
			} else {
				o = ori.Mem(ori.PReg(ori.ClassR, base, 1), off)
				o.Reuse = false
			}
		case sCB, sUCB:
			o = ori.CBank(int(d.w.Field(54, 5)), int64(d.w.Field(38, 16)))
			if s.k == sCB {
				if base := int(d.w.Field(24, 8)); base != 255 {
					o.HasBase = true
					o.Reg = ori.PReg(ori.ClassR, base, 1)
				}
			}
		case sSR:
			n := int(d.w.Field(s.pos, 8))
			name, ok := srName[n]
			if !ok {
				return nil, fmt.Errorf("sass: word %s: special register %d is not in orilab's table", d.w, n)
			}
			o = ori.SR(name)
		case sTarget:
			rel := int64(d.w.Field(s.pos, s.n))
			if rel>>(s.n-1)&1 != 0 {
				rel -= int64(1) << s.n
			}
			t := d.ctx.PC + 16 + 4*int(rel)
			id, ok := d.ctx.Blocks[t]
			if d.ctx.Raw {
				id, ok = int32(t), true
			}
			if !ok {
				return nil, fmt.Errorf("sass: word %s at 0x%04x: branch target 0x%x starts no known block", d.w, d.ctx.PC, t)
			}
			o = ori.BlockRef(int(id))
		case sTarget90:
			rel := int64(d.w.Field(34, 48))
			if rel>>47&1 != 0 {
				rel -= int64(1) << 48
			}
			rel = (rel<<8 | int64(d.w.Field(16, 8))) * 4
			t := d.ctx.PC + 16 + int(rel)
			id, ok := d.ctx.Blocks[t]
			if d.ctx.Raw {
				id, ok = int32(t), true
			}
			if !ok {
				return nil, fmt.Errorf("sass: word %s at 0x%04x: branch target 0x%x starts no known block", d.w, d.ctx.PC, t)
			}
			o = ori.BlockRef(int(id))
		case sBar:
			o = ori.Imm(int64(d.w.Field(s.pos, 4)))
		case sAllLanes:
			o = ori.Imm(-1)
		case sLUT2:
			o = ori.Imm(int64(d.w.Field(64, 3) | d.w.Field(72, 5)<<3))
		case sSym:
			name, ok := d.ctx.Syms[d.ctx.PC]
			if d.ctx.Raw {
				name, ok = "?", true
			}
			if !ok {
				return nil, fmt.Errorf("sass: word %s at 0x%04x: a call with no relocation", d.w, d.ctx.PC)
			}
			o = ori.Sym(name)
		}
		out = append(out, o)
	}
	// Absent optional operands: drop the trailing ones that hold their
	// default, unless a modifier makes the form print them.
	for len(out) > 0 {
		i := len(out) - 1
		s := ss[i]
		if !s.opt || (s.keepIf != "" && d.in.HasMod(s.keepIf)) {
			break
		}
		def := defaultOperand(s)
		if out[i].Kind != def.Kind || out[i].Reg != def.Reg || out[i].Not != def.Not || out[i].Imm != def.Imm {
			break
		}
		out = out[:i]
	}
	return out, nil
}

// srNumber and srName: the special registers' numbers (bits 72-79 of
// S2R/CS2R/S2UR). Measured: nvdisasm -b SM90 over S2R with every value
// of the field (pipeline/sass/internal/gen -sr); the names orilab's
// lowering uses are the ones kept. SR_CgaCtaId (0x88) is read off
// ptxas's sm_90 words (S2UR UR5, SR_CgaCtaId: 0x000e620000008800 in the
// high half).
var srNumber = map[string]int{
	"SR_LANEID": 0x00, "SR_CLOCK": 0x01, "SR_VIRTCFG": 0x02, "SR_VIRTID": 0x03,
	"SR_TID": 0x20, "SR_TID.X": 0x21, "SR_TID.Y": 0x22, "SR_TID.Z": 0x23,
	"SR_CTAID.X": 0x25, "SR_CTAID.Y": 0x26, "SR_CTAID.Z": 0x27,
	"SR_EQMASK": 0x38, "SR_LTMASK": 0x39, "SR_LEMASK": 0x3a, "SR_GTMASK": 0x3b, "SR_GEMASK": 0x3c,
	"SR_CgaCtaId": 0x88,
	"SR_CLOCKLO":  0x50, "SR_CLOCKHI": 0x51, "SR_GLOBALTIMERLO": 0x52, "SR_GLOBALTIMERHI": 0x53,
}

var srName = func() map[int]string {
	m := map[int]string{}
	for k, v := range srNumber {
		m[v] = k
	}
	return m
}()

// sortedForms lists every form, for the decoder's search, in a fixed
// order: forms with more constant fields first, so the most specific
// form of a shared opcode wins.
func sortedForms(byOp map[ori.Opcode][]*form) []*form {
	var all []*form
	for _, fs := range byOp {
		all = append(all, fs...)
	}
	// The generic stable sort: this runs at start-up, in every process.
	slices.SortStableFunc(all, func(a, b *form) int {
		if len(a.fix) != len(b.fix) {
			return len(b.fix) - len(a.fix)
		}
		if a.op != b.op {
			return cmp.Compare(a.op, b.op)
		}
		return len(b.key) - len(a.key)
	})
	return all
}
