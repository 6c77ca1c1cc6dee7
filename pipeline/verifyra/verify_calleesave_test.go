package verifyra

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

const rdSaveHead = ".func g\n.retaddr R2\n.shared 0x0\n"

// g computes R4+1 through two callee-saved registers, which it saves and
// restores around its body as regalloc/calleesave.go does.
const rdSaveBefore = `BB0:
	#1 MOV %r0 = R4 ;
	#2 IADD3 %r1 = %r0, 0x1, RZ ;
	#3 MOV R4 = %r1 ;
	#4 RET.REL.NODEC R2.64 ;
`

const rdSaveAfter = `BB0:
	#10 IADD3 R1 = R1, -0x8, RZ ;
	#11 STL [R1+0x0], R16 ;
	#12 STL [R1+0x4], R17 ;
	#1 MOV R16 = R4 ;
	#2 IADD3 R17 = R16, 0x1, RZ ;
	#3 MOV R4 = R17 ;
	#13 LDL R16 = [R1+0x0] ;
	#14 LDL R17 = [R1+0x4] ;
	#15 IADD3 R1 = R1, 0x8, RZ ;
	#4 RET.REL.NODEC R2.64 ;
`

func TestVerifyCalleeSaves(t *testing.T) {
	before := rdFunc(t, rdSaveHead+".local 0x0\n", rdSaveBefore)
	after := func(body string) *ori.Func { return rdFunc(t, rdSaveHead+".local 0x8\n", body) }
	rdExpect(t, before, after(rdSaveAfter), "")
	for _, c := range []struct{ name, from, to, want string }{
		{"wrong slot", "#13 LDL R16 = [R1+0x0]", "#13 LDL R16 = [R1+0x4]", "verify-ra g BB0 #13: restores R16 from [R1+0x4], which holds R17 (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"wrong register", "#13 LDL R16 = [R1+0x0]", "#13 LDL R18 = [R1+0x0]", "verify-ra g BB0 #13: restores R18 from [R1+0x0], which holds R16 (and 3 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"missing restore", "\t#14 LDL R17 = [R1+0x4] ;\n", "", "verify-ra g BB0 #4: returns with the callee-saved register R17 holding %r1, R4 (not the caller's R17, which a .func must restore before RET) (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"missing save", "\t#12 STL [R1+0x4], R17 ;\n", "", "verify-ra g BB0 #2: writes callee-saved R17, which the function never saves (and 2 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"write after restore", "#14 LDL R17 = [R1+0x4] ;", "#14 LDL R17 = [R1+0x4] ;\n\t#16 MOV R17 = RZ ;", "verify-ra g BB0 #16: writes callee-saved R17 after its restore and before RET (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rdExpect(t, before, after(rdEdit(t, rdSaveAfter, c.from, c.to)), c.want)
		})
	}
}

// mid of testdata/kernels/constret.ptx before allocation and as
// regalloc.Allocate leaves it at -maxrregcount 24: the caller's R16,
// R18 and R19 are saved after the prologue and reloaded before both
// RETs, and the return address, kept in R18:R19 across the CALL, goes
// back to R20:R21 for them.
const rdConstretMidHead = ".func mid\n.param a offset=0x4 size=0x4 align=0x4\n.ret r offset=0x4 size=0x4 align=0x4\n.shared 0x0\n"

const rdConstretMidBefore = `BB0:
	#32 IADD3 R1 = R1, -0x10, RZ ;
	#1 MOV %r0 = R4 ;
	#3 MOV %r2 = R20 ;
	#4 MOV %r2[1] = R21 ;
	#8 LOP3.LUT %r5 = %r0, 0x1, RZ, 0xc0, !PT ;
	#7 STL [R1+0x4], %r0 ;
	#9 ISETP.NE.U32.AND %p0, PT = %r5, 0x0, PT ;
	#6 IMAD %r4 = %r0, 0x7, RZ ;
	#10 @%p0 BRA BB1 ;
BB2:
	#14 MOV R4 = %r0 ;
	#15 MOV R20 = ` + "`.ret`" + ` ;
	#16 MOV R21 = RZ ;
	#17 CALL.REL.NOINC ` + "`leaf`" + ` ;
	#20 BRA BB3 ;
BB1:
	#21 PLOP3.LUT %p1, PT = PT, PT, PT, 0xff, 0x0 ;
	#23 @%p1 MOV R4 = %r4 ;
	#24 @%p1 IADD3 R1 = R1, 0x10, RZ ;
	#25 @%p1 RET.REL.NODEC %r2.64 ;
BB3:
	#26 LDL %r9 = [R1+0x4] ;
	#27 IADD3 %r10 = %r4, %r9, RZ ;
	#29 MOV R4 = %r10 ;
	#30 IADD3 R1 = R1, 0x10, RZ ;
	#31 RET.REL.NODEC %r2.64 ;
`

