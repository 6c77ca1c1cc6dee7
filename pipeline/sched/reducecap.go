package sched

// ReduceReg capped at the input order: before allocation, the
// register-pressure pass (ReduceReg) may not raise a region's R pressure
// above the peak of the region in its input order, as the ILP and
// DynBatch passes after it may not raise it above ReduceReg's
// (SchedKeepPressure).
//
// Why: ReduceReg reduces pressure only against the register budget,
// which without SchedMaxRTarget is the whole register file; below it, it
// orders by latency like ILP. In testdata/kernels/ptxas_folds.ptx, one
// block of eleven independent load-compute-store chains, it issued every
// load and constant first: 33 registers at sm_80 where the input order
// needs 11 and ptxas 13.0.88 uses 24. The cap reuses capAtInput (the
// P-file escape included: where the capped order needs more predicates
// than the file and the input order, the region is scheduled uncapped).
//
// Knob: SchedReduceRegCapAtInput=0 leaves ReduceReg the whole budget.

import "orilab/pipeline/knobs"

func init() {
	knobs.Default.Register(knobs.Knob{Name: "SchedReduceRegCapAtInput", Type: knobs.TypeBool, Default: "1",
		Doc:     "Before allocation, the ReduceReg pass may not raise the R pressure of any block above its peak in the input order; =0 leaves it the whole register budget.",
		Readers: []string{reader}})
}

// reduceRegCapped reports whether ReduceReg is capped at the input
// order's peak for function fn.
func reduceRegCapped(set *knobs.Set, fn string) bool {
	if set == nil {
		set = knobs.Empty(knobs.Default)
	}
	return set.ForFunction(fn).Bool("SchedReduceRegCapAtInput")
}
