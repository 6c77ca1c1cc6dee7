package sched

import (
	"testing"

	"orilab/pipeline/ori"
)

// TestPruneWaits: a wait on a barrier that an earlier wait on every path
// has cleared is dropped; a wait on a barrier set only around a loop is
// kept, although the first pass over the loop finds it unset.
func TestPruneWaits(t *testing.T) {
	f, err := ori.ParseFunc("t.ori", []byte(`.entry p
.shared 0x0
.local 0x0
{
BB0:
	#1 [B------:R-:W0:-:S01] LDG.E R2 = [R4.64] ;
	#2 [B0-----:R-:W-:-:S01] IADD3 R3 = R2, 0x1, RZ ;
	#3 [B0-----:R-:W-:-:S01] IADD3 R5 = R2, 0x1, RZ ;
BB1:
	#4 [B-1----:R-:W-:-:S01] IADD3 R6 = R7, 0x1, RZ ;
	#5 [B------:R-:W1:-:S01] LDG.E R7 = [R4.64] ;
	#6 [B------:R-:W-:-:S01] @P0 BRA BB1 ;
BB2:
	#7 [B------:R-:W-:-:S01] EXIT ;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	var fs facts
	fs.reset(f, 75)
	pruneWaits(f, &fs)
	want := map[int32]uint8{1: 0, 2: 1, 3: 0, 4: 2, 5: 0, 6: 0, 7: 0}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Ctrl.Wait != want[in.ID] {
				t.Errorf("#%d waits %06b, want %06b", in.ID, in.Ctrl.Wait, want[in.ID])
			}
		}
	}
}
