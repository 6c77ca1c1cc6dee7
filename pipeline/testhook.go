package pipeline

import "fmt"

// SetPhaseOverrideForTest replaces the transformation of the phase called
// name with run, keeping the phase's gate (its no-op reason) and whether it
// is required, and returns a function that restores the original. It is
// for tests and bisect rehearsals only: planting a known miscompile in a
// chosen phase gives the bisector a ground truth. A required phase still
// runs, and run follows it. It is not safe for
// concurrent use with compilations running, and it panics on a name that
// is not a phase.
func SetPhaseOverrideForTest(name string, run func(*PhaseContext) error) (restore func()) {
	i, err := LookupPhase(name)
	if err != nil {
		panic(fmt.Sprintf("SetPhaseOverrideForTest: %v", err))
	}
	key := PhaseTable[i].Name
	old, had := impls[key]
	orig, _ := lookupImpl(key)
	impl := phaseImpl{noop: orig.noop, run: run, required: orig.required}
	if orig.required && orig.run != nil {
		// A required phase cannot be left out (MOV.PHI would reach the
		// back end, an IDIV the allocator...): run it, then the plant.
		impl.run = func(c *PhaseContext) error {
			if err := orig.run(c); err != nil {
				return err
			}
			return run(c)
		}
	}
	impls[key] = impl
	return func() {
		if had {
			impls[key] = old
		} else {
			delete(impls, key)
		}
	}
}
