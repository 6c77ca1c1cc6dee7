package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
)

// SASSPane shows the SASS text (nvdisasm syntax, control words in the
// trailing comment) of the IR after the selected phase. SASS exists only
// once registers are physical, from AllocateRegisters on; before that the
// pane says where to go instead of showing something made up.
type SASSPane struct {
	c    *Common
	w, h int
	top  int // first line shown
	left int // first column shown (left and right scroll)
	// The rendering is cached per module: stepping through phases that
	// did not change the IR reuses it.
	shown *ori.Module
	lines []string
	err   string
}

// NewSASSPane returns the SASS pane.
func NewSASSPane(c *Common) *SASSPane { return &SASSPane{c: c} }

// Title implements component.
func (p *SASSPane) Title() string { return "SASS" }

// SetSize implements component.
func (p *SASSPane) SetSize(w, h int) { p.w, p.h = w, h }

// ShortHelp implements help.KeyMap.
func (p *SASSPane) ShortHelp() []key.Binding {
	l := p.c.Keys.List
	return []key.Binding{l.Down, l.PageDown, l.Right, l.Left, l.Bottom}
}

// FullHelp implements help.KeyMap.
func (p *SASSPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.c.Keys.List.bindings()} }

// module returns the IR after the selected phase (the lowered IR before
// the first snapshot).
func (p *SASSPane) module() *ori.Module {
	w := p.c.W
	if s := w.Snap(w.Sel); s != nil {
		return s.Module
	}
	return w.Before(w.Sel)
}

// sync renders the selected phase's SASS when it changed.
func (p *SASSPane) sync() {
	m := p.module()
	if m == p.shown {
		return
	}
	p.shown, p.lines, p.err, p.top = m, nil, "", 0
	if m == nil {
		return
	}
	if hasVirtual(m) {
		ra, _ := pipeline.LookupPhase("AllocateRegisters")
		p.err = fmt.Sprintf("No SASS after #%d %s: the IR still has virtual registers. SASS exists from #%d AllocateRegisters on (select it in the timeline, or press G for the last phase); the IR pane shows the Ori IR of every phase.", p.c.W.Sel, pipeline.PhaseTable[p.c.W.Sel].Name, ra)
		return
	}
	text, err := sass.Text(m, 0)
	if err != nil {
		p.err = "No SASS: " + err.Error()
		return
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		p.lines = append(p.lines, compactSASS(expandTabs(l)))
	}
}

// compactSASS squeezes the column padding of an nvdisasm-style line (the
// address, the guard and the control-word comment are aligned with runs
// of spaces meant for a 160-column listing) down to two spaces, so that a
// pane half a terminal wide still shows the instruction.
func compactSASS(l string) string {
	l = strings.TrimLeft(l, " ")
	var b strings.Builder
	spaces := 0
	for _, r := range l {
		if r == ' ' {
			spaces++
			continue
		}
		if spaces > 0 {
			b.WriteString(strings.Repeat(" ", min(spaces, 2)))
			spaces = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hasVirtual reports whether any instruction of m reads or writes a
// virtual register.
func hasVirtual(m *ori.Module) bool {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Guard.Virtual {
					return true
				}
				for _, ops := range [][]ori.Operand{in.Dsts, in.Srcs} {
					for _, o := range ops {
						if o.Reg.Virtual && (o.Kind == ori.OpdReg || o.HasBase) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// Update implements component: the list keys scroll.
func (p *SASSPane) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	p.sync()
	if left, ok := p.c.Keys.List.hscroll(k.String(), p.left); ok {
		p.left = left
		return nil
	}
	body := max(p.h-1, 1)
	if top, ok := p.c.Keys.List.move(k.String(), p.top, max(len(p.lines)-body+1, 1), body); ok {
		p.top = top
	}
	return nil
}

// View implements component.
func (p *SASSPane) View() string {
	p.sync()
	st := p.c.Styles
	w := p.c.W
	head := st.Title.Render(fmt.Sprintf("#%d %s", w.Sel, pipeline.PhaseTable[w.Sel].Name)) + st.Dim.Render("  SASS, control word as /* [B<waits>:R<rd>:W<wr>:<yield>:S<stall>] */")
	if p.err != "" {
		return block(append([]string{fit(head, p.w)}, wrap(p.err, p.w)...), p.w, p.h)
	}
	out := []string{fit(head, p.w)}
	for i := p.top; i < len(p.lines) && len(out) < p.h; i++ {
		out = append(out, fit(shift(p.lines[i], p.left), p.w))
	}
	return block(out, p.w, p.h)
}
