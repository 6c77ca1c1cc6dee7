package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// changedPhase is the phase withChange makes look as if it rewrote the IR.
const changedPhase = 3

// withChange replaces m's snapshots with copies in which phase 3
// (AnalyzeControlFlow) changed one instruction, removed one and added one,
// and no other phase changed anything: the pane tests need a timeline
// that stays the same while the compiler's phases grow.
func withChange(t testing.TB, m *Model) *ori.Module {
	t.Helper()
	w := m.c.W
	text := w.Lowered.String()
	for _, r := range [][2]string{
		{"#9 MOV %r7 = 0x0 ; line 34", "#9 MOV %r7 = 0x1 ; line 34"},
		{"\t#5 MOV %r3 = %r4 ; line 30\n", ""},
		{"\t#6 MOV %r5 = c[0x0][0x0] ; line 31\n", "\t#6 MOV %r5 = c[0x0][0x0] ; line 31\n\t#900 MOV %r3 = %r4 ; line 30\n"},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the sample's IR has no %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	changed, err := ori.ParseModule("changed", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*pipeline.Snapshot
	for _, s := range w.Snaps {
		c := *s
		c.Module = w.Lowered
		if c.Index >= changedPhase {
			c.Module = changed
		}
		if c.Status == pipeline.StatusChanged {
			c.Status = pipeline.StatusUnchanged
		}
		if c.Index == changedPhase {
			c.Status = pipeline.StatusChanged
		}
		snaps = append(snaps, &c)
	}
	send(m, compiledMsg{gen: w.Gen, lowered: w.Lowered, snaps: snaps})
	return changed
}

// withoutChanges replaces m's snapshots with copies in which no phase
// changed the IR.
func withoutChanges(m *Model) {
	w := m.c.W
	var snaps []*pipeline.Snapshot
	for _, s := range w.Snaps {
		c := *s
		c.Module = w.Lowered
		if c.Status == pipeline.StatusChanged {
			c.Status = pipeline.StatusUnchanged
		}
		snaps = append(snaps, &c)
	}
	send(m, compiledMsg{gen: w.Gen, lowered: w.Lowered, snaps: snaps})
}

// checkFrame checks that a view is exactly width x height cells.
func checkFrame(t *testing.T, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("view has %d lines, want %d", len(lines), height)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w != width {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, w, width, l)
		}
	}
}

func TestSampleMatchesTestdata(t *testing.T) {
	for name, embedded := range map[string][]byte{"sample.ptx": samplePTX, "sample.json": sampleJSON} {
		disk, err := os.ReadFile(filepath.Join("..", "testdata", "sample", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(disk, embedded) {
			t.Errorf("tui/sample/%s differs from testdata/sample/%s; copy it over", name, name)
		}
	}
}

func TestInitialState(t *testing.T) {
	m := sampleModel(t, 80, 24)
	w := m.c.W
	if len(w.Snaps) != len(pipeline.PhaseTable) || w.Err != "" || w.Compiling {
		t.Fatalf("after the first compile: %d snapshots, err %q, compiling %v", len(w.Snaps), w.Err, w.Compiling)
	}
	v := m.View()
	checkFrame(t, v, 80, 24)
	for _, want := range []string{"1 Timeline", "OriCheckInitialP", "#0 OriCheckInitialProgram [plain]", "#67 MOV R1", "-O0", "#0/158 OriCheckInitialProgram"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q", want)
		}
	}
}

func TestTimelineStep(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "down")
	if m.c.W.Sel != 1 {
		t.Fatalf("after down: phase %d, want 1", m.c.W.Sel)
	}
	v := m.View()
	if !strings.Contains(v, "#1 ApplyNvOptRecipes [plain]") {
		t.Errorf("the IR pane does not follow the selection:\n%s", v)
	}
	// A no-op phase shows its reason.
	if !strings.Contains(v, "no-op: not built yet") {
		t.Errorf("the status bar does not say why phase 1 is a no-op:\n%s", v)
	}
	typeKeys(m, "G")
	if m.c.W.Sel != len(pipeline.PhaseTable)-1 {
		t.Errorf("G: phase %d, want the last", m.c.W.Sel)
	}
	typeKeys(m, "g", "up")
	if m.c.W.Sel != 0 {
		t.Errorf("g, up: phase %d, want 0", m.c.W.Sel)
	}
}

