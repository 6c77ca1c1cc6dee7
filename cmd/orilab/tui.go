package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
	"orilab/tui"
)

// runTUI opens the workbench on a .ptx file, a kernel spec, or (with no
// argument) the built-in sample kernel and its spec.
func runTUI(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRequestFlags(fs, false, false)
	mouse := fs.Bool("mouse", true, "click a phase or a tab, scroll with the wheel; -mouse=false leaves the mouse to the terminal (to select text)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab tui [-O N] [-arch sm_XX] [-knob NAME=VALUE]... [-knobs-file F] [--maxrregcount N] [--verify] [-mouse=false] [FILE.ptx | SPEC.json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "The phase-by-phase workbench. With no argument it opens a built-in sample")
		fmt.Fprintln(fs.Output(), "kernel (a shared-memory block reduction) and its spec. Press ? for the keys.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "orilab tui: want at most one file, got %d arguments\n", len(pos))
		return exitError
	}
	req, ok := rf.request("tui", stderr)
	if !ok {
		return exitError
	}
	w, cleanup, err := openWorkbench(pos, req)
	defer cleanup()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	tui.TuneGC()
	m := tui.New(w)
	opts := []tea.ProgramOption{tea.WithAltScreen()}
	if *mouse {
		opts = append(opts, tea.WithMouseCellMotion())
	}
	p := tea.NewProgram(m, opts...)
	if _, err := p.Run(); err != nil {
		fmt.Fprintf(stderr, "orilab tui: %v\n", err)
		return exitError
	}
	// Printed below the shell prompt, where it can be copied whole.
	if r := m.LastReplay(); r != "" {
		fmt.Fprintf(stdout, "replay of the last bisection: %s\n", r)
	}
	return exitOK
}

// openWorkbench loads the workbench on pos (the built-in sample when
// empty) for the compilation req asks for; the knobs are checked against
// the module (its .pragma strings included) before the workbench opens.
// cleanup removes the sample's temporary files.
func openWorkbench(pos []string, req pipeline.Request) (w *tui.Workbench, cleanup func(), err error) {
	cleanup = func() {}
	if len(pos) == 0 {
		w, cleanup, err = tui.LoadSample(req.OptLevel)
	} else {
		var src []byte
		if src, err = os.ReadFile(pos[0]); err == nil {
			w, err = tui.Load(pos[0], src, req.OptLevel)
		}
	}
	if err != nil {
		return nil, cleanup, err
	}
	if _, err := req.ResolveKnobs(w.PTX); err != nil {
		return nil, cleanup, fmt.Errorf("orilab tui: %v", err)
	}
	req.Log = nil // warnings were printed once, above; the workbench has no terminal
	w.SetRequest(req)
	return w, cleanup, nil
}
