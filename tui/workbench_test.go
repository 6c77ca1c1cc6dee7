package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
)

// These tests pin the capabilities issue 22 added to the workbench:
// remarks, the A/B pane, the mouse, the campaign from the Fault pane and
// the export.

// fileModelAt opens path at -O level opt, compiled, at width x height.
func fileModelAt(t *testing.T, path string, width, height, opt int) *Model {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Load(path, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	m := New(w)
	send(m, tea.WindowSizeMsg{Width: width, Height: height})
	m.Init()
	send(m, compileNow(w))
	if w.Err != "" {
		t.Fatal(w.Err)
	}
	return m
}

func phaseIndex(t *testing.T, name string) int {
	t.Helper()
	i, err := pipeline.LookupPhase(name)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// Remarks: the timeline marks OriLoopUnrolling with r, the message line
// gives the first declined remark with its rejection code, R lists them
// and enter goes to the loop.
func TestRemarksInWorkbench(t *testing.T) {
	m := fileModelAt(t, "testdata/remarks.ptx", 140, 30, 3)
	unroll := phaseIndex(t, "OriLoopUnrolling")
	m.timeline.Select(unroll + 1)
	if v := m.View(); !strings.Contains(v, "│○r 23 OriLoopUnrolling") && !strings.Contains(v, "│●r 23 OriLoopUnrolling") {
		t.Errorf("the timeline does not mark the phase with remarks:\n%s", v)
	}
	typeKeys(m, "k")
	want := `changed (R lists 2 remarks): loops: loop BB1 rejected, code 11: the PTX marks the loop .pragma "nounroll"`
	if got := messageLine(m); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	typeKeys(m, "R")
	if m.focus != paneIR || !m.ir.remarking {
		t.Fatalf("R: focus %d, remarks open %v", m.focus, m.ir.remarking)
	}
	v := paneText(m.View())
	for _, s := range []string{
		"remarks (enter goes to the place, esc closes):",
		`> loops: loop BB1 rejected, code 11: the PTX marks the loop .pragma`,
		"  loops: loop BB3 fully unrolled, 4 iterations (line 29)",
	} {
		if !strings.Contains(v, s) {
			t.Errorf("the remarks list lacks %q:\n%s", s, v)
		}
	}
	typeKeys(m, "esc")
	if got := messageLine(m); got != "remarks closed" || m.ir.remarking {
		t.Errorf("esc: message %q, open %v", got, m.ir.remarking)
	}
	typeKeys(m, "R", "enter")
	if r := cursorRow(m); !strings.HasPrefix(strings.TrimSpace(r.text), "BB1") {
		t.Errorf("enter on the BB1 remark: cursor on %q", r.text)
	}
	if got := messageLine(m); got != "loops: loop BB1" {
		t.Errorf("enter says %q", got)
	}
	m.timeline.Select(0)
	typeKeys(m, "R")
	if got := messageLine(m); !strings.HasPrefix(got, "#0 OriCheckInitialProgram made no remarks") || m.ir.remarking {
		t.Errorf("R on a phase without remarks: %q, open %v", got, m.ir.remarking)
	}
}

// A/B: e takes B's knobs, enter compiles B and compares it with the
// compilation shown, phase by phase; the first phase where the IR parts
// is selected with its A-to-B diff, and enter selects that phase.
func TestABPane(t *testing.T) {
	m := fileModelAt(t, "testdata/remarks.ptx", 100, 32, 3)
	typeKeys(m, "8", "e")
	for _, r := range "LoopUnroll=false" {
		typeKeys(m, string(r))
	}
	typeKeys(m, "enter")
	if m.ab.res == nil {
		t.Fatalf("no comparison: message %q\n%s", messageLine(m), m.View())
	}
	unroll := phaseIndex(t, "OriLoopUnrolling")
	v := paneText(m.View())
	for _, s := range []string{
		"B knobs: LoopUnroll=false",
		"      phase                    A     B     A/B diff",
		"> #23  OriLoopUnrolling         chg   same  12 lines",
		"A→B after #23 OriLoopUnrolling; enter goes there",
		"-    #19 IADD3 %r3 = %r3, %r4, RZ ; line 29",
	} {
		if !strings.Contains(v, s) {
			t.Errorf("the A/B pane lacks %q:\n%s", s, v)
		}
	}
	if got := messageLine(m); !strings.HasPrefix(got, "A/B: ") || !strings.Contains(got, "differ at the end") {
		t.Errorf("message %q", got)
	}
	typeKeys(m, "enter")
	if m.c.W.Sel != unroll || m.focus != paneIR {
		t.Errorf("enter: selected %d, focus %d; want phase %d in the IR pane", m.c.W.Sel, m.focus, unroll)
	}
	// A setting that does not load is refused before compiling.
	typeKeys(m, "8", "e", "ctrl+u")
	for _, r := range "LoopUnrollFactor=-5" {
		typeKeys(m, string(r))
	}
	typeKeys(m, "enter")
	if got := messageLine(m); !strings.HasPrefix(got, "B knobs: ") || !strings.Contains(got, "out of range") || m.ab.Running() {
		t.Errorf("a bad B knob: message %q, running %v", got, m.ab.Running())
	}
}

// A/B: once A is recompiled with other knobs, or B's knobs are edited,
// the comparison shown says it is stale instead of passing an old diff
// off as current, and enter compares again.
func TestABStale(t *testing.T) {
	m := fileModelAt(t, "testdata/remarks.ptx", 80, 24, 3)
	typeKeys(m, "8", "e")
	for _, r := range "LoopUnroll=false" {
		typeKeys(m, string(r))
	}
	typeKeys(m, "enter")
	if m.ab.res == nil {
		t.Fatalf("no comparison: message %q\n%s", messageLine(m), m.View())
	}
	const row = "> #23  OriLoopUnrolling"
	if v := paneText(m.View()); !strings.Contains(v, row) || strings.Contains(v, "stale") {
		t.Fatalf("the fresh comparison:\n%s", v)
	}
	// A's knobs change: A now does not unroll either.
	w := m.c.W
	w.Knobs["LoopUnroll"] = "false"
	if err := w.CompileNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := paneText(m.View())
	for _, s := range []string{"stale: A was recompiled (knobs changed)", "enter recompares"} {
		if !strings.Contains(v, s) {
			t.Errorf("after A's knobs changed the pane lacks %q:\n%s", s, v)
		}
	}
	if strings.Contains(v, row) || strings.Contains(v, "A→B after") {
		t.Errorf("the old rows are still shown as current:\n%s", v)
	}
	typeKeys(m, "enter")
	v = paneText(m.View())
	if strings.Contains(v, "stale") || !strings.Contains(v, "A and B did the same thing in every phase") {
		t.Errorf("enter did not recompare:\n%s", v)
	}
	// B's knobs change but are refused: the result is of the old ones.
	typeKeys(m, "e", "ctrl+u")
	for _, r := range "LoopUnrollFactor=-5" {
		typeKeys(m, string(r))
	}
	typeKeys(m, "enter")
	if v := paneText(m.View()); !strings.Contains(v, "stale: B's knobs changed") {
		t.Errorf("after B's knobs changed:\n%s", v)
	}
}

// A/B: c cancels the B compilation in flight.
func TestABCancel(t *testing.T) {
	m := sampleModelAt(t, 100, 30, 3)
	typeKeys(m, "8")
	_, cmd := m.Update(abRequestMsg{settings: "LoopUnroll=false"})
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) == 0 {
		t.Fatalf("the request returned %T, want a batch with the compile", cmd())
	}
	if v := m.View(); !strings.Contains(v, "compiling B... c cancels") {
		t.Errorf("the pane does not say how to cancel:\n%s", v)
	}
	start := time.Now()
	send(m, keyMsg("c"))
	if got := messageLine(m); got != "cancelling the A/B comparison..." {
		t.Errorf("c says %q", got)
	}
	wait := batch[0]
	for {
		msg := wait()
		if p, ok := msg.(abProgressMsg); ok {
			wait = p.next
			continue
		}
		send(m, msg)
		break
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelling took %s", took)
	}
	if got := messageLine(m); !strings.HasPrefix(got, "A/B: cancelled after ") || m.busy() {
		t.Errorf("after the cancel: message %q, busy %v", got, m.busy())
	}
	if v := paneText(m.View()); !strings.Contains(v, "; e then enter starts it again") || strings.Contains(v, "ERROR") {
		t.Errorf("the pane after the cancel:\n%s", v)
	}
}

// A/B: c also stops the comparison step after B compiled (on a large
// module it takes seconds): abRun returns the cancel between phases and
// no result.
func TestABCancelDuringComparison(t *testing.T) {
	m := fileModelAt(t, "testdata/remarks.ptx", 100, 30, 3)
	w := m.c.W
	req, err := w.Request()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	compared := 0
	res := abRun(ctx, w.Snaps, req, err, w.PTX, "LoopUnroll=false", "", func(line string) {
		if strings.HasPrefix(line, "comparing A and B: ") {
			compared++
			if compared == 3 {
				cancel()
			}
		}
	})
	if !errors.Is(res.err, context.Canceled) || res.res != nil || compared != 3 {
		t.Errorf("cancel during the comparison: err %v, result %v, %d phases compared; want context.Canceled, no result, 3", res.err, res.res != nil, compared)
	}
}

// Mouse: a click on a timeline row selects that phase, a click on a tab
// goes to that pane, a click on an IR row puts the cursor there, and the
// wheel scrolls the pane under the pointer.
func TestMouse(t *testing.T) {
	m := sampleModel(t, 80, 24)
	click := func(x, y int) {
		send(m, tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	}
	wheel := func(x, y int, b tea.MouseButton) {
		send(m, tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: b})
	}
	// Row 0 tabs, row 1 the border, row 2 the sparkline, row 3 phase 0.
	click(5, 6)
	if m.c.W.Sel != 3 || m.focus != paneTimeline {
		t.Errorf("click on the 4th phase row: selected %d, focus %d", m.c.W.Sel, m.focus)
	}
	if v := m.View(); !strings.Contains(v, ">  3 AnalyzeControlF") {
		t.Errorf("the clicked phase is not marked:\n%s", v)
	}
	wheel(5, 10, tea.MouseButtonWheelDown)
	if m.c.W.Sel != 6 {
		t.Errorf("a wheel notch down in the timeline: selected %d, want 6", m.c.W.Sel)
	}
	// The IR pane: row 2 is its header, row 3 its first line.
	click(50, 5)
	if m.focus != paneIR || m.ir.cur != 2 {
		t.Errorf("click on the 3rd IR row: focus %d, cursor %d", m.focus, m.ir.cur)
	}
	wheel(50, 5, tea.MouseButtonWheelDown)
	if m.ir.cur != 5 || m.c.W.Sel != 6 {
		t.Errorf("a wheel notch in the IR pane: cursor %d (want 5), phase %d", m.ir.cur, m.c.W.Sel)
	}
	tabs := tabBar(m)
	click(strings.Index(tabs, "8 A/B")+1, 0)
	if m.focus != paneAB {
		t.Errorf("click on the A/B tab: focus %d", m.focus)
	}
	click(strings.Index(tabBar(m), "1 Timeline")+1, 0)
	if m.focus != paneTimeline {
		t.Errorf("click on the Timeline tab: focus %d", m.focus)
	}
}

// Export: w writes the IR (plain) or the diff (diff modes) of the
// selected phase, W every phase that changed the cursor's function; the
// file is the one named at the prompt.
func TestExport(t *testing.T) {
	m := fileModelAt(t, "testdata/twofuncs.ptx", 100, 30, 3)
	dir := t.TempDir()
	write := func(k, name string) string {
		t.Helper()
		typeKeys(m, k, "ctrl+u")
		for _, r := range filepath.Join(dir, name) {
			typeKeys(m, string(r))
		}
		typeKeys(m, "enter")
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v (message %q)", k, err, messageLine(m))
		}
		return string(b)
	}
	typeKeys(m, "n", "2")
	sel := m.c.W.Sel
	name := pipeline.PhaseTable[sel].Name
	if got := write("w", "plain.ir"); got != m.c.W.Snap(sel).Module.String() {
		t.Errorf("w in plain mode wrote:\n%s", got)
	}
	if got := messageLine(m); !strings.HasPrefix(got, "wrote the IR after #13 GeneralOptimizeEarly (") {
		t.Errorf("w says %q", got)
	}
	typeKeys(m, "v")
	got := write("w", "phase.diff")
	if !strings.HasPrefix(got, "--- before "+name+"\n+++ after "+name+"\n@@ ") {
		t.Errorf("w in diff mode wrote:\n%s", got)
	}
	typeKeys(m, "p", "j", "enter") // the cursor in second
	got = write("W", "all.ir")
	if !strings.HasPrefix(got, "// *** IR of second after lowering ***\n") || !strings.Contains(got, "// *** IR of second after #13 GeneralOptimizeEarly (changed) ***\n") || strings.Contains(got, ".entry first") {
		t.Errorf("W wrote:\n%s", got)
	}
	typeKeys(m, "w", "esc")
	if got := messageLine(m); got != "nothing written" || m.ir.export.active {
		t.Errorf("esc at the prompt: %q", got)
	}
}

