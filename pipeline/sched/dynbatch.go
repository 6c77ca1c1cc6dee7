package sched

// DynBatch: batch-aware scheduling.
//
// In ptxas the third pass groups GMMA/WGMMA tensor operations into batches
// that issue back to back, sized by the texture-batch knobs and limited by
// the register budget (002:225-283, InitDynBatchState and the DynBatch
// priority bits). Ori has no warpgroup tensor operations, so orilab applies
// the same machinery to the long-latency operations it does have.
//
// Decision: the batchable instructions are the hot loads (global, generic
// and local space), the class ptxas's texture-batch knobs
// (SchedTexBatchTargetSelectRegisterTarget) were made for. A batch is a run
// of batchable loads scheduled back to back so their latencies overlap;
// once a batch holds its target number of loads it closes, and the next
// batch may open when an instruction that consumes a batched load has been
// scheduled (the batch's latency is then being paid anyway). While a batch
// is open and has room, a batchable candidate gets the batch-member bit,
// which outranks everything but the register budget (bit 3, pressureOK: a
// load that would overflow the budget loses to any candidate that would
// not, where ptxas's batchOverflow ends the batch).
//
// The batch target follows sub_8C1BA0's adjustment (002:205-214): with
// maxStall the knob's batch depth and count the batchable loads of the
// region,
//
//	target = min(maxStall, count), and when count > maxStall:
//	    count >= 2*maxStall: count / ceil(count/maxStall)
//	    otherwise:           count / 2
//
// so a region's loads split into batches of even size rather than a full
// batch and a stub.

type batchState struct {
	target int    // loads per batch
	size   int    // loads in the open batch
	closed bool   // the open batch is full; waiting for a consumer
	feeds  []bool // the node reads a load of the current batch
}

// newBatch sizes the batches of region d for the knob's depth maxStall.
func newBatch(d *dag, maxStall int) *batchState {
	b := &batchState{feeds: make([]bool, len(d.insts))}
	count := 0
	for _, in := range d.insts {
		if hotLoad(in) {
			count++
		}
	}
	b.target = adjustedBatchTarget(maxStall, count)
	return b
}

// adjustedBatchTarget is sub_8C1BA0's target adjustment (batchMode 0).
func adjustedBatchTarget(maxStall, count int) int {
	t := maxStall
	if maxStall > count {
		t = count
	}
	if count > maxStall {
		if count >= 2*maxStall {
			t = count / ((count + maxStall - 1) / maxStall)
		} else {
			t = count / 2
		}
	}
	return max(t, 1)
}

// member reports whether node i would join the open batch.
func (b *batchState) member(d *dag, i int32) bool {
	return !b.closed && b.size < b.target && hotLoad(d.insts[i])
}

// commit records that node i was scheduled.
func (b *batchState) commit(d *dag, i int32) {
	if b.member(d, i) {
		b.size++
		b.closed = b.size >= b.target
		for _, e := range d.succ[i] {
			if e.kind&depRAW != 0 {
				b.feeds[e.to] = true
			}
		}
		return
	}
	if b.feeds[i] {
		// A consumer of the batch: its latency is being waited for now,
		// so the next batch may start.
		b.size, b.closed = 0, false
		clear(b.feeds)
	}
}
