package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// imadWideRun runs FoldIMADWide on a function and returns its text.
func imadWideRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := FoldIMADWide.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

const imadWideIn = `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r13.64 = %r2, 0x4, RZ ;
	#3 IADD3 %r14, %p3 = c[0x0][0x160], %r13, RZ ;
	#4 IADD3.X %r14[1] = c[0x0][0x164], %r13[1], RZ, %p3, !PT ;
	#5 STG.E [%r14.64], %r2 ;
	#6 EXIT ;
`

func TestIMADWideFold(t *testing.T) {
	got, changed := imadWideRun(t, loopKernel(imadWideIn))
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r2 = SR_TID.X ;
	#7 MOV %r15 = 0x4 ;
	#2 IMAD.WIDE.U32 %r14.64 = %r2, %r15, c[0x0][0x160] ;
	#5 STG.E [%r14.64], %r2 ;
	#6 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	// A register multiplier needs no MOV.
	reg := strings.Replace(imadWideIn, "%r2, 0x4, RZ", "%r2, %r2, RZ", 1)
	got, _ = imadWideRun(t, loopKernel(reg))
	if want := "#2 IMAD.WIDE.U32 %r14.64 = %r2, %r2, c[0x0][0x160] ;"; !strings.Contains(got, want) || strings.Contains(got, "MOV") {
		t.Errorf("register multiplier:\n%s\nwant %s and no MOV", got, want)
	}
	if _, changed := imadWideRun(t, loopKernel(imadWideIn), "DisableIMADWideFold=1"); changed {
		t.Error("folded with DisableIMADWideFold")
	}
}

func TestIMADWideFoldRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"low word read elsewhere", "#5 STG.E [%r14.64], %r2 ;", "#5 STG.E [%r14.64], %r13 ;"},
		{"carry read elsewhere", "#6 EXIT ;", "#7 @%p3 EXIT ;\n\t#6 EXIT ;"},
		{"not the next word", "c[0x0][0x164]", "c[0x0][0x168]"},
		{"other bank", "c[0x0][0x164]", "c[0x3][0x164]"},
		{"guarded add", "#3 IADD3", "#3 @%p3 IADD3"},
		{"addend not RZ", "%r2, 0x4, RZ", "%r2, 0x4, %r2.64"},
		{"source rewritten in between", "#3 IADD3", "#8 S2R %r2 = SR_TID.Y ;\n\t#3 IADD3"},
	} {
		in := strings.Replace(imadWideIn, tc.from, tc.to, 1)
		if in == imadWideIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if changed, err := FoldIMADWide.Run(f, &Context{OptLevel: 3, Arch: 80}); err != nil || changed {
			t.Errorf("%s: changed=%v err=%v\n%s", tc.name, changed, err, f)
		}
	}
}
