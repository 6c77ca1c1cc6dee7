package regalloc_test

import (
	"strings"
	"testing"

	"orilab/pipeline/regalloc"
)

// tupleKernel loads a quad, computes three new words and stores them
// with the loaded fourth word, the shape of particleSystem's integrate.
const tupleKernel = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 IMAD.WIDE.U32 %r1.64 = %r0, 0x10, RZ ;
	#4 IADD3 %r2, %p0 = c[0x0][0x160], %r1, RZ ;
	#5 IADD3.X %r2[1] = c[0x0][0x164], %r1[1], RZ, %p0, !PT ;
	#6 LDG.E.128 %r3.128 = [%r2.64] ;
	#7 IADD3 %r5 = %r3, %r0, 0x1 ;
	#8 IADD3 %r6 = %r3[1], %r0, 0x2 ;
	#9 IADD3 %r7 = %r3[2], %r0, 0x3 ;
	#10 MOV %r4 = %r5 ;
	#11 MOV %r4[1] = %r6 ;
	#12 MOV %r4[2] = %r7 ;
	#13 MOV %r4[3] = %r3[3] ;
	#14 STG.E.128 [%r2.64], %r4.128 ;
	#15 EXIT ;
}
`

// TestWordRanges: with a range per word, the stored quad %r4 takes the
// loaded quad's registers, whose first three words are dead by the time
// %r4's are written, so the copy of the fourth word disappears (ptxas
// stores from the loaded quad too); with RegAllocWordRanges=0 the loaded
// quad keeps all four registers until its fourth word dies, and %r4
// needs a quad of its own. Both allocations execute like the
// virtual-register code.
func TestWordRanges(t *testing.T) {
	m := parseModule(t, kernelHead+tupleKernel)
	a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: knobSet(t, "RegAllocLowRegisters=0")}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R10 = SR_TID.X ;
	#3 IMAD.WIDE.U32 R4.64 = R10, 0x10, RZ ;
	#4 IADD3 R8, P0 = c[0x0][0x160], R4, RZ ;
	#5 IADD3.X R9 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#6 LDG.E.128 R4.128 = [R8.64] ;
	#7 IADD3 R4 = R4, R10, 0x1 ;
	#8 IADD3 R5 = R5, R10, 0x2 ;
	#9 IADD3 R6 = R6, R10, 0x3 ;
	#14 STG.E.128 [R8.64], R4.128 ;
	#15 EXIT ;
`)
	if st.Regs != 13 {
		t.Errorf("regs %d, want 13 (up to R10: one quad, the address pair and tid above R4, and the two ptxas adds)", st.Regs)
	}
	out := sameOutput(t, m, a, outSpec(4, 16))
	for tid := 0; tid < 4; tid++ {
		if got, want := out[4*tid:4*tid+4], []uint32{uint32(tid + 1), uint32(tid + 2), uint32(tid + 3), 0}; !equalWords(got, want) {
			t.Errorf("thread %d stored %v, want %v", tid, got, want)
		}
	}
	b, st0 := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, "")
	if st0.Regs <= st.Regs {
		t.Errorf("RegAllocWordRanges=0: regs %d, want more than the %d of per-word ranges", st0.Regs, st.Regs)
	}
	if got := body(b.Func("k")); !strings.Contains(got, "#13 MOV") {
		t.Errorf("RegAllocWordRanges=0 should keep the copy of the fourth word:\n%s", got)
	}
	sameOutput(t, m, b, outSpec(4, 16))
}

func equalWords(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
