package ori

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// The text form, one line per item, in the spirit of ptxas's DUMPIR:
//
//	.module sm_75 address_size=64
//	.global gTable size=0x80 align=0x4 slot=0x0 init=0001020304
//	.entry vecadd
//	.param a offset=0x160 size=0x8 align=0x8
//	.texref tex offset=0x168
//	.shared_var tile offset=0x0 size=0x400
//	.shared 0x400
//	.local 0x0
//	{
//	BB0:                                  // succs BB1 BB2
//		#1 S2R %r0 = SR_TID.X ; line 12
//		#2 @!%p0 BRA BB2 ;
//	BB1 <$L__BB0_1>:                      // preds BB0 | succs BB2
//		#3 [B------:R-:W0:Y:S04] LDG.E R2 = [R4.64+0x10] ;
//	}
//
// Results come before " = ", sources after it; an instruction without
// results has no "=". The control word, when set, is printed as
// [B<wait>:R<read barrier>:W<write barrier>:<Y or ->:S<stall>], the
// notation of common SASS assemblers. "line N" records the PTX source
// line. Everything after "//" is a comment that the parser ignores; the
// block comments show the CFG, which the parser recomputes.

// String renders the module as text.
func (m *Module) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, ".module sm_%d address_size=%d\n", m.Arch, m.AddressSize)
	for _, g := range m.Globals {
		fmt.Fprintf(&b, ".%s %s size=%s align=%s", g.Space, g.Name, hexImm(g.Size), hexImm(g.Align))
		switch g.Space {
		case SpaceGlobal:
			fmt.Fprintf(&b, " slot=%s", hexImm(g.AddrSlot))
		case SpaceConst:
			fmt.Fprintf(&b, " offset=%s", hexImm(g.Offset))
		}
		if len(g.Init) > 0 {
			b.WriteString(" init=")
			b.WriteString(hex.EncodeToString(g.Init))
		}
		b.WriteByte('\n')
	}
	for _, t := range m.TexVars {
		if t.Surface {
			fmt.Fprintf(&b, ".surfref %s\n", t.Name)
		} else {
			fmt.Fprintf(&b, ".texref %s\n", t.Name)
		}
	}
	for _, f := range m.Funcs {
		b.WriteByte('\n')
		f.write(&b)
	}
	return b.String()
}

// String renders the function as text.
func (f *Func) String() string {
	var b strings.Builder
	f.write(&b)
	return b.String()
}

func (f *Func) write(b *strings.Builder) {
	if f.Entry {
		fmt.Fprintf(b, ".entry %s\n", f.Name)
	} else {
		fmt.Fprintf(b, ".func %s\n", f.Name)
	}
	for _, p := range f.Params {
		fmt.Fprintf(b, ".param %s offset=%s size=%s align=%s%s\n", p.Name, hexImm(p.Offset), hexImm(p.Size), hexImm(p.Align), wordsAttr(p))
	}
	for _, p := range f.Rets {
		fmt.Fprintf(b, ".ret %s offset=%s size=%s align=%s%s\n", p.Name, hexImm(p.Offset), hexImm(p.Size), hexImm(p.Align), wordsAttr(p))
	}
	for _, t := range f.TexRefs {
		fmt.Fprintf(b, ".texref %s offset=%s\n", t.Name, hexImm(t.Offset))
	}
	if f.RetAddr != 0 {
		fmt.Fprintf(b, ".retaddr R%d\n", f.RetAddr)
	}
	for _, s := range f.SharedVars {
		fmt.Fprintf(b, ".shared_var %s offset=%s size=%s\n", s.Name, hexImm(s.Offset), hexImm(s.Size))
	}
	for _, v := range f.Literals {
		fmt.Fprintf(b, ".literal 0x%016x\n", v)
	}
	fmt.Fprintf(b, ".shared %s\n.local %s\n{\n", hexImm(f.SharedBytes), hexImm(f.LocalBytes))
	for _, bl := range f.Blocks {
		head := "BB" + strconv.Itoa(int(bl.ID))
		if bl.Label != "" {
			head += " <" + bl.Label + ">"
		}
		if bl.NoUnroll {
			head += " [nounroll]"
		}
		head += ":"
		var cfg []string
		if len(bl.Preds) > 0 {
			cfg = append(cfg, "preds "+blockList(bl.Preds))
		}
		if len(bl.Succs) > 0 {
			cfg = append(cfg, "succs "+blockList(bl.Succs))
		}
		b.WriteString(head)
		if len(cfg) > 0 {
			pad := 40 - len(head)
			if pad < 1 {
				pad = 1
			}
			b.WriteString(strings.Repeat(" ", pad))
			b.WriteString("// ")
			b.WriteString(strings.Join(cfg, " | "))
		}
		b.WriteByte('\n')
		for _, in := range bl.Insts {
			b.WriteByte('\t')
			b.WriteString(in.String())
			b.WriteByte('\n')
		}
	}
	b.WriteString("}\n")
}

func blockList(bs []*Block) string {
	parts := make([]string, len(bs))
	for i, x := range bs {
		parts[i] = "BB" + strconv.Itoa(int(x.ID))
	}
	return strings.Join(parts, " ")
}

// String renders the control word as [B------:R-:W-:-:S00].
func (c Ctrl) String() string {
	var a [32]byte
	return string(c.AppendText(a[:0]))
}

// AppendText appends the control word as String spells it to b, without
// fmt and without allocating when b has room (the SASS printer writes
// one per instruction).
func (c Ctrl) AppendText(b []byte) []byte {
	b = append(b, "[B"...)
	for i := 0; i < 6; i++ {
		if c.Wait&(1<<i) != 0 {
			b = append(b, byte('0'+i))
		} else {
			b = append(b, '-')
		}
	}
	b = append(b, ":R"...)
	b = append(b, barChar(c.RdBar)...)
	b = append(b, ":W"...)
	b = append(b, barChar(c.WrBar)...)
	if c.Yield {
		b = append(b, ":Y"...)
	} else {
		b = append(b, ":-"...)
	}
	b = append(b, ":S"...)
	if c.Stall < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendUint(b, uint64(c.Stall), 10)
	return append(b, ']')
}

func barChar(n int8) string {
	if n < 0 {
		return "-"
	}
	return string(rune('0' + n))
}

// String renders one instruction line without indentation.
func (in *Inst) String() string {
	var b strings.Builder
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(int(in.ID)))
	b.WriteByte(' ')
	if in.Ctrl.Set {
		b.WriteString(in.Ctrl.String())
		b.WriteByte(' ')
	}
	if in.Guarded() {
		b.WriteByte('@')
		if in.GuardNot {
			b.WriteByte('!')
		}
		b.WriteString(in.Guard.String())
		b.WriteByte(' ')
	}
	b.WriteString(in.Name())
	for i, o := range in.Dsts {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		b.WriteString(o.String())
	}
	if len(in.Dsts) > 0 {
		b.WriteString(" =")
	}
	for i, o := range in.Srcs {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		b.WriteString(o.String())
	}
	b.WriteString(" ;")
	if in.Line > 0 {
		b.WriteString(" line ")
		b.WriteString(strconv.Itoa(int(in.Line)))
	}
	if in.Role != RoleNone {
		b.WriteByte(' ')
		b.WriteString(in.Role.String())
		if in.Role == RoleRemat {
			b.WriteString(" #")
			b.WriteString(strconv.Itoa(int(in.Origin)))
		}
	}
	return b.String()
}

// wordsAttr prints a .func parameter's register count where it is known.
func wordsAttr(p Param) string {
	if p.Words == 0 {
		return ""
	}
	return " words=" + hexImm(p.Words)
}
