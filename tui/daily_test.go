package tui

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
)

// These tests pin the defects of issue 22 ("the workbench, as a compiler
// engineer uses it every day"), one per defect, at 80x24.

// tabBar returns the first line of m's view.
func tabBar(m *Model) string {
	return strings.SplitN(m.View(), "\n", 2)[0]
}

// Defect 3: the tab bar must name the pane whose keys work and which is
// shown; a key that brings up another pane on the right moves the focus
// with it.
func TestTabBarNamesShownPane(t *testing.T) {
	m := sampleModel(t, 80, 24)
	if got := tabBar(m); !strings.Contains(got, "[1 Timeline](2 IR)") {
		t.Errorf("timeline focused, IR shown: tab bar %q, want it to mark both", got)
	}
	typeKeys(m, "2")
	_, cmd := m.Update(keyMsg("r"))
	send(m, runNow(t, cmd))
	if m.focus != paneRun || m.right != paneRun {
		t.Errorf("r in the IR pane: focus %d right %d, want the Run pane (%d) for both", m.focus, m.right, paneRun)
	}
	if got := tabBar(m); !strings.Contains(got, "[5 Run]") {
		t.Errorf("after r in pane 2 the tab bar says %q, want [5 Run]", got)
	}
	typeKeys(m, "3", "v")
	if m.focus != paneIR || m.right != paneIR {
		t.Errorf("v in the SASS pane: focus %d right %d, want the IR pane for both", m.focus, m.right)
	}
	if got := tabBar(m); !strings.Contains(got, "[2 IR]") {
		t.Errorf("after v in pane 3 the tab bar says %q, want [2 IR]", got)
	}
	typeKeys(m, "1")
	if got := tabBar(m); !strings.Contains(got, "[1 Timeline](2 IR)") {
		t.Errorf("after 1 the tab bar says %q, want [1 Timeline](2 IR)", got)
	}
}

// lastPhaseNoOp reports whether the last phase is a no-op in m.
func messageLine(m *Model) string {
	lines := strings.Split(m.View(), "\n")
	return strings.TrimSpace(lines[len(lines)-2])
}

// Defect 4: every key's feedback shows, and is gone at the next key.
func TestStatusIsFresh(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withChange(t, m)
	typeKeys(m, "G", "n")
	if got := messageLine(m); got != "no later phase changed the IR" {
		t.Errorf("G n: message %q, want %q", got, "no later phase changed the IR")
	}
	typeKeys(m, "up")
	if got := messageLine(m); strings.Contains(got, "no later phase") {
		t.Errorf("a move after n still says %q", got)
	}
	// On a no-op phase, the feedback of f (and of a search) wins over the
	// no-op reason, which comes back at the next key.
	typeKeys(m, "g", "down")
	if s := m.c.W.Snap(m.c.W.Sel); s == nil || s.Status != pipeline.StatusNoOp {
		t.Fatalf("phase %d is not a no-op; the test needs one", m.c.W.Sel)
	}
	typeKeys(m, "2", "/", "#", "2", " ", "s", "2", "r", "enter", "f")
	if got := messageLine(m); !strings.HasPrefix(got, "following ") {
		t.Errorf("f on a no-op phase: message %q, want the follow's feedback", got)
	}
	typeKeys(m, "/", "n", "o", "s", "u", "c", "h", "enter")
	if got := messageLine(m); !strings.Contains(got, "no match") {
		t.Errorf("a search with no match on a no-op phase: message %q", got)
	}
	typeKeys(m, "esc")
	if got := messageLine(m); got != `stopped following #2 and searching` {
		t.Errorf("esc: message %q, want it to say the follow stopped", got)
	}
	typeKeys(m, "j")
	if got := messageLine(m); strings.Contains(got, "following") {
		t.Errorf("after esc and a move the message still says %q", got)
	}
	// Esc in the timeline stops a follow too.
	typeKeys(m, "f", "1", "esc")
	if m.ir.Following() != "" {
		t.Errorf("esc in the timeline did not stop following %s", m.ir.Following())
	}
}

