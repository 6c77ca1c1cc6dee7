package tui

import (
	"regexp"
	"strings"
	"testing"

	"orilab/pipeline"
)

// selectPhase moves the timeline to phase name.
func selectPhase(t *testing.T, m *Model, name string) int {
	t.Helper()
	i, err := pipeline.LookupPhase(name)
	if err != nil {
		t.Fatal(err)
	}
	m.timeline.Select(i)
	return i
}

// TestSASSPane shows the SASS after the last phase, with control words,
// and scrolls.
func TestSASSPane(t *testing.T) {
	m := sampleModel(t, 100, 30)
	typeKeys(m, "G", "3")
	v := m.View()
	for _, want := range []string{"#158 NOP", "MOV R1, c[0x0][0x28] ;", "/* [B"} {
		if !strings.Contains(v, want) {
			t.Errorf("SASS pane lacks %q:\n%s", want, v)
		}
	}
	typeKeys(m, "pgdown")
	if m.View() == v {
		t.Error("pgdown did not scroll")
	}
}

// TestFaultPaneInject plants a register fault after AllocateRegisters:
// the pane shows the report line and that the post-RA verifier catches
// it; the timeline marks the phase changed; x removes it again.
func TestFaultPaneInject(t *testing.T) {
	m := sampleModel(t, 100, 30)
	typeKeys(m, "7")
	// Before allocation, injecting is refused with the reason.
	typeKeys(m, "i")
	if !strings.Contains(m.status, "select #122 AllocateRegisters or a later phase") {
		t.Errorf("status %q", m.status)
	}
	ra := selectPhase(t, m, "AllocateRegisters")
	typeKeys(m, "i")
	if m.c.W.Plant == nil || m.c.W.Plant.At != "AllocateRegisters" {
		t.Fatalf("no plant after i: %+v", m.c.W.Plant)
	}
	send(m, compileNow(m.c.W))
	v := m.View()
	for _, want := range []string{"planted after #122 AllocateRegisters, seed 1", "Num forced bugs 1", "Created a bug at index ", "caught by the reaching-defs verifier", "verify-ra block_sum"} {
		if !strings.Contains(v, want) {
			t.Errorf("fault pane lacks %q:\n%s", want, v)
		}
	}
	if s := m.c.W.Snap(ra); s == nil || s.Status != pipeline.StatusChanged {
		t.Errorf("the planted phase is not marked changed")
	}
	// Editing the bugspec rejects a malformed line.
	typeKeys(m, "e", "ctrl+u", "1", ",", "x", "enter")
	if !strings.Contains(m.status, "bugspec") || !strings.Contains(m.status, "not an integer") {
		t.Errorf("malformed bugspec: status %q", m.status)
	}
	typeKeys(m, "x")
	if m.c.W.Plant != nil {
		t.Fatal("x did not clear the plant")
	}
	send(m, compileNow(m.c.W))
	if !strings.Contains(m.View(), "No fault planted.") {
		t.Errorf("after x:\n%s", m.View())
	}
}

// TestFaultThenBisect plants a fault after PostSchedule that a verifier
// catches or that changes the kernel's output, runs the bisector from the
// bisect pane, and checks it names the planted phase.
func TestFaultThenBisect(t *testing.T) {
	m := sampleModel(t, 100, 30)
	typeKeys(m, "7")
	i := selectPhase(t, m, "PostSchedule")
	fp := m.panes[paneFault].(*FaultPane)
	found := false
	for seed := int64(1); seed <= 20 && !found; seed++ {
		fp.seed = seed
		typeKeys(m, "i")
		send(m, compileNow(m.c.W))
		s := m.c.W.Snap(len(pipeline.PhaseTable) - 1)
		if s == nil {
			found = m.c.W.Planted != nil && m.c.W.Planted.Verdict != "" // caught
			continue
		}
		rep, err := pipeline.Execute(s.Module, m.c.W.Spec, pipeline.RunOptions{MaxWarpSteps: 1_000_000})
		found = err != nil || !rep.Pass
	}
	if !found {
		t.Fatal("no seed in 1..20 planted a fault that changes the output")
	}
	typeKeys(m, "6", "b") // the helpers run the bisection synchronously
	if !strings.Contains(m.status, "culprit #") || !strings.Contains(m.status, pipeline.PhaseTable[i].Name) {
		t.Errorf("bisect with a planted fault after %s: status %q\n%s", pipeline.PhaseTable[i].Name, m.status, m.View())
	}
	b := m.bisect.last
	if b == nil || b.phase == nil {
		t.Fatalf("no phase result: %+v", b)
	}
	b.took = 0
	b.phase.Replay = regexp.MustCompile(`/\S*orilab-sample-\d+/`).ReplaceAllString(b.phase.Replay, "/tmp/S/")
	golden(t, "fault_bisect", m.View()+"\n")
}
