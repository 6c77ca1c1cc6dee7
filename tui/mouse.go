package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"orilab/pipeline"
)

// The mouse (bubbletea's cell-motion mode; orilab tui -mouse=false turns
// it off): a left click on a tab goes to that pane, on a timeline row
// selects that phase, and on an IR row puts the cursor there; the wheel
// moves the timeline's selection or scrolls the pane under the pointer,
// three rows a notch. Positions are worked out from the same layout that
// View draws: one tab line, then the panes' borders.

// wheelRows is how far one notch of the wheel moves.
const wheelRows = 3

// mouse handles a mouse message.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.showHelp {
		return nil
	}
	if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft {
		return m.click(msg.X, msg.Y)
	}
	if msg.Action != tea.MouseActionPress || (msg.Button != tea.MouseButtonWheelUp && msg.Button != tea.MouseButtonWheelDown) {
		return nil
	}
	k := "down"
	if msg.Button == tea.MouseButtonWheelUp {
		k = "up"
	}
	pane := m.right
	if msg.X < m.timelineWidth() {
		pane = paneTimeline
	}
	if f, ok := m.panes[pane].(inputFocused); ok && f.InputFocused() {
		return nil
	}
	m.status = ""
	var cmds []tea.Cmd
	for range wheelRows {
		cmds = append(cmds, m.panes[pane].Update(tea.KeyMsg{Type: keyType(k)}))
	}
	return tea.Batch(cmds...)
}

func keyType(k string) tea.KeyType {
	if k == "up" {
		return tea.KeyUp
	}
	return tea.KeyDown
}

// click acts on a left click at column x, row y of the screen.
func (m *Model) click(x, y int) tea.Cmd {
	if y == 0 {
		return m.clickTab(x)
	}
	_, top := m.c.Styles.Pane.GetFrameSize()
	top /= 2 // the border above the content
	row := y - 1 - top
	lw := m.timelineWidth()
	if row < 0 {
		return nil
	}
	if x < lw {
		// The timeline's first line is the pressure sparkline (or the
		// filter); the phases start below it.
		t := m.timeline
		r := t.off + row - 1
		if row == 0 || r >= len(t.rows) || r < 0 {
			return nil
		}
		t.c.W.Sel = t.rows[r]
		m.setFocus(paneTimeline)
		m.status = fmt.Sprintf("#%d %s", t.rows[r], pipeline.PhaseTable[t.rows[r]].Name)
		return nil
	}
	if m.right != paneIR {
		m.setFocus(m.right)
		return nil
	}
	v := m.ir
	if v.picking || v.remarking || v.searching {
		m.setFocus(paneIR)
		return nil
	}
	r := v.off + row - 1 // below the IR header
	m.setFocus(paneIR)
	if row == 0 || r < 0 || r >= len(v.rows) {
		return nil
	}
	v.cur = r
	return nil
}

// clickTab goes to the pane whose tab is at column x.
func (m *Model) clickTab(x int) tea.Cmd {
	st := m.c.Styles
	at := 0
	for i, p := range m.panes {
		// The tabs are drawn with the same padding whatever their state.
		w := lipgloss.Width(st.Tab.Render(fmt.Sprintf(" %d %s ", i+1, p.Title())))
		if x >= at && x < at+w {
			m.setFocus(i)
			return nil
		}
		at += w
	}
	return nil
}
