package opt

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// loopKernel wraps a block listing in a kernel header.
func loopKernel(body string) string {
	return ".entry k\n.shared 0x0\n.local 0x0\n{\n" + body + "}\n"
}

// loopCanon parses and prints text so that spacing and CFG comments match
// the printer's.
func loopCanon(t *testing.T, s string) string {
	t.Helper()
	f, err := ori.ParseFunc("want.ori", []byte(s))
	if err != nil {
		t.Fatalf("parse want: %v", err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	return f.String()
}

// loopKnobs returns a knob set with the given -knob settings.
func loopKnobs(t *testing.T, settings ...string) *knobs.Set {
	t.Helper()
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: settings})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loopRun parses in, runs the registered pass name at -O3 with the given
// knob settings, verifies the result and returns its text.
func loopRun(t *testing.T, name, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(in))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	ssa := loopHasPhi(f)
	return applyPass(t, name, in, passRun{ssaIn: ssa, ssaOut: ssa, knobSet: loopKnobs(t, settings...)})
}

// loopExpect runs the pass and compares with want (exact text).
func loopExpect(t *testing.T, name, in, want string, settings ...string) {
	t.Helper()
	got, changed := loopRun(t, name, in, settings...)
	w := loopCanon(t, want)
	if got != w {
		t.Fatalf("%s:\n%s\nwant\n%s", name, got, w)
	}
	if changed != (loopCanon(t, in) != w) {
		t.Errorf("%s reported changed=%v", name, changed)
	}
}

// licmCounted is a counted loop whose body recomputes a parameter address
// and a shifted thread index; the preheader BB0 falls through into it.
const licmCounted = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 MOV %r3 = c[0x0][0x160] ;
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r5 = %r3, %r4, %r2 ;
	#7 IADD3 %r1 = %r1, %r5, RZ ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`

func TestLICMHoistsInvariants(t *testing.T) {
	// #4 and #5 read nothing the loop writes; #6 reads the counter. BB0
	// has BB1 as its only successor, so it is the preheader and no block
	// is added.
	loopExpect(t, "OriHoistInvariantsEarly", loopKernel(licmCounted), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r3 = c[0x0][0x160] ;
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
BB1:
	#6 IADD3 %r5 = %r3, %r4, %r2 ;
	#7 IADD3 %r1 = %r1, %r5, RZ ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`))
}

func TestLICMKnobs(t *testing.T) {
	in := loopKernel(licmCounted)
	for _, name := range licmPositions {
		if _, changed := loopRun(t, name, in, "HoistLate=3"); changed {
			t.Errorf("%s hoisted with HoistLate=3", name)
		}
		if _, changed := loopRun(t, name, in); !changed {
			t.Errorf("%s hoisted nothing by default", name)
		}
	}
	// A budget of one instruction hoists only #4.
	loopExpect(t, "OriHoistInvariantsLate", in, loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r3 = c[0x0][0x160] ;
BB1:
	#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;
	#6 IADD3 %r5 = %r3, %r4, %r2 ;
	#7 IADD3 %r1 = %r1, %r5, RZ ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x8, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [R4.64], %r1 ;
	#12 EXIT ;
`), "HoistLoopInvBudget=1")
}

func TestLICMZeroTripLoop(t *testing.T) {
	// The loop tests at the top and may run zero times. #5 is used only
	// inside the loop and moves; #6's result is read after the loop, so
	// %r3 is live into the header (the zero-trip path reads the old value)
	// and #6 stays.
	loopExpect(t, "OriHoistInvariantsEarly", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#11 MOV %r3 = 0x0 ;
BB1:
	#3 ISETP.GE.AND %p0, PT = %r1, %r0, PT ;
	#4 @%p0 BRA BB3 ;
BB2:
	#5 SHF.L.U32 %r2 = %r0, 0x2, RZ ;
	#6 IADD3 %r3 = %r0, 0x5, RZ ;
	#7 IADD3 %r1 = %r1, %r2, RZ ;
	#8 BRA BB1 ;
BB3:
	#9 STG.E [R4.64], %r3 ;
	#10 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#11 MOV %r3 = 0x0 ;
	#5 SHF.L.U32 %r2 = %r0, 0x2, RZ ;
BB1:
	#3 ISETP.GE.AND %p0, PT = %r1, %r0, PT ;
	#4 @%p0 BRA BB3 ;
BB2:
	#6 IADD3 %r3 = %r0, 0x5, RZ ;
	#7 IADD3 %r1 = %r1, %r2, RZ ;
	#8 BRA BB1 ;
BB3:
	#9 STG.E [R4.64], %r3 ;
	#10 EXIT ;
`))
}

