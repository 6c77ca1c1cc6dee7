package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

// RunPane executes the kernel spec on the selected phase's IR and shows
// the outcome.
type RunPane struct {
	c       *Common
	w, h    int
	running bool
	last    *runMsg
}

// NewRunPane returns the run pane.
func NewRunPane(c *Common) *RunPane { return &RunPane{c: c} }

// Title implements component.
func (p *RunPane) Title() string { return "Run" }

// SetSize implements component.
func (p *RunPane) SetSize(w, h int) { p.w, p.h = w, h }

// ShortHelp implements help.KeyMap.
func (p *RunPane) ShortHelp() []key.Binding { return []key.Binding{p.c.Keys.Global.Run} }

// FullHelp implements help.KeyMap.
func (p *RunPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.c.Keys.Global.Run}} }

// Running reports whether a run is in flight.
func (p *RunPane) Running() bool { return p.running }

// Start marks a run as started; the root issues the command.
func (p *RunPane) Start() { p.running = true }

// Update implements component.
func (p *RunPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case runMsg:
		p.running = false
		p.last = &msg
	case tea.KeyMsg:
		if key.Matches(msg, p.c.Keys.Global.Run) {
			return cmdOf(runRequestMsg{})
		}
	}
	return nil
}

// View implements component.
func (p *RunPane) View() string {
	st := p.c.Styles
	sp := p.c.W.Spec
	if sp == nil {
		return block(wrap("No kernel spec: this file was opened as bare PTX. Open a SPEC.json (orilab tui SPEC.json) to run the kernel on any phase's IR.", p.w), p.w, p.h)
	}
	lines := []string{
		st.Title.Render("spec ") + sp.Name + "  kernel " + sp.Kernel,
		fmt.Sprintf("grid %v block %v", sp.Launch.Grid, sp.Launch.Block),
		st.Dim.Render("r runs it on the IR after the selected phase"),
		"",
	}
	switch {
	case p.running:
		lines = append(lines, "running...")
	case p.last != nil:
		r := p.last
		ph := pipeline.PhaseTable[r.phase]
		lines = append(lines, fmt.Sprintf("after #%d %s:", ph.Index, ph.Name))
		switch {
		case r.err != nil:
			lines = append(lines, st.Error.Render("ERROR"))
			lines = append(lines, wrap(r.err.Error(), p.w)...)
		case r.report.Pass:
			lines = append(lines, st.Pass.Render("PASS")+fmt.Sprintf("  (%d warp-steps)", r.report.Stats.WarpSteps))
		default:
			lines = append(lines, st.Error.Render("FAIL"))
		}
		if r.err == nil && r.report != nil {
			for _, l := range strings.Split(strings.TrimRight(spec.FormatResults(r.report.Results), "\n"), "\n") {
				lines = append(lines, wrap(l, p.w)...)
			}
		}
	default:
		lines = append(lines, st.Dim.Render("not run yet"))
	}
	return block(lines, p.w, p.h)
}
