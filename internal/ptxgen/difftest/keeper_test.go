package difftest

import (
	"context"
	"testing"

	"orilab/internal/ptxgen"
	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// shiftStores is a planted miscompile: every global store lands one word
// further.
func shiftStores(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpSTG && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem {
					in.Srcs[0].Imm += 4
				}
			}
		}
	}
	return nil
}

// TestKeeperNeedsTheCulpritPhase: the shrinker keeps a candidate only when
// it fails with the finding's kind and class and phase mode blames the
// finding's phase. The same failing program is kept for the finding that
// names the plant's phase and not for one that names another phase
// (matching kind and class alone accepted both).
func TestKeeperNeedsTheCulpritPhase(t *testing.T) {
	const plant = "GeneralOptimizeEarly"
	defer pipeline.SetPhaseOverrideForTest(plant, shiftStores)()
	cfg := Config{OptLevel: 3}
	p := ptxgen.Generate(7)
	failed := Check(p, Options{Configs: []Config{cfg}}).Failed()
	if len(failed) == 0 {
		t.Fatal("seed 7 passes with the planted miscompile")
	}
	x := failed[0]
	if x.Kind != KindMismatch && x.Kind != KindExecError {
		t.Fatalf("seed 7 fails as %s: %s", x.Kind, x.Detail)
	}
	rec := &recorder{saved: map[string]int{}}
	for _, c := range []struct {
		phase string
		want  bool
	}{{plant, true}, {"OriCopyProp", false}} {
		f := &Finding{Kind: x.Kind, Config: cfg, Detail: x.Detail, Phase: c.phase}
		if got := rec.keeper(context.Background(), f)(p); got != c.want {
			t.Errorf("finding blamed on %s: keep = %v, want %v", c.phase, got, c.want)
		}
	}
}
