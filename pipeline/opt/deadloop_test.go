package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// deadLoopRun runs DeadLoops on a kernel and returns its text.
func deadLoopRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := DeadLoops.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// A loop that folds a loaded value into %r6, which nobody reads.
const deadLoopIn = `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 IMAD.WIDE %r4.64 = %r2, 0x4, c[0x0][0x160] ;
	#3 LDG.E %r7 = [%r4.64] ;
	#4 MOV %r5 = 0x0 ;
	#5 MOV %r6 = 0x0 ;
BB1:
	#6 IMAD %r6 = %r6, %r7, %r5 ;
	#7 IADD3 %r5 = %r5, 0x1, RZ ;
	#8 ISETP.LT.AND %p0, PT = %r5, c[0x0][0x168], PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [%r4.64], %r2 ;
	#11 EXIT ;
`

func TestDeadLoop(t *testing.T) {
	got, changed := deadLoopRun(t, deadLoopIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 IMAD.WIDE %r4.64 = %r2, 0x4, c[0x0][0x160] ;
	#3 LDG.E %r7 = [%r4.64] ;
	#4 MOV %r5 = 0x0 ;
	#5 MOV %r6 = 0x0 ;
BB2:
	#10 STG.E [%r4.64], %r2 ;
	#11 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if got, changed := deadLoopRun(t, deadLoopIn, "DisableDeadLoopElim=1"); changed || got != loopCanon(t, loopKernel(deadLoopIn)) {
		t.Errorf("deleted with DisableDeadLoopElim:\n%s", got)
	}
}

func TestDeadLoopRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"result read after", "#10 STG.E [%r4.64], %r2 ;", "#10 STG.E [%r4.64], %r6 ;"},
		{"store in the loop", "#7 IADD3", "#12 STS [%r2], %r6 ;\n\t#7 IADD3"},
		{"load in the loop (a poll)", "#7 IADD3", "#12 LDG.E %r8 = [%r4.64] ;\n\t#7 IADD3"},
		{"warp collective in the loop", "#7 IADD3", "#12 VOTE.ANY %r8, PT = PT ;\n\t#7 IADD3"},
		{"two exit blocks", "#9 @%p0 BRA BB1 ;", "#9 @%p0 BRA BB3 ;\nBB4:\n\t#12 BRA BB2 ;\nBB3:\n\t#13 @%p0 BRA BB1 ;"},
	} {
		in := strings.Replace(deadLoopIn, tc.from, tc.to, 1)
		if in == deadLoopIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if got, changed := deadLoopRun(t, in); changed {
			t.Errorf("%s: deleted\n%s", tc.name, got)
		}
	}
}
