package sass

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestGolden renders every testdata/*.ori module and compares it with the
// .sass file beside it. Run with -update to rewrite the goldens.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.ori"))
	if len(files) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".ori")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ori.ParseModule(file, src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Text(m, 0)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(file, ".ori") + ".sass"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file:\n%s", name, got)
			}
		})
	}
}

func TestFloatText(t *testing.T) {
	f32 := func(bits uint32) string {
		return immText(ori.Operand{Kind: ori.OpdImm, Imm: int64(bits), FKind: ori.ImmF32})
	}
	cases := []struct {
		bits uint32
		want string
	}{
		{0x3f800000, "1"},
		{0xbf000000, "-0.5"},
		{0x3e22f983, "0.15915493667125701904"},
		{0x3fb8aa3b, "1.4426950216293334961"},
		{0x00800000, "1.175494350822287508e-38"},
		{0x4b800000, "16777216"},
		{0x7f800000, "+INF"},
		{0xff800000, "-INF"},
		{0x7fc00000, "+QNAN"},
		{0xffc00000, "-QNAN"},
		{0x7f800001, "+SNAN"},
		{0x00000000, "0"},
		{0x80000000, "-0"},
	}
	for _, c := range cases {
		if got := f32(c.bits); got != c.want {
			t.Errorf("f32 %#08x = %s, want %s", c.bits, got, c.want)
		}
	}
	f64 := ori.F64(0.1)
	if got := immText(f64); got != "0.10000000000000000555" {
		t.Errorf("f64 0.1 = %s", got)
	}
	if got := immText(ori.F64(math.Inf(-1))); got != "-INF" {
		t.Errorf("f64 -inf = %s", got)
	}
	// nvdisasm switches to 21 digits in exponent form at 1e16.
	for _, c := range []struct {
		f    float64
		want string
	}{
		{1e300, "1.00000000000000005250e+300"},
		{18446744073709551616, "1.84467440737095516160e+19"},
		{float64(math.MaxFloat32), "3.40282346638528859812e+38"},
		{1e15, "1000000000000000"},
		{1e16, "1.00000000000000000000e+16"},
		{-1e17, "-1.00000000000000000000e+17"},
	} {
		if got := immText(ori.F64(c.f)); got != c.want {
			t.Errorf("f64 %g = %s, want %s", c.f, got, c.want)
		}
	}
}

func TestTextErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{"\t#1 MOV R1 = c[0x0][0x28] ;\n\t#2 IADD3 R4 = %r3, 0x1, RZ ;\n\t#3 EXIT ;\n",
			"sass: k BB0 #2: operand %r3 is a virtual register; SASS text needs allocated code"},
		{"\t#1 @%p0 EXIT ;\n",
			"sass: k BB0 #1: the guard %p0 is a virtual register; SASS text needs allocated code"},
		{"\t#1 MOV.PHI R4 = R5, BB0 ;\n\t#2 EXIT ;\n",
			"sass: k BB0 #1: MOV.PHI is a pseudo instruction with no SASS form; it must be expanded before emission"},
		{"\t#1 STG.E [%r2.64], R4 ;\n\t#2 EXIT ;\n",
			"sass: k BB0 #1: operand [%r2.64] is a virtual register; SASS text needs allocated code"},
	}
	for _, c := range cases {
		f, err := ori.ParseFunc("k.ori", []byte(".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n"+c.body+"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = FuncText(f, 75)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
		m := &ori.Module{Arch: 75, AddressSize: 64, Funcs: []*ori.Func{f}}
		if _, err := Text(m, 0); err == nil || err.Error() != c.want {
			t.Errorf("Text: got %v\nwant %s", err, c.want)
		}
	}
}

// TestFuncTextLabels numbers labels from 0 in each FuncText, and across
// the module in Text.
func TestFuncTextLabels(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "call.ori"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ori.ParseModule("call.ori", src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FuncText(m.Func("k"), 86)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".L_x_0:\n        /*0070*/                   MOV R4, R0 ;\n",
		"        /*0010*/                   S2R R0, SR_TID.X ;\n",
		"        /*0030*/                   BSSY B0, `(.L_x_1) ;\n",
		"        /*0050*/              @P0  BRA `(.L_x_0) ;\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("FuncText lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, ".headerflags") {
		t.Errorf("FuncText printed the module header:\n%s", got)
	}
}

// TestModuleLabels numbers labels across the functions of a module.
func TestModuleLabels(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "vecadd.ori"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ori.ParseModule("vecadd.ori", src)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Funcs[0].Clone()
	g.Name = "again"
	m.Funcs = append(m.Funcs, g)
	got, err := Text(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "again:\n.text.again:\n") || !strings.Contains(got, "@!P1  BRA `(.L_x_1) ;") || strings.Count(got, ".L_x_0:") != 1 {
		t.Errorf("labels are not numbered across the module:\n%s", got)
	}
}

