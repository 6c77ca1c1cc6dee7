package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"orilab/pipeline"
)

// Pane indices, in tab order; the number keys are these plus one.
const (
	paneTimeline = iota
	paneIR
	paneSASS
	paneKnobs
	paneRun
	paneBisect
	paneFault
	paneAB
	numPanes
)

// Model is the root model: it owns focus, global keys, resizing and
// message routing, and draws the tab bar, status bar and help footer. The
// timeline is always on the left; the right side shows the last pane other
// than the timeline that was chosen (IR at first).
type Model struct {
	c        *Common
	panes    [numPanes]component
	timeline *Timeline
	ir       *IRView
	knobs    *KnobsPane
	run      *RunPane
	bisect   *BisectPane
	ab       *ABPane
	fault    *FaultPane
	focus    int // the pane that gets keys
	right    int // the pane on the right
	width    int
	height   int
	showHelp bool
	help     help.Model
	spin     spinner.Model
	status   string // the last message for the status bar
}

// New returns the workbench on w. Init starts the first compilation.
func New(w *Workbench) *Model {
	c := &Common{Styles: DefaultStyles(), Keys: DefaultKeyMap(), W: w}
	m := &Model{c: c, focus: paneTimeline, right: paneIR, help: help.New(), width: 80, height: 24}
	m.timeline = NewTimeline(c)
	m.ir = NewIRView(c)
	m.knobs = NewKnobsPane(c)
	m.run = NewRunPane(c)
	m.bisect = NewBisectPane(c)
	m.ab = NewABPane(c)
	m.fault = NewFaultPane(c)
	m.panes = [numPanes]component{
		m.timeline, m.ir,
		NewSASSPane(c),
		m.knobs, m.run,
		m.bisect,
		m.fault,
		m.ab,
	}
	m.spin = spinner.New(spinner.WithSpinner(spinner.Line))
	m.resize()
	return m
}

// Init implements tea.Model: the first compile runs in the background.
func (m *Model) Init() tea.Cmd {
	return m.recompile()
}

func (m *Model) recompile() tea.Cmd {
	return tea.Batch(compileCmd(m.c.W), m.spin.Tick)
}

func (m *Model) busy() bool {
	return m.c.W.Compiling || m.run.Running() || m.bisect.Running() || m.ab.Running() || m.fault.CampaignRunning()
}

