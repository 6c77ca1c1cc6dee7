package main

import (
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
