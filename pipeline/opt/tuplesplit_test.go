package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

func tsRun(t *testing.T, body string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := SplitTuples.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

const tsIn = `BB0:
	#1 MOV %r2 = c[0x0][0x160] ;
	#2 MOV %r2[1] = c[0x0][0x164] ;
	#3 MOV %r4 = R4 ;
	#4 MOV %r4[1] = R5 ;
	#5 MOV %r4[2] = R6 ;
	#6 LOP3.LUT %r5 = %r4[2], %r4[1], RZ, 0xfc, !PT ;
	#7 IADD3 %r5 = %r5, %r4, RZ ;
	#8 STG.E [%r2.64], %r5 ;
	#9 EXIT ;
`

func TestSplitTuples(t *testing.T) {
	got, changed := tsRun(t, tsIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r2 = c[0x0][0x160] ;
	#2 MOV %r2[1] = c[0x0][0x164] ;
	#3 MOV %r4 = R4 ;
	#4 MOV %r6 = R5 ;
	#5 MOV %r7 = R6 ;
	#6 LOP3.LUT %r5 = %r7, %r6, RZ, 0xfc, !PT ;
	#7 IADD3 %r5 = %r5, %r4, RZ ;
	#8 STG.E [%r2.64], %r5 ;
	#9 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if _, changed := tsRun(t, tsIn, "DisableTupleSplit=1"); changed {
		t.Error("split with DisableTupleSplit")
	}
	// A register read whole somewhere stays a tuple: %r2 (an address
	// pair) above, and %r4 once a 64-bit read of its first two words
	// appears.
	got, changed = tsRun(t, strings.Replace(tsIn, "#9 EXIT ;", "#10 STG.E.64 [%r2.64], %r4.64 ;\n\t#9 EXIT ;", 1))
	if changed || !strings.Contains(got, "#5 MOV %r4[2] = R6") {
		t.Fatalf("split a tuple read whole:\n%s", got)
	}
}