// Update implements tea.Model. Routing order: a focused text input, then
// global keys, then domain messages, then the focused pane.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.ir.Sync()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	w := m.c.W
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return nil
	case tea.MouseMsg:
		return m.mouse(msg)
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return tea.Quit
		}
		if f, ok := m.panes[m.focus].(inputFocused); ok && f.InputFocused() {
			return m.panes[m.focus].Update(msg)
		}
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// Keys typed faster than the terminal is read (or sent by
			// tmux send-keys) arrive as one message: handle each.
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				cmds = append(cmds, m.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
			}
			// In order: each key's feedback must land after the previous one's.
			return tea.Sequence(cmds...)
		}
		// A key's feedback replaces the previous key's: a message left
		// from an earlier key would describe a state that is gone.
		m.status = ""
		if cmd, ok := m.globalKey(msg); ok {
			return cmd
		}
		if m.showHelp {
			return nil
		}
		return m.panes[m.focus].Update(msg)
	case compileProgressMsg:
		if msg.gen == w.Gen {
			w.Done = msg.done
		}
		// A superseded compile's messages are read to its end too, so
		// that its goroutine finishes.
		return msg.next
	case compiledMsg:
		if w.apply(msg) {
			switch {
			case w.Cancelled:
				m.status = fmt.Sprintf("compile cancelled after %s: the later phases did not run; changing a knob compiles again", plural(len(msg.snaps), "phase"))
			case w.Err != "":
				m.status = "compile error: " + w.Err
			default:
				m.status = compiledSummary(msg)
			}
		}
		return nil
	case runMsg:
		m.run.Update(msg)
		return nil
	case setKnobMsg:
		return m.setKnob(msg)
	case runRequestMsg:
		return m.startRun()
	case plantMsg:
		w.Plant = msg.plant
		if msg.plant == nil {
			m.status = "fault removed; recompiling"
		} else {
			m.status = fmt.Sprintf("planting bugspec %s (seed %d) after %s; recompiling", msg.plant.Spec, msg.plant.Seed, msg.plant.At)
		}
		return m.recompile()
	case bisectProgressMsg:
		m.bisect.Update(msg)
		return msg.next
	case bisectMsg:
		m.bisect.Update(msg)
		switch {
		case errors.Is(msg.err, context.Canceled):
			m.status = fmt.Sprintf("bisect: cancelled after %s", msg.took.Round(time.Millisecond))
		case msg.err != nil:
			m.status = "bisect: " + msg.err.Error()
		case msg.phase != nil && msg.phase.Found:
			m.status = fmt.Sprintf("bisect: culprit #%d %s (enter selects it)", msg.phase.Index, msg.phase.Name)
		case msg.disable != nil && msg.disable.Found:
			m.status = "bisect: disabling " + strings.Join(msg.disable.Phases, "+") + " makes it pass (enter applies it)"
		case msg.phase != nil:
			m.status = "bisect: no culprit"
		default:
			m.status = "bisect: no disable set"
		}
		return nil
	case bisectRequestMsg:
		return m.startBisect(msg.mode)
	case campaignRequestMsg:
		return m.startCampaign(msg)
	case campaignProgressMsg:
		m.fault.Update(msg)
		return msg.next
	case campaignMsg:
		m.campaignDone(msg)
		return nil
	case abRequestMsg:
		return m.startAB(msg.settings)
	case abProgressMsg:
		m.ab.Update(msg)
		return msg.next
	case abMsg:
		m.ab.Update(msg)
		switch {
		case errors.Is(msg.err, context.Canceled):
			m.status = fmt.Sprintf("A/B: cancelled after %s", msg.took.Round(time.Millisecond))
		case msg.err != nil:
			m.status = "A/B: " + msg.err.Error()
		case msg.res.FinalLines == 0:
			m.status = fmt.Sprintf("A/B: %s where A and B part; the final IR is the same", plural(len(msg.res.Rows), "phase"))
		default:
			m.status = fmt.Sprintf("A/B: %s where A and B part; %s differ at the end", plural(len(msg.res.Rows), "phase"), plural(msg.res.FinalLines, "line"))
		}
		return nil
	case jumpPhaseMsg:
		m.timeline.Select(msg.index)
		m.ir.SetMode(modeDiff)
		m.setFocus(paneIR)
		m.status = fmt.Sprintf("selected #%d %s", msg.index, pipeline.PhaseTable[msg.index].Name)
		return nil
	case statusMsg:
		m.status = string(msg)
		return nil
	case spinner.TickMsg:
		if !m.busy() {
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	}
	return m.panes[m.focus].Update(msg)
}

// globalKey handles the keys that work everywhere.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	g := m.c.Keys.Global
	w := m.c.W
	switch {
	case key.Matches(msg, g.Quit):
		return tea.Quit, true
	case key.Matches(msg, g.Help):
		m.showHelp = !m.showHelp
		return nil, true
	case m.showHelp && msg.String() == "esc":
		m.showHelp = false
		return nil, true
	case key.Matches(msg, g.NextPane):
		m.setFocus((m.focus + 1) % numPanes)
		return nil, true
	case key.Matches(msg, g.PrevPane):
		m.setFocus((m.focus + numPanes - 1) % numPanes)
		return nil, true
	case key.Matches(msg, g.NextChanged):
		m.jumpChanged(+1)
		return nil, true
	case key.Matches(msg, g.PrevChanged):
		m.jumpChanged(-1)
		return nil, true
	case key.Matches(msg, g.ViewMode):
		m.ir.CycleMode()
		m.show(paneIR)
		m.status = "IR view: " + m.ir.Mode().String()
		return nil, true
	case msg.String() == "esc" && m.focus == paneTimeline && (m.ir.Following() != "" || m.ir.query != ""):
		// A follow is for stepping through phases in the timeline, so Esc
		// there stops it as it does in the IR pane.
		m.status = m.ir.Unfollow()
		return nil, true
	case key.Matches(msg, g.Run):
		return m.startRun(), true
	case key.Matches(msg, g.CancelCompile) && w.Compiling:
		// The panes' own c (bisect, campaign, B) cancel jobs that cannot
		// run while a compile does, so c cancels the compile wherever
		// the keys are.
		w.cancel()
		m.status = "cancelling the compile..."
		return nil, true
	case key.Matches(msg, g.Remarks):
		// The list takes keys (j, enter, esc), so the IR pane gets them.
		m.status = m.ir.openRemarks()
		if m.ir.remarking {
			m.setFocus(paneIR)
		}
		return nil, true
	}
	for i, b := range g.Pane {
		if key.Matches(msg, b) {
			m.setFocus(i)
			return nil, true
		}
	}
	return nil, false
}

