package sched

// AssignConservativeControlWords: the -O0 control words
// (ProcessO0WaitsAndSBs, 001:24340-24370).
//
// ptxas's -O0 form does no dependency analysis: every instruction stalls
// the maximum 15 cycles, yields, and waits on every barrier. orilab keeps
// that shape:
//
//   - stall 15 and yield on every instruction (15 covers every fixed
//     latency, at most 6 cycles);
//   - every instruction waits on every barrier that may be pending when it
//     issues, so at most the previous instruction's barriers are ever in
//     flight;
//   - no reuse flags.
//
// Decision: the wiki's -O0 pseudocode also sets no barriers at all
// (write barrier 7, read mask 0) and waits on all six. Without a barrier
// nothing tells a consumer when a load's result has arrived: a 15-cycle
// stall does not cover a global load, so that form is not safe on the
// machine this package models. orilab's -O0 form therefore gives every
// variable-latency instruction with register results write barrier 0, and
// one with only register sources (a store) read barrier 1, and waits only
// on barriers that may be pending: the hazard checker rejects a wait on a
// barrier no instruction has set, which is how it catches a dropped
// barrier.

import "orilab/pipeline/ori"

// AssignConservativeControlWords fills every control word in the -O0 form.
// f must be allocated: physical registers only.
func AssignConservativeControlWords(f *ori.Func, arch int) error {
	fs, err := prepare(f, arch)
	if err != nil {
		return err
	}
	defer factsKept.put(fs, f.NumInsts())
	for _, b := range f.Blocks {
		bf := fs.of(b)
		for i, x := range b.Insts {
			x.Ctrl.Stall, x.Ctrl.Yield = 15, true
			fx := &bf[i]
			if !fx.info.Variable {
				continue
			}
			switch {
			case len(fx.u.dsts) > 0:
				x.Ctrl.WrBar = 0
			case len(lateSources(&fx.u)) > 0:
				x.Ctrl.RdBar = 1
			}
		}
	}
	assignWaits(f, fs, func(_ *fact, pending uint8) uint8 { return pending })
	pruneWaits(f, fs)
	setGroupBarrier(f)
	return nil
}
