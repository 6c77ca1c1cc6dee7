package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"orilab/bisect"
	"orilab/pipeline/spec"
)

func runBisect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRequestFlags(fs, true, false)
	mode := fs.String("mode", "phase", "what to search: phase, disable, knobs, sites or auto")
	phaseName := fs.String("phase", "", "sites mode: the culprit `PHASE` to search inside (default: found by phase mode first)")
	good := fs.String("good", "", "knobs mode: the passing knob `SETTINGS` (NAME=VALUE records separated by ~)")
	bad := fs.String("bad", "", "knobs mode: the failing knob `SETTINGS`")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	timeout := fs.Duration("timeout", 0, "give up after `D` (for example 30s; 0: no limit)")
	maxSteps := fs.Int64("max-steps", 0, "end each execution after `N` warp-steps (default 50000000)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab bisect SPEC.json [-O N] [-knob ...] --mode phase|disable|auto [--json] [--timeout D]")
		fmt.Fprintln(fs.Output(), "       orilab bisect SPEC.json [-O N] --mode sites [--phase PHASE] [--json]")
		fmt.Fprintln(fs.Output(), "       orilab bisect SPEC.json [-O N] --mode knobs --good 'SETTINGS' --bad 'SETTINGS' [--json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Finds what breaks a kernel. The oracle is the spec's expected values,")
		fmt.Fprintln(fs.Output(), "or, when it has none, the output of the IR right after lowering.")
		fmt.Fprintln(fs.Output(), "  phase    the first phase whose output executes differently (binary search)")
		fmt.Fprintln(fs.Output(), "  disable  a minimal set of phases whose disabling makes the kernel pass (ddmin)")
		fmt.Fprintln(fs.Output(), "  knobs    the minimal part of the difference between --good and --bad knob")
		fmt.Fprintln(fs.Output(), "           settings that makes the kernel fail (ddmin over the knobs that differ)")
		fmt.Fprintln(fs.Output(), "  sites    inside one phase (--phase, or the one phase mode finds), the single")
		fmt.Fprintln(fs.Output(), "           rewrite that breaks the kernel: every transforming phase numbers its")
		fmt.Fprintln(fs.Output(), "           rewrites and -knob BisectSites=PHASE:N applies only the first N")
		fmt.Fprintln(fs.Output(), "  auto     phase mode, then sites mode inside the culprit, as one summary")
		fmt.Fprintln(fs.Output(), "--bugspec LINE --at PHASE --seed S plants faults (as orilab inject does) in every")
		fmt.Fprintln(fs.Output(), "compilation, to rehearse a bisection whose answer is known.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 found, 1 no culprit (the kernel passes), 2 error.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if *phaseName != "" && *mode != "sites" {
		fmt.Fprintf(stderr, "orilab bisect: --phase belongs to --mode sites, not --mode %s\n", *mode)
		return exitError
	}
	switch *mode {
	case "phase", "disable", "sites", "auto":
		if *good != "" || *bad != "" {
			fmt.Fprintf(stderr, "orilab bisect: --good and --bad belong to --mode knobs, not --mode %s\n", *mode)
			return exitError
		}
	case "knobs":
		if *good == "" && *bad == "" {
			fmt.Fprintln(stderr, "orilab bisect: --mode knobs needs --good 'SETTINGS' and --bad 'SETTINGS' (either may be '' for the defaults, but not both)")
			return exitError
		}
	default:
		fmt.Fprintf(stderr, "orilab bisect: --mode %q: want phase, disable, knobs, sites or auto\n", *mode)
		return exitError
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab bisect: want exactly one spec file, got %d arguments\n", len(pos))
		return exitError
	}
	req, ok := rf.request("bisect", stderr)
	if !ok {
		return exitError
	}
	s, err := spec.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	if !resolveOnce("bisect", &req, s.PTXPath, stderr) {
		return exitError
	}
	opts := bisect.Options{Request: req, MaxWarpSteps: *maxSteps}
	// clearProgress erases the progress line before anything else is printed.
	clearProgress := func() {}
	// lastProgress is where a search stood when --timeout ended it.
	var lastProgress string
	opts.Progress = func(line string) { lastProgress = line }
	if isTerminal(stderr) {
		opts.Progress = func(line string) { lastProgress = line; fmt.Fprintf(stderr, "\r\033[K%s", line) }
		clearProgress = func() { fmt.Fprint(stderr, "\r\033[K") }
	}
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	var report any
	found := false
	switch *mode {
	case "knobs":
		g, err := bisect.ParseKnobSettings("--good", *good)
		if err != nil {
			fmt.Fprintf(stderr, "orilab bisect: %v\n", err)
			return exitError
		}
		b, err := bisect.ParseKnobSettings("--bad", *bad)
		if err != nil {
			fmt.Fprintf(stderr, "orilab bisect: %v\n", err)
			return exitError
		}
		r, err := bisect.Knobs(ctx, s, opts, g, b)
		clearProgress()
		if err != nil {
			return bisectError(stderr, err, *timeout, lastProgress)
		}
		report, found = r, r.Found
		if !*asJSON {
			printKnobs(stdout, r)
		}
	case "sites", "auto":
		name := *phaseName
		var pr *bisect.PhaseResult
		if name == "" {
			pr, err = bisect.Phase(ctx, s, opts)
			if err != nil {
				clearProgress()
				return bisectError(stderr, err, *timeout, lastProgress)
			}
			if !pr.Found {
				clearProgress()
				report = struct {
					Phase *bisect.PhaseResult `json:"phase"`
				}{pr}
				if !*asJSON {
					printPhase(stdout, pr)
				}
				break
			}
			name = pr.Name
		}
		r, err := bisect.Sites(ctx, s, opts, name)
		clearProgress()
		if err != nil {
			return bisectError(stderr, err, *timeout, lastProgress)
		}
		report, found = struct {
			Phase *bisect.PhaseResult `json:"phase,omitempty"`
			Sites *bisect.SitesResult `json:"sites"`
		}{pr, r}, r.Found
		if !*asJSON {
			printSites(stdout, pr, r, *mode == "auto")
		}
	case "phase":
		r, err := bisect.Phase(ctx, s, opts)
		clearProgress()
		if err != nil {
			return bisectError(stderr, err, *timeout, lastProgress)
		}
		report, found = r, r.Found
		if !*asJSON {
			printPhase(stdout, r)
		}
	default:
		r, err := bisect.Disable(ctx, s, opts)
		clearProgress()
		if err != nil {
			return bisectError(stderr, err, *timeout, lastProgress)
		}
		report, found = r, r.Found
		if !*asJSON {
			printDisable(stdout, r)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(report)
	}
	if !found {
		return exitMismatch
	}
	return exitOK
}

