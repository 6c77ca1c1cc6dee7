package difftest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"orilab/internal/ptxgen"
	"orilab/pipeline"
	"orilab/pipeline/spec"
)

func TestParseLevels(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  string
	}{
		{"3", []int{3}, ""},
		{"0-3", []int{0, 1, 2, 3}, ""},
		{"0,3", []int{0, 3}, ""},
		{"3,0-1,1", []int{3, 0, 1}, ""},
		{"5", nil, "level 5: want 0 to 4"},
		{"3-1", nil, `"3-1" is not a range of levels`},
		{"x", nil, `"x" is not a level`},
		{"", nil, `"" is not a level`},
	} {
		got, err := ParseLevels(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"kernel fuzz deadlocked in CTA (0,1,0): no thread can make progress: warp 3: threads 0-4,7 wait at #140 (BSYNC)":      "kernel FUNC deadlocked in CTA (N,N,N): no thread can make progress: warp N: threads L wait at #N (OP)",
		"instruction #190 (RED.E.INC.U32.STRONG.GPU), thread (0,0,0): out-of-bounds global atomic of 4 bytes at address 0x10": "instruction #N (OP), thread (N,N,N): out-of-bounds global atomic of N bytes at address N",
		"a/b/fuzz.ptx:102:1: error: internal: fuzz: instruction #427 branches to BB28, which does not exist\nmore":            "FILE.ptx:N:N: error: internal: FUNC: instruction #N branches to BBN, which does not exist",
		"verify-ra fn1 BB1 #82: operand 0 reads R4, which holds %r16 on some paths only (not %rd16)":                          "verify-ra FUNC BBN #N: operand N reads RN, which holds %rN on some paths only (not %rdN)",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q)\n = %q\nwant %q", in, got, want)
		}
	}
	if got := failureClass(KindMismatch, "out word 3: got 0x1, want 0x2\nacc word 0: got 0x1, want 0x2\nout word 9: got 0x1, want 0x2"); got != "wrong values in out, acc" {
		t.Errorf("failureClass: %q", got)
	}
}

func TestCompareBuffers(t *testing.T) {
	s := &spec.Spec{Params: []spec.Param{{Name: "a"}, {Name: "n"}, {Name: "b"}}}
	want := [][]byte{{1, 0, 0, 0, 2, 0, 0, 0}, nil, {9, 9, 9, 9}}
	if d := compareBuffers(s, want, [][]byte{{1, 0, 0, 0, 2, 0, 0, 0}, nil, {9, 9, 9, 9}}); d != "" {
		t.Fatalf("equal buffers: %q", d)
	}
	got := [][]byte{{1, 0, 0, 0, 3, 0, 0, 0}, nil, {9, 9, 9, 9}}
	if d := compareBuffers(s, want, got); d != "a word 1: got 0x00000003, want 0x00000002" {
		t.Fatalf("got %q", d)
	}
}

func TestRandomKnobs(t *testing.T) {
	plan := map[string]pipeline.PlanRow{}
	for _, row := range pipeline.PhasePlan(3, 80) {
		plan[strings.ToLower(row.Name)] = row
	}
	distinct := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		a, b := RandomKnobs(seed, 3, 80), RandomKnobs(seed, 3, 80)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: %v then %v", seed, a, b)
		}
		distinct[strings.Join(a, "~")] = true
		cfg := Config{OptLevel: 3, Knobs: a}
		phases, _ := disabled(cfg)
		for _, p := range phases {
			row, ok := plan[strings.ToLower(p)]
			if !ok || row.Required || !row.Runs {
				t.Errorf("seed %d: DisablePhases names %s (required or not running at -O3)", seed, p)
			}
		}
		for _, k := range a {
			n, _, _ := strings.Cut(k, "=")
			if driverKnobs[strings.ToLower(n)] && !strings.EqualFold(n, "DisablePhases") {
				t.Errorf("seed %d: sets driver knob %s", seed, k)
			}
		}
	}
	if len(distinct) < 30 {
		t.Errorf("only %d distinct settings in 40 seeds", len(distinct))
	}
}

