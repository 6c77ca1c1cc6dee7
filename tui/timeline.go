package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
)

// Timeline markers, one per phase status (the help overlay lists them).
const (
	markChanged   = "●" // ran and changed the IR
	markUnchanged = "○" // ran; the IR hash is the same afterwards
	markNoOp      = "·" // did not run: the status bar says why
	markDisabled  = "✗" // disabled by DisablePhases
	markNotRun    = " " // not in this compilation's plan (NamedPhases)
)

// timelineCols is the width of a timeline row less the phase name: marker,
// gutter, index, instructions, pressure.
const timelineCols = 13

// longestPhaseName is the length of the longest phase name.
func longestPhaseName() int {
	n := 0
	for _, p := range pipeline.PhaseTable {
		n = max(n, len(p.Name))
	}
	return n
}

// Timeline is the list of all 159 phases.
type Timeline struct {
	c         *Common
	w, h      int
	filter    textinput.Model
	filtering bool  // the filter input has focus
	rows      []int // phase indices that pass the filter
	off       int
	// onlyChanged hides the phases that did not change the IR (u).
	onlyChanged bool
}

// NewTimeline returns the timeline pane.
func NewTimeline(c *Common) *Timeline {
	t := &Timeline{c: c, filter: newInput("/")}
	t.applyFilter()
	return t
}

// Title implements component.
func (t *Timeline) Title() string { return "Timeline" }

// SetSize implements component.
func (t *Timeline) SetSize(w, h int) { t.w, t.h = w, h; t.filter.Width = max(w-2, 1) }

// InputFocused implements inputFocused.
func (t *Timeline) InputFocused() bool { return t.filtering }

// ShortHelp implements help.KeyMap.
func (t *Timeline) ShortHelp() []key.Binding {
	if t.filtering {
		return []key.Binding{t.c.Keys.Input.Accept, t.c.Keys.Input.Cancel}
	}
	k := t.c.Keys
	return []key.Binding{k.List.Down, k.Global.NextChanged, k.Global.PrevChanged, k.Timeline.Filter, k.Timeline.OnlyChanged, k.Timeline.Disable, k.Global.ViewMode, k.Global.Run}
}

// FullHelp implements help.KeyMap.
func (t *Timeline) FullHelp() [][]key.Binding {
	k := t.c.Keys
	return [][]key.Binding{k.List.bindings(), {k.Global.NextChanged, k.Global.PrevChanged, k.Timeline.Filter, k.Timeline.Disable}}
}

func (t *Timeline) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(t.filter.Value()))
	t.rows = t.rows[:0]
	for i, p := range pipeline.PhaseTable {
		if t.onlyChanged {
			if s := t.c.W.Snap(i); s == nil || s.Status != pipeline.StatusChanged {
				continue
			}
		}
		if q == "" || strings.Contains(strings.ToLower(p.Name), q) {
			t.rows = append(t.rows, i)
		}
	}
	// Keep the selection on a visible row.
	if len(t.rows) > 0 && t.pos() < 0 {
		t.c.W.Sel = t.rows[0]
	}
}

// pos is the selected phase's row, or -1 when it is filtered out.
func (t *Timeline) pos() int {
	for r, i := range t.rows {
		if i == t.c.W.Sel {
			return r
		}
	}
	return -1
}

// Select moves the selection to phase i, clearing a filter that hides it.
func (t *Timeline) Select(i int) {
	t.c.W.Sel = i
	if t.pos() < 0 {
		t.filter.SetValue("")
		t.onlyChanged = false
		t.applyFilter()
		t.c.W.Sel = i
	}
}

// listHeight is the number of phase rows that fit under the header line.
func (t *Timeline) listHeight() int { return max(t.h-1, 1) }

