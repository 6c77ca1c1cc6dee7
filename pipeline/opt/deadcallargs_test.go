package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// dcaModule is a kernel calling a whole-seen callee with two argument
// words (R4, R5) and a result (R4); the callee body is substituted.
const dcaModule = `.module sm_80 address_size=64

.func g
.param a offset=0x4 size=0x4 align=0x4 words=0x1
.param b offset=0x5 size=0x4 align=0x4 words=0x1
.ret r offset=0x4 size=0x4 align=0x4 words=0x1
.retaddr R2
.shared 0x0
.local 0x0
{
BB0:
CALLEE	#9 RET.REL.NODEC R2.64 ;
}

.entry k
.param out offset=0x160 size=0x8 align=0x8
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 S2R %r1 = SR_TID.X ;
	#4 MOV R4 = %r1 ;
	#5 IADD3 R5 = %r1, 0x1, RZ ;
	#6 MOV R2 = ` + "`.ret`" + ` ;
	#7 MOV R3 = RZ ;
	#8 CALL.REL.NOINC ` + "`g`" + ` ;
	#10 MOV %r2 = R4 ;
	#11 STG.E [%r0.64], %r2 ;
	#12 EXIT ;
}
`

// dcaRun runs DeadCallArgs on the kernel of dcaModule with the callee body
// callee, and returns the kernel's text.
func dcaRun(t *testing.T, callee string, settings ...string) (string, bool) {
	t.Helper()
	m, err := ori.ParseModule("m.ori", []byte(strings.Replace(dcaModule, "CALLEE", callee, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
	}
	k := m.Func("k")
	changed, err := DeadCallArgs.Run(k, &Context{OptLevel: 3, Arch: 80, Module: m, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(k, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, k)
	}
	return k.String(), changed
}

func TestDeadCallArgs(t *testing.T) {
	// g reads a (R4) and writes its result; b (R5) is never read.
	got, changed := dcaRun(t, "\t#20 MOV %r0 = R4 ;\n\t#21 IADD3 R4 = %r0, 0x2, RZ ;\n")
	if !changed || strings.Contains(got, "#5 ") || !strings.Contains(got, "#4 MOV R4 = %r1") {
		t.Fatalf("want #5 (R5, unread) deleted and #4 kept, changed=%v:\n%s", changed, got)
	}
	for _, keep := range []string{"#6 MOV R2", "#7 MOV R3"} {
		if !strings.Contains(got, keep) {
			t.Errorf("%s deleted (return address):\n%s", keep, got)
		}
	}
	// g reads neither argument, but the kernel reads R4 after the call
	// (#10, the result): the caller cannot see that g writes it, so R4's
	// move stays; R5's goes.
	got, _ = dcaRun(t, "\t#21 MOV R4 = RZ ;\n")
	if strings.Contains(got, "#5 ") || !strings.Contains(got, "#4 MOV R4") {
		t.Fatalf("want #5 deleted, #4 kept (R4 read after the call):\n%s", got)
	}
	if _, changed := dcaRun(t, "\t#20 MOV %r0 = R4 ;\n\t#21 IADD3 R4 = %r0, 0x2, RZ ;\n", "DisableDeadCallArgs=1"); changed {
		t.Error("changed with DisableDeadCallArgs")
	}
}

func TestDeadCallArgsRefuses(t *testing.T) {
	for _, tc := range []struct{ name, callee string }{
		// R5 read on one path only still counts.
		{"read under a guard", "\t#20 ISETP.NE.AND P0, PT = RZ, RZ, PT ;\n\t#21 @P0 MOV %r0 = R5 ;\n\t#22 MOV R4 = RZ ;\n"},
		// A callee that calls keeps every argument.
		{"callee calls", "\t#20 MOV R2 = `.ret` ;\n\t#21 CALL.REL.NOINC `h` ;\n"},
	} {
		got, changed := dcaRun(t, tc.callee)
		if changed || !strings.Contains(got, "#5 IADD3 R5") {
			t.Errorf("%s: R5's move deleted:\n%s", tc.name, got)
		}
	}
}

func TestCalleeEntryReads(t *testing.T) {
	m, err := ori.ParseModule("m.ori", []byte(strings.Replace(dcaModule, "CALLEE",
		"\t#20 MOV %r0 = R5 ;\n\t#21 MOV R6 = %r0 ;\n\t#22 MOV %r1 = R6 ;\n\t#23 MOV R4 = %r1 ;\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	g := m.Func("g")
	if err := g.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	r := calleeEntryReads(g)
	// R5 read first; R6 written before its read; R4 (the result, read
	// by RET) written before the RET; R2:R3 read by the RET.
	for k, want := range map[int]bool{2: true, 3: true, 4: false, 5: true, 6: false} {
		if r.has(k) != want {
			t.Errorf("R%d read at entry = %v, want %v", k, r.has(k), want)
		}
	}
}
