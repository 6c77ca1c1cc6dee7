package pipeline

import (
	"fmt"

	"orilab/pipeline/opt"
)

// mid is the row code of a mid-end pass: it runs the pass on every
// function, recomputing the CFG after each (so no analysis cached on a
// function outlives the edges it came from), and asks the pass's own
// knob switch for its skip reason.
func mid(p opt.Pass) PhaseFunc {
	f := PhaseFunc{
		Run: func(c *PhaseContext) error {
			oc := &opt.Context{OptLevel: c.OptLevel, Arch: c.Arch, Module: c.Module, Sites: c.Sites, Knobs: c.Knobs, Remarks: c.Remarks}
			for _, f := range c.Module.Funcs {
				if _, err := p.Run(f, oc); err != nil {
					return fmt.Errorf("%s: %w", f.Name, err)
				}
				if err := f.ComputeCFG(); err != nil {
					return fmt.Errorf("%s: %w", f.Name, err)
				}
			}
			return nil
		},
	}
	if p.NoOp != nil {
		f.Skip = func(c *PhaseContext) string {
			return p.NoOp(&opt.Context{OptLevel: c.OptLevel, Arch: c.Arch, Module: c.Module, Knobs: c.Knobs})
		}
	}
	return f
}