// show puts pane i on the right. A key that shows a pane also gives it
// the keys, unless the timeline has them: the tab bar's brackets must name
// the pane whose keys work and whose hints the footer shows.
func (m *Model) show(i int) {
	m.right = i
	if m.focus != paneTimeline {
		m.focus = i
	}
	m.resize()
}

func (m *Model) setFocus(i int) {
	m.focus = i
	if i != paneTimeline {
		m.right = i
	}
	m.showHelp = false
	m.resize()
}

// jumpChanged selects the next (dir +1) or previous (-1) phase that
// changed the IR.
func (m *Model) jumpChanged(dir int) {
	w := m.c.W
	for i := w.Sel + dir; i >= 0 && i < len(pipeline.PhaseTable); i += dir {
		if s := w.Snap(i); s != nil && s.Status == pipeline.StatusChanged {
			m.timeline.Select(i)
			m.status = fmt.Sprintf("#%d %s changed the IR", i, pipeline.PhaseTable[i].Name)
			return
		}
	}
	if dir > 0 {
		m.status = "no later phase changed the IR"
	} else {
		m.status = "no earlier phase changed the IR"
	}
}

// setKnob applies a knob override after checking the whole knob set, and
// recompiles in the background. The selected phase stays.
func (m *Model) setKnob(msg setKnobMsg) tea.Cmd {
	w := m.c.W
	if err := w.CheckKnob(msg.name, msg.value, msg.reset); err != nil {
		m.status = err.Error()
		return nil
	}
	if msg.reset {
		delete(w.Knobs, msg.name)
	} else {
		w.Knobs[msg.name] = msg.value
	}
	if msg.reset {
		m.status = "reset " + msg.name + "; recompiling"
	} else {
		m.status = fmt.Sprintf("%s=%s; recompiling", msg.name, msg.value)
	}
	return m.recompile()
}

// startBisect starts a bisection in the background. It waits for a
// compile or run in flight only to keep one heavy job at a time.
func (m *Model) startBisect(mode string) tea.Cmd {
	w := m.c.W
	m.show(paneBisect)
	if w.Spec == nil {
		m.status = "no kernel spec to bisect (open a SPEC.json)"
		return nil
	}
	if m.busy() {
		m.status = "busy; try again when the spinner stops"
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.bisect.Start(mode, cancel)
	m.status = "bisecting (" + mode + " mode)... c cancels"
	return tea.Batch(bisectCmd(ctx, w, mode), m.spin.Tick)
}

// startAB compiles B (the workbench's compilation with settings on top)
// in the background and compares it with A, the compilation shown. The
// settings are checked first, as the knob pane checks a value.
func (m *Model) startAB(settings string) tea.Cmd {
	w := m.c.W
	m.show(paneAB)
	if settings == "" {
		m.status = "no B knobs: e, then NAME=VALUE (records separated by ~)"
		return nil
	}
	if m.busy() || len(w.Snaps) == 0 {
		m.status = "busy; try again when the spinner stops"
		return nil
	}
	req, err := w.Request()
	if err == nil {
		b := req.WithKnobs(settings)
		_, err = b.PhaseOptions(w.PTX, pipeline.SessionControl{})
	}
	if err != nil {
		m.status = "B knobs: " + err.Error()
		return nil
	}
	fn := ""
	if m.ir.nfuncs > 1 {
		fn = m.ir.CursorFunc()
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.ab.Start(settings, fn, cancel)
	m.status = "compiling B (" + settings + ")... c cancels"
	return tea.Batch(abCmd(ctx, w, settings, fn), m.spin.Tick)
}

func (m *Model) startRun() tea.Cmd {
	w := m.c.W
	m.show(paneRun)
	if w.Spec == nil {
		m.status = "no kernel spec to run (open a SPEC.json)"
		return nil
	}
	if w.Compiling || m.run.Running() {
		m.status = "busy; try again when the spinner stops"
		return nil
	}
	m.run.Start()
	return tea.Batch(runCmd(w, w.Sel), m.spin.Tick)
}

// Layout: one line of tabs, the body, a status line, and two lines for
// the message and the short help (a long message takes both).
const chromeLines = 4

// timelineWidth is two fifths of the screen, from 30 columns up to what
// the longest phase name needs.
func (m *Model) timelineWidth() int {
	fw, _ := m.c.Styles.Pane.GetFrameSize()
	return min(max(m.width*2/5, 30), longestPhaseName()+timelineCols+fw)
}

func (m *Model) resize() {
	st := m.c.Styles
	fw, fh := st.Pane.GetFrameSize()
	bodyH := max(m.height-chromeLines-fh, 1)
	lw := m.timelineWidth()
	m.timeline.SetSize(max(lw-fw, 1), bodyH)
	rw := max(m.width-lw-fw, 1)
	for i := paneIR; i < numPanes; i++ {
		m.panes[i].SetSize(rw, bodyH)
	}
	m.help.Width = m.width
}

// View implements tea.Model.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.showHelp {
		// The overlay takes everything below the tab bar: at 80x24 every
		// binding fits only without the status and help lines.
		return m.tabsView() + "\n" + block(strings.Split(m.helpView(), "\n"), m.width, m.height-1)
	}
	parts := []string{m.tabsView(), m.bodyView(), m.statusView(), m.messageView()}
	return strings.Join(parts, "\n")
}

