package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a campaign: items i with i mod N == K. The zero
// value (N == 0) is the whole campaign.
type Shard struct {
	K, N int
	// From says where K and N came from ("--shard 1/4",
	// "SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4", ...), for the
	// line a run prints.
	From string
}

// Whole reports whether s is the whole campaign.
func (s Shard) Whole() bool { return s.N <= 1 }

// Owns reports whether item i belongs to s.
func (s Shard) Owns(i int) bool { return s.Whole() || i%s.N == s.K }

// Count returns how many of the items 0..total-1 belong to s.
func (s Shard) Count(total int) int {
	if s.Whole() {
		return total
	}
	if total <= s.K {
		return 0
	}
	return (total-1-s.K)/s.N + 1
}

// String is "K/N", or "whole" for the whole campaign.
func (s Shard) String() string {
	if s.Whole() {
		return "whole"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Describe is the line a sharded run prints about itself.
func (s Shard) Describe() string {
	if s.Whole() {
		return "not sharded: the whole campaign"
	}
	return fmt.Sprintf("shard %d of %d (K/N = %s, from %s)", s.K+1, s.N, s, s.From)
}

// Resolve finds this copy's shard. In order: the --shard flag ("K/N",
// K from 0); Slurm's SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT
// (K counts from SLURM_ARRAY_TASK_MIN, so --array=1-4 works too); a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX, with N from shards (the
// --shards flag, which must equal the Job's completions). With none of
// these, the whole campaign. getenv is os.Getenv outside tests.
func Resolve(flag string, shards int, getenv func(string) string) (Shard, error) {
	if flag != "" {
		ks, ns, ok := strings.Cut(flag, "/")
		k, err1 := strconv.Atoi(ks)
		n, err2 := strconv.Atoi(ns)
		if !ok || err1 != nil || err2 != nil {
			return Shard{}, fmt.Errorf("--shard %q: want K/N, for example 0/4 (K counts from 0)", flag)
		}
		return check(k, n, "--shard "+flag)
	}
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		count := getenv("SLURM_ARRAY_TASK_COUNT")
		k, err1 := strconv.Atoi(id)
		n, err2 := strconv.Atoi(count)
		if err1 != nil || err2 != nil {
			return Shard{}, fmt.Errorf("SLURM_ARRAY_TASK_ID=%q SLURM_ARRAY_TASK_COUNT=%q: want two integers", id, count)
		}
		from := fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_COUNT=%d", k, n)
		if m := getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			min, err := strconv.Atoi(m)
			if err != nil {
				return Shard{}, fmt.Errorf("SLURM_ARRAY_TASK_MIN=%q: want an integer", m)
			}
			if max, err := strconv.Atoi(getenv("SLURM_ARRAY_TASK_MAX")); err == nil && max-min+1 != n {
				// --array=0-7:2 or 1,5,9: the IDs are not 0..N-1 shifted.
				return Shard{}, fmt.Errorf("the Slurm array %d-%d has %d tasks, not one per index: submit a contiguous --array=0-%d", min, max, n, n-1)
			}
			k -= min
			from += fmt.Sprintf(" SLURM_ARRAY_TASK_MIN=%d", min)
		}
		return check(k, n, from)
	}
	if idx := getenv("JOB_COMPLETION_INDEX"); idx != "" {
		k, err := strconv.Atoi(idx)
		if err != nil {
			return Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%q: want an integer", idx)
		}
		if shards <= 0 {
			return Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%d is set but --shards is not: give --shards N, the Job's completions", k)
		}
		return check(k, shards, fmt.Sprintf("JOB_COMPLETION_INDEX=%d --shards %d", k, shards))
	}
	if shards > 1 {
		return Shard{}, fmt.Errorf("--shards %d: no index (--shard K/N, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX) says which shard this is", shards)
	}
	return Shard{}, nil
}

func check(k, n int, from string) (Shard, error) {
	if n < 1 {
		return Shard{}, fmt.Errorf("%s: N = %d, want 1 or more", from, n)
	}
	if k < 0 || k >= n {
		return Shard{}, fmt.Errorf("%s: K = %d is outside 0..%d", from, k, n-1)
	}
	return Shard{K: k, N: n, From: from}, nil
}

// FileName is the name of the results file shard s of a campaign of the
// given kind ("fuzz", "inject") writes into the shared directory. Each
// shard writes only its own, so a re-run of one shard replaces only its
// file.
func (s Shard) FileName(kind string) string {
	if s.Whole() {
		return kind + "-shard-0-of-1.json"
	}
	return fmt.Sprintf("%s-shard-%d-of-%d.json", kind, s.K, s.N)
}

// Part is one results file as a merge sees it: which shard of how many
// it says it is, the campaign it belongs to (any comparable description,
// e.g. its key marshalled to JSON), and its name for messages.
type Part struct {
	K, N     int
	Campaign string
	Name     string
}

// CheckSet checks that parts are the N shards of one campaign, each once:
// the same campaign and N everywhere, every K in 0..N-1 present, none
// twice. Its errors name the files, and say how to repair a missing shard.
func CheckSet(parts []Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("no shard results to merge")
	}
	first := parts[0]
	n := first.N
	seen := make([]string, max(n, 0))
	for _, p := range parts {
		if p.Campaign != first.Campaign {
			return fmt.Errorf("%s and %s are shards of different campaigns", first.Name, p.Name)
		}
		if p.N != n {
			return fmt.Errorf("%s is shard %d of %d, %s of %d: one campaign, one N", p.Name, p.K, p.N, first.Name, n)
		}
		if p.K < 0 || p.K >= n {
			return fmt.Errorf("%s: bad shard %d of %d", p.Name, p.K, n)
		}
		if seen[p.K] != "" {
			return fmt.Errorf("shard %d/%d appears twice: %s and %s", p.K, n, seen[p.K], p.Name)
		}
		seen[p.K] = p.Name
	}
	var missing []string
	for k, s := range seen {
		if s == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing shards %s: run them (a re-run overwrites only its own file), then merge again", strings.Join(missing, ", "))
	}
	return nil
}
