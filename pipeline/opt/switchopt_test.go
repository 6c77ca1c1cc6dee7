package opt

import "testing"

// swCascade is a cascade of n compare-and-branch links on %r3 over the
// given case values, each to its own case block, defaulting to BB20.
func swCascade(values ...int) string {
	s := "BB0:\n\t#1 S2R %r2 = SR_TID.X ;\n\t#2 LOP3.LUT %r3 = %r2, 0xff, RZ, 0xc0, !PT ;\n"
	id := 10
	for i, v := range values {
		blk := 0
		if i > 0 {
			blk = 1 + i
			s += "BB" + itoa(blk) + ":\n"
		}
		s += "\t#" + itoa(id) + " ISETP.EQ.AND %p" + itoa(i) + ", PT = %r3, " + hex(v) + ", PT ;\n"
		s += "\t#" + itoa(id+1) + " @%p" + itoa(i) + " BRA BB" + itoa(30+i) + " ;\n"
		id += 2
	}
	s += "BB20:\n\t#90 MOV %r4 = 0x7 ;\n\t#91 BRA BB50 ;\n"
	for i := range values {
		s += "BB" + itoa(30+i) + ":\n\t#" + itoa(100+2*i) + " MOV %r4 = " + hex(i) + " ;\n\t#" + itoa(101+2*i) + " BRA BB50 ;\n"
	}
	return s + "BB50:\n\t#200 STG.E [R2.64], %r4 ;\n\t#201 EXIT ;\n"
}

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + itoa(v%10)
}

func hex(v int) string {
	const digits = "0123456789abcdef"
	if v < 16 {
		return "0x" + string(digits[v])
	}
	return hex(v/16) + string(digits[v%16])
}

