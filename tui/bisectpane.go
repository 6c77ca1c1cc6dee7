package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/bisect"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/spec"
)

// BisectPane runs bisect.Phase on the workbench's spec, at the workbench's
// -O level, target and DisablePhases, and shows the culprit phase, its
// mismatches and its diff. It runs its own compilations: the bisector
// re-executes snapshots, so it cannot reuse the timeline's results without
// trusting them, and a bisection must not depend on what the user has
// clicked.
type BisectPane struct {
	c       *Common
	w, h    int
	running bool
	last    *bisectMsg
}

// bisectRequestMsg asks the root to start a phase bisection.
type bisectRequestMsg struct{}

// jumpPhaseMsg asks the root to select phase index in the timeline and
// show its diff.
type jumpPhaseMsg struct{ index int }

// bisectMsg carries the result of a bisection.
type bisectMsg struct {
	res  *bisect.PhaseResult
	err  error
	took time.Duration
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
	return []key.Binding{p.c.Keys.Bisect.Start, p.c.Keys.Bisect.Jump}
}

// FullHelp implements help.KeyMap.
func (p *BisectPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Running reports whether a bisection is in flight.
func (p *BisectPane) Running() bool { return p.running }

// Start marks a bisection as started; the root issues the command.
func (p *BisectPane) Start() { p.running = true; p.last = nil }

// Update implements component.
func (p *BisectPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case bisectMsg:
		p.running = false
		p.last = &msg
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.c.Keys.Bisect.Start):
			return cmdOf(bisectRequestMsg{})
		case key.Matches(msg, p.c.Keys.Bisect.Jump):
			if p.last != nil && p.last.res != nil && p.last.res.Found {
				return cmdOf(jumpPhaseMsg{index: p.last.res.Index})
			}
			return cmdOf(statusMsg("no culprit to jump to: run a bisection first (b)"))
		}
	}
	return nil
}

// View implements component.
func (p *BisectPane) View() string {
	st := p.c.Styles
	sp := p.c.W.Spec
	if sp == nil {
		return block(wrap("No kernel spec: this file was opened as bare PTX, so there is nothing to execute and no oracle to bisect with. Open a SPEC.json (orilab tui SPEC.json).", p.w), p.w, p.h)
	}
	lines := []string{
		st.Title.Render("phase bisection ") + sp.Name + "  kernel " + sp.Kernel,
		st.Dim.Render("b finds the first phase whose output executes differently"),
		st.Dim.Render("enter selects that phase in the timeline and shows its diff"),
		st.Dim.Render("(knob-delta and site modes are not built yet)"),
		"",
	}
	switch {
	case p.running:
		lines = append(lines, "bisecting...")
	case p.last == nil:
		lines = append(lines, st.Dim.Render("not run yet"))
	case p.last.err != nil:
		lines = append(lines, st.Error.Render("ERROR"))
		lines = append(lines, wrap(p.last.err.Error(), p.w)...)
	default:
		lines = append(lines, p.resultLines()...)
	}
	return block(lines, p.w, p.h)
}

func (p *BisectPane) resultLines() []string {
	st := p.c.Styles
	b := p.last
	r := b.res
	cfg := fmt.Sprintf("-O%d", b.opt)
	if len(b.disabled) > 0 {
		cfg += " DisablePhases=" + strings.Join(b.disabled, "+")
	}
	var lines []string
	lines = append(lines, wrap(fmt.Sprintf("%s: %s, %d active phases, %d changed the IR (%s)",
		cfg, plural(r.Executions, "execution"), r.ActivePhases, r.ChangedPhases, b.took.Round(time.Millisecond)), p.w)...)
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
	lines = append(lines, wrap("replay: "+r.Replay, p.w)...)
	lines = append(lines, "")
	for _, l := range strings.Split(strings.TrimRight(r.Diff, "\n"), "\n") {
		lines = append(lines, expandTabs(l))
	}
	return lines
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// expandTabs turns tabs into spaces so that fit measures diff lines right.
func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// bisectCmd bisects the workbench's spec by phase with its -O level,
// target and knobs. Knobs are checked the way orilab bisect checks them:
// NamedPhases replaces the pipeline, so it is refused.
func bisectCmd(w *Workbench) tea.Cmd {
	sp, opt, arch, args := w.Spec, w.OptLevel, w.Arch, w.KnobArgs()
	return func() tea.Msg {
		start := time.Now()
		fail := func(err error) tea.Msg { return bisectMsg{err: err, opt: opt, took: time.Since(start)} }
		set, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: args})
		if err != nil {
			return fail(err)
		}
		var po pipeline.PhaseOptions
		if err := po.ApplyKnobs(set); err != nil {
			return fail(err)
		}
		if len(po.NamedPhases) > 0 {
			return fail(fmt.Errorf("NamedPhases replaces the pipeline; reset it in the knob pane and bisect the default pipeline (with DisablePhases if needed)"))
		}
		opts := bisect.Options{Compile: pipeline.Options{Arch: arch}, OptLevel: opt, DisablePhases: po.DisablePhases}
		res, err := bisect.Phase(context.Background(), sp, opts)
		return bisectMsg{res: res, err: err, took: time.Since(start), opt: opt, disabled: po.DisablePhases}
	}
}
