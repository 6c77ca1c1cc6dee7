package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline/knobs"
)

// KnobsPane lists every registered knob and edits overrides.
type KnobsPane struct {
	c         *Common
	w, h      int
	all       []knobs.Knob
	rows      []int // indices into all that pass the search
	cur, off  int
	search    textinput.Model
	searching bool
	edit      textinput.Model
	editing   bool
	editErr   string // the exact Workbench.CheckKnob error of the edited text
	// fresh is set while the edit field holds the value it opened with:
	// the first character typed replaces it, as in a selected field.
	fresh bool
}

// NewKnobsPane returns the knob pane over knobs.Default.
func NewKnobsPane(c *Common) *KnobsPane {
	p := &KnobsPane{c: c, all: knobs.Default.All(), search: newInput("/"), edit: newInput("= ")}
	p.applySearch()
	return p
}

// Title implements component.
func (p *KnobsPane) Title() string { return "Knobs" }

// SetSize implements component.
func (p *KnobsPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.search.Width = max(w-2, 1)
	p.edit.Width = max(w-3, 1)
}

// InputFocused implements inputFocused.
func (p *KnobsPane) InputFocused() bool { return p.searching || p.editing }

// ShortHelp implements help.KeyMap.
func (p *KnobsPane) ShortHelp() []key.Binding {
	k := p.c.Keys
	if p.InputFocused() {
		return []key.Binding{k.Input.Accept, k.Input.Cancel}
	}
	return []key.Binding{k.List.Down, k.Knobs.Filter, k.Knobs.Edit, k.Knobs.Reset}
}

// FullHelp implements help.KeyMap.
func (p *KnobsPane) FullHelp() [][]key.Binding {
	k := p.c.Keys
	return [][]key.Binding{{k.Knobs.Filter, k.Knobs.Edit, k.Knobs.Reset, k.Input.Accept, k.Input.Cancel}}
}

func (p *KnobsPane) applySearch() {
	q := strings.ToLower(strings.TrimSpace(p.search.Value()))
	p.rows = p.rows[:0]
	for i, k := range p.all {
		if q == "" || strings.Contains(strings.ToLower(k.Name), q) || strings.Contains(strings.ToLower(k.Doc), q) {
			p.rows = append(p.rows, i)
		}
	}
	p.cur = min(p.cur, max(len(p.rows)-1, 0))
}

func (p *KnobsPane) selected() (knobs.Knob, bool) {
	if p.cur >= len(p.rows) {
		return knobs.Knob{}, false
	}
	return p.all[p.rows[p.cur]], true
}

// SelectKnob moves the cursor to the knob called name.
func (p *KnobsPane) SelectKnob(name string) {
	p.search.SetValue("")
	p.applySearch()
	for r, i := range p.rows {
		if strings.EqualFold(p.all[i].Name, name) {
			p.cur = r
		}
	}
}

func defaultText(k knobs.Knob) string {
	if v, ok := knobs.Default.DefaultValue(k.Name); ok {
		return v.String()
	}
	return "(unset)"
}

// current returns the knob's value text and whether it is overridden.
func (p *KnobsPane) current(k knobs.Knob) (string, bool) {
	if v, ok := p.c.W.Knobs[k.Name]; ok {
		return v, true
	}
	return defaultText(k), false
}

