package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"orilab/faultinject"
	"orilab/internal/atomicfile"
	"orilab/pipeline"
	"orilab/pipeline/lower"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sass"
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

// normalizeArgs turns the glued ptxas spellings "-O3", "-m64" and
// "-arch=sm_80" style arguments into forms the flag package reads.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if len(a) == 3 && a[:2] == "-O" && a[2] >= '0' && a[2] <= '9' {
			out = append(out, "-O", a[2:])
			continue
		}
		if len(a) > 2 && a[:2] == "-m" && a[2] >= '0' && a[2] <= '9' {
			out = append(out, "-machine", a[2:])
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
// parseCommand parses a subcommand's arguments with parseArgs. ok false
// means the command is over: exitOK after --help, exitError after a bad
// flag (the flag package has printed why).
//
// Asked for (--help), the usage goes to stdout like orilab --help's, so
// that it pages; after a bad flag, stderr gets the flag package's one line
// and a pointer to --help rather than the whole usage.
func parseCommand(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, ok bool) {
	usage, errOut := fs.Usage, fs.Output()
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	pos, err := parseArgs(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		usage()
		fs.SetOutput(errOut)
		return nil, exitOK, false
	case err != nil:
		fmt.Fprintf(errOut, "Run 'orilab %s --help' for usage.\n", fs.Name())
		return nil, exitError, false
	}
	return pos, 0, true
}

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
	emit := fs.String("emit", "sass", "what to print: sass (the default: SASS text after the last phase), ir (the Ori IR after the last phase), lowered (the Ori right after lowering) or ptx (the checked module in canonical form)")
	out := fs.String("o", "", "write the output to `FILE` instead of standard output (- for standard output; a regular file is replaced atomically, a device or FIFO such as /dev/null is written in place); a FILE ending in .cubin gets the cubin unless --emit or --output-format says otherwise")
	format := fs.String("output-format", "", "what to write: cubin (the ELF file the CUDA driver loads; needs -o), or sass, ir, lowered, ptx as --emit (default: cubin for -o FILE.cubin, else --emit's)")
	rf := addRequestFlags(fs, true, true)
	stat := fs.String("stat", "", "print statistics; `phase-wise` prints time and memory per phase to stderr")
	trace := fs.String("trace", "", "write the phase timeline as Chrome trace JSON to `FILE` (opens in Perfetto)")
	pr := addPrintFlags(fs)
	check := fs.Bool("check", false, "run the verifiers a normal compile skips, as ptxas's release builds do: "+pipeline.ReleaseVerifiers+" (--verify, --stat, --trace, --print-after, --print-changed, --html and --remarks imply it)")
	verbose := fs.Bool("v", false, "print ptxas-style resource usage (registers, stack frame, spill bytes, smem, cmem) to stderr")
	pf := addPtxasFlags(fs, verbose, out)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab compile [--parse-only] [--emit sass|ir|lowered|ptx] [--output-format cubin|sass|ir|lowered|ptx]")
		fmt.Fprintln(fs.Output(), "                      [-O N] [-arch sm_XX]")
		fmt.Fprintln(fs.Output(), "                      [-knob NAME=VALUE]... [-knobs-file F] [--maxrregcount N] [-v]")
		fmt.Fprintln(fs.Output(), "                      [--stat=phase-wise] [--trace FILE] [--check] [--verify] [-o OUT]")
		fmt.Fprintln(fs.Output(), "                      [--print-changed[=diff]] [--print-after LIST] [--func NAME] [--html FILE]")
		fmt.Fprintln(fs.Output(), "                      [--remarks[=PHASE+...]]")
		fmt.Fprintln(fs.Output(), "                      [--bugspec LINE|FILE [--seed S] [--at PHASE]] FILE.ptx")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Parses and checks a PTX module, lowers it to Ori and runs ptxas's 159 phases")
		fmt.Fprintln(fs.Output(), "(orilab phases lists them and which ones are built). Errors read")
		fmt.Fprintln(fs.Output(), "FILE:LINE:COL: error: MESSAGE, then the source line and a caret; the exit")
		fmt.Fprintln(fs.Output(), "status is then 2. Knobs come from $ORILAB_KNOBS, -knobs-file, -knob and the")
		fmt.Fprintln(fs.Output(), "PTX's .pragma strings, in that priority (orilab knobs lists them): for")
		fmt.Fprintln(fs.Output(), "example -knob DisablePhases=OriBranchOpt+GvnCse or -knob DUMPIR=OriSanitize.")
		fmt.Fprintln(fs.Output(), "The output is SASS text in nvdisasm syntax, with each instruction's control")
		fmt.Fprintln(fs.Output(), "word in a trailing comment: [B<waits>:R<read bar>:W<write bar>:<Y yield>:S<stall>];")
		fmt.Fprintln(fs.Output(), "-o FILE.cubin (or --output-format cubin) writes the cubin instead, an ELF file")
		fmt.Fprintln(fs.Output(), "for sm_75, sm_80, sm_86, sm_89 or sm_90 that cuobjdump and the CUDA driver read;")
		fmt.Fprintln(fs.Output(), "an instruction orilab cannot encode yet is then an error naming it. -v prints")
		fmt.Fprintln(fs.Output(), "the ptxas info lines (registers, stack frame, spill stores and loads, smem,")
		fmt.Fprintln(fs.Output(), "cmem[0]) to stderr. ptxas's common options are taken too (--verbose,")
		fmt.Fprintln(fs.Output(), "--output-file, -c, -lineinfo, -g, -m64, --fmad, --def-load-cache,")
		fmt.Fprintln(fs.Output(), "--warn-on-spills, -Werror, --version, -arch=compute_XX), each honoured or")
		fmt.Fprintln(fs.Output(), "refused with its reason (see below).")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if pf.version {
		io.WriteString(stdout, ptxasVersion)
		return exitOK
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "orilab compile: want exactly one PTX file, got %d arguments\n", len(pos))
		return exitError
	}
	if !pf.check(rf, stderr) {
		return exitError
	}
	req, ok := rf.request("compile", stderr)
	if !ok {
		return exitError
	}
	req.DumpTo = stdout
	if fmad, _ := strconv.ParseBool(pf.fmad); !fmad {
		// First, so that an explicit -knob FMAContraction=... still wins.
		req.Knobs.CLI = append([]string{pipeline.KnobFMAContraction + "=0"}, req.Knobs.CLI...)
	}
	if *stat != "" && *stat != "phase-wise" {
		fmt.Fprintf(stderr, "orilab compile: --stat=%q: only phase-wise is available yet\n", *stat)
		return exitError
	}
	switch *emit {
	case "sass", "ptx", "ir", "lowered":
	default:
		fmt.Fprintf(stderr, "orilab compile: --emit %q: want sass, ir, lowered or ptx\n", *emit)
		return exitError
	}
	if _, err := phaseList("--remarks", string(pr.remarks)); err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	emitSet := false
	fs.Visit(func(f *flag.Flag) { emitSet = emitSet || f.Name == "emit" })
	kind, err := outputFormat(*format, *emit, emitSet, *out)
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	*emit = kind
	file := pos[0]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	prepareHeap(len(src), os.Getenv("GOGC"), os.Getenv("ORILAB_HEAP"))
	m, err := ptx.Parse(file, src)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	if *parseOnly {
		return exitOK
	}
	if *emit == "ptx" {
		return writeOut(*out, ptx.Print(m), stdout, stderr)
	}
	// Per-phase snapshots (a copy, a hash and a pressure estimate of the
	// IR after every phase) only feed --stat, --trace, --print-after,
	// --print-changed and --html; recording them for every compilation
	// cost a quarter to a third of the compile time of large kernels.
	snaps := *stat != "" || *trace != "" || pr.active() || pr.html != "" || pr.remarks != ""
	// A compile is a release compilation (see pipeline.ReleaseVerifiers)
	// unless asked to check, or when it records snapshots: the phase
	// views then show the validation phases run, as before. A planted
	// --bugspec fault is judged by the post-RA verifiers either way.
	req.Release = !*check && !req.Verify && !snaps
	po, err := req.PhaseOptions(m, pipeline.SessionControl{Snapshots: snaps})
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	// One output is written: the back end makes only that one (the SASS
	// text of a large module costs about as much as its cubin).
	po.NoSASSText, po.NoCubin = *emit != "sass", *emit != "cubin"
	sess, err := pipeline.NewSessionFrom(m, pipeline.Options{Arch: req.Arch}, po)
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	err = sess.RunAll()
	reportPlanted(stderr, req.Fault, sess.Planted())
	if pr.active() {
		// What ran is printed even when a phase failed: the IR before
		// the failure is what one wants to see then.
		if perr := pr.write(stdout, sess.Lowered, sess.Snapshots); perr != nil {
			fmt.Fprintf(stderr, "orilab compile: %v\n", perr)
			return exitError
		}
	}
	if pr.remarks != "" {
		if _, rerr := pr.writeRemarks(stderr, file, sess.Lowered, sess.Snapshots); rerr != nil {
			fmt.Fprintf(stderr, "orilab compile: %v\n", rerr)
			return exitError
		}
	}
	if pr.html != "" {
		var page strings.Builder
		if herr := pr.writeHTML(&page, file, sess.Lowered, sess.Snapshots); herr != nil {
			fmt.Fprintf(stderr, "orilab compile: %v\n", herr)
			return exitError
		}
		if herr := atomicfile.Write(pr.html, []byte(page.String())); herr != nil {
			fmt.Fprintf(stderr, "orilab compile: writing %s: %v\n", pr.html, herr)
			return exitError
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	if *stat == "phase-wise" {
		pipeline.WritePhaseStats(stderr, sess.Snapshots)
	}
	if *trace != "" {
		var buf strings.Builder
		if err := pipeline.WriteTrace(&buf, sess.Snapshots); err != nil {
			fmt.Fprintf(stderr, "orilab compile: %v\n", err)
			return exitError
		}
		if err := atomicfile.Write(*trace, []byte(buf.String())); err != nil {
			fmt.Fprintf(stderr, "orilab compile: writing %s: %v\n", *trace, err)
			return exitError
		}
	}
	// The usage is derived from the final code once, and only when the
	// spill warning or -v reads it (it walks every instruction).
	var usage []sass.Usage
	if pf.warnSpills || *verbose {
		usage = resourceUsage(sess, m)
	}
	if pf.spills(usage, stderr) {
		return exitError
	}
	if *verbose {
		if err := writeResources(stderr, sess, usage); err != nil {
			fmt.Fprintf(stderr, "orilab compile: %v\n", err)
			return exitError
		}
	}
	switch *emit {
	case "cubin":
		return writeCubin(*out, sess, stderr)
	case "ir":
		return writeOut(*out, sess.Module().String(), stdout, stderr)
	case "lowered":
		return writeOut(*out, sess.Lowered.String(), stdout, stderr)
	}
	if (po.DumpIR != "" || pr.active()) && *out == "" {
		// DUMPIR or --print-* already wrote to stdout; SASS after it
		// would bury it.
		return exitOK
	}
	text, err := sassText(sess)
	if err != nil {
		fmt.Fprintf(stderr, "orilab compile: %v\n", err)
		return exitError
	}
	return writeOut(*out, text, stdout, stderr)
}

// sassText is the SASS of the final IR: DumpNVuCodeText's, or rendered
// here when that phase did not run (disabled, or left out by NamedPhases).
func sassText(sess *pipeline.Session) (string, error) {
	if b := sess.Backend(); b != nil && b.SASS != "" {
		return b.SASS, nil
	}
	text, err := sass.Text(sess.Module(), 0)
	if err != nil {
		return "", fmt.Errorf("no SASS: %v (SASS needs the register allocator's physical registers: run the whole pipeline, or use --emit ir)", err)
	}
	return text, nil
}

// writeResources prints ptxas's -v lines from usage (resourceUsage).
func writeResources(w io.Writer, sess *pipeline.Session, usage []sass.Usage) error {
	m := sess.Module()
	return sass.Resources(w, m.Arch, sass.GlobalBytes(m), usage)
}

// resourceUsage is what the -v lines say about each function: the
// allocator's register count, the frame and spill bytes of the final
// code, and the shared memory ptxas would charge (lower.SharedUsage).
func resourceUsage(sess *pipeline.Session, src *ptx.Module) []sass.Usage {
	m := sess.Module()
	us := sass.ModuleUsage(m, m.Arch)
	smem := lower.SharedUsage(src)
	b := sess.Backend()
	for i := range us {
		if b != nil {
			if st := b.RAStats[us[i].Name]; st != nil {
				// The encoding fix-ups after allocation may name a
				// register above the allocator's count
				// (pipeline.CubinFuncs counts the same way).
				us[i].Regs = max(us[i].Regs, st.Regs)
			}
		}
		if n, ok := smem[us[i].Name]; ok {
			us[i].Smem = n
		}
	}
	return us
}

// writeOut writes text to the -o file (by atomicfile's rules: a regular
// file atomically, a device or FIFO in place; not synced, as ptxas does
// not sync its output: see atomicfile.WriteUnsynced), or to stdout for ""
// and "-".
func writeOut(path, text string, stdout, stderr io.Writer) int {
	if path == "" || path == "-" {
		io.WriteString(stdout, text)
		return exitOK
	}
	if err := atomicfile.WriteStringUnsynced(path, text); err != nil {
		fmt.Fprintf(stderr, "orilab compile: writing %s: %v\n", path, err)
		return exitError
	}
	return exitOK
}

// checkArchOpt validates -arch and -O for command cmd, printing the error.
func checkArchOpt(cmd, arch string, opt int, stderr io.Writer) bool {
	if arch != "" && !smRe.MatchString(arch) {
		fmt.Fprintf(stderr, "orilab %s: -arch %q: want sm_NN, for example sm_75\n", cmd, arch)
		return false
	}
	// Decision: an explicit -arch below sm_75 is refused, as ptxas 13
	// refuses it (ptxas 13.0.88: "Value 'sm_12' is not defined for option
	// 'gpu-name'", and the same for sm_70),
	// instead of being raised to sm_75 without a word. A module's own
	// older .target is still raised: gpuocelot's sm_10/sm_20 files are
	// the corpus.
	if arch != "" && archNumber(arch) < 75 {
		fmt.Fprintf(stderr, "orilab %s: -arch %s: orilab targets sm_75 and later (ptxas 13 has dropped older targets too)\n", cmd, arch)
		return false
	}
	if opt < 0 || opt > 5 {
		fmt.Fprintf(stderr, "orilab %s: -O %d: want 0 to 4 (5 is accepted as 4)\n", cmd, opt)
		return false
	}
	return true
}

// reportPlanted prints what became of a planted fault: ptxas's report
// lines, and which verifier caught it (the compilation then ends with
// that verifier's error, printed by the caller) or that none did.
func reportPlanted(w io.Writer, f *pipeline.Fault, pl *pipeline.Planted) {
	if f == nil {
		return
	}
	if pl == nil {
		fmt.Fprintf(w, "bugspec: the compilation did not reach %s; nothing was injected\n", f.After)
		return
	}
	if rep, ok := pl.Report.(*faultinject.Report); ok {
		fmt.Fprintf(w, "bugspec %s, seed %d, injected after %s\n", rep.Spec, rep.Seed, pl.Phase)
		rep.WriteTo(w)
	}
	if pl.Caught == nil {
		fmt.Fprintln(w, "no verifier catches the fault at the injection point")
	}
}

// outputFormat decides what compile writes: --output-format, else --emit
// when given, else cubin for an -o FILE ending in .cubin, else --emit's
// default.
func outputFormat(format, emit string, emitSet bool, out string) (string, error) {
	switch format {
	case "":
		if !emitSet && strings.HasSuffix(out, ".cubin") {
			return "cubin", nil
		}
		return emit, nil
	case "cubin", "sass", "ir", "lowered", "ptx":
	default:
		return "", fmt.Errorf("--output-format %q: want cubin, sass, ir, lowered or ptx", format)
	}
	if emitSet && emit != format {
		return "", fmt.Errorf("--emit %s and --output-format %s disagree: give one", emit, format)
	}
	if format == "cubin" && (out == "" || out == "-") {
		return "", fmt.Errorf("a cubin is binary: write it to a file with -o FILE")
	}
	return format, nil
}

// writeCubin writes the cubin FormatCodeList built (unsynced, as writeOut
// writes), or says why there is
// none: an instruction the encoder refuses, a target without encoding
// tables, or a pipeline that stopped before the encoding phases.
func writeCubin(path string, sess *pipeline.Session, stderr io.Writer) int {
	b := sess.Backend()
	switch {
	case b != nil && b.EncodeErr != nil:
		fmt.Fprintf(stderr, "orilab compile: no cubin: %v\n", b.EncodeErr)
		return exitError
	case b == nil || b.Cubin == nil:
		fmt.Fprintf(stderr, "orilab compile: no cubin: the encoding phases did not run for sm_%d (orilab encodes sm_75, sm_80, sm_86, sm_89 and sm_90 after register allocation; see orilab phases)\n", sess.Module().Arch)
		return exitError
	}
	if err := atomicfile.WriteUnsynced(path, b.Cubin); err != nil {
		fmt.Fprintf(stderr, "orilab compile: writing %s: %v\n", path, err)
		return exitError
	}
	return exitOK
}