// fileModel opens path (relative to the package) at -O0, compiled, at
// width x height.
func fileModel(t *testing.T, path string, width, height int) *Model {
	t.Helper()
	m := fileModelErr(t, path, width, height)
	if m.c.W.Err != "" {
		t.Fatal(m.c.W.Err)
	}
	return m
}

// fileModelErr is fileModel for a file that does not compile.
func fileModelErr(t *testing.T, path string, width, height int) *Model {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Load(path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := New(w)
	send(m, tea.WindowSizeMsg{Width: width, Height: height})
	m.Init()
	send(m, compileNow(w))
	return m
}

// cursorRow returns the IR pane's cursor row.
func cursorRow(m *Model) irRow {
	return m.ir.rows[m.ir.cur]
}

// Defect 1: instruction IDs repeat in every function, so the cursor, the
// follow and the header go by function as well as by ID, and } and { pick
// a function.
func TestMultiFunctionIR(t *testing.T) {
	m := fileModel(t, "testdata/twofuncs.ptx", 80, 24)
	typeKeys(m, "2", "/", "C", "T", "A", "I", "D", "enter")
	if r := cursorRow(m); r.fn != "second" || lineID(r.text) != "#5" {
		t.Fatalf("search SR_CTAID: cursor on %q in %q, want #5 in second", r.text, r.fn)
	}
	typeKeys(m, "esc", "f", "v")
	if r := cursorRow(m); r.fn != "second" || !strings.Contains(r.text, "SR_CTAID") {
		t.Errorf("f then v: the cursor moved to %q in %q, want #5 of second", r.text, r.fn)
	}
	view := m.View()
	if !strings.Contains(view, "│second · #0 OriCheckInitialProgram") {
		t.Errorf("the IR header does not name the cursor's function:\n%s", view)
	}
	// The follow marks #5 of second only.
	for _, r := range m.ir.rows {
		if r.fn == "first" && m.ir.followed(r, r.text) {
			t.Errorf("following #5 of second marks %q in first", r.text)
		}
	}
	typeKeys(m, "}")
	if r := cursorRow(m); r.fn != "first" || funcHeader(strings.TrimSpace(r.text)) != "first" {
		t.Errorf("} from second: cursor on %q in %q, want the header of first", r.text, r.fn)
	}
	if got := messageLine(m); got != "function 1 of 2: first (} next, { previous)" {
		t.Errorf("} says %q", got)
	}
	typeKeys(m, "{")
	if r := cursorRow(m); r.fn != "second" {
		t.Errorf("{ from first: cursor in %q, want second", r.fn)
	}
}

// Defect 5: the help overlay has a heading per pane, lists the Fault,
// Run and SASS panes, and fits 80x24.
func TestHelpListsEveryPane(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "?")
	view := m.View()
	checkFrame(t, view, 80, 24)
	for _, want := range []string{
		"7 fault    i inject after this phase · e edit bugspec · s next seed",
		"x remove the fault",
		"5 run      r run spec",
		"3 SASS     the SASS",
		"6 bisect   b find culprit phase",
		"c cancel it",
		"1 timeline / filter phases by name",
		"/ search the IR",
		"} { next/prev. function",
		"timeline: ● changed",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the help overlay lacks %q:\n%s", want, view)
		}
	}
}

// Defect 2 (the TUI's part): c cancels a bisection in flight, and the
// status says so.
func TestBisectCancelKey(t *testing.T) {
	m := sampleModelAt(t, 100, 30, 3)
	typeKeys(m, "6")
	_, cmd := m.Update(keyMsg("b"))
	_, cmd = m.Update(cmd()) // the pane asks the root, which starts it
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) == 0 {
		t.Fatalf("b returned %T, want a batch with the bisection", cmd())
	}
	wait := batch[0]
	if v := m.View(); !strings.Contains(v, "bisecting (phase mode)... c cancels") {
		t.Errorf("the pane does not say how to cancel:\n%s", v)
	}
	start := time.Now()
	send(m, keyMsg("c"))
	if got := messageLine(m); got != "cancelling the bisection..." {
		t.Errorf("c says %q", got)
	}
	for {
		msg := wait()
		if p, ok := msg.(bisectProgressMsg); ok {
			wait = p.next
			continue
		}
		res, ok := msg.(bisectMsg)
		if !ok {
			t.Fatalf("unexpected %T", msg)
		}
		if !errors.Is(res.err, context.Canceled) {
			t.Errorf("the cancelled bisection ended with %v", res.err)
		}
		send(m, res)
		break
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelling took %s", took)
	}
	if got := messageLine(m); !strings.HasPrefix(got, "bisect: cancelled after ") {
		t.Errorf("after the cancel the message says %q", got)
	}
	if m.busy() {
		t.Error("still busy after the cancel")
	}
}