// licmLoads: BB1 runs in every iteration, BB2 only sometimes.
const licmLoads = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r9 = 0x0 ;
BB1:
	#4 LDG.E.CONSTANT %r2 = [R4.64] ;
	#5 LDG.E %r3 = [R4.64+0x4] ;
	#6 LDG.E %r4 = [R4.64+0x8] ;
	#7 ISETP.EQ.AND %p1, PT = %r0, 0x3, PT ;
	#8 @%p1 BRA BB3 ;
BB2:
	#9 LDC %r5 = c[0x3][%r0] ;
	#10 LDG.E %r6 = [R4.64+0xc] ;
	#11 IADD3 %r9 = %r9, %r5, %r6 ;
BB3:
	#12 IADD3 %r9 = %r9, %r2, %r3 ;
	#13 IADD3 %r1 = %r1, 0x1, RZ ;
	#14 ISETP.LT.AND %p0, PT = %r1, %r4, PT ;
	#15 @%p0 BRA BB1 ;
BB4:
	#16 STG.E [R4.64], %r9 ;
	#17 EXIT ;
`

func TestLICMLoads(t *testing.T) {
	// #4 (read-only) and #5 (no store in the loop) run in every iteration
	// and move; #6 feeds the exit test and stays (a polling loop must keep
	// polling); #9 is a constant-bank load, which never faults, so it
	// moves out of the conditional block; #10 may fault and runs only
	// sometimes, so it stays.
	loopExpect(t, "OriHoistInvariantsLate", loopKernel(licmLoads), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r9 = 0x0 ;
	#4 LDG.E.CONSTANT %r2 = [R4.64] ;
	#5 LDG.E %r3 = [R4.64+0x4] ;
	#7 ISETP.EQ.AND %p1, PT = %r0, 0x3, PT ;
	#9 LDC %r5 = c[0x3][%r0] ;
BB1:
	#6 LDG.E %r4 = [R4.64+0x8] ;
	#8 @%p1 BRA BB3 ;
BB2:
	#10 LDG.E %r6 = [R4.64+0xc] ;
	#11 IADD3 %r9 = %r9, %r5, %r6 ;
BB3:
	#12 IADD3 %r9 = %r9, %r2, %r3 ;
	#13 IADD3 %r1 = %r1, 0x1, RZ ;
	#14 ISETP.LT.AND %p0, PT = %r1, %r4, PT ;
	#15 @%p0 BRA BB1 ;
BB4:
	#16 STG.E [R4.64], %r9 ;
	#17 EXIT ;
`))
	// A store anywhere in the loop keeps the plain load #5 in; the
	// read-only one still moves.
	withStore := strings.Replace(licmLoads, "#11 IADD3 %r9 = %r9, %r5, %r6 ;", "#11 IADD3 %r9 = %r9, %r5, %r6 ;\n\t#18 STG.E [R6.64], %r9 ;", 1)
	got, _ := loopRun(t, "OriHoistInvariantsLate", loopKernel(withStore))
	if !strings.Contains(got, "#4 LDG.E.CONSTANT %r2 = [R4.64] ;\n\t#7") {
		t.Errorf("with a store, the read-only load stayed:\n%s", got)
	}
	if i, j := strings.Index(got, "#5 LDG"), strings.Index(got, "BB1:"); i < j {
		t.Errorf("the plain load was hoisted past a store in the loop:\n%s", got)
	}
	// ld.volatile (STRONG.SYS, from the lowering) stays where #5 moved:
	// another thread may change the location between iterations.
	vol := strings.Replace(licmLoads, "#5 LDG.E %r3", "#5 LDG.E.STRONG.SYS %r3", 1)
	got, _ = loopRun(t, "OriHoistInvariantsLate", loopKernel(vol))
	if i, j := strings.Index(got, "#5 LDG"), strings.Index(got, "BB1:"); i < j {
		t.Errorf("the volatile load was hoisted:\n%s", got)
	}
}

