package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dropLine removes the line of a report that starts with prefix (the
// timings, which differ between a sharded and a single run).
func dropLine(report, prefix string) string {
	var out []string
	for _, l := range strings.Split(report, "\n") {
		if !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestFuzzShardsMerge(t *testing.T) {
	dir := t.TempDir()
	args := []string{"fuzz", "--seed", "300", "--count", "5", "-O", "0,3", "--coverage", "--findings", ""}
	for k := 0; k < 2; k++ {
		// Shard 0 from the flag, shard 1 from Slurm's environment.
		a := append(args, "--results", dir)
		if k == 0 {
			a = append(a, "--shard", "0/2")
		} else {
			t.Setenv("SLURM_ARRAY_TASK_ID", "1")
			t.Setenv("SLURM_ARRAY_TASK_COUNT", "2")
		}
		code, _, errs := runCLI(t, a...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", k, code, errs)
		}
		want := []string{"orilab fuzz: shard 1 of 2 (K/N = 0/2, from --shard 0/2)", "orilab fuzz: shard 2 of 2 (K/N = 1/2, from SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2)"}[k]
		if !strings.Contains(errs, want+"\n") {
			t.Errorf("shard %d does not say which it is (want %q):\n%s", k, want, errs)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	code, merged, errs := runCLI(t, "merge", dir)
	if code != 0 || !strings.Contains(errs, "orilab merge: 2 fuzz shards of seeds 300..304\n") {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	code, whole, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("whole run: exit %d: %s", code, errs)
	}
	if got, want := dropLine(merged, "fuzz: "), dropLine(whole, "fuzz: "); got != want || !strings.Contains(got, "coverage over 5 programs") {
		t.Errorf("merged report:\n%s\nsingle run:\n%s", merged, whole)
	}
	// A shard lost: merge names it.
	os.Remove(filepath.Join(dir, "fuzz-shard-1-of-2.json"))
	code, _, errs = runCLI(t, "merge", dir)
	if want := "orilab merge: missing shards 1/2: run them (a re-run overwrites only its own file), then merge again\n"; code != 2 || errs != want {
		t.Errorf("missing shard: exit %d, stderr %q", code, errs)
	}
}

func TestInjectShardsMerge(t *testing.T) {
	dir := t.TempDir()
	specs := []string{"../../testdata/kernels/iadd.json", "../../testdata/sample/sample.json"}
	args := append([]string{"inject"}, specs...)
	args = append(args, "--bugspec", "1,1,0,0 0 0", "--trials", "6", "--seed", "9", "--jobs", "2")
	for k := 0; k < 3; k++ {
		code, _, errs := runCLI(t, append(args, "--shard", fmt.Sprintf("%d/3", k), "--results", dir)...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", k, code, errs)
		}
	}
	code, merged, errs := runCLI(t, "merge", dir)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	code, whole, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("whole: exit %d: %s", code, errs)
	}
	if got, want := dropLine(merged, "12 trials in "), dropLine(whole, "12 trials in "); got != want || !strings.Contains(got, "== all 2 kernels") {
		t.Errorf("merged:\n%s\nwhole:\n%s", merged, whole)
	}
	// Without --seed, every shard would draw its own: refused.
	code, _, errs = runCLI(t, append(args[:len(args)-4], "--trials", "6", "--shard", "0/3")...)
	if want := "orilab inject: a sharded campaign needs --seed: every shard must draw from the same campaign seed\n"; code != 2 || !strings.HasSuffix(errs, want) {
		t.Errorf("no seed: exit %d, stderr %q", code, errs)
	}
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCLI(t, "merge", dir)
	if want := "orilab merge: " + dir + " holds no shard results (fuzz-shard-K-of-N.json or inject-shard-K-of-N.json)\n"; code != 2 || errs != want {
		t.Errorf("empty dir: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "merge")
	if want := "orilab merge: want one DIR (the --results directory of the shards), got 0 arguments\n"; code != 2 || errs != want {
		t.Errorf("no dir: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "fuzz", "--count", "1", "--shard", "2/2")
	if want := "orilab fuzz: --shard 2/2: K = 2 is outside 0..1\n"; code != 2 || errs != want {
		t.Errorf("bad shard: exit %d, stderr %q", code, errs)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	code, _, errs = runCLI(t, "fuzz", "--count", "1")
	if want := "orilab fuzz: JOB_COMPLETION_INDEX=1 is set but --shards is not: give --shards N, the Job's completions\n"; code != 2 || errs != want {
		t.Errorf("k8s index without --shards: exit %d, stderr %q", code, errs)
	}
}
