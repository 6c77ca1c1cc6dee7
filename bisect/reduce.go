package bisect

// Reduce shrinks a failing kernel (its PTX and its launch) while the
// failure keeps its signature: the test-case reducer behind `orilab
// reduce`.
//
// The signature. A kernel fails in one of two ways. A miscompile: some
// phase's output executes differently from the IR right after lowering.
// Its signature is the culprit phase (the one phase mode names: the first
// changing phase whose output fails, found by the same binary search) and
// the kind of failure its output shows: which buffers hold wrong values,
// or the class of the simulator fault (the fault's message with numbers
// and addresses normalized away). A compile error: a phase returns an
// error, panics, or (with Verify) breaks an IR invariant. Its signature is
// the message, cut before any IR dump, with instruction IDs, register
// numbers and other numbers normalized away.
//
// The oracle is always the output of the IR right after lowering, for the
// original too, even when the spec has expected values: a candidate is a
// different program, so the spec's values mean nothing for it, and
// comparing the original with the same kind of oracle keeps the
// signatures comparable.
//
// A candidate is accepted only when it parses, passes the checker, lowers,
// its lowered IR executes without a fault (so a deletion that creates an
// out-of-bounds access or an endless loop is rejected rather than
// mistaken for the failure), it reads no register before writing it that
// the original's same function did not read so (see newUndefinedReads)
// and it fails with exactly the original's signature. Executions are capped at a few times the warp-steps of the
// lowered IR (see stepCap), so a candidate that loops forever costs
// little.
//
// The passes, repeated until a round changes nothing:
//  0. Every function definition but the kernel's is removed if it can be
//     (other kernels of the module, device functions no longer called).
//  1. ddmin (delta debugging, Zeller 2002) over the PTX instructions of
//     every function body. `ret` and `exit` stay, and so do declarations,
//     labels and directives. Only complements are tried (remove one of n
//     chunks): at n = 2 subsets and complements coincide, and for a
//     failure that needs a handful of instructions a subset test almost
//     never succeeds.
//  2. Labels that nothing references any more are dropped.
//  3. ddmin over blocks: a block is a label, the instructions up to the
//     next label, and every branch to that label; removing all three
//     together keeps the module valid where removing either alone does
//     not.
//  4. Operand simplification, greedily: an instruction's guard is dropped
//     (it always executes), a register or special-register source becomes
//     the immediate 0 or 1 of the instruction's type.
//
// For a miscompile the launch is shrunk before the program (a smaller
// launch makes every later execution cheaper) and again after it: the
// grid and block dimensions, integer scalars, the buffer lengths (a buffer
// the kernel still reads past makes the lowered IR fault, which rejects
// the candidate), and buffer contents (to zero, then to the element
// index). A compile error does not depend on the launch, which stays.
//
// Every candidate is a PTX text plus a launch; its verdict is cached by a
// hash of both. The final answer is assessed twice more from scratch (the
// flakiness guard) and must show the signature both times.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"orilab/internal/atomicfile"
	"orilab/pipeline"
	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// ReduceOptions configures Reduce. With Request.Verify the IR verifier
// runs after every phase, so that a phase that breaks an invariant is a
// compile error whose message is the signature.
type ReduceOptions struct {
	Options
}

// Signature is what must stay the same while a kernel is reduced.
type Signature struct {
	// Kind is SigMiscompile or SigCompileError.
	Kind string `json:"kind"`
	// Phase is the culprit phase of a miscompile, or the phase a compile
	// error names ("" when it names none).
	Phase string `json:"phase,omitempty"`
	// Failure is, for a miscompile, "wrong values in A, C" or "fault: "
	// and the fault's class; for a compile error, the normalized message.
	Failure string `json:"failure"`
}

// Signature kinds.
const (
	SigMiscompile   = "miscompile"
	SigCompileError = "compile error"
)

func (s Signature) String() string {
	if s.Kind == SigMiscompile {
		return "miscompile in " + s.Phase + ": " + s.Failure
	}
	return s.Kind + ": " + s.Failure
}

// ReduceResult is the answer of Reduce.
type ReduceResult struct {
	Spec     string `json:"spec"`
	OptLevel int    `json:"opt_level"`
	Oracle   string `json:"oracle"`
	// Found is set when the input fails; the reduction is then in the
	// result (WriteReduced writes it). Reason says why not otherwise.
	Found     bool       `json:"found"`
	Reason    string     `json:"reason,omitempty"`
	Signature *Signature `json:"signature,omitempty"`
	// TimedOut is set when the time ran out (or the context was
	// cancelled) during the reduction: the reduction is the best found so
	// far, still confirmed by the flakiness guard.
	TimedOut bool `json:"timed_out,omitempty"`
	// InstsBefore and InstsAfter count PTX instructions (in every
	// function body, ret and exit included); the After fields are set
	// when Found.
	InstsBefore int `json:"insts_before"`
	InstsAfter  int `json:"insts_after,omitempty"`
	// LaunchBefore and LaunchAfter read "grid 2x2x1 block 16x16x1".
	LaunchBefore string `json:"launch_before"`
	LaunchAfter  string `json:"launch_after,omitempty"`
	// Candidates counts the candidates assessed (distinct texts and
	// launches), CacheHits the candidates answered by the cache, Accepted
	// those that kept the signature.
	Candidates int `json:"candidates"`
	CacheHits  int `json:"cache_hits"`
	Accepted   int `json:"accepted"`
	// UndefinedRejected counts the candidates that kept the signature
	// but were rejected for reading a register the original defines
	// before reading.
	UndefinedRejected int `json:"undefined_rejected,omitempty"`
	// Executions counts simulator runs, including the oracles' and the
	// flakiness guard's.
	Executions int     `json:"executions"`
	Seconds    float64 `json:"seconds"`
	// Passes lists the reduction passes in the order they ran, with the
	// instruction count after each.
	Passes []ReducePass `json:"passes,omitempty"`
	// Mismatches and ExecError describe the reduced case's failure after
	// the culprit phase (a miscompile only).
	Mismatches []spec.Result `json:"mismatches,omitempty"`
	ExecError  string        `json:"exec_error,omitempty"`
	// PTXFile and SpecFile are set by WriteReduced.
	PTXFile  string `json:"ptx_file,omitempty"`
	SpecFile string `json:"spec_file,omitempty"`
	// Reproduce shows the reduced failure (set by WriteReduced); Replay
	// repeats the reduction.
	Reproduce string `json:"reproduce,omitempty"`
	Replay    string `json:"replay"`

	// PTX is the reduced module's text.
	PTX string `json:"-"`

	orig   *spec.Spec
	opts   ReduceOptions
	final  rcase
	oracle [][]byte // the reduced case's lowered-IR output (miscompiles)
	// stepLimit is the warp-step bound the reduced case's phases ran
	// under; a signature that is the step limit needs it to reproduce.
	stepLimit int64
}

