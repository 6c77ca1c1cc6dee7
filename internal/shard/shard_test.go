package shard

import (
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	cases := []struct {
		flag   string
		shards int
		env    func(string) string
		want   string // Describe(), or the error
	}{
		{"", 0, env(), "not sharded: the whole campaign"},
		{"1/4", 0, env(), "shard 2 of 4 (K/N = 1/4, from --shard 1/4)"},
		{"1/4", 0, env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "4"), "shard 2 of 4 (K/N = 1/4, from --shard 1/4)"},
		{"", 0, env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "4"),
			"shard 4 of 4 (K/N = 3/4, from SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4)"},
		{"", 0, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "4"),
			"shard 2 of 4 (K/N = 1/4, from SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1)"},
		{"", 0, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "6"),
			"the Slurm array 0-6 has 4 tasks, not one per index: submit a contiguous --array=0-3"},
		{"", 3, env("JOB_COMPLETION_INDEX", "2"), "shard 3 of 3 (K/N = 2/3, from JOB_COMPLETION_INDEX=2 --shards 3)"},
		{"", 0, env("JOB_COMPLETION_INDEX", "2"), "JOB_COMPLETION_INDEX=2 is set but --shards is not: give --shards N, the Job's completions"},
		{"", 3, env("JOB_COMPLETION_INDEX", "3"), "JOB_COMPLETION_INDEX=3 --shards 3: K = 3 is outside 0..2"},
		{"", 4, env(), "--shards 4: no index (--shard K/N, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX) says which shard this is"},
		{"4/4", 0, env(), "--shard 4/4: K = 4 is outside 0..3"},
		{"1/0", 0, env(), "--shard 1/0: N = 0, want 1 or more"},
		{"1-4", 0, env(), `--shard "1-4": want K/N, for example 0/4 (K counts from 0)`},
		{"", 0, env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_COUNT", "4"), `SLURM_ARRAY_TASK_ID="x" SLURM_ARRAY_TASK_COUNT="4": want two integers`},
	}
	for _, c := range cases {
		s, err := Resolve(c.flag, c.shards, c.env)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = s.Describe()
		}
		if got != c.want {
			t.Errorf("Resolve(%q, %d):\n got %s\nwant %s", c.flag, c.shards, got, c.want)
		}
	}
}

// The shards of a campaign partition its items: every item belongs to
// exactly one shard, and Count agrees with Owns.
func TestShardsPartition(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for total := 0; total <= 13; total++ {
			owners := make([]int, total)
			for k := 0; k < n; k++ {
				s := Shard{K: k, N: n}
				c := 0
				for i := 0; i < total; i++ {
					if s.Owns(i) {
						owners[i]++
						c++
					}
				}
				if c != s.Count(total) {
					t.Errorf("%s of %d items: Owns gives %d, Count %d", s, total, c, s.Count(total))
				}
			}
			for i, o := range owners {
				if o != 1 {
					t.Errorf("N=%d total=%d: item %d has %d owners", n, total, i, o)
				}
			}
		}
	}
	if (Shard{}).Count(7) != 7 || !(Shard{}).Owns(6) {
		t.Error("the zero Shard is not the whole campaign")
	}
}

func TestCheckSet(t *testing.T) {
	p := func(k, n int, c, name string) Part { return Part{K: k, N: n, Campaign: c, Name: name} }
	cases := []struct {
		parts []Part
		want  string
	}{
		{[]Part{p(1, 2, "c", "b"), p(0, 2, "c", "a")}, ""},
		{[]Part{p(0, 3, "c", "a"), p(2, 3, "c", "c")}, "missing shards 1/3: run them (a re-run overwrites only its own file), then merge again"},
		{[]Part{p(0, 2, "c", "a"), p(0, 2, "c", "a2")}, "shard 0/2 appears twice: a and a2"},
		{[]Part{p(0, 2, "c", "a"), p(1, 2, "d", "b")}, "a and b are shards of different campaigns"},
		{[]Part{p(0, 2, "c", "a"), p(1, 3, "c", "b")}, "b is shard 1 of 3, a of 2: one campaign, one N"},
		{[]Part{p(2, 2, "c", "a")}, "a: bad shard 2 of 2"},
		{nil, "no shard results to merge"},
	}
	for _, c := range cases {
		got := ""
		if err := CheckSet(c.parts); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckSet(%v) = %q, want %q", c.parts, got, c.want)
		}
	}
}
