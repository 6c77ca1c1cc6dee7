package ori

import (
	"strings"
	"testing"
)

// clobberModule: leaf writes R4 and P0; mid calls leaf, writes R0 and
// R5, and makes an indirect call; top calls mid and leaf; k calls top;
// rec is recursive (its calls are under the ABI, it is not whole-seen).
const clobberModule = `.module sm_80 address_size=64

.func leaf
.retaddr R2
{
BB0:
	#1 ISETP.NE.AND P0, PT = R4, RZ, PT ;
	#2 @P0 IADD3 R4 = R4, 0x1, RZ ;
	#3 RET.REL.NODEC R2.64 ;
}

.func top
.retaddr R2
{
BB0:
	#1 MOV R6 = R2 ;
	#2 MOV R7 = R3 ;
	#3 MOV R2 = ` + "`.ret`" + ` ;
	#4 MOV R3 = RZ ;
	#5 CALL.REL.NOINC ` + "`mid`" + ` ;
	#6 MOV R2 = ` + "`.ret`" + ` ;
	#7 MOV R3 = RZ ;
	#8 CALL.REL.NOINC ` + "`leaf`" + ` ;
	#9 RET.REL.NODEC R6.64 ;
}

.func mid
.retaddr R2
{
BB0:
	#1 IADD3 R1 = R1, -0x10, RZ ;
	#2 MOV R0 = R4 ;
	#3 R2P R0, 0x7f ;
	#4 MOV R5 = R2 ;
	#5 IADD3 R1 = R1, 0x10, RZ ;
	#6 RET.REL.NODEC R2.64 ;
}

.func rec
{
BB0:
	#1 MOV R20 = ` + "`.ret`" + ` ;
	#2 MOV R21 = RZ ;
	#3 CALL.REL.NOINC ` + "`rec`" + ` ;
	#4 RET.REL.NODEC R20.64 ;
}

.entry k
{
BB0:
	#1 MOV R2 = ` + "`.ret`" + ` ;
	#2 MOV R3 = RZ ;
	#3 CALL.REL.NOINC ` + "`top`" + ` ;
	#4 EXIT ;
}
`

func TestModuleClobbers(t *testing.T) {
	m, err := ParseModule("c.ori", []byte(clobberModule))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range CalleesFirst(m) {
		order = append(order, f.Name)
	}
	if got := strings.Join(order, " "); got != "leaf mid top rec k" {
		t.Errorf("CalleesFirst: %s", got)
	}
	sets, err := ModuleClobbers(m)
	if err != nil {
		t.Fatal(err)
	}
	// R1 is written and released, so it is not clobbered; R2P changes
	// every predicate; top changes what mid and leaf change, and R2, R3,
	// R6 and R7 itself.
	want := map[string]string{
		"leaf": "R4 P0",
		"mid":  "R0 R5 P0-P6",
		"top":  "R0 R2-R7 P0-P6",
	}
	if len(sets) != len(want) {
		t.Errorf("sets for %d functions, want %d: %v", len(sets), len(want), sets)
	}
	for name, w := range want {
		if got := sets[name].String(); got != w {
			t.Errorf("%s: %q, want %q", name, got, w)
		}
	}
	if m.Func("rec").WholeSeen() || m.Func("k").WholeSeen() || !m.Func("leaf").WholeSeen() {
		t.Error("WholeSeen: only the .funcs with .retaddr R2 are")
	}

	// A call under the ABI (here an indirect one) changes everything
	// but R1 and R16-R31.
	abi := ABIClobbers()
	if got := abi.String(); got != "R0 R2-R15 R32-R254 UR0-UR62 P0-P6 UP0-UP6" {
		t.Errorf("ABIClobbers: %s", got)
	}
	mid := m.Func("mid")
	mid.Blocks[0].Insts[2].Op = OpCALL
	mid.Blocks[0].Insts[2].Dsts = nil
	mid.Blocks[0].Insts[2].Srcs = []Operand{R(PReg(ClassR, 8, 2))}
	sets, err = ModuleClobbers(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := sets["top"].String(); got != "R0 R2-R15 R32-R254 UR0-UR62 P0-P6 UP0-UP6" {
		t.Errorf("top with an indirect call below: %s", got)
	}

	// Clobbers needs the callees' sets first.
	_, err = Clobbers(m.Func("top"), func(string) (RegSet, bool) { return RegSet{}, false }, func(string) bool { return true })
	if err == nil || err.Error() != "top #5: calls mid, whose registers are not known yet (callees are allocated before their callers)" {
		t.Errorf("Clobbers without the callees: %v", err)
	}
}