// TestSwitchOptJumpTable: five dense cases (2..7 without 5, 3 repeated)
// become a bounds check on %r3-2 and a six-entry BRX; the value 5 and
// the repeated 3 (never taken) go to the default.
func TestSwitchOptJumpTable(t *testing.T) {
	got, changed := runPass(t, "DoSwitchOptFirst", dcFunc(swCascade(2, 3, 4, 3, 6, 7)))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 LOP3.LUT %r3 = %r2, 0xff, RZ, 0xc0, !PT ;
	#202 IADD3 %r5 = %r3, -0x2, RZ ;
	#203 ISETP.GT.U32.AND %p6, PT = %r5, 0x5, PT ;
	#204 @%p6 BRA BB20 ;
BB51:
	#205 BRX %r5, BB30, BB31, BB32, BB20, BB34, BB35 ;
BB20:
	#90 MOV %r4 = 0x7 ;
	#91 BRA BB50 ;
BB30:
	#100 MOV %r4 = 0x0 ;
	#101 BRA BB50 ;
BB31:
	#102 MOV %r4 = 0x1 ;
	#103 BRA BB50 ;
BB32:
	#104 MOV %r4 = 0x2 ;
	#105 BRA BB50 ;
BB33:
	#106 MOV %r4 = 0x3 ;
	#107 BRA BB50 ;
BB34:
	#108 MOV %r4 = 0x4 ;
	#109 BRA BB50 ;
BB35:
	#110 MOV %r4 = 0x5 ;
	#111 BRA BB50 ;
BB50:
	#200 STG.E [R2.64], %r4 ;
	#201 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestSwitchOptKeepsCascade: four cases keep their compare-and-branch
// cascade.
func TestSwitchOptKeepsCascade(t *testing.T) {
	expectUnchanged(t, "DoSwitchOptSecond", swCascade(1, 2, 3, 4))
}

// TestSwitchOptSparseKeepsCascade: five sparse cases (5 of a range of
// 401), too sparse for a jump table, keep their cascade by default, as
// ptxas 13.0.88 keeps it (see the Decision in switchopt.go), at both
// positions.
func TestSwitchOptSparseKeepsCascade(t *testing.T) {
	expectUnchanged(t, "DoSwitchOptFirst", swCascade(0, 100, 200, 300, 400))
	expectUnchanged(t, "DoSwitchOptSecond", swCascade(0, 100, 200, 300, 400))
}

// TestSwitchOptTree: under SwitchSearchTree, five sparse cases (5 of a
// range of 401) become the wiki's binary search tree: "less than 200"
// splits {0, 100} from {200, 300, 400}; nodes whose left side is empty
// skip the "less than" test. A value reaches its case in at most 4
// compares instead of 5.
func TestSwitchOptTree(t *testing.T) {
	got, changed := applyPass(t, "DoSwitchOptSecond", dcFunc(swCascade(0, 100, 200, 300, 400)),
		passRun{skipVerifyIn: true, knobs: []string{"SwitchSearchTree"}})
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 LOP3.LUT %r3 = %r2, 0xff, RZ, 0xc0, !PT ;
	#202 ISETP.LT.AND %p5, PT = %r3, 0xc8, PT ;
	#203 @%p5 BRA BB51 ;
BB52:
	#204 ISETP.EQ.AND %p6, PT = %r3, 0xc8, PT ;
	#205 @%p6 BRA BB32 ;
BB53:
	#206 ISETP.EQ.AND %p7, PT = %r3, 0x12c, PT ;
	#207 @%p7 BRA BB33 ;
BB54:
	#208 ISETP.EQ.AND %p8, PT = %r3, 0x190, PT ;
	#209 @%p8 BRA BB34 ;
BB55:
	#210 BRA BB20 ;
BB51:
	#211 ISETP.EQ.AND %p9, PT = %r3, 0x0, PT ;
	#212 @%p9 BRA BB30 ;
BB56:
	#213 ISETP.EQ.AND %p10, PT = %r3, 0x64, PT ;
	#214 @%p10 BRA BB31 ;
BB57:
	#215 BRA BB20 ;
BB20:
	#90 MOV %r4 = 0x7 ;
	#91 BRA BB50 ;
BB30:
	#100 MOV %r4 = 0x0 ;
	#101 BRA BB50 ;
BB31:
	#102 MOV %r4 = 0x1 ;
	#103 BRA BB50 ;
BB32:
	#104 MOV %r4 = 0x2 ;
	#105 BRA BB50 ;
BB33:
	#106 MOV %r4 = 0x3 ;
	#107 BRA BB50 ;
BB34:
	#108 MOV %r4 = 0x4 ;
	#109 BRA BB50 ;
BB50:
	#200 STG.E [R2.64], %r4 ;
	#201 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// swPhiCascade has two links to BB13, whose phi takes %r1 from both, and
// a default BB5 with a phi over the last link and BB12. With vary set,
// the two links carry different values into BB13's phi.
func swPhiCascade(vary bool) string {
	second := "%r1"
	if vary {
		second = "%r0"
	}
	return `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x7 ;
	#3 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#4 @%p0 BRA BB10 ;
BB1:
	#5 ISETP.EQ.AND %p1, PT = %r0, 0x1, PT ;
	#6 @%p1 BRA BB11 ;
BB2:
	#7 ISETP.EQ.AND %p2, PT = %r0, 0x2, PT ;
	#8 @%p2 BRA BB12 ;
BB3:
	#9 ISETP.EQ.AND %p3, PT = %r0, 0x3, PT ;
	#10 @%p3 BRA BB13 ;
BB4:
	#11 ISETP.EQ.AND %p4, PT = %r0, 0x4, PT ;
	#12 @%p4 BRA BB13 ;
BB5:
	#13 MOV.PHI %r5 = %r0, BB4, %r3, BB12 ;
	#14 STG.E [R2.64], %r5 ;
	#15 EXIT ;
BB10:
	#16 STG.E [R2.64], %r0 ;
	#17 EXIT ;
BB11:
	#18 STG.E [R2.64], %r1 ;
	#19 EXIT ;
BB12:
	#20 IADD3 %r3 = %r0, 0x1, RZ ;
	#21 BRA BB5 ;
BB13:
	#22 MOV.PHI %r4 = %r1, BB3, ` + second + `, BB4 ;
	#23 STG.E [R2.64], %r4 ;
	#24 EXIT ;
`
}

// TestSwitchOptPartialSSA: in partial-SSA form the phis of the blocks the
// cascade reaches take their value from the head (bounds check) and the
// table instead of the removed links; when two links carry different
// values into one phi, the cascade stays.
func TestSwitchOptPartialSSA(t *testing.T) {
	got, changed := runPassText(t, "DoSwitchOptSecond", dcFunc(swPhiCascade(false)), true)
	want := canonText(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x7 ;
	#25 ISETP.GT.U32.AND %p5, PT = %r0, 0x4, PT ;
	#26 @%p5 BRA BB5 ;
BB14:
	#27 BRX %r0, BB10, BB11, BB12, BB13, BB13 ;
BB5:
	#13 MOV.PHI %r5 = %r3, BB12, %r0, BB0 ;
	#14 STG.E [R2.64], %r5 ;
	#15 EXIT ;
BB10:
	#16 STG.E [R2.64], %r0 ;
	#17 EXIT ;
BB11:
	#18 STG.E [R2.64], %r1 ;
	#19 EXIT ;
BB12:
	#20 IADD3 %r3 = %r0, 0x1, RZ ;
	#21 BRA BB5 ;
BB13:
	#22 MOV.PHI %r4 = %r1, BB14 ;
	#23 STG.E [R2.64], %r4 ;
	#24 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	in := dcFunc(swPhiCascade(true))
	got, changed = runPassText(t, "DoSwitchOptSecond", in, true)
	if changed || got != canonText(t, in) {
		t.Fatalf("changed=%v\n%s\nwant it unchanged", changed, got)
	}
}
