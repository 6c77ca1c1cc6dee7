package pipeline

import (
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/spec"
)

// vmad and vshl of an unsigned source with .sat/.min/.max, against the
// manual's pseudo-code (ptx-isa/vmad.md, vshl.md) in unbounded integers.

// laneKernel runs body once per form on 32 threads whose a, b, c come
// from in[3*lane..], storing each form's %d to out[128*j/4 + lane], and
// checks out against want (form-major) at -O0 and -O3, and that ptxas
// accepts the kernel.
func laneKernel(t *testing.T, forms []string, ops [][3]uint32, want []uint64) {
	t.Helper()
	var in []byte
	for _, v := range ops {
		for _, x := range v {
			in = append(in, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
	}
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n")
	b.WriteString(".visible .entry video(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %a, %b, %c, %d, %t, %ma, %mb, %mc;\n\t.reg .b64 %i, %o, %off;\n")
	b.WriteString("\tld.param.u64 %i, [pin];\n\tld.param.u64 %o, [pout];\n\tmov.u32 %t, %tid.x;\n")
	b.WriteString("\tmul.wide.u32 %off, %t, 12;\n\tadd.u64 %i, %i, %off;\n")
	b.WriteString("\tld.global.u32 %a, [%i];\n\tld.global.u32 %b, [%i+4];\n\tld.global.u32 %c, [%i+8];\n")
	b.WriteString("\tand.b32 %ma, %a, 0x7fffffff;\n\tand.b32 %mb, %b, 0x7fffffff;\n\tand.b32 %mc, %c, 0x7fffffff;\n")
	b.WriteString("\tmul.wide.u32 %off, %t, 4;\n\tadd.u64 %o, %o, %off;\n")
	for j, f := range forms {
		fmt.Fprintf(&b, "\tmov.u32 %%d, 0;\n\t%s\n\tst.global.u32 [%%o+%d], %%d;\n", f, 128*j)
	}
	b.WriteString("\tret;\n}\n")
	dir := t.TempDir()
	p := filepath.Join(dir, "video.ptx")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Name: "video", File: "video.json", Dir: dir, PTX: "video.ptx", PTXPath: p, Kernel: "video",
		Launch: spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}},
		Params: []spec.Param{
			{Name: "in", Kind: spec.KindBuffer, Elem: "u32", Count: 96, InitHexLE: in},
			{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: 32 * len(forms), Init: "zero"},
		},
		Expect: []spec.Expect{{Param: "out", ParamIndex: 1, Elem: "u32", Count: 32 * len(forms), Values: want}},
	}
	for _, level := range []int{0, 3} {
		rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: level}})
		if err != nil {
			t.Fatalf("-O%d: %v", level, err)
		}
		n := 0
		for _, res := range rep.Results {
			for _, m := range res.First {
				o := ops[m.Index%32]
				if n++; n <= 20 {
					t.Errorf("-O%d: %s with a=%#x b=%#x c=%#x: got %#x, want %#x", level, forms[m.Index/32], o[0], o[1], o[2], m.Got, m.Want)
				}
			}
		}
		if !rep.Pass && !t.Failed() {
			t.Fatalf("-O%d:\n%s", level, spec.FormatResults(rep.Results))
		}
	}
	t.Run("ptxas", func(t *testing.T) {
		ptxas := nvtools.Require(t, nvtools.Ptxas)
		if out, err := exec.Command(ptxas, "-arch", "sm_80", "-o", p+".cubin", p).CombinedOutput(); err != nil {
			t.Errorf("ptxas rejects the kernel: %v\n%s", err, out)
		}
	})
}

// videoPart is partSelectSignExtend: the selected byte or half (or the
// word) of x, sign- or zero-extended.
func videoPart(x uint32, sel string, signed bool) *big.Int {
	bits, sh := 32, 0
	if sel != "" {
		bits, sh = 8, int(sel[2]-'0')*8
		if sel[1] == 'h' {
			bits, sh = 16, int(sel[2]-'0')*16
		}
	}
	v := int64(uint64(x>>uint(sh)) & (1<<uint(bits) - 1))
	if signed && v>>(uint(bits)-1) != 0 {
		v -= 1 << uint(bits)
	}
	return big.NewInt(v)
}

func clampBig(x *big.Int, lo, hi int64) *big.Int {
	if x.Cmp(big.NewInt(lo)) < 0 {
		return big.NewInt(lo)
	}
	if x.Cmp(big.NewInt(hi)) > 0 {
		return big.NewInt(hi)
	}
	return x
}

func low32(x *big.Int) uint32 {
	m := new(big.Int).And(x, big.NewInt(0xffffffff)) // two's complement for negative x
	return uint32(m.Uint64())
}

// vmadForm is one vmad under test.
type vmadForm struct {
	at, bt           string // .u32 or .s32
	negA, negB, negC bool
	po, sat          bool
	scale            string // "", .shr7, .shr15
	asel, bsel       string
}

