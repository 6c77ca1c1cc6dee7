package bisect

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// Options configures a bisection.
type Options struct {
	// Request is the compilation under search: target, -O, the knobs from
	// every source (the spec's PTX's .pragma strings included), the
	// phases disabled in every compilation, --maxrregcount, --verify and
	// a planted fault (a rehearsal with a known culprit:
	// faultinject.Plant). The searches change only DisablePhases (disable
	// mode) and add -knob settings (knobs and sites modes).
	pipeline.Request
	// MaxWarpSteps bounds each execution (0: the simulator's default).
	MaxWarpSteps int64
	// Progress, when set, receives one short line per step of the search.
	Progress func(line string)
}

// verdict is the outcome of one execution against the oracle.
type verdict struct {
	pass    bool
	results []spec.Result // the failing results only
	err     string        // a simulator fault: counts as a failure
}

func (v verdict) same(w verdict) bool {
	return v.pass == w.pass && v.err == w.err && reflect.DeepEqual(v.results, w.results)
}

// runner executes modules on a spec and checks them against the oracle:
// the spec's expected values, or the buffers of the IR right after
// lowering when the spec has none. It counts executions.
type runner struct {
	ctx    context.Context
	spec   *spec.Spec // the spec with the oracle's expectations
	opts   Options
	oracle string
	execs  int
	hangs  int // executions that ended at the step limit
}

// count says how many executions ran, and how many of them hung.
func (r *runner) count() string {
	s := fmt.Sprintf("%d executions", r.execs)
	if r.execs == 1 {
		s = "1 execution"
	}
	if r.hangs > 0 {
		s += fmt.Sprintf(", %d hung at the step limit", r.hangs)
	}
	return s
}

// newRunner prepares the oracle. For a spec without expectations it
// executes lowered (one execution) and turns its buffers into exact
// expectations.
func newRunner(ctx context.Context, s *spec.Spec, lowered *ori.Module, opts Options) (*runner, error) {
	if s.CompileOnly {
		return nil, fmt.Errorf("%s: a compile_only spec has nothing to execute, so there is no oracle to bisect with", s.File)
	}
	r := &runner{ctx: ctx, spec: s, opts: opts, oracle: "the spec's expected values"}
	if len(s.Expect) > 0 {
		return r, nil
	}
	bufs, err := r.execute(lowered)
	if err != nil {
		return nil, fmt.Errorf("the IR right after lowering (the oracle) does not execute: %v", err)
	}
	cp := *s
	cp.Expect = nil
	for i, p := range s.Params {
		if p.Kind != spec.KindBuffer || s.Owner(i) != i || bufs[i] == nil {
			continue
		}
		size, ok := spec.ElemSize(p.Elem)
		if !ok || size <= 0 {
			continue
		}
		count := len(bufs[i]) / size
		vals := make([]uint64, count)
		for k := range vals {
			var v uint64
			for b := 0; b < size; b++ {
				v |= uint64(bufs[i][k*size+b]) << (8 * b)
			}
			vals[k] = v
		}
		cp.Expect = append(cp.Expect, spec.Expect{Param: p.Name, ParamIndex: i, Elem: p.Elem, Count: count, Values: vals})
	}
	r.spec, r.oracle = &cp, "the output of the IR right after lowering"
	return r, nil
}

// check executes m and compares its buffers with the oracle.
func (r *runner) check(m *ori.Module) (verdict, error) {
	if err := r.ctx.Err(); err != nil {
		return verdict{}, err
	}
	bufs, err := r.execute(m)
	if err != nil {
		if r.ctx.Err() != nil {
			return verdict{}, r.ctx.Err()
		}
		return verdict{err: err.Error()}, nil
	}
	var bad []spec.Result
	for _, res := range r.spec.Check(bufs) {
		if !res.Pass {
			bad = append(bad, res)
		}
	}
	return verdict{pass: len(bad) == 0, results: bad}, nil
}

