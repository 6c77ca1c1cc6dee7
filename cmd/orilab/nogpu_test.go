//go:build nogpu && !cgo

package main

import (
	"debug/elf"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"orilab/internal/testenv"
)

// TestNoGPUBuild: built with -tags nogpu and CGO_ENABLED=0 (.ci/run
// runs it so), orilab is a static executable (this test's binary holds
// the whole command) and gpu run says how it was built.
func TestNoGPUBuild(t *testing.T) {
	if runtime.GOOS == "linux" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s has a program interpreter: dynamically linked", exe)
			}
		}
	}
	s := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "iadd.json")
	code, out, errs := runCLI(t, "gpu", "run", s)
	want := "orilab gpu run: no CUDA driver: this orilab was built with -tags nogpu"
	if code != 2 || out != "" || !strings.HasPrefix(errs, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and a message starting %q", code, out, errs, want)
	}
}
