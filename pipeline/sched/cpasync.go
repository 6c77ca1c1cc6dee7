package sched

import "orilab/pipeline/ori"

// The scoreboard of cp.async groups (lower/cpasync.go).
//
// LDGSTS is a store as far as registers go: it reads its two addresses
// and its predicate after issue, so it takes a read barrier like STS
// (Latency: the global class), and a later write of those registers
// waits on it. Its data never passes through a register.
//
// LDGDEPBAR closes the group of the LDGSTS before it and counts it on a
// scoreboard, the one its control word names as its write barrier;
// DEPBAR.LE SBn, k waits by itself, in the hardware, until that
// scoreboard counts at most k. ptxas 13.0.88 always uses SB0 for it
// (LDGDEPBAR [W0], DEPBAR.LE SB0) and gives no other instruction of such
// a function barrier 0 (testdata/kernels/cp_async_srcsize: its LDS take
// W1-W3). orilab does the same: with an LDGDEPBAR in the function the
// allocator hands out barriers 1-5 only, and setGroupBarrier writes W0
// into every LDGDEPBAR last, outside the wait dataflow, so that no
// instruction waits on a group through its wait mask (a CALL or BAR
// would otherwise wait for every copy in flight, which the program did
// not ask for; the PTX memory model orders the copies only through
// cp.async.wait_group). At -O0 every variable-latency result uses
// barrier 0 too; a barrier counts, so sharing it only makes a wait
// longer.

// groupBarrier is the scoreboard LDGDEPBAR counts groups on.
const groupBarrier = 0

// setGroupBarrier gives every LDGDEPBAR of f its write barrier.
func setGroupBarrier(f *ori.Func) {
	for _, b := range f.Blocks {
		for _, x := range b.Insts {
			if x.Op == ori.OpLDGDEPBAR {
				x.Ctrl.WrBar = groupBarrier
			}
		}
	}
}
