package opt

import (
	"testing"

	"orilab/pipeline/ori"
)

// chainRun runs FoldAddressChains on a kernel and returns its text.
func chainRun(t *testing.T, in string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := FoldAddressChains.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

// Three unrolled copies of a loop that walks a constant table from
// address 0 and a local array from %r18, as the inlined sinf of
// simpleTexture leaves them; then a chain whose root is written in
// between (#30), an LDC offset past 16 bits (#33) and a chain in the
// next block, which the fold follows only from that block's own add:
// %r505 is not known there to be %r18+8 (#41). %r505 stays live into
// the next block, so its uses in its own block keep reading it (#20,
// #21) rather than keep %r18 live beside it.
const chainIn = `BB0:
	#1 MOV %r18 = R1 ;
	#2 S2R %r3 = SR_TID.X ;
BB1:
	#10 MOV %r16 = 0x0 ;
	#11 LDC %r21 = c[0x3][%r16] ;
	#12 STL [%r18], %r21 ;
	#13 IADD3 %r495, PT = %r18, 0x4, RZ ;
	#14 MOV %r496 = 0x4 ;
	#15 LDC %r497 = c[0x3][%r496] ;
	#16 STL [%r495], %r497 ;
	#17 IADD3 %r505, PT = %r495, 0x4, RZ ;
	#18 MOV %r506 = 0x8 ;
	#19 LDC %r507 = c[0x3][%r506+0x4] ;
	#20 STL [%r505+0x8], %r507 ;
	#21 LDL %r508 = [%r505] ;
	#30 IADD3 %r40 = %r3, 0x10, RZ ;
	#31 IADD3 %r3 = %r3, 0x1, RZ ;
	#32 STS [%r40], %r508 ;
	#33 IADD3 %r41 = %r3, 0xfff0, RZ ;
	#34 LDC %r42 = c[0x3][%r41+0x20] ;
	#35 STS [%r41], %r42 ;
BB2:
	#40 IADD3 %r43 = %r505, 0x4, RZ ;
	#41 STL [%r43], %r3 ;
	#42 EXIT ;
`

func TestAddressChainFold(t *testing.T) {
	got, changed := chainRun(t, chainIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r18 = R1 ;
	#2 S2R %r3 = SR_TID.X ;
BB1:
	#10 MOV %r16 = 0x0 ;
	#11 LDC %r21 = c[0x3][0x0] ;
	#12 STL [%r18], %r21 ;
	#13 IADD3 %r495, PT = %r18, 0x4, RZ ;
	#14 MOV %r496 = 0x4 ;
	#15 LDC %r497 = c[0x3][0x4] ;
	#16 STL [%r18+0x4], %r497 ;
	#17 IADD3 %r505, PT = %r18, 0x8, RZ ;
	#18 MOV %r506 = 0x8 ;
	#19 LDC %r507 = c[0x3][0xc] ;
	#20 STL [%r505+0x8], %r507 ;
	#21 LDL %r508 = [%r505] ;
	#30 IADD3 %r40 = %r3, 0x10, RZ ;
	#31 IADD3 %r3 = %r3, 0x1, RZ ;
	#32 STS [%r40], %r508 ;
	#33 IADD3 %r41 = %r3, 0xfff0, RZ ;
	#34 LDC %r42 = c[0x3][%r41+0x20] ;
	#35 STS [%r3+0xfff0], %r42 ;
BB2:
	#40 IADD3 %r43 = %r505, 0x4, RZ ;
	#41 STL [%r505+0x4], %r3 ;
	#42 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	if got, changed := chainRun(t, chainIn, "DisableAddressChainFold=1"); changed || got != loopCanon(t, loopKernel(chainIn)) {
		t.Errorf("folded with DisableAddressChainFold:\n%s", got)
	}
}
