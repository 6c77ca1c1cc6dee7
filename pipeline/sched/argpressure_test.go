package sched_test

import (
	"testing"

	"orilab/pipeline/sched"
)

// argMoves is vec_subword_mov's block before allocation: two stores
// through the output pointer, then the argument and return-address
// moves of a call.
const argMoves = `.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 MOV %r4 = 0x1234 ;
	#4 STG.E.U16 [%r0.64], %r4 ;
	#5 MOV %r5 = 0xbeef ;
	#6 STG.E.U16 [%r0.64+0x4], %r5 ;
	#7 MOV R4 = 0x11 ;
	#8 MOV R5 = 0x22 ;
	#9 MOV R6 = 0x33 ;
	#10 MOV R7 = 0x44 ;
	#11 MOV R2 = ` + "`.ret`" + ` ;
	#12 MOV R3 = RZ ;
	#13 CALL.REL.NOINC ` + "`g`" + ` ;
	#14 EXIT ;
}
`

// TestArgPressure: before allocation the argument and return-address
// moves count as live until their CALL. With them counted, the block
// peaks at 6 R words (the pointer pair, one value and three argument
// words; later six argument words alone); counting virtual words only,
// ReduceReg sees a peak of 3 and lets every move rise above the last
// store, where the pointer, a value and all six moves are live at once
// (9), which the allocator must then find registers for. Since the
// tracker counts the pointer pair whole from its first word's move
// (pressure.go), both values' moves come first: with the argument words
// counted the peak is the two values, the pair and two argument words
// (6); without, all six argument moves rise above the pointer's (10).
func TestArgPressure(t *testing.T) {
	for _, c := range []struct {
		knobs []string
		want  string
	}{
		{nil, "3 5 1 2 7 8 4 9 6 10 11 12 13 14"},
		{[]string{"SchedArgPressure=0"}, "3 5 7 8 9 10 11 12 1 2 4 6 13 14"},
	} {
		f := parse(t, argMoves)
		if _, err := sched.Schedule(f, sched.Options{Arch: 80, OptLevel: 3, Knobs: knobSet(t, c.knobs...)}); err != nil {
			t.Fatal(err)
		}
		if got := order(f); got != c.want {
			t.Errorf("%v: order %s, want %s", c.knobs, got, c.want)
		}
	}
}
