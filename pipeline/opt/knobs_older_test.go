package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/knobs"
)

// runWithKnobs runs a registered pass on in with -knob settings.
func runWithKnobs(t *testing.T, name, in string, cli ...string) (string, bool) {
	t.Helper()
	return applyPass(t, name, in, passRun{skipVerifyIn: true, skipVerifyOut: true, knobs: cli})
}

// commonThroughCopy is TestCommoning's first case (and TestCommoningKnobs'
// input): #6 repeats #4 through the copy #5.
const commonThroughCopy = `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 S2R %r3 = SR_CTAID.X ;
	#3 MOV %r5 = c[0x0][0x0] ;
	#4 IMAD %r6 = %r3, %r5, %r1 ;
	#5 MOV %r9 = %r5 ;
	#6 IMAD %r7 = %r9, %r3, %r1 ;
	#7 IADD3 %r8 = %r7, %r6, RZ ;
	#8 STS [%r8], %r8 ;
	#9 EXIT ;
`

// TestCommoningKnobs: DisableCSE switches commoning off (and the phase
// manager reports it as a no-op); DisableMoveCommoning stops it from
// seeing through the copy.
func TestCommoningKnobs(t *testing.T) {
	in := dcFunc(commonThroughCopy)
	if got, changed := runWithKnobs(t, "OriCommoning", in); !changed || !strings.Contains(got, "#6 MOV %r7 = %r6") {
		t.Fatalf("defaults: changed=%v\n%s", changed, got)
	}
	for _, k := range []string{"DisableCSE", "DisableMoveCommoning"} {
		if got, changed := runWithKnobs(t, "LateOriCommoning", in, k); changed {
			t.Errorf("-knob %s still commoned:\n%s", k, got)
		}
	}
	set, _, _ := knobs.Load(knobs.Default, knobs.Sources{CLI: []string{"DisableCSE"}})
	p, _ := passByPhase("OriCommoning")
	if r := p.NoOp(&Context{OptLevel: 3, Knobs: set}); r != "switched off by the knob DisableCSE" {
		t.Errorf("NoOp reason %q", r)
	}
}

// TestCopyPropConstantBankKnob: a constant-bank copy is propagated into
// an ALU use by default and not with CopyPropConstantBank=0; register
// copies are propagated either way.
func TestCopyPropConstantBankKnob(t *testing.T) {
	in := dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = c[0x0][0x0] ;
	#3 MOV %r2 = %r0 ;
	#4 IMAD %r3 = %r2, %r1, RZ ;
	#5 STS [%r3], %r3 ;
	#6 EXIT ;
`)
	got, _ := runWithKnobs(t, "OriCopyProp", in)
	if !strings.Contains(got, "#4 IMAD %r3 = %r0, c[0x0][0x0], RZ") {
		t.Errorf("defaults:\n%s", got)
	}
	got, _ = runWithKnobs(t, "GeneralOptimizeMid", in, "CopyPropConstantBank=0")
	if !strings.Contains(got, "#4 IMAD %r3 = %r0, %r1, RZ") {
		t.Errorf("CopyPropConstantBank=0:\n%s", got)
	}
}

// TestCommoningDropsSelfMoves: the repeat of a computation into the
// register that already holds it (an unrolled body) is deleted, not
// turned into MOV %r7 = %r7, which would still count as a definition and
// keep LICM from hoisting the first.
func TestCommoningDropsSelfMoves(t *testing.T) {
	got, changed := runPass(t, "OriCommoning", dcFunc(`BB0:
	#1 S2R %r4 = SR_TID.X ;
	#8 S2R %r1 = SR_CTAID.X ;
	#2 IDIV.U32 %r7 = %r4, %r1 ;
	#3 IADD3 %r5 = %r7, 0x1, RZ ;
	#4 IDIV.U32 %r7 = %r4, %r1 ;
	#5 IADD3 %r6 = %r7, %r5, RZ ;
	#6 STS [%r6], %r6 ;
	#7 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r4 = SR_TID.X ;
	#8 S2R %r1 = SR_CTAID.X ;
	#2 IDIV.U32 %r7 = %r4, %r1 ;
	#3 IADD3 %r5 = %r7, 0x1, RZ ;
	#5 IADD3 %r6 = %r7, %r5, RZ ;
	#6 STS [%r6], %r6 ;
	#7 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}
