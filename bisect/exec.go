package bisect

import (
	"context"
	"fmt"
	"reflect"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// Options configures a bisection.
type Options struct {
	// Compile is the target configuration.
	Compile pipeline.Options
	// OptLevel is the -O level (0-4); callers wanting ptxas's default set 3.
	OptLevel int
	// DisablePhases are phases disabled in every compilation (the
	// DisablePhases knob given on the command line).
	DisablePhases []string
	// MaxWarpSteps bounds each execution (0: the simulator's default).
	MaxWarpSteps int64
	// Progress, when set, receives one short line per step of the search.
	Progress func(line string)
	// Plant, when set, corrupts the IR right after phase PlantAfter in
	// every compilation of the search: a rehearsal with a known culprit
	// (see PlantBugspec).
	Plant      func(m *ori.Module) error
	PlantAfter string
	// PlantArgs are the command-line flags that reproduce the plant, for
	// replay commands.
	PlantArgs string
}

// phaseOptions completes po with what every compilation of a search
// shares: the planted fault.
func (o Options) phaseOptions(po pipeline.PhaseOptions) pipeline.PhaseOptions {
	po.Plant, po.PlantAfter = o.Plant, o.PlantAfter
	return po
}

// ApplyKnobs takes the knob settings that bear on a bisection: the
// DisablePhases knob joins o.DisablePhases. NamedPhases is refused: it
// replaces the pipeline, and the modes search the default one.
func (o *Options) ApplyKnobs(set *knobs.Set) error {
	var po pipeline.PhaseOptions
	if err := po.ApplyKnobs(set); err != nil {
		return err
	}
	if len(po.NamedPhases) > 0 {
		return fmt.Errorf("NamedPhases replaces the pipeline; bisect the default pipeline (with DisablePhases if needed) instead")
	}
	o.DisablePhases = append(o.DisablePhases, po.DisablePhases...)
	return nil
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
	bufs, _, err := pipeline.ExecuteBuffers(m, r.spec, pipeline.RunOptions{MaxWarpSteps: r.opts.MaxWarpSteps})
	return bufs, err
}

// compile runs the whole pipeline on the spec's PTX.
func compile(ctx context.Context, s *spec.Spec, opts Options, disable []string, snapshots bool) (*pipeline.Session, error) {
	return compileWith(s, opts, opts.phaseOptions(pipeline.PhaseOptions{OptLevel: opts.OptLevel, DisablePhases: disable, Context: ctx, NoSnapshots: !snapshots}))
}

// compileWith runs the whole pipeline on the spec's PTX with po.
func compileWith(s *spec.Spec, opts Options, po pipeline.PhaseOptions) (*pipeline.Session, error) {
	src, err := readPTX(s)
	if err != nil {
		return nil, err
	}
	sess, err := pipeline.NewSession(s.PTXPath, src, opts.Compile, po)
	if err != nil {
		return nil, err
	}
	if err := sess.RunAll(); err != nil {
		return nil, err
	}
	return sess, nil
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}