// text writes the instruction; full-word .u32 sources read the masked
// registers (%ma, %mb: below 2^31), and so does an unsigned c, the inputs
// on which the manual and ptxas agree (lowerVmad's Decision).
func (f vmadForm) text() string {
	dt := ".u32"
	if f.signed() {
		dt = ".s32"
	}
	s := "vmad" + dt + f.at + f.bt
	if f.po {
		s += ".po"
	}
	if f.sat {
		s += ".sat"
	}
	s += f.scale
	src := func(neg bool, reg, sel, t string) string {
		r := "%" + reg
		if sel == "" && t == ".u32" {
			r = "%m" + reg
		}
		if neg {
			r = "-" + r
		}
		return r + sel
	}
	c := src(f.negC, "c", "", map[bool]string{true: ".s32", false: ".u32"}[f.signed()])
	return fmt.Sprintf("%s %%d, %s, %s, %s;", s, src(f.negA, "a", f.asel, f.at), src(f.negB, "b", f.bsel, f.bt), c)
}

func (f vmadForm) signed() bool {
	return f.at == ".s32" || f.bt == ".s32" || f.negA != f.negB || f.negC
}

// ref is ptx-isa/vmad.md's Semantics block in unbounded integers.
func (f vmadForm) ref(a, b, c uint32) uint32 {
	if f.asel == "" && f.at == ".u32" {
		a &= 0x7fffffff
	}
	if f.bsel == "" && f.bt == ".u32" {
		b &= 0x7fffffff
	}
	if !f.signed() {
		c &= 0x7fffffff
	}
	ta, tb := videoPart(a, f.asel, f.at == ".s32"), videoPart(b, f.bsel, f.bt == ".s32")
	tmp := new(big.Int).Mul(ta, tb)
	lsb := int64(0)
	cv := uint64(c)
	switch {
	case f.po:
		lsb = 1
	case f.negA != f.negB:
		tmp.Not(tmp)
		lsb = 1
	case f.negC:
		cv = uint64(^c)
		lsb = 1
	}
	c128 := new(big.Int).SetUint64(cv)
	if f.signed() {
		c128 = big.NewInt(int64(int32(uint32(cv))))
	}
	tmp.Add(tmp, c128)
	tmp.Add(tmp, big.NewInt(lsb))
	switch f.scale {
	case ".shr7":
		tmp.Rsh(tmp, 7) // arithmetic (floor) on a signed value
	case ".shr15":
		tmp.Rsh(tmp, 15)
	}
	if f.sat {
		if f.signed() {
			tmp = clampBig(tmp, -1<<31, 1<<31-1)
		} else {
			tmp = clampBig(tmp, 0, 1<<32-1)
		}
	}
	return low32(tmp)
}

// vmadForms: every type pair and negation the manual lists, with and
// without .po, .sat and each scale, some with part selectors.
func vmadForms() []vmadForm {
	var fs []vmadForm
	types := []string{".u32", ".s32"}
	type neg struct{ a, b, c bool }
	negs := []neg{{}, {a: true}, {b: true}, {c: true}}
	i := 0
	for _, at := range types {
		for _, bt := range types {
			for _, n := range negs {
				if at == ".u32" && bt == ".u32" && n == (neg{b: true}) {
					continue // the manual's table lists -(u32*u32) once
				}
				for _, sat := range []bool{false, true} {
					for _, scale := range []string{"", ".shr7", ".shr15"} {
						f := vmadForm{at: at, bt: bt, negA: n.a, negB: n.b, negC: n.c, sat: sat, scale: scale}
						switch i % 4 {
						case 1:
							f.asel, f.bsel = ".h1", ".b2"
						case 2:
							f.asel = ".b3"
						}
						i++
						fs = append(fs, f)
					}
				}
			}
		}
	}
	for _, sat := range []bool{false, true} {
		fs = append(fs, vmadForm{at: ".u32", bt: ".u32", po: true, sat: sat}, vmadForm{at: ".s32", bt: ".u32", po: true, sat: sat, scale: ".shr15", bsel: ".h0"})
	}
	return fs
}

func videoOps(seed int64) [][3]uint32 {
	r := rand.New(rand.NewSource(seed))
	special := []uint32{0, 0xffffffff, 0x80000000, 0x7fffffff, 1, 31, 32, 33, 0x8000, 0x7f, 0xffff, 0x10000}
	var ops [][3]uint32
	for i := 0; i < 32; i++ {
		var v [3]uint32
		for k := range v {
			v[k] = r.Uint32()
			if r.Intn(2) == 0 {
				v[k] = special[r.Intn(len(special))]
			}
		}
		ops = append(ops, v)
	}
	return ops
}

// TestVmad checks vmad in every form against the manual on 32 operand
// triples (including extremes), at -O0 and -O3.
func TestVmad(t *testing.T) {
	fs := vmadForms()
	ops := videoOps(5)
	var forms []string
	var want []uint64
	for _, f := range fs {
		forms = append(forms, f.text())
		for _, o := range ops {
			want = append(want, uint64(f.ref(o[0], o[1], o[2])))
		}
	}
	laneKernel(t, forms, ops, want)
}