// TestSpell: the printer writes Ori instructions as nvdisasm 13.5 prints
// the words they encode to (each want is nvdisasm's text for the word).
func TestSpell(t *testing.T) {
	cases := []struct {
		arch     int
		in, want string
	}{
		{80, "I2F.F32.S32.RN R4 = R4", "I2F R4, R4 ;"},
		{80, "I2F.F32.U32.RN R7 = R15", "I2F.U32 R7, R15 ;"},
		{80, "I2F.F32.U32.RP R7 = R15", "I2F.U32.RP R7, R15 ;"},
		{80, "I2F.F64.S32.RN R4.64 = R4", "I2F.F64 R4, R4 ;"},
		{80, "F2I.S32.F64.TRUNC R4 = R28.64", "F2I.F64.TRUNC R4, R28 ;"},
		{80, "F2I.U32.F32.TRUNC R4 = R33", "F2I.U32.TRUNC R4, R33 ;"},
		{80, "F2I.S32.F32.FTZ.CEIL R4 = R4", "F2I.FTZ.CEIL R4, R4 ;"},
		{80, "F2F.F32.F64.RN R4 = R4.64", "F2F.F32.F64 R4, R4 ;"},
		{80, "F2F.F64.F32 R12.64 = 0f3F800000", "F2F.F64.F32 R12, 1 ;"},
		{80, "FRND.F64.RM R4.64 = R6.64", "FRND.F64.FLOOR R4, R6 ;"},
		{80, "FCHK.DIVIDE P0 = R4, R5", "FCHK P0, R4, R5 ;"},
		{80, "MEMBAR.GPU", "MEMBAR.SC.GPU ;"},
		{80, "LDG.E.STRONG.GPU.64 R4.64 = [R2.64]", "LDG.E.64.STRONG.GPU R4, [R2.64] ;"},
		{80, "ATOMG.E.ADD.U32.STRONG.GPU R6 = [R2.64], R4", "ATOMG.E.ADD.STRONG.GPU PT, R6, [R2.64], R4 ;"},
		{80, "LDS R9 = [0x0]", "LDS R9, [RZ] ;"},
		{80, "ATOMG.E.CAS.U32.STRONG.GPU R9 = [R4.64+0xc], R2, R3", "ATOMG.E.CAS.STRONG.GPU PT, R9, [R4+0xc], R2, R3 ;"},
		{80, "LDC R5 = c[0x0][0x0]", "LDC R5, c[0x0][RZ] ;"},
		{80, "MOV R5 = -0x1", "MOV R5, 0xffffffff ;"},
		{80, "SEL R5 = RZ, -0x40, P0", "SEL R5, RZ, 0xffffffc0, P0 ;"},
		{80, "IADD3 R1 = R1, -0x10, RZ", "IADD3 R1, R1, -0x10, RZ ;"},
		{80, "IADD3 R5, PT = R4, c[0x0][0x160], RZ", "IADD3 R5, R4, c[0x0][0x160], RZ ;"},
		{80, "FMUL R14 = R4, 0x40c90fdb", "FMUL R14, R4, 6.2831854820251464844 ;"},
		{80, "DMUL R4.64 = R18.64, 0d43F0000000000000", "DMUL R4, R18, 1.84467440737095516160e+19 ;"},
		{80, "IMAD R5 = R4, 0x4, RZ", "IMAD.SHL R5, R4, 0x4, RZ ;"},
		{80, "IMAD.SHL.U32 R5 = R4, 0x2, RZ", "IMAD.SHL.U32 R5, R4, 0x4, RZ ;"},
		{80, "IMAD.SHL R5 = R4, 0x2, R6", "IMAD R5, R4, 0x4, R6 ;"},
		{80, "IMAD.U32 R5 = RZ, RZ, R6", "IMAD.MOV.U32 R5, RZ, RZ, R6 ;"},
		{80, "IMAD R5 = R4, 0x1, R6", "IMAD.IADD R5, R4, 0x1, R6 ;"},
		{80, "WARPSYNC -0x1", "WARPSYNC 0xffffffff ;"},
		{90, "WARPSYNC -0x1", "WARPSYNC.ALL ;"},
		{75, "LDG.E R2 = [R2.64]", "LDG.E.SYS R2, [R2] ;"},
		{75, "STG.E.64 [R2.64+0x8], R4.64", "STG.E.64.SYS [R2+0x8], R4 ;"},
		{75, "LDG.E.STRONG.GPU R2 = [R2.64]", "LDG.E.STRONG.GPU R2, [R2] ;"},
		{80, "LDG.E R2 = [R2.64]", "LDG.E R2, [R2.64] ;"},
		{80, "F2FP.BF16.PACK_AB R4 = R5, R0", "F2FP.BF16.PACK_AB R4, R5, R0 ;"},
		{90, "F2FP.BF16.PACK_AB R4 = R5, R0", "F2FP.BF16.F32.PACK_AB R4, R5, R0 ;"},
		{89, "F2FP.PACK_AB R4 = R5, R0", "F2FP.F16.F32.PACK_AB R4, R5, R0 ;"},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.in+" ;\n")
		got, err := InstTexts(f, c.arch, 0)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got[0] != c.want {
			t.Errorf("sm_%d %s: %s, want %s", c.arch, c.in, got[0], c.want)
		}
	}
}
