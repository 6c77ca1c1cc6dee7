package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// setpFoldRun runs FoldSetpPred on a kernel and returns its text.
func setpFoldRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := FoldSetpPred.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

const setpFoldIn = `BB0:
	#1 S2R %r1 = SR_TID.X ;
	#2 S2R %r2 = SR_CTAID.X ;
	#3 ISETP.LT.AND %p1, PT = %r2, c[0x0][0x16c], PT ;
	#4 ISETP.LT.U32.AND %p0, PT = %r1, c[0x0][0x168], PT ;
	#5 PLOP3.LUT %p2, PT = %p0, %p1, PT, 0xc0, 0x0 ;
	#6 @!%p2 EXIT ;
BB1:
	#7 STS [%r1], %r2 ;
	#8 @%p1 EXIT ;
BB2:
	#9 EXIT ;
`

func TestSetpPredFold(t *testing.T) {
	for _, tc := range []struct{ name, plop, want string }{
		{"and", "PLOP3.LUT %p2, PT = %p0, %p1, PT, 0xc0, 0x0", "ISETP.LT.U32.AND %p2, PT = %r1, c[0x0][0x168], %p1"},
		{"or, d second", "PLOP3.LUT %p2, PT = %p1, %p0, PT, 0xfc, 0x0", "ISETP.LT.U32.OR %p2, PT = %r1, c[0x0][0x168], %p1"},
		{"and not", "PLOP3.LUT %p2, PT = %p0, %p1, PT, 0x30, 0x0", "ISETP.LT.U32.AND %p2, PT = %r1, c[0x0][0x168], !%p1"},
		{"negated operand", "PLOP3.LUT %p2, PT = %p0, !%p1, PT, 0xc0, 0x0", "ISETP.LT.U32.AND %p2, PT = %r1, c[0x0][0x168], !%p1"},
		{"xor", "PLOP3.LUT %p2, PT = %p0, %p1, PT, 0x3c, 0x0", "ISETP.LT.U32.XOR %p2, PT = %r1, c[0x0][0x168], %p1"},
		{"x third, first PT", "PLOP3.LUT %p2, PT = PT, %p0, %p1, 0x88, 0x0", "ISETP.LT.U32.AND %p2, PT = %r1, c[0x0][0x168], %p1"},
	} {
		in := strings.Replace(setpFoldIn, "PLOP3.LUT %p2, PT = %p0, %p1, PT, 0xc0, 0x0", tc.plop, 1)
		got, changed := setpFoldRun(t, in)
		want := loopCanon(t, loopKernel(strings.Replace(strings.Replace(setpFoldIn,
			"\t#4 ISETP.LT.U32.AND %p0, PT = %r1, c[0x0][0x168], PT ;\n", "", 1),
			"PLOP3.LUT %p2, PT = %p0, %p1, PT, 0xc0, 0x0", tc.want, 1)))
		if !changed || got != want {
			t.Errorf("%s: changed=%v\n%s\nwant\n%s", tc.name, changed, got, want)
		}
	}
	if got, changed := setpFoldRun(t, setpFoldIn, "DisableSetpPredFold=1"); changed || got != loopCanon(t, loopKernel(setpFoldIn)) {
		t.Errorf("folded with DisableSetpPredFold:\n%s", got)
	}
}

func TestSetpPredFoldRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"result read twice", "#7 STS [%r1], %r2 ;", "#7 STS [%r1], %r2 ;\n\t#10 @%p0 STS [%r1], %r1 ;"},
		{"result read negated", "= %p0, %p1, PT, 0xc0", "= !%p0, %p1, PT, 0xc0"},
		{"copy, not a combination", "= %p0, %p1, PT, 0xc0", "= %p0, %p1, PT, 0xf0"},
		{"two other inputs", "= %p0, %p1, PT, 0xc0", "= %p0, %p1, %p1, 0x80"},
		{"combination of d with itself only is not d OP x", "0xc0, 0x0", "0x0f, 0x0"},
		{"guarded comparison", "#4 ISETP", "#4 @%p1 ISETP"},
		{"comparison already combines", "c[0x0][0x168], PT ;", "c[0x0][0x168], %p1 ;"},
		{"source rewritten in between", "#5 PLOP3", "#10 S2R %r1 = SR_TID.Y ;\n\t#5 PLOP3"},
	} {
		in := strings.Replace(setpFoldIn, tc.from, tc.to, 1)
		if in == setpFoldIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if got, changed := setpFoldRun(t, in); changed {
			t.Errorf("%s: folded\n%s", tc.name, got)
		}
	}
}