const rdConstretMidAfter = `BB0:
	#32 IADD3 R1 = R1, -0x20, RZ ;
	#33 STL [R1+0x10], R16 ;
	#34 STL [R1+0x14], R18 ;
	#35 STL [R1+0x18], R19 ;
	#1 MOV R6 = R4 ;
	#3 MOV R18 = R20 ;
	#4 MOV R19 = R21 ;
	#8 LOP3.LUT R5 = R6, 0x1, RZ, 0xc0, !PT ;
	#7 STL [R1+0x4], R6 ;
	#9 ISETP.NE.U32.AND P0, PT = R5, 0x0, PT ;
	#6 IMAD R16 = R6, 0x7, RZ ;
	#10 @P0 BRA BB1 ;
BB2:
	#14 MOV R4 = R6 ;
	#15 MOV R20 = ` + "`.ret`" + ` ;
	#16 MOV R21 = RZ ;
	#17 CALL.REL.NOINC ` + "`leaf`" + ` ;
	#20 BRA BB3 ;
BB1:
	#21 PLOP3.LUT P0, PT = PT, PT, PT, 0xff, 0x0 ;
	#23 @P0 MOV R4 = R16 ;
	#36 @P0 MOV R20 = R18 ; copy
	#37 @P0 MOV R21 = R19 ; copy
	#38 @P0 LDL R16 = [R1+0x10] ;
	#39 @P0 LDL R18 = [R1+0x14] ;
	#40 @P0 LDL R19 = [R1+0x18] ;
	#24 @P0 IADD3 R1 = R1, 0x20, RZ ;
	#25 @P0 RET.REL.NODEC R20.64 ;
BB3:
	#26 LDL R4 = [R1+0x4] ;
	#27 IADD3 R4 = R16, R4, RZ ;
	#41 MOV R20 = R18 ; copy
	#42 MOV R21 = R19 ; copy
	#43 LDL R16 = [R1+0x10] ;
	#44 LDL R18 = [R1+0x14] ;
	#45 LDL R19 = [R1+0x18] ;
	#30 IADD3 R1 = R1, 0x20, RZ ;
	#31 RET.REL.NODEC R20.64 ;
`

// rdHasMismatch fails t unless err is a *ReachingDefsError with a mismatch
// at instruction inst whose message is msg: the value-tracking check of
// checkCalleeSaved, which reports next to checkCalleeSaves' structural
// findings.
func rdHasMismatch(t *testing.T, err error, inst int32, msg string) *ReachingDefsError {
	t.Helper()
	re, ok := err.(*ReachingDefsError)
	if !ok {
		t.Fatalf("error %v, want a *ReachingDefsError", err)
	}
	for _, m := range re.Mismatches {
		if m.Inst == inst && m.Msg == msg {
			return re
		}
	}
	var got []string
	for _, m := range re.Mismatches {
		got = append(got, fmt.Sprintf("#%d: %s", m.Inst, m.Msg))
	}
	t.Fatalf("no mismatch #%d: %s among\n%s", inst, msg, strings.Join(got, "\n"))
	return nil
}

