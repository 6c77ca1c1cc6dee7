package nvtools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tool names.
const (
	Ptxas     = "ptxas"
	Nvdisasm  = "nvdisasm"
	Cuobjdump = "cuobjdump"
)

// DefaultDir is where `.ci/run` unpacks the wheels:
// $HOME/.cache/orilab/nvtools (the tools are in nvidia/cu13/bin below it).
func DefaultDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "orilab", "nvtools")
}

// binDirs lists the directories searched before PATH, most specific first.
func binDirs() []string {
	var dirs []string
	add := func(root string) {
		if root == "" {
			return
		}
		dirs = append(dirs, root, filepath.Join(root, "nvidia", "cu13", "bin"), filepath.Join(root, "bin"))
	}
	add(os.Getenv("ORILAB_NVTOOLS"))
	add(DefaultDir())
	return dirs
}

// Find returns the path of tool, looking at its own environment variable
// (ORILAB_PTXAS, ...), then ORILAB_NVTOOLS, then DefaultDir, then PATH.
func Find(tool string) (string, error) {
	env := "ORILAB_" + strings.ToUpper(tool)
	if p := os.Getenv(env); p != "" {
		if isExec(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s=%s is not an executable file", env, p)
	}
	for _, d := range binDirs() {
		p := filepath.Join(d, tool)
		if isExec(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(tool); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found: set %s, put it on PATH, or run .ci/run once to install NVIDIA's wheels into %s", tool, env, DefaultDir())
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0
}

// Required reports whether a missing tool must fail a test rather than
// skip it: in CI (CI=true) and when ORILAB_REQUIRE_NVTOOLS is set.
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("ORILAB_REQUIRE_NVTOOLS") != ""
}

// Require returns the tool's path for a test. A missing tool skips the
// test with the reason, or fails it where Required says so.
func Require(tb testing.TB, tool string) string {
	tb.Helper()
	p, err := Find(tool)
	if err == nil {
		return p
	}
	if Required() {
		tb.Fatalf("%v (required in CI)", err)
	}
	tb.Skipf("skipping: %v", err)
	return ""
}