// Update implements component.
func (p *KnobsPane) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := p.c.Keys
	switch {
	case p.searching:
		switch {
		case key.Matches(km, k.Input.Accept):
			p.searching = false
			p.search.Blur()
			return nil
		case key.Matches(km, k.Input.Cancel):
			p.searching = false
			p.search.Blur()
			p.search.SetValue("")
			p.applySearch()
			return nil
		}
		var cmd tea.Cmd
		p.search, cmd = p.search.Update(msg)
		p.applySearch()
		return cmd
	case p.editing:
		switch {
		case key.Matches(km, k.Input.Accept):
			return p.commit()
		case key.Matches(km, k.Input.Cancel):
			p.editing, p.editErr = false, ""
			p.edit.Blur()
			return nil
		}
		if p.fresh && km.Type == tea.KeyRunes && !km.Paste {
			p.edit.SetValue("")
		}
		p.fresh = false
		var cmd tea.Cmd
		p.edit, cmd = p.edit.Update(msg)
		// Checked as it is typed: the error shows before enter.
		p.editErr = ""
		if kn, ok := p.selected(); ok && p.edit.Value() != "" {
			if err := p.c.W.CheckKnob(kn.Name, p.edit.Value(), false); err != nil {
				p.editErr = err.Error()
			}
		}
		return cmd
	}
	switch {
	case key.Matches(km, k.Knobs.Filter):
		p.searching = true
		return p.search.Focus()
	case key.Matches(km, k.Knobs.Edit):
		kn, ok := p.selected()
		if !ok {
			return nil
		}
		if kn.Type == knobs.TypeBool {
			cur, _ := p.current(kn)
			v, err := knobs.ParseValue(knobs.TypeBool, cur)
			next := "1"
			if err == nil && v.Bool() {
				next = "0"
			}
			return cmdOf(setKnobMsg{name: kn.Name, value: next})
		}
		cur, over := p.current(kn)
		if !over {
			cur = ""
			if v, ok := knobs.Default.DefaultValue(kn.Name); ok {
				cur = v.String()
			}
		}
		p.editing, p.editErr, p.fresh = true, "", true
		p.edit.SetValue(cur)
		p.edit.CursorEnd()
		return p.edit.Focus()
	case key.Matches(km, k.Knobs.Reset):
		if kn, ok := p.selected(); ok {
			return cmdOf(setKnobMsg{name: kn.Name, reset: true})
		}
		return nil
	}
	if c, ok := k.List.move(km.String(), p.cur, len(p.rows), p.listHeight()); ok {
		p.cur = c
	}
	return nil
}

// commit validates the edited value with knobs.ParseValue and the knob's
// own check; on success it asks the root to set it and recompile.
func (p *KnobsPane) commit() tea.Cmd {
	kn, ok := p.selected()
	if !ok {
		return nil
	}
	text := p.edit.Value()
	reset := strings.TrimSpace(text) == "" && kn.Type == knobs.TypeString
	if err := p.c.W.CheckKnob(kn.Name, text, reset); err != nil {
		p.editErr = err.Error()
		return nil
	}
	p.editing, p.editErr = false, ""
	p.edit.Blur()
	if reset {
		return cmdOf(setKnobMsg{name: kn.Name, reset: true})
	}
	return cmdOf(setKnobMsg{name: kn.Name, value: text})
}

// longestName is the length of the longest knob name.
func (p *KnobsPane) longestName() int {
	n := 0
	for _, k := range p.all {
		n = max(n, len(k.Name))
	}
	return n
}

// detailLines is the number of lines under the list for the selected
// knob's details.
const detailLines = 6

func (p *KnobsPane) listHeight() int { return max(p.h-1-detailLines, 1) }

// View implements component.
func (p *KnobsPane) View() string {
	st := p.c.Styles
	var lines []string
	if p.searching || p.search.Value() != "" {
		lines = append(lines, p.search.View())
	} else {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("%d knobs; * = overridden", len(p.all))))
	}
	lh := p.listHeight()
	p.off = scrollTo(p.off, p.cur, lh)
	nameW := min(max(p.w/2, 8), p.longestName())
	list := 0
	for r := p.off; r < len(p.rows) && r < p.off+lh; r++ {
		kn := p.all[p.rows[r]]
		cur, over := p.current(kn)
		mark := " "
		if over {
			mark = "*"
		}
		gutter := " "
		if r == p.cur {
			gutter = ">"
		}
		row := fit(fmt.Sprintf("%s%s%s %-6s %s", gutter, mark, fit(kn.Name, nameW), kn.Type, cur), p.w)
		if r == p.cur {
			row = st.Selected.Render(row)
		}
		lines = append(lines, row)
		list++
	}
	if len(p.rows) == 0 {
		lines = append(lines, st.Dim.Render("no knob matches"))
		list++
	}
	for ; list < lh; list++ {
		lines = append(lines, "")
	}
	if kn, ok := p.selected(); ok {
		cur, _ := p.current(kn)
		detail := []string{st.Title.Render(kn.Name) + fmt.Sprintf("  %s  default %s  now %s", kn.Type, defaultText(kn), cur)}
		if p.editing {
			detail = append(detail, p.edit.View())
			if p.editErr != "" {
				detail = append(detail, st.Error.Render("error: "+p.editErr))
			}
		}
		detail = append(detail, wrap(kn.Doc, p.w)...)
		detail = append(detail, st.Dim.Render("read by: "+strings.Join(kn.Readers, ", ")))
		lines = append(lines, detail[:min(len(detail), detailLines)]...)
	}
	return block(lines, p.w, p.h)
}
