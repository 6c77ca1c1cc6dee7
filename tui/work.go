package tui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/faultinject"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
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
	// Compiling is set while a compile command is in flight; Done counts
	// the phases it has run.
	Compiling bool
	Done      int
	// Cancelled is set when c stopped the last compile: the snapshots are
	// of the phases that ran before it.
	Cancelled bool
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
	// Source is the PTX text, line by line: IR lines name their PTX
	// line ("; line 190"), and the IR pane's s shows it.
	Source []string
	// SpecName is how replay commands name the spec: its path, or for
	// the built-in sample the repository's copy ("" for Spec.File).
	SpecName string
	// Base is the compilation the workbench was opened with (orilab tui's
	// -arch, --maxrregcount, ORILAB_KNOBS, -knobs-file and -knob); OptLevel,
	// Arch, the Knobs overrides and Plant are applied on top of it.
	Base pipeline.Request
}

// SetRequest makes r the workbench's base compilation, with its -O level
// and target.
func (w *Workbench) SetRequest(r pipeline.Request) {
	w.Base, w.OptLevel, w.Arch = r, r.OptLevel, r.Arch
}

// Request returns the compilation the workbench shows: the base request
// at the workbench's -O level and target, with the knob pane's overrides
// as the last -knob arguments (so they win) and the planted fault.
func (w *Workbench) Request() (pipeline.Request, error) {
	r := w.Base.WithKnobs(w.KnobArgs()...)
	r.OptLevel, r.Arch = w.OptLevel, w.Arch
	r.Log, r.DumpTo = nil, nil // the workbench has no terminal to print on
	if p := w.Plant; p != nil {
		f, err := faultinject.Plant(p.Spec, p.Seed, p.At)
		if err != nil {
			return r, err
		}
		r.Fault = f
	}
	return r, nil
}

// CheckKnob reports whether setting knob name to value (reset: dropping
// the override) leaves a compilation that can start: the value parses and
// passes the knob's own check, the whole knob set resolves (command-line
// knobs and the PTX's .pragma strings too), and every phase name in it
// (DisablePhases, NamedPhases, DUMPIR) exists. The knob pane runs it on
// every key typed, and nothing that fails it is stored.
func (w *Workbench) CheckKnob(name, value string, reset bool) error {
	if !reset {
		if kn, ok := knobs.Default.Lookup(name); ok {
			v, err := knobs.ParseValue(kn.Type, value)
			if err == nil && kn.Validate != nil {
				err = kn.Validate(v)
			}
			if err != nil {
				return err
			}
		}
	}
	saved := w.Knobs
	w.Knobs = maps.Clone(saved)
	defer func() { w.Knobs = saved }()
	if reset {
		delete(w.Knobs, name)
	} else {
		w.Knobs[name] = value
	}
	req, err := w.Request()
	if err != nil {
		return err
	}
	po, err := req.PhaseOptions(w.PTX, pipeline.SessionControl{})
	if err != nil {
		return err
	}
	// Decision: the names are checked here the way
	// pipeline.NewSessionFrom checks them, so that a misspelt phase is
	// refused as it is typed instead of by the next compile, which would
	// leave the timeline on the previous compilation.
	for _, n := range po.DisablePhases {
		i, err := pipeline.LookupPhase(n)
		if err != nil {
			return fmt.Errorf("DisablePhases: %v", err)
		}
		if pipeline.PhaseTable[i].Required {
			return fmt.Errorf("DisablePhases: %s is a required phase and cannot be disabled", pipeline.PhaseTable[i].Name)
		}
	}
	for _, n := range po.NamedPhases {
		if _, err := pipeline.LookupPhase(n); err != nil {
			return fmt.Errorf("NamedPhases: %v", err)
		}
	}
	if po.DumpIR != "" {
		if _, err := pipeline.LookupPhase(po.DumpIR); err != nil {
			return fmt.Errorf("DUMPIR: %v", err)
		}
	}
	return nil
}

// replay rewrites a replay command for the user: the built-in sample's
// temporary spec becomes the repository's copy.
func (w *Workbench) replay(cmd string) string {
	if w.SpecName != "" && w.Spec != nil {
		cmd = strings.ReplaceAll(cmd, w.Spec.File, w.SpecName)
	}
	return cmd
}

// LastReplay returns the replay command of the last bisection, or "".
func (m *Model) LastReplay() string {
	b := m.bisect.last
	switch {
	case b == nil:
		return ""
	case b.phase != nil:
		return m.c.W.replay(b.phase.Replay)
	case b.disable != nil:
		return m.c.W.replay(b.disable.Replay)
	}
	return ""
}

// Plant is a bugspec injection to repeat in every compilation.
type Plant struct {
	Spec faultinject.Spec
	Seed int64
	At   string // phase name
}

// Planted is the outcome of a plant in one compilation: the injector's
// report, and what the verifiers (pipeline.VerifyPostRA, the same as
// orilab inject's) say about the corrupted IR.
type Planted struct {
	Report *faultinject.Report
	// Verifier names the verifier that caught the fault ("" when every
	// verifier accepts it) and Verdict is its message.
	Verifier, Verdict string
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
	// buffers are the parameters' buffers after the run (as
	// pipeline.ExecuteBuffers returns them), for the elements around a
	// mismatch.
	buffers [][]byte
	err     error
	took    time.Duration
}

