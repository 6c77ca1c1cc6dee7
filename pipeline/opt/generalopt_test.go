package opt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func goFunc(body string) string {
	return ".entry k\n.shared 0x0\n.local 0x0\n{\n" + body + "}\n"
}

// runGO parses in, runs the named registered pass and returns the text.
func runGO(t *testing.T, pass, in string) (string, bool) {
	t.Helper()
	return applyPass(t, pass, in, passRun{})
}

func goCanon(t *testing.T, s string) string {
	t.Helper()
	f, err := ori.ParseFunc("want.ori", []byte(s))
	if err != nil {
		t.Fatalf("parse want: %v", err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	return f.String()
}

func TestGeneralOptimizeCases(t *testing.T) {
	cases := []struct {
		name, pass, in, want string
	}{
		{
			name: "copy prop: register, constant bank and immediate",
			pass: "OriCopyProp",
			in: `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 MOV %r1 = %r2 ;
	#3 MOV %r3 = c[0x0][0x0] ;
	#4 MOV %r4 = 0x7 ;
	#5 IMAD %r6 = %r1, %r3, %r4 ;
	#6 STS [%r1], %r6 ;
	#7 EXIT ;
`,
			want: `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 MOV %r1 = %r2 ;
	#3 MOV %r3 = c[0x0][0x0] ;
	#4 MOV %r4 = 0x7 ;
	#5 IMAD %r6 = %r2, c[0x0][0x0], 0x7 ;
	#6 STS [%r2], %r6 ;
	#7 EXIT ;
`,
		},
		{
			// IADD3 encodes one immediate or constant addend: the
			// constant stays in %r1 rather than coming back at
			// PostFixForMercTargets as a MOV of its own; the immediate
			// goes into the IADD3 that has none.
			name: "copy prop: no second immediate or constant in an IADD3",
			pass: "OriCopyProp",
			in: `BB0:
	#1 MOV %r1 = c[0x0][0x178] ;
	#2 MOV %r2 = 0x10 ;
	#3 IADD3 %r3 = %r1, 0x10, RZ ;
	#4 IADD3 %r4 = %r3, %r2, RZ ;
	#5 STS [%r3], %r4 ;
	#6 EXIT ;
`,
			want: `BB0:
	#1 MOV %r1 = c[0x0][0x178] ;
	#2 MOV %r2 = 0x10 ;
	#3 IADD3 %r3 = %r1, 0x10, RZ ;
	#4 IADD3 %r4 = %r3, 0x10, RZ ;
	#5 STS [%r3], %r4 ;
	#6 EXIT ;
`,
		},
		{
			name: "copy prop: source redefined, modifiers, guarded copy",
			pass: "OriCopyProp",
			in: `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 MOV %r1 = %r2 ;
	#3 MOV %r5 = 0x3 ;
	#4 IADD3 %r6 = -%r5, %r1, RZ ;
	#5 S2R %r2 = SR_LANEID ;
	#6 IADD3 %r7 = %r1, %r6, RZ ;
	#7 ISETP.EQ.AND %p0, PT = %r2, 0x0, PT ;
	#8 @%p0 MOV %r8 = %r2 ;
	#9 IADD3 %r9 = %r8, %r7, RZ ;
	#10 EXIT ;
`,
			want: `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 MOV %r1 = %r2 ;
	#3 MOV %r5 = 0x3 ;
	#4 IADD3 %r6 = -%r5, %r2, RZ ;
	#5 S2R %r2 = SR_LANEID ;
	#6 IADD3 %r7 = %r1, %r6, RZ ;
	#7 ISETP.EQ.AND %p0, PT = %r2, 0x0, PT ;
	#8 @%p0 MOV %r8 = %r2 ;
	#9 IADD3 %r9 = %r8, %r7, RZ ;
	#10 EXIT ;
`,
		},
		{
			name: "copy prop: loop-carried redefinition is not available at the header",
			pass: "OriCopyProp",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = %r0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 IADD3 %r3 = %r1, %r2, RZ ;
	#5 IADD3 %r1 = %r1, 0x1, RZ ;
	#6 ISETP.LT.AND %p0, PT = %r1, 0x10, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 STS [%r3], %r2 ;
	#9 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = %r0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 IADD3 %r3 = %r1, 0x0, RZ ;
	#5 IADD3 %r1 = %r1, 0x1, RZ ;
	#6 ISETP.LT.AND %p0, PT = %r1, 0x10, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 STS [%r3], %r2 ;
	#9 EXIT ;
`,
		},
		{
			name: "copy prop: word copies rebuild a tuple, immediates stay out of .64 slots",
			pass: "OriCopyProp",
			in: `BB0:
	#1 MOV %r8 = c[0x0][0x160] ;
	#2 MOV %r8[1] = c[0x0][0x164] ;
	#3 MOV %r9 = %r8 ;
	#4 MOV %r9[1] = %r8[1] ;
	#5 LDG.E %r10 = [%r9.64] ;
	#6 MOV %r11 = 0x0 ;
	#7 MOV %r11[1] = RZ ;
	#8 IMAD.WIDE.U32 %r12.64 = %r10, 0x4, %r11.64 ;
	#9 STG.E [%r9.64], %r12 ;
	#10 EXIT ;
`,
			want: `BB0:
	#1 MOV %r8 = c[0x0][0x160] ;
	#2 MOV %r8[1] = c[0x0][0x164] ;
	#3 MOV %r9 = c[0x0][0x160] ;
	#4 MOV %r9[1] = c[0x0][0x164] ;
	#5 LDG.E %r10 = [%r8.64] ;
	#6 MOV %r11 = 0x0 ;
	#7 MOV %r11[1] = RZ ;
	#8 IMAD.WIDE.U32 %r12.64 = %r10, 0x4, %r11.64 ;
	#9 STG.E [%r8.64], %r12 ;
	#10 EXIT ;
`,
		},
		{
			name: "bundle: folding, ISETP to PLOP3, 64-bit add of zero",
			pass: "GeneralOptimizeEarly",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = 0x3, 0x4, -0x1 ;
	#3 IMAD %r2 = %r1, 0x2, 0x1 ;
	#4 LOP3.LUT %r3 = %r2, 0xf0, RZ, 0xc0, !PT ;
	#5 SHF.L.U32 %r4 = %r3, 0x2, RZ ;
	#6 ISETP.GT.AND %p0, PT = %r4, 0x20, PT ;
	#7 SEL %r5 = %r0, %r4, %p0 ;
	#8 IMAD %r6 = %r0, 0x1, RZ ;
	#9 LOP3.LUT %r7 = %r6, RZ, RZ, 0xfc, !PT ;
	#10 SHF.R.U32.HI %r8 = RZ, 0x0, %r7 ;
	#11 STS [%r8], %r5 ;
	#12 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x6 ;
	#3 MOV %r2 = 0xd ;
	#4 MOV %r3 = 0x0 ;
	#5 MOV %r4 = 0x0 ;
	#6 PLOP3.LUT %p0, PT = PT, PT, PT, 0x0, 0xff ;
	#7 MOV %r5 = 0x0 ;
	#8 MOV %r6 = %r0 ;
	#9 MOV %r7 = %r0 ;
	#10 MOV %r8 = %r0 ;
	#11 STS [%r0], %r5 ;
	#12 EXIT ;
`,
		},
		{
			name: "bundle: constant predicates reach guards, SEL and carry-ins",
			pass: "GeneralOptimize",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x5 ;
	#3 ISETP.LT.AND %p0, %p1 = %r1, 0x10, PT ;
	#4 SEL %r2 = %r0, 0x7, %p0 ;
	#5 @%p1 MOV %r3 = 0x1 ;
	#6 @!%p1 MOV %r3 = %r0 ;
	#7 IADD3.X %r4 = %r3, %r2, RZ, %p1, !PT ;
	#8 STS [%r4], %r2 ;
	#9 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x5 ;
	#3 PLOP3.LUT %p0, %p1 = PT, PT, PT, 0xff, 0x0 ;
	#4 MOV %r2 = %r0 ;
	#5 @!PT MOV %r3 = 0x1 ;
	#6 MOV %r3 = %r0 ;
	#7 IADD3 %r4 = %r0, %r0, RZ ;
	#8 STS [%r4], %r0 ;
	#9 EXIT ;
`,
		},
		{
			name: "bundle: IMAD.WIDE whose high word is unread becomes IMAD",
			pass: "GeneralOptimizeMid",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r1.64 = %r0, 0x4, RZ ;
	#3 IMAD.WIDE %r2.64 = %r0, 0x4, c[0x0][0x160] ;
	#4 STS [%r1], %r0 ;
	#5 STG.E [%r2.64], %r0 ;
	#6 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IMAD %r1 = %r0, 0x4, RZ ;
	#3 IMAD.WIDE %r2.64 = %r0, 0x4, c[0x0][0x160] ;
	#4 STS [%r1], %r0 ;
	#5 STG.E [%r2.64], %r0 ;
	#6 EXIT ;
`,
		},
		{
			// The carry is known false, so the high half becomes a copy;
			// the low IADD3 keeps %p3 until dead-code elimination drops it.
			name: "bundle: 64-bit add of a zero base",
			pass: "GeneralOptimizeLate",
			in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r16.64 = %r0, 0x4, RZ ;
	#3 MOV %r18 = 0x0 ;
	#4 MOV %r18[1] = RZ ;
	#5 MOV %r17 = %r18 ;
	#6 MOV %r17[1] = %r18[1] ;
	#7 IADD3 %r19, %p3 = %r17, %r16, RZ ;
	#8 IADD3.X %r19[1] = %r17[1], %r16[1], RZ, %p3, !PT ;
	#9 STG.E [%r19.64], %r0 ;
	#10 EXIT ;
`,
			want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r16.64 = %r0, 0x4, RZ ;
	#3 MOV %r18 = 0x0 ;
	#4 MOV %r18[1] = RZ ;
	#5 MOV %r17 = 0x0 ;
	#6 MOV %r17[1] = RZ ;
	#7 IADD3 %r19, %p3 = 0x0, %r16, RZ ;
	#8 MOV %r19[1] = %r16[1] ;
	#9 STG.E [%r19.64], %r0 ;
	#10 EXIT ;
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := runGO(t, c.pass, goFunc(c.in))
			want := goCanon(t, goFunc(c.want))
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if !changed {
				t.Errorf("pass reported no change")
			}
		})
	}
}

// TestFoldMatchesSemantics checks folded values against hand-computed
// results of the simulator's semantics.
func TestFoldValues(t *testing.T) {
	cases := []struct{ in, want string }{
		{"IADD3 %r0 = -0x1, 0x5, !RZ", "MOV %r0 = 0x3"},
		{"IADD3.X %r0 = 0x1, 0x2, RZ, PT, !PT", "MOV %r0 = 0x4"},
		{"IMAD.HI.U32 %r0 = -0x1, 0x10, 0x1", "MOV %r0 = 0x10"},
		{"IMAD.HI %r0 = -0x1, 0x10, 0x1", "MOV %r0 = 0x0"},
		{"IMAD.SHL %r0 = 0x3, 0x4, 0x1", "MOV %r0 = 0x31"},
		{"SHF.R.S32.HI %r0 = RZ, 0x1f, -0x8", "MOV %r0 = -0x1"},
		{"SHF.L.U64.HI %r0 = -0x1, 0x4, RZ", "MOV %r0 = 0xf"},
		{"SHF.R.U32.HI %r0 = RZ, 0x40, -0x1", "MOV %r0 = 0x0"},
		{"SHF.L.W.U32 %r0 = 0x1, 0x21, RZ", "MOV %r0 = 0x2"},
		{"LOP3.LUT %r0 = 0xf0, 0x3c, 0xff, 0x96, !PT", "MOV %r0 = 0x33"},
		{"IMNMX.U32 %r0 = -0x1, 0x2, PT", "MOV %r0 = 0x2"},
		{"IMNMX %r0 = -0x1, 0x2, PT", "MOV %r0 = -0x1"},
		{"FLO.U32 %r0 = 0x10", "MOV %r0 = 0x4"},
		{"FLO.U32.SH %r0 = 0x10", "MOV %r0 = 0x1b"},
		{"POPC %r0 = 0xff", "MOV %r0 = 0x8"},
		{"BREV %r0 = 0x1", "MOV %r0 = -0x80000000"},
		{"BMSK %r0 = 0x4, 0x3", "MOV %r0 = 0x70"},
		{"SGXT %r0 = 0xff, 0x8", "MOV %r0 = -0x1"},
		{"SGXT.U32 %r0 = 0x1ff, 0x8", "MOV %r0 = 0xff"},
		{"PRMT %r0 = 0x44332211, 0x5410, 0x88776655", "MOV %r0 = 0x66552211"},
		{"PRMT %r0 = 0x80, 0x8880, RZ", "MOV %r0 = -0x80"},
		{"LEA %r0 = 0x3, 0x1, 0x4", "MOV %r0 = 0x31"},
		{"IABS %r0 = -0x5", "MOV %r0 = 0x5"},
	}
	for _, c := range cases {
		in := goFunc("BB0:\n\t#1 " + c.in + " ;\n\t#2 STS [RZ], %r0 ;\n\t#3 EXIT ;\n")
		want := goFunc("BB0:\n\t#1 " + c.want + " ;\n\t#2 STS [RZ], %r0 ;\n\t#3 EXIT ;\n")
		f, err := ori.ParseFunc("k.ori", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !constFold(f, nil) {
			t.Errorf("%s: not folded", c.in)
			continue
		}
		if got, w := f.String(), goCanon(t, want); got != w {
			t.Errorf("%s: got\n%s\nwant\n%s", c.in, got, w)
		}
	}
}

// TestFoldShiftedOut: an unsigned SHF whose result word receives no bit
// of its unknown sources is 0 (shl.b64 by 65 of a loaded value, which
// ptxas stores as RZ); a signed right shift and a word that keeps bits
// stay.
func TestFoldShiftedOut(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"SHF.L.U64.HI %r0 = %r1, 0x40, %r1", true},
		{"SHF.L.U32 %r0 = %r1, 0x40, RZ", true},
		{"SHF.L.U64 %r0 = %r1, 0x20, %r1", true},
		{"SHF.R.U64 %r0 = %r1, 0x41, %r1", true},
		{"SHF.R.U32.HI %r0 = RZ, 0x20, %r1", true},
		{"SHF.L.U64.HI %r0 = %r1, 0x3f, %r1", false},
		{"SHF.L.U32.HI %r0 = %r1, 0x20, %r1", false},
		{"SHF.R.S64 %r0 = %r1, 0x40, %r1", false},
		{"SHF.R.S32.HI %r0 = RZ, 0x20, %r1", false},
		{"SHF.L.W.U32 %r0 = %r1, 0x41, RZ", false},
	} {
		in := goFunc("BB0:\n\t#1 S2R %r1 = SR_TID.X ;\n\t#2 " + c.in + " ;\n\t#3 STS [RZ], %r0 ;\n\t#4 EXIT ;\n")
		f, err := ori.ParseFunc("k.ori", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		folded := constFold(f, nil)
		if folded != c.want {
			t.Errorf("%s: folded %v, want %v:\n%s", c.in, folded, c.want, f)
			continue
		}
		if folded && !strings.Contains(f.String(), "#2 MOV %r0 = 0x0 ;") {
			t.Errorf("%s: folded to\n%s", c.in, f)
		}
	}
}

// TestGeneralOptimizeChangesKernels lowers the sample and the testdata
// kernels and checks that the bundle changes some of them and keeps them
// valid.
func TestGeneralOptimizeChangesKernels(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "*.ptx"))
	files = append(files, filepath.Join("..", "..", "testdata", "sample", "sample.ptx"))
	changedFuncs := 0
	p, _ := passByPhase("GeneralOptimizeEarly")
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := ptx.Parse(path, src)
		if err != nil {
			continue
		}
		m, err := lower.Lower(pm, lower.Options{})
		if err != nil {
			continue
		}
		for _, f := range m.Funcs {
			if err := f.ComputeCFG(); err != nil {
				t.Fatal(err)
			}
			changed, err := p.Run(f, &Context{OptLevel: 3, Arch: m.Arch, Module: m})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
				t.Fatalf("%s %s: does not verify after the bundle: %v", path, f.Name, err)
			}
			if changed {
				changedFuncs++
			}
			// A second run must find nothing left to do (fixed point).
			if again, _ := p.Run(f, &Context{OptLevel: 3, Arch: m.Arch, Module: m}); again {
				t.Errorf("%s %s: the bundle did not reach a fixed point", path, f.Name)
			}
		}
	}
	if changedFuncs == 0 {
		t.Fatal("the bundle changed no testdata function")
	}
	t.Logf("the bundle changed %d functions", changedFuncs)
}

// TestCopyPropSettled: a copy-propagation run that rewrote only
// instructions making no copies says a second run would change nothing
// (and one does not); a run that rewrote a MOV's source, which makes a
// new copy for the next run, does not say so.
func TestCopyPropSettled(t *testing.T) {
	cases := []struct {
		name, body  string
		wantSettled bool
	}{
		{"uses only", `	#1 S2R %r2 = SR_TID.X ;
	#2 MOV %r1 = %r2 ;
	#3 MOV %r4 = 0x7 ;
	#4 IMAD %r6 = %r1, %r4, %r1 ;
	#5 STS [%r1], %r6 ;
	#6 EXIT ;
`, true},
		{"a MOV's source", `	#1 S2R %r2 = SR_TID.X ;
	#2 MOV %r1 = %r2 ;
	#3 MOV %r5 = %r1 ;
	#4 STS [%r5], %r5 ;
	#5 EXIT ;
`, false},
	}
	for _, c := range cases {
		f, err := ori.ParseFunc("k.ori", []byte(goFunc("BB0:\n"+c.body)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		changed, settled := copyProp(f, nil, true)
		if !changed || settled != c.wantSettled {
			t.Errorf("%s: changed %v settled %v, want true %v", c.name, changed, settled, c.wantSettled)
		}
		if again, _ := copyProp(f, nil, true); settled && again {
			t.Errorf("%s: a second run after a settled one changed\n%s", c.name, f)
		}
	}
}
