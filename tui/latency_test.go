package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/internal/testenv"
)

// TestKeyFeedbackLatency measures, on the largest corpus file
// (gpuocelot's mcx_core.ptx: 12 functions, 4,268 instructions) at 80x24
// and 220x60, how long every key and mouse action takes to show its
// feedback: the root's Update, the commands that answer at once (status
// lines, pane requests) and their Updates, and the View that draws the
// result. A command still running after 5 ms is a background job (a
// compile, a B compile, a bisection, a campaign): its feedback is the
// spinner and the pane's progress line, drawn by that same View, and it
// is finished, untimed, before the next key. The goal (issue 22) is 100
// ms for every key. It is a measurement, so it runs only
// with ORILAB_KEY_LATENCY=1 (timings on a loaded CI machine prove
// nothing): ORILAB_KEY_LATENCY=1 go test ./tui -run TestKeyFeedbackLatency -v
func TestKeyFeedbackLatency(t *testing.T) {
	if os.Getenv("ORILAB_KEY_LATENCY") == "" {
		t.Skip("a measurement: set ORILAB_KEY_LATENCY=1 to run it")
	}
	path := filepath.Join(testenv.Shared(t), "corpus/gpuocelot/tests/ptx/unstructured/mcx_core.ptx")
	defer debug.SetGCPercent(TuneGC()) // as orilab tui runs
	const rounds = 3
	for _, size := range [][2]int{{80, 24}, {220, 60}} {
		m := fileModelAt(t, path, size[0], size[1], 3)
		worst := map[string]time.Duration{}
		worstCPU := map[string]time.Duration{}
		all := map[string][]time.Duration{}
		for range rounds {
			for _, step := range latencyScript() {
				cpu0 := cpuTime()
				d, pending := timeFeedback(m, step.msg)
				worstCPU[step.name] = max(worstCPU[step.name], cpuTime()-cpu0)
				if d > worst[step.name] {
					worst[step.name] = d
				}
				all[step.name] = append(all[step.name], d)
				// A background job finishes before the next key, untimed,
				// so that it does not compete with the next measurement.
				finish(m, pending)
			}
		}
		var names []string
		for n := range worst {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return worst[names[i]] > worst[names[j]] })
		var b strings.Builder
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		fmt.Fprintf(&b, "  %-28s %8s %8s %8s %s\n", "key", "worst", "median", "CPU", "presses")
		for _, n := range names {
			ds := all[n]
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			fmt.Fprintf(&b, "  %-28s %5.1f ms %5.1f ms %5.1f ms %d\n", n, ms(worst[n]), ms(ds[len(ds)/2]), ms(worstCPU[n]), len(ds))
		}
		t.Logf("%dx%d, %d rounds, %d kinds of key (wall time: worst and median; CPU: the process's, worst):\n%s", size[0], size[1], rounds, len(names), b.String())
		// Decision: the bound is on the median wall time and on the CPU
		// time the workbench spends, not on the worst wall time: on the
		// shared 2-core machine (load average around 20) the worst wall
		// time is the scheduler's, not the workbench's.
		for _, n := range names {
			ds := all[n]
			if med := ds[len(ds)/2]; med > 100*time.Millisecond || worstCPU[n] > 100*time.Millisecond {
				t.Errorf("%dx%d: %s: median %s, worst CPU %s (goal: 100 ms)", size[0], size[1], n, med, worstCPU[n])
			}
		}
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type latencyStep struct {
	name string
	msg  tea.Msg
}

// latencyScript is a session's worth of keys: every binding of every
// pane, the prompts typed into and closed, and the mouse.
func latencyScript() []latencyStep {
	k := func(s string) latencyStep { return latencyStep{s, keyMsg(s)} }
	ks := func(ss ...string) []latencyStep {
		var out []latencyStep
		for _, s := range ss {
			out = append(out, k(s))
		}
		return out
	}
	var s []latencyStep
	s = append(s, ks("1", "g", "j", "j", "k", "n", "n", "N", "G", "g", "pgdown", "pgup", "u", "u", "/", "O", "r", "i", "esc", "j", "d", "d")...)
	s = append(s, ks("2", "n", "v", "v", "v", "j", "]", "[", "/", "M", "O", "V", "enter", ">", "<", "f", "F", "esc", "}", "{", "p", "j", "enter", "p", "esc", "s", "S", ":", "9", "0", "enter", "S", "l", "h", "R", "w", "esc", "W", "esc")...)
	s = append(s, latencyStep{"mouse click (timeline)", tea.MouseMsg{X: 5, Y: 6, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}},
		latencyStep{"mouse wheel (timeline)", tea.MouseMsg{X: 5, Y: 6, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown}},
		latencyStep{"mouse click (IR)", tea.MouseMsg{X: 60, Y: 8, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}},
		latencyStep{"mouse wheel (IR)", tea.MouseMsg{X: 60, Y: 8, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown}},
		latencyStep{"mouse click (tab 3)", tea.MouseMsg{X: 22, Y: 0, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}})
	s = append(s, ks("3", "G", "g", "l", "h", "4", "/", "U", "n", "r", "esc", "j", "5", "6", "b", "7", "C", "8", "e", "L", "o", "o", "p", "esc", "?", "?", "tab", "tab")...)
	return s
}

// timeFeedback delivers msg and returns how long the workbench took to
// draw its feedback (see TestKeyFeedbackLatency), and the background jobs
// it started.
func timeFeedback(m *Model, msg tea.Msg) (time.Duration, []chan tea.Msg) {
	start := time.Now()
	var pending []chan tea.Msg
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg, queue = queue[0], queue[1:]
		_, cmd := m.Update(msg)
		msgs, p := quickMsgs(cmd)
		queue = append(queue, msgs...)
		pending = append(pending, p...)
	}
	_ = m.View()
	return time.Since(start), pending
}

// finish waits for background jobs and delivers what they send, and what
// the commands that answers return, until nothing is left.
func finish(m *Model, pending []chan tea.Msg) {
	for len(pending) > 0 {
		msg := <-pending[0]
		pending = pending[1:]
		for _, msg := range flatten(msg) {
			_, cmd := m.Update(msg)
			if cmd != nil {
				ch := make(chan tea.Msg, 1)
				go func() { ch <- cmd() }()
				pending = append(pending, ch)
			}
		}
	}
}

// flatten returns the messages of msg worth delivering (a batch's, run
// one by one; no ticks, quits or nils).
func flatten(msg tea.Msg) []tea.Msg {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			if c != nil {
				out = append(out, flatten(c())...)
			}
		}
		return out
	case nil, tea.QuitMsg:
		return nil
	}
	if isTick(msg) {
		return nil
	}
	return []tea.Msg{msg}
}

// quickMsgs runs cmd and returns the messages it (and its batch) produce
// within 5 ms; slower commands are background jobs, returned as channels
// that will carry their message.
func quickMsgs(cmd tea.Cmd) ([]tea.Msg, []chan tea.Msg) {
	if cmd == nil {
		return nil, nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		switch msg := msg.(type) {
		case tea.BatchMsg:
			var out []tea.Msg
			var pending []chan tea.Msg
			for _, c := range msg {
				o, p := quickMsgs(c)
				out = append(out, o...)
				pending = append(pending, p...)
			}
			return out, pending
		case nil, tea.QuitMsg:
			return nil, nil
		default:
			if isTick(msg) {
				return nil, nil
			}
			return []tea.Msg{msg}, nil
		}
	case <-time.After(5 * time.Millisecond):
		return nil, []chan tea.Msg{ch}
	}
}
