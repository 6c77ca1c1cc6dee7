package regalloc_test

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/verifyra"
)

// privateModule is callsModule with f whole-seen: it receives its return
// address in R2:R3 (.retaddr R2), as the lowering gives a .func that only
// direct calls reach.
const privateModule = `.func f
.param a offset=0x4 size=0x4 align=0x4
.param b offset=0x5 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.retaddr R2
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 MOV %r1 = R5 ;
	#3 IMAD %r2 = %r0, 0x3, %r1 ;
	#6 IADD3 %r3 = %r2, %r0, RZ ;
	#7 LOP3.LUT %r4 = %r3, %r1, RZ, 0x3c, !PT ;
	#8 IMAD %r5 = %r4, %r3, %r2 ;
	#4 MOV R4 = %r5 ;
	#5 RET.REL.NODEC R2.64 ;
}

` + kernelHead + `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 MOV %r1 = 0x7 ;
	#4 IADD3 %r2 = %r0, 0x10, RZ ;
	#5 MOV R4 = %r0 ;
	#6 MOV R5 = %r1 ;
	#15 MOV R2 = ` + "`.ret`" + ` ;
	#16 MOV R3 = RZ ;
	#7 CALL.REL.NOINC ` + "`f`" + ` ;
	#8 MOV %r3 = R4 ;
	#9 IADD3 %r3 = %r3, %r2, %r1 ;
	#10 IMAD.WIDE.U32 %r4.64 = %r0, 0x4, RZ ;
	#11 IADD3 %r5, %p0 = c[0x0][0x160], %r4, RZ ;
	#12 IADD3.X %r5[1] = c[0x0][0x164], %r4[1], RZ, %p0, !PT ;
	#13 STG.E [%r5.64], %r3 ;
	#14 EXIT ;
}
`

// allocateCalleesFirst allocates every function of a copy of m as the
// pipeline does (callees first, each call to a whole-seen callee
// clobbering what the callee writes) and proves each with the verifier.
func allocateCalleesFirst(t *testing.T, m *ori.Module) *ori.Module {
	t.Helper()
	c := m.Clone()
	callees := map[string]ori.RegSet{}
	ws := func(n string) bool { g := c.Func(n); return g != nil && g.WholeSeen() }
	for _, f := range ori.CalleesFirst(c) {
		if _, err := regalloc.Allocate(f, regalloc.Options{Arch: 75, OptLevel: 3, Callees: callees}); err != nil {
			t.Fatal(err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if f.WholeSeen() {
			s, err := ori.Clobbers(f, func(n string) (ori.RegSet, bool) { s, ok := callees[n]; return s, ok }, ws)
			if err != nil {
				t.Fatal(err)
			}
			callees[f.Name] = s
		}
	}
	sets, err := ori.ModuleClobbers(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Funcs {
		if err := verifyra.VerifyReachingDefsCalls(m.Func(f.Name), f, sets); err != nil {
			t.Fatalf("verifier: %v", err)
		}
	}
	return c
}

// TestCallsWholeSeen: f is allocated first; it may use R0 (all its calls,
// none, go to whole-seen callees) and writes R0, R4 and R5 (its return
// address stays in R2:R3), saving nothing. The kernel then keeps the
// thread index, the constant 7 and %r2 across the call in R6-R8, which f
// leaves alone, instead of the callee-saved R16-R18 the ABI would take
// (TestCallsABI; ptxas does the same, interproc.go).
func TestCallsWholeSeen(t *testing.T) {
	m := parseModule(t, privateModule)
	a := allocateCalleesFirst(t, m)
	if got, want := body(a.Func("f")), `BB0:
	#3 IMAD R0 = R4, 0x3, R5 ;
	#6 IADD3 R4 = R0, R4, RZ ;
	#7 LOP3.LUT R5 = R4, R5, RZ, 0x3c, !PT ;
	#8 IMAD R4 = R5, R4, R0 ;
	#5 RET.REL.NODEC R2.64 ;
`; got != want {
		t.Errorf("f after allocation:\n%s\nwant:\n%s", got, want)
	}
	if got, want := body(a.Func("k")), `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R7 = SR_TID.X ;
	#3 MOV R8 = 0x7 ;
	#4 IADD3 R6 = R7, 0x10, RZ ;
	#5 MOV R4 = R7 ;
	#6 MOV R5 = R8 ;
	#15 MOV R2 = `+"`.ret`"+` ;
	#16 MOV R3 = RZ ;
	#7 CALL.REL.NOINC `+"`f`"+` ;
	#9 IADD3 R4 = R4, R6, R8 ;
	#10 IMAD.WIDE.U32 R2.64 = R7, 0x4, RZ ;
	#11 IADD3 R2, P0 = c[0x0][0x160], R2, RZ ;
	#12 IADD3.X R3 = c[0x0][0x164], R3, RZ, P0, !PT ;
	#13 STG.E [R2.64], R4 ;
	#14 EXIT ;
`; got != want {
		t.Errorf("k after allocation:\n%s\nwant:\n%s", got, want)
	}
	sets, err := ori.ModuleClobbers(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := sets["f"].String(); got != "R0 R4-R5" {
		t.Errorf("f clobbers %q, want \"R0 R4-R5\"", got)
	}
	out := sameOutput(t, m, a, outSpec(4, 4))
	for tid, v := range out {
		// f(tid, 7) + tid+16 + 7, f as written above.
		x, y := uint32(tid), uint32(7)
		r2 := x*3 + y
		r3 := r2 + x
		r4 := r3 ^ y
		if want := r4*r3 + r2 + x + 16 + 7; v != want {
			t.Errorf("thread %d: %#x, want %#x", tid, v, want)
		}
	}
}

// TestVerifyWholeSeenCallee: the verifier reads what a call may change
// from the allocated callee, so a callee that writes a register its
// caller keeps a value in across the call is caught in the caller; and
// the ABI's verifier, which takes every call to preserve only R16-R31,
// rejects the same kernel's allocation.
func TestVerifyWholeSeenCallee(t *testing.T) {
	m := parseModule(t, privateModule)
	a := allocateCalleesFirst(t, m)
	if err := verifyra.VerifyReachingDefs(m.Func("k"), a.Func("k")); err == nil ||
		!strings.Contains(err.Error(), "#9: operand 2 reads R6, which held %r2 until the CALL #7 clobbered it") {
		t.Errorf("the ABI verifier on k: %v", err)
	}
	// f now also writes R6, where k keeps %r2 across the call.
	f := a.Func("f")
	b := f.Blocks[0]
	mv := ori.NewInst(ori.OpMOV)
	mv.ID = f.NewID()
	mv.Dsts = []ori.Operand{ori.R(ori.PReg(ori.ClassR, 6, 1))}
	mv.Srcs = []ori.Operand{ori.R(ori.RZ)}
	b.Insts = append(b.Insts[:len(b.Insts)-1], mv, b.Insts[len(b.Insts)-1])
	sets, err := ori.ModuleClobbers(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := sets["f"].String(); got != "R0 R4-R6" {
		t.Errorf("f clobbers %q", got)
	}
	if err := verifyra.VerifyReachingDefsCalls(m.Func("f"), f, sets); err != nil {
		t.Errorf("f itself owes its caller nothing: %v", err)
	}
	err = verifyra.VerifyReachingDefsCalls(m.Func("k"), a.Func("k"), sets)
	if err == nil || !strings.Contains(err.Error(), "#9: operand 2 reads R6, which held %r2 until the CALL #7 clobbered it") {
		t.Errorf("k with the corrupted f: %v", err)
	}
}
