package difftest

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"orilab/internal/shard"
	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// plantStoreShift moves the first global store of every function by 4
// bytes: a miscompile that fails some programs and not others (a store
// whose slot is masked, or a program without one), so the shards see
// different failures.
func plantStoreShift(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpSTG && len(in.Srcs) > 0 {
					in.Srcs[0].Imm += 4
					return nil
				}
			}
		}
	}
	return nil
}

// TestShardsMergeToTheWholeRun runs one campaign whole and as 4 shards:
// the merged summary and coverage equal the whole run's (timings aside).
func TestShardsMergeToTheWholeRun(t *testing.T) {
	restore := pipeline.SetPhaseOverrideForTest("OriBranchOpt", plantStoreShift)
	defer restore()
	count := 12
	if testing.Short() {
		count = 6
	}
	opts := func(s shard.Shard, cov *Coverage) CampaignOptions {
		return CampaignOptions{Seed: 4242, Count: count, Jobs: 2, Levels: []int{0, 3}, Coverage: cov, Shard: s}
	}
	wholeCov := NewCoverage()
	whole, err := Run(context.Background(), opts(shard.Shard{}, wholeCov))
	if err != nil {
		t.Fatal(err)
	}
	if whole.Failures() == 0 || whole.Kinds[KindPass] == 0 {
		t.Fatalf("the planted miscompile should fail some compilations and not others: %v", whole.Kinds)
	}
	var parts []*ShardResult
	var names []string
	for k := 3; k >= 0; k-- { // any order
		cov := NewCoverage()
		o := opts(shard.Shard{K: k, N: 4}, cov)
		sum, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if want := (shard.Shard{K: k, N: 4}).Count(count); sum.Programs != want || sum.Stopped {
			t.Fatalf("shard %d/4 checked %d programs (stopped %v), want %d", k, sum.Programs, sum.Stopped, want)
		}
		// Through JSON, as the results files carry them.
		b, err := json.Marshal(&ShardResult{Format: ShardFormat, Campaign: o.Key(), Shard: k, Shards: 4, Summary: sum, Coverage: cov})
		if err != nil {
			t.Fatal(err)
		}
		var back ShardResult
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, &back)
		names = append(names, (shard.Shard{K: k, N: 4}).FileName("fuzz"))
	}
	merged, cov, dropped, err := MergeShards(parts, names)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 0 {
		t.Errorf("dropped %v with no findings directory", dropped)
	}
	if merged.Programs != whole.Programs || merged.Compilations != whole.Compilations ||
		merged.FailingPrograms != whole.FailingPrograms || !reflect.DeepEqual(merged.Kinds, whole.Kinds) ||
		!reflect.DeepEqual(merged.Signatures, whole.Signatures) {
		t.Errorf("merged summary differs from the whole run's:\nmerged %+v\nwhole  %+v", merged, whole)
	}
	if got, want := findingSet(merged), findingSet(whole); got != want {
		t.Errorf("findings:\nmerged %s\nwhole  %s", got, want)
	}
	if strip(merged.Text()) != strip(whole.Text()) {
		t.Errorf("report:\nmerged:\n%s\nwhole:\n%s", merged.Text(), whole.Text())
	}
	wholeCov.mu.Lock()
	cov.mu.Lock()
	same := reflect.DeepEqual(cov.Stmts, wholeCov.Stmts) && reflect.DeepEqual(cov.PTXOps, wholeCov.PTXOps) &&
		reflect.DeepEqual(cov.OriOps, wholeCov.OriOps) && reflect.DeepEqual(cov.PhaseRuns, wholeCov.PhaseRuns) &&
		reflect.DeepEqual(cov.PhaseChanges, wholeCov.PhaseChanges) && cov.Programs == wholeCov.Programs
	cov.mu.Unlock()
	wholeCov.mu.Unlock()
	if !same {
		t.Errorf("merged coverage differs:\n%s\nwhole:\n%s", cov.Summary(), wholeCov.Summary())
	}

	// A missing shard, a repeated one and a foreign one are refused.
	if _, _, _, err := MergeShards(parts[1:], names[1:]); err == nil || !strings.Contains(err.Error(), "missing shards 3/4") {
		t.Errorf("missing shard: %v", err)
	}
	if _, _, _, err := MergeShards(append(parts, parts[0]), append(names, "copy.json")); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("repeated shard: %v", err)
	}
	other := *parts[2]
	other.Campaign.Seed++
	if _, _, _, err := MergeShards([]*ShardResult{parts[0], parts[1], &other, parts[3]}, names); err == nil || !strings.Contains(err.Error(), "shards of different campaigns") {
		t.Errorf("foreign shard: %v", err)
	}
}

func findingSet(s *Summary) string {
	var out []string
	for _, f := range s.Findings {
		out = append(out, f.Line())
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// strip drops the first line, which holds the timings.
func strip(report string) string {
	_, rest, _ := strings.Cut(report, "\n")
	return rest
}

// TestMergeShardsDedupe: of the saved cases of one signature, the merge
// keeps MaxPerSignature, smallest reduced case first, and reports the
// rest as dropped.
func TestMergeShardsDedupe(t *testing.T) {
	key := CampaignKey{Seed: 1, Count: 4, Levels: []int{3}, MaxPerSignature: 1}
	sig := "mismatch in OriCopyProp: wrong values in out"
	mk := func(k int, fs ...*Finding) *ShardResult {
		return &ShardResult{Format: ShardFormat, Campaign: key, Shard: k, Shards: 2,
			Summary: &Summary{Seed: 1, Programs: 2, Compilations: 2, FailingPrograms: len(fs), Kinds: map[string]int{KindMismatch: len(fs)}, Signatures: map[string]int{sig: len(fs)}, Findings: fs}}
	}
	a := &Finding{Seed: 1, Kind: KindMismatch, Signature: sig, Dir: "f/mismatch-seed1-O3", ReducedInsts: 9, ShrunkInsts: 20}
	b := &Finding{Seed: 2, Kind: KindMismatch, Signature: sig, Dir: "f/mismatch-seed2-O3", ReducedInsts: 5, ShrunkInsts: 30}
	c := &Finding{Seed: 3, Kind: KindMismatch, Signature: sig} // counted only
	sum, _, dropped, err := MergeShards([]*ShardResult{mk(1, a), mk(0, b, c)}, []string{"x", "y"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Findings) != 2 || sum.Findings[0] != b || sum.Findings[1] != c {
		t.Errorf("findings kept: %+v", sum.Findings)
	}
	if !reflect.DeepEqual(dropped, []string{"f/mismatch-seed1-O3"}) {
		t.Errorf("dropped %v", dropped)
	}
	if sum.Signatures[sig] != 3 || sum.FailingPrograms != 3 {
		t.Errorf("counts: %+v", sum)
	}
}
