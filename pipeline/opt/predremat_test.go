package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// predRematRun runs RematPredicates on a kernel and returns its text.
func predRematRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := RematPredicates.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// Eight predicates on %tid.x (read through a copy, as PetrinetKernel's
// %r11) are live into BB1, one more than the predicate file holds. The
// comparisons are made again in BB1; %p7 guards a register write and
// stays, and %p6 is also read in its own block, so its original stays
// too.
const predRematIn = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = %r0 ;
	#3 ISETP.LT.U32.AND %p0, PT = %r1, 0x1, PT ;
	#4 ISETP.LT.U32.AND %p1, PT = %r1, 0x2, PT ;
	#5 ISETP.LT.U32.AND %p2, PT = %r1, 0x3, PT ;
	#6 ISETP.LT.U32.AND %p3, PT = %r1, 0x4, PT ;
	#7 ISETP.LT.U32.AND %p4, PT = %r1, 0x5, PT ;
	#8 ISETP.LT.U32.AND %p5, PT = %r1, 0x6, PT ;
	#9 ISETP.LT.U32.AND %p6, PT = %r1, 0x7, PT ;
	#10 ISETP.LT.U32.AND %p7, PT = %r1, 0x8, PT ;
	#11 @%p6 STS [%r1], RZ ;
BB1:
	#20 @%p0 STS [%r1], RZ ;
	#21 @%p1 STS [%r1+0x4], RZ ;
	#22 @%p2 STS [%r1+0x8], RZ ;
	#23 @%p3 STS [%r1+0xc], RZ ;
	#24 @%p4 STS [%r1+0x10], RZ ;
	#25 @%p5 STS [%r1+0x14], RZ ;
	#26 @%p6 STS [%r1+0x18], RZ ;
	#27 MOV %r2 = RZ ;
	#28 @%p7 MOV %r2 = 0x1 ;
	#29 @%p0 STS [%r1+0x1c], %r2 ;
	#30 EXIT ;
`

func TestPredRemat(t *testing.T) {
	got, changed := predRematRun(t, predRematIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = %r0 ;
	#9 ISETP.LT.U32.AND %p6, PT = %r1, 0x7, PT ;
	#10 ISETP.LT.U32.AND %p7, PT = %r1, 0x8, PT ;
	#11 @%p6 STS [%r1], RZ ;
BB1:
	#31 ISETP.LT.U32.AND %p8, PT = %r1, 0x1, PT ;
	#20 @%p8 STS [%r1], RZ ;
	#32 ISETP.LT.U32.AND %p9, PT = %r1, 0x2, PT ;
	#21 @%p9 STS [%r1+0x4], RZ ;
	#33 ISETP.LT.U32.AND %p10, PT = %r1, 0x3, PT ;
	#22 @%p10 STS [%r1+0x8], RZ ;
	#34 ISETP.LT.U32.AND %p11, PT = %r1, 0x4, PT ;
	#23 @%p11 STS [%r1+0xc], RZ ;
	#35 ISETP.LT.U32.AND %p12, PT = %r1, 0x5, PT ;
	#24 @%p12 STS [%r1+0x10], RZ ;
	#36 ISETP.LT.U32.AND %p13, PT = %r1, 0x6, PT ;
	#25 @%p13 STS [%r1+0x14], RZ ;
	#37 ISETP.LT.U32.AND %p14, PT = %r1, 0x7, PT ;
	#26 @%p14 STS [%r1+0x18], RZ ;
	#27 MOV %r2 = RZ ;
	#28 @%p7 MOV %r2 = 0x1 ;
	#29 @%p8 STS [%r1+0x1c], %r2 ;
	#30 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if got, changed := predRematRun(t, predRematIn, "DisablePredRemat=1"); changed || got != loopCanon(t, loopKernel(predRematIn)) {
		t.Errorf("rewritten with DisablePredRemat:\n%s", got)
	}
}

// TestPredRematNotBelowFile: with seven predicates live (the file's
// size) nothing changes.
func TestPredRematNotBelowFile(t *testing.T) {
	in := `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#3 ISETP.LT.U32.AND %p0, PT = %r1, 0x1, PT ;
	#4 ISETP.LT.U32.AND %p1, PT = %r1, 0x2, PT ;
	#5 ISETP.LT.U32.AND %p2, PT = %r1, 0x3, PT ;