// The Fault pane's C runs a campaign after the selected phase, with the
// trial count shown while it runs, and shows the detection matrix.
func TestCampaignFromFaultPane(t *testing.T) {
	m := sampleModel(t, 100, 40)
	m.timeline.Select(phaseIndex(t, "AllocateRegisters"))
	typeKeys(m, "7")
	start := time.Now()
	_, cmd := m.Update(keyMsg("C"))
	_, cmd = m.Update(cmd()) // the pane asks the root, which starts it
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) == 0 {
		t.Fatalf("C returned %T, want a batch with the campaign", cmd())
	}
	if v := paneText(m.View()); !strings.Contains(v, "[....................] 0/50 trials... c cancels") {
		t.Errorf("no progress while the campaign runs:\n%s", v)
	}
	progress := 0
	wait := batch[0]
	for {
		msg := wait()
		if p, ok := msg.(campaignProgressMsg); ok {
			progress++
			m.fault.Update(p)
			wait = p.next
			continue
		}
		send(m, msg)
		break
	}
	t.Logf("50 trials in %s", time.Since(start))
	if progress == 0 {
		t.Error("no progress message")
	}
	v := paneText(m.View())
	for _, s := range []string{"campaign after AllocateRegisters", "bugspec 1,0,0,0 0 0, campaign seed 1, 50 trials"} {
		if !strings.Contains(v, s) {
			t.Errorf("the campaign report lacks %q:\n%s", s, v)
		}
	}
	if got := messageLine(m); !strings.HasPrefix(got, "campaign: 50 trials in ") {
		t.Errorf("message %q", got)
	}
	if m.busy() {
		t.Error("busy after the campaign")
	}
}

