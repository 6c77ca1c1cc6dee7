package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// Stdout is where Write("-") goes; tests replace it.
var Stdout io.Writer = os.Stdout

// maxLinks bounds the symbolic links followed, as the kernel does (40), so
// a loop of links is an error rather than a hang.
const maxLinks = 40

// Write writes data to path by the rules of the package comment. Errors
// name the path and what it is.
func Write(path string, data []byte) error { return write(path, payload{b: data}, true) }

// WriteUnsynced is Write without the two fsyncs (of the new file, and of
// its directory after the rename): a reader still never sees a partial
// file and a failed write still leaves the old contents, but a crash of
// the whole system soon after may lose the new contents. It is for
// output that running the command again makes anew: orilab compile's.
//
// Decision: compiler output is not synced, as ptxas 13.0.88 does not
// sync its own (strace: open with O_TRUNC, write, close; no fsync), nor
// do gcc or go build. The two fsyncs cost each orilab compile of a
// corpus file a few milliseconds of wall time on this machine's ext4
// disk, more than the whole compilation of most small files, and 2% of
// the CPU time over the files of 2 to 20 KB.
func WriteUnsynced(path string, data []byte) error {
	return write(path, payload{b: data}, false)
}

// WriteStringUnsynced is WriteUnsynced for text, written without copying
// it into a byte slice first (the SASS of a large module is hundreds of
// kilobytes of fresh memory).
func WriteStringUnsynced(path, text string) error {
	return write(path, payload{s: text}, false)
}

// payload is what is written: b, or s when b is nil.
type payload struct {
	b []byte
	s string
}

func (p payload) writeTo(w io.Writer) (int, error) {
	if p.b != nil {
		return w.Write(p.b)
	}
	return io.WriteString(w, p.s)
}

// fsync syncs a file; tests count the calls.
var fsync = (*os.File).Sync

func write(path string, data payload, sync bool) error {
	if path == "-" {
		_, err := data.writeTo(Stdout)
		return err
	}
	target, st, err := resolve(path)
	if err != nil {
		return err
	}
	switch {
	case st == nil || st.Mode().IsRegular():
		return replace(target, st, data, sync)
	case st.IsDir():
		return fmt.Errorf("%s is a directory", describe(path, target))
	case st.Mode()&fs.ModeSocket != 0:
		return writeSocket(target, data)
	default:
		// Devices and FIFOs: written in place, never replaced.
		return writeInPlace(target, data)
	}
}

// describe names the path the user gave, and the link target it led to.
func describe(path, target string) string {
	if path == target {
		return path
	}
	return fmt.Sprintf("%s (a link to %s)", path, target)
}

// resolve follows symbolic links from path and returns the final path and
// its Lstat, or a nil FileInfo when the final path does not exist yet.
func resolve(path string) (string, fs.FileInfo, error) {
	cur := path
	for i := 0; ; i++ {
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return cur, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return cur, st, nil
		}
		if i == maxLinks {
			return "", nil, fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		dest, err := os.Readlink(cur)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(cur), dest)
		}
		cur = dest
	}
}

// replace writes a regular file atomically. st is the file it replaces,
// or nil for a new file. sync makes the new contents durable before the
// rename, and the rename after it.
func replace(path string, st fs.FileInfo, data payload, sync bool) (err error) {
	mode := os.FileMode(0o644)
	if st != nil {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = data.writeTo(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if sync {
		if err = fsync(tmp); err != nil {
			return err
		}
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename is durable only once the directory is synced; a failure
	// here (some file systems refuse to sync a directory) loses nothing
	// that was promised, so it is ignored.
	if !sync {
		return nil
	}
	if d, derr := os.Open(dir); derr == nil {
		fsync(d)
		d.Close()
	}
	return nil
}

// unwrapPath drops the temporary file's name from an error, so the message
// names the user's path rather than ".out.tmp1234".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeInPlace writes a device or FIFO without creating, truncating or
// renaming anything.
func writeInPlace(path string, data payload) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := data.writeTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSocket sends data to a Unix stream socket (open(2) cannot open
// one).
func writeSocket(path string, data payload) error {
	c, err := net.Dial("unix", path)
	if err != nil {
		return err
	}
	if _, err := data.writeTo(c); err != nil {
		c.Close()
		return err
	}
	return c.Close()
}
