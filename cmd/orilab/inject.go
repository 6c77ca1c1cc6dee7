package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"orilab/bisect"
	"orilab/faultinject"
	"orilab/internal/shard"
	"orilab/pipeline/spec"
)

func runInject(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inject", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The fault flags are inject's own (a campaign seeds every trial
	// from --seed), not the request's.
	rf := addRequestFlags(fs, false, false)
	bug := fs.String("bugspec", "", "the bug specification: a `LINE` \"C0,C1,C2,C3 C4 C5\" (faults per category: register, predicate, offset/spill, remat, R2P/P2R, bit-spill), or a file holding one")
	seed := fs.Int64("seed", 0, "random `SEED` of the injection (campaigns: of the campaign); default: from the clock, and printed")
	at := fs.String("at", faultinject.DefaultInjectionPhase, "inject after `PHASE` (AllocateRegisters or any later phase)")
	compat := fs.Bool("ptxas-compat", false, "behave like ptxas: read ./bugspec.txt (saying \"Cannot open file with bug specification\" when it is missing) and seed from the clock")
	trials := fs.Int("trials", 0, "run a campaign of `N` trials (needs a SPEC.json): inject, verify, execute, classify")
	jobs := fs.Int("jobs", 0, "run campaign trials on `J` cores (0: all)")
	asJSON := fs.Bool("json", false, "print the report (or the campaign's detection matrix and escapes) as JSON")
	sf := addShardFlags(fs, "trials of every kernel")
	out := fs.String("o", "", "write the corrupted program's final SASS to `FILE` (single injections)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab inject (SPEC.json|FILE.ptx) --bugspec LINE|FILE [--seed S] [--at PHASE] [-O N] [-o OUT] [--json]")
		fmt.Fprintln(fs.Output(), "       orilab inject SPEC.json... --bugspec LINE --trials N [--jobs J] [--seed S] [--shard K/N --results DIR] [--json]")
		fmt.Fprintln(fs.Output(), "       orilab inject (SPEC.json|FILE.ptx) --ptxas-compat")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Corrupts post-register-allocation code the way ptxas's bugspec.txt does, then")
		fmt.Fprintln(fs.Output(), "measures who notices: the structural verifier, the post-RA reaching-definitions")
		fmt.Fprintln(fs.Output(), "verifier, the hazard checker, or only execution (a mismatch, a memory fault, a")
		fmt.Fprintln(fs.Output(), "hang); or nobody (masked: the output is bit-identical). Injection happens only")
		fmt.Fprintln(fs.Output(), "when asked, and the seed is always printed, so every injection replays exactly.")
		fmt.Fprintln(fs.Output(), "With --trials, a campaign runs N independent trials in parallel and prints the")
		fmt.Fprintln(fs.Output(), "kind x outcome detection matrix and every escaped fault with its replay command.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 done, 1 when a campaign saw a compiler crash (an orilab bug),")
		fmt.Fprintln(fs.Output(), "2 on errors.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "orilab inject: "+format+"\n", a...)
		return exitError
	}
	if len(pos) == 0 || len(pos) > 1 && *trials == 0 {
		return fail("want one SPEC.json or FILE.ptx (a campaign, with --trials, takes several specs), got %d arguments", len(pos))
	}
	req, ok := rf.request("inject", stderr)
	if !ok {
		return exitError
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	switch {
	case *compat && (*bug != "" || seedSet || *trials > 0):
		return fail("--ptxas-compat reads ./bugspec.txt and seeds from the clock, as ptxas does; it takes no --bugspec, --seed or --trials")
	case !*compat && *bug == "":
		return fail("--bugspec is required (for example --bugspec \"1,0,0,0 0 0\": one register fault), or --ptxas-compat to read ./bugspec.txt")
	case *trials < 0:
		return fail("--trials %d: want a positive number", *trials)
	}
	var bs faultinject.Spec
	if !*compat {
		var err error
		if bs, err = readBugspec(*bug); err != nil {
			return fail("%v", err)
		}
	}
	if !seedSet {
		*seed = time.Now().UnixNano() & (1<<53 - 1)
	}
	// The input: specs (executable) or a bare PTX file (verifiers only).
	var specs []*spec.Spec
	for _, input := range pos {
		if strings.HasSuffix(input, ".ptx") {
			if *trials > 0 {
				return fail("a campaign executes the kernel: give a SPEC.json, not %s", input)
			}
			specs = append(specs, &spec.Spec{Name: strings.TrimSuffix(input, ".ptx"), File: input, PTX: input, PTXPath: input, CompileOnly: true})
			continue
		}
		s, err := spec.Load(input)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitError
		}
		specs = append(specs, s)
	}
	cfg := faultinject.PipelineConfig{Request: req, At: *at}
	if *trials > 0 {
		sh, err := sf.resolve("inject", stderr)
		if err != nil {
			return fail("%v", err)
		}
		if !sh.Whole() && !seedSet {
			return fail("a sharded campaign needs --seed: every shard must draw from the same campaign seed")
		}
		return injectCampaign(specs, cfg, bs, *seed, *trials, *jobs, sh, sf, *asJSON, stdout, stderr)
	}
	if sf.shard != "" || sf.results != "" {
		return fail("--shard and --results split a campaign: they need --trials")
	}
	src, err := os.ReadFile(specs[0].PTXPath)
	if err != nil {
		return fail("%v", err)
	}
	return injectOnce(specs[0], src, cfg, bs, *seed, *compat, *asJSON, *out, stdout, stderr)
}

