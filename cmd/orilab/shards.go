package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"orilab/faultinject"
	"orilab/internal/atomicfile"
	"orilab/internal/ptxgen/difftest"
	"orilab/internal/shard"
)

// Sharded campaigns: `orilab fuzz` and `orilab inject --trials` run as N
// copies of one command on a cluster (Slurm job arrays, Kubernetes Indexed
// Jobs), each doing its share, and `orilab merge` combines their results
// files into the report one process would have printed.

// shardFlags are the flags every shardable command takes.
type shardFlags struct {
	shard   string
	shards  int
	results string
}

func addShardFlags(fs *flag.FlagSet, items string) *shardFlags {
	s := &shardFlags{}
	fs.StringVar(&s.shard, "shard", "", "run only shard `K/N` of the "+items+" (those i with i mod N == K; default: from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with --shards)")
	fs.IntVar(&s.shards, "shards", 0, "the number of shards `N` when the index comes from Kubernetes' JOB_COMPLETION_INDEX")
	fs.StringVar(&s.results, "results", "", "write this run's results file into `DIR` for orilab merge (one file per shard; a re-run replaces only its own)")
	return s
}

// resolve finds the shard and prints which it is on stderr (only when
// sharded: an ordinary run says nothing new).
func (s *shardFlags) resolve(cmd string, stderr io.Writer) (shard.Shard, error) {
	sh, err := shard.Resolve(s.shard, s.shards, os.Getenv)
	if err != nil {
		return sh, err
	}
	if !sh.Whole() {
		fmt.Fprintf(stderr, "orilab %s: %s\n", cmd, sh.Describe())
		if s.results == "" {
			fmt.Fprintf(stderr, "orilab %s: warning: no --results DIR: this shard's results will not be mergeable\n", cmd)
		}
	}
	return sh, nil
}

// write saves v as this shard's results file, atomically: a killed shard
// leaves the previous file or none, never half of one.
func (s *shardFlags) write(kind string, sh shard.Shard, v any) error {
	if s.results == "" {
		return nil
	}
	if err := os.MkdirAll(s.results, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(s.results, sh.FileName(kind)), append(b, '\n'))
}

// injectShardFormat tags a fault campaign shard's results file.
const injectShardFormat = "orilab-inject-shard/1"

// injectShardKey is what makes two campaign shards parts of one campaign.
type injectShardKey struct {
	Bugspec   string   `json:"bugspec"`
	Seed      int64    `json:"seed"`
	At        string   `json:"at"`
	OptLevel  int      `json:"opt_level"`
	Trials    int      `json:"trials_per_kernel"`
	Kernels   []string `json:"kernels"`
	MaxRegs   int      `json:"maxrregcount,omitempty"`
	KnobsDesc string   `json:"knobs,omitempty"`
}

// injectShardResult is a fault campaign shard's results file.
type injectShardResult struct {
	Format   string         `json:"format"`
	Campaign injectShardKey `json:"campaign"`
	Shard    int            `json:"shard"`
	Shards   int            `json:"shards"`
	Report   campaignReport `json:"report"`
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the merged report as JSON (what --json of the single run prints)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: orilab merge DIR [--json]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Combines the results files that the shards of a campaign wrote into DIR")
		fmt.Fprintln(fs.Output(), "(orilab fuzz --shard K/N --results DIR, orilab inject --trials T --shard K/N")
		fmt.Fprintln(fs.Output(), "--results DIR) into the report one process running the whole campaign prints:")
		fmt.Fprintln(fs.Output(), "the fuzz summary with its coverage table, or the detection matrix. Fuzz findings")
		fmt.Fprintln(fs.Output(), "are deduplicated by signature (culprit phase and failure kind), keeping the")
		fmt.Fprintln(fs.Output(), "smallest reduced cases. A missing or repeated shard, or shards of different")
		fmt.Fprintln(fs.Output(), "campaigns, are an error that names them.")
		fmt.Fprintln(fs.Output(), "Exit status: as the single run's (fuzz: 1 on failures; inject: 1 on a")
		fmt.Fprintln(fs.Output(), "compiler crash), 2 on errors.")
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "orilab merge: "+format+"\n", a...)
		return exitError
	}
	if len(pos) != 1 {
		return fail("want one DIR (the --results directory of the shards), got %d arguments", len(pos))
	}
	dir := pos[0]
	fuzzFiles, _ := filepath.Glob(filepath.Join(dir, "fuzz-shard-*-of-*.json"))
	injectFiles, _ := filepath.Glob(filepath.Join(dir, "inject-shard-*-of-*.json"))
	switch {
	case len(fuzzFiles) == 0 && len(injectFiles) == 0:
		if _, err := os.Stat(dir); err != nil {
			return fail("%v", err)
		}
		return fail("%s holds no shard results (fuzz-shard-K-of-N.json or inject-shard-K-of-N.json)", dir)
	case len(fuzzFiles) > 0 && len(injectFiles) > 0:
		return fail("%s holds results of a fuzz run and of a fault campaign: give each its own directory", dir)
	case len(fuzzFiles) > 0:
		return mergeFuzz(fuzzFiles, *asJSON, stdout, stderr)
	default:
		return mergeInject(injectFiles, *asJSON, stdout, stderr)
	}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

