package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// TestConvergenceSkipsRegionsWithRet: the if of BB0 joins at BB2, but its
// then-arm returns early under %p1. The returning threads never reach
// BB2, so a BSYNC there would wait for them forever; the region gets no
// barrier (fuzz seed 31). The if of BB3, whose arms both reach BB5
// without a RET, still does.
func TestConvergenceSkipsRegionsWithRet(t *testing.T) {
	in := `.func f
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 ISETP.GE.AND %p1, PT = %r0, 0x2, PT ;
	#5 MOV R4 = %r0 ;
	#6 @%p1 RET ;
BB2:
	#7 ISETP.GE.AND %p2, PT = %r0, 0x8, PT ;
	#8 @%p2 BRA BB5 ;
BB4:
	#9 IADD3 %r0 = %r0, 0x1, RZ ;
BB5:
	#10 MOV R4 = %r0 ;
	#11 RET ;
}
`
	got, changed := runPass(t, "FixUpTexDepBarAndSync", in)
	want := canon(t, `.func f
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 ISETP.GE.AND %p1, PT = %r0, 0x2, PT ;
	#5 MOV R4 = %r0 ;
	#6 @%p1 RET ;
BB2:
	#7 ISETP.GE.AND %p2, PT = %r0, 0x8, PT ;
	#12 BSSY 0x0, BB5 ;
	#8 @%p2 BRA BB5 ;
BB4:
	#9 IADD3 %r0 = %r0, 0x1, RZ ;
BB5:
	#13 BSYNC 0x0 ;
	#10 MOV R4 = %r0 ;
	#11 RET ;
}
`)
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestConvergenceAcrossCalls: the kernel's if calls g, whose own if
// takes B0; the kernel's region is open across the call, so it takes B1
// (fuzz seed 108: without a pair, the threads that skipped the call ran
// the join's activemask alone). A region around a call of h, which calls
// itself, cannot know what h uses and gets no pair; the region around
// the call through a register neither.
func TestConvergenceAcrossCalls(t *testing.T) {
	m, err := ori.ParseModule("m.ori", []byte(`.module sm_75 address_size=64

.func g
.shared 0x0
.local 0x0
{
BB0:
	#1 ISETP.GE.AND P0, PT = R4, 0x4, PT ;
	#2 @P0 BRA BB2 ;
BB1:
	#3 IADD3 R4 = R4, 0x1, RZ ;
BB2:
	#4 RET ;
}

.func h
.shared 0x0
.local 0x0
{
BB0:
	#1 CALL.REL.NOINC `+"`h`"+` ;
	#2 RET ;
}

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R R4 = SR_TID.X ;
	#2 ISETP.GE.AND P0, PT = R4, 0x8, PT ;
	#3 @P0 BRA BB2 ;
BB1:
	#4 CALL.REL.NOINC `+"`g`"+` ;
BB2:
	#5 ISETP.GE.AND P0, PT = R4, 0x10, PT ;
	#6 @P0 BRA BB4 ;
BB3:
	#7 CALL.REL.NOINC `+"`h`"+` ;
BB4:
	#8 ISETP.GE.AND P0, PT = R4, 0x18, PT ;
	#9 @P0 BRA BB6 ;
BB5:
	#10 CALL.REL.NOINC R6.64 ;
BB6:
	#11 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := passByPhase("FixUpTexDepBarAndSync")
	k := m.Func("k")
	// The kernel first, so its plan has to work out g's barriers itself.
	for _, name := range []string{"k", "g", "h"} {
		f := m.Func(name)
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(f, &Context{OptLevel: 3, Arch: 75, Module: m}); err != nil {
			t.Fatal(err)
		}
	}
	want := canon(t, `.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R R4 = SR_TID.X ;
	#2 ISETP.GE.AND P0, PT = R4, 0x8, PT ;
	#12 BSSY 0x1, BB2 ;
	#3 @P0 BRA BB2 ;
BB1:
	#4 CALL.REL.NOINC `+"`g`"+` ;
BB2:
	#13 BSYNC 0x1 ;
	#5 ISETP.GE.AND P0, PT = R4, 0x10, PT ;
	#6 @P0 BRA BB4 ;
BB3:
	#7 CALL.REL.NOINC `+"`h`"+` ;
BB4:
	#8 ISETP.GE.AND P0, PT = R4, 0x18, PT ;
	#9 @P0 BRA BB6 ;
BB5:
	#10 CALL.REL.NOINC R6.64 ;
BB6:
	#11 EXIT ;
}
`)
	if got := k.String(); got != want {
		t.Fatalf("kernel\n%s\nwant\n%s", got, want)
	}
	if got := m.Func("g").String(); !strings.Contains(got, "BSSY 0x0, BB2") {
		t.Fatalf("g does not use B0:\n%s", got)
	}
}

// TestConvergenceSiblingRegions: each arm of the if of BB0 has an if of
// its own. The odd arm comes first in the layout and its inner join BB6
// comes late, so the odd threads wait at BB6 while the even threads run
// the BSSY of BB2: the two inner regions are open at the same time in
// one warp and need different barriers (fuzz seed 42: sharing B1, the
// even arm's BSSY replaced the mask the odd arm's BSYNC waited for).
func TestConvergenceSiblingRegions(t *testing.T) {
	got, changed := runPass(t, "FixUpTexDepBarAndSync", dcFunc(`BB0:
	#1 S2R %r0 = SR_LANEID ;
	#2 LOP3.LUT %r1 = %r0, 0x1, RZ, 0xc0, !PT ;
	#3 ISETP.EQ.U32.AND %p0, PT = %r1, 0x0, PT ;
	#4 MOV %r2 = 0x1 ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 ISETP.LT.U32.AND %p1, PT = %r0, 0x10, PT ;
	#7 @%p1 BRA BB6 ;
BB5:
	#8 IADD3 %r2 = %r0, 0x2, RZ ;
	#9 BRA BB6 ;
BB2:
	#10 ISETP.LT.U32.AND %p2, PT = %r0, 0x8, PT ;
	#11 @%p2 BRA BB4 ;
BB3:
	#12 IMAD %r2 = %r0, 0x5, RZ ;
BB4:
	#13 BRA BB7 ;
BB6:
	#14 IADD3 %r2 = %r2, 0x1, RZ ;
BB7:
	#15 VOTE.ANY %r3, PT = PT ;
	#16 STG.E [R2.64], %r3 ;
	#17 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_LANEID ;
	#2 LOP3.LUT %r1 = %r0, 0x1, RZ, 0xc0, !PT ;
	#3 ISETP.EQ.U32.AND %p0, PT = %r1, 0x0, PT ;
	#4 MOV %r2 = 0x1 ;
	#18 BSSY 0x0, BB7 ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 ISETP.LT.U32.AND %p1, PT = %r0, 0x10, PT ;
	#20 BSSY 0x1, BB6 ;
	#7 @%p1 BRA BB6 ;
BB5:
	#8 IADD3 %r2 = %r0, 0x2, RZ ;
	#9 BRA BB6 ;
BB2:
	#10 ISETP.LT.U32.AND %p2, PT = %r0, 0x8, PT ;
	#22 BSSY 0x2, BB4 ;
	#11 @%p2 BRA BB4 ;
BB3:
	#12 IMAD %r2 = %r0, 0x5, RZ ;
BB4:
	#23 BSYNC 0x2 ;
	#13 BRA BB7 ;
BB6:
	#21 BSYNC 0x1 ;
	#14 IADD3 %r2 = %r2, 0x1, RZ ;
BB7:
	#19 BSYNC 0x0 ;
	#15 VOTE.ANY %r3, PT = PT ;
	#16 STG.E [R2.64], %r3 ;
	#17 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestConvergenceCallInOtherArm: one arm of the kernel's if calls g,
// which brackets its own if with B0; the other arm has an if. Threads of
// the second arm can be inside their if while threads of the first run
// g's BSSY 0, so the inner if avoids B0 as well as the outer region's B1
// (fuzz seed 198).
func TestConvergenceCallInOtherArm(t *testing.T) {
	m, err := ori.ParseModule("m.ori", []byte(`.module sm_75 address_size=64

.func g
.shared 0x0
.local 0x0
{
BB0:
	#1 ISETP.GE.AND P0, PT = R4, 0x4, PT ;
	#2 @P0 BRA BB2 ;
BB1:
	#3 IADD3 R4 = R4, 0x1, RZ ;
BB2:
	#4 RET ;
}

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R R4 = SR_TID.X ;
	#2 ISETP.GE.AND P0, PT = R4, 0x8, PT ;
	#3 @P0 BRA BB2 ;
BB1:
	#4 CALL.REL.NOINC `+"`g`"+` ;
	#5 BRA BB4 ;
BB2:
	#6 ISETP.GE.AND P1, PT = R4, 0x10, PT ;
	#7 @P1 BRA BB5 ;
BB3:
	#8 IADD3 R4 = R4, 0x2, RZ ;
BB5:
	#10 IADD3 R4 = R4, 0x3, RZ ;
BB4:
	#9 IADD3 R4 = R4, 0x4, RZ ;
	#15 EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := passByPhase("FixUpTexDepBarAndSync")
	k := m.Func("k")
	if err := k.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(k, &Context{OptLevel: 3, Arch: 75, Module: m}); err != nil {
		t.Fatal(err)
	}
	want := canon(t, `.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R R4 = SR_TID.X ;
	#2 ISETP.GE.AND P0, PT = R4, 0x8, PT ;
	#16 BSSY 0x1, BB4 ;
	#3 @P0 BRA BB2 ;
BB1:
	#4 CALL.REL.NOINC `+"`g`"+` ;
	#5 BRA BB4 ;
BB2:
	#6 ISETP.GE.AND P1, PT = R4, 0x10, PT ;
	#18 BSSY 0x2, BB5 ;
	#7 @P1 BRA BB5 ;
BB3:
	#8 IADD3 R4 = R4, 0x2, RZ ;
BB5:
	#19 BSYNC 0x2 ;
	#10 IADD3 R4 = R4, 0x3, RZ ;
BB4:
	#17 BSYNC 0x1 ;
	#9 IADD3 R4 = R4, 0x4, RZ ;
	#15 EXIT ;
}
`)
	if got := k.String(); got != want {
		t.Fatalf("kernel\n%s\nwant\n%s", got, want)
	}
}

// TestConvergenceLoopRegionOpensBeforeLoop: the loop of BB1 exits at its
// header with a thread-dependent trip count and joins at BB4. Its BSSY
// goes at the end of BB0, before the loop, not before BB1's branch: there
// it would run on every trip, by whichever threads are back at the header
// (the inner loop of BB2 sends them back in groups), and replace the mask
// the threads already waiting at BB4's BSYNC were recorded against (fuzz
// seed 23310084: the last group passed the BSYNC alone and the others
// waited forever). The inner loop of BB5 likewise opens its region at
// the end of BB2, on B1 since the outer region is open around it.
func TestConvergenceLoopRegionOpensBeforeLoop(t *testing.T) {
	in := `.func f
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 LOP3.LUT %r1 = %r0, 0x7, RZ, 0xc0, !PT ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 ISETP.GE.U32.AND %p0, PT = %r2, %r1, PT ;
	#5 @%p0 BRA BB4 ;
BB2:
	#6 MOV %r3 = 0x0 ;
BB5:
	#7 ISETP.GE.U32.AND %p1, PT = %r3, %r0, PT ;
	#8 @%p1 BRA BB3 ;
BB6:
	#9 IADD3 %r3 = %r3, 0x1, RZ ;
	#10 BRA BB5 ;
BB3:
	#11 IADD3 %r2 = %r2, 0x1, RZ ;
	#12 BRA BB1 ;
BB4:
	#13 MOV R4 = %r2 ;
	#14 RET ;
}
`
	got, changed := runPass(t, "FixUpTexDepBarAndSync", in)
	want := canon(t, `.func f
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 LOP3.LUT %r1 = %r0, 0x7, RZ, 0xc0, !PT ;
	#3 MOV %r2 = 0x0 ;
	#15 BSSY 0x0, BB4 ;
BB1:
	#4 ISETP.GE.U32.AND %p0, PT = %r2, %r1, PT ;
	#5 @%p0 BRA BB4 ;
BB2:
	#6 MOV %r3 = 0x0 ;
	#17 BSSY 0x1, BB3 ;
BB5:
	#7 ISETP.GE.U32.AND %p1, PT = %r3, %r0, PT ;
	#8 @%p1 BRA BB3 ;
BB6:
	#9 IADD3 %r3 = %r3, 0x1, RZ ;
	#10 BRA BB5 ;
BB3:
	#18 BSYNC 0x1 ;
	#11 IADD3 %r2 = %r2, 0x1, RZ ;
	#12 BRA BB1 ;
BB4:
	#16 BSYNC 0x0 ;
	#13 MOV R4 = %r2 ;
	#14 RET ;
}
`)
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}
