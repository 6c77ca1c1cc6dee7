package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// sameConstRun runs RematSameConsts on a kernel and returns its text.
func sameConstRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := RematSameConsts.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// The shape of sdk2.2 simpleTexture's inlined sinf: the table address
// (%r7, 0 in both arms) and the local array's base (%r5, a copy of a
// copy of R1 in both arms) have two definitions each. %r8 has two
// different constants, %r9 one definition (constant folding's), %r10 is
// once a constant and once computed: they stay.
const sameConstIn = `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x40, RZ ;
	#3 S2R %r3 = SR_TID.X ;
	#4 ISETP.NE.AND %p0, PT = %r3, RZ, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#10 MOV %r6 = R1 ;
	#11 MOV %r5 = %r6 ;
	#12 MOV %r7 = 0x0 ;
	#13 MOV %r8 = 0x4 ;
	#14 MOV %r10 = 0x8 ;
	#15 BRA BB3 ;
BB2:
	#20 MOV %r5 = R1 ;
	#21 MOV %r7 = 0x0 ;
	#22 MOV %r8 = 0x8 ;
	#23 IADD3 %r10 = %r3, 0x8, RZ ;
BB3:
	#30 MOV %r9 = 0x10 ;
	#31 LDC %r11 = c[0x3][%r7+0x4] ;
	#32 STL [%r5+0x8], %r11 ;
	#33 IADD3 %r12 = %r7, %r3, RZ ;
	#34 MOV %r13 = %r7 ;
	#35 STS [%r7], %r12 ;
	#36 STS [%r8+0x4], %r13 ;
	#37 STS [%r9], %r10 ;
	#38 EXIT ;
`

func TestSameConstRemat(t *testing.T) {
	got, changed := sameConstRun(t, sameConstIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x40, RZ ;
	#3 S2R %r3 = SR_TID.X ;
	#4 ISETP.NE.AND %p0, PT = %r3, RZ, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#13 MOV %r8 = 0x4 ;
	#14 MOV %r10 = 0x8 ;
	#15 BRA BB3 ;
BB2:
	#22 MOV %r8 = 0x8 ;
	#23 IADD3 %r10 = %r3, 0x8, RZ ;
BB3:
	#30 MOV %r9 = 0x10 ;
	#31 LDC %r11 = c[0x3][0x4] ;
	#32 STL [R1+0x8], %r11 ;
	#39 MOV %r14 = 0x0 ;
	#33 IADD3 %r12 = %r14, %r3, RZ ;
	#34 MOV %r13 = 0x0 ;
	#40 MOV %r15 = 0x0 ;
	#35 STS [%r15], %r12 ;
	#36 STS [%r8+0x4], %r13 ;
	#37 STS [%r9], %r10 ;
	#38 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if got, changed := sameConstRun(t, sameConstIn, "DisableSameConstRemat=1"); changed || got != loopCanon(t, loopKernel(sameConstIn)) {
		t.Errorf("rewritten with DisableSameConstRemat:\n%s", got)
	}
}

// TestSameConstRematStackPointer: a copy of R1 taken before the frame
// set-up, or in a function that writes R1 outside its entry block, is
// not R1's final value and stays.
func TestSameConstRematStackPointer(t *testing.T) {
	for _, in := range []string{`BB0:
	#1 MOV %r5 = R1 ;
	#2 IADD3 R1 = R1, -0x40, RZ ;
	#3 STL [%r5], RZ ;
	#4 EXIT ;
`, `BB0:
	#1 IADD3 R1 = R1, -0x40, RZ ;
	#2 MOV %r5 = R1 ;
BB1:
	#3 STL [%r5], RZ ;
	#4 IADD3 R1 = R1, 0x40, RZ ;
	#5 EXIT ;
`} {
		if got, changed := sameConstRun(t, in); changed || got != loopCanon(t, loopKernel(in)) {
			t.Errorf("rewritten:\n%s", got)
		}
	}
}

// The shape of the sdk2.2 simpleTexture transformKernel's second local
// array: %r5 is R1+0x1c in both arms (once through a copy), so its uses
// read R1 again: a memory base folds the offset, another use gets a
// fresh IADD3. %r20 is R1+0x1c in one arm and R1+0x20 in the other and
// stays; %r6 has one definition and stays too (an IADD3 at each use
// would cost more than the register).
const sameConstOffIn = `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x40, RZ ;
	#3 S2R %r3 = SR_TID.X ;
	#4 ISETP.NE.AND %p0, PT = %r3, RZ, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#10 IADD3 %r6 = R1, 0x1c, RZ ;
	#11 MOV %r5 = %r6 ;
	#12 IADD3 %r20 = R1, 0x1c, RZ ;
	#13 STL [%r6], RZ ;
	#15 BRA BB3 ;
BB2:
	#20 IADD3 %r5 = R1, 0x1c, RZ ;
	#21 IADD3 %r20 = R1, 0x20, RZ ;
BB3:
	#32 STL [%r5+0x8], %r3 ;
	#33 IADD3 %r12 = %r5, %r3, RZ ;
	#34 STL [%r20], %r12 ;
	#38 EXIT ;
`

func TestSameConstRematStackOffset(t *testing.T) {
	got, changed := sameConstRun(t, sameConstOffIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 IADD3 R1 = R1, -0x40, RZ ;
	#3 S2R %r3 = SR_TID.X ;
	#4 ISETP.NE.AND %p0, PT = %r3, RZ, PT ;
	#5 @%p0 BRA BB2 ;
BB1:
	#10 IADD3 %r6 = R1, 0x1c, RZ ;
	#12 IADD3 %r20 = R1, 0x1c, RZ ;
	#13 STL [%r6], RZ ;
	#15 BRA BB3 ;
BB2:
	#21 IADD3 %r20 = R1, 0x20, RZ ;
BB3:
	#32 STL [R1+0x24], %r3 ;
	#39 IADD3 %r21 = R1, 0x1c, RZ ;
	#33 IADD3 %r12 = %r21, %r3, RZ ;
	#34 STL [%r20], %r12 ;
	#38 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if got, changed := sameConstRun(t, sameConstOffIn, "DisableSameConstRemat=1"); changed || got != loopCanon(t, loopKernel(sameConstOffIn)) {
		t.Errorf("rewritten with DisableSameConstRemat:\n%s", got)
	}
}
