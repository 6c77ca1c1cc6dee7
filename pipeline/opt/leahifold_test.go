package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// leaHIRun runs FoldLEAHI on a kernel and returns its text.
func leaHIRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := FoldLEAHI.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

const leaHIIn = `BB0:
	#1 S2R %r3 = SR_TID.X ;
	#2 IADD3 %r5, %p0 = %r3, c[0x0][0x168], RZ ;
	#3 IADD3.X %r5[1] = RZ, c[0x0][0x16c], RZ, %p0, !PT ;
	#4 SHF.L.U64.HI %r7[1] = %r5, 0x2, %r5[1] ;
	#5 SHF.L.U32 %r7 = %r5, 0x2, RZ ;
	#6 IADD3 %r8, %p1 = c[0x0][0x160], %r7, RZ ;
	#7 IADD3.X %r8[1] = c[0x0][0x164], %r7[1], RZ, %p1, !PT ;
	#8 STG.E [%r8.64], %r3 ;
	#9 EXIT ;
`

func TestLEAHIFold(t *testing.T) {
	got, changed := leaHIRun(t, leaHIIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r3 = SR_TID.X ;
	#2 IADD3 %r5, %p0 = %r3, c[0x0][0x168], RZ ;
	#3 IADD3.X %r5[1] = RZ, c[0x0][0x16c], RZ, %p0, !PT ;
	#6 LEA %r8, %p1 = %r5, c[0x0][0x160], 0x2 ;
	#7 LEA.HI.X %r8[1] = %r5, c[0x0][0x164], %r5[1], 0x2, %p1 ;
	#8 STG.E [%r8.64], %r3 ;
	#9 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if _, changed := leaHIRun(t, leaHIIn, "DisableLEAHIFold=1"); changed {
		t.Error("folded with DisableLEAHIFold")
	}
}

func TestLEAHIFoldRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"shifted pair read elsewhere", "#8 STG.E [%r8.64], %r3 ;", "#8 STG.E [%r8.64], %r7 ;"},
		{"carry read elsewhere", "#9 EXIT ;", "#10 @%p1 EXIT ;\nBB1:\n\t#9 EXIT ;"},
		{"shift counts differ", "%r5, 0x2, %r5[1]", "%r5, 0x3, %r5[1]"},
		{"not the next constant word", "c[0x0][0x164]", "c[0x0][0x168]"},
		{"guarded high shift", "#4 SHF", "#4 @%p0 SHF"},
		{"high word rewritten in between", "#6 IADD3", "#10 S2R %r5[1] = SR_TID.Y ;\n\t#6 IADD3"},
		{"shift of 32", "%r5, 0x2, %r5[1]", "%r5, 0x20, %r5[1]"},
	} {
		in := strings.Replace(leaHIIn, tc.from, tc.to, 1)
		if in == leaHIIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if got, changed := leaHIRun(t, in); changed {
			t.Errorf("%s: folded\n%s", tc.name, got)
		}
	}
}
