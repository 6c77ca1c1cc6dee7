package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"orilab/internal/atomicfile"
	"orilab/internal/ptxgen"
	"orilab/internal/ptxgen/difftest"
	"orilab/pipeline/knobs"
)

func runFuzz(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 1, "the first program's `seed` (program i has seed S+i)")
	count := fs.Int("count", 100, "how many programs to generate")
	jobs := fs.Int("jobs", 1, "programs checked at once (0: one per CPU)")
	levels := fs.String("O", "0-3", "the -O `levels` every program is compiled at: 3, 0,3 or 0-3")
	random := fs.Bool("random-knobs", false, "also compile every program at every level with random knob settings")
	var kf knobFlags
	kf.add(fs)
	avoid := fs.String("avoid", "", "do not generate the constructs in `LIST` (comma-separated: "+avoidableList()+"), to fuzz past an open bug")
	findings := fs.String("findings", "fuzz-findings", "save failures under `DIR` (\"\": save nothing)")
	perSig := fs.Int("max-per-signature", 3, "save and reduce at most `N` failures of each signature; count the rest")
	noReduce := fs.Bool("no-reduce", false, "save failures without shrinking and reducing them")
	findingTime := fs.Duration("finding-time", 3*time.Minute, "time limit for bisecting and reducing one failure")
	limit := fs.Duration("time", 0, "stop after `D` (for example 8h) and report; 0: run all programs")
	maxSteps := fs.Int64("max-steps", 0, "end each execution after `N` warp-steps (default 5000000)")
	compileTimeout := fs.Duration("compile-timeout", 2*time.Minute, "report a compilation (with its execution) that takes longer than `D` as a timeout")
	coverage := fs.Bool("coverage", false, "print what the programs exercised: statement kinds, instructions, phase changes")
	emit := fs.String("emit", "", "write the programs (PTX and kernel spec) into `DIR` instead of checking them")
	verbose := fs.Bool("v", false, "print every failure as it is found")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	sf := addShardFlags(fs, "programs")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab fuzz [--seed S] [--count N] [--jobs J] [-O LEVELS] [--random-knobs] [-knob ...] [-knobs-file F] [--findings DIR] [--json]")
		fmt.Fprintln(fs.Output(), "       orilab fuzz --seed S --count N --shard K/N --results DIR ...   (one shard of a cluster run; see orilab merge)")
		fmt.Fprintln(fs.Output(), "       orilab fuzz --seed S --count N --emit DIR")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Differential testing: generates random PTX kernels that are free of undefined")
		fmt.Fprintln(fs.Output(), "behaviour by construction, executes each one right after lowering (the oracle),")
		fmt.Fprintln(fs.Output(), "then compiles it at every -O level (and, with --random-knobs, under random")
		fmt.Fprintln(fs.Output(), "DisablePhases and code-generation knob settings) with the verifier after every")
		fmt.Fprintln(fs.Output(), "phase, executes the result and compares every buffer with the oracle's.")
		fmt.Fprintln(fs.Output(), "A failure is bisected to its phase, shrunk, reduced and saved under --findings")
		fmt.Fprintln(fs.Output(), "with the commands that replay it. Ctrl-C stops and reports.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 no failure, 1 failures found, 2 error.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "orilab fuzz: unexpected argument %q (the programs come from --seed)\n", pos[0])
		return exitError
	}
	if *count < 0 {
		fmt.Fprintf(stderr, "orilab fuzz: --count %d: want 0 or more\n", *count)
		return exitError
	}
	if *jobs < 0 {
		fmt.Fprintf(stderr, "orilab fuzz: --jobs %d: want 0 (one per CPU) or more\n", *jobs)
		return exitError
	}
	if *perSig < 1 {
		fmt.Fprintf(stderr, "orilab fuzz: --max-per-signature %d: want 1 or more\n", *perSig)
		return exitError
	}
	lv, err := difftest.ParseLevels(*levels)
	if err != nil {
		fmt.Fprintf(stderr, "orilab fuzz: -O %q: %v\n", *levels, err)
		return exitError
	}
	ks, err := kf.sources()
	if err != nil {
		fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
		return exitError
	}
	var base []string
	for _, k := range kf.cli {
		for _, rec := range strings.Split(k, "~") {
			if rec = strings.TrimSpace(rec); rec != "" {
				base = append(base, rec)
			}
		}
	}
	check := ks
	check.CLI = base
	if _, _, err := knobs.Load(knobs.Default, check); err != nil {
		fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
		return exitError
	}
	var avoidList []string
	if *avoid != "" {
		for _, a := range strings.Split(*avoid, ",") {
			a = strings.TrimSpace(a)
			if _, ok := ptxgen.Avoidable[a]; !ok {
				fmt.Fprintf(stderr, "orilab fuzz: --avoid %q: want one of %s\n", a, avoidableList())
				return exitError
			}
			avoidList = append(avoidList, a)
		}
	}
	sh, err := sf.resolve("fuzz", stderr)
	if err != nil {
		fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
		return exitError
	}
	if *emit != "" {
		if !sh.Whole() {
			fmt.Fprintln(stderr, "orilab fuzz: --emit writes programs, it does not shard: give it the seed range you want")
			return exitError
		}
		return emitPrograms(*emit, *seed, *count, ptxgen.Options{Avoid: avoidList}, stdout, stderr)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *limit)
		defer cancel()
	}
	var cov *difftest.Coverage
	if *coverage {
		cov = difftest.NewCoverage()
	}
	opts := difftest.CampaignOptions{
		Seed: *seed, Count: *count, Jobs: *jobs, Levels: lv, RandomKnobs: *random, Knobs: base, KnobSources: ks, Avoid: avoidList,
		Findings: *findings, MaxPerSignature: *perSig, Reduce: !*noReduce, FindingTime: *findingTime,
		MaxWarpSteps: *maxSteps, Timeout: *compileTimeout, Coverage: cov, Shard: sh,
	}
	mine := sh.Count(*count) // the programs this run checks
	clearProgress := func() {}
	if isTerminal(stderr) {
		opts.Progress = func(s *difftest.Summary) {
			fmt.Fprintf(stderr, "\r\033[Kfuzz: %d/%d programs, %d failing, %.1f programs/s", s.Programs, mine, s.FailingPrograms, s.Rate())
		}
		clearProgress = func() { fmt.Fprint(stderr, "\r\033[K") }
	} else {
		// Into a log (a nightly run), a line a minute rather than a bar,
		// so the log shows the run is alive and how fast it goes.
		var last time.Time
		started := time.Now()
		opts.Progress = func(s *difftest.Summary) {
			if now := time.Now(); now.Sub(last) >= progressEvery || s.Programs == mine {
				last = now
				fmt.Fprintf(stderr, "fuzz: %d/%d programs, %d failing, %.1f programs/s, %s elapsed\n",
					s.Programs, mine, s.FailingPrograms, s.Rate(), now.Sub(started).Round(time.Second))
			}
		}
	}
	if *verbose {
		opts.Log = func(line string) {
			clearProgress()
			fmt.Fprintln(stderr, line)
		}
	}
	sum, err := difftest.Run(ctx, opts)
	clearProgress()
	if werr := sf.write("fuzz", sh, &difftest.ShardResult{Format: difftest.ShardFormat, Campaign: opts.Key(),
		Shard: sh.K, Shards: max(sh.N, 1), Summary: sum, Coverage: cov}); werr != nil {
		fmt.Fprintf(stderr, "orilab fuzz: writing the results file: %v\n", werr)
		return exitError
	}
	printFuzzSummary(sum, cov, *asJSON, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
		return exitError
	}
	if sum.Failures() > 0 {
		return exitMismatch
	}
	return exitOK
}

