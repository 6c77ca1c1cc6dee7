package regalloc_test

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
)

// largestKernel is the biggest function of the shared corpus after
// lowering and optimization: gpuocelot's Monte Carlo photon transport
// main loop, 2,361 instructions and about 80 registers at -O3 (found by
// allocating every function of corpus/ZLUDA and corpus/gpuocelot).
const (
	largestFile   = "corpus/gpuocelot/tests/ptx/unstructured/mcx_core.ptx"
	largestKernel = "_Z13mcx_main_loopiiPhPfS0_PjP6float4S3_S3_S0_S1_"
)

func largest(b *testing.B) *ori.Func {
	path := filepath.Join(testenv.Shared(b), largestFile)
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f := preRA(b, path, src, 75, 3).Func(largestKernel)
	if f == nil {
		b.Fatalf("%s: no function %s", path, largestKernel)
	}
	return f
}

// BenchmarkAllocateLargest allocates the largest corpus kernel without a
// register limit (no spills) and with --maxrregcount 24 (heavy spilling).
func BenchmarkAllocateLargest(b *testing.B) {
	f := largest(b)
	for _, maxRegs := range []int{0, 24} {
		name := "maxr0"
		if maxRegs != 0 {
			name = "maxr24"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportMetric(float64(f.NumInsts()), "insts")
			for i := 0; i < b.N; i++ {
				c := f.Clone()
				if _, err := regalloc.Allocate(c, regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: maxRegs}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