// ReducePass is one pass of the reduction.
type ReducePass struct {
	Name       string `json:"name"`
	Candidates int    `json:"candidates"` // assessed (cache hits not counted)
	Accepted   int    `json:"accepted"`
	InstsAfter int    `json:"insts_after"`
}

// rcase is one test case: the PTX text and the launch.
type rcase struct {
	src    []byte
	launch spec.Launch
	params []spec.Param
}

// assessment is what one compilation and its executions say about a
// case.
type assessment struct {
	// invalid says why the case is not a test case at all (it does not
	// parse, check or lower, or its lowered IR does not execute).
	invalid string
	fails   bool
	sig     Signature
	// For a miscompile: the culprit's failing results or fault, and the
	// lowered IR's output.
	results []spec.Result
	execErr string
	oracle  [][]byte
	steps   int64 // warp-steps of the lowered IR's execution
}

// reducer holds the state of one reduction.
type reducer struct {
	ctx    context.Context
	opts   ReduceOptions
	orig   *spec.Spec
	file   string // the name the parser reports (the PTX's base name)
	target Signature
	// curSteps is the warp-steps of the current case's lowered IR (0
	// before the original has executed); it bounds the next candidates'
	// oracle executions.
	curSteps int64
	cache    map[[32]byte]cached
	res      *ReduceResult
	cur      rcase
	curMod   *ptx.Module
	// undef is, per function, the registers the original reads before
	// writing them on some path (lower.Options.UndefinedReads).
	undef map[string]map[string]bool
}

// Reduce shrinks s's kernel while its failure keeps its signature. The
// result has Found false (and a Reason) when the kernel does not fail. An
// error means the input is unusable (it does not parse or lower, its
// lowered IR faults), the time ran out before the original's failure was
// established, or the answer was not reproducible.
func Reduce(ctx context.Context, s *spec.Spec, opts ReduceOptions) (_ *ReduceResult, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("internal error: the reducer panicked: %v", x)
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	res := &ReduceResult{Spec: s.Name, OptLevel: opts.OptLevel, Oracle: "the output of the IR right after lowering",
		Replay: reduceReplay(s, opts), orig: s, opts: opts}
	if s.CompileOnly {
		res.Oracle = "none (a compile_only spec: only compile errors can be reduced)"
	}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	src, err := readPTX(s)
	if err != nil {
		return nil, err
	}
	r := &reducer{ctx: ctx, opts: opts, orig: s, file: filepath.Base(s.PTXPath), cache: map[[32]byte]cached{}, res: res}
	pm, err := ptx.Parse(r.file, src)
	if err != nil {
		return nil, fmt.Errorf("%s: the PTX does not parse, so there is nothing to reduce:\n%v", s.PTXPath, err)
	}
	if err := checkPipeline(pm, opts.Options); err != nil {
		return nil, err
	}
	if r.undef, err = undefinedReads(pm, opts.Request.Arch); err != nil {
		return nil, fmt.Errorf("%s: the PTX does not lower: %v", s.PTXPath, err)
	}
	res.InstsBefore = countInstrs(pm)
	res.LaunchBefore = launchString(s.Launch)
	orig := rcase{src: src, launch: s.Launch, params: s.Params}
	opts.progress("reduce: assessing the original")
	a, err := r.assess(orig, nil)
	if err != nil {
		return nil, err
	}
	if a.invalid != "" {
		return nil, fmt.Errorf("%s: %s", s.File, a.invalid)
	}
	if !a.fails {
		if s.CompileOnly {
			res.Reason = fmt.Sprintf("the kernel compiles at -O%d and the spec is compile_only: nothing fails", opts.OptLevel)
		} else {
			res.Reason = fmt.Sprintf("the kernel passes at -O%d (every phase's output executes like the IR right after lowering): nothing to reduce", opts.OptLevel)
		}
		return res, nil
	}
	r.target = a.sig
	res.Found, res.Signature = true, &r.target
	if r.target.Kind == SigCompileError {
		res.Oracle = "none (the failure is a compile error)"
	}

	// The candidates are printed by ptx.Print, so the reduction starts
	// from the printout of the original; it must fail the same way.
	canon := rcase{src: []byte(ptx.Print(pm)), launch: s.Launch, params: s.Params}
	ok, err := r.try(canon)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("internal error: the canonical printout of %s does not fail like the original (%s)", s.PTXPath, r.target)
	}
	// Decision: a timeout or a cancellation during the reduction keeps
	// the best case found so far (confirmed below like any answer);
	// before the original's signature is known there is nothing to keep.
	if err := r.run(); err != nil {
		if ctx.Err() == nil {
			return nil, err
		}
		res.TimedOut = true
	}

	// Flakiness guard: the answer, assessed twice more from scratch.
	r.ctx = context.Background()
	var last *assessment
	for i := 0; i < 2; i++ {
		opts.progress("reduce: confirming the reduced case (run %d of 2)", i+1)
		g, err := r.assess(r.cur, nil)
		if err != nil {
			return nil, err
		}
		if g.invalid != "" || !g.fails || g.sig != r.target {
			got := "passes"
			switch {
			case g.invalid != "":
				got = g.invalid
			case g.fails:
				got = g.sig.String()
			}
			return nil, fmt.Errorf("the result is not reproducible: re-running the reduced case gave %q instead of %q (flaky execution)", got, r.target)
		}
		last = g
	}
	res.final = r.cur
	res.PTX = string(r.cur.src)
	res.InstsAfter = countInstrs(r.curModule())
	res.LaunchAfter = launchString(r.cur.launch)
	res.Mismatches, res.ExecError, res.oracle = last.results, last.execErr, last.oracle
	res.stepLimit = r.stepCap(last.steps)
	return res, nil
}

