package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"orilab/internal/testenv"
)

// largeCorpusFiles are the corpus files issue 21 measured orilab slowest
// on against ptxas, and the three largest corpus files (mcx_core,
// Mandelbrot_sm13, MonteCarlo_SM13): the compile-speed benchmark's inputs.
var largeCorpusFiles = []string{
	"unstructured/mcx_core.ptx",
	"unstructured/Mandelbrot_sm13.ptx",
	"sdk2.2/MonteCarlo_SM13.ptx",
	"sdk2.2/quasirandomGenerator_SM13.ptx",
	"sdk2.2/dxtc.ptx",
	"rodinia/hwt.ptx",
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompileLarge compiles the large corpus files at -O3, without
// snapshots (the plain compile path) and with them (what orilab compile
// does). Besides the wall time it reports the process's CPU time per
// compilation (cpu-ns/op, garbage collection included), which a loaded
// machine distorts less. Profile one file with, e.g.,
//
//	go test ./pipeline -run '^$' -bench 'CompileLarge/hwt/plain' -cpuprofile cpu.out
func BenchmarkCompileLarge(b *testing.B) {
	shared := testenv.Shared(b)
	for _, rel := range largeCorpusFiles {
		file := filepath.Join(shared, "corpus/gpuocelot/tests/ptx", rel)
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(rel), ".ptx")
		for _, snap := range []bool{false, true} {
			mode := "plain"
			if snap {
				mode = "snapshots"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					if _, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: !snap}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkCompileCorpus20K compiles, per op, every corpus file of 20 KB
// or more at -O3 as orilab compile does (no snapshots, a release
// compilation): the files issue 21's first acceptance line is about. Profile the whole set with
//
//	go test ./pipeline -run '^$' -bench CompileCorpus20K -benchtime 3x -cpuprofile cpu.out
func BenchmarkCompileCorpus20K(b *testing.B) {
	inputs := corpusFiles(b, 20<<10)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			// Files orilab refuses (or ptxas does) fail the same way
			// every time; only the time matters here.
			_, _ = CompileWith(in.file, in.src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Release: true})
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(inputs)), "files")
}

// BenchmarkCompileFile compiles the files named by $ORILAB_BENCH_FILES
// (space-separated paths) per op at -O3 as orilab compile does (no
// snapshots, a release compilation); without it the benchmark is skipped.
// It is how one slow file is profiled in isolation:
//
//	ORILAB_BENCH_FILES=F.ptx go test ./pipeline -run '^$' -bench CompileFile -cpuprofile cpu.out
func BenchmarkCompileFile(b *testing.B) {
	files := strings.Fields(os.Getenv("ORILAB_BENCH_FILES"))
	if len(files) == 0 {
		b.Skip("set ORILAB_BENCH_FILES to the PTX files to compile")
	}
	srcs := make([][]byte, len(files))
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs[i] = src
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for j, f := range files {
			if _, err := CompileWith(f, srcs[j], Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Release: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkFrontCorpus parses, checks and lowers (ptx.Parse, then
// NewSessionFrom at -O3 as orilab compile starts a compilation, which
// runs no phase) every corpus file of 2 KB or more, per op: the front
// end's share of a compile, for profiling it apart from the phases
//
//	go test ./pipeline -run '^$' -bench FrontCorpus -benchmem -cpuprofile cpu.out
func BenchmarkFrontCorpus(b *testing.B) {
	inputs := corpusFiles(b, 2<<10)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, in := range inputs {
			// Files the front end refuses fail the same way every time.
			_, _ = NewSession(in.file, in.src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Release: true})
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(inputs)), "files")
}

// benchInput is one corpus file, read before the timer starts.
type benchInput struct {
	file string
	src  []byte
}

// corpusFiles reads every corpus file of at least minSize bytes.
func corpusFiles(b *testing.B, minSize int64) []benchInput {
	var inputs []benchInput
	err := filepath.WalkDir(filepath.Join(testenv.Shared(b), "corpus"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ptx") {
			return err
		}
		info, err := d.Info()
		if err != nil || info.Size() < minSize {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		inputs = append(inputs, benchInput{p, src})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return inputs
}