// Defect 6: an edited knob value is checked as it is typed, a bad one is
// never stored, and typing replaces the pre-filled value.
func TestKnobEditCheckedAsTyped(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "4")
	m.knobs.SelectKnob("MaxRegCount")
	typeKeys(m, "enter")
	if got := m.knobs.edit.Value(); got == "" {
		t.Fatalf("the edit field opened empty, want the current value")
	}
	typeKeys(m, "x")
	if got := m.knobs.edit.Value(); got != "x" {
		t.Errorf("typing into the pre-filled field gives %q, want %q (replaced)", got, "x")
	}
	if m.knobs.editErr == "" {
		t.Errorf("a bad value shows no error before enter")
	}
	typeKeys(m, "esc")
	m.knobs.SelectKnob("DisablePhases")
	typeKeys(m, "enter", "F", "o", "o")
	want := `DisablePhases: unknown phase "Foo" (orilab phases lists them)`
	if m.knobs.editErr != want {
		t.Errorf("while typing Foo the error is %q, want %q", m.knobs.editErr, want)
	}
	if v := m.View(); !strings.Contains(v, "error: DisablePhases: unknown phase") {
		t.Errorf("the error is not on screen:\n%s", v)
	}
	typeKeys(m, "enter")
	if _, ok := m.c.W.Knobs["DisablePhases"]; ok {
		t.Errorf("the bad value was stored: %q", m.c.W.Knobs["DisablePhases"])
	}
	if !m.knobs.editing {
		t.Errorf("enter on a bad value closed the editor")
	}
	for range 3 {
		typeKeys(m, "backspace")
	}
	typeKeys(m, "O", "r", "i", "B", "r", "a", "n", "c", "h", "O", "p", "t")
	if m.knobs.editErr != "" {
		t.Errorf("a good value shows %q", m.knobs.editErr)
	}
	typeKeys(m, "enter")
	if got := m.c.W.Knobs["DisablePhases"]; got != "OriBranchOpt" {
		t.Errorf("DisablePhases = %q, want OriBranchOpt", got)
	}
}

// Defect 8: at 80x24 the status bar keeps the -O level and the phase (a
// long path is cut instead), a long message never pushes the key hints
// off, and at 220 columns knob and phase names are whole.
func TestNoTruncationThatHides(t *testing.T) {
	m := sampleModel(t, 80, 24)
	m.c.W.File = "../shared/corpus/gpuocelot/tests/ptx/unstructured/mcx_core.ptx"
	send(m, statusMsg(strings.Repeat("a long message ", 12)))
	lines := strings.Split(m.View(), "\n")
	if st := lines[len(lines)-3]; !strings.HasPrefix(st, "#0/158 OriCheckInitialProgram │ unchanged │ -O0 │ ../shared/") {
		t.Errorf("status bar at 80 columns: %q", st)
	}
	if h := lines[len(lines)-1]; !strings.Contains(h, "↓/j down") {
		t.Errorf("a long message pushed the key hints off: %q", h)
	}
	send(m, tea.WindowSizeMsg{Width: 220, Height: 60})
	typeKeys(m, "4")
	v := m.View()
	for _, want := range []string{"0 OriCheckInitialProgram ", "AdvancedPhaseBeforeConvUnSup ", "DisableRedundantBarrierRemoval "} {
		if !strings.Contains(v, want) {
			t.Errorf("at 220 columns %q is cut:\n%s", want, v)
		}
	}
}

