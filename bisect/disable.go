package bisect

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

// DisableResult is the answer of Disable.
type DisableResult struct {
	Spec     string `json:"spec"`
	OptLevel int    `json:"opt_level"`
	Oracle   string `json:"oracle"`
	// Found is set when disabling Phases makes the kernel pass; Reason
	// says why not otherwise.
	Found  bool   `json:"found"`
	Reason string `json:"reason,omitempty"`
	// Phases is a 1-minimal set (ddmin): disabling all of them makes the
	// kernel pass, and re-enabling any one of them makes it fail again.
	Phases []string `json:"phases,omitempty"`
	// Knob is the -knob line that reproduces the passing compilation
	// (with the DisablePhases given in Options).
	Knob string `json:"knob,omitempty"`
	// Candidates are the optional phases that ran: the search space.
	Candidates []string `json:"candidates"`
	Executions int      `json:"executions"`
	// Hangs counts the executions that ended at the step limit (a
	// candidate that loops): they count as failures, and each one costs
	// the whole MaxWarpSteps, so a report says how many there were.
	Hangs  int    `json:"hangs,omitempty"`
	Replay string `json:"replay"`
}

// Disable finds a minimal set of optional phases whose disabling (with
// the DisablePhases knob) makes the kernel pass, by delta debugging
// (Zeller's ddmin) over the optional phases that ran. Each test compiles
// with the set disabled and executes the result once; results are cached
// by set.
func Disable(ctx context.Context, s *spec.Spec, opts Options) (*DisableResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	res := &DisableResult{Spec: s.Name, OptLevel: opts.OptLevel, Replay: Replay(s, opts, "disable")}
	sess, err := compile(ctx, s, opts, opts.DisablePhases, true)
	var failed *pipeline.PhaseError
	if err != nil && !errors.As(err, &failed) {
		return nil, err
	}
	r, err := newRunner(ctx, s, sess.Lowered, opts)
	if err != nil {
		return nil, err
	}
	defer func() { res.Executions, res.Hangs = r.execs, r.hangs }()
	res.Oracle = r.oracle
	var cands []int
	for _, sn := range sess.Snapshots {
		if (sn.Status == pipeline.StatusChanged || sn.Status == pipeline.StatusUnchanged) && !pipeline.PhaseTable[sn.Index].Required {
			cands = append(cands, sn.Index)
			res.Candidates = append(res.Candidates, sn.Name)
		}
	}
	cache := map[string]bool{}
	// passes reports whether the kernel passes with set disabled.
	passes := func(set []int) (bool, error) {
		key := fmt.Sprint(set)
		if p, ok := cache[key]; ok {
			return p, nil
		}
		disable := append([]string(nil), opts.DisablePhases...)
		for _, i := range set {
			disable = append(disable, pipeline.PhaseTable[i].Name)
		}
		opts.progress("bisect: disabling %d phases (%s so far)", len(set), r.count())
		var v verdict
		switch {
		case len(set) > 0:
			v, err = r.compiledVerdict(ctx, s, opts, disable)
		case failed != nil:
			v = verdict{err: compileFailure(failed)}
		default:
			v, err = r.check(sess.Module())
		}
		if err != nil {
			return false, err
		}
		cache[key] = v.pass
		return v.pass, nil
	}
	ok, err := passes(nil)
	if err != nil {
		return nil, err
	}
	if ok {
		res.Reason = fmt.Sprintf("the kernel passes at -O%d: nothing to disable", opts.OptLevel)
		return res, nil
	}
	ok, err = passes(cands)
	if err != nil {
		return nil, err
	}
	if !ok {
		res.Reason = "the kernel still fails with every optional phase disabled: a required phase or the lowering is at fault"
		return res, nil
	}
	set, err := ddminConfirmed(cands, cache, passes, func(set []int) string {
		return fmt.Sprintf("disabling %s passed once and failed on a re-run", names(set))
	})
	if err != nil {
		return nil, err
	}
	res.Found = true
	for _, i := range set {
		res.Phases = append(res.Phases, pipeline.PhaseTable[i].Name)
	}
	all := append(append([]string(nil), opts.DisablePhases...), res.Phases...)
	res.Knob = "-knob DisablePhases=" + strings.Join(all, "+")
	return res, nil
}

func names(set []int) string {
	var out []string
	for _, i := range set {
		out = append(out, pipeline.PhaseTable[i].Name)
	}
	return strings.Join(out, "+")
}

// ddminConfirmed runs ddmin over all and then the flakiness guard: the
// answer is tested twice more, bypassing cache (test's memo, keyed by
// fmt.Sprint of the set). flaky describes a failed re-run.
func ddminConfirmed(all []int, cache map[string]bool, test func([]int) (bool, error), flaky func([]int) string) ([]int, error) {
	set, err := ddmin(all, test)
	if err != nil {
		return nil, err
	}
	for k := 0; k < 2; k++ {
		delete(cache, fmt.Sprint(set))
		ok, err := test(set)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("the result is not reproducible: %s (flaky execution)", flaky(set))
		}
	}
	return set, nil
}

// ddmin returns a 1-minimal subset of c for which test holds, given that it
// holds for c. Sets are kept sorted so that the cache keys agree.
func ddmin(c []int, test func([]int) (bool, error)) ([]int, error) {
	n := 2
	for len(c) >= 2 {
		chunks := split(c, n)
		reduced := false
		for _, ch := range chunks {
			ok, err := test(ch)
			if err != nil {
				return nil, err
			}
			if ok {
				c, n, reduced = ch, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for k := range chunks {
				comp := complement(c, chunks[k])
				ok, err := test(comp)
				if err != nil {
					return nil, err
				}
				if ok {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if reduced {
			continue
		}
		if n >= len(c) {
			break
		}
		n = min(2*n, len(c))
	}
	return c, nil
}

func split(c []int, n int) [][]int {
	var out [][]int
	start := 0
	for k := 0; k < n; k++ {
		end := start + (len(c)-start)/(n-k)
		out = append(out, append([]int(nil), c[start:end]...))
		start = end
	}
	return out
}

func complement(c, ch []int) []int {
	in := map[int]bool{}
	for _, x := range ch {
		in[x] = true
	}
	var out []int
	for _, x := range c {
		if !in[x] {
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}
