package sched_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"orilab/internal/testenv"
	"orilab/internal/zluda"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// kernel is a runnable spec with its IR right before ScheduleInstructions.
type kernel struct {
	name  string
	spec  *spec.Spec
	preRA *ori.Module // after phase 113, at -O3 for sm_75
}

// preSchedPhase is the last phase before ScheduleInstructions (114).
const preSchedPhase = 113

var corpusOnce struct {
	sync.Mutex
	ks []kernel
}

// corpus returns every spec of testdata/kernels, the sample and the ZLUDA
// corpus that compiles and passes right before scheduling: the baseline
// the scheduled code must still match. It fails when fewer than min
// kernels qualify, so a broken loader cannot make the tests vacuous.
func corpus(t testing.TB, min int) []kernel {
	t.Helper()
	corpusOnce.Lock()
	defer corpusOnce.Unlock()
	if corpusOnce.ks == nil {
		corpusOnce.ks = loadCorpus(t)
	}
	if len(corpusOnce.ks) < min {
		t.Fatalf("only %d kernels pass before scheduling, want at least %d", len(corpusOnce.ks), min)
	}
	return corpusOnce.ks
}

func loadCorpus(t testing.TB) []kernel {
	var specs []*spec.Spec
	cases, err := zluda.Load(testenv.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Skip == "" && c.Spec != nil && !c.Spec.CompileOnly {
			specs = append(specs, c.Spec)
		}
	}
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "*.json"))
	files = append(files, filepath.Join(testenv.RepoRoot(t), "testdata", "sample", "sample.json"))
	for _, f := range files {
		if strings.Contains(f, "barrier_divergent") {
			continue // fails at run time on purpose
		}
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	var out []kernel
	for _, s := range specs {
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		sess, err := pipeline.NewSession(s.PTXPath, src, pipeline.Options{Arch: 75}, pipeline.PhaseOptions{OptLevel: 3})
		if err != nil {
			continue // not lowered (tensor cores); the pipeline's own tests track these
		}
		if err := sess.RunTo(preSchedPhase); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		rep, err := pipeline.Execute(sess.Module(), s, pipeline.RunOptions{MaxWarpSteps: 5_000_000})
		if err != nil || !rep.Pass {
			continue
		}
		out = append(out, kernel{name: s.Name, spec: s, preRA: sess.Module()})
	}
	return out
}

// run executes m on the kernel's spec and fails the test on a mismatch.
func run(t *testing.T, k kernel, m *ori.Module, what string) {
	t.Helper()
	rep, err := pipeline.Execute(m, k.spec, pipeline.RunOptions{MaxWarpSteps: 5_000_000})
	switch {
	case err != nil:
		t.Errorf("%s %s: %v", k.name, what, err)
	case !rep.Pass:
		t.Errorf("%s %s: %s", k.name, what, strings.TrimSpace(spec.FormatResults(rep.Results)))
	}
}

// execute runs m on the kernel's spec and reports whether it passed.
func execute(k kernel, m *ori.Module) (bool, error) {
	rep, err := pipeline.Execute(m, k.spec, pipeline.RunOptions{MaxWarpSteps: 5_000_000})
	if err != nil {
		return false, err
	}
	return rep.Pass, nil
}
