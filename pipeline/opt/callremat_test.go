package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

func crRun(t *testing.T, body string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := CallRemat.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

const crIn = `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 S2R %r1 = SR_TID.X ;
	#4 STG.E [%r0.64+0x4], %r1 ;
	#5 MOV R4 = %r1 ;
	#6 MOV R2 = ` + "`.ret`" + ` ;
	#7 MOV R3 = RZ ;
	#8 CALL.REL.NOINC ` + "`g`" + ` ;
	#9 MOV %r2 = R4 ;
	#10 STG.E [%r0.64], %r2 ;
	#11 EXIT ;
`

func TestCallRemat(t *testing.T) {
	got, changed := crRun(t, crIn)
	// The pointer is read again after the call into a new register,
	// which the store after the call reads; %r1 (an S2R, not a
	// constant) is left alone.
	want := loopCanon(t, loopKernel(strings.Replace(strings.Replace(crIn,
		"#8 CALL.REL.NOINC `g` ;\n", "#8 CALL.REL.NOINC `g` ;\n\t#12 MOV %r3 = c[0x0][0x160] ;\n\t#13 MOV %r3[1] = c[0x0][0x164] ;\n", 1),
		"#10 STG.E [%r0.64], %r2 ;", "#10 STG.E [%r3.64], %r2 ;", 1)))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if _, changed := crRun(t, crIn, "DisableCallRemat=1"); changed {
		t.Error("changed with DisableCallRemat")
	}
}

func TestCallRematThreadIndex(t *testing.T) {
	// %r1 = SR_TID.X read after the call too: it is read again after
	// the call (into a new register) rather than kept across it.
	in := strings.Replace(crIn, "#11 EXIT ;", "#14 STG.E [RZ], %r1 ;\n\t#11 EXIT ;", 1)
	got, changed := crRun(t, in, "DisableCallRemat=0")
	for _, w := range []string{"#8 CALL.REL.NOINC `g` ;\n\t#15 MOV %r3 = c[0x0][0x160] ;\n\t#16 MOV %r3[1] = c[0x0][0x164] ;\n\t#17 S2R %r4 = SR_TID.X ;", "#14 STG.E [RZ], %r4 ;"} {
		if !changed || !strings.Contains(got, w) {
			t.Errorf("no %q in\n%s", w, got)
		}
	}
	if got, _ := crRun(t, in, "DisableCallRematS2R=1"); strings.Count(got, "S2R") != 1 || !strings.Contains(got, "#14 STG.E [RZ], %r1 ;") {
		t.Errorf("DisableCallRematS2R: the index was read again:\n%s", got)
	}
}

func TestCallRematLiveOut(t *testing.T) {
	// Read in a later block too: the copy keeps the register's name.
	in := strings.Replace(crIn, "#11 EXIT ;", "#14 BRA BB1 ;\nBB1:\n\t#15 STG.E [%r0.64+0x8], RZ ;\n\t#11 EXIT ;", 1)
	got, changed := crRun(t, in)
	for _, w := range []string{"#16 MOV %r0 = c[0x0][0x160] ;", "#17 MOV %r0[1] = c[0x0][0x164] ;", "#10 STG.E [%r0.64], %r2 ;"} {
		if !changed || !strings.Contains(got, w) {
			t.Errorf("no %q in\n%s", w, got)
		}
	}
}

func TestCallRematRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"two definitions", "#4 STG.E", "#16 MOV %r0[1] = RZ ;\n\t#4 STG.E"},
		{"guarded definition", "#2 MOV", "#2 @P0 MOV"},
		{"not a constant", "#2 MOV %r0[1] = c[0x0][0x164]", "#2 S2R %r0[1] = SR_CLOCKLO"},
		{"a based constant-bank read", "#2 MOV %r0[1] = c[0x0][0x164]", "#2 MOV %r0[1] = c[0x0][%r0+0x4]"},
		{"not read after the call", "#10 STG.E [%r0.64], %r2 ;", "#10 STG.E [RZ], %r2 ;"},
	} {
		in := strings.Replace(crIn, tc.from, tc.to, 1)
		if in == crIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if got, changed := crRun(t, in); changed {
			t.Errorf("%s: changed:\n%s", tc.name, got)
		}
	}
}
