package opt

import (
	"strings"
	"testing"
)

func TestSinkCodeIntoBlock(t *testing.T) {
	prRunCases(t, "SinkCodeIntoBlock", []prCase{
		// The constant-bank read and the 64-bit address (IADD3.X first,
		// then its IADD3) move into the block that reads them.
		{name: "into the conditional block", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = c[0x0][0x168] ;
	#3 IADD3 %r1, %p1 = %r0, c[0x0][0x160], RZ ;
	#4 IADD3.X %r1[1] = RZ, c[0x0][0x164], RZ, %p1, !PT ;
	#5 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 IADD3 %r6 = %r0, 0x1, RZ ;
	#8 STG.E [%r1.64], %r6 ;
	#9 STG.E [%r1.64+0x4], %r5 ;
BB2:
	#10 STG.E [R2.64], %r0 ;
	#11 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#5 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 IADD3 %r6 = %r0, 0x1, RZ ;
	#3 IADD3 %r1, %p1 = %r0, c[0x0][0x160], RZ ;
	#4 IADD3.X %r1[1] = RZ, c[0x0][0x164], RZ, %p1, !PT ;
	#8 STG.E [%r1.64], %r6 ;
	#2 MOV %r5 = c[0x0][0x168] ;
	#9 STG.E [%r1.64+0x4], %r5 ;
BB2:
	#10 STG.E [R2.64], %r0 ;
	#11 EXIT ;
`},
		{name: "not into a loop", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = c[0x0][0x168] ;
	#3 MOV %r6 = 0x0 ;
BB1:
	#4 IADD3 %r6 = %r6, %r5, RZ ;
	#5 ISETP.LT.U32.AND %p0, PT = %r6, 0x100, PT ;
	#6 @%p0 BRA BB1 ;
BB2:
	#7 STG.E [R2.64], %r6 ;
	#8 EXIT ;
`},
		{name: "source written on the way", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r5 = %r0, 0x1, RZ ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 S2R %r0 = SR_LANEID ;
	#6 STG.E [R2.64], %r5 ;
	#7 STG.E [R2.64+0x4], %r0 ;
BB2:
	#8 EXIT ;
`},
		{name: "read in two blocks", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r5 = c[0x0][0x168] ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 STG.E [R2.64], %r5 ;
BB2:
	#6 STG.E [R2.64+0x4], %r5 ;
	#7 EXIT ;
`},
		// %r1 and %r2 die at the IADD3: moving it would keep two values
		// live to free one.
		{name: "pressure", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 IADD3 %r2 = %r0, 0x2, RZ ;
	#4 IADD3 %r5 = %r1, %r2, RZ ;
	#5 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 STG.E [R2.64], %r5 ;
BB2:
	#8 EXIT ;
`},
		// The clock changes: its read stays where it is.
		{name: "volatile special register", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 S2R %r5 = SR_CLOCKLO ;
	#3 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 STG.E [R2.64], %r5 ;
BB2:
	#6 EXIT ;
`},
	})
}

