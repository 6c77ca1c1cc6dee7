package regalloc_test

import (
	"strings"
	"testing"

	"orilab/pipeline/regalloc"
)

// pairCopyKernel stores the pair {%r1, %r0} and then %r1 again: the
// copies into %r2 have sources that stay live.
const pairCopyKernel = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 IADD3 %r1 = %r0, 0x5, RZ ;
	#4 IMAD.WIDE.U32 %r3.64 = %r0, 0x10, RZ ;
	#5 IADD3 %r4, %p0 = c[0x0][0x160], %r3, RZ ;
	#6 IADD3.X %r4[1] = c[0x0][0x164], %r3[1], RZ, %p0, !PT ;
	#7 MOV %r2 = %r1 ;
	#8 MOV %r2[1] = %r0 ;
	#9 STG.E.64 [%r4.64], %r2.64 ;
	#10 IADD3 %r5 = %r1, %r0, RZ ;
	#11 STG.E [%r4.64+0x8], %r5 ;
	#12 EXIT ;
}
`

// TestSameValueCopies: %r1 and %r0 stay live after they are copied into
// the pair %r2, but each has one definition and the pair's words are
// written only by the copies, so the pair may sit on them: %r1 and %r0
// take the pair's registers and both copies disappear (ptxas shares
// registers between an HMMA operand and the words it was copied from in
// the same way). With RegAllocSameValueCopies=0 the copies stay. Both
// allocations execute like the virtual-register code, and the verifier
// accepts them (check).
func TestSameValueCopies(t *testing.T) {
	m := parseModule(t, kernelHead+pairCopyKernel)
	a, _ := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: knobSet(t, "RegAllocLowRegisters=0")}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R9 = SR_TID.X ;
	#3 IADD3 R8 = R9, 0x5, RZ ;
	#4 IMAD.WIDE.U32 R4.64 = R9, 0x10, RZ ;
	#5 IADD3 R6, P0 = c[0x0][0x160], R4, RZ ;
	#6 IADD3.X R7 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#9 STG.E.64 [R6.64], R8.64 ;
	#10 IADD3 R4 = R8, R9, RZ ;
	#11 STG.E [R6.64+0x8], R4 ;
	#12 EXIT ;
`)
	out := sameOutput(t, m, a, outSpec(4, 16))
	for tid := 0; tid < 4; tid++ {
		if got, want := out[4*tid:4*tid+3], []uint32{uint32(tid + 5), uint32(tid), uint32(2*tid + 5)}; !equalWords(got, want) {
			t.Errorf("thread %d stored %v, want %v", tid, got, want)
		}
	}
	b, _ := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: knobSet(t, "RegAllocLowRegisters=0", "RegAllocSameValueCopies=0")}, "")
	if got := body(b.Func("k")); !strings.Contains(got, "#7 MOV") || !strings.Contains(got, "#8 MOV") {
		t.Errorf("RegAllocSameValueCopies=0 should keep both copies:\n%s", got)
	}
	sameOutput(t, m, b, outSpec(4, 16))
}