func TestJumpToChanged(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withoutChanges(m)
	typeKeys(m, "n")
	if m.c.W.Sel != 0 || !strings.Contains(m.status, "no later phase") {
		t.Errorf("n with no changing phase: phase %d, status %q", m.c.W.Sel, m.status)
	}
	withChange(t, m)
	typeKeys(m, "n")
	if m.c.W.Sel != changedPhase {
		t.Errorf("n: phase %d, want %d", m.c.W.Sel, changedPhase)
	}
	typeKeys(m, "G", "N")
	if m.c.W.Sel != changedPhase {
		t.Errorf("G N: phase %d, want %d", m.c.W.Sel, changedPhase)
	}
	if !strings.Contains(m.View(), "●>  3 AnalyzeControlFl") {
		t.Errorf("the changed phase is not marked:\n%s", m.View())
	}
}

// TestOptimizerChangesShowInTimeline opens the sample at -O3, where the
// optimizer passes change the IR: n jumps to the first phase after the
// CFG analysis that changed it, and that phase is marked.
func TestOptimizerChangesShowInTimeline(t *testing.T) {
	m := sampleModelAt(t, 80, 24, 3)
	typeKeys(m, "n")
	first := m.c.W.Sel
	if first <= 3 {
		t.Fatalf("n went to phase %d; at -O3 an optimizer phase after AnalyzeControlFlow changes the sample", first)
	}
	typeKeys(m, "n")
	if m.c.W.Sel <= first {
		t.Fatalf("second n stayed at phase %d", m.c.W.Sel)
	}
	if !strings.Contains(m.View(), "●>") {
		t.Errorf("the selected changed phase is not marked:\n%s", m.View())
	}
}

func TestTimelineFilter(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "/", "s", "a", "n", "i")
	if !m.timeline.InputFocused() {
		t.Fatal("/ did not focus the filter")
	}
	// While the filter has focus, q is text, not quit.
	typeKeys(m, "enter")
	v := m.View()
	if !strings.Contains(v, "OriSanitize") || strings.Contains(v, "PromoteFP16") {
		t.Errorf("filter 'sani' shows the wrong phases:\n%s", v)
	}
	if m.c.W.Sel != 12 {
		t.Errorf("selected phase %d, want the first match 12 (OriSanitize)", m.c.W.Sel)
	}
	typeKeys(m, "/", "esc")
	if len(m.timeline.rows) != len(pipeline.PhaseTable) {
		t.Errorf("esc left %d rows", len(m.timeline.rows))
	}
}

func TestDisablePhase(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "d") // phase 0 is required
	if !strings.Contains(m.status, "required phase and cannot be disabled") || m.c.W.Compiling {
		t.Errorf("d on a required phase: status %q, compiling %v", m.status, m.c.W.Compiling)
	}
	typeKeys(m, "down", "d")
	w := m.c.W
	if got := w.Knobs[knobs.KnobDisablePhases]; got != "ApplyNvOptRecipes" || !w.Compiling {
		t.Fatalf("d: DisablePhases %q, compiling %v", got, w.Compiling)
	}
	if !strings.Contains(m.View(), "compiling") {
		t.Error("no spinner while compiling")
	}
	send(m, compileNow(w))
	if s := w.Snap(1); s.Status != pipeline.StatusDisabled || w.Sel != 1 {
		t.Errorf("after recompiling: phase 1 is %v, selection %d", s.Status, w.Sel)
	}
	if v := m.View(); !strings.Contains(v, "✗>  1 ApplyNvOptRecipes") {
		t.Errorf("phase 1 not marked disabled:\n%s", v)
	}
	typeKeys(m, "d")
	send(m, compileNow(w))
	if _, ok := w.Knobs[knobs.KnobDisablePhases]; ok || w.Snap(1).Status != pipeline.StatusNoOp {
		t.Errorf("second d: knobs %v, phase 1 %v", w.Knobs, w.Snap(1).Status)
	}
}

func TestStaleCompileDropped(t *testing.T) {
	m := sampleModel(t, 80, 24)
	w := m.c.W
	old := compileNow(w)
	typeKeys(m, "down", "d")
	send(m, old) // an older generation: ignored
	if !w.Compiling {
		t.Error("a stale compile result ended the newer compilation")
	}
}

func TestIRModes(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withChange(t, m)
	typeKeys(m, "n")
	if m.ir.Mode() != modePlain {
		t.Fatal("not plain at start")
	}
	typeKeys(m, "v")
	v := m.View()
	for _, want := range []string{"[diff] 3 changed", "-  #5 MOV %r3 = %r4", "+  #900 MOV %r3 = %r4", "-  #9 MOV %r7 = 0x0", "+  #9 MOV %r7 = 0x1"} {
		if !strings.Contains(v, want) && !strings.Contains(strings.Join(m.ir.texts(), "\n"), want) {
			t.Errorf("diff view lacks %q:\n%s", want, v)
		}
	}
	typeKeys(m, "v")
	if m.ir.Mode() != modeSide {
		t.Fatal("v twice is not side by side")
	}
	// #9 changed: one row, old on the left and new on the right.
	found := false
	for _, r := range m.ir.rows {
		if strings.Contains(r.left, "#9 MOV %r7 = 0x0") && strings.Contains(r.right, "#9 MOV %r7 = 0x1") {
			found = true
		}
	}
	if !found {
		t.Error("side by side does not align #9 before and after on one row")
	}
	typeKeys(m, "v")
	if m.ir.Mode() != modePlain {
		t.Error("v three times is not back to plain")
	}
}

