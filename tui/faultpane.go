package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/faultinject"
	"orilab/pipeline"
)

// FaultPane plants bugspec faults (the format of ptxas's bugspec.txt)
// into the IR after the selected phase and shows what happened: the
// injector's report lines, each corrupted instruction before and after,
// and whether the post-RA reaching-definitions verifier notices. The fault
// stays planted in every recompilation (and every bisection) until it is
// cleared, so the timeline, the IR diff, the run and the bisect panes all
// see the corrupted compiler.
type FaultPane struct {
	c       *Common
	w, h    int
	line    string // the bugspec line
	seed    int64
	editing bool
	input   textinput.Model
	// camp is the campaign running or last run (campaign.go); nil shows
	// the planted fault's report.
	camp *campaignState
}

// NewFaultPane returns the fault pane with one register fault, seed 1.
func NewFaultPane(c *Common) *FaultPane {
	return &FaultPane{c: c, line: "1,0,0,0 0 0", seed: 1, input: newInput("bugspec> ")}
}

// Title implements component.
func (p *FaultPane) Title() string { return "Fault" }

// SetSize implements component.
func (p *FaultPane) SetSize(w, h int) { p.w, p.h = w, h; p.input.Width = max(w-10, 1) }

// InputFocused implements inputFocused.
func (p *FaultPane) InputFocused() bool { return p.editing }

// ShortHelp implements help.KeyMap.
func (p *FaultPane) ShortHelp() []key.Binding {
	f := p.c.Keys.Fault
	if p.camp != nil && p.camp.running {
		return []key.Binding{f.Cancel}
	}
	return []key.Binding{f.Inject, f.Campaign, f.Edit, f.Reseed, f.Clear}
}

