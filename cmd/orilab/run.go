package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	arch := fs.String("arch", "", "target `sm_XX` (default: the module's .target, at least sm_75)")
	fs.StringVar(arch, "gpu-name", "", "same as -arch")
	opt := fs.Int("O", 3, "optimization `level` (the optimizer has not landed: runs use the IR after lowering)")
	var knobs multiFlag
	fs.Var(&knobs, "knob", "set a knob, `NAME=VALUE` (not available yet)")
	after := fs.String("after", "", "execute the IR after `PHASE`; only \"lowering\" exists until the phase manager lands")
	maxSteps := fs.Int64("max-steps", 0, "end the run after `N` warp-steps (default 50000000)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orilab run SPEC.json [-arch sm_XX] [--after PHASE] [--max-steps N] [--json]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Compiles the spec's PTX, executes the kernel in the simulator and checks the")
		fmt.Fprintln(stderr, "expected buffers (see ../shared/KERNEL-SPEC.md). Exit status: 0 when every")
		fmt.Fprintln(stderr, "buffer matches, 1 on a mismatch, 2 on any error (bad spec, PTX error,")
		fmt.Fprintln(stderr, "simulator fault such as an out-of-bounds access).")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(normalizeArgs(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "orilab run: want exactly one spec file, got %d arguments\n", fs.NArg())
		return exitError
	}
	if *arch != "" && !smRe.MatchString(*arch) {
		fmt.Fprintf(stderr, "orilab run: -arch %q: want sm_NN, for example sm_75\n", *arch)
		return exitError
	}
	if len(knobs) > 0 {
		fmt.Fprintln(stderr, "orilab run: knobs are not available yet: the knob system has not landed")
		return exitError
	}
	if *after != "" && *after != "lowering" {
		fmt.Fprintf(stderr, "orilab run: --after %q: the phase manager has not landed; the only point is \"lowering\"\n", *after)
		return exitError
	}
	if *opt != 3 {
		fmt.Fprintf(stderr, "orilab run: note: -O %d has no effect yet (the optimizer has not landed); running the IR after lowering\n", *opt)
	}
	s, err := spec.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	rep, err := pipeline.RunSpec(s, pipeline.RunOptions{Compile: pipeline.Options{Arch: archNumber(*arch)}, MaxWarpSteps: *maxSteps})
	if err != nil {
		fmt.Fprintln(stderr, err)
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
