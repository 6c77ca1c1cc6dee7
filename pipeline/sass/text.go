package sass

// The listing: module header, one .text section per function, one line
// per instruction at 16-byte addresses, labels on branch targets, and the
// operand-order mappings between Ori and SASS (see doc.go).

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"orilab/internal/par"
	"orilab/pipeline/ori"
)

// ctrlColumn is the width the instruction text (from the mnemonic to its
// ";") is padded to before the control-word comment.
const ctrlColumn = 56

// printer accumulates a listing; labels are numbered across everything it
// prints.
type printer struct {
	b      strings.Builder
	nlabel int
	arch   int
	sp     spellScratch // the spelled copy of the instruction being printed
}

// Text renders the allocated module m as SASS text for SM arch (0: the
// module's own target).
func Text(m *ori.Module, arch int) (string, error) { return TextJobs(m, arch, 1) }

// TextJobs is Text printing up to jobs functions at once (jobs <= 1: one
// after another). The listing is the same: each function's labels start
// where the previous functions' count ends, as in one pass, and a failure
// is the first function's in module order.
func TextJobs(m *ori.Module, arch, jobs int) (string, error) {
	if arch == 0 {
		arch = m.Arch
	}
	p := &printer{arch: arch}
	flags := "EF_CUDA_TEXMODE_UNIFIED"
	if m.AddressSize != 32 {
		flags += " EF_CUDA_64BIT_ADDRESS"
	}
	fmt.Fprintf(&p.b, "\t.headerflags\t@\"%s EF_CUDA_SM%d EF_CUDA_VIRTUAL_SM(EF_CUDA_SM%d)\"\n", flags, arch, arch)
	p.b.WriteString("\t.elftype\t@\"ET_EXEC\"\n")
	if jobs <= 1 || len(m.Funcs) < 2 {
		for _, f := range m.Funcs {
			p.b.WriteByte('\n')
			if err := p.function(f); err != nil {
				return "", err
			}
		}
		return p.b.String(), nil
	}
	parts := make([]printer, len(m.Funcs))
	n := 0
	for i, f := range m.Funcs {
		parts[i] = printer{arch: arch, nlabel: n}
		targets := branchTargets(f)
		for _, b := range f.Blocks {
			if targets[b.ID] {
				n++ // function numbers one label per such block
			}
		}
	}
	if err := par.Do(len(m.Funcs), jobs, func(i int) error { return parts[i].function(m.Funcs[i]) }); err != nil {
		return "", err
	}
	for i := range parts {
		p.b.WriteByte('\n')
		p.b.WriteString(parts[i].b.String())
	}
	return p.b.String(), nil
}

// branchTargets returns the IDs of f's blocks some instruction names, the
// blocks that get a label.
func branchTargets(f *ori.Func) map[int32]bool {
	targets := map[int32]bool{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			for _, o := range in.Srcs {
				if o.Kind == ori.OpdBlock {
					targets[o.Block] = true
				}
			}
		}
	}
	return targets
}

// FuncText renders one allocated function as SASS text for SM arch, its
// labels numbered from .L_x_0 (arch selects nvdisasm's per-target
// spellings, spell.go).
func FuncText(f *ori.Func, arch int) (string, error) {
	p := &printer{arch: arch}
	if err := p.function(f); err != nil {
		return "", err
	}
	return p.b.String(), nil
}

// function prints f's section header and its instructions.
func (p *printer) function(f *ori.Func) error {
	targets := branchTargets(f)
	labels := map[int32]string{}
	for _, b := range f.Blocks {
		if targets[b.ID] {
			labels[b.ID] = fmt.Sprintf(".L_x_%d", p.nlabel)
			p.nlabel++
		}
	}
	w := &p.b
	// An instruction's line is about 120 bytes: room for all of them at
	// once, instead of the builder copying its text as it doubles.
	w.Grow(lineBytes * (f.NumInsts() + 16))
	fmt.Fprintf(w, "//--------------------- .text.%s --------------------------\n", f.Name)
	fmt.Fprintf(w, "\t.section\t.text.%s,\"ax\",@progbits\n", f.Name)
	if f.Entry {
		fmt.Fprintf(w, "\t.global\t\t%s\n", f.Name)
	}
	fmt.Fprintf(w, "\t.type\t\t%s,@function\n", f.Name)
	if f.Entry {
		fmt.Fprintf(w, "\t.other\t\t%s,@\"STO_CUDA_ENTRY STV_DEFAULT\"\n", f.Name)
	}
	fmt.Fprintf(w, "%s:\n.text.%s:\n", f.Name, f.Name)
	addr := 0
	rp := ori.ReturnPoints(f, 0)
	for _, b := range f.Blocks {
		if l, ok := labels[b.ID]; ok {
			w.WriteString(l + ":\n")
		}
		for _, in := range b.Insts {
			text, err := instTextIn(&p.sp, resolved(in, rp), labels, p.arch)
			if err != nil {
				return fmt.Errorf("sass: %s BB%d #%d: %v", f.Name, b.ID, in.ID, err)
			}
			guard := ""
			if in.Guarded() {
				g := in.Guard
				if g.Virtual {
					return fmt.Errorf("sass: %s BB%d #%d: the guard %s is a virtual register; SASS text needs allocated code", f.Name, b.ID, in.ID, g)
				}
				guard = "@"
				if in.GuardNot {
					guard += "!"
				}
				guard += regName(g, false)
			}
			writeLine(w, addr, guard, text, in.Ctrl)
			addr += 16
		}
	}
	literalPool(w, f)
	return nil
}

