package sched

// What a capped pass falls back to when its capped order needs too many
// predicates.
//
// Before allocation, the ILP and DynBatch passes after ReduceReg are
// capped at each region's R peak in its input order (SchedKeepPressure).
// Where the capped order needs more P registers than the P file holds
// (P0-P6) and than the input order, scheduleRegion runs the pass again
// without the cap (cp_async_srcsize: holding R values back left 24 guarded
// loads' predicates live at once, and the P class spilled into R). The
// uncapped pass has the whole register file as its R budget, so it can
// end far above the input order: in testdata's ptxas_folds (one block of
// stores, loads, f64 constants and two unrolled fns expansions), the
// capped ILP order peaked at 15 R words and 8 predicates, the uncapped
// one at 30 R words, where ReduceReg's order (the pass's input) needs 8
// words and 2 predicates; the kernel took 33 registers (ptxas 24; 11 in
// the input order).
//
// keepInputUncapped applies the evaluate-then-commit rule of
// SchedCapKeepInput to that fallback too (SchedUncappedKeepInput): the
// input order is kept when the uncapped order ends more than one word above
// the input's R peak, or needs more predicates than the P file and the
// input order. The input order never needs more predicates than itself,
// so the fallback's reason (too many predicates) does not come back.

import "orilab/pipeline/ori"

// keepInputUncapped reports whether a region keeps its input order rather
// than the order of the uncapped pass that replaced a capped one with too
// many predicates; in and out are the input's and the uncapped order's
// trackers after every node was placed.
func keepInputUncapped(p params, in, out *pressure) bool {
	if !p.uncappedKeepInput {
		return false
	}
	return out.peak > in.peak+1 || out.peakP > max(in.peakP, ori.ClassP.Limit())
}
