package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/opt"
)

// TestSinkIncrementalAnalysis compiles kernels where code sinking moves
// many instructions and checks, after every move, the code-motion
// analysis that sinking updates in place against one built from scratch
// (any difference panics inside the phase and fails the compile).
func TestSinkIncrementalAnalysis(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{"sdk2.2/dxtc.ptx"}
	if !testing.Short() {
		files = append(files, "unstructured/mcx_core.ptx", "rodinia/hwt.ptx")
	}
	checked, restore := opt.CheckSinkAnalysisForTest()
	defer restore()
	for _, rel := range files {
		file := filepath.Join(shared, "corpus/gpuocelot/tests/ptx", rel)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		before := checked()
		if _, err := CompileWith(file, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true}); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		t.Logf("%s: %d moves checked", rel, checked()-before)
	}
}
