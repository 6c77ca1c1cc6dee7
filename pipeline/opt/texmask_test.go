package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// texMaskRun runs NarrowTexMasks on a kernel body and returns its text.
func texMaskRun(t *testing.T, body string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := NarrowTexMasks.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// texMaskIn fetches into %r10.64 (components 0, 1) and %r9.64 (2, 3);
// READS stands for the instructions that read them.
const texMaskIn = `BB0:
	#1 MOV %r2 = c[0x0][0x160] ;
	#2 MOV %r2[1] = c[0x0][0x164] ;
	#3 MOV %r4 = c[0x0][0x168] ;
	#4 MOV %r4[1] = RZ ;
	#5 MOV %r5 = 0xc2000000 ;
	#6 TEX.SCR.LL.2D %r9.64, %r10.64 = %r4.64, %r5, 0x0, 0x5b ;
READS	#20 EXIT ;
`

func TestNarrowTexMasks(t *testing.T) {
	for _, tc := range []struct {
		name, reads string
		want        []string
	}{
		// One component: Rd is one fresh word, Rd2 RZ.
		{"y", "\t#7 STG.E [%r2.64], %r10[1] ;\n",
			[]string{"#6 TEX.SCR.LL.2D.0x2 RZ, %r11 = %r4.64, %r5, 0x0, 0x5b ;", "#7 STG.E [%r2.64], %r11 ;"}},
		// Two: packed in order into a fresh pair.
		{"x z", "\t#7 STG.E [%r2.64], %r10 ;\n\t#8 STG.E [%r2.64+0x8], %r9 ;\n",
			[]string{"#6 TEX.SCR.LL.2D.0x5 RZ, %r11.64 = %r4.64, %r5, 0x0, 0x5b ;", "#7 STG.E [%r2.64], %r11 ;", "#8 STG.E [%r2.64+0x8], %r11[1] ;"}},
		// Three: the third in a one-word Rd2.
		{"x y w", "\t#7 STG.E [%r2.64], %r10 ;\n\t#8 STG.E [%r2.64+0x4], %r10[1] ;\n\t#9 FADD %r3 = %r9[1], -%r10 ;\n",
			[]string{"#6 TEX.SCR.LL.2D.0xb %r12, %r11.64 = %r4.64, %r5, 0x0, 0x5b ;", "#8 STG.E [%r2.64+0x4], %r11[1] ;", "#9 FADD %r3 = %r12, -%r11 ;"}},
		// Components 0 and 1 alone: Rd stays, Rd2 goes.
		{"x y", "\t#7 STG.E [%r2.64], %r10 ;\n\t#8 STG.E [%r2.64+0x4], %r10[1] ;\n",
			[]string{"#6 TEX.SCR.LL.2D.0x3 RZ, %r11.64 = %r4.64, %r5, 0x0, 0x5b ;", "#8 STG.E [%r2.64+0x4], %r11[1] ;"}},
	} {
		got, changed := texMaskRun(t, strings.Replace(texMaskIn, "READS", tc.reads, 1))
		if !changed {
			t.Errorf("%s: unchanged\n%s", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, got)
			}
		}
	}
	y := strings.Replace(texMaskIn, "READS", "\t#7 STG.E [%r2.64], %r10[1] ;\n", 1)
	if _, changed := texMaskRun(t, y, "DisableTexMaskNarrowing=1"); changed {
		t.Error("narrowed with DisableTexMaskNarrowing")
	}
	// A masked fetch is left alone: the pass is idempotent.
	got, _ := texMaskRun(t, y)
	if again, changed := texMaskRun(t, got[strings.Index(got, "BB0"):strings.LastIndex(got, "}")]); changed {
		t.Errorf("narrowed twice:\n%s", again)
	}
}

func TestNarrowTexMasksRefuses(t *testing.T) {
	for _, tc := range []struct{ name, reads string }{
		{"all four read", "\t#7 STG.E.64 [%r2.64], %r10.64 ;\n\t#8 STG.E [%r2.64+0x8], %r9 ;\n\t#9 STG.E [%r2.64+0xc], %r9[1] ;\n"},
		{"a pair read whole", "\t#7 STG.E.64 [%r2.64], %r10.64 ;\n"},
		{"nothing read", "\t#7 STG.E [%r2.64], %r2 ;\n"},
		{"result written elsewhere", "\t#7 MOV %r10[1] = RZ ;\n\t#8 STG.E [%r2.64], %r10 ;\n"},
	} {
		in := strings.Replace(texMaskIn, "READS", tc.reads, 1)
		if got, changed := texMaskRun(t, in); changed {
			t.Errorf("%s: narrowed\n%s", tc.name, got)
		}
	}
}
