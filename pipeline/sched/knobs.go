package sched

// The Sched* knobs the scheduler reads, with the names, types and defaults
// of the wiki's knob tables (001:21680-21707, 002:908-940, 001:40240-40330).
// Only knobs this package consults are registered.

import "orilab/pipeline/knobs"

const reader = "sched (ScheduleInstructions, PostSchedule)"

func init() {
	reg := func(name string, t knobs.Type, def, doc string) {
		knobs.Default.Register(knobs.Knob{Name: name, Type: t, Default: def, Doc: doc, Readers: []string{reader}})
	}
	// regInt registers an integer knob whose values must lie in bounds.
	regInt := func(name, def string, bounds *knobs.Range, doc string) {
		knobs.Default.Register(knobs.Knob{Name: name, Type: knobs.TypeInt, Default: def, Bounds: bounds, Doc: doc, Readers: []string{reader}})
	}
	reg("ScheduleInstructions", knobs.TypeBool, "1",
		"Enable gate of the instruction scheduler; off leaves every block in its input order.")
	reg("ScheduleInstructionsReduceReg", knobs.TypeBool, "1",
		"Run the register-pressure-reduction pass (ReduceReg) before the ILP pass at -O3 and above.")
	// Decision: the wiki gives no default for the DynBatch option; ptxas
	// applies the pass to GMMA/WGMMA code, which Ori does not have, so it
	// is off unless asked for.
	reg("ScheduleInstructionsDynBatch", knobs.TypeBool, "0",
		"Run the DynBatch pass (batches of long-latency loads) after the ILP pass.")
	regInt("SchedReadAvailTarget", "4", knobs.AtLeast(0),
		"Critical-path window: a ready instruction within this many cycles of the tallest one counts as critical.")
	regInt("SchedMaxRTarget", "0", knobs.AtLeast(0),
		"Target register count for the scheduler's budget; 0 leaves it to the register file (251 allocatable registers less 1/64).")
	regInt("SchedMaxRLiveOKslack", "3", knobs.AtLeast(0),
		"Registers kept free below the target: the budget is the target minus this slack.")
	// orilab's own knob (ptxas derives its budget from occupancy, 002:436-520,
	// which orilab does not model).
	reg("SchedKeepPressure", knobs.TypeBool, "1",
		"Before allocation, the ILP and DynBatch passes after ReduceReg may not raise the R pressure of any block above its peak after ReduceReg; =0 leaves them the whole register budget.")
	// orilab's own knob: see pressure.go.
	reg("SchedArgPressure", knobs.TypeBool, "1",
		"Before allocation, count the argument and return-address registers a block writes for a CALL as live from their moves to the CALL, so the pressure passes keep the moves next to it; =0 counts virtual registers only.")
	// orilab's own knob (schedule.go, scheduleRegion).
	reg("SchedCapKeepInput", knobs.TypeBool, "1",
		"Before allocation, an ILP or DynBatch pass capped at its input's R pressure (SchedKeepPressure) that still ends more than one word above the cap keeps the region's input order; =0 keeps the pass's order.")
	// orilab's own knob (capfallback.go).
	reg("SchedUncappedKeepInput", knobs.TypeBool, "1",
		"Before allocation, an ILP or DynBatch pass whose capped order needed more predicates than P0-P6 and ran uncapped keeps the region's input order when the uncapped order ends more than one word above the input's R pressure or needs more predicates than the P file and the input; =0 keeps the uncapped order.")
	// orilab's own knob (floatcalls.go).
	reg("SchedFloatAcrossCalls", knobs.TypeBool, "1",
		"Before allocation, plain instructions that name only virtual registers may sink below the CALLs after them (a CALL touches only physical registers and memory); =0 keeps every instruction on its side of each CALL.")
	regInt("SchedTexBatchTargetSelectRegisterTarget", "8", knobs.AtLeast(1),
		"DynBatch: the most long-latency loads issued in one batch (capped at 16).")
}

// params are the knob values one function is scheduled with.
type params struct {
	enabled    bool
	reduceReg  bool
	dynBatch   bool
	readAvail  int32
	budgetR    int // R-register budget of the pressure-overflow test
	batchDepth int
	keepPeak   bool // SchedKeepPressure
	// argPressure (SchedArgPressure) counts the physical words written
	// for a CALL in the pressure tracker.
	argPressure bool
	floatCalls  bool // SchedFloatAcrossCalls
	keepInput   bool // SchedCapKeepInput
	// uncappedKeepInput (SchedUncappedKeepInput) lets a pass that fell
	// back to no cap keep its input order instead (capfallback.go).
	uncappedKeepInput bool
	// capAtInput caps the R budget of each region at its peak in its
	// input order (set per pass by Schedule).
	capAtInput bool
}

// allocatableR is the number of R registers the allocator may hand out:
// R4 up to R254 (R0-R3 are ABI-reserved).
const allocatableR = 251

func readParams(set *knobs.Set, fn string) params {
	if set == nil {
		set = knobs.Empty(knobs.Default)
	}
	s := set.ForFunction(fn)
	p := params{
		enabled:     s.Bool("ScheduleInstructions"),
		reduceReg:   s.Bool("ScheduleInstructionsReduceReg"),
		dynBatch:    s.Bool("ScheduleInstructionsDynBatch"),
		readAvail:   max(0, s.Int("SchedReadAvailTarget")),
		batchDepth:  int(min(max(s.Int("SchedTexBatchTargetSelectRegisterTarget"), 1), 16)),
		keepPeak:    s.Bool("SchedKeepPressure"),
		argPressure: s.Bool("SchedArgPressure"),
		floatCalls:  s.Bool("SchedFloatAcrossCalls"),
		keepInput:   s.Bool("SchedCapKeepInput"),
	}
	p.uncappedKeepInput = s.Bool("SchedUncappedKeepInput")
	// ComputeRegisterBudget (002:436-448): without an explicit target, the
	// register file less 1/64 of it; then the OK slack comes off.
	target := int(s.Int("SchedMaxRTarget"))
	if target <= 0 {
		target = allocatableR - allocatableR>>6
	}
	p.budgetR = max(1, target-int(s.Int("SchedMaxRLiveOKslack")))
	return p
}
