package opt

import "testing"

// licmTuple builds a pair in the loop from the counter (low word) and RZ
// (high word), and a 64-bit parameter pair whose words are both
// invariant.
const licmTuple = `BB0:
	#1 MOV %r1 = 0x0 ;
	#2 MOV %r2 = 0x0 ;
BB1:
	#3 MOV %r6 = %r2 ;
	#4 MOV %r6[1] = RZ ;
	#5 LDG.E %r7 = [%r6.64] ;
	#6 MOV %r8 = c[0x0][0x160] ;
	#7 MOV %r8[1] = c[0x0][0x164] ;
	#13 STG.E [%r8.64], %r7 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`

func TestLICMKeepsSplitTuples(t *testing.T) {
	// The parameter pair moves; the pair's RZ high word stays with its
	// low word.
	loopExpect(t, "OriHoistInvariantsLate", loopKernel(licmTuple), loopKernel(`BB0:
	#1 MOV %r1 = 0x0 ;
	#2 MOV %r2 = 0x0 ;
	#6 MOV %r8 = c[0x0][0x160] ;
	#7 MOV %r8[1] = c[0x0][0x164] ;
BB1:
	#3 MOV %r6 = %r2 ;
	#4 MOV %r6[1] = RZ ;
	#5 LDG.E %r7 = [%r6.64] ;
	#13 STG.E [%r8.64], %r7 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`))
	// LICMHoistTupleWords=1: the high word goes too.
	loopExpect(t, "OriHoistInvariantsLate", loopKernel(licmTuple), loopKernel(`BB0:
	#1 MOV %r1 = 0x0 ;
	#2 MOV %r2 = 0x0 ;
	#4 MOV %r6[1] = RZ ;
	#6 MOV %r8 = c[0x0][0x160] ;
	#7 MOV %r8[1] = c[0x0][0x164] ;
BB1:
	#3 MOV %r6 = %r2 ;
	#5 LDG.E %r7 = [%r6.64] ;
	#13 STG.E [%r8.64], %r7 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`), "LICMHoistTupleWords=1")
}
