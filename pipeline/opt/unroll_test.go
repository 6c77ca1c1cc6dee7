package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// unrollClang is clang's loop shape: the exit test at the end of the
// header, a latch holding only the back-edge BRA. The counter starts at 0
// and the compare sees it after the increment, so the header runs 3
// times.
const unrollClang = `BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
	#6 @%p0 BRA BB2 ;
BB3:
	#7 BRA BB1 ;
BB2:
	#8 STG.E [R4.64], %r1 ;
	#9 EXIT ;
`

func TestUnrollFullClangShape(t *testing.T) {
	// Copies 1 and 2 get IDs #10-#14 and #15-#19; the exit branch of
	// copies 0 and 1 is never taken and goes, the last copy's is always
	// taken and becomes a BRA to the next block, which goes too; the
	// latches are empty or unreachable and disappear.
	loopExpect(t, "OriLoopUnrolling", loopKernel(unrollClang), loopKernel(`BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
	#10 IADD3 %r1 = %r1, %r2, RZ ;
	#11 IADD3 %r2 = %r2, 0x1, RZ ;
	#12 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
	#15 IADD3 %r1 = %r1, %r2, RZ ;
	#16 IADD3 %r2 = %r2, 0x1, RZ ;
	#17 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
BB2:
	#8 STG.E [R4.64], %r1 ;
	#9 EXIT ;
`), "UnrollHeaderExitLoops=1")
}

// TestUnrollHeaderExitRejected: by default a loop that exits from its
// header, not its latch, stays rolled (ptxas's rejection 13).
func TestUnrollHeaderExitRejected(t *testing.T) {
	if got, want := unrollDecide(t, unrollClang), "BB1: not unrolled (13): the latch BB3 ends in an unconditional branch: the loop exits from BB1, not from its latch"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	in := loopKernel(unrollClang)
	if got, changed := loopRun(t, "OriLoopUnrolling", in); changed || got != loopCanon(t, in) {
		t.Errorf("the loop was unrolled:\n%s", got)
	}
}

// unrollBottom is a bottom-tested loop ("@%p0 BRA header"): the header
// runs 5 times.
const unrollBottom = `BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.LT.AND %p0, PT = %r2, 0x5, PT ;
	#6 @%p0 BRA BB1 ;
BB2:
	#7 STG.E [R4.64], %r1 ;
	#8 EXIT ;
`

func TestUnrollPartialBottomTested(t *testing.T) {
	// Factor 2 with 5 iterations: one peeled copy (BB1, the original),
	// then the loop BB3 made of copies 1 and 2; only the last copy keeps
	// the conditional branch, now back to BB3.
	loopExpect(t, "OriLoopUnrolling", loopKernel(unrollBottom), loopKernel(`BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.LT.AND %p0, PT = %r2, 0x5, PT ;
BB3:
	#9 IADD3 %r1 = %r1, %r2, RZ ;
	#10 IADD3 %r2 = %r2, 0x1, RZ ;
	#11 ISETP.LT.AND %p0, PT = %r2, 0x5, PT ;
	#13 IADD3 %r1 = %r1, %r2, RZ ;
	#14 IADD3 %r2 = %r2, 0x1, RZ ;
	#15 ISETP.LT.AND %p0, PT = %r2, 0x5, PT ;
	#16 @%p0 BRA BB3 ;
BB2:
	#7 STG.E [R4.64], %r1 ;
	#8 EXIT ;
`), "LoopUnrollFactor=2")
	// Without the override 5*4 instructions fit UnrollFullInstLimit.
	got, _ := loopRun(t, "OriLoopUnrolling", loopKernel(unrollBottom))
	if strings.Contains(got, "BRA") || strings.Count(got, "IADD3 %r1 = %r1, %r2, RZ") != 5 {
		t.Errorf("full unroll of 5 iterations:\n%s", got)
	}
}

func TestUnrollKnobsSwitchOff(t *testing.T) {
	in := loopKernel(unrollClang)
	for _, k := range []string{"LoopUnroll=0", "LoopMakeSingleEntry=0", "LoopUnrollFactor=1"} {
		if got, changed := loopRun(t, "OriLoopUnrolling", in, k, "UnrollHeaderExitLoops=1"); changed || got != loopCanon(t, in) {
			t.Errorf("%s: the loop was unrolled:\n%s", k, got)
		}
	}
}

