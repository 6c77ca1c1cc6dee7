package opt

import "testing"

// uniformLoop is a loop whose counter is uniform and whose bound is a
// parameter.
const uniformLoop = `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r5 = 0x9 ;
BB1:
	#5 IADD3 %r2 = %r2, %r0, RZ ;
	#6 IADD3 %r1 = %r1, 0x1, RZ ;
	#7 ISETP.LT.U32.AND %p0, PT = %r1, c[0x0][0x170], PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 IMAD %r3 = %r5, c[0x0][0x0], %r2 ;
	#10 STG.E [R2.64], %r3 ;
	#11 EXIT ;
`

// TestConvertToUniformReg: a loop counter that starts at 0, counts up by
// 1 and is compared with a parameter moves to UR with its compare (a
// ULDC loads the bound) and the branch's predicate to UP; the per-thread
// sum stays in R, and a uniform value read by an instruction that already
// has a constant-bank source stays in R too. This is ptxas's choice,
// taken with the knob UregAddsInstructions: the ULDC is an instruction
// more per iteration (TestConvertToUniformRegCost has the default).
func TestConvertToUniformReg(t *testing.T) {
	got, changed := applyPass(t, "ConvertToUniformReg", dcFunc(uniformLoop), passRun{skipVerifyIn: true, knobs: []string{"UregAddsInstructions"}})
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 UMOV %ur0 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
	#4 MOV %r5 = 0x9 ;
BB1:
	#5 IADD3 %r2 = %r2, %r0, RZ ;
	#6 UIADD3 %ur0 = %ur0, 0x1, URZ ;
	#12 ULDC %ur1 = c[0x0][0x170] ;
	#7 UISETP.LT.U32.AND %up0, UPT = %ur0, %ur1, UPT ;
	#8 @%up0 BRA BB1 ;
BB2:
	#9 IMAD %r3 = %r5, c[0x0][0x0], %r2 ;
	#10 STG.E [R2.64], %r3 ;
	#11 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestConvertToUniformRegCost: by default a value stays in R when its
// uniform form issues more instructions: the loop above (a ULDC for the
// bound, and a PLOP3 before the branch on UP), a parameter sum only
// copied into R (a MOV R, UR the allocator cannot coalesce); a CTA index
// read by a per-thread add still moves (S2UR for S2R, one for one).
func TestConvertToUniformRegCost(t *testing.T) {
	expectUnchanged(t, "ConvertToUniformReg", uniformLoop)
	expectUnchanged(t, "ConvertToUniformReg", `BB0:
	#1 IADD3 %r1 = c[0x0][0x178], 0x10, RZ ;
	#2 MOV %r2 = %r1 ;
	#3 STG.E [R2.64], %r2 ;
	#4 EXIT ;
`)
	got, changed := runPass(t, "ConvertToUniformReg", dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 S2R %r1 = SR_CTAID.X ;
	#3 IADD3 %r2 = %r0, %r1, RZ ;
	#4 STG.E [R2.64], %r2 ;
	#5 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 S2UR %ur0 = SR_CTAID.X ;
	#3 IADD3 %r2 = %r0, %ur0, RZ ;
	#4 STG.E [R2.64], %r2 ;
	#5 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestConvertToUniformRegLeavesAlone: a counter whose loop exit depends
// on the thread index is divergent; a uniform value used as an address
// cannot come from the uniform file; a function that calls keeps R.
// (Divergence: uniformdiverge_test.go.)
func TestConvertToUniformRegLeavesAlone(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"divergent loop", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#6 IADD3 %r1 = %r1, 0x1, RZ ;
	#7 ISETP.LT.U32.AND %p0, PT = %r1, %r0, PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#10 STG.E [R2.64], %r1 ;
	#11 EXIT ;
`},
		{"address", `BB0:
	#1 MOV %r1 = 0x40 ;
	#2 LDS %r2 = [%r1] ;
	#10 STG.E [R2.64], %r2 ;
	#11 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) { expectUnchanged(t, "ConvertToUniformReg", c.body) })
	}
}