func mergeFuzz(files []string, asJSON bool, stdout, stderr io.Writer) int {
	var parts []*difftest.ShardResult
	for _, f := range files {
		var r difftest.ShardResult
		if err := readJSON(f, &r); err != nil {
			fmt.Fprintf(stderr, "orilab merge: %v\n", err)
			return exitError
		}
		parts = append(parts, &r)
	}
	sum, cov, dropped, err := difftest.MergeShards(parts, files)
	if err != nil {
		fmt.Fprintf(stderr, "orilab merge: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stderr, "orilab merge: %d fuzz shards of seeds %d..%d\n", len(parts), parts[0].Campaign.Seed, parts[0].Campaign.Seed+uint64(parts[0].Campaign.Count)-1)
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "orilab merge: %d saved cases of signatures already kept are not listed: %s\n", len(dropped), strings.Join(dropped, " "))
	}
	printFuzzSummary(sum, cov, asJSON, stdout)
	if sum.Failures() > 0 {
		return exitMismatch
	}
	return exitOK
}

func mergeInject(files []string, asJSON bool, stdout, stderr io.Writer) int {
	var parts []*injectShardResult
	for _, f := range files {
		var r injectShardResult
		if err := readJSON(f, &r); err != nil {
			fmt.Fprintf(stderr, "orilab merge: %v\n", err)
			return exitError
		}
		if r.Format != injectShardFormat {
			fmt.Fprintf(stderr, "orilab merge: %s: format %q, want %q\n", f, r.Format, injectShardFormat)
			return exitError
		}
		parts = append(parts, &r)
	}
	first := parts[0]
	set := make([]shard.Part, len(parts))
	for i, p := range parts {
		key, _ := json.Marshal(p.Campaign)
		set[i] = shard.Part{K: p.Shard, N: p.Shards, Campaign: string(key), Name: files[i]}
	}
	if err := shard.CheckSet(set); err != nil {
		fmt.Fprintf(stderr, "orilab merge: %v\n", err)
		return exitError
	}
	rep := first.Report
	rep.Kernels = nil
	rep.Matrix = faultinject.Matrix{}
	rep.Trials, rep.Seconds, rep.Workers = 0, 0, 0
	for ki := range first.Report.Kernels {
		var results []*faultinject.Result
		secs := 0.0
		for _, p := range parts {
			if len(p.Report.Kernels) != len(first.Report.Kernels) {
				fmt.Fprintf(stderr, "orilab merge: shards list different kernels\n")
				return exitError
			}
			results = append(results, p.Report.Kernels[ki].Result)
			secs = max(secs, p.Report.Kernels[ki].Seconds)
		}
		merged, err := faultinject.MergeResults(results)
		if err != nil {
			fmt.Fprintf(stderr, "orilab merge: %s: %v\n", first.Report.Kernels[ki].Kernel, err)
			return exitError
		}
		rep.Kernels = append(rep.Kernels, campaignKernel{Result: merged, Kernel: first.Report.Kernels[ki].Kernel, Seconds: secs})
	}
	for _, p := range parts {
		rep.Seconds = max(rep.Seconds, p.Report.Seconds)
		rep.Workers += p.Report.Workers
	}
	rep.total()
	fmt.Fprintf(stderr, "orilab merge: %d shards of a fault campaign, %d kernels\n", len(parts), len(rep.Kernels))
	rep.print(stdout, asJSON)
	if rep.crashes() > 0 {
		fmt.Fprintf(stderr, "orilab merge: %d trials crashed the compiler (an orilab bug; see the trials marked crash)\n", rep.crashes())
		return exitMismatch
	}
	return exitOK
}
