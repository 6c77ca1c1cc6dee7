package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/bisect"
	"orilab/pipeline/knobs"
	"orilab/pipeline/spec"
)

// BisectPane runs bisect.Phase (b) or bisect.Disable (B) on the
// workbench's spec, at the workbench's -O level, target and DisablePhases,
// with the search's progress lines shown live. A phase result shows the
// culprit, its mismatches and its diff, and enter jumps to that phase; a
// disable result shows the minimal set, and enter applies it as the
// DisablePhases knob. The pane runs its own compilations: a bisection must
// not depend on what the timeline happens to hold.
type BisectPane struct {
	c        *Common
	w, h     int
	running  bool
	mode     string // of the bisection running or shown
	progress string // the last progress line while running
	last     *bisectMsg
	// cancel stops the bisection in flight (c); the search then ends
	// with the context's error within a few milliseconds, even in an
	// execution that hangs.
	cancel context.CancelFunc
}

// bisectRequestMsg asks the root to start a bisection in mode ("phase"
// or "disable").
type bisectRequestMsg struct{ mode string }

// jumpPhaseMsg asks the root to select phase index in the timeline and
// show its diff.
type jumpPhaseMsg struct{ index int }

// bisectProgressMsg carries one progress line of the bisection in flight;
// next waits for the following message.
type bisectProgressMsg struct {
	line string
	next tea.Cmd
}

// bisectMsg carries the result of a bisection: phase for mode "phase",
// disable for mode "disable", or err.
type bisectMsg struct {
	mode    string
	phase   *bisect.PhaseResult
	disable *bisect.DisableResult
	err     error
	took    time.Duration
	// opt and disabled describe the configuration that was bisected.
	opt      int
	disabled []string
}

// NewBisectPane returns the bisect pane.
func NewBisectPane(c *Common) *BisectPane { return &BisectPane{c: c} }

// Title implements component.
func (p *BisectPane) Title() string { return "Bisect" }

// SetSize implements component.
func (p *BisectPane) SetSize(w, h int) { p.w, p.h = w, h }

// ShortHelp implements help.KeyMap.
func (p *BisectPane) ShortHelp() []key.Binding {
	k := p.c.Keys.Bisect
	if p.running {
		return []key.Binding{k.Cancel}
	}
	return []key.Binding{k.Phase, k.Disable, k.Jump}
}

// FullHelp implements help.KeyMap.
func (p *BisectPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Running reports whether a bisection is in flight.
func (p *BisectPane) Running() bool { return p.running }

// Start marks a bisection in mode as started; the root issues the command.
func (p *BisectPane) Start(mode string, cancel context.CancelFunc) {
	p.running, p.mode, p.progress, p.last, p.cancel = true, mode, "", nil, cancel
}

// Update implements component.
func (p *BisectPane) Update(msg tea.Msg) tea.Cmd {
	k := p.c.Keys.Bisect
	switch msg := msg.(type) {
	case bisectProgressMsg:
		p.progress = msg.line
	case bisectMsg:
		p.running = false
		p.last = &msg
		if p.cancel != nil {
			p.cancel()
			p.cancel = nil
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Phase):
			return cmdOf(bisectRequestMsg{mode: "phase"})
		case key.Matches(msg, k.Disable):
			return cmdOf(bisectRequestMsg{mode: "disable"})
		case key.Matches(msg, k.Jump):
			return p.jump()
		case key.Matches(msg, k.Cancel):
			if !p.running || p.cancel == nil {
				return cmdOf(statusMsg("no bisection to cancel"))
			}
			p.cancel()
			return cmdOf(statusMsg("cancelling the bisection..."))
		}
	}
	return nil
}

// jump acts on the finished bisection: select the culprit phase, or apply
// the minimal disable set.
func (p *BisectPane) jump() tea.Cmd {
	b := p.last
	switch {
	case b != nil && b.phase != nil && b.phase.Found:
		return cmdOf(jumpPhaseMsg{index: b.phase.Index})
	case b != nil && b.disable != nil && b.disable.Found:
		all := append(append([]string(nil), b.disabled...), b.disable.Phases...)
		return cmdOf(setKnobMsg{name: knobs.KnobDisablePhases, value: strings.Join(all, "+")})
	}
	return cmdOf(statusMsg("nothing to apply: run a bisection that finds something first (b or B)"))
}

// View implements component.
func (p *BisectPane) View() string {
	st := p.c.Styles
	sp := p.c.W.Spec
	if sp == nil {
		return block(wrap("No kernel spec: this file was opened as bare PTX, so there is nothing to execute and no oracle to bisect with. Open a SPEC.json (orilab tui SPEC.json).", p.w), p.w, p.h)
	}
	lines := []string{
		st.Title.Render("bisect ") + sp.Name + "  kernel " + sp.Kernel,
		st.Dim.Render("b finds the culprit phase (--mode phase)"),
		st.Dim.Render("B finds a minimal set to disable"),
		st.Dim.Render("enter selects the culprit / applies the set"),
		st.Dim.Render("knobs, sites, auto: orilab bisect --mode"),
		"",
	}
	switch {
	case p.running:
		lines = append(lines, fmt.Sprintf("bisecting (%s mode)... c cancels", p.mode))
		if p.progress != "" {
			lines = append(lines, wrap(p.progress, p.w)...)
		}
	case p.last == nil:
		lines = append(lines, st.Dim.Render("not run yet"))
	case p.last.err != nil:
		lines = append(lines, st.Error.Render("ERROR"))
		lines = append(lines, wrap(p.last.err.Error(), p.w)...)
	case p.last.disable != nil:
		lines = append(lines, p.disableLines()...)
	default:
		lines = append(lines, p.resultLines()...)
	}
	return block(lines, p.w, p.h)
}

