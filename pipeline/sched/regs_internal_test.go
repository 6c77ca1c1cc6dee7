package sched

import (
	"testing"

	"orilab/pipeline/ori"
)

// TestHasVirtual checks the allocation-free test against usesOf, on
// instructions with a virtual register in each place usesOf looks (guard,
// source, address base, descriptor, result, store address) and on
// physical-only ones.
func TestHasVirtual(t *testing.T) {
	f, err := ori.ParseFunc("t.ori", []byte(`.entry t
.shared 0x0
.local 0x0
{
BB0:
	#1 IADD3 R2 = R3, 0x1, RZ ;
	#2 IADD3 %r2 = R3, 0x1, RZ ;
	#3 IADD3 R2 = %r3, 0x1, RZ ;
	#4 @%p0 IADD3 R2 = R3, 0x1, RZ ;
	#5 @P0 IADD3 R2 = R3, 0x1, RZ ;
	#6 LDG.E R2 = [%r4.64] ;
	#7 LDG.E R2 = desc[%ur4.64][R4.64] ;
	#8 LDG.E R2 = desc[UR4][R4.64] ;
	#9 STG.E [%r4.64], R3 ;
	#10 STG.E [R4.64], %r3 ;
	#11 STG.E [R4.64], R3 ;
	#12 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]bool{2: true, 3: true, 4: true, 6: true, 7: true, 9: true, 10: true}
	for _, in := range f.Blocks[0].Insts {
		if got, u := hasVirtual(in), usesOf(in).hasVir; got != u || got != want[in.ID] {
			t.Errorf("#%d %s: hasVirtual %v, usesOf %v, want %v", in.ID, in.Name(), got, u, want[in.ID])
		}
	}
}
