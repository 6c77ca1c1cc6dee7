package tui

import (
	"strings"
	"testing"

	"orilab/pipeline"
)

// These tests pin the defects of issue 22 ("the workbench, as a compiler
// engineer uses it every day"), one per defect, at 80x24.

// tabBar returns the first line of m's view.
func tabBar(m *Model) string {
	return strings.SplitN(m.View(), "\n", 2)[0]
}

// Defect 3: the tab bar must name the pane whose keys work and which is
// shown; a key that brings up another pane on the right moves the focus
// with it.
func TestTabBarNamesShownPane(t *testing.T) {
	m := sampleModel(t, 80, 24)
	if got := tabBar(m); !strings.Contains(got, "[1 Timeline](2 IR)") {
		t.Errorf("timeline focused, IR shown: tab bar %q, want it to mark both", got)
	}
	typeKeys(m, "2")
	_, cmd := m.Update(keyMsg("r"))
	send(m, runNow(t, cmd))
	if m.focus != paneRun || m.right != paneRun {
		t.Errorf("r in the IR pane: focus %d right %d, want the Run pane (%d) for both", m.focus, m.right, paneRun)
	}
	if got := tabBar(m); !strings.Contains(got, "[5 Run]") {
		t.Errorf("after r in pane 2 the tab bar says %q, want [5 Run]", got)
	}
	typeKeys(m, "3", "v")
	if m.focus != paneIR || m.right != paneIR {
		t.Errorf("v in the SASS pane: focus %d right %d, want the IR pane for both", m.focus, m.right)
	}
	if got := tabBar(m); !strings.Contains(got, "[2 IR]") {
		t.Errorf("after v in pane 3 the tab bar says %q, want [2 IR]", got)
	}
	typeKeys(m, "1")
	if got := tabBar(m); !strings.Contains(got, "[1 Timeline](2 IR)") {
		t.Errorf("after 1 the tab bar says %q, want [1 Timeline](2 IR)", got)
	}
}

// lastPhaseNoOp reports whether the last phase is a no-op in m.
func messageLine(m *Model) string {
	lines := strings.Split(m.View(), "\n")
	return strings.TrimSpace(lines[len(lines)-2])
}

// Defect 4: every key's feedback shows, and is gone at the next key.
func TestStatusIsFresh(t *testing.T) {
	m := sampleModel(t, 80, 24)
	withChange(t, m)
	typeKeys(m, "G", "n")
	if got := messageLine(m); got != "no later phase changed the IR" {
		t.Errorf("G n: message %q, want %q", got, "no later phase changed the IR")
	}
	typeKeys(m, "up")
	if got := messageLine(m); strings.Contains(got, "no later phase") {
		t.Errorf("a move after n still says %q", got)
	}
	// On a no-op phase, the feedback of f (and of a search) wins over the
	// no-op reason, which comes back at the next key.
	typeKeys(m, "g", "down")
	if s := m.c.W.Snap(m.c.W.Sel); s == nil || s.Status != pipeline.StatusNoOp {
		t.Fatalf("phase %d is not a no-op; the test needs one", m.c.W.Sel)
	}
	typeKeys(m, "2", "/", "#", "2", " ", "s", "2", "r", "enter", "f")
	if got := messageLine(m); !strings.HasPrefix(got, "following ") {
		t.Errorf("f on a no-op phase: message %q, want the follow's feedback", got)
	}
	typeKeys(m, "/", "n", "o", "s", "u", "c", "h", "enter")
	if got := messageLine(m); !strings.Contains(got, "no match") {
		t.Errorf("a search with no match on a no-op phase: message %q", got)
	}
	typeKeys(m, "esc")
	if got := messageLine(m); got != `stopped following #2 and searching` {
		t.Errorf("esc: message %q, want it to say the follow stopped", got)
	}
	typeKeys(m, "j")
	if got := messageLine(m); strings.Contains(got, "following") {
		t.Errorf("after esc and a move the message still says %q", got)
	}
	// Esc in the timeline stops a follow too.
	typeKeys(m, "f", "1", "esc")
	if m.ir.Following() != "" {
		t.Errorf("esc in the timeline did not stop following %s", m.ir.Following())
	}
}
