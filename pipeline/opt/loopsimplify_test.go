package opt

import "testing"

// lsTwoLatches: BB1 is the header, entered from BB0 (fall-through) and
// BB3 (a branch); BB2 and BB4 both branch back to it.
const lsTwoLatches = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB3 ;
BB1:
	#4 IADD3 %r0 = %r0, 0x1, RZ ;
	#5 ISETP.LT.AND %p1, PT = %r0, 0x10, PT ;
	#6 @%p1 BRA BB4 ;
BB2:
	#7 ISETP.LT.AND %p2, PT = %r0, 0x8, PT ;
	#8 @%p2 BRA BB1 ;
BB5:
	#9 STG.E [R4.64], %r0 ;
	#10 EXIT ;
BB3:
	#11 IADD3 %r0 = %r0, 0x2, RZ ;
	#12 BRA BB1 ;
BB4:
	#13 IADD3 %r0 = %r0, 0x3, RZ ;
	#14 BRA BB1 ;
`

func TestLoopSimplification(t *testing.T) {
	// First the latches BB2 and BB4 are routed through BB6, placed after
	// BB5 (the first block past the last latch that does not fall
	// through). Then the preheader BB7 goes before BB1: BB0 falls into
	// it, BB3's branch is retargeted.
	loopExpect(t, "OriLoopSimplification", loopKernel(lsTwoLatches), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB3 ;
BB7:
BB1:
	#4 IADD3 %r0 = %r0, 0x1, RZ ;
	#5 ISETP.LT.AND %p1, PT = %r0, 0x10, PT ;
	#6 @%p1 BRA BB4 ;
BB2:
	#7 ISETP.LT.AND %p2, PT = %r0, 0x8, PT ;
	#8 @%p2 BRA BB6 ;
BB5:
	#9 STG.E [R4.64], %r0 ;
	#10 EXIT ;
BB3:
	#11 IADD3 %r0 = %r0, 0x2, RZ ;
	#12 BRA BB7 ;
BB4:
	#13 IADD3 %r0 = %r0, 0x3, RZ ;
	#14 BRA BB6 ;
BB6:
	#15 BRA BB1 ;
`))
	// LoopMakeSingleEntry=0 leaves out the preheader.
	got, _ := loopRun(t, "OriLoopSimplification", loopKernel(lsTwoLatches), "LoopMakeSingleEntry=0")
	want, _ := loopRun(t, "OriLoopSimplification", loopKernel(lsTwoLatches))
	if got == want || loopIndexOfText(got, "BB7") >= 0 || loopIndexOfText(got, "BB6:") < 0 {
		t.Errorf("LoopMakeSingleEntry=0:\n%s", got)
	}
}

func loopIndexOfText(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestLoopSimplificationLatchFallsIntoHeader(t *testing.T) {
	// BB2 is a latch laid out right before the header BB1 and falls into
	// it, so the slot before the header is taken: the preheader BB6 goes
	// after BB3 (the first block past the header that does not fall
	// through) and branches to BB1, and nothing is added to the loop. The
	// entering branch of BB0 (which has two successors, so it is no
	// preheader) is retargeted to BB6.
	loopExpect(t, "OriLoopSimplification", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB1 ;
BB5:
	#4 EXIT ;
BB2:
	#5 IADD3 %r0 = %r0, 0x1, RZ ;
BB1:
	#6 ISETP.LT.AND %p1, PT = %r0, 0x10, PT ;
	#7 @%p1 BRA BB2 ;
BB3:
	#8 STG.E [R4.64], %r0 ;
	#9 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB6 ;
BB5:
	#4 EXIT ;
BB2:
	#5 IADD3 %r0 = %r0, 0x1, RZ ;
BB1:
	#6 ISETP.LT.AND %p1, PT = %r0, 0x10, PT ;
	#7 @%p1 BRA BB2 ;
BB3:
	#8 STG.E [R4.64], %r0 ;
	#9 EXIT ;
BB6:
	#10 BRA BB1 ;
`))
}

func TestLoopSimplificationPhis(t *testing.T) {
	// Partial SSA: the header phi has one operand per predecessor. The
	// two latch values (BB1, BB2) merge in a phi of the new latch BB7,
	// the two entering values (BB0, BB3) in a phi of the new preheader
	// BB8.
	loopExpect(t, "OriLoopSimplification", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB1 ;
BB3:
	#4 MOV %r1 = 0x7 ;
BB1:
	#5 MOV.PHI %r2 = %r0, BB0, %r1, BB3, %r3, BB1, %r4, BB2 ;
	#6 IADD3 %r3 = %r2, 0x1, RZ ;
	#7 ISETP.LT.AND %p1, PT = %r3, 0x10, PT ;
	#8 @%p1 BRA BB1 ;
BB2:
	#10 IADD3 %r4 = %r3, 0x2, RZ ;
	#11 ISETP.LT.AND %p2, PT = %r4, 0x20, PT ;
	#12 @%p2 BRA BB1 ;
BB6:
	#13 STG.E [R4.64], %r4 ;
	#14 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB8 ;
BB3:
	#4 MOV %r1 = 0x7 ;
BB8:
	#17 MOV.PHI %r6 = %r0, BB0, %r1, BB3 ;
BB1:
	#5 MOV.PHI %r2 = %r5, BB7, %r6, BB8 ;
	#6 IADD3 %r3 = %r2, 0x1, RZ ;
	#7 ISETP.LT.AND %p1, PT = %r3, 0x10, PT ;
	#8 @%p1 BRA BB7 ;
BB2:
	#10 IADD3 %r4 = %r3, 0x2, RZ ;
	#11 ISETP.LT.AND %p2, PT = %r4, 0x20, PT ;
	#12 @%p2 BRA BB7 ;
BB6:
	#13 STG.E [R4.64], %r4 ;
	#14 EXIT ;
BB7:
	#16 MOV.PHI %r5 = %r3, BB1, %r4, BB2 ;
	#15 BRA BB1 ;
`))
}