// writeLine writes one instruction line,
// fmt.Sprintf("        /*%04x*/%17s  %s", addr, guard, text) or, with a
// control word, "        /*%04x*/%17s  %-*s /* %s */" padding text to
// ctrlColumn, without fmt (the printer ran a quarter of its time in
// Sprintf). Widths count runes, as fmt's do.
func writeLine(w *strings.Builder, addr int, guard, text string, c ori.Ctrl) {
	var hex [16]byte
	h := strconv.AppendInt(hex[:0], int64(addr), 16)
	w.WriteString("        /*")
	for i := len(h); i < 4; i++ {
		w.WriteByte('0')
	}
	w.Write(h)
	w.WriteString("*/")
	pad(w, 17-utf8.RuneCountInString(guard))
	w.WriteString(guard)
	w.WriteString("  ")
	w.WriteString(text)
	if c.Set {
		pad(w, ctrlColumn-utf8.RuneCountInString(text))
		var ctrl [32]byte
		w.WriteString(" /* ")
		w.Write(c.AppendText(ctrl[:0]))
		w.WriteString(" */")
	}
	w.WriteByte('\n')
}

func pad(w *strings.Builder, n int) {
	for ; n > len(padding); n -= len(padding) {
		w.WriteString(padding)
	}
	if n > 0 {
		w.WriteString(padding[:n])
	}
}

// padding is what pad writes, a slice of it at a time.
const padding = "                                                                "

// lineBytes is about the length of one instruction's line of the
// listing (the printer sizes its buffer by it).
const lineBytes = 120

// literalPool prints a kernel's literal pool (constant bank 2) as
// nvdisasm prints the section .nv.constant2.NAME of ptxas's cubins: 16
// bytes a line, after a blank line.
func literalPool(w *strings.Builder, f *ori.Func) {
	if len(f.Literals) == 0 {
		return
	}
	sec := ".nv.constant2." + f.Name
	fmt.Fprintf(w, "\n\n//--------------------- %s --------------------------\n", sec)
	fmt.Fprintf(w, "\t.section\t%s,\"a\",@progbits\n\t.sectionflags\t@\"\"\n\t.align\t4\n%s:\n", sec, sec)
	var bytes []string
	for _, v := range f.Literals {
		for i := 0; i < 8; i++ {
			bytes = append(bytes, fmt.Sprintf("0x%02x", byte(v>>(8*i))))
		}
	}
	for i := 0; i < len(bytes); i += 16 {
		fmt.Fprintf(w, "        /*%04x*/ \t.byte\t%s\n", i, strings.Join(bytes[i:min(i+16, len(bytes))], ", "))
	}
}

// resolved is in with its return point resolved (ResolveReturnPoint).
func resolved(in *ori.Inst, rp map[*ori.Inst]int) *ori.Inst {
	x, _ := ResolveReturnPoint(in, rp)
	return x
}

// instText prints the mnemonic and operands of one instruction in
// nvdisasm's spelling for SM arch (spell.go), ending with " ;".
func instText(in *ori.Inst, labels map[int32]string, arch int) (string, error) {
	return instTextIn(nil, in, labels, arch)
}

