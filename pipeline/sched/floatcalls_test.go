package sched_test

import (
	"testing"

	"orilab/pipeline/sched"
)

// twoCalls computes %r2 and %r3 before the first CALL though only the
// second call's arguments read them.
const twoCalls = `.entry m
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 IADD3 %r1 = %r0, 0x1, RZ ;
	#4 IADD3 %r2 = %r0, 0x2, RZ ;
	#5 IADD3 %r3 = %r0, 0x3, RZ ;
	#6 MOV R4 = %r1 ;
	#7 CALL.REL.NOINC ` + "`f`" + ` ;
	#8 MOV %r4 = R4 ;
	#9 MOV R4 = %r2 ;
	#10 MOV R5 = %r3 ;
	#11 CALL.REL.NOINC ` + "`f`" + ` ;
	#12 MOV %r5 = R4 ;
	#13 IADD3 %r6 = %r4, %r5, RZ ;
	#14 IMAD.WIDE.U32 %r7.64 = %r0, 0x4, RZ ;
	#15 STG.E [%r7.64], %r6 ;
	#16 EXIT ;
}
`

// TestFloatAcrossCalls: before allocation the ReduceReg pass moves #4
// and #5, which name only virtual registers, past the first CALL (#7) to
// the argument moves of the second, so they are not live across the
// first call; the moves into R4 and R5 and out of R4 stay between their
// CALLs. Nothing rises above a CALL: #14, which names only virtual
// registers, stays after #11. With SchedFloatAcrossCalls=0 #4 and #5
// stay before #7.
func TestFloatAcrossCalls(t *testing.T) {
	for _, c := range []struct {
		knobs []string
		want  string
	}{
		{nil, "1 2 3 6 7 5 10 4 8 9 11 12 13 14 15 16"},
		{[]string{"SchedFloatAcrossCalls=0"}, "1 2 3 6 4 5 7 10 8 9 11 12 13 14 15 16"},
	} {
		f := parse(t, twoCalls)
		if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, Mode: sched.ModeReduceReg, Knobs: knobSet(t, c.knobs...)}); err != nil {
			t.Fatal(err)
		}
		if got := order(f); got != c.want {
			t.Errorf("%v: order %s, want %s", c.knobs, got, c.want)
		}
	}
}
