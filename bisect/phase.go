package bisect

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"strings"

	"orilab/internal/irdiff"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// PhaseResult is the answer of Phase.
type PhaseResult struct {
	Spec     string `json:"spec"`
	OptLevel int    `json:"opt_level"`
	// Oracle says what the executions are compared with.
	Oracle string `json:"oracle"`
	// Found is set when a culprit phase was found and confirmed; Reason
	// says why not otherwise (the kernel passes, or the IR right after
	// lowering already fails).
	Found  bool   `json:"found"`
	Reason string `json:"reason,omitempty"`
	// Index and Name identify the culprit phase (-1 and "" when not Found).
	Index    int    `json:"index"`
	Name     string `json:"name,omitempty"`
	Required bool   `json:"required,omitempty"`
	// Previous names the last phase before the culprit that changed the IR
	// ("lowering" when there is none): its output still passes.
	Previous string `json:"previous,omitempty"`
	// Diff is a unified diff of the module before and after the culprit.
	Diff string `json:"diff,omitempty"`
	// Mismatches are the failing expectations after the culprit, with their
	// first differing elements; ExecError is set instead when the culprit's
	// IR faults in the simulator.
	Mismatches []spec.Result `json:"mismatches,omitempty"`
	ExecError  string        `json:"exec_error,omitempty"`
	// Executions counts simulator runs, including the oracle's and the
	// flakiness guard's.
	Executions int `json:"executions"`
	// Hangs counts the executions that ended at the step limit (a
	// candidate that loops): they count as failures, and each one costs
	// the whole MaxWarpSteps, so a report says how many there were.
	Hangs int `json:"hangs,omitempty"`
	// ActivePhases ran (changed or not); ChangedPhases changed the IR and
	// form the search space.
	ActivePhases  int    `json:"active_phases"`
	ChangedPhases int    `json:"changed_phases"`
	Replay        string `json:"replay"`
}

