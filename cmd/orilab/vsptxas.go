package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"orilab/internal/nvtools"
	"orilab/internal/vsptxas"
)

func runVsPtxas(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("vs-ptxas", flag.ContinueOnError)
	flags.SetOutput(stderr)
	arch := flags.String("arch", "sm_80", "target `sm_XX` for both compilers")
	opt := flags.Int("O", 3, "optimization `level` for both compilers")
	runs := flags.Int("runs", 5, "timed runs per compiler and file (`N`; medians, alternated)")
	orilab := flags.String("orilab", "", "the orilab `binary` to measure (default: this one)")
	asJSON := flags.Bool("json", false, "print the report as JSON")
	cpu := flags.Bool("cpu", false, "time each compile by the CPU time (user+system) its process used, not the wall clock (for a loaded machine)")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: orilab vs-ptxas [-arch sm_XX] [-O N] [--runs N] [--cpu] [--orilab BIN] [--json] FILE.ptx|DIR...")
		fmt.Fprintln(flags.Output())
		fmt.Fprintln(flags.Output(), "Compiles every PTX file (a DIR: every .ptx below it) with orilab and with")
		fmt.Fprintln(flags.Output(), "NVIDIA's ptxas at the same -arch and -O, and reports per kernel the registers,")
		fmt.Fprintln(flags.Output(), "spill bytes and static instructions of both (orilab/ptxas), per file the")
		fmt.Fprintln(flags.Output(), "whole-process compile time (median of alternated runs), and geometric means.")
		fmt.Fprintln(flags.Output(), "ptxas and cuobjdump come from ORILAB_PTXAS/ORILAB_CUOBJDUMP, ORILAB_NVTOOLS,")
		fmt.Fprintln(flags.Output(), "the directory .ci/run installs them into, or PATH.")
		fmt.Fprintln(flags.Output(), "Exit status: 0 done, 2 on errors (a missing tool, an unreadable file).")
		fmt.Fprintln(flags.Output())
		flags.PrintDefaults()
	}
	pos, code, ok := parseCommand(flags, args, stdout)
	if !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "orilab vs-ptxas: "+format+"\n", a...)
		return exitError
	}
	if len(pos) == 0 {
		return fail("want PTX files or directories")
	}
	if !smRe.MatchString(*arch) {
		return fail("-arch %q: want sm_NN, for example sm_80", *arch)
	}
	if *opt < 0 || *opt > 4 {
		return fail("-O %d: want 0 to 4", *opt)
	}
	if *runs < 1 {
		return fail("--runs %d: want 1 or more", *runs)
	}
	o := vsptxas.Options{Arch: *arch, OptLevel: *opt, Runs: *runs, Orilab: *orilab, CPU: *cpu}
	if o.Orilab == "" {
		exe, err := os.Executable()
		if err != nil {
			return fail("cannot find this binary: %v; give --orilab", err)
		}
		o.Orilab = exe
	}
	var err error
	if o.Ptxas, err = nvtools.Find(nvtools.Ptxas); err != nil {
		return fail("%v", err)
	}
	if o.Cuobjdump, err = nvtools.Find(nvtools.Cuobjdump); err != nil {
		return fail("%v", err)
	}
	var files []string
	for _, p := range pos {
		st, err := os.Stat(p)
		if err != nil {
			return fail("%v", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
				files = append(files, path)
			}
			return nil
		})
	}
	sort.Strings(files)
	if isTerminal(stderr) {
		o.Progress = func(done, total int, file string) {
			fmt.Fprintf(stderr, "\r\033[Kvs-ptxas: %d/%d %s", done, total, filepath.Base(file))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := vsptxas.Compare(ctx, files, o)
	if isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return fail("%v", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		io.WriteString(stdout, rep.Text())
	}
	return exitOK
}
