package faultinject

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"orilab/internal/shard"
	"orilab/pipeline/ori"
)

// simTarget is the post-RA kernel as a campaign target: the structural
// verifier, then execution in the simulator against the known results.
func simTarget(t testing.TB) TargetFuncs {
	pristine := parseModule(t, postRA)
	want := fmt.Sprint(expected())
	return TargetFuncs{
		FreshFunc: func() (*ori.Module, error) { return pristine.Clone(), nil },
		VerifyFunc: func(m *ori.Module) (Outcome, string, error) {
			o, msg := VerifyStructural(m)
			return o, msg, nil
		},
		ExecuteFunc: func(m *ori.Module) (Outcome, string, error) {
			got, err := runKernel(m)
			o, d := ClassifyRun(err, err == nil && fmt.Sprint(got) == want)
			return o, d, nil
		},
	}
}

func TestCampaignDeterministicAcrossWorkers(t *testing.T) {
	sp, _ := ParseSpec("1,0,0,0 0 0")
	run := func(workers int) (*Result, string) {
		c := &Campaign{Target: simTarget(t), Spec: sp, Seed: 2024, Trials: 40, Workers: workers, Input: "k.ptx"}
		calls := 0
		c.Progress = func(done, total int) {
			calls++
			if done != calls || total != 40 {
				t.Errorf("progress %d/%d at call %d", done, total, calls)
			}
		}
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b)
	}
	r1, j1 := run(1)
	_, j4 := run(4)
	if j1 != j4 {
		t.Fatal("a campaign with 4 workers differs from the same campaign with 1")
	}
	faults := 0
	for i, tr := range r1.Trials {
		if tr.Trial != i || tr.Seed != TrialSeed(2024, i) {
			t.Fatalf("trial %d recorded as %d with seed %d", i, tr.Trial, tr.Seed)
		}
		faults += len(tr.Faults)
		if len(tr.Faults) > 0 && tr.Outcome == OutcomeNone {
			t.Fatalf("trial %d has faults but no outcome", i)
		}
	}
	if r1.Matrix.Total(0) != faults || r1.Empty != 0 {
		t.Fatalf("matrix counts %d faults, the trials have %d; %d empty", r1.Matrix.Total(0), faults, r1.Empty)
	}
	// The corrupted kernels show every execution outcome this kernel
	// can: wrong results, out-of-frame local accesses, and masked faults.
	for _, o := range []Outcome{CaughtMismatch, CaughtMemFault, Masked} {
		if r1.Matrix.column(0, o) == 0 {
			t.Errorf("no %s in\n%s", o, r1.Matrix.Table())
		}
	}
	// The structural verifier sees nothing: mutations keep the IR well
	// formed.
	if n := r1.Matrix.caught(0); n != 0 {
		t.Errorf("the structural verifier caught %d faults", n)
	}
	esc := 0
	for _, tr := range r1.Trials {
		if tr.Outcome.Escaped() {
			esc += len(tr.Faults)
		}
	}
	if len(r1.Escapes) != esc {
		t.Fatalf("%d escapes listed, %d expected", len(r1.Escapes), esc)
	}
	e := r1.Escapes[0]
	if want := fmt.Sprintf(`orilab inject k.ptx --bugspec "1,0,0,0 0 0" --seed %d`, TrialSeed(2024, e.Trial)); e.Replay != want {
		t.Errorf("replay %q, want %q", e.Replay, want)
	}
	// Replaying an escape reproduces its fault.
	m := parseModule(t, postRA)
	rep, err := Inject(m, sp, e.Seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Faults {
		found = found || f.Line() == e.Fault.Line()
	}
	if !found {
		t.Errorf("replaying seed %d does not give %s", e.Seed, e.Fault.Line())
	}
	if txt := r1.Text(); !strings.HasPrefix(txt, "bugspec 1,0,0,0 0 0, campaign seed 2024, 40 trials\n\nkind") ||
		!strings.Contains(txt, fmt.Sprintf("faults escaped the verifiers:\ntrial %d (%s) k: %s\n    %s\n", e.Trial, e.Outcome, e.Fault.Line(), e.Replay)) {
		t.Errorf("text:\n%s", txt)
	}
}