func (m *Model) tabsView() string {
	st := m.c.Styles
	var tabs []string
	for i, p := range m.panes {
		// Brackets mark the focused pane without colour too.
		switch label := fmt.Sprintf("%d %s", i+1, p.Title()); {
		case i == m.focus:
			tabs = append(tabs, st.ActiveTab.Render("["+label+"]"))
		case i == m.right:
			// Parentheses mark the pane shown on the right while the
			// timeline has the keys.
			tabs = append(tabs, st.Tab.Render("("+label+")"))
		default:
			tabs = append(tabs, st.Tab.Render(" "+label+" "))
		}
	}
	return fit(lipgloss.JoinHorizontal(lipgloss.Top, tabs...), m.width)
}

func (m *Model) paneBox(i int, content string) string {
	st := m.c.Styles.Pane
	if i == m.focus {
		st = m.c.Styles.FocusedPane
	}
	return st.Render(content)
}

func (m *Model) bodyView() string {
	_, fh := m.c.Styles.Pane.GetFrameSize()
	bodyH := max(m.height-chromeLines-fh, 1)
	left := m.paneBox(paneTimeline, m.timeline.View())
	right := m.paneBox(m.right, m.panes[m.right].View())
	return block(strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, left, right), "\n"), m.width, bodyH+fh)
}

// helpSection is one heading of the help overlay and its keys.
type helpSection struct {
	title string
	keys  []key.Binding
	note  string // for a pane without keys of its own
}

// helpSections lists every binding under the pane it works in, generated
// from the key map, so that a key listed twice (/ filters the timeline and
// searches the IR) says where.
func (m *Model) helpSections() []helpSection {
	k := m.c.Keys
	g := k.Global
	// Pairs share an entry (help only) to keep the overlay inside 80x24.
	pair := func(a, b key.Binding, desc string) key.Binding {
		return key.NewBinding(key.WithHelp(a.Help().Key+" "+b.Help().Key, desc))
	}
	l := k.List
	return []helpSection{
		{title: "everywhere", keys: []key.Binding{g.Quit, g.Help, pair(g.NextPane, g.PrevPane, "next/prev. pane"), g.Panes,
			pair(g.NextChanged, g.PrevChanged, "next/prev. changed phase"), g.ViewMode, g.Run, g.Remarks, g.CancelCompile,
			key.NewBinding(key.WithHelp("mouse", "click a phase or tab, wheel scrolls"))}},
		{title: "lists", keys: []key.Binding{pair(l.Up, l.Down, "move"), pair(l.PageUp, l.PageDown, "page"), pair(l.Top, l.Bottom, "first/last"), pair(l.Left, l.Right, "scroll sideways"),
			pair(k.Input.Accept, k.Input.Cancel, "accept/cancel input")}},
		{title: "1 timeline", keys: []key.Binding{k.Timeline.Filter, k.Timeline.Disable, k.Timeline.OnlyChanged, k.IR.Unfollow}},
		{title: "2 IR", keys: []key.Binding{k.IR.Follow, k.IR.FollowReg, k.IR.Unfollow, k.IR.HunkPair, k.IR.Search, k.IR.MatchPair, k.IR.FuncPair, k.IR.PickFunc, k.IR.Source, k.IR.PTXColumn, k.IR.GotoPTX, k.IR.Write, k.IR.WriteAll}},
		{title: "3 SASS", note: "the SASS of the selected phase's IR (list keys scroll)"},
		{title: "4 knobs", keys: []key.Binding{k.Knobs.Filter, k.Knobs.Edit, k.Knobs.Reset}},
		{title: "5 run", keys: []key.Binding{g.Run}},
		{title: "6 bisect", keys: []key.Binding{k.Bisect.Phase, k.Bisect.Disable, k.Bisect.Jump, k.Bisect.Cancel}},
		{title: "7 fault", keys: []key.Binding{k.Fault.Inject, k.Fault.Edit, k.Fault.Reseed, k.Fault.Clear, k.Fault.Campaign, k.Fault.Cancel}},
		{title: "8 A/B", keys: []key.Binding{k.AB.Edit, k.AB.Jump, k.AB.Cancel}},
	}
}

