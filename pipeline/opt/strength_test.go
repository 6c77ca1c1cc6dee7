package opt

import (
	"testing"
)

// srTiled is a counted loop with a barrier in its body, which the
// unroller rejects, so strength reduction handles it: t = i*12 + tid.
const srTiled = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
BB1:
	#4 IMAD %r3 = %r2, 0xc, %r0 ;
	#5 IADD3 %r1 = %r1, %r3, RZ ;
	#6 BAR.SYNC 0x0 ;
	#7 IADD3 %r2 = %r2, 0x1, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r2, 0x10, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [R4.64], %r1 ;
	#11 EXIT ;
`

func TestStrengthReduceIVAndTest(t *testing.T) {
	// %r4 tracks %r2*12 + %r0; the exit test compares it with its value
	// at the exit, 16*12 + %r0 (computed once in the preheader), which
	// leaves #7 with no reader but itself.
	loopExpect(t, "OriStrengthReduce", loopKernel(srTiled), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
	#12 IMAD %r4 = %r2, 0xc, %r0 ;
	#14 IMAD %r5 = 0x10, 0xc, %r0 ;
BB1:
	#4 MOV %r3 = %r4 ;
	#5 IADD3 %r1 = %r1, %r3, RZ ;
	#6 BAR.SYNC 0x0 ;
	#7 IADD3 %r2 = %r2, 0x1, RZ ;
	#13 IADD3 %r4 = %r4, 0xc, RZ ;
	#8 ISETP.NE.AND %p0, PT = %r4, %r5, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [R4.64], %r1 ;
	#11 EXIT ;
`))
}

func TestStrengthReduceRuntimeBound(t *testing.T) {
	// A runtime bound: the multiply (by a register, so the step is a
	// preheader product) is reduced, the test stays. The loop has two
	// entering blocks, so a preheader BB5 is inserted before BB1.
	loopExpect(t, "OriStrengthReduce", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
	#4 ISETP.GE.AND %p1, PT = %r0, 0x20, PT ;
	#5 @%p1 BRA BB1 ;
BB4:
	#6 MOV %r2 = 0x1 ;
BB1:
	#7 IMAD %r3 = c[0x0][0x164], %r2, %r0 ;
	#8 IADD3 %r1 = %r1, %r3, RZ ;
	#9 IADD3 %r2 = %r2, 0x2, RZ ;
	#10 ISETP.LT.AND %p0, PT = %r2, c[0x0][0x160], PT ;
	#11 @%p0 BRA BB1 ;
BB2:
	#12 STG.E [R4.64], %r1 ;
	#13 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
	#4 ISETP.GE.AND %p1, PT = %r0, 0x20, PT ;
	#5 @%p1 BRA BB5 ;
BB4:
	#6 MOV %r2 = 0x1 ;
BB5:
	#14 IMAD %r4 = c[0x0][0x164], %r2, %r0 ;
	#15 IMAD %r5 = c[0x0][0x164], 0x2, RZ ;
BB1:
	#7 MOV %r3 = %r4 ;
	#8 IADD3 %r1 = %r1, %r3, RZ ;
	#9 IADD3 %r2 = %r2, 0x2, RZ ;
	#16 IADD3 %r4 = %r4, %r5, RZ ;
	#10 ISETP.LT.AND %p0, PT = %r2, c[0x0][0x160], PT ;
	#11 @%p0 BRA BB1 ;
BB2:
	#12 STG.E [R4.64], %r1 ;
	#13 EXIT ;
`))
}

func TestStrengthReduceLeavesUnrolledLoops(t *testing.T) {
	// Without the barrier the unroller takes the loop (16 iterations of
	// 5 instructions fit UnrollFullInstLimit); with LoopUnroll off,
	// strength reduction does.
	in := loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
BB1:
	#4 IMAD %r3 = %r2, 0xc, %r0 ;
	#5 IADD3 %r1 = %r1, %r3, RZ ;
	#7 IADD3 %r2 = %r2, 0x1, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r2, 0x10, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [R4.64], %r1 ;
	#11 EXIT ;
`)
	if _, changed := loopRun(t, "OriStrengthReduce", in); changed {
		t.Error("reduced a loop the unroller will unroll")
	}
	if _, changed := loopRun(t, "OriStrengthReduce", in, "LoopUnroll=0"); !changed {
		t.Error("LoopUnroll=0: nothing reduced")
	}
}

func TestStrengthReduceConstMultiplies(t *testing.T) {
	loopExpect(t, "OriStrengthReduce", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#9 ISETP.EQ.AND %p0, PT = %r0, 0x3, PT ;
	#2 IMAD %r1 = %r0, 0x8, RZ ;
	#3 IMAD.U32 %r2 = 0x10, %r0, %r1 ;
	#4 IMAD %r3 = %r2, -0x1, %r1 ;
	#5 @!%p0 IMAD %r4 = %r3, 0x6, %r1 ;
	#6 IMAD %r5 = %r3, 0x1, 0x0 ;
	#7 STG.E [R4.64], %r4 ;
	#8 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#9 ISETP.EQ.AND %p0, PT = %r0, 0x3, PT ;
	#2 SHF.L.U32 %r1 = %r0, 0x3, RZ ;
	#3 IMAD.SHL %r2 = %r0, 0x4, %r1 ;
	#4 IADD3 %r3 = -%r2, %r1, RZ ;
	#5 @!%p0 IMAD %r4 = %r3, 0x6, %r1 ;
	#6 IMAD %r5 = %r3, 0x1, 0x0 ;
	#7 STG.E [R4.64], %r4 ;
	#8 EXIT ;
`))
}

func TestStrengthReduceKnob(t *testing.T) {
	if got, changed := loopRun(t, "OriStrengthReduce", loopKernel(srTiled), "LoopMakeSingleEntry=0"); changed || got != loopCanon(t, loopKernel(srTiled)) {
		t.Errorf("LoopMakeSingleEntry=0 did not switch the pass off:\n%s", got)
	}
}

func TestStrengthReduceCBankStep(t *testing.T) {
	// A constant-bank multiplier with a step of 1: the increment of %r4
	// reads the bank itself, so no preheader product holds the step in
	// a register across the loop.
	loopExpect(t, "OriStrengthReduce", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
BB1:
	#4 IMAD %r3 = c[0x0][0x164], %r2, %r0 ;
	#5 IADD3 %r1 = %r1, %r3, RZ ;
	#6 IADD3 %r2 = %r2, 0x1, RZ ;
	#7 ISETP.LT.AND %p0, PT = %r2, c[0x0][0x160], PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 STG.E [R4.64], %r1 ;
	#10 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
	#3 MOV %r1 = 0x0 ;
	#11 IMAD %r4 = c[0x0][0x164], %r2, %r0 ;
BB1:
	#4 MOV %r3 = %r4 ;
	#5 IADD3 %r1 = %r1, %r3, RZ ;
	#6 IADD3 %r2 = %r2, 0x1, RZ ;
	#12 IADD3 %r4 = %r4, c[0x0][0x164], RZ ;
	#7 ISETP.LT.AND %p0, PT = %r2, c[0x0][0x160], PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 STG.E [R4.64], %r1 ;
	#10 EXIT ;
`))
}