func bisectError(stderr io.Writer, err error, timeout time.Duration, last string) int {
	if errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "orilab bisect: gave up after --timeout %s\n", timeout)
		if last != "" {
			fmt.Fprintf(stderr, "orilab bisect: it stood at: %s\n", strings.TrimPrefix(last, "bisect: "))
		}
		return exitError
	}
	fmt.Fprintf(stderr, "orilab bisect: %v\n", err)
	return exitError
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func printPhase(w io.Writer, r *bisect.PhaseResult) {
	if !r.Found {
		fmt.Fprintf(w, "%s: no culprit: %s (%s)\n", r.Spec, r.Reason, executions(r.Executions, r.Hangs))
		return
	}
	req := ""
	if r.Required {
		req = " (a required phase)"
	}
	fmt.Fprintf(w, "%s: culprit phase %d %s%s\n", r.Spec, r.Index, r.Name, req)
	fmt.Fprintf(w, "  the output after %s still matches %s; after %s it does not\n", r.Previous, r.Oracle, r.Name)
	fmt.Fprintf(w, "  %s over %d changing of %d active phases (confirmed, re-run twice)\n", executions(r.Executions, r.Hangs), r.ChangedPhases, r.ActivePhases)
	if r.ExecError != "" {
		fmt.Fprintf(w, "  execution fails after %s: %s\n", r.Name, r.ExecError)
	}
	if len(r.Mismatches) > 0 {
		io.WriteString(w, indent(spec.FormatResults(r.Mismatches), "  "))
	}
	fmt.Fprintf(w, "replay: %s\n\n", r.Replay)
	io.WriteString(w, r.Diff)
}

