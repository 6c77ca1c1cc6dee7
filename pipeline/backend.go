package pipeline

import (
	"fmt"
	"sort"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/sass"
	"orilab/pipeline/sched"
)

// Backend is what the back-end phases of one compilation leave behind for
// reports: the IR right before allocation (the post-RA verifier's
// reference, and the fault injector's), the allocator's statistics per
// function, and the SASS text once DumpNVuCodeText has run.
type Backend struct {
	PreRA   *ori.Module
	RAStats map[string]*regalloc.Stats
	SASS    string
}

// Decision: where the back-end phases run. The true phase order puts the
// workers ScheduleInstructions (114) and AllocateRegisters (122) at their
// own indices, after their gates (106, 110), and orilab runs them there, so
// DUMPIR=AllocateRegisters shows the IR right after allocation. That order
// also puts some phases with "post-RA" names before 122:
// ReportAfterRegisterAllocation (111), Get64bRegComponents (112),
// ApplyPostRegAllocWars (116) and OriRemoveNopCode (119). The first two
// are no-ops with a reason; OriRemoveNopCode works at any point and runs
// where it is; the post-allocation WAR hazards ApplyPostRegAllocWars
// names are covered by read barriers in the control-word phases, which
// run after allocation and are checked by the hazard checker.
func init() {
	impls["ScheduleInstructions"] = phaseImpl{run: runSchedule(false)}
	impls["PostSchedule"] = phaseImpl{run: runSchedule(true), noop: needsAllocation}
	impls["AllocateRegisters"] = phaseImpl{run: runAllocate, required: true}
	impls["AdvancedScoreboardsAndOpexes"] = phaseImpl{run: runControlWords(false), required: true, noop: needsAllocation}
	impls["ProcessO0WaitsAndSBs"] = phaseImpl{run: runControlWords(true), required: true, noop: needsAllocation}
	impls["DumpNVuCodeText"] = phaseImpl{run: runSASSText, noop: needsAllocation}
	impls["Get64bRegComponents"] = phaseImpl{noop: func(*PhaseContext) string {
		return "sm_75-sm_89 read and write every 64-bit operand orilab emits as an aligned register pair; nothing needs splitting"
	}}
	impls["ApplyPostRegAllocWars"] = phaseImpl{noop: func(*PhaseContext) string {
		return "in the true phase order this runs before AllocateRegisters (122); post-allocation WAR hazards get read barriers in the control-word phases instead, and the hazard checker proves them"
	}}
}

// needsAllocation makes a post-RA phase a no-op, with a reason, when the
// plan (NamedPhases, say) skipped register allocation.
func needsAllocation(c *PhaseContext) string {
	if c.planning {
		return "" // the default pipeline allocates at 122
	}
	if c.Backend == nil || c.Backend.PreRA == nil {
		return "needs physical registers: AllocateRegisters has not run in this compilation"
	}
	return ""
}

func (c *PhaseContext) knobSet() *knobs.Set {
	if c.Knobs != nil {
		return c.Knobs
	}
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{})
	if err != nil {
		// The defaults are checked when knobs are registered.
		panic(fmt.Sprintf("knob defaults do not load: %v", err))
	}
	c.Knobs = s
	return s
}

func runSchedule(postRA bool) func(c *PhaseContext) error {
	return func(c *PhaseContext) error {
		opts := sched.Options{Arch: c.Arch, OptLevel: c.OptLevel, PostRA: postRA, Knobs: c.knobSet()}
		for _, f := range c.Module.Funcs {
			if _, err := sched.Schedule(f, opts); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return nil
	}
}

// runAllocate allocates every function, then proves the allocation with
// the reaching-definitions verifier against the IR from before it.
func runAllocate(c *PhaseContext) error {
	if c.Backend == nil {
		c.Backend = &Backend{}
	}
	if err := unexpanded(c.Module); err != nil {
		return err
	}
	pre := c.Module.Clone()
	stats := map[string]*regalloc.Stats{}
	opts := regalloc.Options{Arch: c.Arch, OptLevel: c.OptLevel, MaxRegs: c.MaxRegCount, Knobs: c.knobSet()}
	for _, f := range c.Module.Funcs {
		st, err := regalloc.Allocate(f, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		stats[f.Name] = st
		if err := f.ComputeCFG(); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	for _, f := range c.Module.Funcs {
		if err := regalloc.VerifyReachingDefs(pre.Func(f.Name), f); err != nil {
			return err
		}
	}
	c.Backend.PreRA, c.Backend.RAStats = pre, stats
	return nil
}

// runControlWords fills every control word (conservatively at -O0) and
// then proves them sufficient with the hazard checker: a control word
// that lets an instruction read a register too early is a compiler bug,
// not a property of the kernel, so the check always runs.
func runControlWords(conservative bool) func(c *PhaseContext) error {
	return func(c *PhaseContext) error {
		for _, f := range c.Module.Funcs {
			var err error
			if conservative {
				err = sched.AssignConservativeControlWords(f, c.Arch)
			} else {
				err = sched.AssignControlWords(f, c.Arch)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			if err := sched.CheckHazards(f, c.Arch); err != nil {
				return err
			}
		}
		return nil
	}
}

func runSASSText(c *PhaseContext) error {
	text, err := sass.Text(c.Module, c.Arch)
	if err != nil {
		return err
	}
	c.Backend.SASS = text
	return nil
}

// FuncNames returns the module's function names, sorted, for reports.
func funcNames(m map[string]*regalloc.Stats) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
