package tui

import (
	"strconv"
	"strings"
	"testing"
)

func TestIRSearch(t *testing.T) {
	m := sampleModel(t, 100, 30)
	typeKeys(m, "2", "/")
	if !m.ir.InputFocused() {
		t.Fatal("/ in the IR pane did not open the search input")
	}
	// While the input has focus, letters go to it, not to the panes.
	typeKeys(m, "b", "a", "r", ".", "s", "y", "n", "c", "enter")
	if m.ir.InputFocused() || m.ir.query != "bar.sync" {
		t.Fatalf("after enter: focused %v, query %q", m.ir.InputFocused(), m.ir.query)
	}
	rows := m.ir.texts()
	n := 0
	for _, r := range rows {
		if strings.Contains(strings.ToLower(r), "bar.sync") {
			n++
		}
	}
	if n < 2 {
		t.Fatalf("the sample has %d BAR.SYNC lines; the test wants at least 2", n)
	}
	first := m.ir.cur
	if !strings.Contains(rows[first], "BAR.SYNC") {
		t.Fatalf("cursor on %q, want a BAR.SYNC line", rows[first])
	}
	v := m.View()
	if !strings.Contains(v, `"bar.sync": `+strconv.Itoa(n)+` matching lines (> next, < previous)`) || !strings.Contains(v, "/bar.sync") {
		t.Errorf("no match count or search line:\n%s", v)
	}
	typeKeys(m, ">")
	second := m.ir.cur
	if second <= first || !strings.Contains(rows[second], "BAR.SYNC") {
		t.Errorf("> moved from %d to %d (%q)", first, second, rows[second])
	}
	typeKeys(m, "<")
	if m.ir.cur != first {
		t.Errorf("< went to %d, want %d", m.ir.cur, first)
	}
	// n matches wrap around: n times > comes back.
	for i := 0; i < n; i++ {
		typeKeys(m, ">")
	}
	if m.ir.cur != first {
		t.Errorf("%d times > ended on %d, want %d", n, m.ir.cur, first)
	}
	typeKeys(m, "esc")
	if m.ir.query != "" || strings.Contains(m.View(), "/bar.sync") {
		t.Errorf("esc did not clear the search:\n%s", m.View())
	}
	typeKeys(m, ">")
	if !strings.Contains(m.View(), "no search: / searches the IR") {
		t.Errorf("> without a search:\n%s", m.View())
	}
	typeKeys(m, "/", "z", "q", "x", "enter")
	if !strings.Contains(m.View(), `"zqx": no match in this phase's IR`) {
		t.Errorf("no-match message:\n%s", m.View())
	}
}
