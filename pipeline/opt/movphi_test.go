package opt

import (
	"testing"
)

// TestGenerateMovPhi pins the partial-SSA construction: phis go where
// definitions merge and the register is live, every definition gets its
// own register (the first one the dominator walk meets keeps the PTX
// name), and registers whose definitions are not whole values stay as
// they are.
func TestGenerateMovPhi(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"loop counter and accumulator", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 IADD3 %r2 = %r2, %r1, RZ ;
	#5 IADD3 %r1 = %r1, 0x1, RZ ;
	#6 ISETP.LT.U32.AND %p0, PT = %r1, %r0, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 STG.E [R2.64], %r2 ;
	#9 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#10 MOV.PHI %r3 = %r1, BB0, %r6, BB1 ;
	#11 MOV.PHI %r4 = %r2, BB0, %r5, BB1 ;
	#4 IADD3 %r5 = %r4, %r3, RZ ;
	#5 IADD3 %r6 = %r3, 0x1, RZ ;
	#6 ISETP.LT.U32.AND %p0, PT = %r6, %r0, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 STG.E [R2.64], %r5 ;
	#9 EXIT ;
`},
		{"diamond, predicate too", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 ISETP.GT.AND %p1, PT = %r0, 0x4, PT ;
	#6 BRA BB3 ;
BB2:
	#7 MOV %r1 = 0x7 ;
	#8 ISETP.GT.AND %p1, PT = %r0, 0x9, PT ;
BB3:
	#9 @%p1 STG.E [R2.64], %r1 ;
	#10 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 ISETP.GT.AND %p1, PT = %r0, 0x4, PT ;
	#6 BRA BB3 ;
BB2:
	#7 MOV %r2 = 0x7 ;
	#8 ISETP.GT.AND %p2, PT = %r0, 0x9, PT ;
BB3:
	#11 MOV.PHI %r3 = %r1, BB1, %r2, BB2 ;
	#12 MOV.PHI %p3 = %p1, BB1, %p2, BB2 ;
	#9 @%p3 STG.E [R2.64], %r3 ;
	#10 EXIT ;
`},
		{"pruned: no phi where the register is dead", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 MOV %r1 = 0x1 ;
	#4 STG.E [R2.64], %r1 ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 MOV %r1 = 0x2 ;
	#7 STG.E [R2.64], %r1 ;
BB2:
	#8 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 MOV %r1 = 0x1 ;
	#4 STG.E [R2.64], %r1 ;
	#5 @%p0 BRA BB2 ;
BB1:
	#6 MOV %r2 = 0x2 ;
	#7 STG.E [R2.64], %r2 ;
BB2:
	#8 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := runPassSSA(t, "GenerateMovPhi", dcFunc(c.in), false, true)
			if want := canonText(t, dcFunc(c.want)); got != want || !changed {
				t.Errorf("changed=%v\ngot\n%s\nwant\n%s", changed, got, want)
			}
		})
	}
}

// TestGenerateMovPhiLeavesPartialRegisters: the registers that make the
// form partial keep their definitions.
func TestGenerateMovPhiLeavesPartialRegisters(t *testing.T) {
	for name, body := range map[string]string{
		"guarded definition (a predicated MOV pair)": `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 @%p0 MOV %r1 = 0x1 ;
	#4 @!%p0 MOV %r1 = 0x2 ;
	#5 STG.E [R2.64], %r1 ;
	#6 EXIT ;
`,
		"64-bit value built word by word": `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = %r0 ;
	#3 MOV %r1[1] = RZ ;
	#4 STG.E.64 [R2.64], %r1.64 ;
	#5 EXIT ;
`,
		"one definition each": `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 STG.E [R2.64], %r1 ;
	#4 EXIT ;
`,
	} {
		t.Run(name, func(t *testing.T) {
			got, changed := runPassSSA(t, "GenerateMovPhi", dcFunc(body), false, true)
			if want := canonText(t, dcFunc(body)); got != want || changed {
				t.Errorf("changed=%v\n%s\nwant it unchanged", changed, got)
			}
		})
	}
}