// execute runs the spec's kernel in m and returns the contents of every
// parameter's own allocation (nil for scalars and same_as parameters).
func (r *runner) execute(m *ori.Module) ([][]byte, error) {
	r.execs++
	// The context reaches the simulator: a candidate that loops would
	// otherwise hold a --timeout or a cancel for the whole step limit.
	bufs, _, err := pipeline.ExecuteBuffers(m, r.spec, pipeline.RunOptions{MaxWarpSteps: r.opts.MaxWarpSteps, Context: r.ctx})
	if errors.Is(err, sim.ErrStepLimit) {
		r.hangs++
		r.opts.progress("bisect: a candidate hung at the step limit (%s so far)", r.count())
	}
	return bufs, err
}

// compile runs the whole pipeline on the spec's PTX as opts.Request asks,
// with disable as its DisablePhases and extra -knob settings. The session
// comes back with a *pipeline.PhaseError too: what ran before the failing
// phase is in it, and the searches count the error as a failure of the
// kernel, like a wrong output (a verifier's rejection, a planted fault
// caught, a phase's error or panic). Other errors (the PTX does not parse
// or lower, a knob is wrong, cancellation) end the search.
func compile(ctx context.Context, s *spec.Spec, opts Options, disable []string, snapshots bool, knobArgs ...string) (*pipeline.Session, error) {
	req := opts.Request.WithKnobs(knobArgs...)
	req.DisablePhases = disable
	src, err := readPTX(s)
	if err != nil {
		return nil, err
	}
	pm, err := ptx.Parse(s.PTXPath, src)
	if err != nil {
		return nil, err
	}
	po, err := req.PhaseOptions(pm, pipeline.SessionControl{Context: ctx, Snapshots: snapshots})
	if err != nil {
		return nil, err
	}
	if err := checkNamed(po); err != nil {
		return nil, err
	}
	sess, err := pipeline.NewSessionFrom(pm, pipeline.Options{Arch: req.Arch}, po)
	if err != nil {
		return nil, err
	}
	if err := sess.RunAll(); err != nil {
		if pe := phaseError(ctx, err); pe != nil {
			return sess, pe
		}
		return nil, err
	}
	return sess, nil
}

// checkNamed refuses NamedPhases: it replaces the pipeline, and the
// searches (and the reducer's signatures) are over the default one.
func checkNamed(po pipeline.PhaseOptions) error {
	if len(po.NamedPhases) > 0 {
		return fmt.Errorf("NamedPhases replaces the pipeline; bisect the default pipeline (with DisablePhases if needed) instead")
	}
	return nil
}

// checkPipeline resolves opts' knobs for pm and refuses a request the
// searches cannot work with.
func checkPipeline(pm *ptx.Module, opts Options) error {
	po, err := opts.Request.PhaseOptions(pm, pipeline.SessionControl{})
	if err != nil {
		return err
	}
	return checkNamed(po)
}

// phaseError returns err as a *pipeline.PhaseError, or nil when it is not
// one or the search was cancelled.
func phaseError(ctx context.Context, err error) *pipeline.PhaseError {
	var pe *pipeline.PhaseError
	if ctx.Err() == nil && errors.As(err, &pe) {
		return pe
	}
	return nil
}

// compiledVerdict compiles and executes: a failing phase is a failing
// verdict whose err says what failed, so every mode treats a verifier's
// rejection, a compile error and a hang (the step limit) alike.
func (r *runner) compiledVerdict(ctx context.Context, s *spec.Spec, opts Options, disable []string, knobArgs ...string) (verdict, error) {
	sess, err := compile(ctx, s, opts, disable, false, knobArgs...)
	var pe *pipeline.PhaseError
	if errors.As(err, &pe) && sess != nil {
		return verdict{err: compileFailure(pe)}, nil
	}
	if err != nil {
		return verdict{}, err
	}
	return r.check(sess.Module())
}

// compileFailure is a failing phase as a verdict's err.
func compileFailure(pe *pipeline.PhaseError) string {
	return "compile error: " + firstLine(pe.Error())
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}
