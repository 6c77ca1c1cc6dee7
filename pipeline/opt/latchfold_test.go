package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// headerExitRun runs FoldHeaderExitLoops on a kernel body (unless a knob
// setting switches it off, as the phase manager does) and returns the
// text.
func headerExitRun(t *testing.T, body string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	c := &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)}
	if FoldHeaderExitLoops.NoOp(c) != "" {
		return f.String(), false
	}
	changed, err := FoldHeaderExitLoops.Run(f, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

func TestFoldHeaderExitLoop(t *testing.T) {
	// clang's shape (unrollClang): the header's exit branch is inverted
	// into the back edge, and the latch's lone BRA goes.
	got, changed := headerExitRun(t, unrollClang)
	if want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r2 = 0x0 ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 IADD3 %r1 = %r1, %r2, RZ ;
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
	#6 @!%p0 BRA BB1 ;
BB3:
BB2:
	#8 STG.E [R4.64], %r1 ;
	#9 EXIT ;
`)); !changed || got != want {
		t.Errorf("changed %v, got\n%s\nwant\n%s", changed, got, want)
	}
}

func TestFoldHeaderExitLoopKeeps(t *testing.T) {
	for name, in := range map[string]string{
		// The latch does more than jump back.
		"latch with work": `BB0:
	#1 MOV %r2 = 0x0 ;
BB1:
	#3 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
	#6 @%p0 BRA BB2 ;
BB3:
	#4 IADD3 %r2 = %r2, 0x1, RZ ;
	#7 BRA BB1 ;
BB2:
	#8 STG.E [R4.64], %r2 ;
	#9 EXIT ;
`,
		// The exit block does not follow the latch.
		"exit elsewhere": `BB0:
	#1 MOV %r2 = 0x0 ;
BB1:
	#3 IADD3 %r2 = %r2, 0x1, RZ ;
	#5 ISETP.EQ.AND %p0, PT = %r2, 0x3, PT ;
	#6 @%p0 BRA BB2 ;
BB3:
	#7 BRA BB1 ;
BB4:
	#10 EXIT ;
BB2:
	#8 STG.E [R4.64], %r2 ;
	#9 EXIT ;
`,
	} {
		if got, changed := headerExitRun(t, in); changed || got != loopCanon(t, loopKernel(in)) {
			t.Errorf("%s: changed:\n%s", name, got)
		}
	}
	if got, changed := headerExitRun(t, unrollClang, "DisableHeaderExitFold=1"); changed || got != loopCanon(t, loopKernel(unrollClang)) {
		t.Errorf("DisableHeaderExitFold: changed:\n%s", got)
	}
}
