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
	if got := immText(ori.F64(1e300)); got != "1.0000000000000000525e+300" {
		t.Errorf("f64 1e300 = %s", got)
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