// TestCampaignPinned pins a small single-category campaign end to end.
func TestCampaignPinned(t *testing.T) {
	sp, _ := ParseSpec("0,0,1,0 0 0")
	c := &Campaign{Target: simTarget(t), Spec: sp, Seed: 7, Trials: 12, Workers: 3, Input: "k.ptx",
		Replay: "replay {input} trial={trial} seed={seed} kind={kind} at {func}#{inst}"}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range res.Trials {
		got = append(got, fmt.Sprintf("%d #%d k%d %s", tr.Trial, tr.Faults[0].Inst, tr.Faults[0].Kind, tr.Outcome))
	}
	// #7 (spill store) and #23 (refill) shifted by 16 bytes leave the
	// 16-byte frame at the top of the local window: memory faults. #11
	// and #17 spill the predicate P1 through R9; reading another register
	// gives wrong results, except in trial 11, where #17 reads R8, which
	// the P2R #13 filled with P0 and P1, both "tid == 3" at that point.
	want := "0 #17 k8 exec:mismatch,1 #7 k4 exec:memory-fault,2 #11 k8 exec:mismatch,3 #7 k4 exec:memory-fault," +
		"4 #17 k8 exec:mismatch,5 #17 k8 exec:mismatch,6 #17 k8 exec:mismatch,7 #7 k4 exec:memory-fault," +
		"8 #23 k4 exec:memory-fault,9 #17 k8 exec:mismatch,10 #17 k8 exec:mismatch,11 #17 k8 masked"
	if strings.Join(got, ",") != want {
		t.Errorf("trials:\n%s\nwant\n%s", strings.Join(got, ","), want)
	}
	table := res.Matrix.Table()
	wantTable := `kind                struct  rdefs  hazard  mismatch  memfault  hang  masked  crash  total  verifier%
4 offset                 0      0       0         0         4     0       0      0      4        0.0
8 spill-regill bug       0      0       0         7         0     0       1      0      8        0.0
total                    0      0       0         7         4     0       1      0     12        0.0
`
	if table != wantTable {
		t.Errorf("table:\n%s\nwant\n%s", table, wantTable)
	}
	if e := res.Escapes[0]; e.Replay != fmt.Sprintf("replay k.ptx trial=0 seed=%d kind=8 at k#17", TrialSeed(7, 0)) {
		t.Errorf("replay: %s", e.Replay)
	}
}

