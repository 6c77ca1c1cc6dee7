package verifyra_test

import (
	"errors"
	"math/rand"
	"testing"

	"orilab/pipeline/regalloc"
	"orilab/pipeline/sass"
	"orilab/pipeline/verifyra"
)

// TestVerifyRealAllocations runs the allocator over every kernel that
// passes before allocation, at its default budget and at tight
// --maxrregcount budgets that force spills and rematerialization, and
// requires the reaching-definitions verifier to accept each allocation.
// An accepted allocation must also still pass its spec in the simulator:
// acceptance of a wrong allocation would mean the verifier is unsound.
func TestVerifyRealAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles, allocates and executes the kernel corpus")
	}
	ks := rdKernels(t)
	rng := rand.New(rand.NewSource(11))
	allocated, spilled, mutants, caught := 0, 0, 0, 0
	for _, k := range ks {
		for _, maxRegs := range []int{0, 24, 16} {
			post := k.preRA.Clone()
			failed := false
			for _, f := range post.Funcs {
				st, err := regalloc.Allocate(f, regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: maxRegs})
				if err != nil {
					// A budget the allocator cannot meet is its own
					// (reported) outcome, not the verifier's concern.
					failed = true
					break
				}
				if st.SpillStores+st.PredSpills+st.Remats > 0 {
					spilled++
				}
				if err := f.ComputeCFG(); err != nil {
					t.Fatalf("%s: %v", k.spec.Name, err)
				}
			}
			if failed {
				continue
			}
			allocated++
			if err := rdVerify(k.preRA, post); err != nil {
				var re *verifyra.ReachingDefsError
				if errors.As(err, &re) {
					t.Errorf("%s (maxrregcount %d): %v\n%s", k.spec.Name, maxRegs, err, re.Report())
				} else {
					t.Errorf("%s (maxrregcount %d): %v", k.spec.Name, maxRegs, err)
				}
				continue
			}
			if pass, err := rdRun(k, post); err != nil || !pass {
				t.Errorf("%s (maxrregcount %d): accepted by the verifier but fails its spec (err %v)", k.spec.Name, maxRegs, err)
				continue
			}
			// Allocated code has a SASS form.
			if _, err := sass.Text(post, 75); err != nil {
				t.Errorf("%s (maxrregcount %d): %v", k.spec.Name, maxRegs, err)
			}
			// Broken versions of the real allocation: accepted ones must
			// still be correct.
			for i := 0; i < 3; i++ {
				bad := post.Clone()
				what := rdMutate(bad, rng, 4)
				if what == "" {
					continue
				}
				mutants++
				if rdVerify(k.preRA, bad) != nil {
					caught++
					continue
				}
				if pass, err := rdRun(k, bad); err != nil || !pass {
					t.Errorf("%s (maxrregcount %d): %s was accepted by the verifier but fails the spec (err %v)", k.spec.Name, maxRegs, what, err)
				}
			}
		}
	}
	t.Logf("%d allocations verified (%d functions with spill code); %d mutants, %d caught", allocated, spilled, mutants, caught)
}
