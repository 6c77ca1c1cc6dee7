package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ptx"
)

// knobFlags are the knob options shared by compile, run and the other
// commands that compile.
type knobFlags struct {
	cli  multiFlag
	file string
}

func addKnobFlags(fs *flag.FlagSet) *knobFlags {
	k := &knobFlags{}
	fs.Var(&k.cli, "knob", "set a knob: `NAME=VALUE`, NAME (a bool), or A=1~B=2 (repeatable)")
	fs.StringVar(&k.file, "knobs-file", "", "read knobs from `FILE` (after a [knobs] line: NAME=VALUE per line)")
	return k
}

// load resolves the knobs from every source in ptxas's priority order
// (environment, file, -knob, .pragma, WHEN=) and prints warnings, and the
// DumpKnobs listing when asked.
func (k *knobFlags) load(m *ptx.Module, stderr io.Writer) (*knobs.Set, error) {
	src := knobs.Sources{Env: knobs.EnvFromOS(), CLI: k.cli}
	if k.file != "" {
		b, err := os.ReadFile(k.file)
		if err != nil {
			return nil, err
		}
		src.File = &knobs.File{Path: k.file, Content: b}
	}
	if m != nil {
		src.Pragmas, src.FuncPragmas = pipeline.Pragmas(m)
	}
	set, warns, err := knobs.Load(knobs.Default, src)
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "orilab: warning: %s\n", w)
	}
	if set.DumpKnobs() {
		set.Dump(stderr)
	}
	return set, nil
}
