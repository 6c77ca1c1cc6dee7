package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// guardedExitRun runs GuardedExit on a kernel and returns its text.
func guardedExitRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := GuardedExit.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// An early return into the exit block that the loop also reaches.
const guardedExitTaken = `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 ISETP.GE.AND %p1, PT = %r1, c[0x0][0x168], PT ;
	#3 @%p1 BRA BB3 ;
BB1:
	#4 MOV %r2 = 0x0 ;
BB2:
	#5 STS [%r1], %r2 ;
	#6 IADD3 %r2 = %r2, 0x1, RZ ;
	#7 ISETP.LT.AND %p2, PT = %r2, %r1, PT ;
	#8 @%p2 BRA BB2 ;
BB3:
	#9 EXIT ;
`

// An if around the whole body: the branch jumps over the exit block.
const guardedExitOver = `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 ISETP.LT.AND %p1, PT = %r1, c[0x0][0x168], PT ;
	#3 @%p1 BRA BB2 ;
BB1:
	#4 EXIT ;
BB2:
	#5 STS [%r1], %r1 ;
	#6 EXIT ;
`

func TestGuardedExit(t *testing.T) {
	got, changed := guardedExitRun(t, guardedExitTaken)
	want := loopCanon(t, loopKernel(strings.Replace(guardedExitTaken, "#3 @%p1 BRA BB3 ;", "#3 @%p1 EXIT ;", 1)))
	if !changed || got != want {
		t.Fatalf("taken branch: changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	got, changed = guardedExitRun(t, guardedExitOver)
	want = loopCanon(t, loopKernel(`BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 ISETP.LT.AND %p1, PT = %r1, c[0x0][0x168], PT ;
	#3 @!%p1 EXIT ;
BB2:
	#5 STS [%r1], %r1 ;
	#6 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("branch over the exit block: changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	for _, in := range []string{guardedExitTaken, guardedExitOver} {
		if got, changed := guardedExitRun(t, in, "DisableGuardedExit=1"); changed || got != loopCanon(t, loopKernel(in)) {
			t.Errorf("rewrote with DisableGuardedExit:\n%s", got)
		}
	}
}

func TestGuardedExitRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, from, to string }{
		{"exit block does more", guardedExitTaken, "#9 EXIT ;", "#10 STS [%r1], %r1 ;\n\t#9 EXIT ;"},
		{"guarded exit block", guardedExitTaken, "#9 EXIT ;", "#9 @%p1 EXIT ;"},
		{"uniform guard", guardedExitTaken, "#3 @%p1 BRA BB3 ;", "#10 ISETP.GE.AND %up1, PT = RZ, c[0x0][0x168], PT ;\n\t#3 @%up1 BRA BB3 ;"},
		{"exit block named by BSSY", guardedExitTaken, "#3 @%p1 BRA BB3 ;", "#10 BSSY 0x0, BB3 ;\n\t#3 @%p1 BRA BB3 ;"},
		{"exit block has another predecessor", guardedExitOver, "#6 EXIT ;", "#10 @%p1 BRA BB1 ;\nBB3:\n\t#6 EXIT ;"},
		{"target does not follow the exit block", guardedExitOver, "BB2:\n\t#5", "BB4:\n\t#10 IADD3 %r1 = %r1, 0x1, RZ ;\nBB2:\n\t#5"},
	} {
		in := strings.Replace(tc.in, tc.from, tc.to, 1)
		if in == tc.in {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		got, changed := guardedExitRun(t, in)
		if tc.name == "exit block has another predecessor" || tc.name == "target does not follow the exit block" {
			// The branch over the exit block stays; nothing else matches.
			if strings.Contains(got, "@!%p1 EXIT") {
				t.Errorf("%s: rewrote\n%s", tc.name, got)
			}
			continue
		}
		if changed {
			t.Errorf("%s: rewrote\n%s", tc.name, got)
		}
	}
}