// Phase finds the first phase whose output executes differently from the
// oracle.
//
// Search: let c1..cn be the snapshots that changed the IR and c0 the IR
// right after lowering. cn must fail (else the kernel passes and there is
// nothing to find) and c0 must pass (else the lowering is at fault). A
// binary search keeps lo passing and hi failing until hi = lo+1; the
// culprit is the phase of c_hi. With the spec's expectations as oracle, c0
// is only executed when the search ends next to it. The flakiness guard
// re-runs the final answer twice: c_hi once more (it must fail the same
// way) and c_lo once more (it must pass).
func Phase(ctx context.Context, s *spec.Spec, opts Options) (*PhaseResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	res := &PhaseResult{Spec: s.Name, OptLevel: opts.OptLevel, Index: -1, Replay: Replay(s, opts, "phase")}
	sess, err := compile(ctx, s, opts, opts.DisablePhases, true)
	var failed *pipeline.PhaseError
	if err != nil && !errors.As(err, &failed) {
		return nil, err
	}
	r, err := newRunner(ctx, s, sess.Lowered, opts)
	if err != nil {
		return nil, err
	}
	res.Oracle = r.oracle
	var changed []*pipeline.Snapshot
	for _, sn := range sess.Snapshots {
		if failed != nil && sn.Index == failed.Index {
			// A planted fault's snapshot: the failing point below
			// stands for it.
			res.ActivePhases++
			continue
		}
		switch sn.Status {
		case pipeline.StatusChanged:
			changed = append(changed, sn)
			res.ActivePhases++
		case pipeline.StatusUnchanged:
			res.ActivePhases++
		}
	}
	res.ChangedPhases = len(changed)
	// A compilation that fails in a phase (a verifier's rejection, a
	// planted fault caught, an error or a panic) is one more point of the
	// search after the last snapshot, and it fails: the search then finds
	// the first phase whose output executes wrongly, or that failing
	// phase when everything before it executes right.
	points := len(changed)
	if failed != nil {
		points++
	}
	module := func(k int) *ori.Module {
		switch {
		case k == 0:
			return sess.Lowered
		case k > len(changed):
			if pl := sess.Planted(); pl != nil && pl.Index == failed.Index {
				return pl.After
			}
			return nil // the failing phase left no IR
		}
		return changed[k-1].Module
	}
	name := func(k int) string {
		switch {
		case k == 0:
			return "lowering"
		case k > len(changed):
			return failed.Name
		}
		return changed[k-1].Name
	}
	index := func(k int) int {
		if k > len(changed) {
			return failed.Index
		}
		return changed[k-1].Index
	}
	memo := map[int]verdict{}
	if len(s.Expect) == 0 {
		memo[0] = verdict{pass: true} // the oracle itself
	}
	if failed != nil {
		memo[points] = verdict{err: compileFailure(failed)}
	}
	probe := func(k int) (verdict, error) {
		if v, ok := memo[k]; ok {
			return v, nil
		}
		opts.progress("bisect: executing after %s (%s so far)", name(k), r.count())
		v, err := r.check(module(k))
		if err != nil {
			return v, err
		}
		memo[k] = v
		return v, nil
	}
	defer func() { res.Executions, res.Hangs = r.execs, r.hangs }()
	n := points
	last, err := probe(n)
	if err != nil {
		return nil, err
	}
	if last.pass {
		res.Reason = "the kernel passes at -O" + fmt.Sprint(opts.OptLevel) + ": nothing to bisect"
		return res, nil
	}
	if n == 0 {
		res.Reason = "no phase changed the IR, and the IR right after lowering already fails: the lowering (or the spec) is at fault, not a phase"
		return res, nil
	}
	lo, hi := 0, n
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		v, err := probe(mid)
		if err != nil {
			return nil, err
		}
		if v.pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Confirm: the predecessor passes (executed only now when it is the
	// lowered IR checked against the spec's values).
	pv, err := probe(lo)
	if err != nil {
		return nil, err
	}
	if !pv.pass {
		res.Reason = "the IR right after lowering already fails: the lowering (or the spec) is at fault, not a phase"
		return res, nil
	}
	// Flakiness guard: the final answer, re-run.
	opts.progress("bisect: confirming %s (re-running it and %s)", name(hi), name(lo))
	again := memo[hi]
	if hi <= len(changed) {
		if again, err = r.check(module(hi)); err != nil {
			return nil, err
		}
	}
	before, err := r.check(module(lo))
	if err != nil {
		return nil, err
	}
	if !again.same(memo[hi]) || !before.pass {
		return nil, fmt.Errorf("the result is not reproducible: re-running after %s and %s gave different verdicts (flaky execution)", name(lo), name(hi))
	}
	res.Found = true
	res.Index, res.Name = index(hi), name(hi)
	res.Required = isRequired(res.Index)
	res.Previous = name(lo)
	res.Mismatches, res.ExecError = memo[hi].results, memo[hi].err
	if after := module(hi); after != nil {
		res.Diff = irdiff.Unified(module(lo).String(), after.String(), "before "+res.Name, "after "+res.Name, 3)
	}
	return res, nil
}

// Bound is the target number of executions for phase mode:
// ⌈log2(active)⌉ + 3.
func Bound(active int) int {
	if active <= 1 {
		return 3
	}
	return bits.Len(uint(active-1)) + 3
}

func isRequired(index int) bool { return pipeline.PhaseTable[index].Required }

// Replay returns the command line that repeats a bisection.
func Replay(s *spec.Spec, opts Options, mode string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "orilab bisect %s", ShellQuote(s.File))
	b.WriteString(QuoteArgs(opts.Request.Args()))
	if opts.MaxWarpSteps > 0 {
		fmt.Fprintf(&b, " --max-steps %d", opts.MaxWarpSteps)
	}
	fmt.Fprintf(&b, " --mode %s", mode)
	return b.String()
}

// QuoteArgs joins arguments for a replay command, each with a leading
// space and quoted for a shell where needed.
func QuoteArgs(args []string) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(" " + ShellQuote(a))
	}
	return b.String()
}

// ShellQuote quotes s for a POSIX shell when it needs quoting, for the
// replay commands every report prints.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func readPTX(s *spec.Spec) ([]byte, error) { return os.ReadFile(s.PTXPath) }
