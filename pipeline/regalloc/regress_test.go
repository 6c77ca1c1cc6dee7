package regalloc_test

import (
	"path/filepath"
	"testing"

	"orilab/pipeline"
)

// regressions are kernels in testdata/ that once failed somewhere in the
// back end; each must compile through every phase (with the IR verifier
// after each, and the post-RA verifiers the phases run) and compute its
// expected output, at -O0 and -O3. TestTestdataSpecs also allocates them
// at every register limit.
var regressions = []struct{ name, why string }{
	{"guardret", "fuzz seed 26: the reaching-definitions verifier rejected the spill slots read after a guarded RET (its guarded epilogue forgot every slot)"},
	{"coalspill", "fuzz seed 415: the verifier reported the coalescing of a copy between interfering values whose source the allocator spilled at once"},
	{"partial16", "16-bit results defined only under a guard and read unguarded (by selp): the verifier demanded them where the guard failed, at every -O level"},
}

func TestRegressions(t *testing.T) {
	for _, r := range regressions {
		s, src := loadSpec(t, filepath.Join("testdata", r.name+".json"))
		for _, opt := range []int{0, 3} {
			res, err := pipeline.CompileWith(s.PTXPath, src, pipeline.Options{}, pipeline.PhaseOptions{OptLevel: opt, NoSnapshots: true, Verify: true})
			if err != nil {
				t.Errorf("%s -O%d (%s): %v", r.name, opt, r.why, err)
				continue
			}
			if err := execute(res.Final, s); err != nil {
				t.Errorf("%s -O%d (%s): %v", r.name, opt, r.why, err)
			}
		}
	}
}
