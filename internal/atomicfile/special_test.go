package atomicfile

import (
	"bytes"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteDash(t *testing.T) {
	var buf bytes.Buffer
	old := Stdout
	Stdout = &buf
	defer func() { Stdout = old }()
	if err := Write("-", []byte("sass\n")); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "sass\n" {
		t.Fatalf("stdout got %q", buf.String())
	}
}

func TestWriteFIFOWithReader(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := Write(p, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("reader got %q", s)
	}
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("after the write %s is %v (err %v), want a FIFO still", p, st.Mode(), err)
	}
	onlyEntries(t, dir, "pipe")
}

func TestWriteSymlinkToRegularFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.sass")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sass")
	if err := os.Symlink("real.sass", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if dest, err := os.Readlink(link); err != nil || dest != "real.sass" {
		t.Fatalf("the link became %q (err %v), want it kept pointing at real.sass", dest, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q, want %q", b, "new")
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want the original 0640", st.Mode().Perm())
	}
	onlyEntries(t, dir, "link.sass", "real.sass")
}

func TestWriteSymlinkToMissingFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out")
	if err := os.Symlink(filepath.Join("sub", "made.sass"), link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("fresh")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(sub, "made.sass")); err != nil || string(b) != "fresh" {
		t.Fatalf("target holds %q (err %v)", b, err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
}

func TestWriteSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	err := Write(a, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteDirectoryIsAnError(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, []byte("x"))
	if err == nil || err.Error() != dir+" is a directory" {
		t.Fatalf("err = %v", err)
	}
	link := filepath.Join(t.TempDir(), "l")
	os.Symlink(dir, link)
	err = Write(link, []byte("x"))
	if want := link + " (a link to " + dir + ") is a directory"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// A directory the writer cannot create files in: the error names the
// destination, and nothing is left behind. Root ignores permission bits,
// so as root the directory is one in /proc, where nobody can create files.
func TestWriteReadOnlyDirectory(t *testing.T) {
	var dir string
	if os.Geteuid() == 0 {
		dir = "/proc/self"
	} else {
		dir = t.TempDir()
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o700)
	}
	p := filepath.Join(dir, "orilab-out.sass")
	err := Write(p, []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "cannot create "+p+": ") {
		t.Fatalf("err = %v, want 'cannot create %s: ...'", err, p)
	}
	if _, err := os.Lstat(p); err == nil {
		t.Fatal("the destination exists after a failed write")
	}
	if os.Geteuid() != 0 {
		onlyEntries(t, dir)
	}
}

// As root (containers, CI), `-o /dev/null` must leave the device a device.
// The test makes its own node with the numbers of /dev/null, never
// touching the real one.
func TestWriteCharacterDeviceAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root; the FIFO test covers the in-place write path")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(mkdev(1, 3))); err != nil {
		t.Fatalf("mknod: %v", err)
	}
	if err := Write(p, []byte("SASS that nobody keeps")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("after the write %s has mode %v (err %v), want a character device", p, st.Mode(), err)
	}
	onlyEntries(t, dir, "null")
}

func TestWriteUnixSocket(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Skipf("listen: %v", err)
	}
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(c)
		c.Close()
		got <- string(b)
	}()
	if err := Write(p, []byte("over the socket")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "over the socket" {
		t.Fatalf("listener got %q", s)
	}
}

// mkdev packs a Linux device number.
func mkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor&0xff) | uint64(minor&^0xff)<<12
}

func onlyEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s holds %v, want %v (a temporary file left behind?)", dir, got, want)
	}
}
