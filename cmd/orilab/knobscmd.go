package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"orilab/pipeline/knobs"
)

func runKnobs(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("knobs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the knobs as JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab knobs [PATTERN] [--json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Lists every knob orilab reads, with its type, default, what it does and which")
		fmt.Fprintln(fs.Output(), "phases or components read it. PATTERN filters names (case-insensitive substring).")
		fmt.Fprintln(fs.Output(), "Only knobs that code reads are registered; ptxas has about 1,300.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "orilab knobs: want at most one pattern, got %d arguments\n", len(pos))
		return exitError
	}
	pattern := ""
	if len(pos) == 1 {
		pattern = strings.ToLower(pos[0])
	}
	type row struct {
		Name    string   `json:"name"`
		Type    string   `json:"type"`
		Default string   `json:"default"`
		Range   string   `json:"range,omitempty"` // the values an int knob accepts, "0..", "1..16"
		Doc     string   `json:"doc"`
		Readers []string `json:"readers"`
	}
	var rows []row
	for _, k := range knobs.Default.All() {
		if pattern != "" && !strings.Contains(strings.ToLower(k.Name), pattern) {
			continue
		}
		r := row{Name: k.Name, Type: k.Type.String(), Default: k.Default, Doc: k.Doc, Readers: k.Readers}
		if k.Bounds != nil {
			r.Range = k.Bounds.String()
		}
		rows = append(rows, r)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
		return exitOK
	}
	if len(rows) == 0 {
		fmt.Fprintf(stderr, "orilab knobs: no knob matches %q\n", pattern)
		return exitMismatch
	}
	for _, r := range rows {
		def := r.Default
		if def == "" {
			def = "(unset)"
		}
		if r.Range != "" {
			def += "  range " + r.Range
		}
		fmt.Fprintf(stdout, "%s  %s  default %s\n    %s\n    read by: %s\n", r.Name, r.Type, def, r.Doc, strings.Join(r.Readers, ", "))
	}
	return exitOK
}