func TestLICMBlockers(t *testing.T) {
	for _, tc := range []struct{ name, extra string }{
		{"barrier", "#18 BAR.SYNC 0x0 ;"},
		{"warpsync", "#18 WARPSYNC 0xffffffff ;"},
	} {
		in := strings.Replace(licmCounted, "#7 IADD3 %r1 = %r1, %r5, RZ ;", "#7 IADD3 %r1 = %r1, %r5, RZ ;\n\t"+tc.extra, 1)
		if got, changed := loopRun(t, "OriHoistInvariantsEarly", loopKernel(in)); changed {
			t.Errorf("%s: hoisted out of a loop with %s:\n%s", tc.name, tc.extra, got)
		}
	}
	// A clock read is not invariant; neither is an ABI register when the
	// loop calls a function (calls clobber every register but R1), while
	// R1 itself is (HoistAcrossCalls: by default nothing the loop keeps
	// live is hoisted out of a loop with a CALL, TestLICMPressureCall).
	loopExpect(t, "OriHoistInvariantsEarly", loopKernel(`BB0:
	#1 MOV %r1 = 0x0 ;
BB1:
	#2 S2R %r2 = SR_CLOCKLO ;
	#3 IADD3 %r3 = R4, 0x1, RZ ;
	#4 IADD3 %r4 = R1, 0x10, RZ ;
	#5 CALL `+"`f`"+` ;
	#6 IADD3 %r1 = %r1, %r2, %r3 ;
	#7 IADD3 %r1 = %r1, %r4, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r1, 0x100, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [R6.64], %r1 ;
	#11 EXIT ;
`), loopKernel(`BB0:
	#1 MOV %r1 = 0x0 ;
	#4 IADD3 %r4 = R1, 0x10, RZ ;
BB1:
	#2 S2R %r2 = SR_CLOCKLO ;
	#3 IADD3 %r3 = R4, 0x1, RZ ;
	#5 CALL `+"`f`"+` ;
	#6 IADD3 %r1 = %r1, %r2, %r3 ;
	#7 IADD3 %r1 = %r1, %r4, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r1, 0x100, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [R6.64], %r1 ;
	#11 EXIT ;
`), "HoistAcrossCalls=1")
}

func TestLICMNested(t *testing.T) {
	// The inner loop BB2 is visited first: #5 and #6 move to its
	// preheader BB1. Visiting the outer loop BB1 then moves #5 on to BB0;
	// #6 reads the outer counter %r1 and stays in BB1.
	loopExpect(t, "OriHoistInvariantsEarly", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r5 = 0x0 ;
BB1:
	#4 MOV %r2 = 0x0 ;
BB2:
	#5 IADD3 %r3 = %r0, 0x7, RZ ;
	#6 IADD3 %r4 = %r1, %r0, RZ ;
	#7 IADD3 %r5 = %r5, %r3, %r4 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x4, PT ;
	#10 @%p0 BRA BB2 ;
BB3:
	#11 IADD3 %r1 = %r1, 0x1, RZ ;
	#12 ISETP.LT.AND %p1, PT = %r1, 0x4, PT ;
	#13 @%p1 BRA BB1 ;
BB4:
	#14 STG.E [R4.64], %r5 ;
	#15 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r5 = 0x0 ;
	#5 IADD3 %r3 = %r0, 0x7, RZ ;
BB1:
	#4 MOV %r2 = 0x0 ;
	#6 IADD3 %r4 = %r1, %r0, RZ ;
BB2:
	#7 IADD3 %r5 = %r5, %r3, %r4 ;
	#8 IADD3 %r2 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r2, 0x4, PT ;
	#10 @%p0 BRA BB2 ;
BB3:
	#11 IADD3 %r1 = %r1, 0x1, RZ ;
	#12 ISETP.LT.AND %p1, PT = %r1, 0x4, PT ;
	#13 @%p1 BRA BB1 ;
BB4:
	#14 STG.E [R4.64], %r5 ;
	#15 EXIT ;
`))
}

func TestLICMGuardedExitBeforeLoop(t *testing.T) {
	// BB0 ends with a guarded EXIT and falls into the loop: code put at
	// its end would run for the exiting threads too, so the load goes to
	// a new preheader BB3 instead.
	loopExpect(t, "OriHoistInvariantsEarly", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 ISETP.GE.AND %p1, PT = %r0, 0x10, PT ;
	#4 @%p1 EXIT ;
BB1:
	#5 LDG.E.CONSTANT %r2 = [R4.64] ;
	#6 IADD3 %r1 = %r1, %r2, RZ ;
	#7 ISETP.LT.AND %p0, PT = %r1, 0x100, PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 STG.E [R6.64], %r1 ;
	#10 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 ISETP.GE.AND %p1, PT = %r0, 0x10, PT ;
	#4 @%p1 EXIT ;
BB3:
	#5 LDG.E.CONSTANT %r2 = [R4.64] ;
BB1:
	#6 IADD3 %r1 = %r1, %r2, RZ ;
	#7 ISETP.LT.AND %p0, PT = %r1, 0x100, PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 STG.E [R6.64], %r1 ;
	#10 EXIT ;
`))
}

