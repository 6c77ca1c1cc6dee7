package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"orilab/internal/testenv"
)

// largeCorpus lists the corpus files of at least minBytes, the inputs of
// issue 21's first acceptance line, in a fixed order.
func largeCorpus(tb testing.TB, minBytes int64) []string {
	var files []string
	root := filepath.Join(testenv.Shared(tb), "corpus")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ptx") {
			return err
		}
		if st, err := d.Info(); err == nil && st.Size() >= minBytes {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// BenchmarkCompileCommand runs what `orilab vs-ptxas` times, `orilab
// compile -arch sm_80 -O 3 -v -o FILE.sass`, in this process on every
// corpus file of 20 KB or more that orilab compiles (issue 21's first
// acceptance line; one op compiles them all), with the command's own
// garbage-collector setting. It reports the CPU time per op (cpu-ns/op),
// which a loaded machine distorts less than the wall time. Process
// start-up is not in it. Profile it with
//
//	go test ./cmd/orilab -run '^$' -bench CompileCommand -benchtime 3x -cpuprofile cpu.out
func BenchmarkCompileCommand(b *testing.B) {
	out := filepath.Join(b.TempDir(), "k.sass")
	defer debug.SetGCPercent(debug.SetGCPercent(compileGCPercent))
	compile := func(f string) int {
		return run([]string{"compile", "-arch", "sm_80", "-O", "3", "-v", "-o", out, f}, io.Discard, io.Discard)
	}
	// Files orilab refuses (vs-ptxas leaves them out too) are left out
	// here, once, before the clock starts.
	var files []string
	for _, f := range largeCorpus(b, 20<<10) {
		if code := compile(f); code != exitOK {
			b.Logf("left out %s: orilab compile exits with status %d", f, code)
			continue
		}
		files = append(files, f)
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			if code := compile(f); code != exitOK {
				b.Fatalf("orilab compile %s: exit status %d", f, code)
			}
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
