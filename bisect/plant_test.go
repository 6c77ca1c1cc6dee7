package bisect

import (
	"context"
	"math/rand"
	"testing"

	"orilab/faultinject"
	"orilab/pipeline"
)

// TestGroundTruthBugspec plants one bugspec fault right after a random
// post-allocation phase (the same flags as orilab inject) and checks that
// phase mode names that phase. Faults that the execution does not notice
// (masked) are redrawn: they leave nothing to bisect. Disable mode is not
// checked here: disabling other phases changes the IR the fault lands in,
// so the planted fault itself moves (the hook-planted breaks of
// TestGroundTruth check disable mode).
func TestGroundTruthBugspec(t *testing.T) {
	trials := 40
	if testing.Short() {
		trials = 10
	}
	specs := loadSpecs(t)
	ra, _ := pipeline.LookupPhase("AllocateRegisters")
	var post []pipeline.PlanRow
	for _, r := range activeAtO3() {
		if r.Index >= ra {
			post = append(post, r)
		}
	}
	if len(post) < 3 {
		t.Fatalf("only %d active phases from AllocateRegisters on", len(post))
	}
	lines := []string{"1,0,0,0 0 0", "0,1,0,0 0 0", "0,0,1,0 0 0"}
	rng := rand.New(rand.NewSource(42))
	found, totalExecs := 0, 0
	for n := 0; found < trials && n < trials*10; n++ {
		s := specs[rng.Intn(len(specs))]
		row := post[rng.Intn(len(post))]
		bs, err := faultinject.ParseSpec(lines[rng.Intn(len(lines))])
		if err != nil {
			t.Fatal(err)
		}
		// A corrupted loop counter can hang the kernel: a short step
		// limit turns that into a quick failure instead of 50M steps.
		opts := Options{Request: pipeline.Request{OptLevel: 3}, MaxWarpSteps: 1_000_000}
		if opts.Fault, err = faultinject.Plant(bs, rng.Int63(), row.Name); err != nil {
			t.Fatal(err)
		}
		pr, err := Phase(context.Background(), s, opts)
		if err != nil {
			t.Fatalf("%s %s after %s: %v", s.Name, bs, row.Name, err)
		}
		if !pr.Found {
			continue // masked, or no candidate for the category
		}
		found++
		totalExecs += pr.Executions
		if pr.Name != row.Name {
			t.Errorf("%s: %s planted after %s (%s): phase mode says %s", s.Name, bs, row.Name, opts.Fault.Args, pr.Name)
		}
	}
	if found < trials {
		t.Fatalf("only %d of the planted faults changed the output", found)
	}
	t.Logf("%d planted bugspec faults: phase mode named the phase in every one, %.1f executions on average", found, float64(totalExecs)/float64(found))
}
