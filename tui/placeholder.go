package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Placeholder is a pane for a capability that has not landed. It says so
// and shows nothing made up.
type Placeholder struct {
	c     *Common
	w, h  int
	title string
	text  string
}

// NewPlaceholder returns a placeholder pane.
func NewPlaceholder(c *Common, title, text string) *Placeholder {
	return &Placeholder{c: c, title: title, text: text}
}

// Title implements component.
func (p *Placeholder) Title() string { return p.title }

// SetSize implements component.
func (p *Placeholder) SetSize(w, h int) { p.w, p.h = w, h }

// ShortHelp implements help.KeyMap.
func (p *Placeholder) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (p *Placeholder) FullHelp() [][]key.Binding { return nil }

// Update implements component.
func (p *Placeholder) Update(tea.Msg) tea.Cmd { return nil }

// View implements component.
func (p *Placeholder) View() string {
	return block(wrap(p.text, p.w), p.w, p.h)
}

// The placeholder texts.
const (
	sassText  = "SASS emission has not landed yet: orilab has no register allocator, scheduler or SASS printer so far, so there is no SASS to show. The IR pane shows the Ori IR after every phase."
	faultText = "Fault injection has not landed yet: bugspec faults target post-register-allocation code, and register allocation has not been built."
)
