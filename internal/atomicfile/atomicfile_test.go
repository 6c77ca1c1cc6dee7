package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "new" {
		t.Fatalf("content = %q, want %q", got, "new")
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want the replaced file's 0600", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only out.txt", len(ents))
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("x")); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

// TestWriteUnsyncedSyncsNothing checks that WriteUnsynced (and
// WriteStringUnsynced) replaces a file as Write does (contents, the old
// permission bits, no temporary file left) without an fsync, and that
// Write syncs the file and its directory.
func TestWriteUnsyncedSyncsNothing(t *testing.T) {
	n := 0
	defer func(f func(*os.File) error) { fsync = f }(fsync)
	fsync = func(f *os.File) error { n++; return f.Sync() }
	dir := t.TempDir()
	p := filepath.Join(dir, "out.sass")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteUnsynced(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	ents, _ := os.ReadDir(dir)
	if string(got) != "new" || st.Mode().Perm() != 0o600 || len(ents) != 1 || n != 0 {
		t.Errorf("WriteUnsynced: content %q, mode %v, %d directory entries, %d fsyncs; want \"new\", 0600, 1, 0", got, st.Mode().Perm(), len(ents), n)
	}
	if err := WriteStringUnsynced(p, "text"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "text" || n != 0 {
		t.Errorf("WriteStringUnsynced: content %q, %d fsyncs; want \"text\", 0", got, n)
	}
	if err := Write(p, []byte("newer")); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("Write made %d fsyncs, want 2 (the file and its directory)", n)
	}
}
