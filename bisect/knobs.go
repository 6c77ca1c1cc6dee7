package bisect

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/spec"
)

// KnobsResult is the answer of Knobs.
type KnobsResult struct {
	Spec     string `json:"spec"`
	OptLevel int    `json:"opt_level"`
	Oracle   string `json:"oracle"`
	// Found is set when a minimal difference was found; Reason says why
	// not otherwise.
	Found  bool   `json:"found"`
	Reason string `json:"reason,omitempty"`
	// Delta lists the differences between the good and the bad knob
	// settings, one per knob: NAME=VALUE (bad's value) or "NAME (unset)"
	// when only good sets it.
	Delta []string `json:"delta"`
	// Minimal is a 1-minimal subset of Delta: applied on top of the good
	// settings it makes the kernel fail, and dropping any one of its
	// items makes it pass again.
	Minimal []string `json:"minimal,omitempty"`
	// Knob is the -knob argument of good+Minimal (the failing setting).
	Knob       string `json:"knob,omitempty"`
	Executions int    `json:"executions"`
	// Hangs counts the executions that ended at the step limit (a
	// candidate that loops): they count as failures, and each one costs
	// the whole MaxWarpSteps, so a report says how many there were.
	Hangs  int    `json:"hangs,omitempty"`
	Replay string `json:"replay"`
}

// knobItem is one knob setting: Value is "" with Unset for a knob the
// bad settings leave at its default.
type knobItem struct {
	Name, Value string
	Unset       bool
}

func (k knobItem) String() string {
	switch {
	case k.Unset:
		return k.Name + " (unset)"
	case k.Value == "":
		return k.Name // a boolean set without a value
	}
	return k.Name + "=" + k.Value
}

// ParseKnobSettings splits a knob setting list (the -knob syntax:
// NAME=VALUE records separated by '~') into its assignments, later ones
// overriding earlier ones, and checks the whole set. what names the list
// in errors (--good, --bad).
func ParseKnobSettings(what, text string) (map[string]string, error) {
	out := map[string]string{}
	for _, rec := range strings.Split(text, "~") {
		rec = strings.TrimSpace(rec)
		if rec == "" {
			continue
		}
		name, val, _ := strings.Cut(rec, "=")
		out[strings.TrimSpace(name)] = strings.TrimSpace(val)
	}
	if _, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: settingArgs(out)}); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return out, nil
}

// settingArgs returns m as sorted -knob arguments.
func settingArgs(m map[string]string) []string {
	var out []string
	for n, v := range m {
		if v == "" {
			out = append(out, n)
		} else {
			out = append(out, n+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

// Knobs finds a minimal part of the difference between two knob settings
// that flips the kernel from passing (good) to failing (bad), by ddmin
// over the knobs whose values differ. Each test compiles with good plus a
// subset of the differences and executes the result once; results are
// cached. opts.DisablePhases applies under both settings.
func Knobs(ctx context.Context, s *spec.Spec, opts Options, good, bad map[string]string) (*KnobsResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	res := &KnobsResult{Spec: s.Name, OptLevel: opts.OptLevel, Replay: knobsReplay(s, opts, good, bad)}
	var delta []knobItem
	for n, v := range bad {
		if gv, ok := good[n]; !ok || gv != v {
			delta = append(delta, knobItem{Name: n, Value: v})
		}
	}
	for n := range good {
		if _, ok := bad[n]; !ok {
			delta = append(delta, knobItem{Name: n, Unset: true})
		}
	}
	sort.Slice(delta, func(i, j int) bool { return delta[i].Name < delta[j].Name })
	res.Delta = []string{}
	for _, d := range delta {
		res.Delta = append(res.Delta, d.String())
	}
	with := func(set []int) map[string]string {
		m := map[string]string{}
		for n, v := range good {
			m[n] = v
		}
		for _, i := range set {
			if delta[i].Unset {
				delete(m, delta[i].Name)
			} else {
				m[delta[i].Name] = delta[i].Value
			}
		}
		return m
	}
	goodSess, err := compile(ctx, s, opts, opts.DisablePhases, false, settingArgs(good)...)
	var goodErr *pipeline.PhaseError
	if err != nil && !errors.As(err, &goodErr) {
		return nil, fmt.Errorf("--good: %v", err)
	}
	r, err := newRunner(ctx, s, goodSess.Lowered, opts)
	if err != nil {
		return nil, err
	}
	defer func() { res.Executions, res.Hangs = r.execs, r.hangs }()
	res.Oracle = r.oracle
	cache := map[string]bool{}
	// fails reports whether the kernel fails (a wrong output, a fault, a
	// compile error) with good plus the subset set of the differences.
	fails := func(set []int) (bool, error) {
		key := fmt.Sprint(set)
		if f, ok := cache[key]; ok {
			return f, nil
		}
		opts.progress("bisect: applying %d of %d knob differences (%s so far)", len(set), len(delta), r.count())
		var v verdict
		switch {
		case len(set) > 0:
			v, err = r.compiledVerdict(ctx, s, opts, opts.DisablePhases, settingArgs(with(set))...)
		case goodErr != nil:
			v = verdict{err: compileFailure(goodErr)}
		default:
			v, err = r.check(goodSess.Module())
		}
		if err != nil {
			return false, err
		}
		cache[key] = !v.pass
		return !v.pass, nil
	}
	if len(delta) == 0 {
		res.Reason = "the good and bad knob settings are the same"
		return res, nil
	}
	if f, err := fails(nil); err != nil {
		return nil, err
	} else if f {
		res.Reason = "the kernel already fails with the good knob settings"
		return res, nil
	}
	all := make([]int, len(delta))
	for i := range all {
		all[i] = i
	}
	if f, err := fails(all); err != nil {
		return nil, err
	} else if !f {
		res.Reason = "the kernel passes with the bad knob settings too: nothing to bisect"
		return res, nil
	}
	set, err := ddminConfirmed(all, cache, fails, func([]int) string {
		return "the knob difference failed once and passed on a re-run"
	})
	if err != nil {
		return nil, err
	}
	res.Found = true
	for _, i := range set {
		res.Minimal = append(res.Minimal, delta[i].String())
	}
	if args := settingArgs(with(set)); len(args) > 0 {
		res.Knob = "-knob " + ShellQuote(strings.Join(args, "~"))
	} else {
		res.Knob = "(no knobs: the defaults fail)"
	}
	return res, nil
}

func knobsReplay(s *spec.Spec, opts Options, good, bad map[string]string) string {
	r := Replay(s, opts, "knobs")
	return r + " --good " + ShellQuote(strings.Join(settingArgs(good), "~")) + " --bad " + ShellQuote(strings.Join(settingArgs(bad), "~"))
}
