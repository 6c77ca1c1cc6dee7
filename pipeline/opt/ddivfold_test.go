package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// ddivFoldRun runs the GeneralOptimize bundle on a kernel and returns its
// text.
func ddivFoldRun(t *testing.T, in string, settings ...string) string {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if _, err := GeneralOptimize.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)}); err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String()
}

// The shape of fuzz finding regtarget-mismatch: %r0.64 is 0, then in a
// branch div.rz.f64 of it by itself. Only the MOVs reach #6, which
// folds to NaN; #7 is reached by #6 and by the MOVs and stays; the
// square root of 4.0 rounded down is 2.0.
const ddivFoldIn = `BB0:
	#1 MOV %r0 = 0x0 ;
	#2 MOV %r0[1] = RZ ;
	#3 S2R %r2 = SR_TID.X ;
	#4 ISETP.NE.AND %p0, PT = %r2, RZ, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 DDIV.RZ %r0.64 = %r0.64, %r0.64 ;
BB2:
	#7 DDIV.RN %r4.64 = %r0.64, %r0.64 ;
	#8 MOV %r8 = 0x0 ;
	#9 MOV %r8[1] = 0x40100000 ;
	#10 DSQRT.RM %r6.64 = %r8.64 ;
	#11 STS.64 [%r2], %r0.64 ;
	#12 STS.64 [%r2+0x8], %r4.64 ;
	#13 STS.64 [%r2+0x10], %r6.64 ;
	#14 EXIT ;
`

// 0/0 is the default NaN 0xfff8000000000000, as the H100 gives it
// (ori/SEMANTICS.md).
func TestDDIVFold(t *testing.T) {
	got := ddivFoldRun(t, ddivFoldIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r0 = 0x0 ;
	#2 MOV %r0[1] = RZ ;
	#3 S2R %r2 = SR_TID.X ;
	#4 ISETP.NE.AND %p0, PT = %r2, RZ, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 MOV %r0 = 0x0 ;
	#15 MOV %r0[1] = -0x80000 ;
BB2:
	#7 DDIV.RN %r4.64 = %r0.64, %r0.64 ;
	#8 MOV %r8 = 0x0 ;
	#9 MOV %r8[1] = 0x40100000 ;
	#10 MOV %r6 = 0x0 ;
	#16 MOV %r6[1] = 0x40000000 ;
	#11 STS.64 [%r2], %r0.64 ;
	#12 STS.64 [%r2+0x8], %r4.64 ;
	#13 STS.64 [%r2+0x10], %r6.64 ;
	#14 EXIT ;
`))
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := ddivFoldRun(t, ddivFoldIn, "DisableDDIVFold=1"); got != loopCanon(t, loopKernel(ddivFoldIn)) {
		t.Errorf("folded with DisableDDIVFold:\n%s", got)
	}
}

// TestDDIVFoldNaNDividend: a NaN dividend is the result, quieted, even
// over a NaN divisor (ori/SEMANTICS.md); a guarded MOV does not make
// its word known.
func TestDDIVFoldNaNDividend(t *testing.T) {
	got := ddivFoldRun(t, `BB0:
	#1 MOV %r0 = 0x1 ;
	#2 MOV %r0[1] = 0x7ff00000 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r2[1] = -0x80000 ;
	#5 DDIV.RN %r4.64 = %r0.64, %r2.64 ;
	#6 S2R %r8 = SR_TID.X ;
	#7 ISETP.NE.AND %p0, PT = %r8, RZ, PT ;
	#8 @%p0 MOV %r2 = 0x1 ;
	#9 DDIV.RN %r6.64 = %r2.64, %r2.64 ;
	#10 STS.64 [%r8], %r4.64 ;
	#11 STS.64 [%r8+0x8], %r6.64 ;
	#12 EXIT ;
`)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r0 = 0x1 ;
	#2 MOV %r0[1] = 0x7ff00000 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r2[1] = -0x80000 ;
	#5 MOV %r4 = 0x1 ;
	#13 MOV %r4[1] = 0x7ff80000 ;
	#6 S2R %r8 = SR_TID.X ;
	#7 ISETP.NE.AND %p0, PT = %r8, RZ, PT ;
	#8 @%p0 MOV %r2 = 0x1 ;
	#9 DDIV.RN %r6.64 = %r2.64, %r2.64 ;
	#10 STS.64 [%r8], %r4.64 ;
	#11 STS.64 [%r8+0x8], %r6.64 ;
	#12 EXIT ;
`))
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
