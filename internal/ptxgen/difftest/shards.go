package difftest

import (
	"encoding/json"
	"fmt"
	"sort"

	"orilab/internal/shard"
	"orilab/pipeline/knobs"
)

// Shards: a campaign split over the copies of a cluster job (see package
// orilab/internal/shard). Each copy writes a ShardResult; MergeShards
// turns the N results back into the Summary and Coverage that one process
// running the whole campaign reports.

// ShardFormat tags a fuzz shard's results file.
const ShardFormat = "orilab-fuzz-shard/1"

// CampaignKey is what makes two shards parts of one campaign: everything
// that decides which programs are checked and how. Shards whose keys
// differ are never merged.
type CampaignKey struct {
	Seed            uint64   `json:"seed"`
	Count           int      `json:"count"`
	Levels          []int    `json:"levels"`
	RandomKnobs     bool     `json:"random_knobs"`
	Knobs           []string `json:"knobs,omitempty"`
	Avoid           []string `json:"avoid,omitempty"`
	MaxPerSignature int      `json:"max_per_signature"`
	MaxWarpSteps    int64    `json:"max_warp_steps,omitempty"`
	// KnobsFile and KnobsEnv are the knobs file's content and the
	// ORILAB_KNOBS value every compilation also read.
	KnobsFile string `json:"knobs_file,omitempty"`
	KnobsEnv  string `json:"knobs_env,omitempty"`
}

// Key returns the campaign key of o.
func (o CampaignOptions) Key() CampaignKey {
	m := o.MaxPerSignature
	if m == 0 {
		m = 3
	}
	k := CampaignKey{Seed: o.Seed, Count: o.Count, Levels: o.Levels, RandomKnobs: o.RandomKnobs,
		Knobs: o.Knobs, Avoid: o.Avoid, MaxPerSignature: m, MaxWarpSteps: o.MaxWarpSteps}
	if f := o.KnobSources.File; f != nil {
		k.KnobsFile = string(f.Content)
	}
	k.KnobsEnv = o.KnobSources.Env[knobs.EnvKnobs]
	return k
}

// ShardResult is one shard's results file.
type ShardResult struct {
	Format   string      `json:"format"`
	Campaign CampaignKey `json:"campaign"`
	// Shard is K and Shards is N: this file holds programs i with
	// i mod N == K.
	Shard    int       `json:"shard"`
	Shards   int       `json:"shards"`
	Summary  *Summary  `json:"summary"`
	Coverage *Coverage `json:"coverage,omitempty"`
}

// MergeShards combines the results of all N shards of one campaign. It
// refuses a set with a shard missing or repeated, or shards of different
// campaigns, naming the files (names[i] is parts[i]'s file).
//
// Counts add up. Findings are deduplicated by signature (culprit phase and
// failure kind): of the saved cases of a signature, which every shard
// saved up to MaxPerSignature of, the merge keeps the MaxPerSignature with
// the smallest reduced case (then shrunk case, then seed), as one process
// would keep that many; the others stay on disk and are reported in
// Dropped. The merged Seconds is the longest shard's: the shards ran side
// by side.
func MergeShards(parts []*ShardResult, names []string) (*Summary, *Coverage, []string, error) {
	if len(parts) == 0 {
		return nil, nil, nil, fmt.Errorf("no fuzz shard results to merge")
	}
	first := parts[0]
	set := make([]shard.Part, len(parts))
	for i, p := range parts {
		if p.Format != ShardFormat {
			return nil, nil, nil, fmt.Errorf("%s: format %q, want %q", names[i], p.Format, ShardFormat)
		}
		if p.Summary == nil {
			return nil, nil, nil, fmt.Errorf("%s: no summary", names[i])
		}
		key, _ := json.Marshal(p.Campaign)
		set[i] = shard.Part{K: p.Shard, N: p.Shards, Campaign: string(key), Name: names[i]}
	}
	if err := shard.CheckSet(set); err != nil {
		return nil, nil, nil, err
	}
	sum := &Summary{Seed: first.Campaign.Seed, Kinds: map[string]int{}, Signatures: map[string]int{}}
	var cov *Coverage
	var all []*Finding
	for _, p := range parts {
		s := p.Summary
		sum.Programs += s.Programs
		sum.Compilations += s.Compilations
		sum.FailingPrograms += s.FailingPrograms
		for k, v := range s.Kinds {
			sum.Kinds[k] += v
		}
		for k, v := range s.Signatures {
			sum.Signatures[k] += v
		}
		sum.Seconds = max(sum.Seconds, s.Seconds)
		sum.Stopped = sum.Stopped || s.Stopped
		all = append(all, s.Findings...)
		if p.Coverage != nil {
			if cov == nil {
				cov = NewCoverage()
			}
			cov.Merge(p.Coverage)
		}
	}
	// The saved cases of each signature, smallest first.
	saved := map[string][]*Finding{}
	var listed []*Finding
	for _, f := range all {
		if f.Dir != "" {
			saved[f.Signature] = append(saved[f.Signature], f)
		} else if len(listed) < maxListed {
			listed = append(listed, f)
		}
	}
	var dropped []string
	for _, fs := range saved {
		sort.SliceStable(fs, func(i, j int) bool { return smaller(fs[i], fs[j]) })
		keep := min(len(fs), first.Campaign.MaxPerSignature)
		listed = append(listed, fs[:keep]...)
		for _, f := range fs[keep:] {
			dropped = append(dropped, f.Dir)
		}
	}
	sort.SliceStable(listed, func(i, j int) bool { return listed[i].Seed < listed[j].Seed })
	sort.Strings(dropped)
	sum.Findings = listed
	return sum, cov, dropped, nil
}

// smaller orders saved findings of one signature: a reduced case beats
// none, a smaller one a larger one; then the shrunk case; then the seed.
func smaller(a, b *Finding) bool {
	ka, kb := sizeKey(a.ReducedInsts), sizeKey(b.ReducedInsts)
	if ka != kb {
		return ka < kb
	}
	if ka, kb = sizeKey(a.ShrunkInsts), sizeKey(b.ShrunkInsts); ka != kb {
		return ka < kb
	}
	return a.Seed < b.Seed
}

// sizeKey makes "no case" (0) sort after every real size.
func sizeKey(n int) int {
	if n == 0 {
		return int(^uint(0) >> 1)
	}
	return n
}
