package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

func lfRun(t *testing.T, body string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := ForwardLocals.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// lfIn is mem_module_local.ptx after lowering: three slots stored once,
// loaded through R1 and through a copy of it.
const lfIn = `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x20, RZ ;
	#3 MOV %r0 = c[0x0][0x160] ;
	#4 MOV %r0[1] = c[0x0][0x164] ;
	#5 S2R %r2 = SR_TID.X ;
	#6 STL [R1], %r2 ;
	#7 MOV %r3 = 0x7 ;
	#8 STL [R1+0x4], %r3 ;
	#9 STL.64 [R1+0x10], %r0.64 ;
	#10 LDL %r5 = [R1] ;
	#11 MOV %r10 = R1 ;
	#12 LDL %r6 = [%r10+0x4] ;
	#13 LDL.64 %r7.64 = [R1+0x10] ;
	#14 IADD3 %r8 = %r5, %r6, RZ ;
	#15 STG.E [%r7.64], %r8 ;
	#16 EXIT ;
`

func TestForwardLocals(t *testing.T) {
	got, changed := lfRun(t, lfIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x20, RZ ;
	#3 MOV %r0 = c[0x0][0x160] ;
	#4 MOV %r0[1] = c[0x0][0x164] ;
	#5 S2R %r2 = SR_TID.X ;
	#7 MOV %r3 = 0x7 ;
	#17 MOV %r5 = %r2 ;
	#11 MOV %r10 = R1 ;
	#18 MOV %r6 = %r3 ;
	#19 MOV %r7 = %r0 ;
	#20 MOV %r7[1] = %r0[1] ;
	#14 IADD3 %r8 = %r5, %r6, RZ ;
	#15 STG.E [%r7.64], %r8 ;
	#16 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if _, changed := lfRun(t, lfIn, "DisableLocalForwarding=1"); changed {
		t.Error("changed with DisableLocalForwarding")
	}
}

func TestForwardLocalsRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to, keep string }{
		// The frame address escapes: nothing changes anywhere.
		{"address stored", "#16 EXIT ;", "#21 STG.E [%r7.64], %r10 ;\n\t#16 EXIT ;", "#6 STL [R1], %r2"},
		{"address to a call register", "#16 EXIT ;", "#21 MOV R4 = %r10 ;\n\t#16 EXIT ;", "#10 LDL %r5 = [R1]"},
		// A second store to the slot: its load stays (and so do both stores).
		{"two stores", "#10 LDL", "#22 STL [R1], %r3 ;\n\t#10 LDL", "#10 LDL %r5 = [R1]"},
		// A load of a different width: kept, and its slot's store too.
		{"narrower load", "#10 LDL %r5 = [R1]", "#10 LDL.U8 %r5 = [R1]", "#6 STL [R1], %r2"},
		// A guarded store is not a definite value.
		{"guarded store", "#6 STL [R1], %r2", "#6 @P0 STL [R1], %r2", "#10 LDL %r5 = [R1]"},
		// The stored register changes after the store (a guarded
		// definition keeps its name in the SSA window).
		{"stored register rewritten", "#10 LDL", "#24 @P0 MOV %r2 = 0x1 ;\n\t#10 LDL", "#10 LDL %r5 = [R1]"},
		// The load before the store reads what was there before.
		{"load first", "#10 LDL %r5 = [R1] ;", "#10 LDL %r5 = [R1+0x8] ;\n\t#23 STL [R1+0x8], %r2 ;", "#10 LDL %r5 = [R1+0x8]"},
	} {
		in := strings.Replace(lfIn, tc.from, tc.to, 1)
		if in == lfIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		got, _ := lfRun(t, in)
		if !strings.Contains(got, tc.keep) {
			t.Errorf("%s: %q gone:\n%s", tc.name, tc.keep, got)
		}
	}
}
