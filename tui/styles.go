package tui

import "github.com/charmbracelet/lipgloss"

// Styles holds every lipgloss style of the workbench. Colours degrade with
// the terminal's profile: NO_COLOR or a dumb terminal gets plain text
// (lipgloss decides through termenv), and tests force the ASCII profile.
type Styles struct {
	Tab, ActiveTab       lipgloss.Style
	Pane, FocusedPane    lipgloss.Style // pane borders; frame sizes are measured from them
	Title                lipgloss.Style
	Selected             lipgloss.Style // the selected row of a list
	Changed, Unchanged   lipgloss.Style // timeline markers
	NoOp, Disabled       lipgloss.Style
	Added, Removed, Same lipgloss.Style // diff lines
	Follow               lipgloss.Style // lines holding the followed token
	Cursor               lipgloss.Style // the IR pane's cursor line
	Status               lipgloss.Style
	Error, Pass, Dim     lipgloss.Style
	Help                 lipgloss.Style
}

// DefaultStyles returns the workbench's styles.
func DefaultStyles() Styles {
	border := lipgloss.NormalBorder()
	return Styles{
		Tab:         lipgloss.NewStyle().Foreground(lipgloss.Color("245")),
		ActiveTab:   lipgloss.NewStyle().Bold(true).Reverse(true),
		Pane:        lipgloss.NewStyle().Border(border).BorderForeground(lipgloss.Color("240")),
		FocusedPane: lipgloss.NewStyle().Border(border).BorderForeground(lipgloss.Color("63")),
		Title:       lipgloss.NewStyle().Bold(true),
		Selected:    lipgloss.NewStyle().Reverse(true),
		Changed:     lipgloss.NewStyle().Foreground(lipgloss.Color("214")).Bold(true),
		Unchanged:   lipgloss.NewStyle().Foreground(lipgloss.Color("70")),
		NoOp:        lipgloss.NewStyle().Foreground(lipgloss.Color("243")),
		Disabled:    lipgloss.NewStyle().Foreground(lipgloss.Color("160")),
		Added:       lipgloss.NewStyle().Foreground(lipgloss.Color("34")),
		Removed:     lipgloss.NewStyle().Foreground(lipgloss.Color("160")),
		Same:        lipgloss.NewStyle(),
		Follow:      lipgloss.NewStyle().Background(lipgloss.Color("58")).Bold(true),
		Cursor:      lipgloss.NewStyle().Underline(true),
		Status:      lipgloss.NewStyle().Reverse(true),
		Error:       lipgloss.NewStyle().Foreground(lipgloss.Color("196")).Bold(true),
		Pass:        lipgloss.NewStyle().Foreground(lipgloss.Color("34")).Bold(true),
		Dim:         lipgloss.NewStyle().Foreground(lipgloss.Color("243")),
		Help:        lipgloss.NewStyle().Padding(0, 1),
	}
}
