package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// `orilab compile FILE -o /dev/null` as root must leave the device a
// device (issue 17: the atomic rename used to replace it with a regular
// file). The test makes a private node with /dev/null's numbers.
func TestCompileOutputToDeviceNode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root; TestCompileOutputToFIFO covers the in-place path")
	}
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatalf("mknod: %v", err)
	}
	if code, out, errs := runCLI(t, "compile", p, "-o", null); code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	st, err := os.Lstat(null)
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s has mode %v after the compile (err %v), want a character device", null, st.Mode(), err)
	}
}

func TestCompileOutputToFIFO(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	fifo := filepath.Join(dir, "sass.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if code, _, errs := runCLI(t, "compile", p, "-o", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if s := <-got; !strings.Contains(s, ".text.k:") || !strings.Contains(s, "EXIT ;") {
		t.Fatalf("the FIFO's reader got:\n%s", s)
	}
}

func TestCompileOutputDashAndDirectory(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	code, out, errs := runCLI(t, "compile", "--emit", "ptx", p, "-o", "-")
	if code != 0 || !strings.Contains(out, "\tmov.u32 %r1, %tid.x;\n") {
		t.Fatalf("-o -: exit %d, stdout %q, stderr %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Fatal("-o - created a file named -")
	}
	code, _, errs = runCLI(t, "compile", p, "-o", dir)
	if want := "orilab compile: writing " + dir + ": " + dir + " is a directory\n"; code != 2 || errs != want {
		t.Fatalf("-o DIR: exit %d, stderr %q, want %q", code, errs, want)
	}
}
