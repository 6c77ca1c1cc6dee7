package bisect

import (
	"fmt"

	"orilab/faultinject"
	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// PlantBugspec makes every compilation of a search inject bs's faults with
// seed right after phase at: a rehearsal with a known culprit, with the
// same flags as orilab inject. The injection is deterministic for a given
// IR, so the compilations of one configuration agree; configurations that
// change the IR before at (disable mode, knob mode) may see the faults
// land elsewhere, and disabling at itself removes them.
func (o *Options) PlantBugspec(bs faultinject.Spec, seed int64, at string) error {
	idx, err := pipeline.LookupPhase(at)
	if err != nil {
		return fmt.Errorf("--at: %v", err)
	}
	name := pipeline.PhaseTable[idx].Name
	o.PlantAfter = name
	o.Plant = func(m *ori.Module) error {
		_, err := faultinject.Inject(m, bs, seed, faultinject.Options{})
		return err
	}
	o.PlantArgs = fmt.Sprintf("--bugspec %q --seed %d --at %s", bs.String(), seed, name)
	return nil
}