// readBugspec parses --bugspec: a file when one exists by that name,
// otherwise the line itself.
func readBugspec(arg string) (faultinject.Spec, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return faultinject.ParseFile(arg)
	}
	return faultinject.ParseSpec(arg)
}

// injectReport is inject's --json output for one injection.
type injectReport struct {
	Spec    string              `json:"spec"`
	Bugspec string              `json:"bugspec"`
	Seed    int64               `json:"seed"`
	At      string              `json:"at"`
	Report  *faultinject.Report `json:"report"`
	Outcome faultinject.Outcome `json:"outcome"`
	Detail  string              `json:"detail,omitempty"`
	Replay  string              `json:"replay"`
}

func injectOnce(s *spec.Spec, src []byte, cfg faultinject.PipelineConfig, bs faultinject.Spec, seed int64, compat, asJSON bool, out string, stdout, stderr io.Writer) int {
	var tgt *faultinject.PipelineTarget
	var err error
	if s.CompileOnly {
		tgt, err = faultinject.NewCompileTarget(s, src, cfg)
	} else {
		tgt, err = faultinject.NewPipelineTarget(s, src, cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "orilab inject: %v\n", err)
		return exitError
	}
	m, _ := tgt.Fresh()
	var rep *faultinject.Report
	if compat {
		dir, _ := os.Getwd()
		if rep, err = faultinject.InjectCompat(m, dir, faultinject.Options{}, stdout); err != nil {
			fmt.Fprintf(stderr, "orilab inject: %v\n", err)
			return exitError
		}
		if rep == nil {
			return exitOK // no bugspec.txt: ptxas compiles without faults
		}
		seed, bs = rep.Seed, rep.Spec
	} else if rep, err = faultinject.Inject(m, bs, seed, faultinject.Options{}); err != nil {
		fmt.Fprintf(stderr, "orilab inject: %v\n", err)
		return exitError
	}
	replay := fmt.Sprintf("orilab inject %s --bugspec %q --seed %d --at %s%s", bisect.ShellQuote(s.File), bs.String(), seed, tgt.Phase(), bisect.QuoteArgs(cfg.Request.Args()))
	r := injectReport{Spec: s.Name, Bugspec: bs.String(), Seed: seed, At: tgt.Phase(), Report: rep, Replay: replay}
	if len(rep.Faults) == 0 {
		r.Detail = "no fault was injected (no candidates in the requested categories)"
		if asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			enc.Encode(r)
			return exitOK
		}
		fmt.Fprintf(stdout, "bugspec %s, seed %d, injected after %s\n", bs, seed, tgt.Phase())
		rep.WriteTo(stdout)
		fmt.Fprintf(stdout, "outcome: none: %s\n", r.Detail)
		return exitOK
	}
	o, detail, err := tgt.Verify(m)
	if err == nil && o == faultinject.OutcomeNone {
		if s.CompileOnly {
			detail = "no verifier objects (a bare PTX file has no spec to execute)"
		} else {
			o, detail, err = tgt.Execute(m)
		}
	}
	if err != nil {
		o, detail = faultinject.CompilerCrash, err.Error()
	}
	r.Outcome, r.Detail = o, detail
	if out != "" {
		text, err := tgt.FinalSASS(m)
		if err != nil {
			fmt.Fprintf(stderr, "orilab inject: -o: %v\n", err)
			return exitError
		}
		if code := writeOut(out, text, stdout, stderr); code != exitOK {
			return code
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		return exitOK
	}
	fmt.Fprintf(stdout, "bugspec %s, seed %d, injected after %s\n", bs, seed, tgt.Phase())
	if !compat {
		rep.WriteTo(stdout)
	} else {
		for _, n := range rep.Notes() {
			fmt.Fprintln(stdout, n)
		}
	}
	for _, f := range rep.Faults {
		fmt.Fprintf(stdout, "  %s #%d: %s\n       -> %s\n", f.Func, f.Inst, f.Before, f.After)
	}
	fmt.Fprintf(stdout, "outcome: %s", o)
	if detail != "" {
		fmt.Fprintf(stdout, ": %s", firstLineOf(detail))
	}
	fmt.Fprintf(stdout, "\nreplay: %s\n", replay)
	return exitOK
}

