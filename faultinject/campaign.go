package faultinject

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"orilab/internal/shard"
	"orilab/pipeline/ori"
)

// A campaign measures the verifiers: it runs many trials, each on a fresh
// copy of a kernel's post-allocation snapshot, injecting faults with the
// trial's own seed, then asking the verifiers, and when none objects,
// continuing the compilation and executing the kernel. Each fault is
// credited with its trial's outcome in a kind × outcome matrix, and every
// fault that got past the verifiers is listed with the command that
// replays it.
//
// The compiler comes in through the Target interface: PipelineTarget
// (pipeline.go) is the real compilation, and tests plug in small fakes.

// Target is the compiler and the kernel as a campaign sees them. Its
// methods are called from several goroutines at once.
type Target interface {
	// Fresh returns a private copy of the post-allocation module, the
	// snapshot faults are injected into (typically a Clone of a module
	// compiled once).
	Fresh() (*ori.Module, error)
	// Verify runs the verifiers on the corrupted module. It returns the
	// outcome of the first verifier that objects (CaughtStructural,
	// CaughtReachingDefs or CaughtHazard) with its message, or
	// OutcomeNone when they all accept it. An error or a panic counts as
	// a compiler crash.
	Verify(m *ori.Module) (Outcome, string, error)
	// Execute continues the compilation from the injection point and runs
	// the kernel, returning CaughtMismatch, CaughtMemFault, CaughtHang or
	// Masked with a detail (ClassifyRun maps a simulator run to these).
	// An error or a panic counts as a compiler crash.
	Execute(m *ori.Module) (Outcome, string, error)
}

// TargetFuncs makes a Target of three function values. A nil VerifyFunc
// means there are no verifiers (every trial goes on to execution).
type TargetFuncs struct {
	FreshFunc   func() (*ori.Module, error)
	VerifyFunc  func(*ori.Module) (Outcome, string, error)
	ExecuteFunc func(*ori.Module) (Outcome, string, error)
}

// Fresh calls FreshFunc.
func (t TargetFuncs) Fresh() (*ori.Module, error) { return t.FreshFunc() }

// Verify calls VerifyFunc, if any.
func (t TargetFuncs) Verify(m *ori.Module) (Outcome, string, error) {
	if t.VerifyFunc == nil {
		return OutcomeNone, "", nil
	}
	return t.VerifyFunc(m)
}

// Execute calls ExecuteFunc.
func (t TargetFuncs) Execute(m *ori.Module) (Outcome, string, error) { return t.ExecuteFunc(m) }

// DefaultReplay is the replay command template used when Campaign.Replay
// is empty. Placeholders: {input} (Campaign.Input), {spec} (the bug
// specification line), {seed} (the trial's seed), {trial}, {kind} (the
// fault's kind code), {func}, {inst} (its instruction ID).
const DefaultReplay = `orilab inject {input} --bugspec "{spec}" --seed {seed}`

// Campaign configures a fault-injection campaign.
type Campaign struct {
	Target  Target
	Spec    Spec
	Seed    int64 // the campaign seed; trial t uses TrialSeed(Seed, t)
	Trials  int
	Workers int // trials run in parallel; <= 0 means 1
	Options Options
	Input   string // substituted for {input} in the replay template
	Replay  string // replay command template; "" means DefaultReplay
	// Progress, when set, is called after each trial with the number of
	// trials done, one call at a time.
	Progress func(done, total int)
	// Shard, when set, runs only the trials it owns (trial t when
	// t mod N == K); MergeResults joins the shards' results.
	Shard shard.Shard
}

// Trial is the record of one trial.
type Trial struct {
	Trial  int      `json:"trial"`
	Seed   int64    `json:"seed"`
	Faults []Fault  `json:"faults"`
	Notes  []string `json:"notes,omitempty"`
	// Categories are the injection's per-category counts (Report's), so
	// that the campaign can say which categories found no candidates.
	Categories []CategoryStat `json:"categories,omitempty"`
	Outcome    Outcome        `json:"outcome"` // OutcomeNone when no fault could be injected
	Detail     string         `json:"detail,omitempty"`
}

// Escape is a fault that got past every verifier.
type Escape struct {
	Trial   int     `json:"trial"`
	Seed    int64   `json:"seed"`
	Fault   Fault   `json:"fault"`
	Outcome Outcome `json:"outcome"`
	Replay  string  `json:"replay"`
}

// Result is a finished campaign.
type Result struct {
	Spec    Spec     `json:"spec"`
	Seed    int64    `json:"seed"`
	Trials  []Trial  `json:"trials"` // in trial order
	Matrix  Matrix   `json:"matrix"`
	Escapes []Escape `json:"escapes"` // in trial order, then fault order
	// Empty counts the trials in which no fault could be injected (no
	// candidates in the requested categories); they are not in the matrix.
	Empty int `json:"empty"`
}

