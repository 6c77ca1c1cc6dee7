package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/internal/abdiff"
	"orilab/internal/irdiff"
	"orilab/pipeline"
	"orilab/pipeline/ptx"
)

// ABPane compares the workbench's compilation (A) with a second one of
// the same PTX with other knob settings (B), phase by phase, with the
// engine of orilab diff (internal/abdiff): e edits B's settings in the
// -knob syntax (NAME=VALUE records separated by ~; pre-filled with the
// last ones), enter compiles B and compares; the rows are the phases where A and B part, and below them is
// the unified A-to-B diff after the row's phase. B compiles in the
// background with its phase count shown, and c cancels it. With several
// functions, the comparison is of the function the IR cursor is in.
type ABPane struct {
	c       *Common
	w, h    int
	input   textinput.Model
	editing bool
	// settings are B's knob settings of the comparison running or shown.
	settings string
	fn       string // the function compared ("" for the module)
	running  bool
	progress string
	cancel   context.CancelFunc
	res      *abdiff.Result
	err      error
	took     time.Duration
	sel      int // selected row
	diffOff  int // scroll of the diff below the rows
	// gen is the workbench's compilation (Workbench.Gen) that was A when
	// the comparison started: a later one (new knobs, -O level, plant)
	// makes the result stale.
	gen int
	// want is the B settings last accepted with enter; it differs from
	// settings when the root refused them (a bad value, busy).
	want string
}

// abProgressMsg is a progress line of the B compilation in flight.
type abProgressMsg struct {
	line string
	next tea.Cmd
}

// abMsg carries the finished comparison.
type abMsg struct {
	res  *abdiff.Result
	err  error
	took time.Duration
}

// abRequestMsg asks the root to compile B with settings and compare.
type abRequestMsg struct{ settings string }

// NewABPane returns the A/B pane.
func NewABPane(c *Common) *ABPane {
	return &ABPane{c: c, input: newInput("B knobs: ")}
}

// Title implements component.
func (p *ABPane) Title() string { return "A/B" }

// SetSize implements component.
func (p *ABPane) SetSize(w, h int) { p.w, p.h = w, h; p.input.Width = max(w-12, 1) }

// InputFocused implements inputFocused.
func (p *ABPane) InputFocused() bool { return p.editing }

// Running reports whether B is compiling.
func (p *ABPane) Running() bool { return p.running }

// ShortHelp implements help.KeyMap.
func (p *ABPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	switch {
	case p.editing:
		return []key.Binding{k.Input.Accept, k.Input.Cancel}
	case p.running:
		return []key.Binding{k.AB.Cancel}
	case p.stale() != "":
		return []key.Binding{k.AB.Edit, bind(k.AB.Jump.Keys(), k.AB.Jump.Help().Key, "recompare")}
	}
	return []key.Binding{k.AB.Edit, k.List.Down, k.AB.Jump}
}