func TestAlignDiff(t *testing.T) {
	before := []string{"BB0:", "\t#1 MOV %r1 = 0x0", "\t#2 IADD3 %r2 = %r1, 0x1, RZ", "\t#3 EXIT"}
	after := []string{"BB0:", "\t#1 MOV %r1 = 0x0", "\t#2 IADD3 %r2 = %r1, 0x2, RZ", "\t#7 NOP", "\t#3 EXIT"}
	ops := alignDiff(before, after)
	kinds := []opKind{opSame, opSame, opChanged, opAdded, opSame}
	if len(ops) != len(kinds) {
		t.Fatalf("got %d ops, want %d: %+v", len(ops), len(kinds), ops)
	}
	for i, k := range kinds {
		if ops[i].Kind != k {
			t.Errorf("op %d: kind %d, want %d (%+v)", i, ops[i].Kind, k, ops[i])
		}
	}
	ops = alignDiff(before, before[:2])
	if changes(ops) != 2 || ops[2].Kind != opRemoved {
		t.Errorf("removal: %+v", ops)
	}
}

func TestFollow(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "2") // focus the IR pane
	for range 12 {   // to "#1 MOV %r0 = c[0x0][0x170]"
		typeKeys(m, "down")
	}
	typeKeys(m, "F")
	if m.ir.Following() != "%r0" {
		t.Fatalf("F follows %q, want %%r0 (status %q)", m.ir.Following(), m.status)
	}
	typeKeys(m, "f")
	if m.ir.Following() != "#1" {
		t.Fatalf("f follows %q, want #1", m.ir.Following())
	}
	// The followed instruction is marked in the gutter, in every phase.
	typeKeys(m, "down", "1", "down", "down")
	if v := m.View(); !strings.Contains(v, "*  #1 MOV %r0") || !strings.Contains(v, "f:#1") {
		t.Errorf("followed line not marked after moving to another phase:\n%s", v)
	}
	typeKeys(m, "2", "esc")
	if m.ir.Following() != "" {
		t.Error("esc did not stop following")
	}
	if re := followRe("%r1"); re.MatchString("#3 MOV %r10 = %r2") || !re.MatchString("#3 MOV %r1[1] = %r2") {
		t.Error("followRe does not match whole registers")
	}
}

func TestKnobsPane(t *testing.T) {
	m := sampleModel(t, 80, 24)
	w := m.c.W
	typeKeys(m, "4", "/", "d", "u", "m", "p", "k", "enter")
	if kn, ok := m.knobs.selected(); !ok || kn.Name != knobs.KnobDumpKnobs {
		t.Fatalf("search 'dumpk' selects %+v", kn)
	}
	typeKeys(m, "enter") // toggle the bool
	if w.Knobs[knobs.KnobDumpKnobs] != "1" || !w.Compiling {
		t.Fatalf("enter on a bool: knobs %v compiling %v", w.Knobs, w.Compiling)
	}
	send(m, compileNow(w))
	typeKeys(m, "x")
	if _, ok := w.Knobs[knobs.KnobDumpKnobs]; ok {
		t.Error("x did not reset the knob")
	}
	send(m, compileNow(w))

	// A string knob: the value is checked inline before anything runs.
	typeKeys(m, "/", "esc")
	m.knobs.SelectKnob(knobs.KnobDisablePhases)
	typeKeys(m, "enter", "A", "+", "+", "B", "enter")
	if !m.knobs.editing || m.knobs.editErr != "empty phase name in '+'-separated list" {
		t.Fatalf("bad value: editing %v, error %q", m.knobs.editing, m.knobs.editErr)
	}
	if v := m.View(); !strings.Contains(v, "error: empty phase name") {
		t.Errorf("the error is not shown inline:\n%s", v)
	}
	typeKeys(m, "esc")
	typeKeys(m, "enter")
	for _, k := range "OriBranchOpt" {
		typeKeys(m, string(k))
	}
	typeKeys(m, "enter")
	if w.Knobs[knobs.KnobDisablePhases] != "OriBranchOpt" {
		t.Fatalf("knobs %v", w.Knobs)
	}
	send(m, compileNow(w))
	if w.Snap(15).Status != pipeline.StatusDisabled {
		t.Errorf("phase 15 is %v after DisablePhases=OriBranchOpt", w.Snap(15).Status)
	}
	// A phase name the phase manager would reject is refused as it is
	// typed (issue 22): it is never stored, and the compilation stays.
	typeKeys(m, "enter", "backspace", "backspace", "x")
	if want := `DisablePhases: unknown phase "OriBranchOx" (did you mean "OriBranchOpt"?)`; m.knobs.editErr != want {
		t.Errorf("typing OriBranchOx: error %q, want %q", m.knobs.editErr, want)
	}
	typeKeys(m, "enter")
	if w.Knobs[knobs.KnobDisablePhases] != "OriBranchOpt" || w.Compiling || w.Err != "" {
		t.Errorf("bad phase name: knobs %v, compiling %v, err %q", w.Knobs, w.Compiling, w.Err)
	}
}

