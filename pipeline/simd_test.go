package pipeline

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/spec"
)

// simdCase is one SIMD video instruction form: the text after the opcode
// and the operand selectors.
type simdCase struct {
	op               string // vadd2, vset4, ...
	dt, at, bt       string // .u32/.s32 (dt empty for vset)
	cmp              string // vset: .lt ...
	sat, add         bool
	mask, asel, bsel string // "" for the default
}

func (sc simdCase) text() string {
	var b strings.Builder
	b.WriteString(sc.op)
	b.WriteString(sc.dt + sc.at + sc.bt + sc.cmp)
	if sc.sat {
		b.WriteString(".sat")
	}
	if sc.add {
		b.WriteString(".add")
	}
	fmt.Fprintf(&b, " %%d%s, %%a%s, %%b%s, %%c;", sc.mask, sc.asel, sc.bsel)
	return b.String()
}

// simdRef is the manual's semantics (ptx-isa vadd2.md, vset4.md, ...)
// for one thread.
func (sc simdCase) ref(a, b, c uint32) uint32 {
	n := int(sc.op[len(sc.op)-1] - '0')
	eb := 32 / n
	op := sc.op[:len(sc.op)-1]
	ab := uint64(b)<<32 | uint64(a) // the eight bytes of {b, a}
	digits := func(s, def string) string {
		if s == "" {
			s = def
		}
		return s[2:]
	}
	defA, defB, defM := ".h10", ".h32", ".h10"
	if n == 4 {
		defA, defB, defM = ".b3210", ".b7654", ".b3210"
	}
	ext := func(v uint64, signed bool) int64 {
		v &= 1<<uint(eb) - 1
		if signed && v>>(uint(eb)-1) != 0 {
			return int64(v) - 1<<uint(eb)
		}
		return int64(v)
	}
	elem := func(sel string, i int, signed bool) int64 {
		k := int(sel[len(sel)-1-i] - '0')
		return ext(ab>>(uint(k*eb)), signed)
	}
	as, bs := digits(sc.asel, defA), digits(sc.bsel, defB)
	mask := digits(sc.mask, defM)
	d := uint32(0)
	if sc.add {
		d = c
	}
	for i := 0; i < n; i++ {
		va, vb := elem(as, i, sc.at == ".s32"), elem(bs, i, sc.bt == ".s32")
		var t int64
		switch op {
		case "vadd":
			t = va + vb
		case "vsub":
			t = va - vb
		case "vavrg":
			if va+vb >= 0 {
				t = (va + vb + 1) >> 1
			} else {
				t = (va + vb) >> 1
			}
		case "vabsdiff":
			t = va - vb
			if t < 0 {
				t = -t
			}
		case "vmin":
			t = min(va, vb)
		case "vmax":
			t = max(va, vb)
		case "vset":
			ok := map[string]bool{".eq": va == vb, ".ne": va != vb, ".lt": va < vb, ".le": va <= vb, ".gt": va > vb, ".ge": va >= vb}[sc.cmp]
			if ok {
				t = 1
			}
		}
		if sc.sat {
			lo, hi := int64(0), int64(1)<<uint(eb)-1
			if sc.dt == ".s32" {
				lo, hi = -1<<uint(eb-1), 1<<uint(eb-1)-1
			}
			t = max(lo, min(hi, t))
		}
		in := strings.ContainsRune(mask, rune('0'+i))
		em := uint32(1)<<uint(eb) - 1
		switch {
		case sc.add && in:
			d += uint32(t)
		case sc.add:
		case in:
			d |= uint32(t) & em << uint(i*eb)
		default:
			d |= c & (em << uint(i*eb))
		}
	}
	return d
}

