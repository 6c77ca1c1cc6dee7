package main

// ptxas's common options on orilab compile. Each one is honoured or
// refused with a reason; none is swallowed silently. What each does in
// ptxas 13.0.88 was measured on this machine (`ptxas -arch=sm_80 OPTION
// testdata/kernels/iadd.ptx`, and the SASS compared with cuobjdump -sass):
//
//	--verbose                 = -v
//	--output-file F           = -o F
//	-c, --compile-only        relocatable instead of executable ELF; orilab
//	                          writes SASS text, which is the same either way
//	-lineinfo                 line tables only; the code does not change
//	-g, --device-debug        turns optimization off (ptxas's SASS at -g is
//	                          its -O0 code); with an explicit -O above 0
//	                          ptxas stops: "Optimized debugging not supported"
//	-m64, --machine 64        the only address size ptxas 13 has: "-m32" is
//	                          "Value '32' is not defined for option 'machine'"
//	--fmad true|false         whether mul+add may become FFMA/DFMA/HFMA2;
//	                          false sets the FMAContraction knob to 0
//	--def-load-cache ca|cg|cs|lu|cv   the cache operator of plain ld.global
//	--warn-on-spills          a warning per function that spills
//	-Werror                   warnings become errors (exit status 2)
//	--allow-expensive-optimizations true|false
//	--version                 prints the version and stops
//
// -arch=compute_XX and --maxrregcount above 255 are handled where -arch
// and --maxrregcount are (requestFlags.request).

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"orilab/pipeline/sass"
)

// ptxasFlags are the ptxas options of orilab compile beyond the request
// flags.
type ptxasFlags struct {
	fs           *flag.FlagSet
	compileOnly  bool
	lineinfo     bool
	debug        bool
	machine      int
	fmad         string
	defLoadCache string
	warnSpills   bool
	werror       bool
	expensive    string
	version      bool
}

// addPtxasFlags registers the options on fs; verbose and out are -v's and
// -o's variables, which --verbose and --output-file share.
func addPtxasFlags(fs *flag.FlagSet, verbose *bool, out *string) *ptxasFlags {
	p := &ptxasFlags{fs: fs}
	fs.BoolVar(verbose, "verbose", false, "same as -v")
	fs.StringVar(out, "output-file", "", "same as -o")
	fs.BoolVar(&p.compileOnly, "c", false, "ptxas's relocatable output: accepted; orilab's SASS text is the same either way")
	fs.BoolVar(&p.compileOnly, "compile-only", false, "same as -c")
	fs.BoolVar(&p.lineinfo, "lineinfo", false, "ptxas's line tables: accepted; orilab writes no line tables, and the code is the same")
	fs.BoolVar(&p.lineinfo, "generate-line-info", false, "same as -lineinfo")
	fs.BoolVar(&p.debug, "g", false, "compile for debugging: no optimization (-O0), as ptxas -g; refused with -O above 0")
	fs.BoolVar(&p.debug, "device-debug", false, "same as -g")
	fs.IntVar(&p.machine, "machine", 64, "address size in `bits`: 64 only (-m64; -m32 is refused, as by ptxas 13)")
	fs.IntVar(&p.machine, "m", 64, "same as --machine")
	fs.StringVar(&p.fmad, "fmad", "true", "`true|false`: contract mul+add/sub without a rounding modifier into FFMA/DFMA/HFMA2 (false: -knob FMAContraction=0)")
	fs.StringVar(&p.defLoadCache, "def-load-cache", "ca", "default cache operator of ld.global: ca (the only one orilab honours)")
	fs.BoolVar(&p.warnSpills, "warn-on-spills", false, "warn about every function that spills registers to local memory")
	fs.BoolVar(&p.werror, "Werror", false, "make warnings errors (exit status 2)")
	fs.BoolVar(&p.werror, "warning-as-error", false, "same as -Werror")
	fs.StringVar(&p.expensive, "allow-expensive-optimizations", "true", "`true|false`: accepted; orilab has no optimization that depends on it")
	fs.BoolVar(&p.version, "version", false, "print the version and the ptxas release orilab models, and stop")
	return p
}

// ptxasVersion is what --version prints.
const ptxasVersion = "orilab: a PTX-to-SASS compiler modelled on NVIDIA ptxas\n" +
	"Models ptxas release 13.0, V13.0.88 (the phase table, knobs and -v report)\n"

// check validates the options against -O (rf) and adjusts the request
// flags: -g turns optimization off. It prints what is wrong as
// "orilab compile: ..." and returns false then.
func (p *ptxasFlags) check(rf *requestFlags, stderr io.Writer) bool {
	fail := func(format string, a ...any) bool {
		fmt.Fprintf(stderr, "orilab compile: "+format+"\n", a...)
		return false
	}
	rf.werror = p.werror
	if p.machine != 64 {
		return fail("--machine %d: only 64-bit addresses exist (ptxas 13: \"Value '%d' is not defined for option 'machine'\")", p.machine, p.machine)
	}
	for _, b := range []struct{ name, v string }{{"fmad", p.fmad}, {"allow-expensive-optimizations", p.expensive}} {
		if _, err := strconv.ParseBool(b.v); err != nil {
			return fail("--%s %q: expected true or false", b.name, b.v)
		}
	}
	switch p.defLoadCache {
	case "ca":
	case "cg", "cs", "lu", "cv":
		// Decision: refused rather than ignored. ptxas marks every plain
		// ld.global with the operator (cg: LDG.E.STRONG.GPU, cs:
		// LDG.E.EF, lu: LDG.E.LU, cv: LDG.E.STRONG.SYS, measured), and cv
		// and cg change which loads may be hoisted or merged; orilab's
		// lowering drops cache operators altogether.
		return fail("--def-load-cache %s: orilab lowers every load with the default cache operator (ca); it does not model %s", p.defLoadCache, p.defLoadCache)
	default:
		return fail("--def-load-cache %q: want ca, cg, cs, lu or cv", p.defLoadCache)
	}
	if p.debug {
		explicit := false
		p.fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "O" || f.Name == "opt-level" })
		if explicit && rf.opt > 0 {
			return fail("-g with -O%d: optimized debugging is not supported (as in ptxas); leave -O out or use -O0", rf.opt)
		}
		rf.opt = 0
	}
	return true
}

// spills prints --warn-on-spills' line for every function with spill
// traffic and reports whether, under -Werror, one of them is an error.
func (p *ptxasFlags) spills(us []sass.Usage, stderr io.Writer) (failed bool) {
	if !p.warnSpills {
		return false
	}
	kind := "warning"
	if p.werror {
		kind = "error"
	}
	for _, u := range us {
		if u.SpillStores+u.SpillLoads == 0 {
			continue
		}
		fmt.Fprintf(stderr, "orilab compile: %s: registers are spilled to local memory in function '%s', %d bytes spill stores, %d bytes spill loads\n",
			kind, u.Name, u.SpillStores, u.SpillLoads)
		failed = p.werror
	}
	return failed
}