// printSites prints a site bisection; with summary (auto mode), one screen
// that also carries the phase result.
func printSites(w io.Writer, pr *bisect.PhaseResult, r *bisect.SitesResult, summary bool) {
	if pr != nil {
		fmt.Fprintf(w, "%s: culprit phase %d %s (%s; the output after %s still matches %s)\n", pr.Spec, pr.Index, pr.Name, executions(pr.Executions, pr.Hangs), pr.Previous, pr.Oracle)
	}
	if !r.Found {
		reason := r.Reason
		if pr != nil && pr.Found && r.NoneFails {
			// Phase mode has just shown that the IR before this phase
			// passes, so "an earlier phase is at fault" would contradict
			// the line above.
			reason = fmt.Sprintf("the output fails even with none of its %d rewrites, yet the IR after %s passes: the phase also changes the IR in ways it does not count as rewrites, or a later phase fails on what it leaves", r.Sites, pr.Previous)
		}
		fmt.Fprintf(w, "%s: no single rewrite of %s: %s (%s)\n", r.Spec, r.Phase, reason, executions(r.Executions, r.Hangs))
		if pr != nil && summary {
			fmt.Fprintf(w, "replay: %s\n\n", pr.Replay)
			io.WriteString(w, pr.Diff)
		}
		return
	}
	alone := "it breaks the kernel by itself"
	if !r.Alone {
		alone = "it breaks the kernel only together with earlier rewrites of the phase"
	}
	fmt.Fprintf(w, "%s: culprit rewrite %d of %d in %s: %s, instruction #%d of %s\n", r.Spec, r.Site.N, r.Sites, r.Phase, r.Site.What, r.Site.Inst, r.Site.Func)
	fmt.Fprintf(w, "  %s; %s (confirmed, re-run twice)\n", alone, executions(r.Executions, r.Hangs))
	if r.Before != "" || r.After != "" {
		fmt.Fprintf(w, "  before: %s\n  after:  %s\n", orNone(r.Before), orNone(r.After))
	}
	if r.ExecError != "" {
		fmt.Fprintf(w, "  execution fails: %s\n", r.ExecError)
	}
	if len(r.Mismatches) > 0 {
		io.WriteString(w, indent(spec.FormatResults(r.Mismatches), "  "))
	}
	fmt.Fprintf(w, "reproduce: %s\n", r.Knob)
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
	if !summary {
		fmt.Fprintln(w)
		io.WriteString(w, r.Diff)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func printDisable(w io.Writer, r *bisect.DisableResult) {
	if !r.Found {
		fmt.Fprintf(w, "%s: no set: %s (%s)\n", r.Spec, r.Reason, executions(r.Executions, r.Hangs))
		return
	}
	fmt.Fprintf(w, "%s: disabling %d of %d optional phases makes the kernel pass (%s)\n", r.Spec, len(r.Phases), len(r.Candidates), executions(r.Executions, r.Hangs))
	fmt.Fprintln(w, r.Knob)
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
}

func printKnobs(w io.Writer, r *bisect.KnobsResult) {
	if !r.Found {
		fmt.Fprintf(w, "%s: no knob difference: %s (%s)\n", r.Spec, r.Reason, executions(r.Executions, r.Hangs))
		return
	}
	fmt.Fprintf(w, "%s: %d of %d knob differences make the kernel fail (%s)\n", r.Spec, len(r.Minimal), len(r.Delta), executions(r.Executions, r.Hangs))
	for _, m := range r.Minimal {
		fmt.Fprintf(w, "  %s\n", m)
	}
	fmt.Fprintf(w, "failing setting: %s\n", r.Knob)
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
}

func indent(s, pre string) string {
	out := ""
	for _, l := range splitLines(s) {
		out += pre + l + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// executions says how many executions a search ran and how many of them
// hung: a hang costs a whole --max-steps each and counts as a failure.
func executions(n, hangs int) string {
	s := fmt.Sprintf("%d executions", n)
	if n == 1 {
		s = "1 execution"
	}
	if hangs > 0 {
		s += fmt.Sprintf(", %d of them hung at the step limit and counted as failures (--max-steps bounds each)", hangs)
	}
	return s
}
