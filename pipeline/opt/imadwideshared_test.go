package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// A product added to two bases, the second after a barrier in another
// block: both adds become IMAD.WIDEs of the 32-bit index, and the product
// goes.
const imadWideSharedIn = `BB0:
	#1 S2R %r2 = SR_TID.X ;
	#2 IMAD.WIDE %r13.64 = %r2, 0x4, RZ ;
	#3 IADD3 %r14, %p3 = %r13, c[0x0][0x160], RZ ;
	#4 IADD3.X %r14[1] = %r13[1], c[0x0][0x164], RZ, %p3, !PT ;
	#5 LDG.E %r15 = [%r14.64] ;
	#6 BAR.SYNC 0x0 ;
	#7 ISETP.NE.AND %p1, PT = %r15, 0x0, PT ;
	#8 @%p1 BRA BB2 ;
BB1:
	#9 IADD3 %r16, %p4 = %r13, c[0x0][0x168], RZ ;
	#10 IADD3.X %r16[1] = %r13[1], c[0x0][0x16c], RZ, %p4, !PT ;
	#11 STG.E [%r16.64], %r15 ;
	#12 IADD3 %r17, %p5 = %r13, c[0x0][0x170], RZ ;
	#13 IADD3.X %r17[1] = %r13[1], c[0x0][0x174], RZ, %p5, !PT ;
	#14 STG.E [%r17.64], %r15 ;
BB2:
	#15 EXIT ;
`

func TestIMADWideShared(t *testing.T) {
	got, changed := imadWideRun(t, loopKernel(imadWideSharedIn))
	want := loopCanon(t, loopKernel(`BB0:
	#1 S2R %r2 = SR_TID.X ;
	#16 MOV %r18 = 0x4 ;
	#3 IMAD.WIDE %r14.64 = %r2, %r18, c[0x0][0x160] ;
	#5 LDG.E %r15 = [%r14.64] ;
	#6 BAR.SYNC 0x0 ;
	#7 ISETP.NE.AND %p1, PT = %r15, 0x0, PT ;
	#8 @%p1 BRA BB2 ;
BB1:
	#17 MOV %r19 = 0x4 ;
	#9 IMAD.WIDE %r16.64 = %r2, %r19, c[0x0][0x168] ;
	#11 STG.E [%r16.64], %r15 ;
	#12 IMAD.WIDE %r17.64 = %r2, %r19, c[0x0][0x170] ;
	#14 STG.E [%r17.64], %r15 ;
BB2:
	#15 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	for _, knob := range []string{"DisableIMADWideShared=1", "DisableIMADWideFold=1"} {
		if _, changed := imadWideRun(t, loopKernel(imadWideSharedIn), knob); changed {
			t.Errorf("folded with %s", knob)
		}
	}
}

func TestIMADWideSharedRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"product read by a load", "#11 STG.E [%r16.64], %r15 ;", "#11 STG.E [%r13.64], %r15 ;"},
		{"index defined twice", "#6 BAR.SYNC 0x0 ;", "#6 BAR.SYNC 0x0 ;\n\t#20 S2R %r2 = SR_TID.Y ;"},
		{"index defined under a guard", "#1 S2R", "#1 @%p9 S2R"},
		{"product defined twice", "#6 BAR.SYNC 0x0 ;", "#6 BAR.SYNC 0x0 ;\n\t#20 IMAD.WIDE %r13.64 = %r2, 0x8, RZ ;"},
		{"guarded product", "#2 IMAD.WIDE", "#2 @%p9 IMAD.WIDE"},
		{"carry read elsewhere", "#15 EXIT ;", "#21 @%p4 EXIT ;\n\t#15 EXIT ;"},
	} {
		in := strings.Replace(imadWideSharedIn, tc.from, tc.to, 1)
		if in == imadWideSharedIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if changed, err := FoldIMADWide.Run(f, &Context{OptLevel: 3, Arch: 80}); err != nil || changed {
			t.Errorf("%s: changed=%v err=%v\n%s", tc.name, changed, err, f)
		}
	}
}

// A product whose only add is in another block than its definition (the
// same-block fold of imadwide.go declines it) is folded too.
func TestIMADWideSharedOtherBlock(t *testing.T) {
	in := strings.Replace(imadWideSharedIn, `	#3 IADD3 %r14, %p3 = %r13, c[0x0][0x160], RZ ;
	#4 IADD3.X %r14[1] = %r13[1], c[0x0][0x164], RZ, %p3, !PT ;
	#5 LDG.E %r15 = [%r14.64] ;
`, "\t#5 LDC %r15 = c[0x0][0x160] ;\n", 1)
	in = strings.Replace(in, `	#12 IADD3 %r17, %p5 = %r13, c[0x0][0x170], RZ ;
	#13 IADD3.X %r17[1] = %r13[1], c[0x0][0x174], RZ, %p5, !PT ;
	#14 STG.E [%r17.64], %r15 ;
`, "", 1)
	got, changed := imadWideRun(t, loopKernel(in))
	if want := "#9 IMAD.WIDE %r16.64 = %r2, %r17, c[0x0][0x168] ;"; !changed || !strings.Contains(got, want) || strings.Contains(got, "%r13") {
		t.Fatalf("changed=%v\n%s\nwant %s and no %%r13", changed, got, want)
	}
}
