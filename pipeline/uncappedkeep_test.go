package pipeline

import (
	"os"
	"testing"

	"orilab/pipeline/sass"
)

// TestUncappedKeepInputRegisters: ptxas_folds is one block of loads,
// stores, f64 constants and two unrolled fns expansions. ILP capped at
// ReduceReg's peak (8 R words, 2 predicates) ends at 15 words and 8
// predicates, one more than P0-P6, so the pass ran again uncapped, issued
// every load and constant first (30 words) and the kernel took 33
// registers at sm_80 (ptxas 13.0.88 -O3: 24). With SchedUncappedKeepInput
// the region keeps ReduceReg's order (sched/capfallback.go): 11.
func TestUncappedKeepInputRegisters(t *testing.T) {
	const path = "testdata/kernels/ptxas_folds.ptx"
	src, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	regs := func(knobs ...string) int {
		r, err := CompileWith(path, src, Options{Arch: 80}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Knobs: outlineKnobs(t, knobs...)})
		if err != nil {
			t.Fatalf("%v: %v", knobs, err)
		}
		return sass.UsedRegs(r.Final.Func("ptxas_folds"))
	}
	// The knob is on by default.
	if n := regs(); n > 11 {
		t.Errorf("default knobs: %d registers, want at most 11", n)
	}
	on, off := regs("SchedUncappedKeepInput=1"), regs("SchedUncappedKeepInput=0")
	if on > 11 {
		t.Errorf("SchedUncappedKeepInput=1: %d registers, want at most 11", on)
	}
	if off <= on {
		t.Errorf("SchedUncappedKeepInput=0: %d registers, =1: %d; want more without the knob (the uncapped ILP order)", off, on)
	}
}
