package tui

import (
	"context"
	"regexp"
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
		"replay:",
		"orilab bisect testdata/sample/sample.json -O 3 --mode phase",
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
	if m.focus != paneBisect || !strings.Contains(m.View(), "nothing to apply: run a bisection that finds something first") {
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

func TestBisectPaneDisableModeAppliesSet(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", moveFirstStore)
	defer restore()
	m := sampleModelAt(t, 120, 40, 3)
	typeKeys(m, "6", "B")
	v := m.View()
	for _, want := range []string{
		"DISABLE GeneralOptimizeMid",
		"knob: -knob DisablePhases=GeneralOptimizeMid",
		"--mode disable",
		"bisect: disabling GeneralOptimizeMid makes it pass (enter applies it)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("bisect pane lacks %q:\n%s", want, v)
		}
	}
	typeKeys(m, "enter")
	if got := m.c.W.Knobs["DisablePhases"]; got != "GeneralOptimizeMid" {
		t.Fatalf("enter after a disable bisection: DisablePhases=%q", got)
	}
	send(m, compileNow(m.c.W))
	if s := m.c.W.Snap(40); s == nil || s.Status != pipeline.StatusDisabled {
		t.Errorf("GeneralOptimizeMid after applying the set: %+v", s)
	}
	// With the set applied the kernel passes: r on the last phase that
	// ran says so.
	for i := len(pipeline.PhaseTable) - 1; i >= 0; i-- {
		if s := m.c.W.Snap(i); s != nil && s.Status != pipeline.StatusDisabled && s.Status != pipeline.StatusNoOp {
			m.timeline.Select(i)
			break
		}
	}
	send(m, runNow(t, m.startRun()))
	if v := m.View(); !strings.Contains(v, "out: PASS (4 elements)") {
		t.Errorf("run after applying the disable set:\n%s", v)
	}
}

// TestBisectProgressIsLive drives the command the way the program does:
// each message is a progress line, until the result arrives.
func TestBisectProgressIsLive(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", moveFirstStore)
	defer restore()
	m := sampleModelAt(t, 100, 30, 3)
	cmd := bisectCmd(context.Background(), m.c.W, "phase")
	var lines []string
	for cmd != nil {
		switch msg := cmd().(type) {
		case bisectProgressMsg:
			lines = append(lines, msg.line)
			m.bisect.Start("phase", nil)
			m.bisect.Update(msg)
			if v := m.bisect.View(); !strings.Contains(v, "bisecting (phase mode)...") || !strings.Contains(v, msg.line[:min(len(msg.line), 40)]) {
				t.Errorf("progress not shown:\n%s", v)
			}
			cmd = msg.next
		case bisectMsg:
			if msg.err != nil || msg.phase == nil || msg.phase.Name != "GeneralOptimizeMid" {
				t.Fatalf("result %+v", msg)
			}
			cmd = nil
		default:
			t.Fatalf("unexpected %T", msg)
		}
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "bisect: executing after ") {
		t.Errorf("progress lines: %q", lines)
	}
}

// TestFlowBisectPlantedFault runs the real program: the bisection runs as
// a command off the UI loop, and enter jumps to the culprit's diff.
func TestFlowBisectPlantedFault(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", moveFirstStore)
	defer restore()
	tm := startFlowAt(t, 3)
	waitFor(t, tm, "compiled: ")
	tm.Send(keyMsg("6"))
	tm.Send(keyMsg("b"))
	waitFor(t, tm, "CULPRIT #40 GeneralOptimizeMid")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "#40 GeneralOptimizeMid [diff]")
	if m := quit(t, tm); m.c.W.Sel != 40 || m.focus != paneIR {
		t.Errorf("after enter: selected %d, focus %d", m.c.W.Sel, m.focus)
	}
}

// TestGoldenBisect pins the bisect pane's screen after finding a planted
// fault. The wall-clock time and the sample's temporary directory are
// masked.
func TestGoldenBisect(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", moveFirstStore)
	defer restore()
	m := sampleModelAt(t, 80, 24, 3)
	typeKeys(m, "6", "b")
	b := m.bisect.last
	if b == nil || b.phase == nil {
		t.Fatalf("no phase result: %+v", b)
	}
	b.took = 0
	b.phase.Replay = regexp.MustCompile(`/\S*orilab-sample-\d+/`).ReplaceAllString(b.phase.Replay, "/tmp/S/")
	golden(t, "bisect_culprit", m.View()+"\n")
}
