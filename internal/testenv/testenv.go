package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RepoRoot returns the directory that holds go.mod, walking up from the
// test's working directory.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Shared returns the shared directory beside the checkout (../shared from
// the repository root), or $ORILAB_SHARED when set. A missing directory
// fails the test: the corpus tests are part of the contract, and a silent
// skip would hide that they did not run.
func Shared(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("ORILAB_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(tb), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		tb.Fatalf("testenv: %s/corpus not found; check out the shared directory beside the repository or set ORILAB_SHARED", dir)
	}
	return dir
}

// Clang returns the path of clang-19. Without it the test is skipped, or
// fails when ORILAB_REQUIRE_CLANG is set (CI sets it after installing
// clang). The variable is read before the lookup, every time, so that go
// test's cache keys a skipped result on it and does not replay a skip in a
// run that requires clang.
func Clang(tb testing.TB) string {
	tb.Helper()
	require := os.Getenv("ORILAB_REQUIRE_CLANG") != ""
	path, err := exec.LookPath("clang-19")
	if err != nil {
		if require {
			tb.Fatal("clang-19 not found but ORILAB_REQUIRE_CLANG is set")
		}
		tb.Skip("clang-19 not found: install clang-19 (apt-get install clang-19 llvm-19); .ci/run installs it")
	}
	return path
}
