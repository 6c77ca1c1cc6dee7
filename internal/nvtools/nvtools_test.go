package nvtools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindPrefersTheToolsOwnVariable(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "myptxas")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ORILAB_PTXAS", fake)
	got, err := Find(Ptxas)
	if err != nil || got != fake {
		t.Fatalf("Find = %q, %v; want %q", got, err, fake)
	}
	t.Setenv("ORILAB_PTXAS", filepath.Join(dir, "missing"))
	if _, err := Find(Ptxas); err == nil || !strings.Contains(err.Error(), "is not an executable file") {
		t.Fatalf("Find with a bad ORILAB_PTXAS: err = %v", err)
	}
}

func TestFindLooksInTheWheelLayout(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "nvidia", "cu13", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(bin, Nvdisasm)
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ORILAB_NVDISASM", "")
	t.Setenv("ORILAB_NVTOOLS", root)
	got, err := Find(Nvdisasm)
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
}

func TestFindNamesTheWayOut(t *testing.T) {
	t.Setenv("ORILAB_CUOBJDUMP", "")
	t.Setenv("ORILAB_NVTOOLS", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	_, err := Find(Cuobjdump)
	if err == nil || !strings.Contains(err.Error(), "cuobjdump not found: set ORILAB_CUOBJDUMP") {
		t.Fatalf("err = %v", err)
	}
}
