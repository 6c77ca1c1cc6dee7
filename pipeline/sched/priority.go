package sched

// The priority function: which ready instruction goes next.
//
// ptxas's evaluator (ComputePriority, 001:22216-22600) packs eight
// criteria into a byte and then compares candidates in a fixed cascade
// rather than by the byte's value: the pressure-overflow override first,
// then the differing bits in the order 4 (hot/pressure), 6 (yield), 1
// (critical), 2 (stall-free), 5 (hot-cold), then secondary keys (latency,
// earliest cycle, dependency depth, register delta) and finally program
// order. orilab keeps that structure. For each ready candidate it computes:
//
//	bit 4  hot       a long-latency load (global, generic or local space)
//	                 that can issue now: start it early to hide its latency
//	bit 1  critical  can issue now and lies on the critical path: its height
//	                 is within SchedReadAvailTarget cycles of the tallest
//	                 such candidate
//	bit 2  stall-free its producers' latencies have elapsed and its pipe is
//	                 free at the current cycle
//	bit 5  long      can issue now and has a long latency (above 19 cycles,
//	                 IsLongLatencyOp) but is not a cold memory operation
//	                 (shared or constant space)
//	bit 0  target    reads a variable-latency result (a "barrier target")
//	override         the candidate would push a register class over budget
//
// Decision: ptxas's critical bit in normal mode is one flag for the whole
// ready list (the count of barrier targets against a depth threshold,
// 001:22480), so it never separates candidates; orilab computes it per
// candidate from the DAG heights, and only for candidates that can issue
// now, so that preferring the critical path never means idling while
// another instruction could issue. The hot and long bits are likewise
// limited to candidates that can issue now. Bits 7 and 6 (the YIELD and
// CONTROL pseudo-opcodes) and bit 3 (the candidate comes from another
// block, in cross-block scheduling) never apply to Ori, which has neither
// pseudo-opcode and schedules within blocks, so they are not computed.
//
// The three modes differ in what comes first (002:80-146 says the mode
// selects the weight vector):
//
//	ReduceReg  register deltas (R, P, UR, UP, smaller first), then the
//	           candidate that feeds a computation already started, then
//	           the one that makes more of its consumers ready, then the
//	           ILP cascade; a region whose result peaks higher than its
//	           input order keeps the input order
//	ILP        override, hot, critical, stall-free, long, then earliest
//	           cycle, height, R delta
//	DynBatch   override, batch membership (dynbatch.go), critical,
//	           stall-free, target, then earliest cycle and height
//
// and all end with the input order, which keeps the schedule stable.

import "orilab/pipeline/ori"

// cand is one ready candidate with its priority inputs.
type cand struct {
	i        int32
	at       int32 // earliest issue cycle: producers' latencies and pipe
	sf       bool  // stall-free: at <= now
	hot      bool
	crit     bool
	long     bool
	target   bool
	over     bool
	batch    bool
	delta    [ori.NumClasses]int
	unlock   int  // consumers this candidate is the last unplaced producer of
	feeds    bool // leads to a computation that has started (feedsStarted)
	height   int32
	position int32 // index in the input order
}

// hotLoad reports a load whose latency can reach hundreds of cycles:
// global, generic and local space (001:23709-23723; local memory is
// DRAM-backed like global).
func hotLoad(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpLDG, ori.OpLD, ori.OpLDL:
		return true
	}
	return false
}

// coldMem reports a short-latency memory operation: shared or constant
// space (ptxas's IsColdMemory, 001:22420).
func coldMem(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpLDS, ori.OpSTS, ori.OpLDC, ori.OpULDC, ori.OpATOMS:
		return true
	}
	return false
}

// firstDiff returns +1 when a's flag wins, -1 when b's does, 0 on a tie.
func firstDiff(a, b bool) int {
	switch {
	case a && !b:
		return 1
	case b && !a:
		return -1
	}
	return 0
}

// ilpOrder compares by the ILP cascade without the override; > 0 means a
// goes first.
func ilpOrder(a, b *cand) int {
	for _, f := range [...][2]bool{{a.hot, b.hot}, {a.crit, b.crit}, {a.sf, b.sf}, {a.long, b.long}} {
		if d := firstDiff(f[0], f[1]); d != 0 {
			return d
		}
	}
	if a.at != b.at {
		return compare(b.at, a.at)
	}
	if a.height != b.height {
		return compare(a.height, b.height)
	}
	if a.delta[ori.ClassR] != b.delta[ori.ClassR] {
		return compare(b.delta[ori.ClassR], a.delta[ori.ClassR])
	}
	return compare(b.position, a.position)
}

// better reports whether a goes before b in mode m.
func better(m Mode, a, b *cand) bool {
	switch m {
	case ModeReduceReg:
		for c := range a.delta {
			if a.delta[c] != b.delta[c] {
				return a.delta[c] < b.delta[c]
			}
		}
		// Among equal deltas: first finish computations that have
		// started (their inputs hold registers until they complete), then
		// prefer the value whose consumer can follow at once, since it has
		// the shortest life. Both are a top-down scheduler's way of
		// placing definitions close to their uses (ptxas's
		// pressure-optimized and depth-first strategies, 002:700-707).
		if a.feeds != b.feeds {
			return a.feeds
		}
		if a.unlock != b.unlock {
			return a.unlock > b.unlock
		}
		return ilpOrder(a, b) > 0
	case ModeDynBatch:
		for _, f := range [...][2]bool{{!a.over, !b.over}, {a.batch, b.batch}, {a.crit, b.crit}, {a.sf, b.sf}, {a.target, b.target}} {
			if d := firstDiff(f[0], f[1]); d != 0 {
				return d > 0
			}
		}
		if a.at != b.at {
			return a.at < b.at
		}
		if a.height != b.height {
			return a.height > b.height
		}
		return a.position < b.position
	}
	if a.over != b.over {
		return !a.over
	}
	return ilpOrder(a, b) > 0
}

func compare[T int | int32](x, y T) int {
	switch {
	case x > y:
		return 1
	case x < y:
		return -1
	}
	return 0
}
