package opt

import (
	"testing"
)

// runPass parses in, runs the named registered pass and returns the text.
func runPass(t *testing.T, name, in string) (string, bool) {
	t.Helper()
	return applyPass(t, name, in, passRun{skipVerifyIn: true})
}

// expectUnchanged runs the named pass on a function with body (see
// dcFunc) and fails unless the pass reports no change and the text is as
// it was.
func expectUnchanged(t *testing.T, name, body string) {
	t.Helper()
	in := dcFunc(body)
	got, changed := runPass(t, name, in)
	if want := canon(t, in); changed || got != want {
		t.Fatalf("%s: changed=%v\n%s\nwant it unchanged", name, changed, got)
	}
}

func TestRemoveNopCode(t *testing.T) {
	got, changed := runPass(t, "OriRemoveNopCode", dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 NOP ;
	#3 MOV %r0 = %r0 ;
	#4 MOV %r1 = -%r0 ;
	#5 MOV R5 = R5 ;
	#6 MOV RZ = RZ ;
	#7 STG.E [R2.64], %r1 ;
	#8 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#4 MOV %r1 = -%r0 ;
	#6 MOV RZ = RZ ;
	#7 STG.E [R2.64], %r1 ;
	#8 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestPlaceBlocksInSourceOrder moves a block appended at the end (line 5)
// back between lines 4 and 9, gives the block that used to fall into it
// no branch (it now falls through), gives the moved block's old
// fall-through an explicit branch, and splits a guarded-branch
// fall-through into a block of its own.
func TestPlaceBlocksInSourceOrder(t *testing.T) {
	got, changed := runPass(t, "PlaceBlocksInSourceOrder", dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ; line 2
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ; line 3
	#3 @%p0 BRA BB1 ; line 4
	#4 BRA BB3 ; line 4
BB1:
	#5 IADD3 %r0 = %r0, 0x1, RZ ; line 9
	#6 @%p0 BRA BB2 ; line 9
BB4:
	#7 STG.E [R2.64], %r0 ; line 20
	#8 EXIT ; line 20
BB2:
	#9 EXIT ; line 12
BB3:
	#10 IADD3 %r0 = %r0, 0x2, RZ ; line 5
	#11 BRA BB1 ; line 5
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ; line 2
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ; line 3
	#3 @%p0 BRA BB1 ; line 4
BB3:
	#10 IADD3 %r0 = %r0, 0x2, RZ ; line 5
BB1:
	#5 IADD3 %r0 = %r0, 0x1, RZ ; line 9
	#6 @%p0 BRA BB2 ; line 9
BB5:
	#12 BRA BB4 ; line 9
BB2:
	#9 EXIT ; line 12
BB4:
	#7 STG.E [R2.64], %r0 ; line 20
	#8 EXIT ; line 20
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	// A layout already in source order is left alone.
	if _, changed := runPass(t, "PlaceBlocksInSourceOrder", want); changed {
		t.Error("reordered a layout that is already in source order")
	}
}

// TestConvergenceBarriers brackets an if/else (join BB3) and the if nested
// in its else arm (join BB5) with distinct barriers, and leaves the region
// that contains a CALL alone.
func TestConvergenceBarriers(t *testing.T) {
	got, changed := runPass(t, "FixUpTexDepBarAndSync", dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r0 = %r0, 0x1, RZ ;
	#5 BRA BB3 ;
BB2:
	#6 ISETP.GE.AND %p1, PT = %r0, 0x8, PT ;
	#7 @%p1 BRA BB5 ;
BB4:
	#8 IADD3 %r0 = %r0, 0x2, RZ ;
BB5:
	#9 IADD3 %r0 = %r0, 0x3, RZ ;
BB3:
	#10 ISETP.GE.AND %p2, PT = %r0, 0x9, PT ;
	#11 @%p2 BRA BB7 ;
BB6:
	#12 CALL.REL.NOINC `+"`g`"+` ;
BB7:
	#13 STG.E [R2.64], %r0 ;
	#14 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#15 BSSY 0x0, BB3 ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r0 = %r0, 0x1, RZ ;
	#5 BRA BB3 ;
BB2:
	#6 ISETP.GE.AND %p1, PT = %r0, 0x8, PT ;
	#17 BSSY 0x1, BB5 ;
	#7 @%p1 BRA BB5 ;
BB4:
	#8 IADD3 %r0 = %r0, 0x2, RZ ;
BB5:
	#18 BSYNC 0x1 ;
	#9 IADD3 %r0 = %r0, 0x3, RZ ;
BB3:
	#16 BSYNC 0x0 ;
	#10 ISETP.GE.AND %p2, PT = %r0, 0x9, PT ;
	#11 @%p2 BRA BB7 ;
BB6:
	#12 CALL.REL.NOINC `+"`g`"+` ;
BB7:
	#13 STG.E [R2.64], %r0 ;
	#14 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}