// savedFinding is the part of a saved finding.json the tests read.
type savedFinding struct {
	Status    string `json:"status"` // "open" or "fixed"
	Spec      string `json:"spec"`   // the spec to run, relative to the directory
	Kind      string `json:"kind"`
	Detail    string `json:"detail"`
	Config    Config `json:"config"`
	Signature string `json:"signature"`
}

const findingsDir = "../../../testdata/fuzzfindings"

func loadSaved(t *testing.T) map[string]savedFinding {
	dirs, _ := filepath.Glob(filepath.Join(findingsDir, "*", "finding.json"))
	out := map[string]savedFinding{}
	for _, path := range dirs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f savedFinding
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if f.Status != "open" && f.Status != "fixed" {
			t.Fatalf("%s: status %q, want open or fixed", path, f.Status)
		}
		out[filepath.Dir(path)] = f
	}
	return out
}

// TestFixedBatch checks a fixed batch of programs at -O0 and -O3: every
// compilation matches the oracle, except failures whose signature (kind,
// culprit phase from bisect, normalized message) is that of a saved
// finding marked open; each of those is logged. Any other failure is a
// new bug: `orilab fuzz --seed N --count 1 -O L` saves and reduces it.
func TestFixedBatch(t *testing.T) {
	open := map[string]string{}
	for dir, f := range loadSaved(t) {
		if f.Status == "open" {
			open[f.Signature] = filepath.Base(dir)
		}
	}
	n := uint64(30)
	if testing.Short() {
		n = 10
	}
	rec := &recorder{opts: CampaignOptions{Findings: t.TempDir(), MaxPerSignature: 1 << 30, FindingTime: 2 * time.Minute}, saved: map[string]int{}}
	tolerated := 0
	for seed := uint64(1); seed <= n; seed++ {
		p := ptxgen.Generate(seed)
		rep := Check(p, Options{Configs: []Config{{OptLevel: 0}, {OptLevel: 3}}})
		if len(rep.Results) != 2 && rep.Results[0].Kind != KindBadProgram {
			t.Fatalf("seed %d: %d results for 2 configurations", seed, len(rep.Results))
		}
		for _, r := range rep.Failed() {
			f, err := rec.record(context.Background(), p, rep, r)
			if err != nil {
				t.Fatal(err)
			}
			if name, ok := open[f.Signature]; ok {
				t.Logf("seed %d %s: open bug %s", seed, r.Config, name)
				tolerated++
				continue
			}
			t.Errorf("seed %d %s: %s\n%s\nreplay: orilab fuzz --seed %d --count 1 -O %d", seed, r.Config, f.Signature, f.Detail, seed, r.Config.OptLevel)
		}
	}
	t.Logf("%d failures of open bugs tolerated in %d programs", tolerated, n)
}

// TestOracleDeterministic runs one program twice: the same buffers, so
// a difference between configurations is never the simulator's noise.
func TestOracleDeterministic(t *testing.T) {
	p := ptxgen.Generate(5)
	a := Check(p, Options{})
	b := Check(p, Options{})
	if a.Oracle == nil || !reflect.DeepEqual(a.Oracle, b.Oracle) {
		t.Fatalf("two oracle runs differ (or failed: %v)", a.Results)
	}
}

