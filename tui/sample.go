package tui

import (
	_ "embed"
	"os"
	"path/filepath"

	"orilab/internal/atomicfile"
)

// The built-in sample kernel and its spec, copied from
// testdata/sample (sample.cu says how the PTX was made). The TUI opens them
// when no file is given, from any directory.
var (
	//go:embed sample/sample.ptx
	samplePTX []byte
	//go:embed sample/sample.json
	sampleJSON []byte
)

// LoadSample opens the built-in sample. The spec reader wants its PTX on
// disk, so both files are written to a fresh temporary directory; the
// returned cleanup removes it.
func LoadSample(optLevel int) (*Workbench, func(), error) {
	dir, err := os.MkdirTemp("", "orilab-sample-")
	if err != nil {
		return nil, func() {}, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	ptxPath := filepath.Join(dir, "sample.ptx")
	specPath := filepath.Join(dir, "sample.json")
	if err := atomicfile.Write(ptxPath, samplePTX); err != nil {
		cleanup()
		return nil, func() {}, err
	}
	if err := atomicfile.Write(specPath, sampleJSON); err != nil {
		cleanup()
		return nil, func() {}, err
	}
	w, err := Load(specPath, sampleJSON, optLevel)
	if err != nil {
		cleanup()
		return nil, func() {}, err
	}
	w.File = "sample.ptx (built-in)"
	// The temporary copy is gone once the workbench quits: replay
	// commands name the repository's copy (run them from its root).
	w.SpecName = filepath.Join("testdata", "sample", "sample.json")
	return w, cleanup, nil
}

func dirOf(path string) string { return filepath.Dir(path) }

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
