package opt

// Dead loads: which loads whose results nobody reads the LiveDead phases
// delete.
//
// A load has no effect but its result, unless it faults. Deleting a dead
// load that would have faulted turns a faulting run into one that
// finishes; that is what ptxas does, and the simulator observes it only
// for an address out of bounds, which no generated (ptxgen) or
// hardware-truth program has.
//
// Decision: a dead weak load is deleted in every state space, a dead
// ordered one (STRONG: .volatile, .relaxed, .acquire) is kept. Evidence:
// ptxas 13.0.88 -arch sm_80 -O3 on a kernel with one dead load of each
// kind (ld.global, ld.global.nc, ldu.global, ld.shared, ld.local,
// ld.const, generic ld, ld.relaxed.gpu.global, ld.acquire.gpu.global,
// ld.volatile.global, ld.volatile.shared) keeps only the two volatile
// loads (LDG.E.STRONG.SYS and LDS) and the CCTL.IVALL of the acquire;
// every other load is gone. orilab keeps the relaxed and acquire loads
// too: its acquire is one instruction (no separate fence to keep), and a
// kept dead load costs an instruction, never a wrong result. The
// lowering drops .volatile from shared loads (LDS has no ordering
// modifiers; mem.go), so a dead volatile LDS goes where ptxas keeps it:
// a read of shared memory changes nothing any thread can observe, and
// no kernel uses the result of a load it discards.
//
// LDSM (a warp collective) and the atomics (which write) stay whatever
// their results: essential keeps them by their other flags.
//
// Knob: DisableDeadLoadElim keeps every load, as orilab did before.

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableDeadLoadElim", Type: knobs.TypeBool,
		Doc: "Switch off deleting weak loads whose results are dead (the LiveDead phases).",
		Readers: []string{"EarlyOriSimpleLiveDead", "OriPerformLiveDeadFirst", "OriPerformLiveDeadSecond",
			"OriPerformLiveDeadThird", "OriSimpleLiveDead", "OriPerformLiveDeadFourth"}})
}

// deadLoadRemovable reports whether in is a load that dead-code
// elimination may delete when all its results are dead: a plain load
// (LDG, LDS, LDL, LDC, LD) without an ordering modifier.
func deadLoadRemovable(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpLDG, ori.OpLDS, ori.OpLDL, ori.OpLDC, ori.OpLD:
	default:
		return false
	}
	if in.Op.Flags()&^ori.FLoad&keptFlags != 0 {
		return false
	}
	return !in.HasMod("STRONG") && !in.HasMod("MMIO")
}
