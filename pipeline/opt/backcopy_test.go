package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// TestBackCopyProp pins OriBackCopyPropagate's rewrites: a chain collapses
// from its end, a read of the temporary after the copy (left there by
// forward copy propagation) is rewritten to the copy's result, and every
// case where renaming would change a value is left alone.
func TestBackCopyProp(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"chain", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 MOV %r2 = %r1 ;
	#4 MOV %r3 = %r2 ;
	#5 STG.E [R2.64], %r3 ;
	#6 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r3 = %r0, 0x1, RZ ;
	#5 STG.E [R2.64], %r3 ;
	#6 EXIT ;
`},
		{"loop variable, temporary read after the loop", `BB0:
	#1 MOV %r5 = 0x0 ;
BB1:
	#2 IADD3 %r9 = %r5, 0x3, RZ ;
	#3 MOV %r5 = %r9 ;
	#4 ISETP.LT.U32.AND %p0, PT = %r9, 0x10, PT ;
	#5 @%p0 BRA BB1 ;
BB2:
	#6 STG.E [R2.64], %r9 ;
	#7 EXIT ;
`, `BB0:
	#1 MOV %r5 = 0x0 ;
BB1:
	#2 IADD3 %r5 = %r5, 0x3, RZ ;
	#4 ISETP.LT.U32.AND %p0, PT = %r5, 0x10, PT ;
	#5 @%p0 BRA BB1 ;
BB2:
	#6 STG.E [R2.64], %r5 ;
	#7 EXIT ;
`},
		{"one word of a vector store's tuple", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 IMAD %r2 = %r0, 0x3, RZ ;
	#4 MOV %r9[0] = %r1 ;
	#5 MOV %r9[1] = %r2 ;
	#6 STS.64 [RZ], %r9.64 ;
	#7 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r9[0] = %r0, 0x1, RZ ;
	#3 IMAD %r9[1] = %r0, 0x3, RZ ;
	#6 STS.64 [RZ], %r9.64 ;
	#7 EXIT ;
`},
		{"read between the definition and the copy", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 STG.E [R2.64], %r1 ;
	#4 MOV %r2 = %r1 ;
	#5 STG.E [R4.64], %r2 ;
	#6 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r2 = %r0, 0x1, RZ ;
	#3 STG.E [R2.64], %r2 ;
	#5 STG.E [R4.64], %r2 ;
	#6 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := runPass(t, "OriBackCopyPropagate", dcFunc(c.in))
			if want := canon(t, dcFunc(c.want)); !changed || got != want {
				t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
			}
		})
	}
}

func TestBackCopyPropLeavesAlone(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		// The old %r2 is read between the definition and the copy.
		{"result read in between", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#8 MOV %r2 = 0x7 ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 STG.E [R2.64], %r2 ;
	#4 MOV %r2 = %r1 ;
	#5 STG.E [R4.64], %r2 ;
	#6 EXIT ;
`},
		// %r1 is read where %r2 may hold something else (BB2 is also
		// reached from BB0 with %r2 = 0x7).
		{"temporary read where the copy does not reach alone", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#8 MOV %r2 = 0x7 ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#9 ISETP.EQ.U32.AND %p0, PT = %r0, RZ, PT ;
	#10 @%p0 BRA BB2 ;
BB1:
	#4 MOV %r2 = %r1 ;
BB2:
	#5 STG.E [R4.64], %r2 ;
	#6 STG.E [R2.64], %r1 ;
	#7 EXIT ;
`},
		// A guarded definition of the temporary.
		{"guarded definition", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#9 ISETP.EQ.U32.AND %p0, PT = %r0, RZ, PT ;
	#2 @%p0 IADD3 %r1 = %r0, 0x1, RZ ;
	#4 MOV %r2 = %r1 ;
	#5 STG.E [R4.64], %r2 ;
	#7 EXIT ;
`},
		// A partial view is copied.
		{"partial copy", `BB0:
	#1 IMAD.WIDE.U32 %r1.64 = R0, 0x4, RZ ;
	#4 MOV %r2 = %r1[1] ;
	#5 STG.E [R4.64], %r2 ;
	#7 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) { expectUnchanged(t, "OriBackCopyPropagate", c.in) })
	}
}

// TestBackCopyPropBudget: the knob caps the rewrites per function.
func TestBackCopyPropBudget(t *testing.T) {
	f, err := ori.ParseFunc("k.ori", []byte(dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 MOV %r2 = %r1 ;
	#4 MOV %r3 = %r2 ;
	#5 STG.E [R2.64], %r3 ;
	#6 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	if !backCopyProp(f, 1, true, nil) {
		t.Fatal("no rewrite with a budget of 1")
	}
	if got := strings.Count(f.String(), "MOV"); got != 1 {
		t.Errorf("%d copies left with a budget of 1, want 1:\n%s", got, f)
	}
}
