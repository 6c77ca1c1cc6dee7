package verifyra

import "testing"

// A value that only a guarded instruction defines and that an unguarded
// instruction reads (testdata/lower/bits_logic.ptx: "@%p5 cnot.b32 %r7,
// %r6" and then "lop3.b32 %r8, %r7, ..."): when the guard is false the
// read sees an unspecified value before allocation, so any register
// contents will do after it.
const rdUndefGuardBefore = `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;
	#4 @%p0 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 IADD3 %r2 = %r1, %r0, RZ ;
	#6 MOV %r3 = c[0x0][0x160] ;
	#7 MOV %r3[1] = c[0x0][0x164] ;
	#8 STG.E [%r3.64], %r2 ;
	#9 EXIT ;
`

const rdUndefGuardAfter = `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R4 = SR_TID.X ;
	#3 ISETP.GE.AND P0, PT = R4, 0x10, PT ;
	#4 @P0 IADD3 R5 = R4, 0x1, RZ ;
	#5 IADD3 R5 = R5, R4, RZ ;
	#6 MOV R6 = c[0x0][0x160] ;
	#7 MOV R7 = c[0x0][0x164] ;
	#8 STG.E [R6.64], R5 ;
	#9 EXIT ;
`

func TestVerifyUndefinedOnSomePaths(t *testing.T) {
	before := rdFunc(t, rdKernel, rdUndefGuardBefore)
	rdExpect(t, before, rdFunc(t, rdKernel, rdUndefGuardAfter), "")

	// Where %r1 was defined before the guarded redefinition, R5 must
	// hold the older %r1 when %p0 is false: a register that holds
	// something else then is still an error.
	defined := rdFunc(t, rdKernel, rdEdit(t, rdUndefGuardBefore,
		"#3 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;", "#3 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;\n\t#10 MOV %r1 = 0x7 ;"))
	wrong := rdEdit(t, rdUndefGuardAfter,
		"#3 ISETP.GE.AND P0, PT = R4, 0x10, PT ;", "#3 ISETP.GE.AND P0, PT = R4, 0x10, PT ;\n\t#10 MOV R8 = 0x7 ;")
	rdExpect(t, defined, rdFunc(t, rdKernel, wrong),
		"verify-ra k BB0 #5: operand 1 reads R5, which holds %r1, the value it read before allocation, only when %p0 (and R5 when !%p0), but the read is unguarded; rerun with -knob DUMPIR=AllocateRegisters to see the allocation")
	right := rdEdit(t, wrong, "#10 MOV R8 = 0x7 ;", "#10 MOV R5 = 0x7 ;")
	rdExpect(t, defined, rdFunc(t, rdKernel, right), "")

	// A read guarded like the definition needs the defined value: the
	// guarded definition went to R6, the read takes R5.
	guarded := rdFunc(t, rdKernel, rdEdit(t, rdUndefGuardBefore, "#5 IADD3", "#5 @%p0 IADD3"))
	elsewhere := rdEdit(t, rdUndefGuardAfter, "#4 @P0 IADD3 R5", "#4 @P0 IADD3 R8", "#5 IADD3", "#5 @P0 IADD3")
	rdExpect(t, guarded, rdFunc(t, rdKernel, elsewhere),
		"verify-ra k BB0 #5: operand 1 reads R5, which holds R5 (not %r1, the value it read before allocation); rerun with -knob DUMPIR=AllocateRegisters to see the allocation")

	// When the allocation changes the guarded definition itself (here
	// its guard), that is reported, and the read it fed is not excused
	// as a read of an undefined value.
	flipped := rdEdit(t, rdUndefGuardAfter, "#4 @P0 IADD3", "#4 @!P0 IADD3", "#5 IADD3", "#5 @P0 IADD3")
	rdExpect(t, guarded, rdFunc(t, rdKernel, flipped),
		"verify-ra k BB0 #4: runs under @!P0 after allocation, but under @%p0 before (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation")
}

// A value read with no definition at all (int_div.ptx at -O3, once the
// guarded division under a constant-false predicate is deleted): any
// register will do, and it need not be the same one at two reads.
func TestVerifyNeverDefined(t *testing.T) {
	before := rdFunc(t, rdKernel, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 MOV %r3 = c[0x0][0x160] ;
	#3 MOV %r3[1] = c[0x0][0x164] ;
	#4 STG.E [%r3.64], %r9 ;
	#5 STG.E [%r3.64+0x4], %r9 ;
	#6 EXIT ;
`)
	rdExpect(t, before, rdFunc(t, rdKernel, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 MOV R4 = c[0x0][0x160] ;
	#3 MOV R5 = c[0x0][0x164] ;
	#4 STG.E [R4.64], R28 ;
	#5 STG.E [R4.64+0x4], R9 ;
	#6 EXIT ;
`), "")
}

// A value defined on one arm of a branch and in a loop: on the path
// where it is still undefined any location holds it, so the join (and
// the loop header on its first iteration) keeps what the defining path
// put in the register; a redefinition of that register on the defining
// path, before the read, is still an error.
func TestVerifyUndefinedAtAJoin(t *testing.T) {
	before := rdFunc(t, rdKernel, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 IADD3 %r1 = %r0, 0x1, RZ ;
	#6 IADD3 %r4 = %r0, 0x2, RZ ;
BB2:
	#7 IADD3 %r2 = %r1, %r0, RZ ;
	#8 IADD3 %r1 = %r2, 0x1, RZ ;
	#9 ISETP.LT.AND %p1, PT = %r1, 0x40, PT ;
	#10 @%p1 BRA BB2 ;
BB3:
	#11 MOV %r3 = c[0x0][0x160] ;
	#12 MOV %r3[1] = c[0x0][0x164] ;
	#13 STG.E [%r3.64], %r2 ;
	#14 EXIT ;
`)
	after := `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R4 = SR_TID.X ;
	#3 ISETP.GE.AND P0, PT = R4, 0x10, PT ;
	#4 @P0 BRA BB2 ;
BB1:
	#5 IADD3 R5 = R4, 0x1, RZ ;
	#6 IADD3 R6 = R4, 0x2, RZ ;
BB2:
	#7 IADD3 R6 = R5, R4, RZ ;
	#8 IADD3 R5 = R6, 0x1, RZ ;
	#9 ISETP.LT.AND P1, PT = R5, 0x40, PT ;
	#10 @P1 BRA BB2 ;
BB3:
	#11 MOV R8 = c[0x0][0x160] ;
	#12 MOV R9 = c[0x0][0x164] ;
	#13 STG.E [R8.64], R6 ;
	#14 EXIT ;
`
	rdExpect(t, before, rdFunc(t, rdKernel, after), "")
	clobber := rdEdit(t, after, "#6 IADD3 R6 = R4, 0x2, RZ", "#6 IADD3 R5 = R4, 0x2, RZ")
	rdExpect(t, before, rdFunc(t, rdKernel, clobber),
		"verify-ra k BB2 #7: operand 1 reads R5, which holds %r1, the value it read before allocation, on only some of the paths that reach it; rerun with -knob DUMPIR=AllocateRegisters to see the allocation")
}
