package sched

import (
	"fmt"
	"testing"

	"orilab/pipeline/ori"
)

// TestDAGScratchReuse: a DAG built in a scratch that held a larger region
// before (other words, more edges per node, a floating node) is the DAG a
// fresh build gives: nothing of the earlier region leaks into it.
func TestDAGScratchReuse(t *testing.T) {
	parse := func(insts string) []*ori.Inst {
		t.Helper()
		f, err := ori.ParseFunc("t.ori", []byte(".entry t\n.shared 0x0\n.local 0x0\n{\nBB0:\n"+insts+"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return f.Blocks[0].Insts
	}
	big := parse(`	#1 LDG.E %r1 = [%r0.64] ;
	#2 IADD3 %r2 = %r1, 0x1, RZ ;
	#3 IADD3 %r3 = %r2, %r1, RZ ;
	#4 IMAD %r4 = %r3, %r2, %r1 ;
	#5 ISETP.LT.AND %p0, PT = %r4, 0x40, PT ;
	#6 @%p0 STG.E [%r0.64], %r4 ;
	#7 MOV R4 = %r3 ;
	#8 CALL.ABS.NOINC 0x0 ;
	#9 STG.E [%r0.64], %r2 ;
	#10 EXIT ;
`)
	small := parse(`	#1 IADD3 %r2 = %r7, 0x1, RZ ;
	#2 IADD3 %r1 = %r2, %r2, RZ ;
	#3 STG.E [%r0.64], %r1 ;
	#4 EXIT ;
`)
	render := func(d *dag) string {
		return fmt.Sprintf("%s\nnpred %v height %v waits %v float %v raw %v uses %v",
			edgeList(d), d.npred, d.height, d.waits, d.float, d.rawPreds, d.uses)
	}
	want := render(buildDAG(small, 80, true))
	var sc dagScratch
	if got := render(sc.build(big, 80, true, nil, nil)); got == want {
		t.Fatalf("the two regions' DAGs should differ; both are\n%s", got)
	}
	if got := render(sc.build(small, 80, true, nil, nil)); got != want {
		t.Errorf("reused scratch:\n%s\nfresh:\n%s", got, want)
	}
	// And back to the larger region after the smaller one.
	if got, want := render(sc.build(big, 80, true, nil, nil)), render(buildDAG(big, 80, true)); got != want {
		t.Errorf("reused scratch:\n%s\nfresh:\n%s", got, want)
	}
}

// TestWordTable: ids set in one region are found, other words are not,
// and a reset forgets every one, in the slices and in the map alike.
func TestWordTable(t *testing.T) {
	var tab wordTable
	ws := []word{
		{n: 7<<2 | 1, class: ori.ClassR, virt: true},
		{n: 7, class: ori.ClassR},             // the physical R7: another word
		{n: 3, class: ori.ClassP, virt: true}, // same number, another class
		{n: 300, class: ori.ClassR},           // beyond the physical slice: the map
		{n: 5000, class: ori.ClassUR, virt: true},
	}
	for round := 0; round < 3; round++ {
		for i, w := range ws {
			if _, ok := tab.get(w); ok {
				t.Fatalf("round %d: %v has an id before it is set", round, w)
			}
			tab.set(w, int32(10*round+i))
		}
		for i, w := range ws {
			if k, ok := tab.get(w); !ok || k != int32(10*round+i) {
				t.Errorf("round %d: %v: got %d, %v; want %d", round, w, k, ok, 10*round+i)
			}
		}
		if _, ok := tab.get(word{n: 7<<2 | 2, class: ori.ClassR, virt: true}); ok {
			t.Errorf("round %d: a word never set has an id", round)
		}
		tab.reset()
	}
}

// TestWordTableWrap: when the generation counter wraps, entries of the
// generation before are gone, not revived by the new numbering.
func TestWordTableWrap(t *testing.T) {
	var tab wordTable
	w := word{n: 9 << 2, class: ori.ClassR, virt: true}
	tab.reset()
	tab.set(w, 4)
	tab.gen = 1<<32 - 1
	tab.set(w, 5) // stamped with the last generation before the wrap
	tab.reset()   // wraps
	if k, ok := tab.get(w); ok {
		t.Fatalf("after the wrap the word still has id %d", k)
	}
	tab.reset() // generation 2: no stale stamp may match it either
	if _, ok := tab.get(w); ok {
		t.Fatal("a cleared stamp matched a later generation")
	}
}
