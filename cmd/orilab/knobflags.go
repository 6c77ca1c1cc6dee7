package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"orilab/faultinject"
	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ptx"
)

// requestFlags are the flags every command that compiles shares. They
// build the one pipeline.Request the command compiles with, so that -O,
// -arch, the knobs (ORILAB_KNOBS, -knobs-file, -knob, and the PTX's
// .pragma strings, in ptxas's priority order), --maxrregcount, --verify
// and a planted fault mean the same thing in every command.
type requestFlags struct {
	fs      *flag.FlagSet
	arch    string
	opt     int
	knobs   knobFlags
	maxrreg int
	verify  bool
	threads int
	// werror (compile's -Werror) turns the warnings request prints into
	// errors.
	werror bool
	// The fault flags, for the commands that plant one (compile,
	// bisect); bug is "" without them.
	fault     bool
	bug       string
	seed      int64
	at        string
	clockSeed bool // without --seed, seed from the clock (and print it)
}

// addRequestFlags registers the request flags on fs. withFault adds
// --bugspec, --seed and --at; clockSeed makes a missing --seed come from
// the clock (compile) instead of 1 (bisect, a rehearsal to repeat).
func addRequestFlags(fs *flag.FlagSet, withFault, clockSeed bool) *requestFlags {
	f := &requestFlags{fs: fs, fault: withFault, clockSeed: clockSeed}
	fs.StringVar(&f.arch, "arch", "", "target `sm_XX` (default: the module's .target, at least sm_75)")
	fs.StringVar(&f.arch, "gpu-name", "", "same as -arch")
	fs.IntVar(&f.opt, "O", 3, "optimization `level` 0-4 (5 is accepted as 4)")
	fs.IntVar(&f.opt, "opt-level", 3, "same as -O")
	f.knobs.add(fs)
	fs.IntVar(&f.maxrreg, "maxrregcount", 0, "use at most `N` R registers per thread (0: no limit below the hardware's 255; below 24 raised to 24, as ptxas does); spills to local memory when needed")
	fs.BoolVar(&f.verify, "verify", false, "run the IR verifier after every phase and name the phase that breaks an invariant")
	fs.IntVar(&f.threads, "threads", 0, "compile at most `N` of the module's independent functions at once, as nvcc's --threads (0: one per CPU; 1: one after another); the output is the same")
	if withFault {
		fs.StringVar(&f.bug, "bugspec", "", "plant bugspec faults: a `LINE` \"C0,C1,C2,C3 C4 C5\" or a FILE holding one (see orilab inject)")
		seedDoc := "with --bugspec: the injection's random `SEED`"
		if clockSeed {
			seedDoc += " (default: from the clock, and printed)"
		}
		fs.Int64Var(&f.seed, "seed", 1, seedDoc)
		fs.StringVar(&f.at, "at", faultinject.DefaultInjectionPhase, "with --bugspec: plant the faults right after `PHASE` (AllocateRegisters or later)")
	}
	return f
}

// minMaxRegCount is ptxas's lower bound on --maxrregcount (see request).
const minMaxRegCount = 24

