package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

const leaIn = `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 SHF.L.U32 %r3 = %r2, 0x2, RZ ;
	#3 IADD3 %r4 = c[0x0][0x160], %r3, RZ ;
	#4 STG.E [R4.64], %r4 ;
	#5 EXIT ;
`

func leaRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := FoldLEA.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

func TestLEAFold(t *testing.T) {
	got, changed := leaRun(t, leaIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r2 = SR_TID.X ;
	#3 LEA %r4 = %r2, c[0x0][0x160], 0x2 ;
	#4 STG.E [R4.64], %r4 ;
	#5 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	// IMAD.SHL, a register addend, a PT carry result.
	in := strings.Replace(leaIn, "#2 SHF.L.U32 %r3 = %r2, 0x2, RZ", "#2 IMAD.SHL %r3 = %r2, 0x3, RZ", 1)
	in = strings.Replace(in, "#3 IADD3 %r4 = c[0x0][0x160], %r3, RZ", "#3 IADD3 %r4, PT = %r3, %r2, RZ", 1)
	if got, _ := leaRun(t, in); !strings.Contains(got, "#3 LEA %r4 = %r2, %r2, 0x3 ;") || strings.Contains(got, "IMAD") {
		t.Errorf("IMAD.SHL with a register addend:\n%s", got)
	}
	if _, changed := leaRun(t, leaIn, "DisableLEAFold=1"); changed {
		t.Error("folded with DisableLEAFold")
	}
	for _, tc := range []struct{ name, from, to string }{
		{"shift read twice", "#4 STG.E [R4.64], %r4 ;", "#4 STG.E [R4.64], %r3 ;"},
		{"carry used", "#3 IADD3 %r4 =", "#3 IADD3 %r4, %p1 ="},
		{"shift by a register", "%r2, 0x2, RZ", "%r2, %r2, RZ"},
		{"negated", "c[0x0][0x160], %r3, RZ", "c[0x0][0x160], -%r3, RZ"},
		{"source rewritten", "#3 IADD3", "#6 S2R %r2 = SR_TID.Y ;\n\t#3 IADD3"},
		{"guarded shift", "#2 SHF", "#2 @P0 SHF"},
	} {
		in := strings.Replace(leaIn, tc.from, tc.to, 1)
		if in == leaIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if changed, err := FoldLEA.Run(f, &Context{OptLevel: 3, Arch: 80}); err != nil || changed {
			t.Errorf("%s: changed=%v err=%v\n%s", tc.name, changed, err, f)
		}
	}
}
