package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileCheck: orilab compile is a release compilation (no
// verifiers) unless --check asks for them, and the output is the same
// either way; --stat implies --check, so the phase statistics show the
// validation phases run.
func TestCompileCheck(t *testing.T) {
	p := writeFile(t, t.TempDir(), "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	code, plain, errs := runCLI(t, "compile", "-v", p)
	if code != 0 {
		t.Fatalf("compile: exit %d, stderr %q", code, errs)
	}
	code, checked, errs2 := runCLI(t, "compile", "--check", "-v", p)
	if code != 0 {
		t.Fatalf("compile --check: exit %d, stderr %q", code, errs2)
	}
	if plain == "" || plain != checked || errs != errs2 {
		t.Errorf("release and checked compilations differ:\n%s\n---\n%s\n--- stderr %q / %q", plain, checked, errs, errs2)
	}
	code, _, stat := runCLI(t, "compile", "--stat=phase-wise", p)
	if code != 0 || !strings.Contains(stat, "  OriSanitize  ::  [Total ") || !strings.Contains(stat, "  FinalInspectionPass  ::  [Total ") {
		t.Errorf("--stat=phase-wise: exit %d, the validation phases did not run:\n%s", code, stat)
	}
}

// TestCompileThreads: --threads 1 compiles the kernels of a module one
// after another, the default several at once; the SASS, the -v lines and
// the cubin are the same bytes. A negative count is refused.
func TestCompileThreads(t *testing.T) {
	src := "../../testdata/opt/loop_unroll.ptx" // five kernels
	dir := t.TempDir()
	var outs, errs [2]string
	var cubins [2][]byte
	for i, threads := range []string{"1", "4"} {
		code, out, stderr := runCLI(t, "compile", "-arch", "sm_80", "-v", "--threads", threads, src)
		if code != 0 {
			t.Fatalf("--threads %s: exit %d, stderr %q", threads, code, stderr)
		}
		outs[i], errs[i] = out, stderr
		cub := filepath.Join(dir, "k"+threads+".cubin")
		if code, _, stderr := runCLI(t, "compile", "-arch", "sm_80", "--threads", threads, "-o", cub, src); code != 0 {
			t.Fatalf("--threads %s -o cubin: exit %d, stderr %q", threads, code, stderr)
		}
		b, err := os.ReadFile(cub)
		if err != nil {
			t.Fatal(err)
		}
		cubins[i] = b
	}
	if outs[0] == "" || outs[0] != outs[1] || errs[0] != errs[1] || !bytes.Equal(cubins[0], cubins[1]) {
		t.Errorf("--threads 1 and --threads 4 differ:\n%s\n---\n%s\n--- stderr %q / %q", outs[0], outs[1], errs[0], errs[1])
	}
	code, _, stderr := runCLI(t, "compile", "--threads", "-1", src)
	if want := "orilab compile: --threads -1: want 0 (one per CPU) or more\n"; code != 2 || stderr != want {
		t.Errorf("--threads -1: exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
}
