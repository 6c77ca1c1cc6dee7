package opt

import (
	"slices"
	"testing"

	"orilab/pipeline/ori"
)

// TestCMAppendReads checks that cmAppendReads lists exactly the registers
// cmReads visits, in the same order: the guard, register sources, the
// bases of memory and constant-bank sources, and the bases of memory
// results (a store's address), but not register results, immediates,
// absolute addresses or base-less constant-bank operands.
func TestCMAppendReads(t *testing.T) {
	g := ori.VReg(ori.ClassP, 9, 1)
	a, b, c, d, e := ori.VReg(ori.ClassR, 1, 1), ori.VReg(ori.ClassR, 2, 2), ori.VReg(ori.ClassR, 3, 1),
		ori.VReg(ori.ClassR, 4, 2), ori.VReg(ori.ClassR, 5, 1)
	cb := ori.CBank(0, 8)
	cbBase := ori.CBank(1, 16)
	cbBase.Reg, cbBase.HasBase = d, true
	in := &ori.Inst{
		Guard: g,
		Dsts:  []ori.Operand{ori.R(e), ori.Mem(c, 4)},
		Srcs:  []ori.Operand{ori.R(a), ori.Imm(3), ori.Mem(b, 0), ori.AbsMem(64), cb, cbBase, ori.R(ori.RZ)},
	}
	want := []ori.Reg{g, a, b, d, ori.RZ, c}
	var visited []ori.Reg
	cmReads(in, func(r ori.Reg) { visited = append(visited, r) })
	if !slices.Equal(visited, want) {
		t.Errorf("cmReads visits %v, want %v", visited, want)
	}
	if got := cmAppendReads(nil, in); !slices.Equal(got, want) {
		t.Errorf("cmAppendReads = %v, want %v", got, want)
	}
	// Appends after what the buffer holds.
	if got := cmAppendReads([]ori.Reg{ori.PT}, in); !slices.Equal(got, append([]ori.Reg{ori.PT}, want...)) {
		t.Errorf("cmAppendReads after PT = %v", got)
	}
}
