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