// simdCases covers every operation at both widths, every type mix, .sat,
// .add, the masks and non-default selectors.
func simdCases() []simdCase {
	var cs []simdCase
	types := []string{".u32", ".s32"}
	for _, n := range []string{"2", "4"} {
		for _, op := range []string{"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"} {
			for _, dt := range types {
				for _, at := range types {
					for _, bt := range types {
						cs = append(cs,
							simdCase{op: op + n, dt: dt, at: at, bt: bt},
							simdCase{op: op + n, dt: dt, at: at, bt: bt, sat: true},
							simdCase{op: op + n, dt: dt, at: at, bt: bt, add: true})
					}
				}
			}
		}
		for _, cmp := range []string{".eq", ".ne", ".lt", ".le", ".gt", ".ge"} {
			for _, at := range types {
				cs = append(cs, simdCase{op: "vset" + n, at: at, bt: types[1], cmp: cmp},
					simdCase{op: "vset" + n, at: at, bt: types[0], cmp: cmp, add: true})
			}
		}
	}
	// Masks and selectors.
	cs = append(cs,
		simdCase{op: "vadd2", dt: ".s32", at: ".s32", bt: ".s32", sat: true, mask: ".h0", asel: ".h10", bsel: ".h32"},
		simdCase{op: "vsub2", dt: ".u32", at: ".u32", bt: ".s32", mask: ".h1", asel: ".h33", bsel: ".h02"},
		simdCase{op: "vmin2", dt: ".s32", at: ".u32", bt: ".u32", add: true, mask: ".h1", asel: ".h00", bsel: ".h22"},
		simdCase{op: "vmax4", dt: ".u32", at: ".s32", bt: ".u32", mask: ".b20", asel: ".b0123", bsel: ".b7777"},
		simdCase{op: "vadd4", dt: ".s32", at: ".s32", bt: ".u32", sat: true, mask: ".b321", asel: ".b4567", bsel: ".b0246"},
		simdCase{op: "vabsdiff4", dt: ".u32", at: ".u32", bt: ".u32", add: true, mask: ".b31", asel: ".b1032", bsel: ".b5476"},
		simdCase{op: "vavrg4", dt: ".s32", at: ".s32", bt: ".s32", mask: ".b0", asel: ".b7531", bsel: ".b6420"},
		simdCase{op: "vset4", at: ".s32", bt: ".u32", cmp: ".lt", mask: ".b310", asel: ".b3333", bsel: ".b0000"},
		simdCase{op: "vset2", at: ".u32", bt: ".s32", cmp: ".ge", add: true, mask: ".h0", asel: ".h21", bsel: ".h30"},
	)
	return cs
}

