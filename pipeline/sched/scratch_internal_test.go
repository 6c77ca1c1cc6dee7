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
	if got := render(sc.build(big, 80, true)); got == want {
		t.Fatalf("the two regions' DAGs should differ; both are\n%s", got)
	}
	if got := render(sc.build(small, 80, true)); got != want {
		t.Errorf("reused scratch:\n%s\nfresh:\n%s", got, want)
	}
	// And back to the larger region after the smaller one.
	if got, want := render(sc.build(big, 80, true)), render(buildDAG(big, 80, true)); got != want {
		t.Errorf("reused scratch:\n%s\nfresh:\n%s", got, want)
	}
}