// TestSinkSites: each move is a site, numbered bottom-up; allowing the
// first moves only the IADD3.X, and the IADD3 that feeds it, refused
// once, is not proposed again.
func TestSinkSites(t *testing.T) {
	in := prKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#3 IADD3 %r1, %p1 = %r0, c[0x0][0x160], RZ ;
	#4 IADD3.X %r1[1] = RZ, c[0x0][0x164], RZ, %p1, !PT ;
	#5 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#8 STG.E [%r1.64], %r0 ;
BB2:
	#11 EXIT ;
`)
	s := &Sites{Limit: true, Lo: 1, Hi: 1, Record: true}
	got, changed := prRun(t, "SinkCodeIntoBlock", in, false, s)
	want := prCanon(t, prKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#3 IADD3 %r1, %p1 = %r0, c[0x0][0x160], RZ ;
	#5 ISETP.NE.U32.AND %p0, PT = %r0, 0x0, PT ;
	#6 @%p0 BRA BB2 ;
BB1:
	#4 IADD3.X %r1[1] = RZ, c[0x0][0x164], RZ, %p1, !PT ;
	#8 STG.E [%r1.64], %r0 ;
BB2:
	#11 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if s.N != 2 || s.Log[0].Inst != 4 || s.Log[1].Inst != 3 || s.Log[1].Allowed {
		t.Errorf("sites: %+v", s.Log)
	}
}

// remat64 keeps a 64-bit kernel parameter (two MOVs) live across a
// block where four other values are live.
const remat64 = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = c[0x0][0x160] ;
	#3 MOV %r1[1] = c[0x0][0x164] ;
	#4 LDS %r2 = [%r0] ;
	#5 LDS %r3 = [%r0+0x4] ;
	#6 LDS %r4 = [%r0+0x8] ;
	#7 IMAD %r5 = %r2, %r3, %r4 ;
	#8 IMAD %r6 = %r5, %r2, %r3 ;
	#9 IMAD %r7 = %r6, %r4, %r5 ;
	#10 IADD3 %r8 = %r7, %r6, RZ ;
	#11 STG.E [%r1.64], %r8 ;
	#12 EXIT ;
`

func TestRemat(t *testing.T) {
	prRunCases(t, "OriDoRemat", atLowPressure([]prCase{
		{name: "64-bit parameter", in: remat64, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#4 LDS %r2 = [%r0] ;
	#5 LDS %r3 = [%r0+0x4] ;
	#6 LDS %r4 = [%r0+0x8] ;
	#7 IMAD %r5 = %r2, %r3, %r4 ;
	#8 IMAD %r6 = %r5, %r2, %r3 ;
	#9 IMAD %r7 = %r6, %r4, %r5 ;
	#10 IADD3 %r8 = %r7, %r6, RZ ;
	#13 MOV %r9 = c[0x0][0x160] ;
	#14 MOV %r9[1] = c[0x0][0x164] ;
	#11 STG.E [%r9.64], %r8 ;
	#12 EXIT ;
`},
		{name: "RematEnable=0", knob: []string{"RematEnable=0"}, in: remat64},
		{name: "distance below RematMinDistance", knob: []string{"RematMinDistance=10"}, in: remat64},
		// The tree (S2R, SHF) is cloned; %r0 is not live at the use, so
		// the S2R is cloned too rather than read.
		{name: "tree", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x2, RZ ;
	#3 LDS %r2 = [%r0] ;
	#4 LDS %r3 = [%r0+0x4] ;
	#5 LDS %r4 = [%r0+0x8] ;
	#6 IMAD %r5 = %r2, %r3, %r4 ;
	#7 IMAD %r6 = %r5, %r2, %r3 ;
	#8 IMAD %r7 = %r6, %r4, %r5 ;
	#9 IADD3 %r8 = %r7, %r6, RZ ;
	#10 STS [%r1], %r8 ;
	#11 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#3 LDS %r2 = [%r0] ;
	#4 LDS %r3 = [%r0+0x4] ;
	#5 LDS %r4 = [%r0+0x8] ;
	#6 IMAD %r5 = %r2, %r3, %r4 ;
	#7 IMAD %r6 = %r5, %r2, %r3 ;
	#8 IMAD %r7 = %r6, %r4, %r5 ;
	#9 IADD3 %r8 = %r7, %r6, RZ ;
	#12 S2R %r9 = SR_TID.X ;
	#13 SHF.L.U32 %r10 = %r9, 0x2, RZ ;
	#10 STS [%r10], %r8 ;
	#11 EXIT ;
`},
		// The same tree with the budget of one clone stays.
		{name: "RematCostInstLimit", knob: []string{"RematCostInstLimit=1"}, in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x2, RZ ;
	#3 LDS %r2 = [%r0] ;
	#4 LDS %r3 = [%r0+0x4] ;
	#5 LDS %r4 = [%r0+0x8] ;
	#6 IMAD %r5 = %r2, %r3, %r4 ;
	#7 IMAD %r6 = %r5, %r2, %r3 ;
	#8 IMAD %r7 = %r6, %r4, %r5 ;
	#9 IADD3 %r8 = %r7, %r6, RZ ;
	#10 STS [%r1], %r8 ;
	#11 EXIT ;
`},
		// The value is far from its use but not live where the pressure
		// peaks: cloning it would only add an instruction.
		{name: "not at the peak", in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 LDS %r2 = [%r0] ;
	#3 LDS %r3 = [%r0+0x4] ;
	#4 LDS %r4 = [%r0+0x8] ;
	#5 IMAD %r5 = %r2, %r3, %r4 ;
	#6 MOV %r1 = c[0x0][0x160] ;
	#7 IADD3 %r5 = %r5, 0x1, RZ ;
	#8 IADD3 %r5 = %r5, 0x2, RZ ;
	#9 IADD3 %r5 = %r5, 0x3, RZ ;
	#10 IADD3 %r5 = %r5, 0x4, RZ ;
	#11 IADD3 %r5 = %r5, 0x5, RZ ;
	#12 IADD3 %r5 = %r5, 0x6, RZ ;
	#13 IADD3 %r5 = %r5, 0x7, RZ ;
	#14 IADD3 %r5 = %r5, %r1, RZ ;
	#15 STS [0x0], %r5 ;
	#16 EXIT ;
`},
	}))
}

// rematLoop keeps a constant-bank value live across a loop whose body
// reads it, at the loop's peak.
const rematLoop = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = c[0x0][0x168] ;
	#3 MOV %r6 = 0x0 ;
	#4 MOV %r7 = 0x0 ;
BB1:
	#5 LDS %r2 = [%r7] ;
	#6 LDS %r3 = [%r7+0x4] ;
	#7 IMAD %r4 = %r2, %r3, %r6 ;
	#8 IMAD %r6 = %r4, %r2, %r3 ;
	#9 IADD3 %r7 = %r7, 0x8, RZ ;
	#10 IADD3 %r6 = %r6, %r1, RZ ;
	#11 ISETP.LT.U32.AND %p0, PT = %r7, 0x100, PT ;
	#12 @%p0 BRA BB1 ;
BB2:
	#13 STS [%r0], %r6 ;
	#14 EXIT ;
`

// TestRematAggressive rematerializes into a loop only above
// RematMaxRegCount. Below it, only the thread index, live across the
// whole loop, is recomputed after it.
func TestRematAggressive(t *testing.T) {
	prRunCases(t, "OriDoRemat", atLowPressure([]prCase{
		{name: "below the threshold", in: rematLoop, want: `BB0:
	#2 MOV %r1 = c[0x0][0x168] ;
	#3 MOV %r6 = 0x0 ;
	#4 MOV %r7 = 0x0 ;
BB1:
	#5 LDS %r2 = [%r7] ;
	#6 LDS %r3 = [%r7+0x4] ;
	#7 IMAD %r4 = %r2, %r3, %r6 ;
	#8 IMAD %r6 = %r4, %r2, %r3 ;
	#9 IADD3 %r7 = %r7, 0x8, RZ ;
	#10 IADD3 %r6 = %r6, %r1, RZ ;
	#11 ISETP.LT.U32.AND %p0, PT = %r7, 0x100, PT ;
	#12 @%p0 BRA BB1 ;
BB2:
	#15 S2R %r8 = SR_TID.X ;
	#13 STS [%r8], %r6 ;
	#14 EXIT ;
`},
		{name: "above it", knob: []string{"RematMaxRegCount=2"}, in: rematLoop, want: `BB0:
	#3 MOV %r6 = 0x0 ;
	#4 MOV %r7 = 0x0 ;
BB1:
	#5 LDS %r2 = [%r7] ;
	#6 LDS %r3 = [%r7+0x4] ;
	#7 IMAD %r4 = %r2, %r3, %r6 ;
	#8 IMAD %r6 = %r4, %r2, %r3 ;
	#9 IADD3 %r7 = %r7, 0x8, RZ ;
	#16 MOV %r9 = c[0x0][0x168] ;
	#10 IADD3 %r6 = %r6, %r9, RZ ;
	#11 ISETP.LT.U32.AND %p0, PT = %r7, 0x100, PT ;
	#12 @%p0 BRA BB1 ;
BB2:
	#15 S2R %r8 = SR_TID.X ;
	#13 STS [%r8], %r6 ;
	#14 EXIT ;
`},
	}))
}

// rematPred keeps %p0 live across a point where two more predicates are
// live. Its ISETP reads the thread index, which is dead at the far use:
// the tree is the S2R and the ISETP.
const rematPred = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.U32.AND %p0, PT = %r0, 0x1, PT ;
	#3 ISETP.EQ.U32.AND %p1, PT = %r0, 0x2, PT ;
	#4 ISETP.EQ.U32.AND %p2, PT = %r0, 0x3, PT ;
	#5 PLOP3.LUT %p3, PT = %p1, %p2, PT, 0x80, 0x0 ;
	#6 @%p3 STS [0x0], %r0 ;
	#7 IADD3 %r1 = %r0, 0x1, RZ ;
	#8 IADD3 %r1 = %r1, 0x2, RZ ;
	#9 IADD3 %r1 = %r1, 0x3, RZ ;
	#10 IADD3 %r1 = %r1, 0x4, RZ ;
	#11 @%p0 STS [0x4], %r1 ;
	#12 EXIT ;
`

func TestRematPredicates(t *testing.T) {
	// #10 writes %r1 under %p0 and #11 reads it under %p0: pointing #11's
	// guard at a clone of %p0 would pair them through two registers.
	guardedDef := strings.Replace(rematPred, "#10 IADD3 %r1", "#10 @%p0 IADD3 %r1", 1)
	prRunCases(t, "OriDoRemat", atLowPressure([]prCase{
		{name: "off by default", in: rematPred},
		{name: "guard of a read of a value defined under the predicate", knob: []string{"RematEnablePReg"}, in: guardedDef},
		{name: "RematEnablePReg", knob: []string{"RematEnablePReg"}, in: rematPred, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#3 ISETP.EQ.U32.AND %p1, PT = %r0, 0x2, PT ;
	#4 ISETP.EQ.U32.AND %p2, PT = %r0, 0x3, PT ;
	#5 PLOP3.LUT %p3, PT = %p1, %p2, PT, 0x80, 0x0 ;
	#6 @%p3 STS [0x0], %r0 ;
	#7 IADD3 %r1 = %r0, 0x1, RZ ;
	#8 IADD3 %r1 = %r1, 0x2, RZ ;
	#9 IADD3 %r1 = %r1, 0x3, RZ ;
	#10 IADD3 %r1 = %r1, 0x4, RZ ;
	#13 S2R %r2 = SR_TID.X ;
	#14 ISETP.EQ.U32.AND %p4, PT = %r2, 0x1, PT ;
	#11 @%p4 STS [0x4], %r1 ;
	#12 EXIT ;
`},
	}))
}

// TestRematSites: one rematerialization is one site, a refused site
// leaves the function as it was and is not proposed again.
func TestRematSites(t *testing.T) {
	s := &Sites{Limit: true, Lo: 1, Hi: 0, Record: true}
	got, changed := prRun(t, "OriDoRemat", prKernel(remat64), false, s, lowTarget)
	if changed || got != prCanon(t, prKernel(remat64)) {
		t.Fatalf("changed=%v with every site refused:\n%s", changed, got)
	}
	// The pair is proposed from its low word (#2), and once that is
	// refused, from its high word (#3).
	if s.N != 2 || s.Log[0].Inst != 2 || s.Log[1].Inst != 3 || s.Log[0].Allowed || s.Log[1].Allowed {
		t.Errorf("sites: %+v", s.Log)
	}
	// Allowing only the first site gives the full result.
	s = &Sites{Limit: true, Lo: 1, Hi: 1}
	if got, _ := prRun(t, "OriDoRemat", prKernel(remat64), false, s, lowTarget); got == prCanon(t, prKernel(remat64)) {
		t.Errorf("site 1 alone changed nothing")
	}
}

// TestSinkRematPositions checks the early position sinks and rematerializes,
// and that SinkRematEnable=0 and the default RematEarlyEnable=0 leave
// the code alone.
func TestSinkRematPositions(t *testing.T) {
	in := prKernel(remat64)
	if got, changed := prRun(t, "SinkRemat", in, false, nil, lowTarget); !changed || got == prCanon(t, in) {
		t.Errorf("SinkRemat changed nothing")
	}
	for _, c := range []struct {
		pass string
		knob []string
	}{
		{"SinkRemat", []string{"SinkRematEnable=0"}},
		{"OriDoRematEarly", nil},
	} {
		if got, changed := prRun(t, c.pass, in, false, nil, append(c.knob, lowTarget)...); changed || got != prCanon(t, in) {
			t.Errorf("%s %v changed the code:\n%s", c.pass, c.knob, got)
		}
	}
	if _, changed := prRun(t, "OriDoRematEarly", in, false, nil, "RematEarlyEnable=1", lowTarget); !changed {
		t.Errorf("OriDoRematEarly with RematEarlyEnable=1 changed nothing")
	}
}

// TestRematKeepsSSA: the clone defines a fresh register once, so partial
// SSA still verifies, and the phi's read of the original (at the end of
// BB0) stays.
func TestRematKeepsSSA(t *testing.T) {
	prRunCases(t, "OriDoRemat", atLowPressure([]prCase{{name: "ssa", ssa: true, in: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = c[0x0][0x160] ;
	#3 ISETP.EQ.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 LDS %r2 = [%r0] ;
	#6 LDS %r3 = [%r0+0x4] ;
	#7 LDS %r4 = [%r0+0x8] ;
	#8 IMAD %r5 = %r2, %r3, %r4 ;
	#9 IMAD %r6 = %r5, %r2, %r3 ;
	#10 IMAD %r7 = %r6, %r4, %r5 ;
	#11 IADD3 %r8 = %r7, %r6, RZ ;
	#12 STS [%r1], %r8 ;
	#13 MOV %r9 = 0x1 ;
BB2:
	#14 MOV.PHI %r10 = %r1, BB0, %r9, BB1 ;
	#15 STS [0x0], %r10 ;
	#16 EXIT ;
`, want: `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = c[0x0][0x160] ;
	#3 ISETP.EQ.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 LDS %r2 = [%r0] ;
	#6 LDS %r3 = [%r0+0x4] ;
	#7 LDS %r4 = [%r0+0x8] ;
	#8 IMAD %r5 = %r2, %r3, %r4 ;
	#9 IMAD %r6 = %r5, %r2, %r3 ;
	#10 IMAD %r7 = %r6, %r4, %r5 ;
	#11 IADD3 %r8 = %r7, %r6, RZ ;
	#17 MOV %r11 = c[0x0][0x160] ;
	#12 STS [%r11], %r8 ;
	#13 MOV %r9 = 0x1 ;
BB2:
	#14 MOV.PHI %r10 = %r1, BB0, %r9, BB1 ;
	#15 STS [0x0], %r10 ;
	#16 EXIT ;
`}}))
}

// lowTarget sets the register target to 0: the IR tests' kernels are far
// below the 64 registers that give full occupancy on sm_75, and they test
// the mechanics of rematerialization, not when it pays.
const lowTarget = "RematRegTargetFactor=0"

// atLowPressure adds lowTarget to every case's knobs.
func atLowPressure(cs []prCase) []prCase {
	for i := range cs {
		cs[i].knob = append([]string{lowTarget}, cs[i].knob...)
	}
	return cs
}

// TestRematRegisterTarget: with the default target (full occupancy: 64
// registers on sm_75, 32 on sm_80, 40 on sm_86-89) a function whose peak
// pressure is far below it is left alone; RematRegTargetFactor scales
// the target (0: always try).
func TestRematRegisterTarget(t *testing.T) {
	for arch, want := range map[int]int{75: 64, 80: 32, 86: 40, 87: 40, 89: 40} {
		if got := fullOccupancyRegs(arch); got != want {
			t.Errorf("sm_%d: full occupancy at %d registers, want %d", arch, got, want)
		}
	}
	in := prKernel(remat64)
	if got, changed := prRun(t, "OriDoRemat", in, false, nil); changed || got != prCanon(t, in) {
		t.Errorf("rematerialized below the register target:\n%s", got)
	}
	if _, changed := prRun(t, "OriDoRemat", in, false, nil, "RematRegTargetFactor=0"); !changed {
		t.Errorf("RematRegTargetFactor=0 changed nothing")
	}
}