// FullHelp implements help.KeyMap.
func (p *FaultPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// plantMsg asks the root to plant (or, with nil, clear) a fault and
// recompile.
type plantMsg struct{ plant *Plant }

// Update implements component.
func (p *FaultPane) Update(msg tea.Msg) tea.Cmd {
	if pm, ok := msg.(campaignProgressMsg); ok {
		if p.camp != nil {
			p.camp.done, p.camp.total = pm.done, pm.total
		}
		return nil
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if p.editing {
		switch {
		case key.Matches(k, p.c.Keys.Input.Accept):
			p.editing = false
			p.input.Blur()
			if _, err := faultinject.ParseSpec(p.input.Value()); err != nil {
				return cmdOf(statusMsg(err.Error()))
			}
			p.line = p.input.Value()
			return cmdOf(statusMsg("bugspec " + p.line + "; press i to inject"))
		case key.Matches(k, p.c.Keys.Input.Cancel):
			p.editing = false
			p.input.Blur()
			return nil
		}
		var cmd tea.Cmd
		p.input, cmd = p.input.Update(msg)
		return cmd
	}
	f := p.c.Keys.Fault
	switch {
	case key.Matches(k, f.Edit):
		p.editing = true
		p.input.SetValue(p.line)
		p.input.CursorEnd()
		return p.input.Focus()
	case key.Matches(k, f.Cancel):
		if p.camp == nil || !p.camp.running || p.camp.cancel == nil {
			return cmdOf(statusMsg("no campaign to cancel"))
		}
		p.camp.cancel()
		return cmdOf(statusMsg("cancelling the campaign..."))
	case p.camp != nil && p.camp.running:
		return cmdOf(statusMsg("a campaign is running: c cancels it"))
	case key.Matches(k, f.Campaign):
		return p.campaign(p.c.W.Sel)
	case key.Matches(k, f.Inject):
		p.camp = nil
		return p.inject(p.c.W.Sel)
	case key.Matches(k, f.Reseed):
		p.seed++
		if pl := p.c.W.Plant; pl != nil {
			return p.inject(pipelineIndex(pl.At))
		}
		return cmdOf(statusMsg(fmt.Sprintf("seed %d; press i to inject", p.seed)))
	case key.Matches(k, f.Clear):
		if p.c.W.Plant == nil {
			return cmdOf(statusMsg("no fault is planted"))
		}
		return cmdOf(plantMsg{})
	}
	return nil
}

func pipelineIndex(name string) int {
	i, _ := pipeline.LookupPhase(name)
	return i
}

// inject plants the current bugspec after phase i.
func (p *FaultPane) inject(i int) tea.Cmd {
	ra, _ := pipeline.LookupPhase("AllocateRegisters")
	if i < ra {
		return cmdOf(statusMsg(fmt.Sprintf("select #%d AllocateRegisters or a later phase: bugspec faults corrupt post-allocation code", ra)))
	}
	sp, err := faultinject.ParseSpec(p.line)
	if err != nil {
		return cmdOf(statusMsg(err.Error()))
	}
	return cmdOf(plantMsg{plant: &Plant{Spec: sp, Seed: p.seed, At: pipeline.PhaseTable[i].Name}})
}

// campaign asks for a campaign of the current bugspec after phase i.
func (p *FaultPane) campaign(i int) tea.Cmd {
	ra, _ := pipeline.LookupPhase("AllocateRegisters")
	if i < ra {
		return cmdOf(statusMsg(fmt.Sprintf("select #%d AllocateRegisters or a later phase: bugspec faults corrupt post-allocation code", ra)))
	}
	sp, err := faultinject.ParseSpec(p.line)
	if err != nil {
		return cmdOf(statusMsg(err.Error()))
	}
	return cmdOf(campaignRequestMsg{spec: sp, seed: p.seed, at: i})
}

// View implements component.
func (p *FaultPane) View() string {
	st := p.c.Styles
	w := p.c.W
	pl := w.Plant
	// The header names what the report below describes: the planted
	// bugspec; an edited line or seed not planted yet shows under it.
	head, seed := p.line, p.seed
	if pl != nil {
		head, seed = pl.Spec.String(), pl.Seed
	}
	lines := []string{st.Title.Render("bugspec ") + head + fmt.Sprintf("   seed %d", seed)}
	if p.editing {
		lines = append(lines, p.input.View())
	} else if pl != nil && (p.line != head || p.seed != seed) {
		lines = append(lines, fmt.Sprintf("next: %s   seed %d (i plants it)", p.line, p.seed))
	}
	lines = append(lines, st.Dim.Render("fields: register, predicate, offset/spill, remat, R2P/P2R, bit-spill"))
	lines = append(lines, "")
	if p.camp != nil {
		return block(append(lines, p.campaignLines()...), p.w, p.h)
	}
	switch {
	case pl == nil:
		lines = append(lines, wrap(fmt.Sprintf("No fault planted. Select AllocateRegisters or a later phase in the timeline, then press i to corrupt the IR after it, or C to run a campaign of %d trials; e edits the bugspec line, s picks the next seed.", campaignTrials), p.w)...)
	case w.Compiling:
		lines = append(lines, fmt.Sprintf("planting after %s (seed %d)...", pl.At, pl.Seed))
	case w.Planted == nil || w.Planted.Report == nil:
		why := "the compilation did not reach it"
		if sn := w.Snap(pipelineIndex(pl.At)); sn != nil && sn.Status == pipeline.StatusDisabled {
			why = "the phase is disabled (DisablePhases), so nothing was injected"
		}
		lines = append(lines, wrap(fmt.Sprintf("planted after %s, seed %d: %s", pl.At, pl.Seed, why), p.w)...)
		if w.Err != "" {
			lines = append(lines, wrap(w.Err, p.w)...)
		}
	default:
		lines = append(lines, fmt.Sprintf("planted after #%d %s, seed %d", pipelineIndex(pl.At), pl.At, pl.Seed))
		rep := w.Planted.Report
		for _, l := range append(rep.Lines(), rep.Notes()...) {
			lines = append(lines, wrap(l, p.w)...)
		}
		for _, f := range rep.Faults {
			lines = append(lines, "")
			lines = append(lines, wrap(fmt.Sprintf("%s #%d before: %s", f.Func, f.Inst, f.Before), p.w)...)
			lines = append(lines, wrap(fmt.Sprintf("%s #%d after:  %s", f.Func, f.Inst, f.After), p.w)...)
		}
		lines = append(lines, "")
		if v := w.Planted.Verdict; v != "" {
			lines = append(lines, st.Pass.Render(fmt.Sprintf("caught by the %s verifier:", w.Planted.Verifier)))
			lines = append(lines, wrap(v, p.w)...)
		} else if len(rep.Faults) > 0 {
			lines = append(lines, st.Error.Render("the post-RA verifiers accept it: ")+"r runs the kernel, 6 b bisects")
		}
		lines = append(lines, st.Dim.Render("x removes the fault; s tries the next seed"))
	}
	return block(lines, p.w, p.h)
}
