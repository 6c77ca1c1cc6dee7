package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"orilab/pipeline"
)

func runPhases(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("phases", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt := fs.Int("O", 3, "optimization `level` 0-4")
	fs.IntVar(opt, "opt-level", 3, "same as -O")
	arch := fs.String("arch", "sm_75", "target `sm_XX`")
	fs.StringVar(arch, "gpu-name", "sm_75", "same as -arch")
	var kf knobFlags
	kf.add(fs)
	asJSON := fs.Bool("json", false, "print the table as JSON")
	verbose := fs.Bool("v", false, "print each phase's doc line under it")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab phases [-O N] [-arch sm_XX] [-knob NAME=VALUE]... [-knobs-file F] [-v] [--json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Lists ptxas's 159 phases in order with their category and whether each runs")
		fmt.Fprintln(fs.Output(), "at this -O level under the knobs given (ORILAB_KNOBS, -knobs-file, -knob), or")
		fmt.Fprintln(fs.Output(), "why not; -v adds each phase's doc line.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "orilab phases: unexpected argument %q\n", pos[0])
		return exitError
	}
	if !checkArchOpt("phases", *arch, *opt, stderr) {
		return exitError
	}
	src, err := kf.sources()
	if err != nil {
		fmt.Fprintf(stderr, "orilab phases: %v\n", err)
		return exitError
	}
	req := pipeline.Request{Knobs: src, Log: stderr}
	set, err := req.ResolveKnobs(nil)
	if err != nil {
		fmt.Fprintf(stderr, "orilab phases: %v\n", err)
		return exitError
	}
	rows := pipeline.PhasePlanWith(*opt, archNumber(*arch), set)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
		return exitOK
	}
	active := 0
	for _, r := range rows {
		state := "runs"
		if !r.Runs {
			state = "no-op: " + r.Reason
		} else {
			active++
		}
		fmt.Fprintf(stdout, "%3d  %-36s %-12s %s\n", r.Index, r.Name, r.Category, state)
		if *verbose {
			fmt.Fprintf(stdout, "     %s\n", r.Doc)
		}
	}
	fmt.Fprintf(stdout, "\n%d of %d phases run at -O%d on sm_%d.\n", active, len(rows), *opt, archNumber(*arch))
	return exitOK
}
