package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Common is what every pane shares: styles, key bindings and the
// compilation. The root model owns it.
type Common struct {
	Styles Styles
	Keys   KeyMap
	W      *Workbench
}

// component is one pane. Update mutates the pane (they are pointers) and
// returns a command; View renders exactly SetSize's width and height.
type component interface {
	help.KeyMap
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	// Title names the pane in its border and the tab bar.
	Title() string
}

// inputFocused is implemented by panes that can hold a focused text input;
// the root routes keys to them first while it is focused.
type inputFocused interface {
	InputFocused() bool
}

// Messages between panes and the root.
type (
	// setKnobMsg asks the root to set (or, with reset, drop) a knob
	// override and recompile.
	setKnobMsg struct {
		name, value string
		reset       bool
	}
	// statusMsg puts a line in the status bar.
	statusMsg string
	// runRequestMsg asks the root to run the spec on the selected phase.
	runRequestMsg struct{}
)

func cmdOf(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func newInput(prompt string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Cursor.SetMode(cursor.CursorStatic)
	return ti
}

// fit truncates or pads s (which may hold ANSI styling) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - lipgloss.Width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// shift drops the first off cells of s (which may hold ANSI styling):
// the horizontal scroll of a text pane.
func shift(s string, off int) string {
	if off <= 0 {
		return s
	}
	return ansi.Cut(s, off, lipgloss.Width(s))
}

// block fills lines to exactly h lines of w cells.
func block(lines []string, w, h int) string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return strings.Join(out, "\n")
}

// wrap breaks text into lines of at most w cells, at spaces.
func wrap(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case lipgloss.Width(line)+1+lipgloss.Width(word) <= w:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
			for lipgloss.Width(line) > w {
				out = append(out, line[:w])
				line = line[w:]
			}
		}
		out = append(out, line)
	}
	return out
}

// scrollTo returns the list offset that keeps cur visible in a window of h
// rows.
func scrollTo(off, cur, h int) int {
	if h <= 0 {
		return cur
	}
	if cur < off {
		off = cur
	}
	if cur >= off+h {
		off = cur - h + 1
	}
	return max(off, 0)
}
