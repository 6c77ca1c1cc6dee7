package opt

import "testing"

func TestLICMPressureLimit(t *testing.T) {
	// licmCounted peaks at 5 live R words in BB1 (after #5: %r0, %r1,
	// %r2, %r3, %r4). Hoisting #4 keeps %r3 live across the loop (1
	// word), hoisting #5 keeps %r4 (1 more). A limit of 6 leaves room for
	// one word: #4 moves, #5 stays, and #6 reads %r4, so it stays too.
	in := loopKernel(licmCounted)
	loopExpect(t, "OriHoistInvariantsLate", in, loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r3 = c[0x0][0x160] ;
BB1:
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r5 = %r3, %r4, %r2 ;
	#7 IADD3 %r1 = %r1, %r5, RZ ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`), "HoistMaxRegCount=6")
	// A limit at the loop's own peak hoists nothing.
	if got, changed := loopRun(t, "OriHoistInvariantsLate", in, "HoistMaxRegCount=5"); changed {
		t.Errorf("HoistMaxRegCount=5 hoisted:\n%s", got)
	}
	// 0 means the target's 255 registers: both move, as by default.
	for _, k := range []string{"HoistMaxRegCount=0", "HoistMaxRegCount=7"} {
		got, _ := loopRun(t, "OriHoistInvariantsLate", in, k)
		want, _ := loopRun(t, "OriHoistInvariantsLate", in)
		if got != want {
			t.Errorf("%s:\n%s\nwant\n%s", k, got, want)
		}
	}
}

func TestLICMPressureChain(t *testing.T) {
	// #4 and #5 feed only #6, which is invariant too. Once #6 moves,
	// %r3 and %r4 are no longer live in the loop and only %r6 is: the
	// chain needs 2 words while it is being hoisted and 1 after, so a
	// limit of peak+2 hoists all three, and the 1 word is what the loop
	// keeps.
	const chain = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 MOV %r3 = c[0x0][0x160] ;
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r6 = %r3, %r4, RZ ;
	#7 IADD3 %r1 = %r1, %r6, %r2 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`
	hoisted := loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r3 = c[0x0][0x160] ;
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r6 = %r3, %r4, RZ ;
BB1:
	#7 IADD3 %r1 = %r1, %r6, %r2 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`)
	// Peak 5 (after #5: %r0, %r1, %r2, %r3, %r4).
	loopExpect(t, "OriHoistInvariantsLate", loopKernel(chain), hoisted, "HoistMaxRegCount=7")
	// With room for one word #4 moves and #5 does not, so #6 stays.
	loopExpect(t, "OriHoistInvariantsLate", loopKernel(chain), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r3 = c[0x0][0x160] ;
BB1:
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r6 = %r3, %r4, RZ ;
	#7 IADD3 %r1 = %r1, %r6, %r2 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`), "HoistMaxRegCount=6")
}

func TestLICMPressureCall(t *testing.T) {
	// The loop calls a function: a hoisted %r3 or %r4 would be live
	// across the CALL, where every register is caller-saved, so nothing
	// that the loop keeps live is hoisted.
	in := loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 MOV %r3 = c[0x0][0x160] ;
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r5 = %r3, %r4, %r2 ;
	#13 CALL.REL.NOINC ` + "`f`" + ` ;
	#7 IADD3 %r1 = %r1, %r5, RZ ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`)
	if got, changed := loopRun(t, "OriHoistInvariantsLate", in); changed {
		t.Errorf("hoisted out of a loop with a CALL:\n%s", got)
	}
}
