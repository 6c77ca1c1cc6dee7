package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/faultinject"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/spec"
)

// Workbench is the compilation the panes look at. The root model owns it;
// panes read it through Common and change it only by returning messages or
// commands, except for the selected phase, which the timeline moves.
type Workbench struct {
	File     string      // the PTX file, as named on the command line
	Spec     *spec.Spec  // nil when a bare .ptx was opened
	PTX      *ptx.Module // parsed once; recompiles start from it
	OptLevel int         // -O level
	Arch     int         // pipeline.Options.Arch (0: the module's target)
	Lowered  *ori.Module // the IR right after lowering
	Snaps    []*pipeline.Snapshot
	byIndex  [len(pipeline.PhaseTable)]*pipeline.Snapshot
	// Knobs holds the knob overrides as NAME -> VALUE text, applied as
	// -knob NAME=VALUE. DisablePhases lives here too, so the timeline's
	// 'd' and the knob pane edit the same value.
	Knobs map[string]string
	// Sel is the selected phase index (0..158).
	Sel int
	// Gen counts compilations; results of older ones are dropped.
	Gen int
	// Compiling is set while a compile command is in flight.
	Compiling bool
	// Err is the last compile error ("" after a successful compile).
	Err string
	// cancel stops the compilation in flight (a newer one supersedes it).
	cancel context.CancelFunc
	// Plant is the bugspec fault the Fault pane planted: every compile
	// (and every bisection) injects it after its phase, until cleared.
	Plant *Plant
	// Planted is what the last compile's injection did (nil without a
	// plant).
	Planted *Planted
}

// Plant is a bugspec injection to repeat in every compilation.
type Plant struct {
	Spec faultinject.Spec
	Seed int64
	At   string // phase name
}

// Planted is the outcome of a plant in one compilation: the injector's
// report, and what the post-RA verifier says about the corrupted IR.
type Planted struct {
	Report  *faultinject.Report
	Verdict string // "" when the reaching-definitions verifier accepts it
}

// Snap returns the snapshot of phase i, or nil if it did not run.
func (w *Workbench) Snap(i int) *pipeline.Snapshot {
	if i < 0 || i >= len(w.byIndex) {
		return nil
	}
	return w.byIndex[i]
}

// Before returns the IR before phase i: the previous recorded snapshot's,
// or the lowered IR for the first one.
func (w *Workbench) Before(i int) *ori.Module {
	for j := i - 1; j >= 0; j-- {
		if s := w.byIndex[j]; s != nil {
			return s.Module
		}
	}
	return w.Lowered
}

// KnobArgs returns the overrides as sorted -knob arguments.
func (w *Workbench) KnobArgs() []string {
	var out []string
	for n, v := range w.Knobs {
		out = append(out, n+"="+v)
	}
	sort.Strings(out)
	return out
}

// DisabledPhases returns the DisablePhases override as phase names.
func (w *Workbench) DisabledPhases() []string {
	return knobs.ParsePhaseList(w.Knobs[knobs.KnobDisablePhases])
}

// compiledMsg carries the result of a compile command.
type compiledMsg struct {
	gen     int
	lowered *ori.Module
	snaps   []*pipeline.Snapshot
	planted *Planted
	err     error
	took    time.Duration
}

// runMsg carries the result of executing the spec.
type runMsg struct {
	phase  int
	report *pipeline.RunReport
	err    error
	took   time.Duration
}