// At 80x24 the campaign's detection matrix fits the 46-column right pane
// whole: every outcome column and the verifier share, with legends
// (orilab inject's 98-column table was cut after "hazard").
func TestCampaignMatrixFitsAt80(t *testing.T) {
	m := sampleModel(t, 80, 24)
	m.timeline.Select(phaseIndex(t, "AllocateRegisters"))
	typeKeys(m, "7")
	_, cmd := m.Update(keyMsg("C"))
	_, cmd = m.Update(cmd())
	wait := cmd().(tea.BatchMsg)[0]
	for {
		msg := wait()
		if p, ok := msg.(campaignProgressMsg); ok {
			wait = p.next
			continue
		}
		send(m, msg)
		break
	}
	v := paneText(m.View())
	for _, s := range []string{
		"kind str rdf haz mis mem hng msk crs tot ver%",
		"1      0  50   0   0   0   0   0   0  50  100",
		"all    0  50   0   0   0   0   0   0  50  100",
		"kinds: 1 r-ur register",
		"verifiers: str structural, rdf",
	} {
		if !strings.Contains(v, s) {
			t.Errorf("the Fault pane at 80x24 lacks %q:\n%s", s, v)
		}
	}
	// Where the pane is wide enough, orilab inject's own table shows.
	send(m, tea.WindowSizeMsg{Width: 220, Height: 60})
	if v := paneText(m.View()); !strings.Contains(v, "kind             struct  rdefs  hazard  mismatch  memfault  hang  masked  crash  total  verifier%") || strings.Contains(v, "verifiers: str structural") {
		t.Errorf("the Fault pane at 220x60:\n%s", v)
	}
}