// run is the reduction proper: launch, then program passes to a fixed
// point, then launch again.
func (r *reducer) run() error {
	if r.target.Kind == SigMiscompile {
		if err := r.pass("launch", r.shrinkLaunch); err != nil {
			return err
		}
	}
	for round := 1; ; round++ {
		before := r.res.Accepted
		for _, p := range []struct {
			name string
			fn   func() error
		}{
			{"functions", r.dropFunctions},
			{"instructions", r.ddminInstrs},
			{"labels", r.dropUnusedLabels},
			{"blocks", r.ddminBlocks},
			{"operands", r.simplifyOperands},
		} {
			if err := r.pass(fmt.Sprintf("%s (round %d)", p.name, round), p.fn); err != nil {
				return err
			}
		}
		if r.res.Accepted == before {
			break
		}
	}
	if r.target.Kind == SigMiscompile {
		return r.pass("launch (again)", r.shrinkLaunch)
	}
	return nil
}

func (r *reducer) pass(name string, fn func() error) error {
	before, cands := r.res.Accepted, r.res.Candidates
	err := fn()
	r.res.Passes = append(r.res.Passes, ReducePass{Name: name, Candidates: r.res.Candidates - cands,
		Accepted: r.res.Accepted - before, InstsAfter: countInstrs(r.curModule())})
	return err
}

// curModule returns the parsed current case.
func (r *reducer) curModule() *ptx.Module {
	if r.curMod == nil {
		m, err := ptx.Parse(r.file, r.cur.src)
		if err != nil {
			// Every accepted case parsed when it was assessed.
			panic(fmt.Sprintf("reduce: an accepted case does not parse: %v", err))
		}
		r.curMod = m
	}
	return r.curMod
}

// try assesses c against the target signature and makes it the current
// case when it matches.
func (r *reducer) try(c rcase) (bool, error) {
	if err := r.ctx.Err(); err != nil {
		return false, err
	}
	key := c.key()
	v, seen := r.cache[key]
	if seen {
		r.res.CacheHits++
	} else {
		r.res.Candidates++
		a, err := r.assess(c, &r.target)
		if err != nil {
			return false, err
		}
		ok := a.invalid == "" && a.fails && a.sig == r.target
		if ok && r.newUndefinedReads(c) {
			ok = false
			r.res.UndefinedRejected++
		}
		v = cached{ok: ok, steps: a.steps}
		r.cache[key] = v
	}
	ok := v.ok
	if !ok && (r.res.Candidates+r.res.CacheHits)%25 == 0 {
		r.opts.progress("reduce: %d of %d instructions left (%d candidates, %d executions)",
			countInstrs(r.curModule()), r.res.InstsBefore, r.res.Candidates, r.res.Executions)
	}
	if ok {
		r.res.Accepted++
		r.cur, r.curMod, r.curSteps = c, nil, v.steps
		r.opts.progress("reduce: %d of %d instructions left (%d candidates, %d executions)",
			countInstrs(r.curModule()), r.res.InstsBefore, r.res.Candidates, r.res.Executions)
	}
	return ok, nil
}

// undefinedReads returns, per function of pm, the PTX registers that
// some path from the entry reads before writing them.
func undefinedReads(pm *ptx.Module, arch int) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	_, err := lower.Lower(pm, lower.Options{Arch: arch, UndefinedReads: func(fn string, regs []string) {
		set := map[string]bool{}
		for _, r := range regs {
			set[r] = true
		}
		out[fn] = set
	}})
	return out, err
}

// newUndefinedReads reports whether candidate c reads a register before
// writing it where the original's function of the same name does not.
//
// Decision: such a candidate is rejected even when it keeps the
// signature. Deleting a definition leaves its register undefined, which
// PTX allows (the lowering defines it as zero); the failure may then
// still match by signature but come from a different cause, and the
// reduced program reads as a broken one. A register the original itself
// reads undefined stays allowed.
func (r *reducer) newUndefinedReads(c rcase) bool {
	pm, err := ptx.Parse(r.file, c.src)
	if err != nil {
		return true
	}
	got, err := undefinedReads(pm, r.opts.Request.Arch)
	if err != nil {
		return true
	}
	for fn, regs := range got {
		for reg := range regs {
			if !r.undef[fn][reg] {
				return true
			}
		}
	}
	return false
}

// cached is the verdict on a candidate: whether it kept the signature,
// and its lowered IR's warp-steps.
type cached struct {
	ok    bool
	steps int64
}