// compileProgressMsg is the phase count of the compile in flight (of
// generation gen); next waits for the following message.
type compileProgressMsg struct {
	gen, done int
	next      tea.Cmd
}

// compileCmd recompiles w.PTX with the current knobs. It copies what it
// needs, so the command can run while Update goes on; the compile runs in
// its own goroutine and the command waits for its next message, a phase
// count or the result. A newer compile cancels this one (w.cancel), and so
// does c (Model.cancelCompile).
func compileCmd(w *Workbench) tea.Cmd {
	w.Gen++
	w.Compiling, w.Done = true, 0
	if w.cancel != nil {
		w.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	gen, pm := w.Gen, w.PTX
	req, err := w.Request()
	progress := make(chan compileProgressMsg, 1)
	result := make(chan compiledMsg, 1)
	var once sync.Once
	run := func() {
		start := time.Now()
		if err != nil {
			result <- compiledMsg{gen: gen, err: err}
			return
		}
		n := 0
		req.Observer = func(*pipeline.Snapshot) {
			n++
			select { // only the latest count matters
			case progress <- compileProgressMsg{gen: gen, done: n}:
			default:
			}
		}
		lowered, snaps, planted, err := compile(ctx, pm, req)
		result <- compiledMsg{gen: gen, lowered: lowered, snaps: snaps, planted: planted, err: err, took: time.Since(start)}
	}
	var wait tea.Cmd
	wait = func() tea.Msg {
		once.Do(func() { go run() })
		select {
		case p := <-progress:
			p.next = wait
			return p
		case r := <-result:
			return r
		}
	}
	return wait
}

// compile runs the whole pipeline as req asks, with a snapshot per phase,
// and reports what became of req's fault. A fault that a verifier catches
// ends the compilation with that error, as in every other front door; the
// snapshots up to and including its phase stay.
func compile(ctx context.Context, pm *ptx.Module, req pipeline.Request) (*ori.Module, []*pipeline.Snapshot, *Planted, error) {
	sess, err := req.Start(pm, pipeline.SessionControl{Context: ctx, Snapshots: true})
	if err != nil {
		return nil, nil, nil, err
	}
	err = sess.RunAll()
	var planted *Planted
	if pl := sess.Planted(); pl != nil {
		planted = &Planted{}
		planted.Report, _ = pl.Report.(*faultinject.Report)
		if pl.Caught != nil {
			planted.Verifier, planted.Verdict = pl.Caught.Verifier, pl.Caught.Err.Error()
		}
	} else if req.Fault != nil {
		planted = &Planted{}
	}
	return sess.Lowered, sess.Snapshots, planted, err
}

// CompileNow compiles the workbench's request synchronously and installs
// the result, as the program does with a compile command's message: for
// callers that drive a workbench without the event loop.
func (w *Workbench) CompileNow(ctx context.Context) error {
	req, err := w.Request()
	if err != nil {
		return err
	}
	w.Gen++
	lowered, snaps, planted, err := compile(ctx, w.PTX, req)
	w.apply(compiledMsg{gen: w.Gen, lowered: lowered, snaps: snaps, planted: planted, err: err})
	return err
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
	w.Err, w.Cancelled = "", false
	switch {
	case errors.Is(msg.err, context.Canceled):
		w.Cancelled = true
	case msg.err != nil:
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
		// pipeline.Execute, keeping the buffers.
		bufs, st, err := pipeline.ExecuteBuffers(m, sp, pipeline.RunOptions{})
		if err != nil {
			return runMsg{phase: i, err: err, took: time.Since(start)}
		}
		results := sp.Check(bufs)
		rep := &pipeline.RunReport{Spec: sp.Name, Kernel: sp.Kernel, Pass: spec.AllPass(results), Results: results, Stats: *st}
		return runMsg{phase: i, report: rep, buffers: bufs, took: time.Since(start)}
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
	w.Source = strings.Split(string(src), "\n")
	pm, err := ptx.Parse(w.File, src)
	if err != nil {
		return nil, err
	}
	w.PTX = pm
	return w, nil
}

// GCPercent is the garbage collector's target the workbench runs with.
//
// Decision: 400 instead of Go's 100. The workbench keeps every phase's
// IR (on mcx_core.ptx, 4,268 instructions, the snapshots are the live
// heap), and a key's View allocates strings: at GOGC=100 a collection
// started every few keys and its mark assists stalled the key that
// started it. Measured with TestKeyFeedbackLatency on mcx_core at 220x60
// on a 2-core machine under load (load average 17-23): the worst key took
// 240 ms at 100 and 62 ms at 400, with medians unchanged (under 35 ms).
// The cost is memory: the heap may grow to five times the live data
// before a collection.
const GCPercent = 400

// TuneGC sets the garbage collector's target for the workbench (see
// GCPercent) unless GOGC is set, and returns the previous setting.
func TuneGC() int {
	if os.Getenv("GOGC") != "" {
		p := debug.SetGCPercent(-1) // read the user's setting back
		debug.SetGCPercent(p)
		return p
	}
	return debug.SetGCPercent(GCPercent)
}