// c cancels a campaign in flight.
func TestCampaignCancel(t *testing.T) {
	m := sampleModel(t, 100, 40)
	m.timeline.Select(phaseIndex(t, "AllocateRegisters"))
	typeKeys(m, "7")
	_, cmd := m.Update(keyMsg("C"))
	_, cmd = m.Update(cmd())
	wait := cmd().(tea.BatchMsg)[0]
	start := time.Now()
	send(m, keyMsg("c"))
	if got := messageLine(m); got != "cancelling the campaign..." {
		t.Errorf("c says %q", got)
	}
	for {
		msg := wait()
		if p, ok := msg.(campaignProgressMsg); ok {
			wait = p.next
			continue
		}
		send(m, msg)
		break
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelling took %s", took)
	}
	if got := messageLine(m); !strings.HasPrefix(got, "campaign: cancelled after ") || m.busy() {
		t.Errorf("after the cancel: %q, busy %v", got, m.busy())
	}
}

// S shows the PTX beside the IR, centred on the cursor's PTX line; :
// goes from a PTX line to its first instruction.
func TestPTXColumn(t *testing.T) {
	m := fileModel(t, "testdata/twofuncs.ptx", 120, 30)
	typeKeys(m, "2", "S", ":", "3", "4", "enter")
	r := cursorRow(m)
	if r.fn != "second" || rowLine(r) != 34 || !strings.Contains(r.text, "IMAD") {
		t.Fatalf(": 34: cursor on %q in %q", r.text, r.fn)
	}
	if got := messageLine(m); got != "PTX line 34: #7 in second" {
		t.Errorf(": 34 says %q", got)
	}
	v := paneText(m.View())
	if !strings.Contains(v, "│>  34     mul.lo.s32") || !strings.Contains(v, "│   33     mov.u32") {
		t.Errorf("the PTX column is not centred on line 34:\n%s", v)
	}
	typeKeys(m, "k")
	if v := paneText(m.View()); !strings.Contains(v, "│>  33     mov.u32") {
		t.Errorf("the PTX column does not follow the cursor:\n%s", v)
	}
	typeKeys(m, ":", "3", "0", "enter")
	if got := messageLine(m); !strings.HasPrefix(got, "nothing from PTX line 30 in this phase's IR; the next line that has something is 31") {
		t.Errorf(": 30 says %q", got)
	}
	typeKeys(m, "S")
	if v := paneText(m.View()); strings.Contains(v, "│>  ") {
		t.Errorf("S again does not hide the column:\n%s", v)
	}
}