func TestCampaignCrashesAndErrors(t *testing.T) {
	sp, _ := ParseSpec("1,0,0,0 0 0")
	base := simTarget(t)
	run := func(tg Target, trials, workers int) (*Result, error) {
		c := &Campaign{Target: tg, Spec: sp, Seed: 1, Trials: trials, Workers: workers}
		return c.Run(context.Background())
	}

	tg := base
	tg.VerifyFunc = func(*ori.Module) (Outcome, string, error) { panic("boom") }
	res, err := run(tg, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Trials {
		if tr.Outcome != CompilerCrash || tr.Detail != "panic: boom" {
			t.Fatalf("panicking verifier: trial %d is %s %q", tr.Trial, tr.Outcome, tr.Detail)
		}
	}
	if res.Matrix.column(0, CompilerCrash) != 5 || len(res.Escapes) != 0 {
		t.Fatalf("crashes are not escapes: %v", res.Escapes)
	}

	tg = base
	tg.ExecuteFunc = func(*ori.Module) (Outcome, string, error) { return 0, "", errors.New("scheduler: no") }
	res, err = run(tg, 2, 1)
	if err != nil || res.Trials[1].Outcome != CompilerCrash || res.Trials[1].Detail != "scheduler: no" {
		t.Fatalf("failing execute: %v %+v", err, res.Trials)
	}

	tg = base
	tg.VerifyFunc = func(*ori.Module) (Outcome, string, error) { return CaughtReachingDefs, "R7 read before written", nil }
	res, err = run(tg, 3, 2)
	if err != nil || res.Matrix.column(0, CaughtReachingDefs) != 3 || len(res.Escapes) != 0 || !strings.HasSuffix(res.Text(), "\nno fault escaped the verifiers\n") {
		t.Fatalf("verifier catches: %v\n%s", err, res.Text())
	}

	tg = base
	tg.VerifyFunc = func(*ori.Module) (Outcome, string, error) { return Masked, "", nil }
	if _, err = run(tg, 3, 1); err == nil || err.Error() != "faultinject: trial 0: Verify returned masked; want a verifier outcome or none" {
		t.Fatalf("bad verify outcome: %v", err)
	}
	tg = base
	tg.ExecuteFunc = func(*ori.Module) (Outcome, string, error) { return CaughtHazard, "", nil }
	if _, err = run(tg, 3, 1); err == nil || err.Error() != "faultinject: trial 0: Execute returned verifier:hazard; want an execution outcome or masked" {
		t.Fatalf("bad execute outcome: %v", err)
	}
	tg = base
	tg.FreshFunc = func() (*ori.Module, error) { return nil, errors.New("no snapshot") }
	if _, err = run(tg, 3, 1); err == nil || err.Error() != "faultinject: trial 0: no snapshot" {
		t.Fatalf("fresh error: %v", err)
	}
	tg = base
	tg.FreshFunc = func() (*ori.Module, error) {
		return parseModule(t, strings.Replace(postRA, "#14 MOV R6 = R4", "#14 MOV R6 = %r4", 1)), nil
	}
	if _, err = run(tg, 1, 1); err == nil || !strings.Contains(err.Error(), "virtual register %r4") {
		t.Fatalf("inject error: %v", err)
	}

	// No candidates: every trial is empty and the matrix stays empty.
	c := &Campaign{Target: base, Spec: Spec{}, Seed: 1, Trials: 4, Workers: 2}
	res, err = c.Run(context.Background())
	if err != nil || res.Empty != 4 || res.Matrix.Total(0) != 0 || !strings.Contains(res.Text(), "(4 without any fault: no candidates)") {
		t.Fatalf("empty campaign: %v %+v", err, res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c = &Campaign{Target: base, Spec: sp, Seed: 1, Trials: 100, Workers: 2}
	if _, err := c.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled campaign: %v", err)
	}
	if _, err := (&Campaign{Spec: sp, Trials: 1}).Run(context.Background()); err == nil {
		t.Fatal("campaign without target: no error")
	}
}

func TestClassifyRun(t *testing.T) {
	hang := parseModule(t, ".module sm_75 address_size=64\n\n.entry k\n.param out offset=0x160 size=0x8 align=0x8\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 BRA BB0 ;\n}\n")
	_, err := runKernel(hang)
	if o, d := ClassifyRun(err, false); o != CaughtHang || !strings.Contains(d, "did not finish within 10000 warp-steps") {
		t.Errorf("loop: %s %q", o, d)
	}
	bad := parseModule(t, strings.Replace(postRA, "#23 LDL.64 R4.64 = [R1+0x8]", "#23 LDL.64 R4.64 = [R1+0x18]", 1))
	_, err = runKernel(bad)
	if o, d := ClassifyRun(err, false); o != CaughtMemFault || !strings.Contains(d, "instruction #23 (LDL.64)") {
		t.Errorf("out-of-frame load: %s %q", o, d)
	}
	if o, _ := ClassifyRun(errors.New("kernel x is not an .entry of the module"), false); o != CompilerCrash {
		t.Errorf("refused IR: %s", o)
	}
	if o, _ := ClassifyRun(nil, false); o != CaughtMismatch {
		t.Errorf("mismatch: %s", o)
	}
	if o, _ := ClassifyRun(nil, true); o != Masked {
		t.Errorf("pass: %s", o)
	}
	broken := parseModule(t, postRA)
	broken.Funcs[0].Blocks[0].Insts[2].Dsts[0].Reg.N = 5
	broken.Funcs[0].Blocks[0].Insts[5].Dsts[0].Reg.N = 5 // R5.64: misaligned
	if o, msg := VerifyStructural(broken); o != CaughtStructural || !strings.Contains(msg, "#6") {
		t.Errorf("structural: %s %q", o, msg)
	}
}

func TestMatrix(t *testing.T) {
	var m Matrix
	m.Add(KindRUR, CaughtReachingDefs)
	m.Add(KindRUR, CaughtMismatch)
	m.Add(KindRUR, Masked)
	m.Add(KindRUR, CaughtReachingDefs)
	m.Add(KindBitSpill, CaughtHang)
	m.Add(KindBitSpill, CompilerCrash)
	m.Add(0, Masked) // ignored: not a kind
	want := `kind              struct  rdefs  hazard  mismatch  memfault  hang  masked  crash  total  verifier%
1 r-ur register        0      2       0         1         0     0       1      0      4       50.0
10 bit-spill bug       0      0       0         0         0     1       0      1      2        0.0
total                  0      2       0         1         0     1       1      1      6       33.3
`
	if got := m.Table(); got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Matrix
	if err := json.Unmarshal(b, &back); err != nil || back != m {
		t.Fatalf("JSON round trip: %v", err)
	}
	var shape struct {
		Kinds []struct {
			Kind     int            `json:"kind"`
			Name     string         `json:"name"`
			Outcomes map[string]int `json:"outcomes"`
			Total    int            `json:"total"`
			Verifier int            `json:"caught_by_verifier"`
		} `json:"kinds"`
		Total struct {
			Total    int `json:"total"`
			Verifier int `json:"caught_by_verifier"`
		} `json:"total"`
	}
	if err := json.Unmarshal(b, &shape); err != nil {
		t.Fatal(err)
	}
	k1 := shape.Kinds[0]
	if len(shape.Kinds) != 10 || k1.Name != "r-ur register" || k1.Outcomes["verifier:reaching-defs"] != 2 || k1.Outcomes["masked"] != 1 ||
		len(k1.Outcomes) != 8 || k1.Total != 4 || k1.Verifier != 2 || shape.Total.Total != 6 || shape.Total.Verifier != 2 {
		t.Errorf("JSON shape: %s", b)
	}
	if err := json.Unmarshal([]byte(`{"kinds":[{"kind":1,"outcomes":{"weird":1}}]}`), &back); err == nil || err.Error() != `matrix: unknown outcome "weird"` {
		t.Errorf("bad outcome name: %v", err)
	}
	for o := Outcome(0); o < NumOutcomes; o++ {
		if p, err := ParseOutcome(o.String()); err != nil || p != o {
			t.Errorf("ParseOutcome(%s) = %s, %v", o, p, err)
		}
	}
}

func TestCampaignWithoutVerifier(t *testing.T) {
	tg := simTarget(t)
	tg.VerifyFunc = nil
	sp, _ := ParseSpec("0,0,0,0 0 1")
	c := &Campaign{Target: tg, Spec: sp, Seed: 3, Trials: 2}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Trials[0])
	if err != nil {
		t.Fatal(err)
	}
	var back Trial
	if err := json.Unmarshal(b, &back); err != nil || back.Outcome != CaughtMismatch || back.Seed != TrialSeed(3, 0) || len(back.Faults) != 1 {
		t.Fatalf("trial JSON %s: %v %+v", b, err, back)
	}
	if !strings.Contains(string(b), `"outcome":"exec:mismatch"`) {
		t.Errorf("trial JSON: %s", b)
	}
}

// TestCampaignShardsMerge: the 3 shards of a campaign, merged, are the
// whole campaign, byte for byte in JSON.
func TestCampaignShardsMerge(t *testing.T) {
	sp, _ := ParseSpec("1,0,0,0 0 0")
	run := func(s shard.Shard) *Result {
		c := &Campaign{Target: simTarget(t), Spec: sp, Seed: 77, Trials: 20, Workers: 2, Input: "k.ptx", Shard: s}
		done := 0
		c.Progress = func(d, total int) {
			done = d
			if total != s.Count(20) {
				t.Errorf("shard %s: progress total %d, want %d", s, total, s.Count(20))
			}
		}
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Trials) != s.Count(20) || done != s.Count(20) {
			t.Fatalf("shard %s ran %d trials (progress %d), want %d", s, len(res.Trials), done, s.Count(20))
		}
		return res
	}
	whole := run(shard.Shard{})
	var parts []*Result
	for k := 2; k >= 0; k-- {
		parts = append(parts, run(shard.Shard{K: k, N: 3}))
	}
	merged, err := MergeResults(parts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(merged)
	if string(a) != string(b) {
		t.Fatalf("merged shards differ from the whole campaign:\n%s\n%s", merged.Text(), whole.Text())
	}
	if merged.Text() != whole.Text() {
		t.Fatal("texts differ")
	}
	if _, err := MergeResults(append(parts, parts[0])); err == nil || !strings.Contains(err.Error(), "is in two shards") {
		t.Errorf("a shard twice: %v", err)
	}
}

// TestCategoryNotes: every requested category gets a line, in field
// order, saying why it got fewer faults than requested over the trials.
func TestCategoryNotes(t *testing.T) {
	spec, err := ParseSpec("2,1,1,0 0 1")
	if err != nil {
		t.Fatal(err)
	}
	st := func(c Category, req, cands, inj int) CategoryStat {
		return CategoryStat{Category: c, Name: c.String(), Requested: req, Candidates: cands, Injected: inj}
	}
	r := &Result{Spec: spec, Trials: []Trial{
		{Categories: []CategoryStat{st(CatRegister, 2, 5, 2), st(CatPredicate, 1, 3, 1), st(CatSpill, 1, 0, 0), st(CatBitSpill, 1, 1, 1)}},
		{Categories: []CategoryStat{st(CatRegister, 2, 1, 1), st(CatPredicate, 1, 0, 0), st(CatSpill, 1, 0, 0), st(CatBitSpill, 1, 1, 1)}},
	}}
	want := "register bugs: requested 2 per trial, injected 3 in 2 trials (fewer than requested in 1 trial)\n" +
		"predicate bugs: requested 1 per trial, injected 1 in 2 trials (fewer than requested in 1 trial; no candidates in 1)\n" +
		"offset/spill bugs: requested 1 per trial, injected 0 in 2 trials (no candidates)\n" +
		"bit-spill bugs: requested 1 per trial, injected 2 in 2 trials"
	if got := strings.Join(r.CategoryNotes(), "\n"); got != want {
		t.Errorf("CategoryNotes:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(r.Text(), "\n"+want+"\n") {
		t.Errorf("Text lacks the category lines:\n%s", r.Text())
	}
}
