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

// TestSwitchOptKeepsCascade: four cases, or five sparse ones (5 of a
// range of 401), keep their compare-and-branch cascade.
func TestSwitchOptKeepsCascade(t *testing.T) {
	for _, vals := range [][]int{{1, 2, 3, 4}, {0, 100, 200, 300, 400}} {
		expectUnchanged(t, "DoSwitchOptSecond", swCascade(vals...))
	}
}
