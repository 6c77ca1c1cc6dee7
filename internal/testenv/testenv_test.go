package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestClangRequired runs itself without clang-19 on the PATH: Clang must
// skip, and fail once ORILAB_REQUIRE_CLANG is set (a CI run must not pass
// with the clang tests skipped).
func TestClangRequired(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Clang(t)
		return
	}
	for _, tc := range []struct {
		require string
		fail    bool
		want    string
	}{
		{"", false, "--- SKIP: TestClangRequired"},
		{"1", true, "clang-19 not found but ORILAB_REQUIRE_CLANG is set"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClangRequired$", "-test.v")
		cmd.Env = []string{"TESTENV_CHILD=1", "PATH=" + t.TempDir(), "ORILAB_REQUIRE_CLANG=" + tc.require}
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fail || !strings.Contains(string(out), tc.want) {
			t.Errorf("ORILAB_REQUIRE_CLANG=%q without clang: err %v, output:\n%s\nwant failure %v and %q", tc.require, err, out, tc.fail, tc.want)
		}
	}
}
