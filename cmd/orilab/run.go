package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRequestFlags(fs, false, false)
	after := fs.String("after", "", "execute the IR after `PHASE` (a phase name, or \"lowering\"); default: after the last phase")
	maxSteps := fs.Int64("max-steps", 0, "end the run after `N` warp-steps (default 50000000)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab run SPEC.json [-O N] [-arch sm_XX] [-knob NAME=VALUE]... [-knobs-file F] [--maxrregcount N] [--verify] [--after PHASE] [--max-steps N] [--json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Compiles the spec's PTX, executes the kernel in the simulator and checks the")
		fmt.Fprintln(fs.Output(), "expected buffers (see ../shared/KERNEL-SPEC.md). Exit status: 0 when every")
		fmt.Fprintln(fs.Output(), "buffer matches, 1 on a mismatch, 2 on any error (bad spec, PTX error,")
		fmt.Fprintln(fs.Output(), "simulator fault such as an out-of-bounds access).")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab run: want exactly one spec file, got %d arguments\n", len(pos))
		return exitError
	}
	req, ok := rf.request("run", stderr)
	if !ok {
		return exitError
	}
	req.DumpTo = stderr
	s, err := spec.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	rep, err := pipeline.RunSpec(s, pipeline.RunOptions{
		Request:      req,
		MaxWarpSteps: *maxSteps,
		After:        *after,
	})
	if err != nil {
		fmt.Fprintf(stderr, "orilab run: %v\n", err)
		return exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		switch {
		case rep.CompileOnly:
			fmt.Fprintf(stdout, "%s: compiled (compile_only spec)\n", s.Name)
		case len(rep.Results) == 0:
			fmt.Fprintf(stdout, "%s: ran (%d warp-steps); the spec has no expectations\n", s.Name, rep.Stats.WarpSteps)
		default:
			io.WriteString(stdout, spec.FormatResults(rep.Results))
		}
	}
	if !rep.Pass {
		return exitMismatch
	}
	return exitOK
}
