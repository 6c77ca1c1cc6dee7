package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/bisect"
	"orilab/faultinject"
	"orilab/pipeline"
)

// A fault campaign from the Fault pane (C): campaignTrials trials of the
// pane's bugspec line, seeded from its seed, injected after the selected
// phase, each verified and executed and classified as orilab inject
// --trials does (faultinject.Campaign on a PipelineTarget built from the
// workbench's request, without the planted fault). The trial count shows
// while it runs, c cancels it, and the detection matrix and the escapes
// with their replay commands replace the pane's report when it is done.

// campaignTrials is the size of a campaign started from the pane: enough
// for a matrix with something in most rows, short enough (a few seconds
// on the sample) to wait for.
const campaignTrials = 50

// campaignState is the Fault pane's campaign.
type campaignState struct {
	running bool
	done    int
	total   int
	at      string // the injection phase
	cancel  context.CancelFunc
	text    string // the finished report
	full    string // the report with orilab inject's matrix, where it fits
	err     error
	took    time.Duration
}

// campaignRequestMsg asks the root to start a campaign after phase at.
type campaignRequestMsg struct {
	spec faultinject.Spec
	seed int64
	at   int
}

// campaignProgressMsg is the trial count of the campaign in flight.
type campaignProgressMsg struct {
	done, total int
	next        tea.Cmd
}

// campaignMsg is a finished (or failed, or cancelled) campaign.
type campaignMsg struct {
	res  *faultinject.Result
	err  error
	took time.Duration
}

// campaignCmd runs the campaign in its own goroutine; the returned
// command waits for the next progress message or the result.
func campaignCmd(ctx context.Context, w *Workbench, r campaignRequestMsg) tea.Cmd {
	req, reqErr := w.Request()
	req.Fault = nil // the trials plant their own
	sp := w.Spec
	msgs := make(chan tea.Msg, 16)
	var wait tea.Cmd
	wait = func() tea.Msg {
		msg := <-msgs
		if p, ok := msg.(campaignProgressMsg); ok {
			p.next = wait
			return p
		}
		return msg
	}
	go func() {
		start := time.Now()
		res := campaignMsg{}
		defer func() { res.took = time.Since(start); msgs <- res }()
		if reqErr != nil {
			res.err = reqErr
			return
		}
		src, err := os.ReadFile(sp.PTXPath)
		if err != nil {
			res.err = err
			return
		}
		at := pipeline.PhaseTable[r.at].Name
		tgt, err := faultinject.NewPipelineTarget(sp, src, faultinject.PipelineConfig{Request: req, At: at})
		if err != nil {
			res.err = err
			return
		}
		c := &faultinject.Campaign{
			Target: tgt, Spec: r.spec, Seed: r.seed, Trials: campaignTrials,
			// One core stays with the workbench, so keys keep their
			// feedback while the trials run.
			Workers: max(runtime.NumCPU()-1, 1),
			Input:   bisect.ShellQuote(w.replay(sp.File)),
			Replay:  fmt.Sprintf(`orilab inject {input} --bugspec "{spec}" --seed {seed} --at %s%s`, at, bisect.QuoteArgs(req.Args())),
			Progress: func(done, total int) {
				select {
				case msgs <- campaignProgressMsg{done: done, total: total}:
				default: // dropped rather than stall a trial
				}
			},
		}
		res.res, res.err = c.Run(ctx)
	}()
	return wait
}

// startCampaign starts a campaign from the Fault pane.
func (m *Model) startCampaign(r campaignRequestMsg) tea.Cmd {
	w := m.c.W
	m.show(paneFault)
	if w.Spec == nil {
		m.status = "a campaign executes the kernel: open a SPEC.json (orilab tui SPEC.json)"
		return nil
	}
	if m.busy() {
		m.status = "busy; try again when the spinner stops"
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := m.fault
	f.camp = &campaignState{running: true, total: campaignTrials, at: pipeline.PhaseTable[r.at].Name, cancel: cancel}
	m.status = fmt.Sprintf("campaign: %d trials of bugspec %s after %s... c cancels", campaignTrials, r.spec, f.camp.at)
	return tea.Batch(campaignCmd(ctx, w, r), m.spin.Tick)
}

// campaignDone installs a finished campaign and says how it ended.
func (m *Model) campaignDone(msg campaignMsg) {
	c := m.fault.camp
	if c == nil {
		return
	}
	c.running, c.err, c.took = false, msg.err, msg.took
	if c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
	switch {
	case errors.Is(msg.err, context.Canceled):
		m.status = fmt.Sprintf("campaign: cancelled after %d of %d trials (%s)", c.done, c.total, msg.took.Round(time.Millisecond))
	case msg.err != nil:
		m.status = "campaign: " + msg.err.Error()
	default:
		// The full-width matrix gives way to the compact one (see
		// campaignmatrix.go); the rest of the report is as printed.
		c.full = msg.res.Text()
		c.text = strings.Replace(c.full, msg.res.Matrix.Table(), compactMatrix(&msg.res.Matrix), 1)
		m.status = fmt.Sprintf("campaign: %d trials in %s, %s escaped the verifiers", len(msg.res.Trials), msg.took.Round(time.Millisecond), plural(len(msg.res.Escapes), "fault"))
	}
}

// campaignLines is the campaign's part of the Fault pane.
func (p *FaultPane) campaignLines() []string {
	st := p.c.Styles
	c := p.camp
	lines := []string{st.Title.Render(fmt.Sprintf("campaign after %s", c.at))}
	switch {
	case c.running:
		const width = 20
		n := c.done * width / max(c.total, 1)
		lines = append(lines, fmt.Sprintf("[%s%s] %d/%d trials... c cancels", strings.Repeat("#", n), strings.Repeat(".", width-n), c.done, c.total))
	case c.err != nil:
		lines = append(lines, wrap(c.err.Error(), p.w)...)
	default:
		text, legend := c.text, c.full != ""
		if w := matrixWidth(c.full); w > 0 && w <= p.w {
			text, legend = c.full, false // wide enough for the full matrix
		}
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			if strings.Contains(l, "  ") || strings.HasPrefix(l, "kind ") {
				// The matrix's columns are aligned with spaces: cut, not
				// wrapped. The compact matrix fits 45 columns; a pane
				// narrower than that cuts it.
				lines = append(lines, fit(l, p.w))
				continue
			}
			lines = append(lines, wrap(l, p.w)...)
		}
		if legend {
			for _, l := range wrap(matrixLegend, p.w) {
				lines = append(lines, st.Dim.Render(l))
			}
		}
	}
	return append(lines, st.Dim.Render("i plants one fault and shows it; C runs the campaign again"))
}

// CampaignRunning reports whether a campaign is in flight.
func (p *FaultPane) CampaignRunning() bool { return p.camp != nil && p.camp.running }