// Defect 9: the side-by-side diff marks its changes without colour.
func TestSideBySideMarkersWithoutColour(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withChange(t, m)
	typeKeys(m, "n", "v", "v")
	v := m.View()
	for _, want := range []string{"-  #5 MOV %r3 = %r4 … │   ", "│ +  #900 MOV %r3", " -  #9 MOV %r7 = 0x0 … │ +  #9 MOV %r7 = 0x1"} {
		if !strings.Contains(v, want) {
			t.Errorf("side by side lacks %q:\n%s", want, v)
		}
	}
}

// Defect 10: a lowering error shows with its source line and caret, and
// the IR pane says that no phase ran rather than that this one did not.
func TestLoweringErrorShown(t *testing.T) {
	m := fileModelErr(t, "testdata/texfail.ptx", 80, 24)
	v := m.View()
	for _, want := range []string{
		"│no phase ran: the compile failed:",
		"│testdata/texfail.ptx:13:2: error: unsupported:│",
		"│  tex.cube.v4.f32.f32 {%f1,%f2,%f3,%f4},[tex,…│",
		"│  ^ ",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	typeKeys(m, "down")
	if strings.Contains(m.View(), "did not run") {
		t.Errorf("a phase says it did not run:\n%s", m.View())
	}
}

// Defect 8: the SASS pane scrolls sideways to the control words.
func TestSASSScrollsSideways(t *testing.T) {
	m := sampleModel(t, 80, 24)
	typeKeys(m, "G", "3")
	if v := m.View(); strings.Contains(v, "] */") {
		t.Fatalf("the control words fit at 80 columns already; the test needs them cut:\n%s", v)
	}
	for range 6 {
		typeKeys(m, "l")
	}
	if v := m.View(); !strings.Contains(v, "] */") {
		t.Errorf("after six l the control words are still cut:\n%s", v)
	}
	typeKeys(m, "h")
	if m.panes[paneSASS].(*SASSPane).left != 5*hscrollStep {
		t.Errorf("h did not scroll back")
	}
}

// Defect 7: the built-in sample's replay command names the repository's
// copy of the spec (the temporary one is deleted on quit), breaks only at
// shell line continuations, and is kept for printing after quit.
func TestSampleReplayCopyable(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", moveFirstStore)
	defer restore()
	m := sampleModelAt(t, 100, 40, 3)
	typeKeys(m, "6", "b")
	if r := m.bisect.last; r == nil || r.phase == nil || !r.phase.Found {
		t.Fatalf("the bisection found nothing")
	}
	v := m.View()
	if strings.Contains(v, "orilab-sample-") {
		t.Errorf("the replay names the temporary copy:\n%s", v)
	}
	want := "orilab bisect testdata/sample/sample.json -O 3 --mode phase"
	if got := m.LastReplay(); got != want {
		t.Errorf("LastReplay %q, want %q", got, want)
	}
	var joined []string
	in := false
	for _, l := range strings.Split(v, "\n") {
		l = strings.TrimSpace(strings.Trim(strings.SplitN(l, "││", 2)[len(strings.SplitN(l, "││", 2))-1], "│"))
		switch {
		case l == "replay:":
			in = true
		case in:
			cont := strings.HasSuffix(l, " \\")
			joined = append(joined, strings.TrimSuffix(l, " \\"))
			in = cont
		}
	}
	if got := strings.Join(joined, " "); got != want {
		t.Errorf("the replay lines join to %q, want %q:\n%s", got, want, v)
	}
}

// Defect 11: [ lands on the first row of the previous change block, as ]
// does on the next one's.
func TestPrevHunkLandsOnStart(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withChange(t, m)
	typeKeys(m, "n", "v", "2", "G", "[")
	if r := cursorRow(m); r.text != "-\t#9 MOV %r7 = 0x0 ; line 34" {
		t.Errorf("[ from the bottom lands on %q, want the start of the #9 block", r.text)
	}
}

// Defect 11: the Fault pane's header describes the planted fault (an
// edited line shows apart until planted), and a fault after a disabled
// phase says so instead of "the compilation did not reach it".
func TestFaultPaneHeaderAndDisabledPhase(t *testing.T) {
	m := sampleModel(t, 100, 30)
	w := m.c.W
	ra, _ := pipeline.LookupPhase("AllocateRegisters")
	at := -1
	for i := ra + 1; i < len(pipeline.PhaseTable); i++ {
		if s := w.Snap(i); s != nil && s.Status != pipeline.StatusDisabled && !pipeline.PhaseTable[i].Required {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("no optional phase after AllocateRegisters ran")
	}
	typeKeys(m, "7")
	selectPhase(t, m, pipeline.PhaseTable[at].Name)
	typeKeys(m, "i")
	send(m, compileNow(w))
	planted := w.Plant.Spec.String()
	typeKeys(m, "7", "e", "backspace", "9", "enter")
	v := m.View()
	if !strings.Contains(v, "bugspec "+planted+"   seed 1") || !strings.Contains(v, "next: ") {
		t.Errorf("after e the header does not keep the planted bugspec %q apart from the edit:\n%s", planted, v)
	}
	typeKeys(m, "1", "d")
	send(m, compileNow(w))
	typeKeys(m, "7")
	want := "planted after " + pipeline.PhaseTable[at].Name + ", seed 1: the phase is disabled (DisablePhases), so nothing was injected"
	if v := m.View(); !strings.Contains(strings.Join(strings.Fields(strings.NewReplacer("│", " ").Replace(paneText(v))), " "), want) {
		t.Errorf("the Fault pane lacks %q:\n%s", want, v)
	}
}

// paneText returns the right pane's text of a view, line by line.
func paneText(view string) string {
	var out []string
	for _, l := range strings.Split(view, "\n") {
		if _, r, ok := strings.Cut(l, "││"); ok {
			out = append(out, r)
		}
	}
	return strings.Join(out, "\n")
}

// Defect 1: p opens a function picker; enter goes to the function.
func TestFunctionPicker(t *testing.T) {
	m := fileModel(t, "testdata/twofuncs.ptx", 80, 24)
	typeKeys(m, "2", "p")
	v := paneText(m.View())
	for _, want := range []string{"functions (enter goes to one, esc closes):", "> 1 first  (10 instructions)", "  2 second  (10 instructions)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the picker lacks %q:\n%s", want, v)
		}
	}
	send(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")}) // keys that arrive together
	if m.ir.pick != 1 {
		t.Errorf("j j in one message: picker on %d, want 1", m.ir.pick)
	}
	typeKeys(m, "enter")
	if r := cursorRow(m); r.fn != "second" || funcHeader(r.text) != "second" {
		t.Errorf("picking second: cursor on %q in %q", r.text, r.fn)
	}
	if got := messageLine(m); got != "function 2 of 2: second" {
		t.Errorf("message %q", got)
	}
	typeKeys(m, "p", "esc")
	if m.ir.picking {
		t.Error("esc did not close the picker")
	}
}

// The timeline's u hides the phases that did not change the IR.
func TestTimelineOnlyChanged(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withChange(t, m)
	typeKeys(m, "u")
	if len(m.timeline.rows) != 1 || m.timeline.rows[0] != changedPhase || m.c.W.Sel != changedPhase {
		t.Errorf("u: rows %v, selected %d; want only phase %d", m.timeline.rows, m.c.W.Sel, changedPhase)
	}
	if got := messageLine(m); got != "showing the 1 phase that changed the IR (u shows all)" {
		t.Errorf("message %q", got)
	}
	if v := m.View(); !strings.Contains(v, "changed phases only (u)") || strings.Contains(v, "OriSanitize") {
		t.Errorf("the timeline does not show the changed phases only:\n%s", v)
	}
	typeKeys(m, "u")
	if len(m.timeline.rows) != len(pipeline.PhaseTable) {
		t.Errorf("u again shows %d phases", len(m.timeline.rows))
	}
}

// s in the IR pane shows the PTX line the cursor's instruction came from.
func TestIRShowsPTXLine(t *testing.T) {
	m := sampleModel(t, 100, 30)
	typeKeys(m, "2", "/", "#", "2", " ", "s", "2", "r", "enter", "s")
	want := "sample.ptx (built-in):29: " + strings.TrimSpace(strings.Split(string(samplePTX), "\n")[28])
	if got := messageLine(m); got != want {
		t.Errorf("s says %q, want %q", got, want)
	}
	typeKeys(m, "g", "s")
	if got := messageLine(m); got != "this line names no PTX line" {
		t.Errorf("s on the module header says %q", got)
	}
}
