package tui

import (
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// moveFirstStore is a planted miscompile: it moves the first store's
// address by 4 bytes (in the sample, a shared store that then runs off
// the end of shared memory, which the simulator reports as a fault).
func moveFirstStore(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op.Flags()&ori.FStore != 0 && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem {
					in.Srcs[0].Imm += 4
					return nil
				}
			}
		}
	}
	return nil
}

func TestBisectPaneFindsPlantedPhase(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", moveFirstStore)
	defer restore()
	m := sampleModelAt(t, 120, 50, 3)
	typeKeys(m, "6")
	if v := m.View(); !strings.Contains(v, "not run yet") {
		t.Fatalf("bisect pane before a run:\n%s", v)
	}
	// The test helpers run commands synchronously, so b returns with the
	// bisection done.
	typeKeys(m, "b")
	v := m.View()
	for _, want := range []string{
		"CULPRIT #40 GeneralOptimizeMid",
		"last passing IR: after ",
		"fault: kernel block_sum: instruction #34 (STS)",
		"replay: orilab bisect ",
		"--mode phase",
		"+++ after GeneralOptimizeMid",
		"bisect: culprit #40 GeneralOptimizeMid (enter selects it)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("bisect pane lacks %q:\n%s", want, v)
		}
	}
	typeKeys(m, "enter")
	if m.c.W.Sel != 40 || m.focus != paneIR || m.ir.Mode() != modeDiff {
		t.Errorf("enter after a bisection: selected %d, focus %d, IR mode %v; want 40, IR pane, diff", m.c.W.Sel, m.focus, m.ir.Mode())
	}
	if v := m.View(); !strings.Contains(v, "selected #40 GeneralOptimizeMid") {
		t.Errorf("no status after the jump:\n%s", v)
	}
}

func TestBisectPaneNoCulprit(t *testing.T) {
	m := sampleModelAt(t, 100, 30, 3)
	typeKeys(m, "6", "b")
	v := m.View()
	if !strings.Contains(v, "NO CULPRIT") || !strings.Contains(v, "bisect: no culprit") {
		t.Errorf("bisecting a passing kernel:\n%s", v)
	}
	typeKeys(m, "enter")
	if m.focus != paneBisect || !strings.Contains(m.View(), "no culprit to jump to: run a bisection first (b)") {
		t.Errorf("enter without a culprit:\n%s", m.View())
	}
}

func TestBisectPaneRefusesNamedPhases(t *testing.T) {
	m := sampleModelAt(t, 100, 30, 3)
	m.c.W.Knobs["NamedPhases"] = "OriCheckInitialProgram"
	typeKeys(m, "6", "b")
	if v := m.View(); !strings.Contains(v, "ERROR") || !strings.Contains(v, "NamedPhases replaces the pipeline") {
		t.Errorf("bisect with NamedPhases set:\n%s", v)
	}
}

func TestBisectWithoutSpec(t *testing.T) {
	w, err := Load("k.ptx", samplePTX, 3)
	if err != nil {
		t.Fatal(err)
	}
	m := New(w)
	typeKeys(m, "6", "b")
	if v := m.View(); !strings.Contains(v, "nothing to execute") || !strings.Contains(v, "no kernel spec to bisect") {
		t.Errorf("b without a spec:\n%s", v)
	}
}
