package tui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// updateGolden reports whether -update was given. teatest's golden
// package registers the -update flag; this file shares it.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestMain(m *testing.M) {
	// Plain text, whatever the terminal running the tests supports.
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// sampleModel returns the workbench on the built-in sample, compiled
// synchronously, at width x height.
// sampleModel opens the sample at -O0: the goldens and unit tests pin the
// level at which no optimizer pass runs, so they do not change every time
// a pass improves (TestOptimizerChangesShowInTimeline covers -O3).
func sampleModel(t testing.TB, width, height int) *Model {
	t.Helper()
	return sampleModelAt(t, width, height, 0)
}

func sampleModelAt(t testing.TB, width, height, optLevel int) *Model {
	t.Helper()
	w, cleanup, err := LoadSample(optLevel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	m := New(w)
	send(m, tea.WindowSizeMsg{Width: width, Height: height})
	m.Init() // marks the compilation in flight, like the real program
	send(m, compileNow(w))
	return m
}

// compileNow runs a compilation of w synchronously and returns its result
// message.
func compileNow(w *Workbench) compiledMsg {
	req, err := w.Request()
	if err != nil {
		return compiledMsg{gen: w.Gen, err: err}
	}
	lowered, snaps, planted, err := compile(context.Background(), w.PTX, req)
	return compiledMsg{gen: w.Gen, lowered: lowered, snaps: snaps, planted: planted, err: err}
}

// send delivers msg and then, synchronously, every message the returned
// commands produce, except compiles, runs and timer ticks, which tests
// drive themselves.
func send(m *Model, msg tea.Msg) {
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg, queue = queue[0], queue[1:]
		_, cmd := m.Update(msg)
		queue = append(queue, drain(cmd)...)
	}
}

func drain(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, drain(c)...)
		}
		return out
	case compiledMsg, runMsg, nil:
		return nil
	default:
		if _, ok := msg.(tea.QuitMsg); ok {
			return nil
		}
		if isTick(msg) {
			return nil
		}
		return []tea.Msg{msg}
	}
}

func isTick(msg tea.Msg) bool {
	name := strings.ToLower(strings.TrimPrefix(typeName(msg), "*"))
	return strings.Contains(name, "tick") || strings.Contains(name, "blink")
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func typeKeys(m *Model, keys ...string) {
	for _, k := range keys {
		send(m, keyMsg(k))
	}
}

// golden compares got with testdata/NAME.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updateGolden() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./tui -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
