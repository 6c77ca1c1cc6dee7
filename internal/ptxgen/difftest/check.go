package difftest

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"orilab/bisect"
	"orilab/internal/ptxgen"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/spec"
)

// Check: one program against the oracle.
//
// The oracle is the program executed right after lowering, before any
// phase ran. Each configuration (an -O level and knob settings) compiles
// the same parsed module with the verifier on after every phase, executes
// the IR after the last phase on the same launch, and compares every
// buffer byte for byte with the oracle's. The generator makes programs
// whose results are determined (no races, no undefined behaviour, no
// float contraction), so any difference is a compiler or simulator bug.

// Outcome kinds.
const (
	// KindPass: the configuration compiled and matched the oracle.
	KindPass = "pass"
	// KindMismatch: a buffer differs from the oracle's.
	KindMismatch = "mismatch"
	// KindExecError: the compiled IR faults in the simulator (bad address,
	// deadlock, step limit) where the oracle did not.
	KindExecError = "exec-error"
	// KindCompileError: a phase returned an error or broke an invariant
	// the verifier checks.
	KindCompileError = "compile-error"
	// KindCrash: something panicked outside the phase manager's guard
	// (the lowering, the simulator).
	KindCrash = "crash"
	// KindBadProgram: the front end rejects the PTX, or the lowered IR does
	// not execute: either the generator broke its promise or the front
	// end, the lowering or the simulator has a bug; findings say which.
	KindBadProgram = "bad-program"
	// KindTimeout: a compilation (with its execution) did not finish in
	// Options.Timeout: a phase that loops forever, most likely. Executions
	// themselves end at the step limit (an exec-error).
	KindTimeout = "timeout"
)

// Config is one compilation compared with the oracle.
type Config struct {
	OptLevel int `json:"opt_level"`
	// Knobs are -knob settings (NAME=VALUE); empty means every default.
	Knobs []string `json:"knobs,omitempty"`
	// Random says the settings include random ones (--random-knobs).
	Random bool `json:"random,omitempty"`
}

// KnobArg returns the settings as one -knob argument (A=1~B=2), or "".
func (c Config) KnobArg() string { return strings.Join(c.Knobs, "~") }

// Request is the compilation of configuration c: its -O level with the
// verifier after every phase, and ks's knob sources with c's settings as
// the last -knob arguments.
func (c Config) Request(ks knobs.Sources) pipeline.Request {
	ks.CLI = nil
	if len(c.Knobs) > 0 {
		ks.CLI = []string{c.KnobArg()}
	}
	return pipeline.Request{OptLevel: c.OptLevel, Verify: true, Knobs: ks}
}

func (c Config) String() string {
	if len(c.Knobs) == 0 {
		return fmt.Sprintf("-O%d", c.OptLevel)
	}
	return fmt.Sprintf("-O%d -knob %s", c.OptLevel, bisect.ShellQuote(c.KnobArg()))
}

// Result is the outcome of one configuration.
type Result struct {
	Config Config `json:"config"`
	Kind   string `json:"kind"`
	// Detail is the error, or the first differing elements.
	Detail string `json:"detail,omitempty"`
}

// Options configures Check.
type Options struct {
	// Configs are the compilations to compare; Configs(levels, seed,
	// random) builds the usual list.
	Configs []Config
	// KnobSources are knob sources every configuration compiles with
	// besides its own settings (which come last, as -knob arguments):
	// ORILAB_KNOBS and a knobs file.
	KnobSources knobs.Sources
	// MaxWarpSteps bounds every execution (0: 5,000,000; generated
	// programs need far less).
	MaxWarpSteps int64
	// Coverage, when set, receives what the program exercised.
	Coverage *Coverage
	// Context cancels between compilations.
	Context context.Context
	// Timeout bounds one compilation with its execution (0: 2 minutes;
	// negative: no bound). A compilation that takes longer is reported
	// as KindTimeout and abandoned: its goroutine cannot be stopped and
	// keeps running.
	Timeout time.Duration
}

// Report is the outcome of one program.
type Report struct {
	Seed uint64 `json:"seed"`
	// Oracle is the per-parameter buffers of the lowered IR's execution
	// (nil when the program is bad).
	Oracle [][]byte `json:"-"`
	// Results lists every configuration's outcome, in Options.Configs
	// order; a bad program has one result of KindBadProgram.
	Results []Result `json:"results"`
}

// Failed returns the results that are not passes.
func (r *Report) Failed() []Result {
	var out []Result
	for _, x := range r.Results {
		if x.Kind != KindPass {
			out = append(out, x)
		}
	}
	return out
}

const defaultMaxSteps = 5_000_000

// Check runs program p under every configuration of opts.
func Check(p *ptxgen.Program, opts Options) *Report {
	src := []byte(p.PTX())
	return CheckPTX(p.Seed, src, p.Spec(fmt.Sprintf("seed%d", p.Seed), "fuzz.ptx"), opts)
}

