package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"orilab/internal/atomicfile"
	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// archNumber turns "sm_80" into 80; "" gives 0 (take the module's target).
func archNumber(s string) int {
	n := 0
	for _, ch := range strings.TrimPrefix(s, "sm_") {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

// multiFlag collects a repeatable flag such as -knob.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

var smRe = regexp.MustCompile(`^sm_[0-9]+[af]?$`)

// normalizeArgs turns the glued ptxas spellings "-O3" and "-arch=sm_80"
// style arguments into forms the flag package reads.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if len(a) == 3 && a[:2] == "-O" && a[2] >= '0' && a[2] <= '9' {
			out = append(out, "-O", a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}

// parseArgs parses flags anywhere on the command line (orilab run
// SPEC.json -O 1 works like orilab run -O 1 SPEC.json), with the ptxas
// spellings normalized; "--" ends the flags. It returns the positional
// arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	args = normalizeArgs(args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" || len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runCompile(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	parseOnly := fs.Bool("parse-only", false, "stop after parsing and semantic checks; print nothing on success")
	emit := fs.String("emit", "", "what to print: ptx (the checked module in canonical form) or ir (the Ori IR after lowering)")
	out := fs.String("o", "", "write the output to `FILE` (atomically) instead of standard output")
	arch := fs.String("arch", "", "target `sm_XX` (default: the module's .target; code generation is not available yet)")
	fs.StringVar(arch, "gpu-name", "", "same as -arch")
	opt := fs.Int("O", 3, "optimization `level` 0-4 (code generation is not available yet)")
	fs.IntVar(opt, "opt-level", 3, "same as -O")
	var knobs multiFlag
	fs.Var(&knobs, "knob", "set a knob, `NAME=VALUE` (repeatable; the knob system is not available yet)")
	knobsFile := fs.String("knobs-file", "", "read knobs from `FILE` (not available yet)")
	maxrreg := fs.Int("maxrregcount", 0, "register limit `N` (not available yet)")
	stat := fs.String("stat", "", "print per-phase statistics (not available yet)")
	verbose := fs.Bool("v", false, "print resource usage (not available yet)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orilab compile [--parse-only] [--emit ptx|ir] [-o OUT] FILE.ptx")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Parses and checks a PTX module. Errors read FILE:LINE:COL: error: MESSAGE,")
		fmt.Fprintln(stderr, "then the source line and a caret; the exit status is then 2.")
		fmt.Fprintln(stderr, "--emit ir prints the Ori IR after lowering (pipeline/ori/SEMANTICS.md says what")
		fmt.Fprintln(stderr, "it means). The 159-phase optimizer and SASS emission are not available yet.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab compile: want exactly one PTX file, got %d arguments\n", len(pos))
		return exitError
	}
	if *arch != "" && !smRe.MatchString(*arch) {
		fmt.Fprintf(stderr, "orilab compile: -arch %q: want sm_NN, for example sm_75\n", *arch)
		return exitError
	}
	if *opt < 0 || *opt > 5 {
		fmt.Fprintf(stderr, "orilab compile: -O %d: want 0 to 4 (5 is accepted as 4)\n", *opt)
		return exitError
	}
	switch {
	case len(knobs) > 0 || *knobsFile != "":
		fmt.Fprintln(stderr, "orilab compile: knobs are not available yet: the knob system has not landed")
		return exitError
	case *maxrreg != 0 || *stat != "" || *verbose:
		fmt.Fprintln(stderr, "orilab compile: --maxrregcount, --stat and -v are not available yet: they need the back end")
		return exitError
	}
	if *emit != "" && *emit != "ptx" && *emit != "ir" {
		fmt.Fprintf(stderr, "orilab compile: --emit %q: want ptx or ir (sass is not available yet)\n", *emit)
		return exitError
	}
	if !*parseOnly && *emit == "" {
		fmt.Fprintln(stderr, "orilab compile: the optimizer and SASS emission are not available yet; use --parse-only, --emit ptx or --emit ir")
		return exitError
	}
	file := pos[0]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	m, err := ptx.Parse(file, src)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	if *emit == "" {
		return exitOK
	}
	var text string
	switch *emit {
	case "ptx":
		text = ptx.Print(m)
	case "ir":
		om, err := lower.Lower(m, lower.Options{Arch: archNumber(*arch)})
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitError
		}
		for _, f := range om.Funcs {
			if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
				fmt.Fprintf(stderr, "orilab compile: internal error: the lowering of %s does not verify:\n%v\n", f.Name, err)
				return exitError
			}
		}
		text = om.String()
	}
	if *out != "" {
		if err := atomicfile.Write(*out, []byte(text)); err != nil {
			fmt.Fprintf(stderr, "orilab compile: writing %s: %v\n", *out, err)
			return exitError
		}
		return exitOK
	}
	io.WriteString(stdout, text)
	return exitOK
}