// simdKernel runs the cases one after another: thread i reads a, b, c
// from in[3i..] and writes case j's d to out[j*32+i].
func simdKernel(cs []simdCase) string {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n")
	b.WriteString(".visible .entry simd(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %a, %b, %c, %d, %t;\n\t.reg .b64 %i, %o, %off;\n")
	b.WriteString("\tld.param.u64 %i, [pin];\n\tld.param.u64 %o, [pout];\n\tmov.u32 %t, %tid.x;\n")
	b.WriteString("\tmul.wide.u32 %off, %t, 12;\n\tadd.u64 %i, %i, %off;\n")
	b.WriteString("\tld.global.u32 %a, [%i];\n\tld.global.u32 %b, [%i+4];\n\tld.global.u32 %c, [%i+8];\n")
	b.WriteString("\tmul.wide.u32 %off, %t, 4;\n\tadd.u64 %o, %o, %off;\n")
	for j, sc := range cs {
		fmt.Fprintf(&b, "\t%s\n\tst.global.u32 [%%o+%d], %%d;\n", sc.text(), 128*j)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// TestSIMDVideo checks every SIMD video form on 32 threads of random
// operands (with the extremes of each element mixed in) against the
// manual's semantics, at -O0 and -O3.
func TestSIMDVideo(t *testing.T) {
	cs := simdCases()
	r := rand.New(rand.NewSource(2))
	special := []uint32{0, 0xffffffff, 0x80008000, 0x7fff7fff, 0x80808080, 0x7f7f7f7f, 0x00ff00ff, 0xff00ff00}
	var in []byte
	var ops [][3]uint32
	for i := 0; i < 32; i++ {
		var v [3]uint32
		for k := range v {
			v[k] = r.Uint32()
			if r.Intn(3) == 0 {
				v[k] = special[r.Intn(len(special))]
			}
			in = append(in, byte(v[k]), byte(v[k]>>8), byte(v[k]>>16), byte(v[k]>>24))
		}
		ops = append(ops, v)
	}
	var want []uint64
	for _, sc := range cs {
		for i := 0; i < 32; i++ {
			want = append(want, uint64(sc.ref(ops[i][0], ops[i][1], ops[i][2])))
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "simd.ptx")
	if err := os.WriteFile(p, []byte(simdKernel(cs)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Name: "simd", File: "simd.json", Dir: dir, PTX: "simd.ptx", PTXPath: p, Kernel: "simd",
		Launch: spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}},
		Params: []spec.Param{
			{Name: "in", Kind: spec.KindBuffer, Elem: "u32", Count: 96, InitHexLE: in},
			{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: 32 * len(cs), Init: "zero"},
		},
		Expect: []spec.Expect{{Param: "out", ParamIndex: 1, Elem: "u32", Count: 32 * len(cs), Values: want}},
	}
	for _, level := range []int{0, 3} {
		rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: level}})
		if err != nil {
			t.Fatalf("-O%d: %v", level, err)
		}
		for _, res := range rep.Results {
			for _, m := range res.First {
				sc := cs[m.Index/32]
				o := ops[m.Index%32]
				t.Errorf("-O%d: %s with a=%#x b=%#x c=%#x: got %#x, want %#x", level, sc.text(), o[0], o[1], o[2], m.Got, m.Want)
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

// videoCase is one scalar video instruction whose intermediate can need
// more than 32 bits, with saturation or a secondary operation.
type videoCase struct {
	op, dt, at, bt string
	mode           string // vshl: .clamp or .wrap
	sat            bool
	op2            string // "", .add, .min, .max
	dsel           string // "", .b1, .h0 ...
	asel, bsel     string
}

func (vc videoCase) text() string {
	s := vc.op + vc.dt + vc.at + vc.bt
	if vc.sat {
		s += ".sat"
	}
	s += vc.mode + vc.op2
	s += fmt.Sprintf(" %%d%s, %%a%s, %%b%s", vc.dsel, vc.asel, vc.bsel)
	if vc.op2 != "" || vc.dsel != "" {
		s += ", %c"
	}
	return s + ";"
}

// ref is the manual's semantics (ptx-isa vadd.md, vshl.md) in int64.
func (vc videoCase) ref(a, b, c uint32) uint32 {
	part := func(x uint32, sel string, signed bool) int64 {
		bits, sh := 32, 0
		if sel != "" {
			sh = int(sel[2]-'0') * 8
			bits = 8
			if sel[1] == 'h' {
				bits, sh = 16, int(sel[2]-'0')*16
			}
		}
		v := uint64(x>>uint(sh)) & (1<<uint(bits) - 1)
		if signed && v>>(uint(bits)-1) != 0 {
			return int64(v) - 1<<uint(bits)
		}
		return int64(v)
	}
	ta, tb := part(a, vc.asel, vc.at == ".s32"), part(b, vc.bsel, vc.bt == ".s32")
	var t int64
	switch vc.op {
	case "vadd":
		t = ta + tb
	case "vsub":
		t = ta - tb
	case "vabsdiff":
		t = ta - tb
		if t < 0 {
			t = -t
		}
	case "vshl":
		n := tb & 31
		if vc.mode == ".clamp" {
			n = min(tb, 32)
		}
		t = ta << uint(n)
	}
	if vc.sat {
		bits := 32
		if vc.dsel != "" {
			bits = map[byte]int{'b': 8, 'h': 16}[vc.dsel[1]]
		}
		lo, hi := int64(0), int64(1)<<uint(bits)-1
		if vc.dt == ".s32" {
			lo, hi = -1<<uint(bits-1), 1<<uint(bits-1)-1
		}
		t = max(lo, min(hi, t))
	}
	cx := int64(c)
	if vc.dt == ".s32" {
		cx = int64(int32(c))
	}
	switch {
	case vc.op2 == ".add":
		return uint32(t) + c
	case vc.op2 == ".min":
		return uint32(min(t, cx))
	case vc.op2 == ".max":
		return uint32(max(t, cx))
	case vc.dsel != "":
		bits, sh := 8, int(vc.dsel[2]-'0')*8
		if vc.dsel[1] == 'h' {
			bits, sh = 16, int(vc.dsel[2]-'0')*16
		}
		m := uint32(1)<<uint(bits) - 1
		return c&^(m<<uint(sh)) | (uint32(t)&m)<<uint(sh)
	}
	return uint32(t)
}

func videoCases() []videoCase {
	var cs []videoCase
	types := []string{".u32", ".s32"}
	for _, op := range []string{"vadd", "vsub", "vabsdiff"} {
		for _, dt := range types {
			for _, at := range types {
				for _, bt := range types {
					if op == "vabsdiff" && at == bt {
						continue // exact in 32 bits: not this path
					}
					for _, v := range []videoCase{
						{sat: true}, {op2: ".min"}, {op2: ".max"}, {sat: true, op2: ".add"},
						{sat: true, op2: ".min"}, {sat: true, dsel: ".h1"}, {sat: true, dsel: ".b2", asel: ".h0", bsel: ".b3"},
					} {
						v.op, v.dt, v.at, v.bt = op, dt, at, bt
						cs = append(cs, v)
					}
				}
			}
		}
	}
	for _, dt := range types {
		for _, mode := range []string{".clamp", ".wrap"} {
			for _, v := range []videoCase{{sat: true}, {op2: ".max"}, {sat: true, op2: ".min"}, {sat: true, dsel: ".h0"}} {
				v.op, v.dt, v.at, v.bt, v.mode = "vshl", dt, ".s32", ".u32", mode
				cs = append(cs, v)
			}
		}
	}
	return cs
}

// TestScalarVideoWide checks the scalar video forms whose intermediate
// exceeds 32 bits (vadd, vsub, vshl of a signed value, mixed vabsdiff)
// with .sat, .min/.max and merges, on 32 threads, against the manual's
// semantics computed in int64, at -O0 and -O3.
func TestScalarVideoWide(t *testing.T) {
	cs := videoCases()
	r := rand.New(rand.NewSource(3))
	special := []uint32{0, 0xffffffff, 0x80000000, 0x7fffffff, 1, 31, 32, 33, 0x8000, 0x7f}
	var in []byte
	var ops [][3]uint32
	for i := 0; i < 32; i++ {
		var v [3]uint32
		for k := range v {
			v[k] = r.Uint32()
			if r.Intn(2) == 0 {
				v[k] = special[r.Intn(len(special))]
			}
			in = append(in, byte(v[k]), byte(v[k]>>8), byte(v[k]>>16), byte(v[k]>>24))
		}
		ops = append(ops, v)
	}
	var want []uint64
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n")
	b.WriteString(".visible .entry simd(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %a, %b, %c, %d, %t;\n\t.reg .b64 %i, %o, %off;\n")
	b.WriteString("\tld.param.u64 %i, [pin];\n\tld.param.u64 %o, [pout];\n\tmov.u32 %t, %tid.x;\n")
	b.WriteString("\tmul.wide.u32 %off, %t, 12;\n\tadd.u64 %i, %i, %off;\n")
	b.WriteString("\tld.global.u32 %a, [%i];\n\tld.global.u32 %b, [%i+4];\n\tld.global.u32 %c, [%i+8];\n")
	b.WriteString("\tmul.wide.u32 %off, %t, 4;\n\tadd.u64 %o, %o, %off;\n")
	for j, vc := range cs {
		fmt.Fprintf(&b, "\tmov.u32 %%d, 0;\n\t%s\n\tst.global.u32 [%%o+%d], %%d;\n", vc.text(), 128*j)
		for i := 0; i < 32; i++ {
			want = append(want, uint64(vc.ref(ops[i][0], ops[i][1], ops[i][2])))
		}
	}
	b.WriteString("\tret;\n}\n")
	dir := t.TempDir()
	p := filepath.Join(dir, "video.ptx")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Name: "video", File: "video.json", Dir: dir, PTX: "video.ptx", PTXPath: p, Kernel: "simd",
		Launch: spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}},
		Params: []spec.Param{
			{Name: "in", Kind: spec.KindBuffer, Elem: "u32", Count: 96, InitHexLE: in},
			{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: 32 * len(cs), Init: "zero"},
		},
		Expect: []spec.Expect{{Param: "out", ParamIndex: 1, Elem: "u32", Count: 32 * len(cs), Values: want}},
	}
	for _, level := range []int{0, 3} {
		rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: level}})
		if err != nil {
			t.Fatalf("-O%d: %v", level, err)
		}
		for _, res := range rep.Results {
			for _, m := range res.First {
				vc := cs[m.Index/32]
				o := ops[m.Index%32]
				t.Errorf("-O%d: %s with a=%#x b=%#x c=%#x: got %#x, want %#x", level, vc.text(), o[0], o[1], o[2], m.Got, m.Want)
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
