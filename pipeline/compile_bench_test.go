package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
)

// largeCorpusFiles are the corpus files issue 21 measured orilab slowest
// on against ptxas: the compile-speed benchmark's inputs.
var largeCorpusFiles = []string{
	"unstructured/mcx_core.ptx",
	"sdk2.2/MonteCarlo_SM13.ptx",
	"sdk2.2/quasirandomGenerator_SM13.ptx",
	"sdk2.2/dxtc.ptx",
	"rodinia/hwt.ptx",
}

// BenchmarkCompileLarge compiles the large corpus files at -O3, without
// snapshots (the plain compile path) and with them (what orilab compile
// records for --stat and --trace). Profile one file with, e.g.,
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
				for i := 0; i < b.N; i++ {
					if _, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: !snap}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