// CheckPTX is Check for a program given as text and spec (a reduced or
// saved case).
func CheckPTX(seed uint64, src []byte, s *spec.Spec, opts Options) (rep *Report) {
	rep = &Report{Seed: seed}
	if opts.MaxWarpSteps == 0 {
		opts.MaxWarpSteps = defaultMaxSteps
	}
	stage := "parsing"
	defer func() {
		if x := recover(); x != nil {
			rep.Results = append(rep.Results, Result{Kind: KindCrash,
				Detail: fmt.Sprintf("panic while %s: %v\n%s", stage, x, trimStack(debug.Stack()))})
		}
	}()
	pm, err := ptx.Parse(s.PTXPath, src)
	if err != nil {
		rep.Results = []Result{{Kind: KindBadProgram, Detail: "the front end rejects the program: " + err.Error()}}
		return rep
	}
	stage = "lowering"
	base, err := pipeline.NewSessionFrom(pm, pipeline.Options{}, pipeline.PhaseOptions{NoSnapshots: true})
	if err != nil {
		rep.Results = []Result{{Kind: KindBadProgram, Detail: "the lowering fails: " + err.Error()}}
		return rep
	}
	if opts.Coverage != nil {
		opts.Coverage.addModule(base.Lowered)
	}
	stage = "executing the oracle"
	ro := pipeline.RunOptions{MaxWarpSteps: opts.MaxWarpSteps}
	oracle, _, err := pipeline.ExecuteBuffers(base.Lowered, s, ro)
	if err != nil {
		rep.Results = []Result{{Kind: KindBadProgram, Detail: "the IR right after lowering does not execute: " + err.Error()}}
		return rep
	}
	rep.Oracle = oracle
	for _, cfg := range opts.Configs {
		if opts.Context != nil && opts.Context.Err() != nil {
			break
		}
		rep.Results = append(rep.Results, runConfigTimed(pm, s, cfg, opts.KnobSources, oracle, ro, opts.Coverage, opts.Timeout))
	}
	return rep
}

const defaultTimeout = 2 * time.Minute

// runConfigTimed is runConfig under a time limit.
func runConfigTimed(pm *ptx.Module, s *spec.Spec, cfg Config, ks knobs.Sources, oracle [][]byte, ro pipeline.RunOptions, cov *Coverage, limit time.Duration) Result {
	if limit == 0 {
		limit = defaultTimeout
	}
	var last atomic.Value // the name of the last phase that finished
	last.Store("none (the lowering)")
	if limit < 0 {
		return runConfig(pm, s, cfg, ks, oracle, ro, cov, &last)
	}
	done := make(chan Result, 1)
	go func() { done <- runConfig(pm, s, cfg, ks, oracle, ro, cov, &last) }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case r := <-done:
		return r
	case <-timer.C:
		return Result{Config: cfg, Kind: KindTimeout,
			Detail: fmt.Sprintf("did not finish within %s; the last phase to finish was %s", limit, last.Load())}
	}
}

// runConfig compiles and executes one configuration, storing the name of
// each phase in last as it finishes.
func runConfig(pm *ptx.Module, s *spec.Spec, cfg Config, ks knobs.Sources, oracle [][]byte, ro pipeline.RunOptions, cov *Coverage, last *atomic.Value) (res Result) {
	res = Result{Config: cfg, Kind: KindPass}
	stage := "compiling"
	defer func() {
		if x := recover(); x != nil {
			res.Kind, res.Detail = KindCrash, fmt.Sprintf("panic while %s: %v\n%s", stage, x, trimStack(debug.Stack()))
		}
	}()
	req := cfg.Request(ks)
	po, err := req.PhaseOptions(pm, pipeline.SessionControl{})
	if err != nil {
		res.Kind, res.Detail = KindCompileError, "the knob settings do not apply: "+err.Error()
		return res
	}
	var track *phaseTracker
	po.Observer = func(sn *pipeline.Snapshot) {
		last.Store(sn.Name)
		if track != nil {
			track.observe(sn)
		}
	}
	if cov != nil {
		track = &phaseTracker{cov: cov}
	}
	sess, err := pipeline.NewSessionFrom(pm, pipeline.Options{}, po)
	if err == nil {
		if track != nil {
			track.prev = ori.Hash(sess.Lowered)
		}
		err = sess.RunAll()
	}
	if err != nil {
		res.Kind, res.Detail = KindCompileError, err.Error()
		return res
	}
	stage = "executing"
	got, _, err := pipeline.ExecuteBuffers(sess.Module(), s, ro)
	if err != nil {
		res.Kind, res.Detail = KindExecError, err.Error()
		return res
	}
	if d := compareBuffers(s, oracle, got); d != "" {
		res.Kind, res.Detail = KindMismatch, d
	}
	return res
}

// compareBuffers returns "" when every buffer matches, else the first
// differing 32-bit words of each differing buffer.
func compareBuffers(s *spec.Spec, want, got [][]byte) string {
	var b strings.Builder
	for i := range want {
		if bytes.Equal(want[i], got[i]) {
			continue
		}
		w, g := want[i], got[i]
		n := 0
		total := 0
		for k := 0; k+4 <= len(w) && k+4 <= len(g); k += 4 {
			if !bytes.Equal(w[k:k+4], g[k:k+4]) {
				total++
				if n < 4 {
					fmt.Fprintf(&b, "%s word %d: got 0x%08x, want 0x%08x\n", s.Params[i].Name, k/4, le32(g[k:]), le32(w[k:]))
					n++
				}
			}
		}
		if total > n {
			fmt.Fprintf(&b, "%s: %d differing words in all\n", s.Params[i].Name, total)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// trimStack keeps the frames of a panic's stack that matter: from the
// panic down, at most 30 lines.
func trimStack(st []byte) string {
	lines := strings.Split(string(st), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			lines = lines[i:]
			break
		}
	}
	if len(lines) > 30 {
		lines = lines[:30]
	}
	return strings.Join(lines, "\n")
}

// phaseTracker records which phases changed the IR in one compilation,
// by hashing the module after each phase that ran (the manager does not
// hash without snapshots).
type phaseTracker struct {
	cov  *Coverage
	prev uint64
}

func (t *phaseTracker) observe(sn *pipeline.Snapshot) {
	if sn.Status != pipeline.StatusChanged && sn.Status != pipeline.StatusUnchanged {
		return
	}
	h := ori.Hash(sn.Module)
	t.cov.phaseRan(sn.Name, h != t.prev)
	t.prev = h
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