// unrollDecide runs the unroller on a kernel body and returns its
// decisions as text.
func unrollDecide(t *testing.T, body string, settings ...string) string {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	ds, err := unrollLoops(f, &Context{OptLevel: 3, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return strings.Join(out, "\n")
}

func TestUnrollDecisions(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"nounroll pragma", `BB0:
	#1 MOV %r2 = 0x0 ;
BB1 [nounroll]:
	#2 IADD3 %r2 = %r2, 0x1, RZ ;
	#3 ISETP.LT.AND %p0, PT = %r2, 0x5, PT ;
	#4 @%p0 BRA BB1 ;
BB2:
	#5 EXIT ;
`, `BB1: not unrolled (11): the PTX marks the loop .pragma "nounroll"`},
		{"runtime bound", `BB0:
	#1 MOV %r2 = 0x0 ;
BB1:
	#2 IADD3 %r2 = %r2, 0x1, RZ ;
	#3 ISETP.LT.AND %p0, PT = %r2, c[0x0][0x160], PT ;
	#4 @%p0 BRA BB1 ;
BB2:
	#5 EXIT ;
`, "BB1: not unrolled (16): #3 does not compare a register with an immediate bound"},
		{"unknown start", `BB0:
	#1 S2R %r2 = SR_TID.X ;
BB1:
	#2 IADD3 %r2 = %r2, 0x1, RZ ;
	#3 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#4 @%p0 BRA BB1 ;
BB2:
	#5 EXIT ;
`, "BB1: not unrolled (17): the initial value of %r2 is not a constant set on the only path into the loop"},
		{"barrier", `BB0:
	#1 MOV %r2 = 0x0 ;
BB1:
	#2 BAR.SYNC 0x0 ;
	#3 IADD3 %r2 = %r2, 0x1, RZ ;
	#4 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#5 @%p0 BRA BB1 ;
BB2:
	#6 EXIT ;
`, "BB1: not unrolled (11): the body contains BAR.SYNC (#2)"},
		{"two exits", `BB0:
	#1 MOV %r2 = 0x0 ;
BB1:
	#2 LDG.E %r3 = [R4.64] ;
	#3 ISETP.EQ.AND %p1, PT = %r3, 0x0, PT ;
	#4 @%p1 BRA BB2 ;
BB3:
	#5 IADD3 %r2 = %r2, 0x1, RZ ;
	#6 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 EXIT ;
`, "BB1: not unrolled (17): 1 latches and 2 exiting blocks (need one of each)"},
		{"counts down, wraps", `BB0:
	#1 MOV %r2 = 0xa ;
BB1:
	#2 IADD3 %r2 = %r2, -0x3, RZ ;
	#3 ISETP.NE.AND %p0, PT = %r2, 0x0, PT ;
	#4 @%p0 BRA BB1 ;
BB2:
	#5 EXIT ;
`, "BB1: not unrolled (16): the loop runs more than 65536 times (or forever)"},
		{"nested", `BB0:
	#1 MOV %r1 = 0x0 ;
BB1:
	#2 MOV %r2 = 0x0 ;
BB2:
	#3 IADD3 %r2 = %r2, 0x1, RZ ;
	#4 ISETP.LT.U32.AND %p0, PT = %r2, 0x4, PT ;
	#5 @%p0 BRA BB2 ;
BB3:
	#6 IADD3 %r1 = %r1, 0x1, RZ ;
	#7 ISETP.GE.U32.AND PT, %p1 = %r1, 0x2, PT ;
	#8 @%p1 BRA BB1 ;
BB4:
	#9 EXIT ;
`, "BB2: fully unrolled, 4 iterations\nBB1: fully unrolled, 2 iterations"},
		{"partial by heuristic", `BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 LOP3.LUT %r1 = %r1, 0x55, RZ, 0x3c, !PT ;
	#5 IMAD %r1 = %r1, 0x3, %r2 ;
	#6 SHF.R.U32.HI %r3 = RZ, 0x3, %r1 ;
	#7 IADD3 %r1 = %r1, %r3, RZ ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.NE.AND %p0, PT = %r2, 0x63, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`, "BB1: unrolled by 16, 99 iterations (3 peeled)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unrollDecide(t, tc.body); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestUnrollSites(t *testing.T) {
	// Two loops; only the second unroll (site 2) is enabled. The first
	// loop stays exactly as it was.
	body := `BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.LT.AND %p0, PT = %r2, 0x2, PT ;
	#6 @%p0 BRA BB1 ;
BB2:
	#7 MOV %r3 = 0x0 ;
BB3:
	#8 IADD3 %r1 = %r1, 0x5, RZ ;
	#9 IADD3 %r3 = %r3, 0x1, RZ ;
	#10 ISETP.LT.AND %p1, PT = %r3, 0x2, PT ;
	#11 @%p1 BRA BB3 ;
BB4:
	#12 STG.E [R4.64], %r1 ;
	#13 EXIT ;
`
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	p, _ := passByPhase("OriLoopUnrolling")
	if _, err := p.Run(f, &Context{OptLevel: 3, Sites: &Sites{Limit: true, Lo: 2, Hi: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.LT.AND %p0, PT = %r2, 0x2, PT ;
	#6 @%p0 BRA BB1 ;
BB2:
	#7 MOV %r3 = 0x0 ;
BB3:
	#8 IADD3 %r1 = %r1, 0x5, RZ ;
	#9 IADD3 %r3 = %r3, 0x1, RZ ;
	#10 ISETP.LT.AND %p1, PT = %r3, 0x2, PT ;
	#14 IADD3 %r1 = %r1, 0x5, RZ ;
	#15 IADD3 %r3 = %r3, 0x1, RZ ;
	#16 ISETP.LT.AND %p1, PT = %r3, 0x2, PT ;
BB4:
	#12 STG.E [R4.64], %r1 ;
	#13 EXIT ;
`))
	if got := f.String(); got != want {
		t.Errorf("sites 2..2:\n%s\nwant\n%s", got, want)
	}
}
