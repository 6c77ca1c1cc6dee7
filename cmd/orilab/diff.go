package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"orilab/internal/abdiff"
	"orilab/internal/irdiff"
	"orilab/pipeline"
	"orilab/pipeline/ptx"
)

// runDiff compiles one PTX file twice, with two knob settings (A and B)
// on top of the common flags, and compares the two compilations phase by
// phase: where their phases did different things, where their IR starts
// to differ, and how.
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRequestFlags(fs, false, false)
	a := fs.String("a", "", "compilation A's knob `SETTINGS` in the -knob syntax (NAME=VALUE records separated by ~; '' for none)")
	b := fs.String("b", "", "compilation B's knob `SETTINGS`")
	fn := fs.String("func", "", "compare only function `NAME`")
	all := fs.Bool("all", false, "print the A/B diff after every phase that changes it, not only where the IR first differs and after the last phase")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab diff FILE.ptx [-O N] [-arch sm_XX] [-knob NAME=VALUE]... --a 'SETTINGS' --b 'SETTINGS' [--func NAME] [--all]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Compiles FILE.ptx twice, with knob settings A and B on top of the common")
		fmt.Fprintln(fs.Output(), "flags, and compares the compilations phase by phase: the phases whose status")
		fmt.Fprintln(fs.Output(), "differs or after which the A/B difference of the IR changes, then the unified")
		fmt.Fprintln(fs.Output(), "diff (A to B) where the IR first differs and after the last phase. Exit status:")
		fmt.Fprintln(fs.Output(), "0 when the final IR is the same, 1 when it differs, 2 on errors.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab diff: want exactly one PTX file, got %d arguments\n", len(pos))
		return exitError
	}
	if *a == *b {
		fmt.Fprintf(stderr, "orilab diff: --a and --b are the same (%q): nothing to compare\n", *a)
		return exitError
	}
	req, ok := rf.request("diff", stderr)
	if !ok {
		return exitError
	}
	req.Log = nil
	file := pos[0]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "orilab diff: %v\n", err)
		return exitError
	}
	m, err := ptx.Parse(file, src)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	pr := &printIR{fn: *fn}
	var snaps [2][]*pipeline.Snapshot
	for i, settings := range []string{*a, *b} {
		r := req
		if settings != "" {
			r = req.WithKnobs(settings)
		}
		sess, err := r.Start(m, pipeline.SessionControl{Snapshots: true})
		if err == nil {
			if err = pr.checkFunc(sess.Lowered); err == nil {
				err = sess.RunAll()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "orilab diff: compilation %c (%q): %v\n", 'A'+i, settings, err)
			return exitError
		}
		snaps[i] = sess.Snapshots
	}
	what := "the module"
	if *fn != "" {
		what = *fn
	}
	fmt.Fprintf(stdout, "A: %s\nB: %s\n%s at -O%d, %s:\n", orNone(*a), orNone(*b), file, req.OptLevel, what)
	res := abdiff.Compare(snaps[0], snaps[1], *fn)
	for k, r := range res.Rows {
		note := "same IR"
		if r.Lines > 0 {
			note = plural(r.Lines, "line") + " differ"
		}
		fmt.Fprintf(stdout, "  #%-3d %-32s A %-10s B %-10s %s\n", r.Index, r.Name, r.StatusA, r.StatusB, note)
		if r.Grew && r.Lines > 0 && (k == res.First || *all) {
			fmt.Fprintf(stdout, "\n%s", indent(irdiff.Unified(r.A, r.B, "A after "+r.Name, "B after "+r.Name, 3), "    "))
			fmt.Fprintln(stdout)
		}
	}
	if res.FinalLines == 0 {
		fmt.Fprintf(stdout, "after the last phase (%s): the IR is the same\n", res.Last)
		return exitOK
	}
	fmt.Fprintf(stdout, "after the last phase (%s): %s differ\n", res.Last, plural(res.FinalLines, "line"))
	if !*all || res.First < 0 {
		fmt.Fprintf(stdout, "\n%s", irdiff.Unified(res.FinalA, res.FinalB, "A", "B", 3))
	}
	return exitMismatch
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
