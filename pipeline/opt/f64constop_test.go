package opt

import (
	"strings"
	"testing"
)

// f64ConstIn names f64 constants through register pairs, as the lowering
// of mov.f64 writes them: %r2 and %r3 are known pairs, %r4's high word
// has two definitions, %r9 is NaN.
const f64ConstIn = `BB0:
	#1 LDG.E.64 %r1.64 = [%r0.64] ;
	#2 MOV %r2 = 0x1b28620d ;
	#3 MOV %r2[1] = 0x40040d93 ;
	#4 MOV %r3 = 0x0 ;
	#5 MOV %r3[1] = 0x3ff00000 ;
	#6 MOV %r4 = 0x0 ;
	#7 MOV %r4[1] = 0x3ff00000 ;
	#8 @P0 MOV %r4[1] = 0x40000000 ;
	#9 MOV %r9 = 0x0 ;
	#10 MOV %r9[1] = 0x7ff80000 ;
	#11 DFMA %r5.64 = %r1.64, %r3.64, %r2.64 ;
	#12 DADD %r6.64 = %r5.64, -|%r2.64| ;
	#13 DSETP.GE.AND P1, PT = %r6.64, %r3.64, PT ;
	#14 DMUL %r7.64 = %r6.64, %r4.64 ;
	#15 DMUL %r8.64 = %r3.64, %r7.64 ;
	#16 DADD %r10.64 = %r8.64, -%r9.64 ;
	#17 DFMA %r11.64 = %r10.64, %r2.64, %r1.64 ;
	#18 DADD %r12.64 = %r11.64, 0d3FF8000000000000 ;
	#19 DFMA %r13.64 = %r12.64, %r3.64, 0d3FF8000000000000 ;
	#22 MOV %r14 = 0x0 ;
	#23 MOV %r14[1] = 0x40000000 ;
	#24 DADD %r14.64 = %r13.64, %r14.64 ;
	#25 DMUL %r14.64 = %r14.64, %r14.64 ;
	#26 DMUL %r15.64 = %r1.64, %r14.64 ;
	#20 STG.E.64 [%r0.64], %r15.64 ;
	#21 EXIT ;
`

// TestF64ConstOperands: a known pair goes into the constant slot, the
// addend of a DFMA whose multiplier is known too (#11), the multiplier
// where only it is known (#17), with '-|..|' applied to the sign (#12);
// not a pair with a second definition (#14), not slot A (#15), not a
// negated NaN (#16), not beside a constant already
// there (#19). %r14 has three definitions: the block's last write before
// #24 is the constant, before #25 and #26 the DADD.
func TestF64ConstOperands(t *testing.T) {
	got, changed := runWithKnobs(t, "GeneralOptimizeMid", dcFunc(f64ConstIn))
	if !changed {
		t.Fatal("no change")
	}
	for _, want := range []string{
		"#11 DFMA %r5.64 = %r1.64, %r3.64, 0d40040D931B28620D ;\n",
		"#12 DADD %r6.64 = %r5.64, 0dC0040D931B28620D ;\n",
		"#13 DSETP.GE.AND P1, PT = %r6.64, 0d3FF0000000000000, PT ;\n",
		"#14 DMUL %r7.64 = %r6.64, %r4.64 ;\n",
		"#15 DMUL %r8.64 = %r3.64, %r7.64 ;\n",
		"#16 DADD %r10.64 = %r8.64, -%r9.64 ;\n",
		"#17 DFMA %r11.64 = %r10.64, 0d40040D931B28620D, %r1.64 ;\n",
		"#24 DADD %r14.64 = %r13.64, 0d4000000000000000 ;\n",
		"#25 DMUL %r14.64 = %r14.64, %r14.64 ;\n",
		"#26 DMUL %r15.64 = %r1.64, %r14.64 ;\n",
		"#19 DFMA %r13.64 = %r12.64, %r3.64, 0d3FF8000000000000 ;\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in\n%s", want, got)
		}
	}
	if got, _ := runWithKnobs(t, "GeneralOptimizeMid", dcFunc(f64ConstIn), "DisableF64ConstOperands=1"); !strings.Contains(got, "#11 DFMA %r5.64 = %r1.64, %r3.64, %r2.64 ;\n") {
		t.Errorf("DisableF64ConstOperands=1 still folded:\n%s", got)
	}
	// A .func has no literal pool: nothing is folded there.
	fn := strings.Replace(dcFunc(f64ConstIn), ".entry k", ".func k", 1)
	if got, _ := runWithKnobs(t, "GeneralOptimizeMid", fn); !strings.Contains(got, "#11 DFMA %r5.64 = %r1.64, %r3.64, %r2.64 ;\n") {
		t.Errorf(".func folded:\n%s", got)
	}
}
