package ori

import "testing"

// TestCloneBlocks checks the partial copy if-conversion trials run on: the
// chosen blocks only, deep-copied instructions, edges among the copies
// (and to f's blocks outside them), and allocators that continue where
// f's are, so that what a trial creates is numbered as in f.
func TestCloneBlocks(t *testing.T) {
	f, err := ParseFunc("c.ori", []byte(fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.GE.AND %p0, PT = %r0, 0x10, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 IADD3 %r1 = %r0, 0x2, RZ ;
BB2:
	#5 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	b0, b1, b2 := f.Blocks[0], f.Blocks[1], f.Blocks[2]
	c, cp := f.CloneBlocks([]*Block{b1, b2})
	if len(c.Blocks) != 2 || c.Blocks[0] != cp[b1] || c.Blocks[1] != cp[b2] || cp[b0] != nil {
		t.Fatalf("copy holds %d blocks, want the copies of BB1 and BB2 in that order", len(c.Blocks))
	}
	if got := cp[b1].Succs; len(got) != 1 || got[0] != cp[b2] {
		t.Errorf("BB1's copy: successors %v, want BB2's copy", got)
	}
	if got := cp[b1].Preds; len(got) != 1 || got[0] != b0 {
		t.Errorf("BB1's copy: predecessors %v, want f's own BB0 (not copied)", got)
	}
	cp[b1].Insts[0].Srcs[1] = Imm(7)
	if f.Blocks[1].Insts[0].Srcs[1].Imm != 2 {
		t.Errorf("editing the copy changed f: %s", f.Blocks[1].Insts[0])
	}
	if got, want := c.NewVReg(ClassR, 1), f.NewVReg(ClassR, 1); got != want {
		t.Errorf("copy's next register %v, f's %v", got, want)
	}
	if got, want := c.NewID(), f.NewID(); got != want {
		t.Errorf("copy's next ID %d, f's %d", got, want)
	}
}
