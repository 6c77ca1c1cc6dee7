package clipboard

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fakeXclip puts an xclip on a fresh $PATH that prints "from xclip" for
// -out and stores its input in dir/in otherwise.
func fakeXclip(t *testing.T) string {
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = -out ]; then printf 'from xclip'; else /bin/cat > " + filepath.Join(dir, "in") + "; fi\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	once, found, Unsupported = sync.Once{}, nil, false
	return dir
}

// TestLookupIsLazy: the helper is found on the $PATH of the first use,
// set after the package was initialized.
func TestLookupIsLazy(t *testing.T) {
	dir := fakeXclip(t)
	if err := WriteAll("to xclip"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "in")); err != nil || string(b) != "to xclip" {
		t.Errorf("xclip read %q (%v); want %q", b, err, "to xclip")
	}
	got, err := ReadAll()
	if err != nil || got != "from xclip" {
		t.Errorf("ReadAll = %q, %v; want %q", got, err, "from xclip")
	}
	if Unsupported {
		t.Error("Unsupported set with xclip on $PATH")
	}
}

// TestNoHelper: an empty $PATH gives the error and sets Unsupported.
func TestNoHelper(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("WAYLAND_DISPLAY", "")
	once, found, Unsupported = sync.Once{}, nil, false
	if _, err := ReadAll(); err != errMissing {
		t.Errorf("ReadAll error %v; want %v", err, errMissing)
	}
	if !Unsupported {
		t.Error("Unsupported not set")
	}
}
