package bisect

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// plantSites is a phase body that numbers every instruction k applies to
// as a rewrite site (in layout order) and breaks instruction id when its
// site is enabled. The other sites change nothing, so the break is the
// only rewrite that matters: site bisection must name it.
func plantSites(k breakKind, id int32) func(*pipeline.PhaseContext) error {
	return func(c *pipeline.PhaseContext) error {
		for _, f := range c.Module.Funcs {
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					if !k.applies(in) {
						continue
					}
					if c.Allow(f, in.ID, "planted "+k.String()) && in.ID == id {
						k.apply(in)
					}
				}
			}
		}
		return nil
	}
}

// TestSitesGroundTruth plants a break at a random site of a random phase
// and checks that sites mode names exactly that instruction.
func TestSitesGroundTruth(t *testing.T) {
	trials := 30
	if testing.Short() {
		trials = 8
	}
	specs := loadSpecs(t)
	active := activeAtO3()
	rng := rand.New(rand.NewSource(7))
	totalExecs := 0
	for n := 0; n < trials; n++ {
		tr := pickTrial(t, rng, specs, active)
		restore := pipeline.SetPhaseOverrideForTest(tr.phase, plantSites(tr.kind, tr.id))
		res, err := Sites(context.Background(), tr.spec, Options{Request: pipeline.Request{OptLevel: 3}}, tr.phase)
		restore()
		if err != nil {
			t.Fatalf("trial %d (%v): %v", n, tr, err)
		}
		if !res.Found || res.Site.Inst != tr.id || !res.Alone {
			t.Errorf("trial %d (%v): found=%v site=%+v alone=%v (%s)", n, tr, res.Found, res.Site, res.Alone, res.Reason)
			continue
		}
		if res.Before == res.After || !strings.Contains(res.Diff, "\n-") {
			t.Errorf("trial %d (%v): before %q after %q diff:\n%s", n, tr, res.Before, res.After, res.Diff)
		}
		if want := "-knob BisectSites=" + tr.phase + ":"; !strings.HasPrefix(res.Knob, want) {
			t.Errorf("trial %d: knob %q", n, res.Knob)
		}
		totalExecs += res.Executions
	}
	t.Logf("%d trials: %.1f executions per site bisection on average", trials, float64(totalExecs)/float64(trials))
}

// TestSitesRealPass limits a real pass (GeneralOptimizeEarly) to a prefix
// of its rewrites and checks that the count is stable and that the
// limited IR sits between the unlimited and the disabled outputs.
func TestSitesRealPass(t *testing.T) {
	specs := loadSpecs(t)
	src, err := readPTX(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := pipeline.LookupPhase("GeneralOptimizeEarly")
	run := func(lim *pipeline.SiteLimit) (*ori.Module, *pipeline.Snapshot) {
		po := pipeline.PhaseOptions{OptLevel: 3, Sites: lim, RecordSites: true}
		sess, err := pipeline.NewSession(specs[0].PTXPath, src, pipeline.Options{}, po)
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.RunTo(idx); err != nil {
			t.Fatal(err)
		}
		return sess.Module(), sess.Snapshots[len(sess.Snapshots)-1]
	}
	mAll, all := run(nil)
	if all.NumSites < 2 || len(all.Sites) != all.NumSites {
		t.Fatalf("GeneralOptimizeEarly proposed %d sites (log %d) on %s; want at least 2", all.NumSites, len(all.Sites), specs[0].Name)
	}
	mNone, none := run(&pipeline.SiteLimit{Phase: "GeneralOptimizeEarly", Lo: 1, Hi: 0})
	if none.Status != pipeline.StatusUnchanged {
		t.Errorf("with no rewrites enabled the phase reports %v", none.Status)
	}
	_, one := run(&pipeline.SiteLimit{Phase: "GeneralOptimizeEarly", Lo: 1, Hi: 1})
	if one.Sites[0] != all.Sites[0] || !one.Sites[0].Allowed || one.Sites[1].Allowed {
		t.Errorf("prefix 1..1: first sites %+v vs %+v", one.Sites[:2], all.Sites[:2])
	}
	if mAll.String() == mNone.String() {
		t.Error("the unlimited and the fully limited outputs are the same")
	}
}