// printFuzzSummary prints a campaign's summary (and coverage), as a
// report or as JSON; orilab merge prints a merged one the same way.
func printFuzzSummary(sum *difftest.Summary, cov *difftest.Coverage, asJSON bool, stdout io.Writer) {
	if asJSON {
		out := struct {
			*difftest.Summary
			Coverage *difftest.Coverage `json:"coverage,omitempty"`
		}{sum, cov}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return
	}
	io.WriteString(stdout, sum.Text())
	if cov != nil {
		io.WriteString(stdout, cov.Summary())
	}
}

// progressEvery is how often a fuzz run whose stderr is not a terminal
// reports its progress.
var progressEvery = time.Minute

// avoidableList names the constructs --avoid accepts, sorted.
func avoidableList() string {
	var names []string
	for n := range ptxgen.Avoidable {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// emitPrograms writes count programs as fuzzSEED.ptx and fuzzSEED.json.
func emitPrograms(dir string, seed uint64, count int, o ptxgen.Options, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
		return exitError
	}
	for i := 0; i < count; i++ {
		p := ptxgen.GenerateWith(seed+uint64(i), o)
		name := fmt.Sprintf("fuzz%d", p.Seed)
		if err := atomicfile.Write(filepath.Join(dir, name+".ptx"), []byte(p.PTX())); err != nil {
			fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
			return exitError
		}
		if err := atomicfile.Write(filepath.Join(dir, name+".json"), p.SpecJSON(name, name+".ptx", nil)); err != nil {
			fmt.Fprintf(stderr, "orilab fuzz: %v\n", err)
			return exitError
		}
	}
	if count > 0 {
		fmt.Fprintf(stdout, "wrote %d programs (seeds %d to %d) to %s\n", count, seed, seed+uint64(count)-1, dir)
	} else {
		fmt.Fprintf(stdout, "wrote no programs (--count 0) to %s\n", dir)
	}
	return exitOK
}