// TestSavedFindings replays every saved finding: an open one must still
// fail the same way (when it passes, the bug is fixed: set its status to
// "fixed"), a fixed one must pass (a regression test).
func TestSavedFindings(t *testing.T) {
	saved := loadSaved(t)
	if len(saved) == 0 {
		t.Skip("no saved findings in " + findingsDir)
	}
	for dir, f := range saved {
		path := filepath.Join(dir, f.Spec)
		s, err := spec.Load(path)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		s.Expect = nil // the oracle is the lowered IR's output
		rep := CheckPTX(0, src, s, Options{Configs: []Config{f.Config}})
		failed := rep.Failed()
		switch f.Status {
		case "open":
			if len(failed) == 0 {
				t.Errorf("%s: passes now: the bug (%s) looks fixed; set \"status\": \"fixed\" in its finding.json", dir, f.Signature)
				continue
			}
			got, want := failed[0].Kind+": "+failureClass(failed[0].Kind, failed[0].Detail), f.Kind+": "+failureClass(f.Kind, f.Detail)
			if got != want {
				t.Errorf("%s: fails as\n  %s\nsaved as\n  %s", dir, got, want)
			}
		case "fixed":
			for _, r := range failed {
				t.Errorf("%s: regression: %s: %s", dir, r.Kind, r.Detail)
			}
		}
	}
}

