package ori

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
)

// TestAppendLiveOutWords: the unsorted list holds LiveOutWords' words,
// after what dst already held, for every block of a loop with a pair,
// a predicate and a value live around the back edge.
func TestAppendLiveOutWords(t *testing.T) {
	src := `.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x1 ;
	#3 MOV %r1[1] = 0x2 ;
	#4 MOV %r9 = 0x3 ;
	#5 ISETP.LT.AND %p1, PT = %r0, 0x8, PT ;
BB1:
	#6 MOV.PHI %r2 = %r0, BB0, %r3, BB1 ;
	#7 IADD3 %r3 = %r2, %r1[1], RZ ;
	#8 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#9 @%p0 BRA BB1 ;
BB2:
	#10 @%p1 STS [%r3], %r9 ;
	#11 EXIT ;
}
`
	f, err := ParseFunc("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	l := Liveness(f)
	byWord := func(a, b Reg) int {
		if c := cmp.Compare(a.Class, b.Class); c != 0 {
			return c
		}
		if c := cmp.Compare(a.N, b.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Off, b.Off)
	}
	want := []string{"[%r0 %r1[1] %r9 %p1]", "[%r1[1] %r3 %r9 %p1]", "[]"}
	for i, b := range f.Blocks {
		got := l.AppendLiveOutWords([]Reg{RZ}, b)
		if len(got) == 0 || got[0] != RZ {
			t.Fatalf("BB%d: the list does not start with dst's RZ: %v", b.ID, got)
		}
		rest := slices.Clone(got[1:])
		slices.SortFunc(rest, byWord)
		if s := fmt.Sprint(rest); s != want[i] {
			t.Errorf("BB%d: got %s, want %s", b.ID, s, want[i])
		}
		if s, lo := fmt.Sprint(rest), fmt.Sprint(l.LiveOutWords(b)); s != lo {
			t.Errorf("BB%d: got %s, LiveOutWords %s", b.ID, s, lo)
		}
	}
}
