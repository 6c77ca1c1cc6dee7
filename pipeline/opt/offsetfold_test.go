package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// offsetRun runs FoldOffsets on a kernel and returns its text.
func offsetRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := FoldOffsets.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// Two unrolled copies of a loop body that walks %r7.
const offsetIn = `BB0:
	#1 S2R %r3 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r7.64 = %r3, 0x40, c[0x0][0x160] ;
	#20 ISETP.NE.AND %p0, PT = %r3, RZ, PT ;
BB1:
	#3 LDG.E %r10 = [%r7.64] ;
	#4 IADD3 %r7, %p2 = %r7, 0x4, RZ ;
	#5 IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p2, !PT ;
	#6 STG.E [%r7.64+0x8], %r10 ;
	#7 IADD3 %r7, %p3 = %r7, 0xfffffffc, RZ ;
	#8 IADD3.X %r7[1] = %r7[1], 0xffffffff, RZ, %p3, !PT ;
	#9 IADD3 %r7, %p4 = %r7, 0x10, RZ ;
	#10 IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p4, !PT ;
	#11 LDG.E %r11 = [%r7.64] ;
	#12 ISETP.NE.AND %p5, PT = %r11, RZ, PT ;
	#13 @%p5 BRA BB1 ;
BB2:
	#14 EXIT ;
`

func TestOffsetFold(t *testing.T) {
	got, changed := offsetRun(t, offsetIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r3 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r7.64 = %r3, 0x40, c[0x0][0x160] ;
	#20 ISETP.NE.AND %p0, PT = %r3, RZ, PT ;
BB1:
	#3 LDG.E %r10 = [%r7.64] ;
	#6 STG.E [%r7.64+0xc], %r10 ;
	#11 LDG.E %r11 = [%r7.64+0x10] ;
	#12 ISETP.NE.AND %p5, PT = %r11, RZ, PT ;
	#21 IADD3 %r7, %p6 = %r7, 0x10, RZ ;
	#22 IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p6, !PT ;
	#13 @%p5 BRA BB1 ;
BB2:
	#14 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if got, changed := offsetRun(t, offsetIn, "DisableOffsetFold=1"); changed || got != loopCanon(t, loopKernel(offsetIn)) {
		t.Errorf("folded with DisableOffsetFold:\n%s", got)
	}
}

// TestOffsetFoldWritesBack: a read of the pair that is not a load or
// store address, and an immediate that would leave 24 bits, get the
// pending amount added first.
func TestOffsetFoldWritesBack(t *testing.T) {
	in := strings.Replace(offsetIn, "#6 STG.E [%r7.64+0x8], %r10 ;", "#6 STG.E [%r7.64+0x8], %r7 ;", 1)
	got, _ := offsetRun(t, in)
	if want := "#21 IADD3 %r7, %p6 = %r7, 0x4, RZ ;\n\t#22 IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p6, !PT ;\n\t#6 STG.E [%r7.64+0x8], %r7 ;"; !strings.Contains(got, want) {
		t.Errorf("value read:\n%s\nwant\n%s", got, want)
	}
	in = strings.Replace(offsetIn, "#6 STG.E [%r7.64+0x8], %r10 ;", "#6 STG.E [%r7.64+0x7ffffc], %r10 ;", 1)
	got, _ = offsetRun(t, in)
	if want := "#22 IADD3.X %r7[1] = %r7[1], 0x0, RZ, %p6, !PT ;\n\t#6 STG.E [%r7.64+0x7ffffc], %r10 ;"; !strings.Contains(got, want) {
		t.Errorf("offset out of range:\n%s\nwant\n%s", got, want)
	}
	// A full rewrite of the pair ends the pending amount: nothing to add.
	in = strings.Replace(offsetIn, "#11 LDG.E %r11 = [%r7.64] ;", "#11 IMAD.WIDE.U32 %r7.64 = %r3, 0x20, c[0x0][0x160] ;\n\t#19 MOV %r11 = %r10 ;", 1)
	got, _ = offsetRun(t, in)
	if strings.Count(got, "IADD3") != 0 {
		t.Errorf("pair rewritten:\n%s\nwant no add", got)
	}
}

func TestOffsetFoldRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"carry read elsewhere", "#12 ISETP.NE.AND %p5, PT = %r11, RZ, PT ;", "#12 ISETP.NE.AND %p5, PT = %r11, RZ, %p2 ;"},
		{"guarded add", "#4 IADD3", "#4 @%p0 IADD3"},
		{"high word not the sign extension", "%r7[1], 0x0, RZ, %p2", "%r7[1], 0x1, RZ, %p2"},
		{"not in place", "#4 IADD3 %r7, %p2 = %r7, 0x4, RZ", "#4 IADD3 %r7, %p2 = %r3, 0x4, RZ"},
	} {
		in := strings.Replace(offsetIn, tc.from, tc.to, 1)
		if in == offsetIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		got, _ := offsetRun(t, in)
		if !strings.Contains(got, "#4 ") {
			t.Errorf("%s: folded the first add\n%s", tc.name, got)
		}
	}
}
