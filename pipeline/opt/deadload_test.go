package opt

import "testing"

// deadLoadsIn has one dead load of each kind: weak global, read-only
// global, shared, local, constant, generic, and the ordered global loads
// (volatile: STRONG.SYS; relaxed or acquire at .gpu: STRONG.GPU), plus a
// weak load whose result is stored.
const deadLoadsIn = `BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 S2R %r1 = SR_TID.X ;
	#4 LDG.E %r2 = [%r0.64] ;
	#5 LDG.E.CONSTANT %r3 = [%r0.64+0x4] ;
	#6 LDS %r4 = [%r1] ;
	#7 LDL %r5 = [%r1] ;
	#8 LDC %r6 = c[0x3][%r1] ;
	#9 LD.E %r7 = [%r0.64+0x8] ;
	#10 LDG.E.STRONG.SYS %r8 = [%r0.64+0xc] ;
	#11 LDG.E.STRONG.GPU %r9 = [%r0.64+0x10] ;
	#12 LDS %r10 = [%r1+0x4] ;
	#13 STG.E [%r0.64], %r10 ;
	#14 EXIT ;
`

func TestDeadLoads(t *testing.T) {
	// ptxas 13.0.88 deletes the weak ones and keeps the volatile one;
	// orilab keeps every ordered one (deadload.go's Decision).
	want := canon(t, dcFunc(`BB0:
	#1 MOV %r0 = c[0x0][0x160] ;
	#2 MOV %r0[1] = c[0x0][0x164] ;
	#3 S2R %r1 = SR_TID.X ;
	#10 LDG.E.STRONG.SYS %r8 = [%r0.64+0xc] ;
	#11 LDG.E.STRONG.GPU %r9 = [%r0.64+0x10] ;
	#12 LDS %r10 = [%r1+0x4] ;
	#13 STG.E [%r0.64], %r10 ;
	#14 EXIT ;
`))
	got, changed := runDeadCode(t, dcFunc(deadLoadsIn), false)
	if !changed || got != want {
		t.Errorf("changed %v, got\n%s\nwant\n%s", changed, got, want)
	}
}

func TestDeadLoadsKnob(t *testing.T) {
	in := dcFunc(deadLoadsIn)
	got, changed := applyPass(t, "OriPerformLiveDeadFirst", in, passRun{knobs: []string{"DisableDeadLoadElim=1"}})
	if want := canon(t, in); changed || got != want {
		t.Errorf("DisableDeadLoadElim: changed %v, got\n%s\nwant the input", changed, got)
	}
}
