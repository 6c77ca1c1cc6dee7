package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
)

// bigKernel returns a PTX kernel of n dependent 32-bit adds between a load
// and a store: about n Ori instructions.
func bigKernel(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".version 6.3\n.target sm_75\n.address_size 64\n\n")
	fmt.Fprintf(&b, ".visible .entry big(.param .u64 big_p)\n{\n")
	fmt.Fprintf(&b, "\t.reg .b32 %%r<%d>;\n\t.reg .b64 %%rd<3>;\n", n+1)
	fmt.Fprintf(&b, "\tld.param.u64 %%rd1, [big_p];\n\tcvta.to.global.u64 %%rd2, %%rd1;\n")
	fmt.Fprintf(&b, "\tld.global.u32 %%r0, [%%rd2];\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\tadd.s32 %%r%d, %%r%d, %d;\n", i, i-1, i)
	}
	fmt.Fprintf(&b, "\tst.global.u32 [%%rd2], %%r%d;\n\tret;\n}\n", n)
	return b.String()
}

// BenchmarkStepNextPhase measures one step to the next phase (the key's
// Update plus the View that follows) on a ~1,000-instruction kernel at
// 120x40, in each IR display mode.
func BenchmarkStepNextPhase(b *testing.B) {
	w, err := Load("big.ptx", []byte(bigKernel(1000)), 3)
	if err != nil {
		b.Fatal(err)
	}
	m := New(w)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Init()
	send(m, compileNow(w))
	if w.Err != "" || w.Snap(0).Insts < 1000 {
		b.Fatalf("compile: err %q, %d instructions", w.Err, w.Snap(0).Insts)
	}
	down := tea.KeyMsg{Type: tea.KeyDown}
	top := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")}
	for _, mode := range []irMode{modePlain, modeDiff, modeSide} {
		b.Run(mode.String(), func(b *testing.B) {
			for m.ir.Mode() != mode {
				m.ir.CycleMode()
			}
			for b.Loop() {
				k := down
				if w.Sel == len(w.Snaps)-1 {
					k = top
				}
				m.Update(k)
				_ = m.View()
			}
		})
	}
}

func TestBigKernelCompiles(t *testing.T) {
	w, err := Load("big.ptx", []byte(bigKernel(1000)), 3)
	if err != nil {
		t.Fatal(err)
	}
	lowered, snaps, _, err := compile(context.Background(), w.PTX, pipeline.Request{OptLevel: 3})
	if err != nil || lowered == nil || snaps[0].Insts < 1000 {
		t.Fatalf("err %v, snapshots %d", err, len(snaps))
	}
}

// BenchmarkAlignDiff aligns two ~1,000-line IR texts that differ in every
// tenth instruction (the work a diff view does when a phase changed the IR).
func BenchmarkAlignDiff(b *testing.B) {
	var before, after []string
	for i := range 1000 {
		l := fmt.Sprintf("\t#%d IADD3 %%r%d = %%r%d, 0x%x, RZ ; line %d", i, i+1, i, i, i)
		before = append(before, l)
		if i%10 == 0 {
			l = fmt.Sprintf("\t#%d IADD3 %%r%d = %%r%d, 0x%x, RZ ; line %d", i, i+1, i, i+1, i)
		}
		if i%50 != 7 {
			after = append(after, l)
		}
	}
	for b.Loop() {
		if ops := alignDiff(before, after); changes(ops) == 0 {
			b.Fatal("no changes found")
		}
	}
}