// TestConvertAllMovPhiToMov pins SSA destruction: coalescing removes the
// copies of non-interfering values, the swap problem gets a temporary,
// the lost-copy problem splits the edge, and predicates are copied with
// PLOP3.
func TestConvertAllMovPhiToMov(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"loop values coalesce: no copy left", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#10 MOV.PHI %r3 = %r1, BB0, %r6, BB1 ;
	#11 MOV.PHI %r4 = %r2, BB0, %r5, BB1 ;
	#4 IADD3 %r5 = %r4, %r3, RZ ;
	#5 IADD3 %r6 = %r3, 0x1, RZ ;
	#6 ISETP.LT.U32.AND %p0, PT = %r6, %r0, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 STG.E [R2.64], %r5 ;
	#9 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
	#3 MOV %r2 = 0x0 ;
BB1:
	#4 IADD3 %r2 = %r2, %r1, RZ ;
	#5 IADD3 %r1 = %r1, 0x1, RZ ;
	#6 ISETP.LT.U32.AND %p0, PT = %r1, %r0, PT ;
	#7 @%p0 BRA BB1 ;
BB2:
	#8 STG.E [R2.64], %r2 ;
	#9 EXIT ;
`},
		// Both values are read after the loop, so the back edge's copies
		// cannot run on the exit edge: they go to a new block.
		{"swap: one temporary breaks the cycle", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x64 ;
BB1:
	#3 MOV.PHI %r2 = %r0, BB0, %r3, BB1 ;
	#4 MOV.PHI %r3 = %r1, BB0, %r2, BB1 ;
	#5 ISETP.LT.U32.AND %p0, PT = %r2, 0x5, PT ;
	#6 @%p0 BRA BB1 ;
BB2:
	#7 IADD3 %r4 = %r2, %r3, RZ ;
	#8 STG.E [R2.64], %r4 ;
	#9 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x64 ;
BB1:
	#5 ISETP.LT.U32.AND %p0, PT = %r0, 0x5, PT ;
	#6 @%p0 BRA BB3 ;
BB2:
	#7 IADD3 %r4 = %r0, %r1, RZ ;
	#8 STG.E [R2.64], %r4 ;
	#9 EXIT ;
BB3:
	#10 MOV %r5 = %r0 ;
	#11 MOV %r0 = %r1 ;
	#12 MOV %r1 = %r5 ;
	#13 BRA BB1 ;
`},
		{"lost copy: the old value is read after the loop", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#3 MOV.PHI %r2 = %r1, BB0, %r3, BB1 ;
	#4 IADD3 %r3 = %r2, 0x1, RZ ;
	#5 ISETP.LT.U32.AND %p0, PT = %r3, %r0, PT ;
	#6 @%p0 BRA BB1 ;
BB2:
	#7 IADD3 %r4 = %r2, %r3, RZ ;
	#8 STG.E [R2.64], %r4 ;
	#9 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x0 ;
BB1:
	#4 IADD3 %r3 = %r1, 0x1, RZ ;
	#5 ISETP.LT.U32.AND %p0, PT = %r3, %r0, PT ;
	#6 @%p0 BRA BB3 ;
BB2:
	#7 IADD3 %r4 = %r1, %r3, RZ ;
	#8 STG.E [R2.64], %r4 ;
	#9 EXIT ;
BB3:
	#10 MOV %r1 = %r3 ;
	#11 BRA BB1 ;
`},
		// The fall-through edge of a guarded EXIT gets a block of its own:
		// the copy must not sit between the epilogue and the EXIT/RET.
		{"copies for the edge out of a guarded EXIT", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 ISETP.GT.AND %p1, PT = %r0, 0x5, PT ;
	#4 MOV %r1 = 0x1 ;
	#5 MOV %r2 = 0x5 ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 @%p1 EXIT ;
BB2:
	#8 MOV.PHI %r3 = %r1, BB0, %r2, BB1 ;
	#9 IADD3 %r4 = %r3, %r1, %r2 ;
	#10 STG.E [R2.64], %r4 ;
	#11 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 ISETP.GT.AND %p1, PT = %r0, 0x5, PT ;
	#4 MOV %r1 = 0x1 ;
	#5 MOV %r2 = 0x5 ;
	#12 MOV %r3 = %r1 ;
	#6 @%p0 BRA BB2 ;
BB1:
	#7 @%p1 EXIT ;
BB3:
	#13 MOV %r3 = %r2 ;
BB2:
	#9 IADD3 %r4 = %r3, %r1, %r2 ;
	#10 STG.E [R2.64], %r4 ;
	#11 EXIT ;
`},
		{"predicate phi across a diamond", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 ISETP.GT.AND %p1, PT = %r0, 0x4, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 ISETP.GT.AND %p2, PT = %r0, 0x9, PT ;
	#6 STG.E [R2.64], %r0 ;
BB2:
	#7 MOV.PHI %p3 = %p1, BB0, %p2, BB1 ;
	#8 @%p3 STG.E [R2.64], %r0 ;
	#9 EXIT ;
`, `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.EQ.AND %p0, PT = %r0, 0x0, PT ;
	#3 ISETP.GT.AND %p1, PT = %r0, 0x4, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 ISETP.GT.AND %p1, PT = %r0, 0x9, PT ;
	#6 STG.E [R2.64], %r0 ;
BB2:
	#8 @%p1 STG.E [R2.64], %r0 ;
	#9 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := runPassSSA(t, "ConvertAllMovPhiToMov", dcFunc(c.in), true, false)
			if want := canonText(t, dcFunc(c.want)); got != want || !changed {
				t.Errorf("changed=%v\ngot\n%s\nwant\n%s", changed, got, want)
			}
		})
	}
}