// request checks the flags and returns the request, printing what is
// wrong as "orilab CMD: ..." (ok false).
func (f *requestFlags) request(cmd string, stderr io.Writer) (pipeline.Request, bool) {
	fail := func(format string, a ...any) (pipeline.Request, bool) {
		fmt.Fprintf(stderr, "orilab %s: "+format+"\n", append([]any{cmd}, a...)...)
		return pipeline.Request{}, false
	}
	// warn prints a warning, or under -Werror the same text as an error
	// (and the request fails).
	warn := func(format string, a ...any) bool {
		if f.werror {
			fail("error: "+format+" (-Werror)", a...)
			return false
		}
		fmt.Fprintf(stderr, "orilab %s: warning: "+format+"\n", append([]any{cmd}, a...)...)
		return true
	}
	// Decision: -arch compute_XX is taken as sm_XX, as ptxas 13.0.88 takes
	// it (`ptxas -arch=compute_80 iadd.ptx` writes the sm_80 cubin without
	// a word).
	if v, ok := strings.CutPrefix(f.arch, "compute_"); ok {
		f.arch = "sm_" + v
	}
	if !checkArchOpt(cmd, f.arch, f.opt, stderr) {
		return pipeline.Request{}, false
	}
	if f.threads < 0 {
		return fail("--threads %d: want 0 (one per CPU) or more", f.threads)
	}
	if f.maxrreg < 0 {
		return fail("--maxrregcount %d: want 1 to 255 (0 for no limit)", f.maxrreg)
	}
	// Decision: above 255, as ptxas 13.0.88: "ptxas warning : Too big
	// maxrregcount value specified 300, will be ignored", and the limit
	// is the hardware's 255.
	if f.maxrreg > 255 {
		if !warn("--maxrregcount %d is above the 255 registers a thread has; ignored (as ptxas does)", f.maxrreg) {
			return pipeline.Request{}, false
		}
		f.maxrreg = 0
	}
	// Decision: ptxas 13.0 raises every --maxrregcount below 24 to 24, on
	// every target from sm_75 to sm_120, kernels without calls included
	// ("ptxas warning : For profile sm_80 adjusting per thread register
	// count of 2 to lower bound of 24", measured with
	// `ptxas -arch=sm_80 --maxrregcount 2 -v testdata/kernels/iadd.ptx`),
	// and orilab's front doors do the same with the same warning: below 24
	// the allocator would otherwise fail with a message about an empty or
	// nearly empty register range ("0 of the usable registers R4-R1").
	// The allocator itself still takes any limit (regalloc.Options.MaxRegs),
	// so its tests can force spills with a handful of registers.
	if f.maxrreg > 0 && f.maxrreg < minMaxRegCount {
		if !warn("adjusting --maxrregcount %d to the lower bound of %d registers per thread (as ptxas does)", f.maxrreg, minMaxRegCount) {
			return pipeline.Request{}, false
		}
		f.maxrreg = minMaxRegCount
	}
	src, err := f.knobs.sources()
	if err != nil {
		return fail("%v", err)
	}
	req := pipeline.Request{Arch: archNumber(f.arch), OptLevel: f.opt, Knobs: src, MaxRegCount: f.maxrreg, Verify: f.verify, Jobs: f.threads, Log: stderr}
	if f.fault && f.bug != "" {
		bs, err := readBugspec(f.bug)
		if err != nil {
			return fail("%v", err)
		}
		if f.clockSeed && !flagSet(f.fs, "seed") {
			f.seed = time.Now().UnixNano() & (1<<53 - 1)
		}
		if req.Fault, err = faultinject.Plant(bs, f.seed, f.at); err != nil {
			return fail("%v", err)
		}
	}
	return req, true
}

// resolveOnce resolves req's knobs for the PTX at ptxPath once, printing
// the warnings (and the DumpKnobs listing) and failing on a bad knob, and
// then silences req.Log: a search compiles hundreds of times and would
// repeat them every time. A PTX file that does not parse is left for the
// command to report.
func resolveOnce(cmd string, req *pipeline.Request, ptxPath string, stderr io.Writer) bool {
	var m *ptx.Module
	if src, err := os.ReadFile(ptxPath); err == nil {
		m, _ = ptx.Parse(ptxPath, src)
	}
	if _, err := req.ResolveKnobs(m); err != nil {
		fmt.Fprintf(stderr, "orilab %s: %v\n", cmd, err)
		return false
	}
	req.Log = nil
	return true
}

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// knobFlags are -knob and -knobs-file; with ORILAB_KNOBS they are the
// knob sources outside the PTX.
type knobFlags struct {
	cli  multiFlag
	file string
}

func (k *knobFlags) add(fs *flag.FlagSet) {
	fs.Var(&k.cli, "knob", "set a knob: `NAME=VALUE`, NAME (a bool), or A=1~B=2 (repeatable)")
	fs.StringVar(&k.file, "knobs-file", "", "read knobs from `FILE` (after a [knobs] line: NAME=VALUE per line)")
}

// sources returns ORILAB_KNOBS, the knobs file and the -knob arguments.
func (k *knobFlags) sources() (knobs.Sources, error) {
	return pipeline.KnobSources(k.cli, k.file)
}