// FullHelp implements help.KeyMap.
func (p *ABPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Start marks a comparison with settings as started.
func (p *ABPane) Start(settings, fn string, cancel context.CancelFunc) {
	p.running, p.settings, p.fn, p.cancel = true, settings, fn, cancel
	p.gen, p.want = p.c.W.Gen, settings
	p.progress, p.res, p.err, p.sel, p.diffOff = "", nil, nil, 0, 0
}

// stale says why the comparison shown no longer describes A and B, or
// "" while it does.
func (p *ABPane) stale() string {
	switch {
	case p.res == nil || p.running:
		return ""
	case p.c.W.Gen != p.gen:
		return "stale: A was recompiled (knobs changed) since this comparison; enter recompares"
	case p.want != p.settings:
		return "stale: B's knobs changed since this comparison; enter recompares"
	}
	return ""
}

// Update implements component.
func (p *ABPane) Update(msg tea.Msg) tea.Cmd {
	k := p.c.Keys
	switch msg := msg.(type) {
	case abProgressMsg:
		p.progress = msg.line
		return nil
	case abMsg:
		p.running = false
		if p.cancel != nil {
			p.cancel()
			p.cancel = nil
		}
		p.res, p.err, p.took = msg.res, msg.err, msg.took
		if p.res != nil && p.res.First >= 0 {
			p.sel = p.res.First
		}
		return nil
	case tea.KeyMsg:
		if p.editing {
			switch {
			case key.Matches(msg, k.Input.Accept):
				p.editing = false
				p.input.Blur()
				p.want = strings.TrimSpace(p.input.Value())
				return cmdOf(abRequestMsg{settings: p.want})
			case key.Matches(msg, k.Input.Cancel):
				p.editing = false
				p.input.Blur()
				return nil
			}
			var cmd tea.Cmd
			p.input, cmd = p.input.Update(msg)
			return cmd
		}
		switch {
		case key.Matches(msg, k.AB.Edit):
			p.editing = true
			p.input.SetValue(p.settings)
			p.input.CursorEnd()
			return tea.Batch(p.input.Focus(), cmdOf(statusMsg("B's knobs, as -knob takes them (A=1~B=2); enter compiles B and compares, esc cancels")))
		case key.Matches(msg, k.AB.Cancel):
			if !p.running || p.cancel == nil {
				return cmdOf(statusMsg("no A/B compilation to cancel"))
			}
			p.cancel()
			return cmdOf(statusMsg("cancelling the A/B comparison..."))
		case key.Matches(msg, k.AB.Jump) && p.stale() != "":
			return cmdOf(abRequestMsg{settings: p.want})
		case key.Matches(msg, k.AB.Jump):
			if p.res == nil || p.sel >= len(p.res.Rows) {
				return cmdOf(statusMsg("no A/B row to go to: e then enter compares"))
			}
			return cmdOf(jumpPhaseMsg{index: p.res.Rows[p.sel].Index})
		}
		if p.res != nil && p.stale() == "" {
			if r, ok := k.List.move(msg.String(), p.sel, len(p.res.Rows), max(p.rowsHeight(), 1)); ok {
				if r != p.sel {
					p.diffOff = 0
				}
				p.sel = r
			}
		}
	}
	return nil
}

// rowsHeight is how many comparison rows the pane shows above the diff.
func (p *ABPane) rowsHeight() int { return max(min(len(p.rowsOrNil()), p.h/3), 1) }

func (p *ABPane) rowsOrNil() []abdiff.Row {
	if p.res == nil {
		return nil
	}
	return p.res.Rows
}

// View implements component.
func (p *ABPane) View() string {
	st := p.c.Styles
	what := "the module"
	if p.fn != "" {
		what = p.fn
	}
	lines := []string{st.Title.Render(fit("A: this compilation · B: with the knobs below", p.w))}
	if p.editing {
		lines = append(lines, p.input.View())
	} else {
		b := p.want // the settings last typed, compared or not (see stale)
		if b == "" {
			b = "(not set: e sets them)"
		}
		lines = append(lines, fit("B knobs: "+b, p.w))
	}
	switch {
	case p.running:
		what := "compiling B"
		if strings.HasPrefix(p.progress, "comparing") {
			what = "comparing A and B"
		}
		lines = append(lines, what+"... c cancels")
		if p.progress != "" {
			lines = append(lines, p.progress)
		}
	case errors.Is(p.err, context.Canceled):
		lines = append(lines, st.Dim.Render(fmt.Sprintf("cancelled after %s; e then enter starts it again", p.took.Round(time.Millisecond))))
	case p.err != nil:
		lines = append(lines, st.Error.Render("ERROR"))
		lines = append(lines, wrap(p.err.Error(), p.w)...)
	case p.res == nil:
		lines = append(lines, st.Dim.Render("not compared yet: e, type B's knobs (DisablePhases=OriBranchOpt), enter"))
	case p.stale() != "":
		// The old rows and diff are not shown: they would read as
		// the difference between what A and B are now.
		for _, l := range wrap(p.stale(), p.w) {
			lines = append(lines, st.Error.Render(l))
		}
	default:
		lines = append(lines, p.resultLines(what)...)
	}
	return block(lines, p.w, p.h)
}

// resultLines are the rows and the diff after the selected row.
func (p *ABPane) resultLines(what string) []string {
	st := p.c.Styles
	r := p.res
	summary := fmt.Sprintf("%s, %s: the IR is the same after the last phase (%s)", what, p.took.Round(time.Millisecond), r.Last)
	if r.FinalLines > 0 {
		summary = fmt.Sprintf("%s, %s: %s differ after the last phase (%s)", what, p.took.Round(time.Millisecond), plural(r.FinalLines, "line"), r.Last)
	}
	lines := wrap(summary, p.w)
	lines = append(lines, st.Dim.Render(fit("chg: changed IR, same: kept it, off: disabled", p.w)))
	if len(r.Rows) == 0 {
		return append(lines, st.Dim.Render("A and B did the same thing in every phase"))
	}
	rh := p.rowsHeight()
	off := scrollTo(0, p.sel, rh)
	nameW := 5
	for _, row := range r.Rows {
		nameW = max(nameW, len(row.Name))
	}
	nameW = max(min(nameW, 26, p.w-29), 5)
	lines = append(lines, st.Dim.Render(fit(fmt.Sprintf("      %-*s %-5s %-5s %s", nameW, "phase", "A", "B", "A/B diff"), p.w)))
	for i := off; i < len(r.Rows) && i < off+rh; i++ {
		row := r.Rows[i]
		note := "none"
		if row.Lines > 0 {
			note = plural(row.Lines, "line")
		}
		text := fmt.Sprintf("  #%-3d %-*s %-5s %-5s %s", row.Index, nameW, fit(row.Name, nameW), shortStatus(row.StatusA), shortStatus(row.StatusB), note)
		if i == p.sel {
			text = st.Selected.Render(fit(">"+text[1:], p.w))
		}
		lines = append(lines, text)
	}
	row := r.Rows[p.sel]
	lines = append(lines, st.Dim.Render(fit(fmt.Sprintf("A→B after #%d %s; enter goes there", row.Index, row.Name), p.w)))
	if row.Lines == 0 {
		return append(lines, st.Dim.Render("the IR is the same"))
	}
	for _, l := range strings.Split(strings.TrimRight(irdiff.Unified(row.A, row.B, "A", "B", 2), "\n"), "\n") {
		s := st.Same
		switch {
		case strings.HasPrefix(l, "+"):
			s = st.Added
		case strings.HasPrefix(l, "-"):
			s = st.Removed
		}
		lines = append(lines, s.Render(fit(expandTabs(l), p.w)))
	}
	return lines
}

// shortStatus abbreviates a phase status for the A/B rows, which must
// fit the right pane at 80 columns; the help legend spells them out.
func shortStatus(s string) string {
	switch s {
	case "changed":
		return "chg"
	case "unchanged":
		return "same"
	case "disabled":
		return "off"
	case abdiff.NotRun:
		return "-"
	}
	return s // no-op
}

// abCmd compiles B (the workbench's request with settings as its last
// -knob) and compares it with A's snapshots, for function fn. It runs in
// its own goroutine; the returned command waits for its next message, a
// progress line or the result.
func abCmd(ctx context.Context, w *Workbench, settings, fn string) tea.Cmd {
	a := w.Snaps
	req, reqErr := w.Request()
	pm := w.PTX
	msgs := make(chan tea.Msg, 16)
	var wait tea.Cmd
	wait = func() tea.Msg {
		msg := <-msgs
		if line, ok := msg.(string); ok {
			return abProgressMsg{line: line, next: wait}
		}
		return msg
	}
	go func() {
		start := time.Now()
		res := abRun(ctx, a, req, reqErr, pm, settings, fn, func(line string) {
			// Dropped rather than stall the work when the UI is behind.
			select {
			case msgs <- line:
			default:
			}
		})
		res.took = time.Since(start)
		msgs <- res
	}()
	return wait
}

// abRun compiles B and compares it with A's snapshots a, reporting
// progress lines. ctx stops both steps: the compilation between phases,
// the comparison between the phases it compares.
func abRun(ctx context.Context, a []*pipeline.Snapshot, req pipeline.Request, reqErr error, pm *ptx.Module,
	settings, fn string, progress func(string)) (res abMsg) {
	if reqErr != nil {
		res.err = reqErr
		return res
	}
	b := req.WithKnobs(settings)
	n := 0
	b.Observer = func(s *pipeline.Snapshot) {
		n++
		progress(fmt.Sprintf("B: %d of %d phases (#%d %s)", n, len(pipeline.PhaseTable), s.Index, s.Name))
	}
	_, snaps, _, err := compile(ctx, pm, b)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			res.err = context.Canceled
		} else {
			res.err = fmt.Errorf("compilation B (%s): %v", settings, err)
		}
		return res
	}
	c, err := abdiff.CompareContext(ctx, a, snaps, fn, func(i int) {
		progress(fmt.Sprintf("comparing A and B: #%d %s", i, pipeline.PhaseTable[i].Name))
	})
	if err != nil {
		res.err = context.Canceled
		return res
	}
	res.res = &c
	return res
}
