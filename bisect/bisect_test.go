package bisect

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// breakKind is a planted miscompile.
type breakKind int

const (
	breakIADD3Imm  breakKind = iota // add 1 to an IADD3 (or IMAD) immediate
	breakISETPSwap                  // swap the two value sources of an ISETP
	breakStoreOff                   // move a store's address by 4 bytes
	numBreaks
)

func (k breakKind) String() string {
	return [...]string{"iadd3-imm", "isetp-swap", "store-offset"}[k]
}

// applies reports whether k can break in. Instructions that write a
// physical register (the stack pointer's frame set-up, ABI argument moves)
// are left alone: breaking the frame is an ABI violation the post-RA
// verifier rejects as a compile error, not a miscompile to bisect.
func (k breakKind) applies(in *ori.Inst) bool {
	for _, d := range in.Dsts {
		if d.Kind == ori.OpdReg && !d.Reg.Virtual && !d.Reg.IsZero() {
			return false
		}
	}
	switch k {
	case breakIADD3Imm:
		if in.Op != ori.OpIADD3 && in.Op != ori.OpIMAD {
			return false
		}
		for _, s := range in.Srcs[:min(3, len(in.Srcs))] {
			if s.Kind == ori.OpdImm && s.FKind == ori.ImmInt {
				return true
			}
		}
	case breakISETPSwap:
		return in.Op == ori.OpISETP && len(in.Srcs) >= 2 && !in.HasMod("EQ") && !in.HasMod("NE")
	case breakStoreOff:
		// Not local stores: moving one runs off the end of its .local
		// variable into the allocator's spill slots, which is undefined
		// behaviour the post-RA verifier reports, not a miscompile.
		return in.Op.Flags()&ori.FStore != 0 && in.Op != ori.OpSTL && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem
	}
	return false
}

func (k breakKind) apply(in *ori.Inst) {
	switch k {
	case breakIADD3Imm:
		for i := range in.Srcs[:min(3, len(in.Srcs))] {
			if in.Srcs[i].Kind == ori.OpdImm && in.Srcs[i].FKind == ori.ImmInt {
				in.Srcs[i].Imm++
				return
			}
		}
	case breakISETPSwap:
		in.Srcs[0], in.Srcs[1] = in.Srcs[1], in.Srcs[0]
	case breakStoreOff:
		in.Srcs[0].Imm += 4
	}
}

// plant returns a phase body that breaks instruction id of kind k (or,
// when a configuration no longer has it, the first instruction k applies
// to), and otherwise leaves the module alone.
func plant(k breakKind, id int32) func(*pipeline.PhaseContext) error {
	return func(c *pipeline.PhaseContext) error {
		var first *ori.Inst
		for _, f := range c.Module.Funcs {
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					if !k.applies(in) {
						continue
					}
					if in.ID == id {
						k.apply(in)
						return nil
					}
					if first == nil {
						first = in
					}
				}
			}
		}
		if first != nil {
			k.apply(first)
		}
		return nil
	}
}

func loadSpecs(t testing.TB) []*spec.Spec {
	paths, _ := filepath.Glob("../testdata/kernels/*.json")
	paths = append(paths, "../testdata/sample/sample.json")
	var out []*spec.Spec
	for _, p := range paths {
		// barrier_divergent fails by design. red_generic_shared and
		// bsync_waits are regression kernels from the fuzzer: so small
		// that the planted IADD3/ISETP break targets an instruction an
		// earlier phase creates, and disabling that phase is then also a
		// valid answer of disable mode, one without the broken phase.
		// atom_shared_add_f32's compare-and-swap loop spins until the
		// step limit when a planted fault breaks its exit test, which
		// makes each such trial take minutes.
		if strings.Contains(p, "barrier_divergent") || strings.Contains(p, "red_generic_shared") || strings.Contains(p, "bsync_waits") || strings.Contains(p, "atom_shared_add_f32") {
			continue
		}
		s, err := spec.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) < 2 {
		t.Fatalf("found %d specs", len(out))
	}
	return out
}

// trial is one planted miscompile.
type trial struct {
	spec  *spec.Spec
	phase string
	kind  breakKind
	id    int32
}

func (tr trial) String() string {
	return fmt.Sprintf("%s: %s at #%d in %s", tr.spec.Name, tr.kind, tr.id, tr.phase)
}

