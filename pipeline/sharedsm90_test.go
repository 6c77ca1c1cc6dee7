package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/sass"
	"orilab/pipeline/spec"
)

// TestSharedSM90 runs testdata/kernels/shared_sm90 (sm_90 shared memory
// from 0x400, addresses with the cluster rank, dynamic shared memory, a
// generic address and a .func) right after lowering, at -O0 and at -O3,
// against the values its spec computed from the kernel's formulas, and
// checks that the final code builds the address from SR_CgaCtaId and
// that the cubin's window holds the reserved KB.
func TestSharedSM90(t *testing.T) {
	s, err := spec.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "shared_sm90.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		opt   int
		after string
	}{{0, "lowering"}, {0, ""}, {3, ""}} {
		rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: run.opt}, After: run.after})
		if err != nil {
			t.Fatalf("-O%d %s: %v", run.opt, run.after, err)
		}
		if !rep.Pass {
			t.Fatalf("-O%d %s: mismatch:\n%s", run.opt, run.after, spec.FormatResults(rep.Results))
		}
	}
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []int{0, 3} {
		req := Request{OptLevel: opt}
		sess, err := req.StartFile(s.PTXPath, src, SessionControl{})
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.RunAll(); err != nil {
			t.Fatal(err)
		}
		b := sess.Backend()
		if b == nil || b.EncodeErr != nil || len(b.Cubin) == 0 {
			t.Fatalf("-O%d: no cubin (%v)", opt, b)
		}
		text, err := sass.Text(sess.Module(), 90)
		if err != nil {
			t.Fatal(err)
		}
		// -O0 keeps ptxas's MOV of 0x400 into a register, -O3 folds it
		// and moves geta's sequence (a function without calls) into
		// the uniform datapath as ptxas does (S2UR, ULEA).
		if !strings.Contains(text, "S2R R") || !strings.Contains(text, "SR_CgaCtaId ;") ||
			!regexp.MustCompile(`LEA R\d+, R\d+(\.reuse)?, (0x400|R\d+), 0x18 ;`).MatchString(text) {
			t.Errorf("-O%d: no S2R SR_CgaCtaId and LEA by 0x18 in\n%s", opt, text)
		}
		if opt == 3 && !regexp.MustCompile(`S2UR (UR\d+), SR_CgaCtaId ;[^\n]*\n(.*\n)*.*ULEA UR\d+, UR\d+, 0x400, 0x18 ;`).MatchString(text) {
			t.Errorf("-O3: no S2UR SR_CgaCtaId and ULEA in\n%s", text)
		}
	}
}
