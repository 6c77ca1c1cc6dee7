package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// TestRemoveRedundantBarriers: the second of two barriers with only
// arithmetic between them goes, and so does the barrier before EXIT; the
// barrier after the shared store stays.
func TestRemoveRedundantBarriers(t *testing.T) {
	got, changed := runPass(t, "OriRemoveRedundantBarriers", dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 STS [%r0], %r0 ;
	#3 BAR.SYNC 0x0 ;
	#4 IADD3 %r1 = %r0, 0x4, RZ ;
	#5 BAR.SYNC 0x0 ;
	#6 LDS %r2 = [%r1] ;
	#7 BAR.SYNC 0x0 ;
	#8 STG.E [R2.64], %r2 ;
	#9 BAR.SYNC 0x0 ;
	#10 IADD3 %r3 = %r2, 0x4, RZ ;
	#11 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 STS [%r0], %r0 ;
	#3 BAR.SYNC 0x0 ;
	#4 IADD3 %r1 = %r0, 0x4, RZ ;
	#6 LDS %r2 = [%r1] ;
	#7 BAR.SYNC 0x0 ;
	#8 STG.E [R2.64], %r2 ;
	#10 IADD3 %r3 = %r2, 0x4, RZ ;
	#11 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestRemoveRedundantBarriersLeavesAlone: nothing is removed when some
// barrier runs under a thread-dependent branch (threads may then wait at
// different barrier instructions), when the barriers differ, or when a
// load separates them.
func TestRemoveRedundantBarriersLeavesAlone(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"barrier under a divergent branch", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.LT.U32.AND %p0, PT = %r0, 0x10, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 BAR.SYNC 0x0 ;
	#5 BAR.SYNC 0x0 ;
	#6 BRA BB3 ;
BB2:
	#7 BAR.SYNC 0x0 ;
	#8 BAR.SYNC 0x0 ;
BB3:
	#9 STG.E [R2.64], %r0 ;
	#10 EXIT ;
`},
		{"different barriers", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#3 BAR.SYNC 0x0 ;
	#5 BAR.SYNC 0x1 ;
	#6 STG.E [R2.64], %r0 ;
	#7 EXIT ;
`},
		{"load in between", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#3 BAR.SYNC 0x0 ;
	#4 LDS %r1 = [%r0] ;
	#5 BAR.SYNC 0x0 ;
	#6 STS [%r0], %r1 ;
	#7 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) { expectUnchanged(t, "OriRemoveRedundantBarriers", c.body) })
	}
}

// TestUniformity pins the analysis: values derived from parameters and
// the CTA index are uniform, the thread index and loads are not, a value
// written under a thread-dependent branch is not, and neither is the
// block itself; the join after it is uniform again, and a loop whose exit
// depends on the thread index makes its whole body divergent.
func TestUniformity(t *testing.T) {
	f, err := ori.ParseFunc("k.ori", []byte(dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 S2R %r1 = SR_CTAID.X ;
	#3 IMAD %r2 = %r1, c[0x0][0x0], RZ ;
	#4 LDG.E %r3 = [R2.64] ;
	#5 MOV %r4 = 0x1 ;
	#6 ISETP.LT.U32.AND %p0, PT = %r0, 0x10, PT ;
	#7 @%p0 BRA BB2 ;
BB1:
	#8 MOV %r4 = 0x2 ;
BB2:
	#9 IADD3 %r5 = %r2, 0x1, RZ ;
BB3:
	#10 IADD3 %r6 = %r5, 0x1, RZ ;
	#11 ISETP.LT.U32.AND %p1, PT = %r6, %r0, PT ;
	#12 @%p1 BRA BB3 ;
BB4:
	#13 STG.E [R2.64], %r4 ;
	#14 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	u := analyzeUniformity(f)
	for n, want := range map[int]bool{0: true, 1: false, 2: false, 3: true, 4: true, 5: false, 6: true} {
		if got := u.divergentReg(ori.VReg(ori.ClassR, n, 1)); got != want {
			t.Errorf("%%r%d divergent=%v, want %v", n, got, want)
		}
	}
	for id, want := range map[int32]bool{0: false, 1: true, 2: false, 3: true, 4: false} {
		if got := u.divBlock[f.BlockByID(id)]; got != want {
			t.Errorf("BB%d divergent=%v, want %v", id, got, want)
		}
	}
}
