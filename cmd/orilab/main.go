package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"orilab/internal/suggest"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0 // success (run: every buffer matched)
	exitMismatch = 1 // run/bisect: a mismatch or no culprit
	exitError    = 2 // bad input, unavailable feature, internal error
)

// command is one subcommand. run is nil for a capability that has not landed
// yet; such a command exits 2 with a one-line message and prints nothing
// else.
type command struct {
	name    string
	usage   string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
	missing string // what is still to be built, for unavailable commands
}

var commands = []command{
	{name: "compile", usage: "orilab compile [--parse-only] [--emit ptx|ir] [--output-format cubin|...] [-o OUT] FILE.ptx", summary: "parse, check and compile a PTX module", run: runCompile},
	{name: "run", usage: "orilab run SPEC.json [-arch sm_XX] [--after PHASE] [--max-steps N] [--json]", summary: "execute a kernel spec and compare its buffers", run: runRun},
	{name: "gpu", usage: "orilab gpu run SPEC.json [-O N] [-arch sm_XX] [--json]", summary: "run a kernel spec on the GPU: simulator, orilab's cubin and the driver's JIT compared", run: runGPU},
	{name: "phases", usage: "orilab phases [-O N] [-arch sm_XX] [--json]", summary: "list the 159 phases and whether each runs", run: runPhases},
	{name: "knobs", usage: "orilab knobs [PATTERN] [--json]", summary: "list every knob with its type, default and readers", run: runKnobs},
	{name: "bisect", usage: "orilab bisect SPEC.json --mode phase|disable|knobs|sites|auto ...", summary: "find the phase, phase set or knob difference behind a miscompile", run: runBisect},
	{name: "reduce", usage: "orilab reduce SPEC.json [-O N] [-o DIR] [--verify] [--json] [--timeout D]", summary: "shrink a failing kernel while its failure stays the same", run: runReduce},
	{name: "inject", usage: "orilab inject (SPEC.json|FILE.ptx) --bugspec LINE [--seed S] [--at PHASE] [--trials N] ...", summary: "bugspec fault injection into post-RA code, and campaigns", run: runInject},
	{name: "fuzz", usage: "orilab fuzz [--seed S] [--count N] [--jobs J] [-O LEVELS] [--random-knobs]", summary: "differential testing with random PTX programs", run: runFuzz},
	{name: "vs-ptxas", usage: "orilab vs-ptxas [-arch sm_XX] [-O N] [--runs N] FILE.ptx|DIR...", summary: "compare registers, spills, instructions and compile time with NVIDIA's ptxas", run: runVsPtxas},
	{name: "merge", usage: "orilab merge DIR [--json]", summary: "combine the results of a sharded fuzz run or fault campaign", run: runMerge},
	{name: "diff", usage: "orilab diff FILE.ptx [-O N] --a 'SETTINGS' --b 'SETTINGS' [--func NAME] [--all]", summary: "compile twice with two knob settings and compare the compilations phase by phase", run: runDiff},
	{name: "tui", usage: "orilab tui [-O N] [FILE.ptx|SPEC.json]", summary: "the phase-by-phase workbench", run: runTUI},
}

func main() {
	tuneGC(os.Args[1:], os.Getenv("GOGC"))
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// compileGCPercent is the garbage collector's target for orilab compile.
//
// Decision: a compile is a short process whose live heap stays small while
// it allocates a lot, so at Go's default (100) the collector ran most of
// the time the heap doubled from a few megabytes, about a fifth of the CPU
// time of a large file. At 400, mcx_core.ptx took 0.41 s of CPU instead of
// 0.50 s and peaked at 65 MB instead of 40 MB; GOGC=off was no faster (the
// page faults of a 220 MB heap cost what collection saved). An explicit
// GOGC in the environment wins.
const compileGCPercent = 400

// tuneGC sets the collector's target for the command in args, unless the
// environment's GOGC (gogc) already chose one.
func tuneGC(args []string, gogc string) {
	if len(args) > 0 && args[0] == "compile" && gogc == "" {
		debug.SetGCPercent(compileGCPercent)
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitError
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			if c := find(args[1]); c != nil {
				if c.run != nil {
					return c.run([]string{"--help"}, stdout, stderr)
				}
				fmt.Fprintf(stdout, "usage: %s\n\n%s.\n\nNot available yet: %s.\n", c.usage, c.summary, c.missing)
				return exitOK
			}
			fmt.Fprintf(stderr, "orilab help: unknown command %q%s\nRun 'orilab help' for the list of commands.\n", args[1], suggestCommand(args[1]))
			return exitError
		}
		usage(stdout)
		return exitOK
	}
	c := find(name)
	if c == nil {
		fmt.Fprintf(stderr, "orilab: unknown command %q%s\nRun 'orilab help' for the list of commands.\n", name, suggestCommand(name))
		return exitError
	}
	if c.run == nil {
		fmt.Fprintf(stderr, "orilab %s: not available yet: %s\n", c.name, c.missing)
		return exitError
	}
	return c.run(args[1:], stdout, stderr)
}

func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "orilab: a PTX-to-SASS compiler workbench after NVIDIA's ptxas")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		state := ""
		if c.run == nil {
			state = " (not available yet)"
		}
		fmt.Fprintf(w, "  %-8s %s%s\n", c.name, c.summary, state)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'orilab help COMMAND' or 'orilab COMMAND --help' for details.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 mismatch (run, bisect), 2 error.")
}

// suggestCommand returns ` (did you mean "x"?)` for the closest command name.
func suggestCommand(name string) string {
	best, bestD := "", 3
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.name)
	}
	sort.Strings(names)
	for _, n := range names {
		if d := suggest.Distance(strings.ToLower(name), n, 0); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