// The Run pane shows the elements around the first mismatch, got against
// want, the differing one marked.
func TestRunShowsElementsAroundMismatch(t *testing.T) {
	m := sampleModel(t, 100, 40)
	// A wrong expectation for out[2] makes the run fail there.
	m.c.W.Spec.Expect[0].Values[2] ^= 1
	_, cmd := m.Update(keyMsg("r"))
	send(m, runNow(t, cmd))
	v := paneText(m.View())
	for _, s := range []string{
		"out: FAIL 1 of 4 elements differ; first: [2]",
		"out around [2], got vs want:",
		"  [0] got 1979177216   want 1979177216",
		"≠ [2] got 3077691648   want 3077691649",
		"  [3] got 523163904    want 523163904",
	} {
		if !strings.Contains(v, s) {
			t.Errorf("the Run pane lacks %q:\n%s", s, v)
		}
	}
}

// A recompile shows its phase count in the status bar, and c cancels it:
// the timeline then holds the phases that ran, and the message says so.
func TestCompileProgressAndCancel(t *testing.T) {
	w, err := Load("big.ptx", []byte(bigKernel(1000)), 3)
	if err != nil {
		t.Fatal(err)
	}
	m := New(w)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	_, cmd := m.Update(setKnobMsg{name: "LoopUnroll", value: "false"})
	wait := cmd().(tea.BatchMsg)[0]
	msg := wait()
	p, ok := msg.(compileProgressMsg)
	if !ok {
		t.Fatalf("the compile's first message is %T, want its progress", msg)
	}
	m.Update(p)
	if v := m.View(); !strings.Contains(v, "compiling 1/159 (c cancels)") {
		t.Errorf("no phase count in the status bar:\n%s", v)
	}
	start := time.Now()
	send(m, keyMsg("c"))
	if got := messageLine(m); got != "cancelling the compile..." {
		t.Errorf("c says %q", got)
	}
	wait = p.next
	for {
		msg := wait()
		if p, ok := msg.(compileProgressMsg); ok {
			wait = p.next
			continue
		}
		send(m, msg)
		break
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelling took %s", took)
	}
	if !w.Cancelled || w.Compiling || len(w.Snaps) == 0 || len(w.Snaps) >= 100 {
		t.Errorf("after the cancel: cancelled %v, compiling %v, %d snapshots", w.Cancelled, w.Compiling, len(w.Snaps))
	}
	if got := messageLine(m); !strings.HasPrefix(got, "compile cancelled after ") {
		t.Errorf("message %q", got)
	}
}