BB1:
	#20 @%p0 STS [%r1], RZ ;
	#21 @%p1 STS [%r1+0x4], RZ ;
	#22 @%p2 STS [%r1+0x8], RZ ;
	#30 EXIT ;
`
	if got, changed := predRematRun(t, in); changed || got != loopCanon(t, loopKernel(in)) {
		t.Errorf("rewritten:\n%s", got)
	}
}

// TestPredRematSkips: %p0 guards a register write (the post-allocation
// verifier pairs guarded definitions and reads by predicate register)
// and %p1 compares a register that is dead in BB1: both stay; the
// others are recomputed in BB1.
func TestPredRematSkips(t *testing.T) {
	got, _ := predRematRun(t, `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 LDS %r3 = [%r1] ;
	#3 ISETP.LT.U32.AND %p0, PT = %r1, 0x1, PT ;
	#4 ISETP.LT.U32.AND %p1, PT = %r3, 0x2, PT ;
	#5 ISETP.LT.U32.AND %p2, PT = %r1, 0x3, PT ;
	#6 ISETP.LT.U32.AND %p3, PT = %r1, 0x4, PT ;
	#7 ISETP.LT.U32.AND %p4, PT = %r1, 0x5, PT ;
	#8 ISETP.LT.U32.AND %p5, PT = %r1, 0x6, PT ;
	#9 ISETP.LT.U32.AND %p6, PT = %r1, 0x7, PT ;
	#10 ISETP.LT.U32.AND %p7, PT = %r1, 0x8, PT ;
BB1:
	#20 @%p0 MOV %r2 = 0x1 ;
	#21 @%p1 STS [%r1+0x4], %r2 ;
	#22 @%p2 STS [%r1+0x8], RZ ;
	#23 @%p3 STS [%r1+0xc], RZ ;
	#24 @%p4 STS [%r1+0x10], RZ ;
	#25 @%p5 STS [%r1+0x14], RZ ;
	#26 @%p6 STS [%r1+0x18], RZ ;
	#27 @%p7 STS [%r1+0x1c], RZ ;
	#30 EXIT ;
`)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 LDS %r3 = [%r1] ;
	#3 ISETP.LT.U32.AND %p0, PT = %r1, 0x1, PT ;
	#4 ISETP.LT.U32.AND %p1, PT = %r3, 0x2, PT ;
BB1:
	#20 @%p0 MOV %r2 = 0x1 ;
	#21 @%p1 STS [%r1+0x4], %r2 ;
	#31 ISETP.LT.U32.AND %p8, PT = %r1, 0x3, PT ;
	#22 @%p8 STS [%r1+0x8], RZ ;
	#32 ISETP.LT.U32.AND %p9, PT = %r1, 0x4, PT ;
	#23 @%p9 STS [%r1+0xc], RZ ;
	#33 ISETP.LT.U32.AND %p10, PT = %r1, 0x5, PT ;
	#24 @%p10 STS [%r1+0x10], RZ ;
	#34 ISETP.LT.U32.AND %p11, PT = %r1, 0x6, PT ;
	#25 @%p11 STS [%r1+0x14], RZ ;
	#35 ISETP.LT.U32.AND %p12, PT = %r1, 0x7, PT ;
	#26 @%p12 STS [%r1+0x18], RZ ;
	#36 ISETP.LT.U32.AND %p13, PT = %r1, 0x8, PT ;
	#27 @%p13 STS [%r1+0x1c], RZ ;
	#30 EXIT ;
`))
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
