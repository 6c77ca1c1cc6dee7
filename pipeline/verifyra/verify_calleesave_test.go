package verifyra

import (
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
		{"wrong slot", "#13 LDL R16 = [R1+0x0]", "#13 LDL R16 = [R1+0x4]", "verify-ra g BB0 #13: restores R16 from [R1+0x4], which holds R17; rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"wrong register", "#13 LDL R16 = [R1+0x0]", "#13 LDL R18 = [R1+0x0]", "verify-ra g BB0 #13: restores R18 from [R1+0x0], which holds R16 (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"missing restore", "\t#14 LDL R17 = [R1+0x4] ;\n", "", "verify-ra g BB0 #4: returns without restoring callee-saved R17; rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"missing save", "\t#12 STL [R1+0x4], R17 ;\n", "", "verify-ra g BB0 #2: writes callee-saved R17, which the function never saves (and 1 more); rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
		{"write after restore", "#14 LDL R17 = [R1+0x4] ;", "#14 LDL R17 = [R1+0x4] ;\n\t#16 MOV R17 = RZ ;", "verify-ra g BB0 #16: writes callee-saved R17 after its restore and before RET; rerun with -knob DUMPIR=AllocateRegisters to see the allocation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rdExpect(t, before, after(rdEdit(t, rdSaveAfter, c.from, c.to)), c.want)
		})
	}
}
