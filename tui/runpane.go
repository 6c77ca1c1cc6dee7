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

// aroundRadius is how many elements on each side of the first mismatch
// the pane shows.
const aroundRadius = 3

// aroundLines shows, for each buffer that failed, the elements around
// its first mismatch, got against want, the differing ones marked: a
// result off by one place reads as such.
func (p *RunPane) aroundLines(r *runMsg) []string {
	sp := p.c.W.Spec
	var lines []string
	for k, res := range r.report.Results {
		if res.Pass || len(res.First) == 0 || k >= len(sp.Expect) {
			continue
		}
		e := sp.Expect[k]
		o := sp.Owner(e.ParamIndex)
		if o < 0 || o >= len(r.buffers) {
			continue
		}
		els := e.Around(r.buffers[o], res.First[0].Index, aroundRadius)
		if len(els) == 0 {
			continue
		}
		lines = append(lines, "", fmt.Sprintf("%s around [%d], got vs want:", res.Param, res.First[0].Index))
		for _, el := range els {
			mark := "  "
			switch {
			case el.Ignored:
				mark = "~ "
			case !el.Match:
				mark = "≠ "
			}
			line := fmt.Sprintf("%s[%d] got %-12s want %s", mark, el.Index, el.Got, el.Want)
			if !el.Match && !el.Ignored {
				line = p.c.Styles.Error.Render(line)
			}
			lines = append(lines, line)
		}
	}
	return lines
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
			lines = append(lines, p.aroundLines(r)...)
		}
	default:
		lines = append(lines, st.Dim.Render("not run yet"))
	}
	return block(lines, p.w, p.h)
}
