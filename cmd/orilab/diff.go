package main

import (
	"flag"
	"fmt"
	"io"
	"os"

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
	var snaps [2]map[int]*pipeline.Snapshot
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
		snaps[i] = map[int]*pipeline.Snapshot{}
		for _, s := range sess.Snapshots {
			snaps[i][s.Index] = s
		}
	}
	what := "the module"
	if *fn != "" {
		what = *fn
	}
	fmt.Fprintf(stdout, "A: %s\nB: %s\n%s at -O%d, %s:\n", orNone(*a), orNone(*b), file, req.OptLevel, what)
	status := func(s *pipeline.Snapshot) string {
		if s == nil {
			return "not run"
		}
		return s.Status.String()
	}
	prevDiff, first, lastA, lastB, lastName := 0, -1, "", "", ""
	for i, p := range pipeline.PhaseTable {
		sa, sb := snaps[0][i], snaps[1][i]
		if sa == nil && sb == nil {
			continue
		}
		ta, tb := lastA, lastB
		if sa != nil {
			ta, _ = funcText(sa.Module, *fn)
		}
		if sb != nil {
			tb, _ = funcText(sb.Module, *fn)
		}
		lastA, lastB, lastName = ta, tb, p.Name
		d := diffLines(ta, tb)
		if status(sa) == status(sb) && d == prevDiff {
			continue
		}
		note := "same IR"
		if d > 0 {
			note = plural(d, "line") + " differ"
		}
		fmt.Fprintf(stdout, "  #%-3d %-32s A %-10s B %-10s %s\n", i, p.Name, status(sa), status(sb), note)
		if d != prevDiff && d > 0 && (first < 0 || *all) {
			if first < 0 {
				first = i
			}
			fmt.Fprintf(stdout, "\n%s", indent(irdiff.Unified(ta, tb, "A after "+p.Name, "B after "+p.Name, 3), "    "))
			fmt.Fprintln(stdout)
		}
		prevDiff = d
	}
	if prevDiff == 0 {
		fmt.Fprintf(stdout, "after the last phase (%s): the IR is the same\n", lastName)
		return exitOK
	}
	fmt.Fprintf(stdout, "after the last phase (%s): %s differ\n", lastName, plural(prevDiff, "line"))
	if !*all || first < 0 {
		fmt.Fprintf(stdout, "\n%s", irdiff.Unified(lastA, lastB, "A", "B", 3))
	}
	return exitMismatch
}

// diffLines counts the lines an aligned diff of a and b marks as changed,
// removed or added (a changed line counts once).
func diffLines(a, b string) int {
	if a == b {
		return 0
	}
	n := 0
	for _, o := range irdiff.Align(irdiff.Lines(a), irdiff.Lines(b)) {
		if o.Kind != irdiff.Same {
			n++
		}
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
