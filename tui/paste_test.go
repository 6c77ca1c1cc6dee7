package tui

import (
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestInputPastesFromClipboard: ctrl+v in a text field of the workbench
// inserts the clipboard's text, read by the clipboard helper: xclip
// here, a script on a $PATH set after start-up, which
// third_party/clipboard finds because it looks the helper up on first
// use (atotto/clipboard's own lookup at initialization missed it).
func TestInputPastesFromClipboard(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\n[ \"$1\" = -out ] && printf 'RegAllocWordRanges'\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	in := newInput("knob: ")
	in.Focus()
	in, cmd := in.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	if cmd == nil {
		t.Fatal("ctrl+v gave no command")
	}
	in, _ = in.Update(cmd())
	if got, want := in.Value(), "RegAllocWordRanges"; got != want {
		t.Errorf("after ctrl+v the field holds %q; want %q", got, want)
	}
}