func (c rcase) key() [32]byte {
	h := sha256.New()
	h.Write(c.src)
	fmt.Fprintf(h, "\x00%v", c.launch)
	for _, p := range c.params {
		fmt.Fprintf(h, "\x00%q %q %q %d %q %x %q %q %q", p.Name, p.Kind, p.Elem, p.Count, p.Init, p.InitHexLE, p.SameAs, p.Type, p.Value)
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// specFor returns the original spec with c's launch and parameters and
// without expectations.
func (r *reducer) specFor(c rcase) *spec.Spec {
	sp := *r.orig
	sp.Launch, sp.Params, sp.Expect = c.launch, c.params, nil
	return &sp
}

// assess compiles and executes c. With a target it may stop as soon as
// the signature cannot match (the returned signature is then only
// "different"); without one it establishes the full signature. The error
// is for a cancelled context only: everything wrong with c is in
// invalid.
func (r *reducer) assess(c rcase, target *Signature) (a *assessment, err error) {
	defer func() {
		if x := recover(); x != nil {
			a, err = &assessment{invalid: fmt.Sprintf("internal error while assessing a candidate: %v", x)}, nil
		}
	}()
	pm, err := ptx.Parse(r.file, c.src)
	if err != nil {
		return &assessment{invalid: "the PTX does not parse: " + firstLine(err.Error())}, nil
	}
	execute := !r.orig.CompileOnly && (target == nil || target.Kind == SigMiscompile)
	compile := func(snapshots bool) (*pipeline.Session, *assessment, error) {
		sess, err := r.opts.Request.Start(pm, pipeline.SessionControl{Context: r.ctx, Snapshots: snapshots})
		if err != nil {
			return nil, &assessment{invalid: "the PTX does not lower: " + firstLine(err.Error())}, nil
		}
		return sess, nil, nil
	}
	runAll := func(sess *pipeline.Session) (*assessment, error) {
		if err := sess.RunAll(); err != nil {
			if cerr := r.ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return &assessment{fails: true, sig: compileSignature(err.Error())}, nil
		}
		return nil, nil
	}
	sp := r.specFor(c)
	var orc *spec.Spec
	var limit int64
	oracle := func(lowered *ori.Module) *assessment {
		r.res.Executions++
		bufs, st, err := pipeline.ExecuteBuffers(lowered, sp, pipeline.RunOptions{MaxWarpSteps: r.stepCap(r.curSteps)})
		if err != nil {
			return &assessment{invalid: "the IR right after lowering (the oracle) does not execute: " + err.Error()}
		}
		orc, limit = oracleSpec(sp, bufs), r.stepCap(st.WarpSteps)
		a = &assessment{oracle: bufs, steps: st.WarpSteps}
		return nil
	}
	var final *verdict
	var finalClass string
	if target != nil {
		// A quick first look without snapshots (no per-phase copies,
		// hashes and measurements): most candidates are rejected here
		// because they do not fail at all. The phases change the
		// lowered IR in place, so the oracle runs first.
		sess, bad, err := compile(false)
		if bad != nil || err != nil {
			return bad, err
		}
		if execute {
			if bad := oracle(sess.Lowered); bad != nil {
				return bad, nil
			}
		}
		if bad, err := runAll(sess); bad != nil || err != nil {
			return bad, err
		}
		if !execute {
			return &assessment{}, nil
		}
		v, class, err := r.execute(sess.Module(), orc, limit)
		if err != nil {
			return nil, err
		}
		if v.pass {
			return a, nil
		}
		final, finalClass = &v, class
	}
	sess, bad, err := compile(true)
	if bad != nil || err != nil {
		return bad, err
	}
	if bad, err := runAll(sess); bad != nil || err != nil {
		return bad, err
	}
	if !execute {
		return &assessment{}, nil
	}
	if orc == nil {
		if bad := oracle(sess.Lowered); bad != nil {
			return bad, nil
		}
	}
	var changed []*pipeline.Snapshot
	for _, sn := range sess.Snapshots {
		if sn.Status == pipeline.StatusChanged {
			changed = append(changed, sn)
		}
	}
	type probe struct {
		v     verdict
		class string
	}
	memo := map[int]probe{0: {v: verdict{pass: true}}}
	if final != nil && len(changed) > 0 {
		memo[len(changed)] = probe{*final, finalClass}
	}
	check := func(k int) (probe, error) {
		if p, ok := memo[k]; ok {
			return p, nil
		}
		v, class, err := r.execute(changed[k-1].Module, orc, limit)
		if err != nil {
			return probe{}, err
		}
		memo[k] = probe{v, class}
		return memo[k], nil
	}
	different := &assessment{fails: true, sig: Signature{Kind: SigMiscompile, Failure: "(differs)"}}
	n := len(changed)
	last, err := check(n)
	if err != nil {
		return nil, err
	}
	if last.v.pass {
		return a, nil
	}
	if target != nil {
		// Early rejection: the target phase must have changed the IR,
		// its output must fail the same way and its predecessor's must
		// pass. The binary search below then lands on it exactly when
		// phase mode would.
		at := 0
		for k, sn := range changed {
			if sn.Name == target.Phase {
				at = k + 1
			}
		}
		if at == 0 {
			return different, nil
		}
		p, err := check(at)
		if err != nil {
			return nil, err
		}
		if p.v.pass || p.class != target.Failure {
			return different, nil
		}
		if p, err = check(at - 1); err != nil {
			return nil, err
		}
		if !p.v.pass {
			return different, nil
		}
	}
	// The search of phase mode: lo passes, hi fails.
	lo, hi := 0, n
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		p, err := check(mid)
		if err != nil {
			return nil, err
		}
		if p.v.pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	cul := memo[hi]
	a.fails = true
	a.sig = Signature{Kind: SigMiscompile, Phase: changed[hi-1].Name, Failure: cul.class}
	a.results, a.execErr = cul.v.results, cul.v.err
	return a, nil
}

// stepCap bounds an execution given the warp-steps of a lowered IR
// (0: unknown, the user's limit applies).
//
// Decision: a phase's output may take at most four times the steps of the
// same case's lowered IR, plus 10,000; the lowered IR of a candidate may
// take that much of the current case's. A deletion that makes a loop
// endless then costs a few times one execution instead of the 50M-step
// default, and since a case's own bound depends only on the case, its
// verdict is the same whenever it is assessed (the cache and the
// flakiness guard rely on that).
func (r *reducer) stepCap(steps int64) int64 {
	limit := r.opts.MaxWarpSteps
	if limit <= 0 {
		limit = sim.DefaultMaxWarpSteps
	}
	if steps <= 0 {
		return limit
	}
	return min(limit, 4*steps+10_000)
}

// execute runs m on the oracle spec and classifies the outcome.
func (r *reducer) execute(m *ori.Module, orc *spec.Spec, limit int64) (verdict, string, error) {
	if err := r.ctx.Err(); err != nil {
		return verdict{}, "", err
	}
	r.res.Executions++
	bufs, _, err := pipeline.ExecuteBuffers(m, orc, pipeline.RunOptions{MaxWarpSteps: limit})
	if err != nil {
		return verdict{err: err.Error()}, "fault: " + faultClass(err), nil
	}
	var bad []spec.Result
	var names []string
	for _, res := range orc.Check(bufs) {
		if !res.Pass {
			bad = append(bad, res)
			names = append(names, res.Param)
		}
	}
	if len(bad) == 0 {
		return verdict{pass: true}, "", nil
	}
	sort.Strings(names)
	return verdict{results: bad}, "wrong values in " + strings.Join(names, ", "), nil
}

// oracleSpec turns the lowered IR's buffers into exact expectations on
// every buffer with its own allocation (as newRunner does).
func oracleSpec(sp *spec.Spec, bufs [][]byte) *spec.Spec {
	cp := *sp
	cp.Expect = nil
	for i, p := range sp.Params {
		if p.Kind != spec.KindBuffer || sp.Owner(i) != i || bufs[i] == nil {
			continue
		}
		cp.Expect = append(cp.Expect, spec.Expect{Param: p.Name, ParamIndex: i, Elem: p.Elem, Count: p.Count, Values: elemValues(bufs[i], p.Elem, p.Count)})
	}
	return &cp
}

// elemValues reads count little-endian elements of elem.
func elemValues(b []byte, elem string, count int) []uint64 {
	size, _ := spec.ElemSize(elem)
	vals := make([]uint64, count)
	for k := range vals {
		var v uint64
		for i := 0; i < size && k*size+i < len(b); i++ {
			v |= uint64(b[k*size+i]) << (8 * i)
		}
		vals[k] = v
	}
	return vals
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var (
	// numberedName matches a number that is part of a name: an
	// instruction ID (#31), a PTX or virtual register (%r12), a physical
	// register or a block (R12, UP3, BB4).
	numberedName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(#|%[A-Za-z_]+|\b(?:UR|UP|BB|R|P))[0-9]+\b`) })
	hexNumber    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b0[xX][0-9a-fA-F]+\b`) })
	decNumber    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9]+\b`) })
	phaseInError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^phase _ ([A-Za-z0-9_]+)`) })
)

// normalize replaces the numbers of a message (IDs, register numbers,
// addresses, counts, positions) by "_", keeping the words.
func normalize(s string) string {
	s = hexNumber().ReplaceAllString(s, "0x_")
	s = numberedName().ReplaceAllString(s, "${1}_")
	return decNumber().ReplaceAllString(s, "_")
}

// compileSignature turns a compilation error into a signature: the
// message without the IR dump that follows a broken invariant, its first
// line, and (when that line only introduces the details, as
// "phase 40 X broke an invariant:" does) the first detail line.
func compileSignature(msg string) Signature {
	msg, _, _ = strings.Cut(msg, "\n--- IR")
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	keep := lines[0]
	if strings.HasSuffix(keep, ":") && len(lines) > 1 {
		keep += " " + strings.TrimSpace(lines[1])
	}
	keep = normalize(keep)
	sig := Signature{Kind: SigCompileError, Failure: keep}
	if m := phaseInError().FindStringSubmatch(keep); m != nil {
		sig.Phase = m[1]
	}
	return sig
}

// faultClass is the kind of an execution error: a simulator fault's
// message (without the instruction, thread and CTA the fault names), or
// the error's text, normalized.
//
// Decision: the class ends before the first " (" or ": ", which is where
// the simulator's messages put details that a reduction legitimately
// changes: the buffer an address is near, which threads of a warp
// diverged at a barrier, the CTA that deadlocked.
func faultClass(err error) string {
	msg := err.Error()
	var f *sim.Fault
	if errors.As(err, &f) {
		msg = f.Msg
	}
	msg = firstLine(msg)
	for _, sep := range []string{" (", ": "} {
		msg, _, _ = strings.Cut(msg, sep)
	}
	return normalize(strings.TrimSpace(msg))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func launchString(l spec.Launch) string {
	s := fmt.Sprintf("grid %dx%dx%d block %dx%dx%d", l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2])
	if l.DynamicSharedBytes > 0 {
		s += fmt.Sprintf(" dynamic shared %d bytes", l.DynamicSharedBytes)
	}
	return s
}

// reduceReplay is the command line that repeats a reduction.
func reduceReplay(s *spec.Spec, opts ReduceOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "orilab reduce %s", ShellQuote(s.File))
	b.WriteString(QuoteArgs(opts.Request.Args()))
	if opts.MaxWarpSteps > 0 {
		fmt.Fprintf(&b, " --max-steps %d", opts.MaxWarpSteps)
	}
	return b.String()
}

// --- The PTX side: the reduction passes (ptxrewrite.go does the rewriting). ---

// withDeleted returns the current case with the statements in del
// removed from base.
func (r *reducer) withDeleted(base *ptx.Module, del map[int]bool) rcase {
	m := rewrite(base, func(i int, s ptx.Stmt) ptx.Stmt {
		if del[i] {
			return nil
		}
		return s
	})
	return rcase{src: []byte(ptx.Print(m)), launch: r.cur.launch, params: r.cur.params}
}

// ddmin removes as many of units (each a set of statement numbers of
// base) as it can while the signature stays, and leaves the result as the
// current case. It tries complements only: split the kept units into n
// chunks, try removing each chunk; on success continue with n-1 chunks of
// what is left, else double n until the chunks are single units. The end
// state is 1-minimal: removing any single remaining unit loses the
// signature (every unit was tried alone at the last granularity, after the
// last removal).
func (r *reducer) ddmin(base *ptx.Module, units [][]int) error {
	kept := make([]int, len(units))
	for i := range kept {
		kept[i] = i
	}
	build := func(keep []int) rcase {
		in := make(map[int]bool, len(keep))
		for _, u := range keep {
			in[u] = true
		}
		del := map[int]bool{}
		for u, stmts := range units {
			if !in[u] {
				for _, s := range stmts {
					del[s] = true
				}
			}
		}
		return r.withDeleted(base, del)
	}
	n, start := 2, 0
	for len(kept) > 0 {
		n = min(n, len(kept))
		removed := false
		for step := 0; step < n; step++ {
			ci := (start + step) % n
			lo, hi := ci*len(kept)/n, (ci+1)*len(kept)/n
			rest := append(append([]int(nil), kept[:lo]...), kept[hi:]...)
			ok, err := r.try(build(rest))
			if err != nil {
				return err
			}
			if ok {
				kept, removed = rest, true
				n = max(n-1, 2)
				// Resume with the chunk that now sits where the
				// removed one was, rather than at the first chunk:
				// the earlier chunks were just found necessary, and
				// re-testing them after every removal makes the fine
				// granularities quadratic.
				start = ci
				break
			}
		}
		if !removed {
			if n >= len(kept) {
				break
			}
			n, start = min(2*n, len(kept)), 0
		}
	}
	return nil
}

// dropFunctions removes, one at a time, every function definition other
// than the spec's kernel (other kernels, device functions no longer
// called: the checker rejects the removal of one that is).
func (r *reducer) dropFunctions() error {
	for k := 0; k < len(r.curModule().Items); k++ {
		base := r.curModule()
		f, ok := base.Items[k].(*ptx.Func)
		if !ok || f.Body == nil || f.Entry && f.Name == r.orig.Kernel {
			continue
		}
		cp := *base
		cp.Items = append(append([]ptx.Item(nil), base.Items[:k]...), base.Items[k+1:]...)
		ok, err := r.try(rcase{src: []byte(ptx.Print(&cp)), launch: r.cur.launch, params: r.cur.params})
		if err != nil {
			return err
		}
		if ok {
			k--
		}
	}
	return nil
}

// ddminInstrs is pass 1: ddmin over single instructions.
func (r *reducer) ddminInstrs() error {
	base := r.curModule()
	var units [][]int
	walk(base, func(i int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		if in, ok := s.(*ptx.Instr); ok && !keepsControl(in) {
			units = append(units, []int{i})
		}
	})
	return r.ddmin(base, units)
}

// dropUnusedLabels is pass 2: one candidate without every label nothing
// refers to.
func (r *reducer) dropUnusedLabels() error {
	base := r.curModule()
	refs := referenced(base)
	del := map[int]bool{}
	walk(base, func(i int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		if l, ok := s.(*ptx.Label); ok && !refs[l.Name] {
			del[i] = true
		}
	})
	if len(del) == 0 {
		return nil
	}
	_, err := r.try(r.withDeleted(base, del))
	return err
}

// ddminBlocks is pass 3: ddmin over blocks. A block is a label, the
// instructions after it up to the next label (ret and exit excepted) and
// every bra to the label. Labels that something other than a bra names
// (a branch-target table, an address taken) are left alone.
func (r *reducer) ddminBlocks() error {
	base := r.curModule()
	type info struct {
		unit  []int
		other bool // named by something other than a bra target
	}
	labels := map[string]*info{}
	var order []string
	walk(base, func(i int, s ptx.Stmt, list []ptx.Stmt, pos int) {
		l, ok := s.(*ptx.Label)
		if !ok {
			return
		}
		u := []int{i}
		for k := pos + 1; k < len(list); k++ {
			if _, ok := list[k].(*ptx.Label); ok {
				break
			}
			if _, ok := list[k].(*ptx.Block); ok {
				break // its statements are numbered in between
			}
			if in, ok := list[k].(*ptx.Instr); ok && !keepsControl(in) {
				u = append(u, i+k-pos)
			}
		}
		labels[l.Name] = &info{unit: u}
		order = append(order, l.Name)
	})
	var opnd func(o *ptx.Operand, isTarget bool)
	opnd = func(o *ptx.Operand, isTarget bool) {
		if o == nil {
			return
		}
		if li := labels[o.Name]; li != nil && o.Name != "" && !isTarget {
			li.other = true
		}
		for _, e := range o.Elems {
			opnd(e, false)
		}
	}
	walk(base, func(i int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		switch x := s.(type) {
		case *ptx.Instr:
			for k, a := range x.Args {
				if x.Op == "bra" && k == 0 && a.Kind == ptx.OpName {
					if li := labels[a.Name]; li != nil {
						li.unit = append(li.unit, i)
					}
					continue
				}
				opnd(a, false)
			}
		case *ptx.Directive:
			for _, a := range x.Args {
				if li := labels[strings.TrimSpace(a)]; li != nil {
					li.other = true
				}
			}
		}
	})
	var units [][]int
	for _, name := range order {
		if li := labels[name]; !li.other {
			units = append(units, li.unit)
		}
	}
	return r.ddmin(base, units)
}

// operandEdit is one simplification of one instruction. apply returns a
// modified copy of the instruction, using alternative alt (0 or 1 for an
// immediate; a guard has one), or nil when it does not apply any more.
type operandEdit struct {
	stmt  int
	alts  int
	apply func(in *ptx.Instr, alt int) *ptx.Instr
}

// simplifyOperands is pass 4: for every instruction (branches, calls,
// ret and exit excepted), drop its guard, and replace each register or
// special-register source (every argument after the first, which is the
// destination or a store's address) by 0, else by 1, of the
// instruction's type. Edits are tried one at a time and kept when the
// signature stays; the checker rejects immediates where PTX has none.
func (r *reducer) simplifyOperands() error {
	base := r.curModule()
	var edits []operandEdit
	walk(base, func(i int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		in, ok := s.(*ptx.Instr)
		if !ok || in.Op == "bra" || in.Op == "brx" || in.Op == "call" || keepsControl(in) {
			return
		}
		if in.Guard != nil {
			edits = append(edits, operandEdit{i, 1, func(in *ptx.Instr, _ int) *ptx.Instr {
				c := *in
				c.Guard = nil
				return &c
			}})
		}
		imms := immediatesFor(in)
		if len(imms) == 0 {
			return
		}
		for k := 1; k < len(in.Args); k++ {
			a := in.Args[k]
			switch a.Kind {
			case ptx.OpName:
				if a.Not || a.HasIdx || a.HasOff {
					continue
				}
				k := k
				edits = append(edits, operandEdit{i, len(imms), func(in *ptx.Instr, alt int) *ptx.Instr {
					return replaceArg(in, k, -1, imms[alt])
				}})
			case ptx.OpVec:
				for e, el := range a.Elems {
					if el.Kind == ptx.OpName && !el.Not {
						k, e := k, e
						edits = append(edits, operandEdit{i, len(imms), func(in *ptx.Instr, alt int) *ptx.Instr {
							return replaceArg(in, k, e, imms[alt])
						}})
					}
				}
			}
		}
	})
	// Accepted edits accumulate; each candidate applies them all plus one
	// more to base (statement numbers do not move: no statement is
	// deleted).
	type choice struct {
		edit operandEdit
		alt  int
	}
	var accepted []choice
	build := func(extra choice) rcase {
		byStmt := map[int][]choice{}
		for _, c := range append(accepted[:len(accepted):len(accepted)], extra) {
			byStmt[c.edit.stmt] = append(byStmt[c.edit.stmt], c)
		}
		m := rewrite(base, func(i int, s ptx.Stmt) ptx.Stmt {
			cs := byStmt[i]
			if len(cs) == 0 {
				return s
			}
			in := s.(*ptx.Instr)
			for _, c := range cs {
				if out := c.edit.apply(in, c.alt); out != nil {
					in = out
				}
			}
			return in
		})
		return rcase{src: []byte(ptx.Print(m)), launch: r.cur.launch, params: r.cur.params}
	}
	for _, e := range edits {
		for alt := 0; alt < e.alts; alt++ {
			ok, err := r.try(build(choice{e, alt}))
			if err != nil {
				return err
			}
			if ok {
				accepted = append(accepted, choice{e, alt})
				break
			}
		}
	}
	return nil
}

// --- The launch side. ---

// shrinkLaunch makes the launch smaller, repeating while a round changes
// something (at most three rounds): the grid, then the block, each
// dimension first to 1 and else halved while the signature stays; the
// dynamic shared size the same way; integer scalars (first, since sizes
// and trip counts usually come from them and bound how far buffers can
// shrink) to 0, else halved; then every buffer's length to 1, else
// halved, and its contents to zero, else to the element index.
func (r *reducer) shrinkLaunch() error {
	for round := 0; round < 3; round++ {
		before := r.res.Accepted
		if err := r.shrinkLaunchOnce(); err != nil {
			return err
		}
		if r.res.Accepted == before {
			break
		}
	}
	return nil
}

func (r *reducer) shrinkLaunchOnce() error {
	with := func(f func(c *rcase)) rcase {
		c := rcase{src: r.cur.src, launch: r.cur.launch, params: append([]spec.Param(nil), r.cur.params...)}
		f(&c)
		return c
	}
	// shrinkInt tries floor, then halving while that keeps the
	// signature.
	shrinkInt := func(get func(c rcase) int, set func(c *rcase, v int), floor int) error {
		if get(r.cur) <= floor {
			return nil
		}
		ok, err := r.try(with(func(c *rcase) { set(c, floor) }))
		if err != nil || ok {
			return err
		}
		for v := get(r.cur); v/2 > floor; v = get(r.cur) {
			ok, err := r.try(with(func(c *rcase) { set(c, v/2) }))
			if err != nil || !ok {
				return err
			}
		}
		return nil
	}
	if r.cur.launch.Grid != [3]int{1, 1, 1} {
		if _, err := r.try(with(func(c *rcase) { c.launch.Grid = [3]int{1, 1, 1} })); err != nil {
			return err
		}
	}
	for _, grid := range []bool{true, false} {
		dims := func(c *rcase) *[3]int {
			if grid {
				return &c.launch.Grid
			}
			return &c.launch.Block
		}
		for d := 0; d < 3; d++ {
			err := shrinkInt(func(c rcase) int { return dims(&c)[d] }, func(c *rcase, v int) { dims(c)[d] = v }, 1)
			if err != nil {
				return err
			}
		}
	}
	err := shrinkInt(func(c rcase) int { return c.launch.DynamicSharedBytes },
		func(c *rcase, v int) { c.launch.DynamicSharedBytes = v }, 0)
	if err != nil {
		return err
	}
	for i, p := range r.cur.params {
		if p.Kind != spec.KindScalar || spec.IsFloat(p.Type) {
			continue
		}
		if v, err := strconv.ParseInt(p.Value, 10, 64); err != nil || v <= 0 {
			continue // negative, or 0x bits: left as written
		}
		err := shrinkInt(func(c rcase) int {
			n, _ := strconv.Atoi(c.params[i].Value)
			return n
		}, func(c *rcase, v int) { c.params[i].Value = strconv.Itoa(v) }, 0)
		if err != nil {
			return err
		}
	}
	for i, p := range r.cur.params {
		if p.Kind != spec.KindBuffer || p.SameAs != "" {
			continue
		}
		err := shrinkInt(func(c rcase) int { return c.params[i].Count }, func(c *rcase, v int) {
			c.params[i].Count = v
			size, _ := spec.ElemSize(c.params[i].Elem)
			if n := v * size; len(c.params[i].InitHexLE) > n {
				c.params[i].InitHexLE = c.params[i].InitHexLE[:n]
			}
		}, 1)
		if err != nil {
			return err
		}
		for _, init := range []string{"zero", "index"} {
			if r.cur.params[i].Init == init {
				break
			}
			ok, err := r.try(with(func(c *rcase) { c.params[i].Init, c.params[i].InitHexLE = init, nil }))
			if err != nil || ok {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// --- Output. ---

// WriteReduced writes the reduction of res into dir as NAME.reduced.ptx
// and NAME.reduced.json (NAME: the spec file's name without .json), each
// atomically, checks that the written spec loads, and sets res.PTXFile,
// res.SpecFile and res.Reproduce.
//
// Decision: the reduced spec carries the output of its own lowered IR as
// exact expectations (values_hex) rather than no expectations. Both are
// valid specs and give `orilab bisect` the same oracle, but with values
// `orilab run` shows the failure itself (exit 1 and the first differing
// elements) instead of "no expectations". A compile error's spec is
// compile_only.
func WriteReduced(res *ReduceResult, dir string) error {
	if !res.Found || res.orig == nil || res.final.src == nil {
		return fmt.Errorf("%s: there is no reduction to write", res.Spec)
	}
	name := strings.TrimSuffix(filepath.Base(res.orig.File), ".json")
	ptxPath := filepath.Join(dir, name+".reduced.ptx")
	specPath := filepath.Join(dir, name+".reduced.json")
	data, err := reducedSpecJSON(res, name+".reduced.ptx")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(ptxPath, res.final.src); err != nil {
		return err
	}
	if err := atomicfile.Write(specPath, data); err != nil {
		return err
	}
	if _, err := spec.Load(specPath); err != nil {
		return fmt.Errorf("internal error: the reduced spec does not load: %v", err)
	}
	res.PTXFile, res.SpecFile = ptxPath, specPath
	res.Reproduce = reproduceCommand(res, specPath, ptxPath)
	return nil
}

// reproduceCommand shows the reduced failure: a bisection for a
// miscompile, a compilation for a compile error.
func reproduceCommand(res *ReduceResult, specPath, ptxPath string) string {
	var b strings.Builder
	if res.Signature.Kind == SigMiscompile {
		fmt.Fprintf(&b, "orilab bisect %s", ShellQuote(specPath))
	} else {
		b.WriteString("orilab compile")
	}
	b.WriteString(QuoteArgs(res.opts.Request.Args()))
	if res.Signature.Kind == SigMiscompile {
		if strings.Contains(res.Signature.Failure, "did not finish within") {
			// The failure is the step limit the reduction ran under.
			fmt.Fprintf(&b, " --max-steps %d", res.stepLimit)
		}
		b.WriteString(" --mode phase")
	} else {
		fmt.Fprintf(&b, " --emit ir %s", ShellQuote(ptxPath))
	}
	return b.String()
}

// reducedSpecJSON writes the reduced case as a kernel spec: its launch
// and parameters, and as expectations the oracle's buffers (a miscompile)
// or compile_only (a compile error).
func reducedSpecJSON(res *ReduceResult, ptxName string) ([]byte, error) {
	c := res.final
	out := &spec.Spec{Name: res.orig.Name + ".reduced", PTX: ptxName, Kernel: res.orig.Kernel, Launch: c.launch}
	for _, p := range c.params {
		q := spec.Param{Name: p.Name, Kind: p.Kind, SameAs: p.SameAs, Type: p.Type, Value: p.Value}
		if p.Kind == spec.KindBuffer && p.SameAs == "" {
			q.Elem, q.Count, q.Init, q.InitHexLE = p.Elem, p.Count, p.Init, p.InitHexLE
		}
		out.Params = append(out.Params, q)
	}
	if res.Signature.Kind != SigMiscompile {
		out.CompileOnly = true
		return out.JSON()
	}
	for i, p := range c.params {
		if p.Kind != spec.KindBuffer || p.SameAs != "" || i >= len(res.oracle) || res.oracle[i] == nil {
			continue
		}
		vals := elemValues(res.oracle[i], p.Elem, p.Count)
		out.Expect = append(out.Expect, spec.Expect{Param: p.Name, Elem: p.Elem, Values: vals})
	}
	return out.JSON()
}