// campaignKernel is one kernel's part of a campaign report.
type campaignKernel struct {
	*faultinject.Result
	Kernel  string  `json:"kernel"`
	Seconds float64 `json:"seconds"`
}

// injectCampaign runs trials campaigns of the same bugspec on every spec
// (each kernel gets its own campaign seed derived from seed) and reports
// each kernel's matrix and the combined one. A shard runs its share of
// every kernel's trials and writes its results file for orilab merge.
func injectCampaign(specs []*spec.Spec, cfg faultinject.PipelineConfig, bs faultinject.Spec, seed int64, trials, jobs int, sh shard.Shard, sf *shardFlags, asJSON bool, stdout, stderr io.Writer) int {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	start := time.Now()
	rep := campaignReport{Bugspec: bs.String(), Seed: seed, OptLevel: cfg.Request.OptLevel, Workers: jobs}
	key := injectShardKey{Bugspec: bs.String(), Seed: seed, OptLevel: cfg.Request.OptLevel, Trials: trials, MaxRegs: cfg.Request.MaxRegCount,
		KnobsDesc: strings.Join(cfg.Request.Args(), " ")}
	for k, s := range specs {
		if s.CompileOnly {
			fmt.Fprintf(stderr, "orilab inject: %s is compile_only: a campaign needs a kernel to execute\n", s.File)
			return exitError
		}
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			fmt.Fprintf(stderr, "orilab inject: %v\n", err)
			return exitError
		}
		tgt, err := faultinject.NewPipelineTarget(s, src, cfg)
		if err != nil {
			fmt.Fprintf(stderr, "orilab inject: %s: %v\n", s.File, err)
			return exitError
		}
		rep.At = tgt.Phase()
		kseed := seed
		if len(specs) > 1 {
			kseed = faultinject.TrialSeed(seed, -1-k)
		}
		c := &faultinject.Campaign{
			Target: tgt, Spec: bs, Seed: kseed, Trials: trials, Workers: jobs, Input: bisect.ShellQuote(s.File), Shard: sh,
			Replay: fmt.Sprintf(`orilab inject {input} --bugspec "{spec}" --seed {seed} --at %s%s`, tgt.Phase(), bisect.QuoteArgs(cfg.Request.Args())),
		}
		kstart := time.Now()
		if isTerminal(stderr) {
			c.Progress = func(done, total int) {
				const width = 30
				n := done * width / total
				fmt.Fprintf(stderr, "\r\033[K%s [%s%s] %d/%d trials, %.1f/s", s.Name, strings.Repeat("#", n), strings.Repeat(".", width-n), done, total, float64(done)/time.Since(kstart).Seconds())
			}
		}
		res, err := c.Run(context.Background())
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			fmt.Fprintf(stderr, "orilab inject: %s: %v\n", s.File, err)
			return exitError
		}
		rep.Kernels = append(rep.Kernels, campaignKernel{Result: res, Kernel: s.Name, Seconds: time.Since(kstart).Seconds()})
		key.Kernels = append(key.Kernels, s.File)
	}
	key.At = rep.At
	rep.Seconds = time.Since(start).Seconds()
	rep.total()
	if err := sf.write("inject", sh, injectShardResult{Format: injectShardFormat, Campaign: key, Shard: sh.K, Shards: max(sh.N, 1), Report: rep}); err != nil {
		fmt.Fprintf(stderr, "orilab inject: writing the results file: %v\n", err)
		return exitError
	}
	rep.print(stdout, asJSON)
	if n := rep.crashes(); n > 0 {
		fmt.Fprintf(stderr, "orilab inject: %d trials crashed the compiler (an orilab bug; see the trials marked crash)\n", n)
		return exitMismatch
	}
	return exitOK
}

