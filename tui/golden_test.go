package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestGolden compares whole screens at 80x24 (and one larger size) with
// testdata/*.golden; go test ./tui -run TestGolden -update rewrites them.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, m *Model)
	}{
		{"initial", func(*testing.T, *Model) {}},
		{"noop_phase", func(_ *testing.T, m *Model) { typeKeys(m, "down") }},
		{"diff", func(t *testing.T, m *Model) { withChange(t, m); typeKeys(m, "n", "v", "2") }},
		{"side_by_side", func(t *testing.T, m *Model) { withChange(t, m); typeKeys(m, "n", "v", "v", "2", "]") }},
		{"filter", func(_ *testing.T, m *Model) { typeKeys(m, "/", "o", "r", "i", "s") }},
		{"disabled", func(_ *testing.T, m *Model) {
			typeKeys(m, "down", "down", "d")
			send(m, compileNow(m.c.W))
		}},
		{"help", func(_ *testing.T, m *Model) { typeKeys(m, "?") }},
		{"knobs", func(_ *testing.T, m *Model) { typeKeys(m, "4") }},
		{"knob_error", func(_ *testing.T, m *Model) {
			typeKeys(m, "4", "enter", "+", "enter")
		}},
		{"run_pass", func(t *testing.T, m *Model) {
			_, cmd := m.Update(keyMsg("r"))
			send(m, runNow(t, cmd))
		}},
		{"sass", func(_ *testing.T, m *Model) { typeKeys(m, "3") }},
		{"sass_final", func(_ *testing.T, m *Model) { typeKeys(m, "G", "3") }},
		{"fault_injected", func(t *testing.T, m *Model) {
			typeKeys(m, "7")
			selectPhase(t, m, "AllocateRegisters")
			typeKeys(m, "i")
			send(m, compileNow(m.c.W))
		}},
		{"large_120x40", func(_ *testing.T, m *Model) {
			send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
			typeKeys(m, "v")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := sampleModel(t, 80, 24)
			tc.setup(t, m)
			golden(t, tc.name, m.View()+"\n")
		})
	}
}
