package sass

// Operand syntax: how each kind of Ori operand reads in SASS text
// (see doc.go, "Operands").

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"orilab/pipeline/ori"
)

// regName prints a physical register. A tuple prints as its first
// register; mem asks for the memory-base form, where a 64-bit base
// carries ".64".
func regName(r ori.Reg, mem bool) string {
	if !r.Virtual && r.N >= 0 && r.Class < ori.NumClasses && int(r.N) <= r.Class.Limit() {
		t := &physNames()[r.Class][r.N]
		if mem && r.Words == 2 {
			return t.wide
		}
		return t.word
	}
	base := r
	base.Words = 1
	s := base.String()
	if mem && r.Words == 2 {
		s += ".64"
	}
	return s
}

// physNames holds regName's strings for the physical registers (the
// only ones SASS text prints), made once: the printer names every
// operand of every instruction, and building "R12" each time was most
// of its allocations. word is the one-word name, wide the name with
// ".64" an address register takes. The table is made on first use (a
// compilation that writes a cubin prints no SASS), for the registers
// each class has (R0-RZ, UR0-URZ, P0-PT, UP0-UPT), and its strings are
// slices of one buffer.
var physNames = sync.OnceValue(func() *[ori.NumClasses][256]struct{ word, wide string } {
	t := new([ori.NumClasses][256]struct{ word, wide string })
	var buf []byte
	type span struct{ start, word, wide int }
	var spans [ori.NumClasses][256]span
	for c := range t {
		for n := 0; n <= ori.RegClass(c).Limit(); n++ {
			sp := &spans[c][n]
			sp.start = len(buf)
			buf = append(buf, ori.PReg(ori.RegClass(c), n, 1).String()...)
			sp.word = len(buf)
			buf = append(buf, ".64"...)
			sp.wide = len(buf)
		}
	}
	all := string(buf)
	for c := range t {
		for n := 0; n <= ori.RegClass(c).Limit(); n++ {
			sp := spans[c][n]
			t[c][n].word, t[c][n].wide = all[sp.start:sp.word], all[sp.start:sp.wide]
		}
	}
	return t
})

// hexInt prints an integer as nvdisasm does: 0x1f, -0x1.
func hexInt(v int64) string {
	if v < 0 {
		return "-0x" + strconv.FormatUint(uint64(-v), 16)
	}
	return "0x" + strconv.FormatInt(v, 16)
}

// offset prints the displacement of an address after its base register:
// "+0x10", "+-0x8" (nvdisasm keeps the plus), or nothing for 0.
func offset(v int64) string {
	if v == 0 {
		return ""
	}
	return "+" + hexInt(v)
}

// floatText prints a floating-point immediate in decimal as nvdisasm
// does: the shortest form with at most 20 significant digits (the exact
// value of most f32 constants), trailing zeros dropped, values of 1e16
// and above in exponent form with 21 digits, and nvdisasm's names for
// infinities and NaNs.
func floatText(f float64, quiet bool) string {
	switch {
	case math.IsInf(f, 1):
		return "+INF"
	case math.IsInf(f, -1):
		return "-INF"
	case math.IsNaN(f):
		sign := "+"
		if math.Signbit(f) {
			sign = "-"
		}
		if quiet {
			return sign + "QNAN"
		}
		return sign + "SNAN"
	}
	s := strconv.FormatFloat(f, 'g', 20, 64)
	mant, exp, hasExp := strings.Cut(s, "e")
	if hasExp && exp[0] == '+' || !hasExp && len(strings.TrimLeft(mant, "-")) >= 17 && !strings.Contains(mant, ".") {
		// nvdisasm writes values of 1e16 and above with 21 significant
		// digits in exponent form, zeros kept
		// (1.84467440737095516160e+19).
		return strconv.FormatFloat(f, 'e', 20, 64)
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	if hasExp {
		return mant + "e" + exp
	}
	return mant
}

// immText prints an immediate operand.
func immText(o ori.Operand) string {
	switch o.FKind {
	case ori.ImmF32:
		bits := uint32(o.Imm)
		return floatText(float64(math.Float32frombits(bits)), bits&0x400000 != 0)
	case ori.ImmF64:
		bits := uint64(o.Imm)
		return floatText(math.Float64frombits(bits), bits&(1<<51) != 0)
	}
	return hexInt(o.Imm)
}

// operandText prints one operand; labels maps block IDs to label names.
func operandText(o ori.Operand, labels map[int32]string) (string, error) {
	switch o.Kind {
	case ori.OpdReg:
		if !o.Not && !o.Neg && !o.Abs && !o.Reuse {
			// The common case, a bare register: its name as is.
			return regName(o.Reg, false), nil
		}
		var b strings.Builder
		if o.Not {
			if o.Reg.Class.IsPred() {
				b.WriteByte('!')
			} else {
				b.WriteByte('~')
			}
		}
		if o.Neg {
			b.WriteByte('-')
		}
		if o.Abs {
			b.WriteByte('|')
		}
		b.WriteString(regName(o.Reg, false))
		if o.Abs {
			b.WriteByte('|')
		}
		if o.Reuse {
			b.WriteString(".reuse")
		}
		return b.String(), nil
	case ori.OpdImm:
		return immText(o), nil
	case ori.OpdCBank:
		var c string
		if o.HasBase {
			c = fmt.Sprintf("c[0x%x][%s%s]", o.Bank, regName(o.Reg, false), offset(o.Imm))
		} else {
			c = fmt.Sprintf("c[0x%x][%s]", o.Bank, hexInt(o.Imm))
		}
		// An ALU constant source takes B's operand modifiers (the
		// decoder reads them from bits 62-63: IADD3.X R5, R7,
		// ~c[0x0][0x164], RZ, P0, !PT).
		if o.Abs {
			c = "|" + c + "|"
		}
		if o.Neg {
			c = "-" + c
		}
		if o.Not {
			c = "~" + c
		}
		return c, nil
	case ori.OpdMem:
		desc := ""
		if o.HasDesc {
			desc = "desc[" + regName(o.Desc, false) + "]"
		}
		if o.HasBase {
			return desc + "[" + regName(o.Reg, true) + offset(o.Imm) + "]", nil
		}
		return desc + "[" + hexInt(o.Imm) + "]", nil
	case ori.OpdSR:
		return o.Name, nil
	case ori.OpdBlock:
		l, ok := labels[o.Block]
		if !ok {
			return "", fmt.Errorf("branch to BB%d, which is not a block of the function", o.Block)
		}
		return "`(" + l + ")", nil
	case ori.OpdSym:
		return "`(" + o.Name + ")", nil
	}
	return "", fmt.Errorf("operand of unknown kind %d", o.Kind)
}