// TestRecorder checks what a failure leaves behind: a case whose spec
// expects the oracle's buffers, finding.txt and finding.json with replay
// commands, and no second save of the same signature.
func TestRecorder(t *testing.T) {
	dir := t.TempDir()
	rec := &recorder{opts: CampaignOptions{Findings: dir, MaxPerSignature: 1, FindingTime: time.Minute}, saved: map[string]int{}}
	p := ptxgen.Generate(7)
	rep := Check(p, Options{Configs: []Config{{OptLevel: 0}}})
	if len(rep.Failed()) != 0 {
		t.Skipf("seed 7 fails: %v", rep.Failed())
	}
	// A made-up failure of a passing program: the recorder cannot tell.
	res := Result{Config: Config{OptLevel: 0}, Kind: KindMismatch, Detail: "out word 1: got 0x00000001, want 0x00000002"}
	f, err := rec.record(context.Background(), p, rep, res)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dir != filepath.Join(dir, "mismatch-seed7-O0") || f.Signature != "mismatch: wrong values in out" {
		t.Fatalf("dir %q signature %q", f.Dir, f.Signature)
	}
	if !strings.Contains(f.Bisect, "the kernel passes at -O0") {
		t.Errorf("bisect: %q", f.Bisect)
	}
	s, err := spec.Load(filepath.Join(f.Dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := pipeline.RunSpec(s, pipeline.RunOptions{Request: pipeline.Request{OptLevel: 0}})
	if err != nil || !run.Pass || len(run.Results) == 0 {
		t.Fatalf("the saved case does not pass against the oracle's values: %v %+v", err, run)
	}
	txt, err := os.ReadFile(filepath.Join(f.Dir, "finding.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mismatch: wrong values in out\n", "seed 7, -O0\n", "orilab run " + filepath.Join(f.Dir, "case.json") + " -O 0\n", "orilab fuzz --seed 7 --count 1 -O 0\n"} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("finding.txt lacks %q:\n%s", want, txt)
		}
	}
	var back Finding
	b, _ := os.ReadFile(filepath.Join(f.Dir, "finding.json"))
	if err := json.Unmarshal(b, &back); err != nil || back.Seed != 7 || back.Kind != KindMismatch {
		t.Errorf("finding.json: %v %+v", err, back)
	}
	// The same signature again is counted, not saved.
	g, err := rec.record(context.Background(), ptxgen.Generate(8), Check(ptxgen.Generate(8), Options{}), res)
	if err != nil || g.Dir != "" || g.Signature != f.Signature {
		t.Errorf("second failure: dir %q signature %q err %v", g.Dir, g.Signature, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".case-*")); len(left) != 0 {
		t.Errorf("temporary directories left: %v", left)
	}
	// A class bisected often enough to one phase is not bisected again;
	// with its signature full, nothing is written.
	class := KindMismatch + ": " + failureClass(KindMismatch, res.Detail)
	rec2 := &recorder{opts: rec.opts, saved: map[string]int{"mismatch in OriCopyProp: wrong values in out": 1}}
	for i := 0; i < trustBisections; i++ {
		rec2.noteCulprit(class, "OriCopyProp")
	}
	h, err := rec2.record(context.Background(), p, rep, res)
	if err != nil || h.Dir != "" || h.Phase != "OriCopyProp" || !strings.HasPrefix(h.Bisect, "not bisected: the 5 earlier failures") {
		t.Errorf("known culprit: %+v %v", h, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("findings directory holds %d entries, want the one saved case", len(entries))
	}
}

func TestConfigsAndMergeKnobs(t *testing.T) {
	got := mergeKnobs([]string{"DisablePhases=OriCopyProp", "LoopUnroll=0"}, []string{"SchedReadAvailTarget=2", "disablephases=OriCommoning+OriBranchOpt"})
	want := []string{"DisablePhases=OriCopyProp+OriCommoning+OriBranchOpt", "LoopUnroll=0", "SchedReadAvailTarget=2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mergeKnobs = %v, want %v", got, want)
	}
	if mergeKnobs(nil, nil) != nil {
		t.Fatal("mergeKnobs of nothing is not nil")
	}
	cs := Configs([]int{0, 3}, 9, 80, false, []string{"LoopUnroll=0"})
	if len(cs) != 2 || cs[0].OptLevel != 0 || cs[1].OptLevel != 3 || cs[1].KnobArg() != "LoopUnroll=0" || cs[0].Random {
		t.Fatalf("Configs without random knobs: %+v", cs)
	}
	cs = Configs([]int{0, 3}, 9, 80, true, nil)
	for _, c := range cs[2:] {
		if !c.Random || len(c.Knobs) == 0 {
			t.Fatalf("random configuration %+v", c)
		}
	}
	if s := (Config{OptLevel: 2, Knobs: []string{"A=1", "B=x y"}}).String(); s != "-O2 -knob 'A=1~B=x y'" {
		t.Fatalf("Config.String = %q", s)
	}
}

func TestKnownCulprit(t *testing.T) {
	r := &recorder{}
	for i := 0; i < trustBisections; i++ {
		if p, _ := r.knownCulprit("c"); p != "" {
			t.Fatalf("after %d bisections: %q", i, p)
		}
		r.noteCulprit("c", "OriCopyProp")
	}
	if p, n := r.knownCulprit("c"); p != "OriCopyProp" || n != trustBisections {
		t.Fatalf("after %d agreeing bisections: %q %d", trustBisections, p, n)
	}
	r.noteCulprit("c", "OriBranchOpt")
	if p, _ := r.knownCulprit("c"); p != "" {
		t.Fatalf("after a disagreeing bisection: %q", p)
	}
}

func TestTimeout(t *testing.T) {
	p := ptxgen.Generate(5)
	rep := Check(p, Options{Configs: []Config{{OptLevel: 3}}, Timeout: time.Nanosecond})
	if len(rep.Results) != 1 || rep.Results[0].Kind != KindTimeout || !strings.HasPrefix(rep.Results[0].Detail, "did not finish within 1ns; the last phase to finish was ") {
		t.Fatalf("results %+v", rep.Results)
	}
	rep = Check(p, Options{Configs: []Config{{OptLevel: 3}}, Timeout: -1})
	if len(rep.Results) != 1 || rep.Results[0].Kind == KindTimeout {
		t.Fatalf("without a bound: %+v", rep.Results)
	}
}

func TestPTXOpcodes(t *testing.T) {
	src := ".visible .entry k(\n\t.param .u64 out\n)\n{\n\t.reg .b32 %r<3>;\n$L_k_1: .branchtargets $L_k_2, $L_k_3;\n\tbrx.idx %r1, $L_k_1;\n$L_k_2:\n\t@!%p1 add.u32 %r1, %r1, 1;\n\t{\n\t.param .b32 cp0;\n\tcall (cr), f, (cp0);\n\t}\n\tadd.u32 %r2, %r1, 2;\n\tret;\n}\n"
	got := PTXOpcodes(src)
	want := map[string]int{"brx.idx": 1, "add.u32": 2, "call": 1, "ret": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PTXOpcodes = %v, want %v", got, want)
	}
}
