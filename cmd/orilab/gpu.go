package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"orilab/internal/cuda"
	"orilab/pipeline/gpu"
	"orilab/pipeline/spec"
)

// runGPU dispatches orilab gpu's subcommands (only run so far).
func runGPU(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "run" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, "usage: orilab gpu run SPEC.json [-O N] [-arch sm_XX] [--json]")
			return exitOK
		}
		fmt.Fprintln(stderr, "usage: orilab gpu run SPEC.json [-O N] [-arch sm_XX] [--json]")
		return exitError
	}
	fs := flag.NewFlagSet("gpu run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRequestFlags(fs, false, false)
	maxSteps := fs.Int64("max-steps", 0, "end the simulator's run after `N` warp-steps (default 50000000)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab gpu run SPEC.json [-O N] [-arch sm_XX] [-knob NAME=VALUE]... [--max-steps N] [--json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Runs a kernel spec three ways and compares them: orilab's simulator, orilab's")
		fmt.Fprintln(fs.Output(), "cubin on the GPU (device 0, through the CUDA driver, libcuda.so.1 loaded at run")
		fmt.Fprintln(fs.Output(), "time; ORILAB_LIBCUDA names another file), and the driver's own JIT of the same")
		fmt.Fprintln(fs.Output(), "PTX on the GPU. The target is the GPU's compute capability unless -arch says")
		fmt.Fprintln(fs.Output(), "otherwise. Exit status: 0 when all three pass the spec and the two GPU runs")
		fmt.Fprintln(fs.Output(), "wrote the same bytes, 1 otherwise, 2 on an error, and when there is no GPU or")
		fmt.Fprintln(fs.Output(), "no driver.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args[1:], stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab gpu run: want exactly one spec file, got %d arguments\n", len(pos))
		return exitError
	}
	req, ok := rf.request("gpu run", stderr)
	if !ok {
		return exitError
	}
	s, err := spec.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	if s.CompileOnly {
		fmt.Fprintf(stderr, "orilab gpu run: %s is a compile_only spec: there is nothing to launch\n", s.Name)
		return exitError
	}
	rep, err := gpu.Run(s, gpu.Options{Request: req, MaxWarpSteps: *maxSteps})
	if errors.Is(err, cuda.ErrNoDriver) {
		fmt.Fprintf(stderr, "orilab gpu run: %v\n(gpu run needs an NVIDIA GPU and its driver; orilab run executes the spec in the simulator)\n", err)
		return exitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "orilab gpu run: %v\n", err)
		return exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		fmt.Fprintf(stdout, "%s (%s) on sm_%d\n", rep.Spec, rep.Kernel, rep.Arch)
		for _, o := range []gpu.Outcome{rep.Sim, rep.Orilab, rep.Driver} {
			switch {
			case o.Err != "":
				fmt.Fprintf(stdout, "  %-13s error: %s\n", o.Name+":", o.Err)
			case o.Pass:
				fmt.Fprintf(stdout, "  %-13s pass\n", o.Name+":")
			default:
				fmt.Fprintf(stdout, "  %-13s MISMATCH\n%s", o.Name+":", spec.FormatResults(o.Results))
			}
		}
		if rep.Agree {
			fmt.Fprintln(stdout, "  orilab's cubin and the driver's JIT wrote the same buffers")
		} else {
			fmt.Fprintln(stdout, "  orilab's cubin and the driver's JIT wrote different buffers")
		}
	}
	if !rep.Pass {
		return exitMismatch
	}
	return exitOK
}
