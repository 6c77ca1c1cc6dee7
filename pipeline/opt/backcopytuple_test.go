package opt

import "testing"

// texQuad is a TEX writing two pairs that a 128-bit store reads as one
// quad, assembled word by word (what lowering writes for tex.v4 and
// st.v4).
const texQuad = `BB0:
	#4 MOV %r6 = c[0x0][0x168] ;
	#5 MOV %r6[1] = 0x0 ;
	#6 MOV %r7 = 0xc2000000 ;
	#7 TEX.SCR.LL.2D %r9.64, %r8.64 = %r6.64, %r7, 0x0, 0x5b ;
	#12 MOV %r10 = %r8 ;
	#13 MOV %r10[1] = %r8[1] ;
	#14 MOV %r10[2] = %r9 ;
	#15 MOV %r10[3] = %r9[1] ;
	#16 STG.E.128 [R2.64], %r10.128 ;
	#17 EXIT ;
`

// TestBackCopyTuples: both pairs of the TEX are renamed into their
// halves of the quad and the four copies go; a pair read between its
// definition and its copies reads the quad's half instead.
func TestBackCopyTuples(t *testing.T) {
	got, changed := runPass(t, "OriBackCopyPropagate", dcFunc(texQuad))
	want := canon(t, dcFunc(`BB0:
	#4 MOV %r6 = c[0x0][0x168] ;
	#5 MOV %r6[1] = 0x0 ;
	#6 MOV %r7 = 0xc2000000 ;
	#7 TEX.SCR.LL.2D %r10[2].64, %r10.64 = %r6.64, %r7, 0x0, 0x5b ;
	#16 STG.E.128 [R2.64], %r10.128 ;
	#17 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	got, changed = runPass(t, "OriBackCopyPropagate", dcFunc(`BB0:
	#1 LDG.E.64 %r1.64 = [R2.64] ;
	#2 STG.E.64 [R4.64], %r1.64 ;
	#3 MOV %r5[2] = %r1 ;
	#4 MOV %r5[3] = %r1[1] ;
	#5 MOV %r5 = RZ ;
	#6 MOV %r5[1] = RZ ;
	#7 STG.E.128 [R6.64], %r5.128 ;
	#8 EXIT ;
`))
	want = canon(t, dcFunc(`BB0:
	#1 LDG.E.64 %r5[2].64 = [R2.64] ;
	#2 STG.E.64 [R4.64], %r5[2].64 ;
	#5 MOV %r5 = RZ ;
	#6 MOV %r5[1] = RZ ;
	#7 STG.E.128 [R6.64], %r5.128 ;
	#8 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
}

// TestBackCopyTuplesLeavesAlone: the group rule does not apply when the
// knob is set, when the slice would break the tuple's alignment, when
// the pair is also read after its copies, or when the words are copied
// out of order.
func TestBackCopyTuplesLeavesAlone(t *testing.T) {
	off := applyPassText(t, texQuad, "DisableBackCopyTuples")
	if want := canon(t, dcFunc(texQuad)); off != want {
		t.Errorf("DisableBackCopyTuples: changed\n%s", off)
	}
	for _, c := range []struct{ name, in string }{
		{"unaligned slice", `BB0:
	#1 LDG.E.64 %r1.64 = [R2.64] ;
	#2 MOV %r5 = RZ ;
	#3 MOV %r5[1] = %r1 ;
	#4 MOV %r5[2] = %r1[1] ;
	#5 MOV %r5[3] = RZ ;
	#6 STG.E.128 [R6.64], %r5.128 ;
	#7 EXIT ;
`},
		{"pair read after its copies", `BB0:
	#1 LDG.E.64 %r1.64 = [R2.64] ;
	#2 MOV %r5 = %r1 ;
	#3 MOV %r5[1] = %r1[1] ;
	#4 STG.E.64 [R6.64], %r5.64 ;
	#5 STG.E.64 [R8.64], %r1.64 ;
	#6 EXIT ;
`},
		{"words out of order", `BB0:
	#1 LDG.E.64 %r1.64 = [R2.64] ;
	#3 MOV %r5[1] = %r1[1] ;
	#2 MOV %r5 = %r1 ;
	#4 STG.E.64 [R6.64], %r5.64 ;
	#6 EXIT ;
`},
	} {
		t.Run(c.name, func(t *testing.T) { expectUnchanged(t, "OriBackCopyPropagate", c.in) })
	}
}

// applyPassText runs OriBackCopyPropagate on body with one knob set and
// returns the text.
func applyPassText(t *testing.T, body, knob string) string {
	t.Helper()
	got, _ := applyPass(t, "OriBackCopyPropagate", dcFunc(body), passRun{skipVerifyIn: true, knobs: []string{knob}})
	return got
}
