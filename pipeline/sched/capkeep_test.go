package sched_test

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/sched"
)

// capKeepBlock is the shape of simpleTexture's unrolled Payne-Hanek
// reduction (cuda3.2 transformKernel): five steps, each a table LDC, the
// low and high products by one factor, the low word plus the carry in,
// stored, and the high word, the next carry.
func capKeepBlock() string {
	var b strings.Builder
	b.WriteString(".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 MOV %r1 = c[0x0][0x160] ;\n\t#2 MOV %r2 = RZ ;\n")
	id, carry := 3, 2
	for s := 0; s < 5; s++ {
		r := 10 + 10*s
		fmt.Fprintf(&b, "\t#%d LDC %%r%d = c[0x3][%#x] ;\n", id, r, 4*s)
		fmt.Fprintf(&b, "\t#%d IMAD %%r%d = %%r%d, %%r1, RZ ;\n", id+1, r+1, r)
		fmt.Fprintf(&b, "\t#%d IMAD.HI.U32 %%r%d = %%r%d, %%r1, RZ ;\n", id+2, r+2, r)
		fmt.Fprintf(&b, "\t#%d IADD3 %%r%d = %%r%d, %%r%d, RZ ;\n", id+3, r+3, r+1, carry)
		fmt.Fprintf(&b, "\t#%d STL [R1+%#x], %%r%d ;\n", id+4, 4*s, r+3)
		id, carry = id+5, r+2
	}
	fmt.Fprintf(&b, "\t#%d STL [R1+0x20], %%r%d ;\n\t#%d EXIT ;\n}\n", id, carry, id+1)
	return b.String()
}

// TestCapKeepInput: ReduceReg keeps the block at one step's values, 4 R
// words. ILP, capped at that peak, finds every ready instruction over
// the cap at the second step and issues the later steps' LDCs ahead of
// it (the latency cascade prefers the tallest), ending at 8. With
// SchedCapKeepInput the region keeps ReduceReg's order and its peak.
func TestCapKeepInput(t *testing.T) {
	for _, c := range []struct {
		knobs []string
		peak  int
	}{
		{nil, 4},
		{[]string{"SchedCapKeepInput=0"}, 8},
	} {
		f := parse(t, capKeepBlock())
		st, err := sched.Schedule(f, sched.Options{Arch: 80, OptLevel: 3, Knobs: knobSet(t, c.knobs...)})
		if err != nil {
			t.Fatal(err)
		}
		if st.PressureAfter != c.peak {
			t.Errorf("%v: peak %d after scheduling (before %d), want %d; order %s", c.knobs, st.PressureAfter, st.PressureBefore, c.peak, order(f))
		}
	}
}