// pickTrial chooses a kernel, a phase that runs at -O3 and a site in the
// phase's input whose break changes the output, retrying until one does.
func pickTrial(t testing.TB, rng *rand.Rand, specs []*spec.Spec, active []pipeline.PlanRow) trial {
	for attempt := 0; attempt < 100; attempt++ {
		s := specs[rng.Intn(len(specs))]
		row := active[rng.Intn(len(active))]
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		sess, err := pipeline.NewSession(s.PTXPath, src, pipeline.Options{}, pipeline.PhaseOptions{OptLevel: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.RunTo(row.Index - 1); err != nil {
			t.Fatal(err)
		}
		k := breakKind(rng.Intn(int(numBreaks)))
		var sites []*ori.Inst
		for _, f := range sess.Module().Funcs {
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					if k.applies(in) {
						sites = append(sites, in)
					}
				}
			}
		}
		if len(sites) == 0 {
			continue
		}
		tr := trial{spec: s, phase: row.Name, kind: k, id: sites[rng.Intn(len(sites))].ID}
		restore := pipeline.SetPhaseOverrideForTest(tr.phase, plant(tr.kind, tr.id))
		ok := breaks(t, tr)
		restore()
		if ok {
			return tr
		}
	}
	t.Fatal("no break changed any output in 100 attempts")
	return trial{}
}

// breaks reports whether the planted break makes both the broken phase's
// own output and the final output fail.
func breaks(t testing.TB, tr trial) bool {
	for _, after := range []string{tr.phase, ""} {
		rep, err := pipeline.RunSpec(tr.spec, pipeline.RunOptions{Request: pipeline.Request{OptLevel: 3}, After: after})
		if err == nil && rep.Pass {
			return false
		}
	}
	return true
}

func activeAtO3() []pipeline.PlanRow {
	var out []pipeline.PlanRow
	for _, r := range pipeline.PhasePlan(3, 75) {
		if r.Runs {
			out = append(out, r)
		}
	}
	return out
}

// TestGroundTruth plants a miscompile in a random phase of a random kernel
// and checks that phase mode names exactly that phase within the execution
// budget, and that disable mode's set contains it.
func TestGroundTruth(t *testing.T) {
	trials := 200
	if testing.Short() {
		trials = 40
	}
	specs := loadSpecs(t)
	active := activeAtO3()
	rng := rand.New(rand.NewSource(20261122))
	bound := Bound(len(active))
	total, worst, disableTotal := 0, 0, 0
	for n := 0; n < trials; n++ {
		tr := pickTrial(t, rng, specs, active)
		restore := pipeline.SetPhaseOverrideForTest(tr.phase, plant(tr.kind, tr.id))
		opts := Options{Request: pipeline.Request{OptLevel: 3}}
		pr, err := Phase(context.Background(), tr.spec, opts)
		if err != nil {
			restore()
			t.Fatalf("trial %d (%v): %v", n, tr, err)
		}
		if !pr.Found || pr.Name != tr.phase {
			t.Errorf("trial %d (%v): phase mode says %q (found %v: %s)", n, tr, pr.Name, pr.Found, pr.Reason)
		}
		if pr.Executions > bound {
			t.Errorf("trial %d (%v): %d executions, budget %d (%d changed phases)", n, tr, pr.Executions, bound, pr.ChangedPhases)
		}
		if pr.Found && (!strings.Contains(pr.Diff, "\n-") || !strings.Contains(pr.Diff, "\n+")) {
			t.Errorf("trial %d (%v): diff has no change:\n%s", n, tr, pr.Diff)
		}
		if pr.Found && len(pr.Mismatches) == 0 && pr.ExecError == "" {
			t.Errorf("trial %d (%v): no mismatch reported", n, tr)
		}
		total += pr.Executions
		worst = max(worst, pr.Executions)
		dr, err := Disable(context.Background(), tr.spec, opts)
		restore()
		if err != nil {
			t.Fatalf("trial %d (%v): disable: %v", n, tr, err)
		}
		disableTotal += dr.Executions
		required := false
		for _, r := range active {
			if r.Name == tr.phase {
				required = r.Required
			}
		}
		switch {
		case required:
			if dr.Found {
				t.Errorf("trial %d (%v): the broken phase is required, yet disabling %v passes", n, tr, dr.Phases)
			}
		case !dr.Found || !slices.Contains(dr.Phases, tr.phase):
			t.Errorf("trial %d (%v): disable mode's set %v lacks the broken phase (%s)", n, tr, dr.Phases, dr.Reason)
		case dr.Knob != "-knob DisablePhases="+strings.Join(dr.Phases, "+"):
			t.Errorf("trial %d: knob line %q", n, dr.Knob)
		}
	}
	t.Logf("%d trials, %d active phases: phase mode used %.2f executions on average, %d at most (budget %d); disable mode %.2f on average",
		trials, len(active), float64(total)/float64(trials), worst, bound, float64(disableTotal)/float64(trials))
}