func TestLICMPartialSSA(t *testing.T) {
	// In partial-SSA form the counter is a phi; the invariant #7 moves to
	// a new preheader BB4 that merges the two entering values in a phi.
	loopExpect(t, "OriHoistInvariantsLate", loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB1 ;
BB3:
	#4 MOV %r1 = 0x7 ;
BB1:
	#5 MOV.PHI %r2 = %r0, BB0, %r1, BB3, %r3, BB1 ;
	#6 MOV.PHI %r4 = RZ, BB0, RZ, BB3, %r6, BB1 ;
	#7 SHF.L.U32 %r5 = %r0, 0x3, RZ ;
	#8 IADD3 %r6 = %r4, %r5, %r2 ;
	#9 IADD3 %r3 = %r2, 0x1, RZ ;
	#10 ISETP.LT.AND %p1, PT = %r3, 0x10, PT ;
	#11 @%p1 BRA BB1 ;
BB2:
	#12 STG.E [R4.64], %r6 ;
	#13 EXIT ;
`), loopKernel(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x4, PT ;
	#3 @%p0 BRA BB4 ;
BB3:
	#4 MOV %r1 = 0x7 ;
BB4:
	#14 MOV.PHI %r7 = %r0, BB0, %r1, BB3 ;
	#15 MOV.PHI %r8 = RZ, BB0, RZ, BB3 ;
	#7 SHF.L.U32 %r5 = %r0, 0x3, RZ ;
BB1:
	#5 MOV.PHI %r2 = %r3, BB1, %r7, BB4 ;
	#6 MOV.PHI %r4 = %r6, BB1, %r8, BB4 ;
	#8 IADD3 %r6 = %r4, %r5, %r2 ;
	#9 IADD3 %r3 = %r2, 0x1, RZ ;
	#10 ISETP.LT.AND %p1, PT = %r3, 0x10, PT ;
	#11 @%p1 BRA BB1 ;
BB2:
	#12 STG.E [R4.64], %r6 ;
	#13 EXIT ;
`))
}

func TestLICMSites(t *testing.T) {
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(licmCounted)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	// Only site 2 (#5) is enabled: #4 stays, #5 moves (it does not read
	// #4's result).
	sites := &Sites{Limit: true, Lo: 2, Hi: 2, Record: true}
	p, _ := passByPhase("OriHoistInvariantsEarly")
	if _, err := p.Run(f, &Context{OptLevel: 3, Sites: sites}); err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	got := f.String()
	if !strings.Contains(got, "#5 SHF.L.U32 %r4 = %r0, 0x2, RZ ;\nBB1:") || !strings.Contains(got, "BB1:                                    // preds BB0 BB1 | succs BB1 BB2\n\t#4 MOV") {
		t.Errorf("sites 2..2:\n%s", got)
	}
	var log []string
	for _, s := range sites.Log {
		log = append(log, fmt.Sprintf("%d #%d %s %v", s.N, s.Inst, s.What, s.Allowed))
	}
	want := "1 #4 hoist a loop-invariant instruction false\n2 #5 hoist a loop-invariant instruction true"
	if strings.Join(log, "\n") != want {
		t.Errorf("site log:\n%s\nwant\n%s", strings.Join(log, "\n"), want)
	}
}