// config describes the bisected configuration.
func (b *bisectMsg) config() string {
	cfg := fmt.Sprintf("-O%d", b.opt)
	if len(b.disabled) > 0 {
		cfg += " DisablePhases=" + strings.Join(b.disabled, "+")
	}
	return cfg
}

func (p *BisectPane) disableLines() []string {
	st := p.c.Styles
	b := p.last
	r := b.disable
	lines := wrap(fmt.Sprintf("%s: %s over %d optional phases that ran (%s)",
		b.config(), plural(r.Executions, "execution"), len(r.Candidates), b.took.Round(time.Millisecond)), p.w)
	lines = append(lines, hangLines(r.Hangs, p.w)...)
	lines = append(lines, wrap("oracle: "+r.Oracle, p.w)...)
	if !r.Found {
		lines = append(lines, st.Pass.Render("NOTHING TO DISABLE"))
		return append(lines, wrap(r.Reason, p.w)...)
	}
	lines = append(lines, st.Error.Render("DISABLE")+" "+strings.Join(r.Phases, " "))
	lines = append(lines, wrap("disabling these makes the kernel pass; re-enabling any one of them makes it fail", p.w)...)
	lines = append(lines, wrap("knob: "+r.Knob, p.w)...)
	lines = append(lines, p.replayLines(r.Replay)...)
	return lines
}

func (p *BisectPane) resultLines() []string {
	st := p.c.Styles
	b := p.last
	r := b.phase
	cfg := b.config()
	var lines []string
	lines = append(lines, wrap(fmt.Sprintf("%s: %s, %d active phases, %d changed the IR (%s)",
		cfg, plural(r.Executions, "execution"), r.ActivePhases, r.ChangedPhases, b.took.Round(time.Millisecond)), p.w)...)
	lines = append(lines, hangLines(r.Hangs, p.w)...)
	lines = append(lines, wrap("oracle: "+r.Oracle, p.w)...)
	if !r.Found {
		lines = append(lines, st.Pass.Render("NO CULPRIT"))
		return append(lines, wrap(r.Reason, p.w)...)
	}
	req := ""
	if r.Required {
		req = " (required: cannot be disabled)"
	}
	lines = append(lines,
		st.Error.Render("CULPRIT")+fmt.Sprintf(" #%d %s%s", r.Index, r.Name, req),
		"last passing IR: after "+r.Previous)
	if r.ExecError != "" {
		lines = append(lines, wrap("fault: "+r.ExecError, p.w)...)
	}
	if len(r.Mismatches) > 0 {
		for _, l := range strings.Split(strings.TrimRight(spec.FormatResults(r.Mismatches), "\n"), "\n") {
			lines = append(lines, wrap(l, p.w)...)
		}
	}
	lines = append(lines, p.replayLines(r.Replay)...)
	lines = append(lines, "")
	for _, l := range strings.Split(strings.TrimRight(r.Diff, "\n"), "\n") {
		lines = append(lines, expandTabs(l))
	}
	return lines
}

// replayLines shows a replay command on lines of their own, broken only
// where a shell allows (a trailing backslash), so that it can be copied;
// q prints it again below the shell prompt, outside the pane's border.
func (p *BisectPane) replayLines(cmd string) []string {
	cmd = p.c.W.replay(cmd)
	out := []string{"replay:"}
	for i, l := range wrap(cmd, max(p.w-2, 10)) {
		if i > 0 {
			out[len(out)-1] += " \\"
		}
		out = append(out, l)
	}
	return out
}

// hangLines says how many executions hung at the step limit, if any.
func hangLines(hangs, w int) []string {
	if hangs == 0 {
		return nil
	}
	return wrap(fmt.Sprintf("%s hung at the step limit (counted as failures)", plural(hangs, "execution")), w)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// expandTabs turns tabs into spaces so that fit measures diff lines right.
func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// bisectCmd bisects the workbench's spec in mode with its -O level,
// target and knobs. Knobs are checked the way orilab bisect checks them:
// NamedPhases replaces the pipeline, so it is refused. The search runs in
// its own goroutine; the returned command waits for its next message, a
// progress line or the result.
func bisectCmd(ctx context.Context, w *Workbench, mode string) tea.Cmd {
	sp, opt, disabled := w.Spec, w.OptLevel, w.DisabledPhases()
	req, reqErr := w.Request()
	msgs := make(chan tea.Msg, 16)
	var wait tea.Cmd
	wait = func() tea.Msg {
		msg := <-msgs
		if line, ok := msg.(string); ok {
			return bisectProgressMsg{line: line, next: wait}
		}
		return msg
	}
	go func() {
		start := time.Now()
		res := bisectMsg{mode: mode, opt: opt}
		defer func() { res.took = time.Since(start); msgs <- res }()
		if reqErr != nil {
			res.err = reqErr
			return
		}
		opts := bisect.Options{
			Request: req,
			// Progress lines are dropped rather than stall the search
			// when the UI is behind: only the latest one matters.
			Progress: func(line string) {
				select {
				case msgs <- line:
				default:
				}
			},
		}
		res.disabled = disabled
		if mode == "disable" {
			res.disable, res.err = bisect.Disable(ctx, sp, opts)
		} else {
			res.phase, res.err = bisect.Phase(ctx, sp, opts)
		}
	}()
	return wait
}