// Run executes the campaign. Trials are independent and deterministic: the
// result does not depend on Workers. An error from Fresh or Inject stops
// the campaign (it is a problem of the set-up, not of the compiler under
// test); errors and panics of Verify and Execute are compiler crashes.
func (c *Campaign) Run(ctx context.Context) (*Result, error) {
	if c.Target == nil {
		return nil, errors.New("faultinject: campaign without a target")
	}
	if c.Trials < 0 {
		return nil, fmt.Errorf("faultinject: %d trials", c.Trials)
	}
	workers := c.Workers
	if workers <= 0 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	trials := make([]Trial, c.Trials)
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	jobs := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				tr, err := c.trial(t)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					cancel()
				} else {
					trials[t] = tr
					done++
					if c.Progress != nil {
						c.Progress(done, c.Shard.Count(c.Trials))
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for t := 0; t < c.Trials; t++ {
		if !c.Shard.Owns(t) {
			continue
		}
		select {
		case jobs <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Spec: c.Spec, Seed: c.Seed, Trials: []Trial{}, Escapes: []Escape{}}
	for t, tr := range trials {
		if !c.Shard.Owns(t) {
			continue
		}
		res.Trials = append(res.Trials, tr)
		for _, f := range tr.Faults {
			if tr.Outcome.Escaped() {
				res.Escapes = append(res.Escapes, Escape{Trial: tr.Trial, Seed: tr.Seed, Fault: f, Outcome: tr.Outcome, Replay: c.replay(tr, f)})
			}
		}
	}
	res.count()
	return res, nil
}

// count fills in the matrix and Empty from the trials.
func (r *Result) count() {
	r.Matrix, r.Empty = Matrix{}, 0
	for _, tr := range r.Trials {
		if len(tr.Faults) == 0 {
			r.Empty++
			continue
		}
		for _, f := range tr.Faults {
			r.Matrix.Add(f.Kind, tr.Outcome)
		}
	}
}

// MergeResults joins the results of the shards of one campaign (same
// bugspec and seed; together, every trial once) into the result the whole
// campaign gives: trials and escapes in trial order, the matrix counted
// anew.
func MergeResults(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("faultinject: no campaign results to merge")
	}
	out := &Result{Spec: parts[0].Spec, Seed: parts[0].Seed, Trials: []Trial{}, Escapes: []Escape{}}
	seen := map[int]bool{}
	for _, p := range parts {
		if p.Spec.String() != out.Spec.String() || p.Seed != out.Seed {
			return nil, fmt.Errorf("faultinject: results of different campaigns (bugspec %s seed %d, bugspec %s seed %d)", out.Spec, out.Seed, p.Spec, p.Seed)
		}
		for _, tr := range p.Trials {
			if seen[tr.Trial] {
				return nil, fmt.Errorf("faultinject: trial %d is in two shards", tr.Trial)
			}
			seen[tr.Trial] = true
			out.Trials = append(out.Trials, tr)
		}
		out.Escapes = append(out.Escapes, p.Escapes...)
	}
	sort.Slice(out.Trials, func(i, j int) bool { return out.Trials[i].Trial < out.Trials[j].Trial })
	// Stable: the faults of one trial keep their order.
	sort.SliceStable(out.Escapes, func(i, j int) bool { return out.Escapes[i].Trial < out.Escapes[j].Trial })
	out.count()
	return out, nil
}

// trial runs trial number t.
func (c *Campaign) trial(t int) (Trial, error) {
	tr := Trial{Trial: t, Seed: TrialSeed(c.Seed, t)}
	m, err := c.Target.Fresh()
	if err != nil {
		return tr, fmt.Errorf("faultinject: trial %d: %v", t, err)
	}
	rep, err := Inject(m, c.Spec, tr.Seed, c.Options)
	if err != nil {
		return tr, fmt.Errorf("faultinject: trial %d: %v", t, err)
	}
	tr.Faults, tr.Notes, tr.Categories = rep.Faults, rep.Notes(), rep.Categories
	if len(tr.Faults) == 0 {
		return tr, nil
	}
	o, detail := guarded(func() (Outcome, string, error) { return c.Target.Verify(m) })
	if o != OutcomeNone {
		if !o.ByVerifier() && o != CompilerCrash {
			return tr, fmt.Errorf("faultinject: trial %d: Verify returned %s; want a verifier outcome or %s", t, o, OutcomeNone)
		}
		tr.Outcome, tr.Detail = o, detail
		return tr, nil
	}
	o, detail = guarded(func() (Outcome, string, error) { return c.Target.Execute(m) })
	if !o.ByExecution() && o != Masked && o != CompilerCrash {
		return tr, fmt.Errorf("faultinject: trial %d: Execute returned %s; want an execution outcome or %s", t, o, Masked)
	}
	tr.Outcome, tr.Detail = o, detail
	return tr, nil
}

// guarded calls fn, turning an error or a panic into CompilerCrash.
func guarded(fn func() (Outcome, string, error)) (o Outcome, detail string) {
	defer func() {
		if p := recover(); p != nil {
			o = CompilerCrash
			// No stack trace: details must not depend on the goroutine
			// that ran the trial, so that results are reproducible.
			detail = fmt.Sprintf("panic: %v", p)
		}
	}()
	o, detail, err := fn()
	if err != nil {
		return CompilerCrash, err.Error()
	}
	return o, detail
}

// replay fills the replay template for fault f of trial tr.
func (c *Campaign) replay(tr Trial, f Fault) string {
	tmpl := c.Replay
	if tmpl == "" {
		tmpl = DefaultReplay
	}
	return strings.NewReplacer(
		"{input}", c.Input,
		"{spec}", c.Spec.String(),
		"{seed}", strconv.FormatInt(tr.Seed, 10),
		"{trial}", strconv.Itoa(tr.Trial),
		"{kind}", strconv.Itoa(int(f.Kind)),
		"{func}", f.Func,
		"{inst}", strconv.Itoa(int(f.Inst)),
	).Replace(tmpl)
}

// CategoryNotes returns one line per requested category, in field order,
// with the faults injected over all trials, and, as Report.Notes says for
// one injection, why a category got fewer faults than requested:
//
//	register bugs: requested 1 per trial, injected 4 in 4 trials
//	offset/spill bugs: requested 1 per trial, injected 0 in 4 trials (no candidates)
//	remat bugs: requested 2 per trial, injected 5 in 4 trials (fewer than requested in 3 trials; no candidates in 1)
//
// The matrix counts faults by kind, so without these lines a category
// that found nothing to corrupt would not appear at all.
func (r *Result) CategoryNotes() []string {
	type tally struct{ injected, short, empty int }
	var ts [NumCategories]tally
	for _, tr := range r.Trials {
		for _, s := range tr.Categories {
			c, ok := categoryByName(s.Name)
			if !ok {
				continue
			}
			ts[c].injected += s.Injected
			if s.Injected < s.Requested {
				ts[c].short++
				if s.Candidates == 0 {
					ts[c].empty++
				}
			}
		}
	}
	var ns []string
	n := len(r.Trials)
	for c := Category(0); c < NumCategories; c++ {
		want := r.Spec.Count(c)
		if want == 0 {
			continue
		}
		t := ts[c]
		l := fmt.Sprintf("%s bugs: requested %d per trial, injected %d in %s", c, want, t.injected, plural(n, "trial"))
		switch {
		case n > 0 && t.empty == n:
			l += " (no candidates)"
		case t.short > 0 && t.empty > 0:
			l += fmt.Sprintf(" (fewer than requested in %s; no candidates in %d)", plural(t.short, "trial"), t.empty)
		case t.short > 0:
			l += fmt.Sprintf(" (fewer than requested in %s)", plural(t.short, "trial"))
		}
		ns = append(ns, l)
	}
	return ns
}

// categoryByName is the inverse of Category.String.
func categoryByName(s string) (Category, bool) {
	for c := Category(0); c < NumCategories; c++ {
		if categoryNames[c] == s {
			return c, true
		}
	}
	return 0, false
}

// plural writes "1 trial", "4 trials".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Text renders the result for a terminal: the matrix, then each escaped
// fault with its outcome, its report line and its replay command.
func (r *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bugspec %s, campaign seed %d, %d trials", r.Spec, r.Seed, len(r.Trials))
	if r.Empty > 0 {
		fmt.Fprintf(&b, " (%d without any fault: no candidates)", r.Empty)
	}
	b.WriteString("\n\n")
	b.WriteString(r.Matrix.Table())
	if ns := r.CategoryNotes(); len(ns) > 0 {
		b.WriteString("\n" + strings.Join(ns, "\n") + "\n")
	}
	if len(r.Escapes) == 0 {
		b.WriteString("\nno fault escaped the verifiers\n")
		return b.String()
	}
	fmt.Fprintf(&b, "\n%d faults escaped the verifiers:\n", len(r.Escapes))
	for _, e := range r.Escapes {
		fmt.Fprintf(&b, "trial %d (%s) %s: %s\n    %s\n", e.Trial, e.Outcome, e.Fault.Func, e.Fault.Line(), e.Replay)
	}
	return b.String()
}