// campaignReport is a campaign's report over its kernels: what --json
// prints, and what a shard's results file carries.
type campaignReport struct {
	Bugspec      string             `json:"bugspec"`
	Seed         int64              `json:"seed"`
	At           string             `json:"at"`
	OptLevel     int                `json:"opt_level"`
	Trials       int                `json:"trials"`
	Matrix       faultinject.Matrix `json:"matrix"`
	Kernels      []campaignKernel   `json:"kernels"`
	Seconds      float64            `json:"seconds"`
	TrialsPerSec float64            `json:"trials_per_second"`
	Workers      int                `json:"workers"`
}

// total sums the kernels' trials and matrices, and the rate.
func (r *campaignReport) total() {
	r.Trials, r.Matrix = 0, faultinject.Matrix{}
	for _, p := range r.Kernels {
		r.Trials += len(p.Trials)
		for i := range r.Matrix.Counts {
			for j := range r.Matrix.Counts[i] {
				r.Matrix.Counts[i][j] += p.Matrix.Counts[i][j]
			}
		}
	}
	if r.Seconds > 0 {
		r.TrialsPerSec = float64(r.Trials) / r.Seconds
	}
}

// crashes counts the trials that crashed the compiler.
func (r *campaignReport) crashes() int {
	n := 0
	for _, p := range r.Kernels {
		for _, tr := range p.Trials {
			if tr.Outcome == faultinject.CompilerCrash {
				n++
			}
		}
	}
	return n
}

func (r *campaignReport) print(w io.Writer, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		return
	}
	for _, p := range r.Kernels {
		fmt.Fprintf(w, "== %s: injected after %s at -O%d\n", p.Kernel, r.At, r.OptLevel)
		io.WriteString(w, p.Text())
		fmt.Fprintln(w)
	}
	if len(r.Kernels) > 1 {
		fmt.Fprintf(w, "== all %d kernels, bugspec %s, seed %d\n\n", len(r.Kernels), r.Bugspec, r.Seed)
		io.WriteString(w, r.Matrix.Table())
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d trials in %.1fs (%.1f trials/s on %d workers)\n", r.Trials, r.Seconds, r.TrialsPerSec, r.Workers)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