// TestVmadFullWordUnsigned pins the cases where ptxas 13.0's sequence
// (IMAD.WIDE reads full-word .u32 sources as s32, and sign-extends c) and
// the manual part ways; orilab follows ptxas (lowerVmad's Decision). The
// expected values are those of ptxas's SASS for sm_80, worked by hand.
func TestVmadFullWordUnsigned(t *testing.T) {
	ops := [][3]uint32{}
	for i := 0; i < 32; i++ {
		ops = append(ops, [3]uint32{0xffffffff, 0xffffffff, 0})
	}
	ops[1] = [3]uint32{0xffffffff, 2, 0}
	ops[2] = [3]uint32{3, 5, 0x80000000}
	forms := []string{
		"vmad.u32.u32.u32.sat %d, %a, %b, %c;",
		"vmad.u32.u32.u32.sat.shr7 %d, %a, %b, %c;",
	}
	want := make([]uint64, 64)
	for i := range ops {
		// (-1)*(-1) + 0 = 1 in ptxas; the manual's (2^32-1)^2 saturates.
		want[i], want[32+i] = 1, 0 // 1 >> 7 = 0
	}
	// (-1)*2 = -2: a negative high word leaves the low word, 0xfffffffe
	// (the manual: 2^33 - 2 saturates to 0xffffffff).
	// Shifted right by 7 as a 64-bit pattern (SHF.R.U64) it is
	// 0x01ffffff_ffffffff, whose positive high word saturates.
	want[1], want[33] = 0xfffffffe, 0xffffffff
	// 15 + sext(0x80000000) = -2^31 + 15, high word negative: the low word;
	// shifted, 0x01ffffff_ff000000 saturates.
	want[2], want[34] = 0x8000000f, 0xffffffff
	laneKernel(t, forms, ops, want)
}

// vshlForm is vshl with an unsigned source.
type vshlForm struct {
	dt, mode, op2, dsel string
	sat                 bool
}

func (f vshlForm) text() string {
	s := "vshl" + f.dt + ".u32.u32"
	if f.sat {
		s += ".sat"
	}
	s += f.mode + f.op2 + " %d" + f.dsel + ", %a, %b"
	if f.op2 != "" || f.dsel != "" {
		s += ", %c"
	}
	return s + ";"
}

// ref is ptx-isa/vshl.md's Semantics block in unbounded integers.
func (f vshlForm) ref(a, b, c uint32) uint32 {
	n := uint(b & 31)
	if f.mode == ".clamp" {
		n = uint(min(b, 32))
	}
	tmp := new(big.Int).Lsh(new(big.Int).SetUint64(uint64(a)), n)
	if f.sat {
		bits := 32
		if f.dsel != "" {
			bits = map[byte]int{'b': 8, 'h': 16}[f.dsel[1]]
		}
		if f.dt == ".s32" {
			tmp = clampBig(tmp, -1<<uint(bits-1), 1<<uint(bits-1)-1)
		} else {
			tmp = clampBig(tmp, 0, 1<<uint(bits)-1)
		}
	}
	cx := big.NewInt(int64(c))
	if f.dt == ".s32" {
		cx = big.NewInt(int64(int32(c)))
	}
	switch {
	case f.op2 == ".add":
		return low32(tmp) + c
	case f.op2 == ".min":
		if tmp.Cmp(cx) < 0 {
			return low32(tmp)
		}
		return c
	case f.op2 == ".max":
		if tmp.Cmp(cx) > 0 {
			return low32(tmp)
		}
		return c
	case f.dsel != "":
		bits, sh := 8, int(f.dsel[2]-'0')*8
		if f.dsel[1] == 'h' {
			bits, sh = 16, int(f.dsel[2]-'0')*16
		}
		m := uint32(1)<<uint(bits) - 1
		return c&^(m<<uint(sh)) | (low32(tmp)&m)<<uint(sh)
	}
	return low32(tmp)
}

// TestVshlUnsignedWide checks vshl of a .u32 source with .sat, .min and
// .max, whose intermediate reaches 2^64 - 2^32.
func TestVshlUnsignedWide(t *testing.T) {
	var fs []vshlForm
	for _, dt := range []string{".u32", ".s32"} {
		for _, mode := range []string{".clamp", ".wrap"} {
			for _, v := range []vshlForm{{sat: true}, {op2: ".min"}, {op2: ".max"}, {sat: true, op2: ".min"},
				{sat: true, op2: ".max"}, {sat: true, op2: ".add"}, {sat: true, dsel: ".h1"}, {sat: true, dsel: ".b0"}} {
				v.dt, v.mode = dt, mode
				fs = append(fs, v)
			}
		}
	}
	ops := videoOps(6)
	var forms []string
	var want []uint64
	for _, f := range fs {
		forms = append(forms, f.text())
		for _, o := range ops {
			want = append(want, uint64(f.ref(o[0], o[1], o[2])))
		}
	}
	laneKernel(t, forms, ops, want)
}