// helpView is the '?' overlay: every binding under a heading per pane,
// and the timeline's legend.
func (m *Model) helpView() string {
	st := m.c.Styles
	const titleW = 11
	w := max(m.width-2-titleW, 10)
	lines := []string{st.Title.Render("Keys (? or esc closes)")}
	for _, sec := range m.helpSections() {
		var items []string
		for _, b := range sec.keys {
			h := b.Help()
			items = append(items, h.Key+" "+h.Desc)
		}
		text := strings.Join(items, " · ")
		if sec.note != "" {
			text = sec.note
		}
		for i, l := range wrapItems(text, w) {
			title := ""
			if i == 0 {
				title = sec.title
			}
			lines = append(lines, st.Title.Render(fmt.Sprintf("%-*s", titleW, title))+l)
		}
	}
	legend := fmt.Sprintf("timeline: %s changed %s unchanged %s no-op %s disabled %s remarks; insts, pressure",
		markChanged, markUnchanged, markNoOp, markDisabled, markRemarks)
	lines = append(lines, wrap(legend, m.width-2)...)
	return st.Help.Render(strings.Join(lines, "\n"))
}

// wrapItems wraps a " · "-separated list at its separators where it can.
func wrapItems(text string, w int) []string {
	var out []string
	line := ""
	for _, it := range strings.Split(text, " · ") {
		switch {
		case line == "":
			line = it
		case lipgloss.Width(line)+3+lipgloss.Width(it) <= w:
			line += " · " + it
		default:
			out = append(out, line)
			line = it
		}
	}
	return append(out, wrap(line, w)...)
}

func (m *Model) statusView() string {
	w := m.c.W
	p := pipeline.PhaseTable[w.Sel]
	var parts []string
	if m.busy() {
		what := fmt.Sprintf("compiling %d/%d (c cancels)", m.c.W.Done, len(pipeline.PhaseTable))
		if m.run.Running() {
			what = "running"
		} else if m.bisect.Running() {
			what = "bisecting"
		} else if m.ab.Running() {
			what = "compiling B"
		} else if m.fault.CampaignRunning() {
			what = "campaign"
		}
		parts = append(parts, m.spin.View()+" "+what)
	}
	// The file comes last: at 80 columns a long path is what gets cut,
	// not the -O level or the phase. Phases are numbered as in the
	// timeline (#0 to #158).
	parts = append(parts, fmt.Sprintf("#%d/%d %s", w.Sel, len(pipeline.PhaseTable)-1, p.Name))
	if s := w.Snap(w.Sel); s != nil {
		parts = append(parts, s.Status.String())
	}
	parts = append(parts, fmt.Sprintf("-O%d", w.OptLevel), w.File)
	return m.c.Styles.Status.Render(fit(strings.Join(parts, " │ "), m.width))
}

// message is what the message line says: a compile error, else the
// feedback of the last key (or of the job that just ended), else why the
// selected phase did not run.
func (m *Model) message() string {
	w := m.c.W
	switch s := w.Snap(w.Sel); {
	case w.Err != "":
		return "compile error: " + w.Err
	case m.status != "":
		return m.status
	case s != nil && (s.Status == pipeline.StatusNoOp || s.Status == pipeline.StatusDisabled):
		return s.Status.String() + ": " + s.Reason
	case s != nil && len(s.Remarks) > 0:
		return remarkSummary(s)
	}
	return m.status
}

// messageView is two lines: the message's first line and the focused
// pane's short help, which a long message never pushes off. A compile
// error is shown whole, with its source line and caret, in the IR pane.
func (m *Model) messageView() string {
	msg, _, _ := strings.Cut(m.message(), "\n")
	b := append(m.panes[m.focus].ShortHelp(), m.c.Keys.Global.Help, m.c.Keys.Global.Quit)
	lines := []string{msg, m.help.ShortHelpView(b)}
	if m.c.W.Err != "" {
		lines[0] = m.c.Styles.Error.Render(lines[0])
	}
	return block(lines, m.width, 2)
}

// compiledSummary says what a compile did, without timings (the view is
// compared against golden files).
func compiledSummary(msg compiledMsg) string {
	ran, changed := 0, 0
	for _, s := range msg.snaps {
		switch s.Status {
		case pipeline.StatusChanged:
			ran++
			changed++
		case pipeline.StatusUnchanged:
			ran++
		}
	}
	return fmt.Sprintf("compiled: %d phases ran, %d changed the IR", ran, changed)
}
