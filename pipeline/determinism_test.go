package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
)

// TestCompileIsDeterministic compiles kernels several times and requires
// the same IR every time: a pass that iterates a map where the order
// matters makes the output differ from run to run (ConvertToUniformReg
// did, on rodinia/hotspot.ptx: whether one constant went to a uniform
// register depended on the map order), and then bisection, golden tests
// and bug reports are not reproducible. Go randomizes map iteration per
// loop, so a few compilations expose such a pass with high probability.
func TestCompileIsDeterministic(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{
		filepath.Join(shared, "corpus/gpuocelot/tests/ptx/rodinia/hotspot.ptx"),
		filepath.Join(shared, "corpus/gpuocelot/tests/ptx/rodinia/needle_kernel.ptx"),
		filepath.Join(shared, "corpus/gpuocelot/tests/ptx/sdk2.2/bodysystemcuda.ptx"),
		"../testdata/sample/sample.ptx",
	}
	runs := 4
	if testing.Short() {
		runs = 2
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var first string
		for i := 0; i < runs; i++ {
			res, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			got := res.Final.String()
			if i == 0 {
				first = got
			} else if got != first {
				t.Fatalf("%s: compilation %d differs from the first", filepath.Base(file), i+1)
			}
		}
	}
}