// instTextIn is instText spelling the instruction in sc (spellIn).
func instTextIn(sc *spellScratch, in *ori.Inst, labels map[int32]string, arch int) (string, error) {
	if in.IsPseudo() {
		return "", fmt.Errorf("%s is a pseudo instruction with no SASS form; it must be expanded before emission", in.Name())
	}
	for _, ops := range [2][]ori.Operand{in.Dsts, in.Srcs} {
		for _, o := range ops {
			if (o.Kind == ori.OpdReg || o.HasBase) && o.Reg.Virtual {
				return "", fmt.Errorf("operand %s is a virtual register; SASS text needs allocated code", o)
			}
		}
	}
	in = spellIn(sc, in, arch)
	// Most instructions have few operands: the buffers keep ops and
	// parts off the heap.
	var opsBuf [8]ori.Operand
	var partsBuf [8]string
	ops := opsBuf[:0]
	dsts := in.Dsts
	switch in.Op {
	case ori.OpLOP3, ori.OpULOP3:
		// Ori: "LOP3.LUT Rd, Pp = ..."; SASS prints the predicate
		// result first.
		if len(dsts) == 2 {
			dsts = []ori.Operand{dsts[1], dsts[0]}
		}
	case ori.OpMATCH:
		// MATCH.ALL always prints its predicate result, first (measured:
		// nvdisasm -b SM80/SM90 prints MATCH.ALL PT, R10, R0; MATCH.ANY
		// has none).
		if in.HasMod("ALL") {
			switch len(dsts) {
			case 1:
				dsts = []ori.Operand{ori.R(ori.PT), dsts[0]}
			case 2:
				dsts = []ori.Operand{dsts[1], dsts[0]}
			}
		}
	case ori.OpATOMG, ori.OpATOM:
		// SASS always prints the predicate result, first.
		switch len(dsts) {
		case 1:
			dsts = []ori.Operand{ori.R(ori.PT), dsts[0]}
		case 2:
			dsts = []ori.Operand{dsts[1], dsts[0]}
		}
	}
	ops = append(ops, dsts...)
	ops = append(ops, in.Srcs...)
	parts := partsBuf[:0]
	if len(ops) > len(partsBuf) {
		parts = make([]string, 0, len(ops))
	}
	parts = parts[:len(ops)]
	for i, o := range ops {
		if (in.Op == ori.OpBSSY || in.Op == ori.OpBSYNC) && i == len(dsts) && o.Kind == ori.OpdImm {
			parts[i] = fmt.Sprintf("B%d", o.Imm)
			continue
		}
		if in.Op == ori.OpDEPBAR && i == len(dsts) && o.Kind == ori.OpdImm {
			parts[i] = fmt.Sprintf("SB%d", o.Imm) // the scoreboard DEPBAR waits on
			continue
		}
		s, err := operandText(o, labels)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	if i := surfAddress(in); i >= 0 && i < len(parts) {
		parts[i] = "[" + parts[i] + "]"
	}
	if in.Op == ori.OpIMMA && len(parts) >= len(dsts)+2 {
		// nvdisasm names the layouts of A and B, which the word does
		// not vary (mma.sync's integer shapes are all .row.col).
		parts[len(dsts)] += ".ROW"
		parts[len(dsts)+1] += ".COL"
	}
	name := in.Name()
	if n, w, at, ok := texWord(in, len(parts)); ok {
		name = n
		parts = append(parts[:at], append([]string{w}, parts[at:]...)...)
	}
	if in.Op == ori.OpRED && arch >= 90 {
		// nvdisasm -b SM90 names the global RED word (opcode 0x98e)
		// REDG, as it names ATOMG; -b SM80 names the same word RED
		// (measured with nvdisasm 13.5 on orilab's words).
		name = "REDG" + strings.TrimPrefix(name, "RED")
	}
	if len(parts) == 0 {
		return name + " ;", nil
	}
	if in.Op == ori.OpBRX && len(in.Srcs) > 0 && (len(in.Srcs) == 1 || in.Srcs[1].Kind == ori.OpdCBank) {
		// A BRX on a jump-table entry (PostFixForMercTargets): its
		// branch field points at address 0 of the code, as RET's
		// (nvdisasm prints the field, BRX R4 -0x90, and the targets from
		// EIATTR_INDIRECT_BRANCH_TARGETS in a cubin). The table and the
		// targets are not in the word; the targets keep their labels.
		return name + " " + parts[len(dsts)] + " `(0x0) ;", nil
	}
	if (in.Op == ori.OpRET || in.Op == ori.OpCALL && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdReg) && in.HasMod("REL") {
		// The branch field of RET.REL.NODEC and CALL.REL.NOINC Ra points
		// at address 0 of the code (form.toBase); nvdisasm prints the
		// kernel's name there in a linked cubin and the address, 0x0, in
		// a listing of one function's words. orilab prints the address.
		return joinInst(name, parts, " `(0x0) ;"), nil
	}
	return joinInst(name, parts, " ;"), nil
}

// joinInst is name + " " + strings.Join(parts, ", ") + end, made in one
// allocation (the printer spells every instruction so).
func joinInst(name string, parts []string, end string) string {
	n := len(name) + 1 + len(end) + 2*(len(parts)-1)
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(max(n, 0))
	b.WriteString(name)
	b.WriteByte(' ')
	for i, p := range parts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p)
	}
	b.WriteString(end)
	return b.String()
}
