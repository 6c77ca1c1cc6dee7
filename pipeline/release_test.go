package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
)

// TestReleaseSameOutput compiles kernels as a release compilation (what
// orilab compile does without --check) and with the verifiers, and
// requires the same SASS: the verifiers only judge. It also requires that
// the release compilation really skipped the validation phases and that
// the checked one ran them, and that only the checked one kept the IR
// from before allocation, so the policy cannot silently flip.
func TestReleaseSameOutput(t *testing.T) {
	shared := testenv.Shared(t)
	files := []string{
		"../testdata/sample/sample.ptx",
		"../testdata/kernels/constret.ptx",
		filepath.Join(shared, "corpus/gpuocelot/tests/ptx/rodinia/needle_kernel.ptx"),
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var sass [2]string
		for i, release := range []bool{false, true} {
			s, err := NewSession(file, src, Options{}, PhaseOptions{OptLevel: 3, Release: release})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if err := s.RunAll(); err != nil {
				t.Fatalf("%s (release %v): %v", file, release, err)
			}
			sass[i] = s.Backend().SASS
			if (s.Backend().PreRA == nil) != release {
				t.Errorf("%s (release %v): Backend.PreRA kept: %v", filepath.Base(file), release, s.Backend().PreRA != nil)
			}
			for _, snap := range s.Snapshots {
				if PhaseTable[snap.Index].Category != "Validation" {
					continue
				}
				skipped := snap.Status == StatusNoOp
				if skipped != release {
					t.Errorf("%s (release %v): %s has status %v (%q)", filepath.Base(file), release, snap.Name, snap.Status, snap.Reason)
				}
			}
		}
		if sass[0] == "" || sass[0] != sass[1] {
			t.Errorf("%s: the release compilation's SASS differs from the checked one's (or is empty)", filepath.Base(file))
		}
	}
}
