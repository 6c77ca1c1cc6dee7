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
	arch := fs.String("arch", "", "target `sm_XX` (default: the module's .target, at least sm_75)")
	fs.StringVar(arch, "gpu-name", "", "same as -arch")
	opt := fs.Int("O", 3, "optimization `level` 0-4")
	fs.IntVar(opt, "opt-level", 3, "same as -O")
	kf := addKnobFlags(fs)
	after := fs.String("after", "", "execute the IR after `PHASE` (a phase name, or \"lowering\"); default: after the last phase")
	maxSteps := fs.Int64("max-steps", 0, "end the run after `N` warp-steps (default 50000000)")
	maxrreg := fs.Int("maxrregcount", 0, "use at most `N` R registers per thread (0: no limit); spills to local memory when needed")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orilab run SPEC.json [-O N] [-arch sm_XX] [--after PHASE] [--max-steps N] [--json]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Compiles the spec's PTX, executes the kernel in the simulator and checks the")
		fmt.Fprintln(stderr, "expected buffers (see ../shared/KERNEL-SPEC.md). Exit status: 0 when every")
		fmt.Fprintln(stderr, "buffer matches, 1 on a mismatch, 2 on any error (bad spec, PTX error,")
		fmt.Fprintln(stderr, "simulator fault such as an out-of-bounds access).")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab run: want exactly one spec file, got %d arguments\n", len(pos))
		return exitError
	}
	if !checkArchOpt("run", *arch, *opt, stderr) {
		return exitError
	}
	s, err := spec.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	set, err := kf.load(nil, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "orilab run: %v\n", err)
		return exitError
	}
	if *maxrreg < 0 || *maxrreg > 255 {
		fmt.Fprintf(stderr, "orilab run: --maxrregcount %d: want 1 to 255 (0 for no limit)\n", *maxrreg)
		return exitError
	}
	po := pipeline.PhaseOptions{OptLevel: *opt, NoSnapshots: true, DumpTo: stderr, MaxRegCount: *maxrreg}
	if err := po.ApplyKnobs(set); err != nil {
		fmt.Fprintf(stderr, "orilab run: %v\n", err)
		return exitError
	}
	rep, err := pipeline.RunSpec(s, pipeline.RunOptions{
		Compile:      pipeline.Options{Arch: archNumber(*arch)},
		Phases:       po,
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
