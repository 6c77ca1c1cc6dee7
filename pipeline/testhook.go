package pipeline

import "fmt"

// SetPhaseOverrideForTest replaces the transformation of the phase called
// name with run, keeping the phase's gate (its O-level and Skip) and
// whether it is required, and returns a function that restores the row. A
// phase without code (a NoOp row) runs run instead of being a no-op. It is
// for tests and bisect rehearsals only: planting a known miscompile in a
// chosen phase gives the bisector a ground truth. A required phase still
// runs, and run follows it. It is not safe for concurrent use with
// compilations running, and it panics on a name that is not a phase.
func SetPhaseOverrideForTest(name string, run func(*PhaseContext) error) (restore func()) {
	i, err := LookupPhase(name)
	if err != nil {
		panic(fmt.Sprintf("SetPhaseOverrideForTest: %v", err))
	}
	old := PhaseTable[i]
	phaseOverrides.Add(1)
	row := &PhaseTable[i]
	row.NoOp = ""
	row.Fn.Run = run
	if old.Required && old.Fn.Run != nil {
		// A required phase cannot be left out (MOV.PHI would reach the
		// back end, an IDIV the allocator...): run it, then the plant.
		orig := old.Fn.Run
		row.Fn.Run = func(c *PhaseContext) error {
			if err := orig(c); err != nil {
				return err
			}
			return run(c)
		}
	}
	return func() {
		PhaseTable[i] = old
		phaseOverrides.Add(-1)
	}
}
