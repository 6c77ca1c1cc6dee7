package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// invertRun runs InvertLoops on a kernel and returns it.
func invertRun(t *testing.T, in string, settings ...string) (*ori.Func, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := InvertLoops.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f, changed
}

const invertIn = `BB0:
	#1 S2R %r5 = SR_TID.X ;
	#2 MOV %r6 = 0x0 ;
BB1:
	#3 ISETP.GE.AND %p0, PT = %r5, c[0x0][0x168], PT ;
	#4 @%p0 BRA BB3 ;
BB2:
	#5 IADD3 %r6 = %r6, %r5, RZ ;
	#6 IADD3 %r5 = %r5, 0x20, RZ ;
	#7 BRA BB1 ;
BB3:
	#8 STS [%r5], %r6 ;
	#9 EXIT ;
`

func TestLoopInversion(t *testing.T) {
	f, changed := invertRun(t, invertIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r5 = SR_TID.X ;
	#2 MOV %r6 = 0x0 ;
BB1:
	#3 ISETP.GE.AND %p0, PT = %r5, c[0x0][0x168], PT ;
	#4 @%p0 BRA BB3 ;
BB4:
BB2:
	#5 IADD3 %r6 = %r6, %r5, RZ ;
	#6 IADD3 %r5 = %r5, 0x20, RZ ;
	#10 ISETP.GE.AND %p0, PT = %r5, c[0x0][0x168], PT ;
	#11 @!%p0 BRA BB2 ;
BB3:
	#8 STS [%r5], %r6 ;
	#9 EXIT ;
`))
	if got := f.String(); !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	// The convergence pass brackets the guard only: the back edge's
	// region lies inside it and meets at the same block.
	if _, err := Convergence.Run(f, &Context{OptLevel: 3, Arch: 80}); err != nil {
		t.Fatal(err)
	}
	if got := f.String(); strings.Count(got, "BSSY") != 1 || !strings.Contains(got, "BSSY 0x0, BB3 ;\n\t#4 @%p0 BRA BB3 ;") {
		t.Errorf("convergence after inversion:\n%s\nwant one BSSY, before the guard", got)
	}
	if _, changed := invertRun(t, invertIn, "LoopInversion=0"); changed {
		t.Error("inverted with LoopInversion=0")
	}
}

func TestLoopInversionRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"exit block does not follow the latch", "BB3:\n\t#8", "BB5:\n\t#12 BRA BB3 ;\nBB3:\n\t#8"},
		{"header writes memory", "#3 ISETP", "#12 STS [%r5], %r5 ;\n\t#3 ISETP"},
		{"header votes", "#3 ISETP", "#12 VOTE.ANY %r7, PT = PT ;\n\t#3 ISETP"},
		{"guarded back edge", "#7 BRA BB1 ;", "#7 @%p0 BRA BB1 ;"},
		{"header too long", "#3 ISETP", "#12 IADD3 %r7 = %r5, 0x1, RZ ;\n\t#13 IADD3 %r7 = %r7, 0x1, RZ ;\n\t#14 IADD3 %r7 = %r7, 0x1, RZ ;\n\t#15 IADD3 %r7 = %r7, 0x1, RZ ;\n\t#3 ISETP"},
	} {
		in := strings.Replace(invertIn, tc.from, tc.to, 1)
		if in == invertIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if f, changed := invertRun(t, in); changed {
			t.Errorf("%s: inverted\n%s", tc.name, f)
		}
	}
}