func TestVerifyCalleeSaved(t *testing.T) {
	before := rdFunc(t, rdConstretMidHead+".local 0x10\n", rdConstretMidBefore)
	head := rdConstretMidHead + ".local 0x20\n"
	rdExpect(t, before, rdFunc(t, head, rdConstretMidAfter), "")
	after := func(pairs ...string) *ori.Func { return rdFunc(t, head, rdEdit(t, rdConstretMidAfter, pairs...)) }

	// TestVerifyRealAllocations' mutant: the save stores R17, so both
	// RETs give the caller back its R17 in R16.
	bad := after("#33 STL [R1+0x10], R16", "#33 STL [R1+0x10], R17")
	err := VerifyReachingDefs(before, bad)
	rdHasMismatch(t, err, 25, "returns with the callee-saved register R16 holding %r4 when !%p1, R17 when %p1, the caller's R17 when %p1 (not the caller's R16, which a .func must restore before RET)")
	re := rdHasMismatch(t, err, 31, "returns with the callee-saved register R16 holding R17, the caller's R17 (not the caller's R16, which a .func must restore before RET)")
	for _, m := range re.Mismatches {
		if m.Inst == 31 && m.Loc == "R16" && (m.Want != "the caller's R16" || m.Holds != "R17, the caller's R17") {
			t.Errorf("mismatch = %+v, want R16 holding R17, the caller's R17", m)
		}
	}

	// A restore left out: R18 still holds the return address.
	rdHasMismatch(t, VerifyReachingDefs(before, after("\t#44 LDL R18 = [R1+0x14] ;\n", "")), 31,
		"returns with the callee-saved register R18 holding %r2, the caller's R20 (not the caller's R18, which a .func must restore before RET)")

	// A restore from the wrong slot.
	rdHasMismatch(t, VerifyReachingDefs(before, after("#45 LDL R19 = [R1+0x18]", "#45 LDL R19 = [R1+0x14]")), 31,
		"returns with the callee-saved register R19 holding R18, the caller's R18 (not the caller's R19, which a .func must restore before RET)")

	// A callee-saved register written without any save.
	rdHasMismatch(t, VerifyReachingDefs(before, after("\t#33 STL [R1+0x10], R16 ;\n", "", "\t#43 LDL R16 = [R1+0x10] ;\n", "", "\t#38 @P0 LDL R16 = [R1+0x10] ;\n", "")), 25,
		"returns with the callee-saved register R16 holding %r4 (not the caller's R16, which a .func must restore before RET)")

	// The save placed after the first write of R16: every save and
	// restore is where checkCalleeSaves wants it, but the slot holds %r4,
	// not the caller's R16. Only the value tracking sees this.
	late := after("\t#33 STL [R1+0x10], R16 ;\n", "", "#6 IMAD R16 = R6, 0x7, RZ ;\n", "#6 IMAD R16 = R6, 0x7, RZ ;\n\t#33 STL [R1+0x10], R16 ;\n")
	rdExpect(t, before, late,
		"verify-ra mid BB1 #25: returns with the callee-saved register R16 holding %r4 (not the caller's R16, which a .func must restore before RET) (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation")

	// The return address put back into R20:R21 with its words swapped:
	// besides the read of %r2, the RET jumps through a pair that does not
	// hold what the caller passed.
	rdHasMismatch(t, VerifyReachingDefs(before, after("#41 MOV R20 = R18", "#41 MOV R20 = R19", "#42 MOV R21 = R19", "#42 MOV R21 = R18")), 31,
		"returns through R20, which holds %r2[1], the caller's R21 (not the caller's R20, the return address)")
}

// A .func whose arguments reach R20 receives its return address in a pair
// above R31 (.retaddr): the return-address check looks for the caller's
// value of that pair.
func TestVerifyCalleeSavedRetAddr(t *testing.T) {
	head := ".func f\n.param x offset=0x4 size=0x4 align=0x4\n.ret r offset=0x4 size=0x4 align=0x4\n.retaddr R32\n.shared 0x0\n.local 0x0\n"
	before := rdFunc(t, head, `BB0:
	#1 MOV %r0 = R4 ;
	#2 MOV %r2 = R32 ;
	#3 MOV %r2[1] = R33 ;
	#4 IMAD %r1 = %r0, 0x3, RZ ;
	#5 MOV R4 = %r1 ;
	#6 RET.REL.NODEC %r2.64 ;
`)
	after := `BB0:
	#2 MOV R24 = R32 ;
	#3 MOV R25 = R33 ;
	#4 IMAD R4 = R4, 0x3, RZ ;
	#6 RET.REL.NODEC R24.64 ;
`
	// R24:R25 are written but not saved: only the return address in
	// them is checked here, so give them back.
	saved := ".func f\n.param x offset=0x4 size=0x4 align=0x4\n.ret r offset=0x4 size=0x4 align=0x4\n.retaddr R32\n.shared 0x0\n.local 0x10\n"
	withSaves := `BB0:
	#20 IADD3 R1 = R1, -0x10, RZ ;
	#21 STL [R1], R24 ;
	#22 STL [R1+0x4], R25 ;
	#2 MOV R24 = R32 ;
	#3 MOV R25 = R33 ;
	#4 IMAD R4 = R4, 0x3, RZ ;
	#23 MOV R32 = R24 ; copy
	#24 MOV R33 = R25 ; copy
	#25 LDL R24 = [R1] ;
	#26 LDL R25 = [R1+0x4] ;
	#27 IADD3 R1 = R1, 0x10, RZ ;
	#6 RET.REL.NODEC R32.64 ;
`
	rdExpect(t, before, rdFunc(t, saved, withSaves), "")
	rdHasMismatch(t, VerifyReachingDefs(before, rdFunc(t, head, after)), 6,
		"returns with the callee-saved register R24 holding %r2, R32, the caller's R32 (not the caller's R24, which a .func must restore before RET)")
}
