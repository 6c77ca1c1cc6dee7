package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"orilab/bisect"
	"orilab/pipeline/spec"
)

func runReduce(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRequestFlags(fs, false, false)
	out := fs.String("o", "", "write NAME.reduced.ptx and NAME.reduced.json into `DIR` (default: the spec's directory)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	timeout := fs.Duration("timeout", 0, "stop reducing after `D` (for example 2m; 0: no limit) and write the best reduction so far")
	maxSteps := fs.Int64("max-steps", 0, "end each execution after `N` warp-steps (default 50000000)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab reduce SPEC.json [-O N] [-arch sm_XX] [-knob ...] [-o DIR] [--verify] [--json] [--timeout D]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Shrinks a failing kernel while its failure keeps its signature, and writes")
		fmt.Fprintln(fs.Output(), "NAME.reduced.ptx and NAME.reduced.json. The signature of a miscompile is the")
		fmt.Fprintln(fs.Output(), "culprit phase (as bisect --mode phase finds it) and what goes wrong after it")
		fmt.Fprintln(fs.Output(), "(which buffers hold wrong values, or the kind of simulator fault); of a compile")
		fmt.Fprintln(fs.Output(), "error, the message with numbers normalized. The oracle is the output of the IR")
		fmt.Fprintln(fs.Output(), "right after lowering (for the original too; the spec's expected values do not")
		fmt.Fprintln(fs.Output(), "apply to a changed program). It deletes instructions and blocks (delta")
		fmt.Fprintln(fs.Output(), "debugging), replaces operands by 0 or 1, and shrinks the grid, the block, the")
		fmt.Fprintln(fs.Output(), "buffers and the scalars, rejecting any candidate that reads a register before")
		fmt.Fprintln(fs.Output(), "writing it where the original does not; the answer is re-run twice. The reduced spec's")
		fmt.Fprintln(fs.Output(), "expectations are its lowered IR's output, so orilab run shows the failure.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 reduced, 1 the kernel does not fail, 2 error.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab reduce: want exactly one spec file, got %d arguments\n", len(pos))
		return exitError
	}
	req, ok := rf.request("reduce", stderr)
	if !ok {
		return exitError
	}
	s, err := spec.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	if !resolveOnce("reduce", &req, s.PTXPath, stderr) {
		return exitError
	}
	opts := bisect.ReduceOptions{Options: bisect.Options{Request: req, MaxWarpSteps: *maxSteps}}
	clearProgress := func() {}
	if isTerminal(stderr) {
		opts.Progress = func(line string) { fmt.Fprintf(stderr, "\r\033[K%s", line) }
		clearProgress = func() { fmt.Fprint(stderr, "\r\033[K") }
	}
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	res, err := bisect.Reduce(ctx, s, opts)
	clearProgress()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "orilab reduce: gave up after --timeout %s, before the original's failure was established\n", *timeout)
			return exitError
		}
		fmt.Fprintf(stderr, "orilab reduce: %v\n", err)
		return exitError
	}
	if res.Found {
		dir := *out
		if dir == "" {
			dir = filepath.Dir(s.File)
		}
		if err := bisect.WriteReduced(res, dir); err != nil {
			fmt.Fprintf(stderr, "orilab reduce: %v\n", err)
			return exitError
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	} else {
		printReduce(stdout, res)
	}
	if !res.Found {
		return exitMismatch
	}
	return exitOK
}

func printReduce(w io.Writer, r *bisect.ReduceResult) {
	if !r.Found {
		fmt.Fprintf(w, "%s: not reproducible: %s\n", r.Spec, r.Reason)
		return
	}
	pct := 100.0
	if r.InstsBefore > 0 {
		pct = 100 * float64(r.InstsAfter) / float64(r.InstsBefore)
	}
	fmt.Fprintf(w, "%s: reduced %d to %d PTX instructions (%.1f%%)\n", r.Spec, r.InstsBefore, r.InstsAfter, pct)
	if r.TimedOut {
		fmt.Fprintln(w, "  the time ran out (--timeout): this is the best reduction found so far")
	}
	fmt.Fprintf(w, "  signature: %s\n", r.Signature)
	fmt.Fprintf(w, "  launch: %s -> %s\n", r.LaunchBefore, r.LaunchAfter)
	fmt.Fprintf(w, "  %d candidates (%d more from the cache, %d kept), %d executions, %.1fs (confirmed, re-run twice)\n",
		r.Candidates, r.CacheHits, r.Accepted, r.Executions, r.Seconds)
	if r.UndefinedRejected > 0 {
		fmt.Fprintf(w, "  %d candidates kept the signature but were rejected for reading a register the original defines first\n", r.UndefinedRejected)
	}
	if r.ExecError != "" {
		fmt.Fprintf(w, "  execution fails after %s: %s\n", r.Signature.Phase, r.ExecError)
	}
	if len(r.Mismatches) > 0 {
		io.WriteString(w, indent(strings.TrimRight(spec.FormatResults(r.Mismatches), "\n"), "  "))
	}
	fmt.Fprintf(w, "wrote %s and %s\n", r.PTXFile, r.SpecFile)
	fmt.Fprintf(w, "reproduce: %s\n", r.Reproduce)
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
}
