package pipeline

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/internal/zluda"
	"orilab/pipeline/spec"
)

// zludaKnownFailures lists the ZLUDA conformance cases that do not pass,
// with the reason. Every other case must reproduce the real GPU's output
// bit for bit. The test fails when a listed case starts passing, so the
// list only shrinks.
var zludaKnownFailures = map[string]string{}

// TestZLUDAConformance runs every ZLUDA expectation (outputs recorded on
// real NVIDIA GPUs) through the compiler and the simulator.
func TestZLUDAConformance(t *testing.T) {
	cases, err := zluda.Load(testenv.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	var pass, total int
	var failed []string
	for _, c := range cases {
		if c.Skip != "" || c.Spec == nil || c.Spec.CompileOnly {
			continue
		}
		total++
		ok, why := runCase(c.Spec)
		reason, known := zludaKnownFailures[c.Name]
		switch {
		case ok && known:
			t.Errorf("%s passes now; remove it from zludaKnownFailures (was: %s)", c.Name, reason)
		case !ok && !known:
			t.Errorf("%s: %s", c.Name, why)
			failed = append(failed, c.Name)
		}
		if ok {
			pass++
		}
	}
	t.Logf("ZLUDA conformance: %d of %d cases pass bit-exactly (%.1f%%)", pass, total, 100*float64(pass)/float64(total))
	if os.Getenv("ORILAB_ZLUDA_REPORT") != "" {
		fmt.Printf("failed: %s\n", strings.Join(failed, " "))
	}
}

func runCase(s *spec.Spec) (bool, string) {
	rep, err := RunSpec(s, RunOptions{MaxWarpSteps: 5_000_000})
	if err != nil {
		return false, firstLine(err.Error())
	}
	if !rep.Pass {
		return false, strings.TrimSpace(spec.FormatResults(rep.Results))
	}
	return true, ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestZLUDATensorCoresEveryLevel runs ZLUDA's tensor-core expectations
// (ldmatrix and mma.sync, recorded on real GPUs) at every -O level:
// TestZLUDAConformance runs them at -O0 only.
func TestZLUDATensorCoresEveryLevel(t *testing.T) {
	cases, err := zluda.Load(testenv.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if !strings.HasPrefix(c.Name, "mma_") && !strings.HasPrefix(c.Name, "ldmatrix") {
			continue
		}
		if c.Spec == nil || c.Skip != "" {
			t.Fatalf("%s has no runnable spec: %s", c.Name, c.Skip)
		}
		n++
		for level := 0; level <= 3; level++ {
			rep, err := RunSpec(c.Spec, RunOptions{Request: Request{OptLevel: level}})
			switch {
			case err != nil:
				t.Errorf("%s -O%d: %v", c.Name, level, firstLine(err.Error()))
			case !rep.Pass:
				t.Errorf("%s -O%d:\n%s", c.Name, level, spec.FormatResults(rep.Results))
			}
		}
	}
	if n != 6 {
		t.Errorf("found %d tensor-core cases in the ZLUDA corpus, want 6", n)
	}
}
