package pipeline

import (
	"fmt"
	"sort"

	"orilab/pipeline/lower"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/sass"
	"orilab/pipeline/sched"
)

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
// run after allocation and are checked by the hazard checker (the rows'
// NoOp reasons say so).

// needsAllocation makes a post-RA phase a no-op, with a reason, when the
// plan (NamedPhases, say) skipped register allocation.
func needsAllocation(c *PhaseContext) string {
	if c.planning {
		return "" // the default pipeline allocates at 122
	}
	if c.Backend == nil || c.Backend.RAStats == nil {
		return "needs physical registers: AllocateRegisters has not run in this compilation"
	}
	return ""
}

// scheduleInstructions is the pre-allocation list scheduler
// (ScheduleInstructions, 114).
func scheduleInstructions(c *PhaseContext) error { return schedule(c, false) }

// postSchedule reschedules the allocated code (PostSchedule, 125).
func postSchedule(c *PhaseContext) error { return schedule(c, true) }

func schedule(c *PhaseContext, postRA bool) error {
	// The pipeline keeps no scheduling statistics, so it skips measuring them.
	opts := sched.Options{Arch: c.Arch, OptLevel: c.OptLevel, PostRA: postRA, Knobs: c.knobSet(), NoMeasure: true}
	for _, f := range c.Module.Funcs {
		if !postRA && lower.IsSlowPath(f) {
			// Decision: the f64 division's slow-path subroutine keeps
			// the order its expansion wrote (lower/slowpath.go), which
			// keeps few values live; the pre-allocation scheduler
			// started its independent work early (every power of two
			// and its zero low word at the top) and took 34 registers
			// where that order needs 20 (float_div64.ptx), and every
			// caller counts them. The path runs only for subnormal or
			// extreme operands, so its latency matters little.
			continue
		}
		if _, err := sched.Schedule(f, opts); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// allocateRegisters allocates every function, whole-seen callees before
// their callers so that each call to one clobbers only the registers it
// changes (regalloc/interproc.go), then proves the allocation with the
// reaching-definitions verifier against the IR from before it (not in a
// release compilation: see ReleaseVerifiers).
func allocateRegisters(c *PhaseContext) error {
	if c.Backend == nil {
		c.Backend = &Backend{}
	}
	if err := unexpanded(c.Module); err != nil {
		return err
	}
	// The IR from before allocation is the post-RA verifiers' reference:
	// a release compilation without a planted fault runs none and keeps
	// no copy (PostFixForMercTargets then mirrors nothing).
	var pre *ori.Module
	if !c.Release || c.keepPreRA {
		pre = c.Module.Clone()
	}
	stats := map[string]*regalloc.Stats{}
	callees := map[string]ori.RegSet{}
	opts := regalloc.Options{Arch: c.Arch, OptLevel: c.OptLevel, MaxRegs: c.MaxRegCount, Knobs: c.knobSet(), Callees: callees}
	wholeSeen := func(name string) bool { g := c.Module.Func(name); return g != nil && g.WholeSeen() }
	for _, f := range ori.CalleesFirst(c.Module) {
		st, err := regalloc.Allocate(f, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		stats[f.Name] = st
		if err := f.ComputeCFG(); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if f.WholeSeen() {
			set, err := ori.Clobbers(f, func(n string) (ori.RegSet, bool) { s, ok := callees[n]; return s, ok }, wholeSeen)
			if err != nil {
				return fmt.Errorf("regalloc: %w", err)
			}
			callees[f.Name] = set
		}
	}
	if !c.Release {
		if err := verifyModule(pre, c.Module); err != nil {
			return err
		}
	}
	c.Backend.PreRA, c.Backend.RAStats = pre, stats
	return nil
}

// controlWords fills every control word (AdvancedScoreboardsAndOpexes)
// and conservativeControlWords does so with maximum stalls and waits
// (ProcessO0WaitsAndSBs, -O0). Both then prove them sufficient with the
// hazard checker: a control word that lets an instruction read a register
// too early is a compiler bug, not a property of the kernel, so the check
// runs in every compilation but a release one (see ReleaseVerifiers).
func controlWords(c *PhaseContext) error {
	return fillControlWords(c, sched.AssignControlWords)
}

func conservativeControlWords(c *PhaseContext) error {
	return fillControlWords(c, sched.AssignConservativeControlWords)
}

func fillControlWords(c *PhaseContext, assign func(f *ori.Func, arch int) error) error {
	return eachFunc(c, func(f *ori.Func) error {
		if err := assign(f, c.Arch); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if c.Release {
			return nil
		}
		return sched.CheckHazards(f, c.Arch)
	})
}

// needsSASSText makes DumpNVuCodeText a no-op before allocation or where
// the caller reads no SASS text (PhaseOptions.NoSASSText).
func needsSASSText(c *PhaseContext) string {
	if why := needsAllocation(c); why != "" {
		return why
	}
	if c.noSASSText {
		return "no SASS text was asked for (the output is a cubin, IR or lowered code)"
	}
	return ""
}

// sassText prints the SASS of the final code (DumpNVuCodeText).
func sassText(c *PhaseContext) error {
	text, err := sass.TextJobs(c.Module, c.Arch, c.jobs)
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
