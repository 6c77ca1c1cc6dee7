package regalloc

import (
	"fmt"
	"sort"
	"strconv"

	"orilab/pipeline/knobs"
)

// The RA knobs orilab implements, with ptxas's names and types (knob
// catalog 001:40085-40225; defaults where the wiki gives them).
const (
	knobThreshold  = "RegAllocThresholdForDiscardConflicts"
	knobTrials     = "RegAllocNumNonSpillTrials"
	knobRemat      = "RegAllocRematEnable"
	knobRematRange = "RegAllocRematDisableRange"
	knobCoalescing = "RegAllocCoalescing"
	knobTargets    = "RegTargetList"
	knobLoopIters  = "RegAllocEstimatedLoopIterations"
	knobPrint      = "RegAllocPrintDetails"
	// knobLowRegs is orilab's own (ptxas has no such knob: it always
	// allocates R0, R2 and R3).
	knobLowRegs = "RegAllocLowRegisters"
	// knobTrimUndef is orilab's own too (undefined.go).
	knobTrimUndef = "RegAllocTrimUndefined"
	// knobWordRanges is orilab's own too (wordranges.go).
	knobWordRanges = "RegAllocWordRanges"
	// knobSameValue is orilab's own too (samevalue.go).
	knobSameValue = "RegAllocSameValueCopies"
)

var allocReaders = []string{"AllocateRegisters"}

func init() {
	reg := func(name string, t knobs.Type, def, doc string) {
		knobs.Default.Register(knobs.Knob{Name: name, Type: t, Default: def, Doc: doc, Readers: allocReaders})
	}
	// regInt registers an integer knob whose values must lie in bounds.
	regInt := func(name, def string, bounds *knobs.Range, doc string) {
		knobs.Default.Register(knobs.Knob{Name: name, Type: knobs.TypeInt, Default: def, Bounds: bounds, Doc: doc, Readers: allocReaders})
	}
	regInt(knobThreshold, "50", knobs.AtLeast(0),
		"spill guidance discards a register as an eviction candidate when more live ranges than this conflict there")
	// Decision: 0 is accepted and read as 1 (below), not rejected: recorded
	// fuzz findings (testdata/fuzzfindings/regtarget-*) replay with it.
	regInt(knobTrials, "2", knobs.AtLeast(0),
		"NOSPILL allocation trials before spilling, at least 1 (trial 0 in priority order, trial 1 in program order, alternating); -O0 makes 1 unless set")
	reg(knobRemat, knobs.TypeInt, "1",
		"rematerialize spilled values that are cheap to recompute (constants, constant-bank loads, stable special registers) instead of reloading them; 0 disables")
	reg(knobRematRange, knobs.TypeIntRange, "",
		"instruction IDs lo..hi whose results are never rematerialized (for bisecting a remat problem)")
	reg(knobCoalescing, knobs.TypeBool, "1",
		"prefer one register for both sides of a copy so the copy disappears; =0 disables")
	reg(knobTargets, knobs.TypeIntList, "",
		"register targets (R registers, counting R0-R3) to choose from: the smallest one the function fits in without spilling, else the largest; each is capped by --maxrregcount")
	reg(knobLoopIters, knobs.TypeString, "8",
		"iterations assumed per loop when weighting spill costs: a block in d loops weighs N^d")
	reg(knobLowRegs, knobs.TypeBool, "1",
		"in a kernel without calls, allocate R0, R2 and R3 as ptxas does (R1 stays the stack pointer); =0 starts every allocation at R4")
	reg(knobTrimUndef, knobs.TypeBool, "1",
		"take the positions that no definition of a value reaches (before its first, possibly guarded, definition) out of its live range; =0 keeps them")
	reg(knobWordRanges, knobs.TypeBool, "1",
		"give each word of a register tuple its own live range, so a dead word's register can hold another value; =0 keeps a tuple's registers busy wherever any word is live")
	reg(knobSameValue, knobs.TypeBool, "1",
		"let the two sides of a register copy share a register where both are live, when neither is written again while the other is live; =0 coalesces a copy only where its source dies")
	reg(knobPrint, knobs.TypeBool, "",
		"write the allocator's guidance (ABI saves, spill decisions, evictions) to the allocation log")
}

// settings are the knob values one allocation reads.
type settings struct {
	threshold  int
	trials     int
	remat      bool
	rematRange *knobs.Range
	coalescing bool
	targets    []int
	loopIters  float64
	print      bool
	lowRegs    bool
	trimUndef  bool
	wordRanges bool
	sameValue  bool
}

// readSettings reads the knobs for function fn from s (nil: defaults).
func readSettings(s *knobs.Set, fn string, optLevel int) (settings, error) {
	if s == nil {
		s = knobs.Empty(nil)
	}
	if _, ok := s.Registry().Lookup(knobThreshold); !ok {
		// A set over a registry without the RA knobs cannot have set
		// any of them: every knob has its default.
		s = knobs.Empty(nil)
	}
	s = s.ForFunction(fn)
	st := settings{
		threshold:  int(s.Int(knobThreshold)),
		trials:     int(s.Int(knobTrials)),
		remat:      s.Int(knobRemat) != 0,
		coalescing: s.Bool(knobCoalescing),
		print:      s.Bool(knobPrint),
		lowRegs:    s.Bool(knobLowRegs),
		trimUndef:  s.Bool(knobTrimUndef),
		wordRanges: s.Bool(knobWordRanges),
		sameValue:  s.Bool(knobSameValue),
	}
	if s.IsSet(knobRematRange) {
		r := s.Range(knobRematRange)
		st.rematRange = &r
	}
	if st.trials < 1 {
		st.trials = 1
	}
	if optLevel == 0 && !s.IsSet(knobTrials) {
		st.trials = 1
	}
	for _, t := range s.IntList(knobTargets) {
		if t <= 0 {
			return st, fmt.Errorf("regalloc: %s: %s=%d: register targets must be positive", fn, knobTargets, t)
		}
		st.targets = append(st.targets, int(t))
	}
	sort.Ints(st.targets)
	it, err := strconv.ParseFloat(s.Str(knobLoopIters), 64)
	if err != nil || it < 1 {
		return st, fmt.Errorf("regalloc: %s: %s=%q: want a number of iterations of at least 1", fn, knobLoopIters, s.Str(knobLoopIters))
	}
	st.loopIters = it
	return st, nil
}
