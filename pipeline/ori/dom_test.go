package ori

import "testing"

// TestDominators checks both trees on a loop with a nested if/else and an
// early exit:
//
//	BB0 -> BB1 ; BB1 -> BB2 | BB5 ; BB2 -> BB3 | BB4 ; BB3 -> BB4 ;
//	BB4 -> BB1 (back edge) ; BB5 -> exit ; BB6 unreachable.
func TestDominators(t *testing.T) {
	f, err := ParseFunc("d.ori", []byte(fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
BB1:
	#2 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;
	#3 @%p0 BRA BB5 ;
BB2:
	#4 ISETP.GE.AND %p1, PT = %r0, 0x4, PT ;
	#5 @%p1 BRA BB4 ;
BB3:
	#6 IADD3 %r0 = %r0, 0x2, RZ ;
BB4:
	#7 IADD3 %r0 = %r0, 0x1, RZ ;
	#8 BRA BB1 ;
BB5:
	#9 EXIT ;
BB6:
	#10 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	b := f.Blocks
	name := func(x *Block) string {
		if x == nil {
			return "-"
		}
		return "BB" + string(rune('0'+x.ID))
	}
	dom := Dominators(f)
	wantDom := []string{"-", "BB0", "BB1", "BB2", "BB2", "BB1", "-"}
	for i, w := range wantDom {
		if got := name(dom.Idom(b[i])); got != w {
			t.Errorf("idom(BB%d) = %s, want %s", i, got, w)
		}
	}
	if dom.Reached(b[6]) || !dom.Dominates(b[1], b[4]) || dom.Dominates(b[3], b[4]) {
		t.Error("Reached/Dominates wrong")
	}
	pdom := PostDominators(f)
	// BB6 and BB5 exit; BB4 -> BB1 -> BB5.
	wantPdom := []string{"BB1", "BB5", "BB4", "BB4", "BB1", "-", "-"}
	for i, w := range wantPdom {
		if got := name(pdom.Idom(b[i])); got != w {
			t.Errorf("ipdom(BB%d) = %s, want %s", i, got, w)
		}
	}
}

// TestDominatesMatchesIdomChain checks the interval test of Dominates
// against the definition (a lies on b's idom chain, both reached) for
// every pair of blocks of both trees, on a CFG with a loop, an early
// exit, an unreachable block and a second exit (a post-dominator forest).
func TestDominatesMatchesIdomChain(t *testing.T) {
	f, err := ParseFunc("d.ori", []byte(fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;
	#3 @%p0 BRA BB6 ;
BB1:
	#4 ISETP.GE.AND %p1, PT = %r0, 0x4, PT ;
	#5 @%p1 BRA BB3 ;
BB2:
	#6 IADD3 %r0 = %r0, 0x2, RZ ;
	#7 @%p1 BRA BB5 ;
BB3:
	#8 IADD3 %r0 = %r0, 0x1, RZ ;
	#9 @%p0 BRA BB1 ;
BB4:
	#10 BRA BB6 ;
BB5:
	#11 EXIT ;
BB6:
	#12 IADD3 %r0 = %r0, 0x3, RZ ;
	#13 EXIT ;
BB7:
	#14 BRA BB2 ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	for _, tree := range []*DomTree{Dominators(f), PostDominators(f)} {
		chain := func(a, b *Block) bool {
			if !tree.Reached(a) || !tree.Reached(b) {
				return false
			}
			for x := b; x != nil; x = tree.Idom(x) {
				if x == a {
					return true
				}
			}
			return false
		}
		n := 0
		for _, a := range f.Blocks {
			for _, b := range f.Blocks {
				if got, want := tree.Dominates(a, b), chain(a, b); got != want {
					t.Errorf("Dominates(BB%d, BB%d) = %v, want %v", a.ID, b.ID, got, want)
				}
				if tree.Dominates(a, b) && a != b {
					n++
				}
			}
		}
		if n == 0 {
			t.Error("no strict dominance at all: the CFG does not exercise the test")
		}
	}
}
