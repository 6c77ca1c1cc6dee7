package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/spec"
)

// kernelErrors lists the testdata/kernels specs that are meant to fail at
// run time, with the text the error must contain.
var kernelErrors = map[string]string{
	"barrier_divergent": "instruction #",
}

// TestKernelSpecs runs every spec under testdata/kernels: each must pass,
// or fail with the error listed in kernelErrors.
func TestKernelSpecs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "*.json"))
	if len(files) == 0 {
		t.Fatal("no specs under testdata/kernels")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			s, err := spec.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := RunSpec(s, RunOptions{})
			want, failing := kernelErrors[name]
			switch {
			case failing && err == nil:
				t.Fatalf("ran without the expected error %q", want)
			case failing && !strings.Contains(err.Error(), want):
				t.Fatalf("error %q does not contain %q", err, want)
			case failing:
			case err != nil:
				t.Fatal(err)
			case !rep.Pass:
				t.Fatalf("mismatch:\n%s", spec.FormatResults(rep.Results))
			}
		})
	}
}

// TestBarrierInDivergentCode pins the whole message for the divergent
// barrier kernel.
func TestBarrierInDivergentCode(t *testing.T) {
	s, err := spec.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "barrier_divergent.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunSpec(s, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "barrier 0 executed in divergent code: threads 0-15 of warp 0 wait at #") || !strings.Contains(err.Error(), "while threads 16-31 wait at #") {
		t.Fatalf("got %v", err)
	}
}
