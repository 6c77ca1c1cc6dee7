package cuda

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoadWithoutDriver: a missing library and a library without the
// driver's entry points are both ErrNoDriver, with a message naming the
// file and, for the second, the missing symbol.
func TestLoadWithoutDriver(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libcuda.so.1")
	t.Setenv("ORILAB_LIBCUDA", missing)
	_, err := Load()
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "cannot open "+missing) {
		t.Errorf("Load with %s: %v", missing, err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	t.Setenv("ORILAB_LIBCUDA", "libc.so.6")
	_, err = Load()
	if want := "no CUDA driver: libc.so.6 has no cuInit"; !errors.Is(err, ErrNoDriver) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load with libc: %v, want an error starting %q", err, want)
	}
}
