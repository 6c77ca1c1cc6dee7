package opt

import "testing"

// TestVectorizeLoadsAndStores: four stores and four loads at a base
// proven 16-aligned (tid << 4) merge into STS.128 / LDS.128, the values
// moving through a fresh tuple; a pair at an 8-aligned base (tid << 3)
// merges into .64.
func TestVectorizeLoadsAndStores(t *testing.T) {
	got, changed := runPass(t, "Vectorization", dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x4, RZ ;
	#3 STS [%r1], %r0 ;
	#4 STS [%r1+0x8], %r0 ;
	#5 STS [%r1+0x4], %r0 ;
	#6 STS [%r1+0xc], RZ ;
	#7 BAR.SYNC 0x0 ;
	#8 LDS %r2 = [%r1+0x4] ;
	#9 IADD3 %r6 = %r2, 0x1, RZ ;
	#10 LDS %r3 = [%r1] ;
	#11 LDS %r4 = [%r1+0xc] ;
	#12 LDS %r5 = [%r1+0x8] ;
	#13 SHF.L.U32 %r7 = %r0, 0x3, RZ ;
	#14 LDS %r8 = [%r7+0x8] ;
	#15 LDS %r9 = [%r7+0xc] ;
	#16 STG.E [R2.64], %r3 ;
	#17 EXIT ;
`))
	want := canon(t, dcFunc(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x4, RZ ;
	#3 MOV %r10[0] = %r0 ;
	#4 MOV %r10[2] = %r0 ;
	#5 MOV %r10[1] = %r0 ;
	#6 MOV %r10[3] = RZ ;
	#18 STS.128 [%r1], %r10.128 ;
	#7 BAR.SYNC 0x0 ;
	#19 LDS.128 %r11.128 = [%r1] ;
	#8 MOV %r2 = %r11[1] ;
	#9 IADD3 %r6 = %r2, 0x1, RZ ;
	#10 MOV %r3 = %r11[0] ;
	#11 MOV %r4 = %r11[3] ;
	#12 MOV %r5 = %r11[2] ;
	#13 SHF.L.U32 %r7 = %r0, 0x3, RZ ;
	#20 LDS.64 %r12.64 = [%r7+0x8] ;
	#14 MOV %r8 = %r12[0] ;
	#15 MOV %r9 = %r12[1] ;
	#16 STG.E [R2.64], %r3 ;
	#17 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestVectorizeLeavesAlone: no proof of 16-byte alignment (tid << 2), a
// store between two loads, a load between two stores, and a base that is
// redefined between the accesses keep their scalar accesses.
func TestVectorizeLeavesAlone(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"4-byte aligned base", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x2, RZ ;
	#3 LDS %r2 = [%r1] ;
	#4 LDS %r3 = [%r1+0x4] ;
	#5 STG.E [R2.64], %r3 ;
	#6 STG.E [R4.64], %r2 ;
	#7 EXIT ;
`},
		{"store between loads", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x4, RZ ;
	#3 LDS %r2 = [%r1] ;
	#4 STS [%r0], %r0 ;
	#5 LDS %r3 = [%r1+0x4] ;
	#6 STG.E [R2.64], %r3 ;
	#7 STG.E [R4.64], %r2 ;
	#8 EXIT ;
`},
		{"load between stores", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x4, RZ ;
	#3 STS [%r1], %r0 ;
	#4 LDS %r2 = [%r0] ;
	#5 STS [%r1+0x4], %r2 ;
	#6 EXIT ;
`},
		{"base redefined", `BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 SHF.L.U32 %r1 = %r0, 0x4, RZ ;
	#3 LDS %r2 = [%r1] ;
	#4 SHF.L.U32 %r1 = %r0, 0x5, RZ ;
	#5 LDS %r3 = [%r1+0x4] ;
	#6 STG.E [R2.64], %r3 ;
	#7 STG.E [R4.64], %r2 ;
	#8 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) { expectUnchanged(t, "LateVectorization", c.body) })
	}
}
