package bisect

import (
	"context"
	"fmt"
	"math"
	"strings"

	"orilab/internal/irdiff"
	"orilab/pipeline"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// SitesResult is the answer of Sites.
type SitesResult struct {
	Spec     string `json:"spec"`
	OptLevel int    `json:"opt_level"`
	Oracle   string `json:"oracle"`
	Phase    string `json:"phase"`
	Index    int    `json:"index"`
	// Sites is how many rewrites the phase proposes in this compilation.
	Sites  int    `json:"sites"`
	Found  bool   `json:"found"`
	Reason string `json:"reason,omitempty"`
	// NoneFails is set when the output fails even with none of the
	// phase's rewrites applied. Alone, that points at an earlier phase;
	// after phase mode named this phase (auto mode), it means the phase
	// changes the IR in ways it does not count as rewrites, or a later
	// phase fails on what it left, and front doors word it so.
	NoneFails bool `json:"none_fails,omitempty"`
	// Site is the culprit rewrite: with sites 1..N-1 the phase's output
	// passes, with 1..N it fails.
	Site opt.Site `json:"site"`
	// Alone reports whether applying only this rewrite (and none of the
	// phase's others) also fails: false means the rewrite breaks the
	// kernel only together with earlier ones.
	Alone bool `json:"alone"`
	// Before and After are the rewritten instruction's text without and
	// with the rewrite ("" when it was deleted or is new).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Diff is the function's IR diff between the phase's output with sites
	// 1..N-1 and 1..N.
	Diff       string        `json:"diff,omitempty"`
	Mismatches []spec.Result `json:"mismatches,omitempty"`
	ExecError  string        `json:"exec_error,omitempty"`
	Executions int           `json:"executions"`
	// Hangs counts the executions that ended at the step limit (a
	// candidate that loops): they count as failures, and each one costs
	// the whole MaxWarpSteps, so a report says how many there were.
	Hangs int `json:"hangs,omitempty"`
	// Knob reproduces the failing configuration: -knob BisectSites=PHASE:N.
	Knob   string `json:"knob,omitempty"`
	Replay string `json:"replay"`
}

// Sites finds the single rewrite of phase that breaks the kernel. Every
// transforming phase numbers its rewrites (see pipeline/opt.Sites); the
// BisectSites knob applies only rewrites 1..k. The phase's output is
// checked for k = N (all rewrites: must fail) and k = 0 (none: must
// pass), then a binary search keeps lo passing and hi failing until
// hi = lo+1: rewrite hi is the culprit. Prefixes keep the numbering of the
// rewrites they enable, so the search is sound for any deterministic
// phase. The flakiness guard re-runs both ends; one more run applies the
// culprit alone, to say whether it breaks the kernel by itself.
func Sites(ctx context.Context, s *spec.Spec, opts Options, phase string) (*SitesResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	idx, err := pipeline.LookupPhase(phase)
	if err != nil {
		return nil, err
	}
	phase = pipeline.PhaseTable[idx].Name
	res := &SitesResult{Spec: s.Name, OptLevel: opts.OptLevel, Phase: phase, Index: idx, Replay: Replay(s, opts, "sites --phase "+phase)}
	type outcome struct {
		m     *ori.Module
		log   []opt.Site
		n     int
		ran   bool
		v     verdict
		known bool
		// failed is set when the compilation failed in a phase up to the
		// limited one: a failing verdict.
		failed *pipeline.PhaseError
	}
	var r *runner
	// build compiles up to and including the phase with BisectSites=lim.
	build := func(lim pipeline.SiteLimit) (*outcome, error) {
		req := opts.Request.WithKnobs(pipeline.KnobBisectSites + "=" + lim.String())
		src, err := readPTX(s)
		if err != nil {
			return nil, err
		}
		var snap *pipeline.Snapshot
		req.Observer = func(sn *pipeline.Snapshot) {
			if sn.Index == idx {
				snap = sn
			}
		}
		sess, err := req.StartFile(s.PTXPath, src, pipeline.SessionControl{Context: ctx})
		if err != nil {
			return nil, err
		}
		if r == nil {
			if r, err = newRunner(ctx, s, sess.Lowered, opts); err != nil {
				return nil, err
			}
		}
		o := &outcome{m: sess.Module()}
		if err := sess.RunTo(idx); err != nil {
			if o.failed = phaseError(ctx, err); o.failed == nil {
				return nil, err
			}
		}
		o.m = sess.Module()
		if snap != nil {
			o.ran = snap.Status == pipeline.StatusChanged || snap.Status == pipeline.StatusUnchanged
			o.log, o.n = snap.Sites, snap.NumSites
		}
		return o, nil
	}
	memo := map[int]*outcome{}
	probe := func(k int) (*outcome, error) {
		if o, ok := memo[k]; ok && o.known {
			return o, nil
		}
		opts.progress("bisect: %s with rewrites 1..%d (%d executions so far)", phase, k, execsOf(r))
		o, err := build(pipeline.SiteLimit{Phase: phase, Lo: 1, Hi: k})
		if err != nil {
			return nil, err
		}
		if o.failed != nil {
			o.v = verdict{err: compileFailure(o.failed)}
		} else if o.v, err = r.check(o.m); err != nil {
			return nil, err
		}
		o.known = true
		memo[k] = o
		return o, nil
	}
	defer func() {
		res.Executions = execsOf(r)
		if r != nil {
			res.Hangs = r.hangs
		}
	}()
	full, err := build(pipeline.SiteLimit{Phase: phase, Lo: 1, Hi: math.MaxInt32})
	if err != nil {
		return nil, err
	}
	res.Oracle = r.oracle
	if !full.ran {
		res.Reason = fmt.Sprintf("%s does not run in this configuration", phase)
		return res, nil
	}
	n := full.n
	res.Sites = n
	if n == 0 {
		res.Reason = fmt.Sprintf("%s proposed no countable rewrites (it may be a phase that does not count its rewrites, such as register allocation or scheduling)", phase)
		return res, nil
	}
	if full.v, err = r.check(full.m); err != nil {
		return nil, err
	}
	full.known = true
	memo[n] = full
	if full.v.pass {
		res.Reason = fmt.Sprintf("the output of %s passes with all %d rewrites: the miscompile is not in this phase", phase, n)
		return res, nil
	}
	none, err := probe(0)
	if err != nil {
		return nil, err
	}
	if !none.v.pass {
		res.NoneFails = true
		res.Reason = fmt.Sprintf("the output of %s fails even with none of its %d rewrites: an earlier phase is at fault (run --mode phase)", phase, n)
		return res, nil
	}
	lo, hi := 0, n
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		o, err := probe(mid)
		if err != nil {
			return nil, err
		}
		if o.v.pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	opts.progress("bisect: confirming rewrite %d of %s", hi, phase)
	again, err := build(pipeline.SiteLimit{Phase: phase, Lo: 1, Hi: hi})
	if err != nil {
		return nil, err
	}
	av, err := r.check(again.m)
	if err != nil {
		return nil, err
	}
	before, err := build(pipeline.SiteLimit{Phase: phase, Lo: 1, Hi: lo})
	if err != nil {
		return nil, err
	}
	bv, err := r.check(before.m)
	if err != nil {
		return nil, err
	}
	if !av.same(memo[hi].v) || !bv.pass {
		return nil, fmt.Errorf("the result is not reproducible: re-running %s with rewrites 1..%d and 1..%d gave different verdicts (flaky execution)", phase, lo, hi)
	}
	alone, err := build(pipeline.SiteLimit{Phase: phase, Lo: hi, Hi: hi})
	if err != nil {
		return nil, err
	}
	alv, err := r.check(alone.m)
	if err != nil {
		return nil, err
	}
	res.Alone = !alv.pass
	bad := memo[hi]
	for _, st := range bad.log {
		if st.N == hi {
			res.Site = st
		}
	}
	res.Found = true
	res.Mismatches, res.ExecError = bad.v.results, bad.v.err
	res.Knob = fmt.Sprintf("-knob %s=%s:%d", pipeline.KnobBisectSites, phase, hi)
	good := memo[lo].m
	if f := good.Func(res.Site.Func); f != nil {
		res.Before = instText(f, res.Site.Inst)
	}
	if f := bad.m.Func(res.Site.Func); f != nil {
		res.After = instText(f, res.Site.Inst)
		if g := good.Func(res.Site.Func); g != nil {
			res.Diff = irdiff.Unified(g.String(), f.String(), fmt.Sprintf("%s with rewrites 1..%d", phase, lo), fmt.Sprintf("%s with rewrites 1..%d", phase, hi), 3)
		}
	}
	return res, nil
}

func execsOf(r *runner) int {
	if r == nil {
		return 0
	}
	return r.execs
}

// instText returns the text of instruction id in f, "" when f has none.
func instText(f *ori.Func, id int32) string {
	if id == 0 {
		return ""
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.ID == id {
				return strings.TrimSpace(in.String())
			}
		}
	}
	return ""
}
