package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/tui"
)

// runTUI opens the workbench on a .ptx file, a kernel spec, or (with no
// argument) the built-in sample kernel and its spec.
func runTUI(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt := fs.Int("O", 3, "optimization `level` 0-4")
	fs.IntVar(opt, "opt-level", 3, "same as -O")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orilab tui [-O N] [FILE.ptx | SPEC.json]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "The phase-by-phase workbench. With no argument it opens a built-in sample")
		fmt.Fprintln(stderr, "kernel (a shared-memory block reduction) and its spec. Press ? for the keys.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "orilab tui: want at most one file, got %d arguments\n", len(pos))
		return exitError
	}
	if *opt < 0 || *opt > 5 {
		fmt.Fprintf(stderr, "orilab tui: -O %d: want 0 to 4 (5 is accepted as 4)\n", *opt)
		return exitError
	}
	var w *tui.Workbench
	var err error
	if len(pos) == 0 {
		var cleanup func()
		w, cleanup, err = tui.LoadSample(*opt)
		defer cleanup()
	} else {
		var src []byte
		if src, err = os.ReadFile(pos[0]); err == nil {
			w, err = tui.Load(pos[0], src, *opt)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	p := tea.NewProgram(tui.New(w), tea.WithAltScreen())
	if _, err := p.Run(); err != nil {
		fmt.Fprintf(stderr, "orilab tui: %v\n", err)
		return exitError
	}
	return exitOK
}
