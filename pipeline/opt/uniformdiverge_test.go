package opt

import (
	"strings"
	"testing"
)

// readInDivergedLoop reads a uniform constant inside a loop whose exit
// depends on the thread index.
const readInDivergedLoop = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x20 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 ISETP.GE.U32.AND %p0, PT = %r2, %r0, PT ;
	#5 @%p0 BRA BB3 ;
BB2:
	#6 IADD3 %r2 = %r2, %r1, RZ ;
	#7 BRA BB1 ;
BB3:
	#10 STG.E [R2.64], %r2 ;
	#11 EXIT ;
`

// TestUregReadInDivergedCode: a uniform value defined before a divergent
// loop and only read inside it moves to UR (every thread computed it
// together; nothing writes a UR register in the loop). With the knob
// DisableUregReconvergence, the earlier rule: it stays in R.
func TestUregReadInDivergedCode(t *testing.T) {
	got, changed := runPass(t, "ConvertToUniformReg", dcFunc(readInDivergedLoop))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 UMOV %ur0 = 0x20 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 ISETP.GE.U32.AND %p0, PT = %r2, %r0, PT ;
	#5 @%p0 BRA BB3 ;
BB2:
	#6 IADD3 %r2 = %r2, %ur0, RZ ;
	#7 BRA BB1 ;
BB3:
	#10 STG.E [R2.64], %r2 ;
	#11 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	in := dcFunc(readInDivergedLoop)
	got, changed = applyPass(t, "ConvertToUniformReg", in, passRun{skipVerifyIn: true, knobs: []string{"DisableUregReconvergence"}})
	if want := canon(t, in); changed || got != want {
		t.Fatalf("DisableUregReconvergence: changed=%v\n%s\nwant it unchanged", changed, got)
	}
}

// ifAndIf is `if (tid < 16 && tid < 8) ...` with CTA indices read before,
// inside and after it: BB0's branch has the region BB0-BB2 meeting at
// BB3; BB1's branch has no region of its own (BB1 does not dominate BB3)
// and meets in BB0's (rodinia hotspot's shape).
const ifAndIf = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 S2R %r1 = SR_CTAID.X ;
	#3 ISETP.GE.U32.AND %p0, PT = %r0, 0x10, PT ;
	#4 @%p0 BRA BB3 ;
BB1:
	#5 ISETP.GE.U32.AND %p1, PT = %r0, 0x8, PT ;
	#6 @%p1 BRA BB3 ;
BB2:
	#7 S2R %r2 = SR_CTAID.Y ;
	#8 IADD3 %r3 = %r2, %r1, RZ ;
	#9 IADD3 %r6 = %r0, %r3, RZ ;
	#10 STG.E [R2.64], %r6 ;
BB3:
	#11 S2R %r4 = SR_CTAID.Z ;
	#12 IADD3 %r5 = %r0, %r4, RZ ;
	#13 STG.E [R2.64], %r5 ;
	#14 EXIT ;
`

// TestUregAfterMeetingPoint: in ifAndIf, CTAID.X (defined before the
// divergent branches, read inside) and CTAID.Z (defined after the
// meeting point, where the convergence barrier's BSYNC will be) move to
// UR; CTAID.Y and the sum defined inside the region stay in R. With the
// knob DisableUregReconvergence nothing moves.
func TestUregAfterMeetingPoint(t *testing.T) {
	got, changed := runPass(t, "ConvertToUniformReg", dcFunc(ifAndIf))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 S2UR %ur0 = SR_CTAID.X ;
	#3 ISETP.GE.U32.AND %p0, PT = %r0, 0x10, PT ;
	#4 @%p0 BRA BB3 ;
BB1:
	#5 ISETP.GE.U32.AND %p1, PT = %r0, 0x8, PT ;
	#6 @%p1 BRA BB3 ;
BB2:
	#7 S2R %r2 = SR_CTAID.Y ;
	#8 IADD3 %r3 = %r2, %ur0, RZ ;
	#9 IADD3 %r6 = %r0, %r3, RZ ;
	#10 STG.E [R2.64], %r6 ;
BB3:
	#11 S2UR %ur1 = SR_CTAID.Z ;
	#12 IADD3 %r5 = %r0, %ur1, RZ ;
	#13 STG.E [R2.64], %r5 ;
	#14 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	in := dcFunc(ifAndIf)
	got, changed = applyPass(t, "ConvertToUniformReg", in, passRun{skipVerifyIn: true, knobs: []string{"DisableUregReconvergence"}})
	if want := canon(t, in); changed || got != want {
		t.Fatalf("DisableUregReconvergence: changed=%v\n%s\nwant it unchanged", changed, got)
	}
}