// Update implements component.
func (t *Timeline) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := t.c.Keys
	if t.onlyChanged {
		t.applyFilter() // a recompile changes which phases changed
	}
	if t.filtering {
		switch {
		case key.Matches(km, k.Input.Accept):
			t.filtering = false
			t.filter.Blur()
			return nil
		case key.Matches(km, k.Input.Cancel):
			t.filtering = false
			t.filter.Blur()
			t.filter.SetValue("")
			t.applyFilter()
			return nil
		}
		var cmd tea.Cmd
		t.filter, cmd = t.filter.Update(msg)
		t.applyFilter()
		return cmd
	}
	switch {
	case key.Matches(km, k.Timeline.Filter):
		t.filtering = true
		return t.filter.Focus()
	case key.Matches(km, k.Timeline.Disable):
		return t.toggleDisabled()
	case key.Matches(km, k.Timeline.OnlyChanged):
		t.onlyChanged = !t.onlyChanged
		t.applyFilter()
		if t.onlyChanged {
			return cmdOf(statusMsg(fmt.Sprintf("showing the %s that changed the IR (u shows all)", plural(len(t.rows), "phase"))))
		}
		return cmdOf(statusMsg("showing all phases"))
	}
	if r, ok := k.List.move(km.String(), max(t.pos(), 0), len(t.rows), t.listHeight()); ok {
		t.c.W.Sel = t.rows[r]
	}
	return nil
}

// toggleDisabled adds the selected phase to DisablePhases or removes it.
func (t *Timeline) toggleDisabled() tea.Cmd {
	w := t.c.W
	p := pipeline.PhaseTable[w.Sel]
	if p.Required {
		return cmdOf(statusMsg(fmt.Sprintf("%s is a required phase and cannot be disabled", p.Name)))
	}
	var names []string
	found := false
	for _, n := range w.DisabledPhases() {
		if strings.EqualFold(n, p.Name) {
			found = true
			continue
		}
		names = append(names, n)
	}
	if !found {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return cmdOf(setKnobMsg{name: knobs.KnobDisablePhases, reset: true})
	}
	return cmdOf(setKnobMsg{name: knobs.KnobDisablePhases, value: strings.Join(names, "+")})
}

func (t *Timeline) marker(s *pipeline.Snapshot) string {
	st := t.c.Styles
	if s == nil {
		return markNotRun
	}
	switch s.Status {
	case pipeline.StatusChanged:
		return st.Changed.Render(markChanged)
	case pipeline.StatusUnchanged:
		return st.Unchanged.Render(markUnchanged)
	case pipeline.StatusNoOp:
		return st.NoOp.Render(markNoOp)
	default:
		return st.Disabled.Render(markDisabled)
	}
}

// View implements component.
func (t *Timeline) View() string {
	w := t.c.W
	if t.onlyChanged {
		t.applyFilter()
	}
	hi := 0
	press := make([]int, len(pipeline.PhaseTable))
	for i := range press {
		press[i] = -1
		if s := w.Snap(i); s != nil {
			press[i] = s.Pressure()
			hi = max(hi, press[i])
		}
	}
	var lines []string
	if t.filtering || t.filter.Value() != "" {
		lines = append(lines, t.filter.View())
	} else if t.onlyChanged {
		lines = append(lines, t.c.Styles.Dim.Render(fit("changed phases only (u)", t.w)))
	} else {
		label := "pressure "
		lines = append(lines, t.c.Styles.Dim.Render(label)+sparkline(press, t.w-len(label)))
	}
	lh := t.listHeight()
	cur := max(t.pos(), 0)
	t.off = scrollTo(t.off, cur, lh)
	nameW := max(t.w-timelineCols, 4)
	for r := t.off; r < len(t.rows) && r < t.off+lh; r++ {
		i := t.rows[r]
		s := w.Snap(i)
		insts, spark := "   -", " "
		gutter := " "
		if s != nil {
			insts = fmt.Sprintf("%4d", s.Insts)
			spark = string(sparkChar(s.Pressure(), hi))
			if len(s.Remarks) > 0 {
				// The gutter, unless the selection takes it: the message
				// line then summarises the remarks.
				gutter = markRemarks
			}
		}
		body := fmt.Sprintf("%3d %s %s %s", i, fit(pipeline.PhaseTable[i].Name, nameW), insts, spark)
		if i == w.Sel {
			gutter = ">"
			body = t.c.Styles.Selected.Render(body)
		}
		lines = append(lines, t.marker(s)+gutter+body)
	}
	if len(t.rows) == 0 {
		lines = append(lines, t.c.Styles.Dim.Render("no phase matches"))
	}
	return block(lines, t.w, t.h)
}