// compileCmd recompiles w.PTX with the current knobs. It copies what it
// needs, so the command can run while Update goes on.
func compileCmd(w *Workbench) tea.Cmd {
	w.Gen++
	w.Compiling = true
	if w.cancel != nil {
		w.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	gen, pm, opt, arch, args, plant := w.Gen, w.PTX, w.OptLevel, w.Arch, w.KnobArgs(), w.Plant
	return func() tea.Msg {
		start := time.Now()
		lowered, snaps, planted, err := compilePlanted(ctx, pm, opt, arch, args, plant)
		return compiledMsg{gen: gen, lowered: lowered, snaps: snaps, planted: planted, err: err, took: time.Since(start)}
	}
}

// compile runs the whole pipeline with the given -knob arguments.
func compile(ctx context.Context, pm *ptx.Module, opt, arch int, args []string) (*ori.Module, []*pipeline.Snapshot, error) {
	lowered, snaps, _, err := compilePlanted(ctx, pm, opt, arch, args, nil)
	return lowered, snaps, err
}

// compilePlanted is compile that also injects plant's faults after its
// phase and asks the reaching-definitions verifier about the result.
func compilePlanted(ctx context.Context, pm *ptx.Module, opt, arch int, args []string, plant *Plant) (*ori.Module, []*pipeline.Snapshot, *Planted, error) {
	set, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: args})
	if err != nil {
		return nil, nil, nil, err
	}
	po := pipeline.PhaseOptions{OptLevel: opt, Context: ctx}
	if err := po.ApplyKnobs(set); err != nil {
		return nil, nil, nil, err
	}
	var planted *Planted
	var corrupted *ori.Module
	if plant != nil {
		planted = &Planted{}
		po.PlantAfter = plant.At
		po.Plant = func(m *ori.Module) error {
			rep, err := faultinject.Inject(m, plant.Spec, plant.Seed, faultinject.Options{})
			planted.Report, corrupted = rep, m
			return err
		}
	}
	sess, err := pipeline.NewSessionFrom(pm, pipeline.Options{Arch: arch}, po)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := sess.RunAll(); err != nil {
		return sess.Lowered, sess.Snapshots, planted, err
	}
	if corrupted != nil && sess.Backend() != nil && sess.Backend().PreRA != nil {
		for _, f := range corrupted.Funcs {
			if pre := sess.Backend().PreRA.Func(f.Name); pre != nil {
				if err := regalloc.VerifyReachingDefs(pre, f); err != nil {
					planted.Verdict = err.Error()
					break
				}
			}
		}
	}
	return sess.Lowered, sess.Snapshots, planted, nil
}

// apply installs a compile result. Stale results (an older generation)
// are dropped.
func (w *Workbench) apply(msg compiledMsg) bool {
	if msg.gen != w.Gen {
		return false
	}
	w.Compiling = false
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
	w.Err = ""
	if msg.err != nil {
		w.Err = msg.err.Error()
	}
	w.Planted = msg.planted
	if msg.lowered != nil {
		w.Lowered = msg.lowered
		w.Snaps = msg.snaps
		w.byIndex = [len(pipeline.PhaseTable)]*pipeline.Snapshot{}
		for _, s := range msg.snaps {
			w.byIndex[s.Index] = s
		}
	}
	return true
}

// runCmd executes the spec on the IR after phase i.
func runCmd(w *Workbench, i int) tea.Cmd {
	s := w.Snap(i)
	sp := w.Spec
	var m *ori.Module
	if s != nil {
		m = s.Module
	}
	return func() tea.Msg {
		start := time.Now()
		if m == nil {
			return runMsg{phase: i, err: fmt.Errorf("phase %d did not run in this compilation", i)}
		}
		rep, err := pipeline.Execute(m, sp, pipeline.RunOptions{})
		return runMsg{phase: i, report: rep, err: err, took: time.Since(start)}
	}
}

// Load opens a .ptx file or a kernel spec for the workbench.
func Load(path string, src []byte, optLevel int) (*Workbench, error) {
	w := &Workbench{File: path, OptLevel: optLevel, Knobs: map[string]string{}}
	if strings.HasSuffix(path, ".json") {
		s, err := spec.Parse(path, src, dirOf(path))
		if err != nil {
			return nil, err
		}
		w.Spec = s
		w.File = s.PTXPath
		if src, err = readFile(s.PTXPath); err != nil {
			return nil, err
		}
	}
	pm, err := ptx.Parse(w.File, src)
	if err != nil {
		return nil, err
	}
	w.PTX = pm
	return w, nil
}