func TestRun(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "down", "down")
	_, cmd := m.Update(keyMsg("r"))
	if !m.run.Running() || m.right != paneRun {
		t.Fatal("r did not start a run in the run pane")
	}
	if !strings.Contains(m.View(), "running") {
		t.Error("no progress shown while running")
	}
	send(m, runNow(t, cmd))
	v := m.View()
	if !strings.Contains(v, "after #2 PromoteFP16:") || !strings.Contains(v, "PASS") || !strings.Contains(v, "out: PASS (4 elements)") {
		t.Errorf("run pane after a passing run:\n%s", v)
	}
}

// runNow executes the run command inside cmd (a batch with a spinner
// tick) and returns its message.
func runNow(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if c == nil {
				continue
			}
			if r, ok := c().(runMsg); ok {
				return r
			}
		}
	}
	if r, ok := msg.(runMsg); ok {
		return r
	}
	t.Fatalf("no run command in %T", msg)
	return nil
}

func TestRunWithoutSpec(t *testing.T) {
	w, err := Load("k.ptx", samplePTX, 3)
	if err != nil {
		t.Fatal(err)
	}
	m := New(w)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Init()
	send(m, compileNow(w))
	typeKeys(m, "r")
	if m.run.Running() || !strings.Contains(m.View(), "No kernel spec") {
		t.Errorf("r without a spec:\n%s", m.View())
	}
}

func TestPanesAndResize(t *testing.T) {
	m := sampleModel(t, 80, 24)
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {60, 20}, {200, 60}} {
		send(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, k := range []string{"1", "2", "3", "4", "5", "6", "7", "?"} {
			typeKeys(m, k)
			checkFrame(t, m.View(), size[0], size[1])
			if k == "?" {
				typeKeys(m, "?")
			}
		}
	}
	typeKeys(m, "3")
	if !strings.Contains(m.View(), "No SASS after #0 OriCheckInitialProgram: the IR still has virtual") {
		t.Errorf("SASS pane before allocation:\n%s", m.View())
	}
	typeKeys(m, "6")
	if !strings.Contains(m.View(), "b finds the culprit phase (--mode phase)") {
		t.Error("bisect pane missing")
	}
	typeKeys(m, "7")
	if !strings.Contains(m.View(), "No fault planted.") {
		t.Errorf("fault pane:\n%s", m.View())
	}
	typeKeys(m, "8")
	if !strings.Contains(m.View(), "not compared yet: e, type B's knobs") {
		t.Errorf("A/B pane:\n%s", m.View())
	}
	typeKeys(m, "tab")
	if m.focus != paneTimeline {
		t.Errorf("tab from the last pane: focus %d", m.focus)
	}
}

func TestQuit(t *testing.T) {
	m := sampleModel(t, 80, 24)
	for _, k := range []tea.KeyMsg{keyMsg("q"), {Type: tea.KeyCtrlC}} {
		_, cmd := m.Update(k)
		if cmd == nil {
			t.Fatalf("%v: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%v does not quit", k)
		}
	}
}

func TestSparkline(t *testing.T) {
	if got := sparkline([]int{0, 1, 2, 3, 4, 5, 6, 7}, 8); got != "▁▂▃▄▅▆▇█" {
		t.Errorf("sparkline = %q", got)
	}
	if got := sparkline([]int{1, 8, -1, -1}, 2); got != "█ " {
		t.Errorf("bucketed sparkline = %q", got)
	}
}

func TestBatchedRunes(t *testing.T) {
	m := sampleModel(t, 80, 24)
	send(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2v")})
	if m.focus != paneIR || m.ir.Mode() != modeDiff {
		t.Errorf(`"2v" in one message: focus %d, mode %v`, m.focus, m.ir.Mode())
	}
}