// TestUregAfterDivergentLoop: the exit of a loop with a thread-dependent
// trip count has a region whose BSSY goes in front of the loop (BB0) and
// whose BSYNC is at the exit (BB3), so a CTA index read after the loop
// moves to UR; the DisableUregReconvergence knob keeps it in R.
func TestUregAfterDivergentLoop(t *testing.T) {
	const loop = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r2 = 0x0 ;
BB1:
	#3 ISETP.GE.U32.AND %p0, PT = %r2, %r0, PT ;
	#4 @%p0 BRA BB3 ;
BB2:
	#5 IADD3 %r2 = %r2, 0x1, RZ ;
	#6 BRA BB1 ;
BB3:
	#7 S2R %r1 = SR_CTAID.X ;
	#8 IADD3 %r3 = %r2, %r1, RZ ;
	#9 STG.E [R2.64], %r3 ;
	#10 EXIT ;
`
	got, changed := runPass(t, "ConvertToUniformReg", dcFunc(loop))
	if !changed || !strings.Contains(got, "#7 S2UR %ur0 = SR_CTAID.X") || !strings.Contains(got, "#8 IADD3 %r3 = %r2, %ur0, RZ") {
		t.Fatalf("changed=%v\n%s", changed, got)
	}
	in := dcFunc(loop)
	got, changed = applyPass(t, "ConvertToUniformReg", in, passRun{skipVerifyIn: true, knobs: []string{"DisableUregReconvergence"}})
	if want := canon(t, in); changed || got != want {
		t.Fatalf("DisableUregReconvergence: changed=%v\n%s\nwant it unchanged", changed, got)
	}
}

// TestUregDefinedInDivergedCode: values defined where the warp's threads
// may be apart stay in R: after a loop with a thread-dependent exit that
// has no block in front of it to open its region in (the loop starts at
// the function's entry; fuzz seed 2003387: a ULDC after such a loop
// overwrote a UR the loop still read), inside an if, and after a region
// that gets no convergence barrier because it returns.
func TestUregDefinedInDivergedCode(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"after a divergent loop at the entry", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.U32.AND %p0, PT = %r0, 0x20, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 STG.E [R2.64], %r0 ;
	#5 BRA BB0 ;
BB2:
	#6 S2R %r1 = SR_CTAID.X ;
	#7 IADD3 %r3 = %r0, %r1, RZ ;
	#8 STG.E [R2.64], %r3 ;
	#9 EXIT ;
`},
		{"inside an if", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.U32.AND %p0, PT = %r0, 0x10, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 S2R %r1 = SR_CTAID.X ;
	#5 IADD3 %r3 = %r0, %r1, RZ ;
	#6 STG.E [R2.64], %r3 ;
BB2:
	#7 EXIT ;
`},
		{"after a region that returns", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.U32.AND %p0, PT = %r0, 0x10, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 ISETP.GE.U32.AND %p1, PT = %r0, 0x8, PT ;
	#5 @%p1 RET ;
BB2:
	#6 S2R %r1 = SR_CTAID.X ;
	#7 IADD3 %r3 = %r0, %r1, RZ ;
	#8 STG.E [R2.64], %r3 ;
	#9 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) { expectUnchanged(t, "ConvertToUniformReg", c.body) })
	}
}
