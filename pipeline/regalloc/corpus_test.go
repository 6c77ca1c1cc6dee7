package regalloc_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/spec"
)

// TestCorpusDifferential uses the simulator as a differential oracle on
// larger kernels than the specs cover: the gpuocelot corpus has no
// expected outputs, but a kernel must compute the same bytes after
// allocation as before it. Each kernel gets a synthetic launch (two CTAs
// of 32 threads, every pointer parameter a 32 KiB buffer of lcg data,
// every 32-bit scalar 7); kernels that fault or do not finish before
// allocation are skipped. By default the test runs six files with some
// of the largest kernels that execute (1,000-1,800 instructions); ORILAB_REGALLOC_CORPUS=all runs every .ptx of the shared
// corpus (about a minute).
func TestCorpusDifferential(t *testing.T) {
	corpus := filepath.Join(testenv.Shared(t), "corpus")
	files := []string{
		"gpuocelot/tests/ptx/parboil/mri-fhd.ptx",
		"gpuocelot/tests/ptx/rodinia/track_ellipse_kernel.ptx",
		"gpuocelot/tests/ptx/rodinia/lud_kernel.ptx",
		"gpuocelot/tests/ptx/rodinia/srad.ptx",
		"gpuocelot/tests/ptx/rodinia/hotspot.ptx",
		"gpuocelot/tests/ptx/rodinia/needle.ptx",
	}
	for i, f := range files {
		files[i] = filepath.Join(corpus, f)
	}
	if os.Getenv("ORILAB_REGALLOC_CORPUS") == "all" {
		files = nil
		filepath.Walk(corpus, func(p string, info os.FileInfo, err error) error {
			if err == nil && filepath.Ext(p) == ".ptx" {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
	}
	ran := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := pipeline.NewSession(file, src, pipeline.Options{Arch: 75}, pipeline.PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err != nil || s.RunTo(lastPreRA) != nil {
			continue // not orilab's PTX dialect; other tests cover compilation
		}
		pre := s.Module()
		for _, f := range pre.Funcs {
			sp := synthSpec(file, f)
			if !f.Entry || sp == nil {
				continue
			}
			want, _, err := pipeline.ExecuteBuffers(pre, sp, pipeline.RunOptions{MaxWarpSteps: 2_000_000})
			if err != nil {
				continue
			}
			for _, maxRegs := range []int{0, 24, 16} {
				res, err := allocate(t, pre, regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: maxRegs})
				if err != nil {
					t.Errorf("%s %s maxr %d: %v", filepath.Base(file), f.Name, maxRegs, err)
					continue
				}
				got, _, err := pipeline.ExecuteBuffers(res.m, sp, pipeline.RunOptions{MaxWarpSteps: 2_000_000})
				if err != nil {
					t.Errorf("%s %s maxr %d: %v", filepath.Base(file), f.Name, maxRegs, err)
					continue
				}
				for i := range want {
					if !bytes.Equal(want[i], got[i]) {
						t.Errorf("%s %s maxr %d: parameter %d differs after allocation", filepath.Base(file), f.Name, maxRegs, i)
						break
					}
				}
				ran++
			}
		}
	}
	t.Logf("%d allocations matched the pre-allocation run", ran)
	if ran < 20 {
		t.Errorf("only %d kernels ran", ran)
	}
}

// synthSpec makes a launch for kernel f, or nil when a parameter is
// neither a pointer nor a 32-bit scalar.
func synthSpec(path string, f *ori.Func) *spec.Spec {
	s := &spec.Spec{Name: f.Name, File: "synthetic", PTXPath: path, Kernel: f.Name,
		Launch: spec.Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, DynamicSharedBytes: 1024}}
	for i, p := range f.Params {
		switch p.Size {
		case 8:
			s.Params = append(s.Params, spec.Param{Name: p.Name, Kind: spec.KindBuffer, Elem: "u32", Count: 8192, Init: fmt.Sprintf("lcg:%d", i+1)})
		case 4:
			s.Params = append(s.Params, spec.Param{Name: p.Name, Kind: spec.KindScalar, Type: "u32", Value: "7"})
		default:
			return nil
		}
	}
	return s
}
