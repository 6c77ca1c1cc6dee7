package main

import "runtime/debug"

// Heap preparation for a compile of a large source.
//
// Decision: measured with perf on `orilab compile -arch sm_80 -O3` of
// convolutionSeparable.ptx (66 KB) on the 2-core development VM, a third
// of the process's CPU samples were kernel page faults: the Go runtime
// takes fresh 4 KB pages from the kernel as the heap grows and does not
// clear them, so the first touch of each is a fault, and a page first
// read (mapped to the shared zero page) and then written is a second,
// copy-on-write fault that flushes the other core's TLB with an IPI.
// Backing the heap with transparent huge pages makes that one fault per
// 2 MB. The runtime does not ask for huge pages (it maps heap memory
// without MADV_HUGEPAGE, and the machine's THP mode is "madvise"), so
// prepareHeap does: it allocates one large block, which makes the runtime
// map that much address space for the heap, marks the mapping
// MADV_HUGEPAGE and drops the block. The advice belongs to the mapping,
// not to the pages, so once the first collection frees the block, the
// compile's allocations that reuse the range fault in huge pages.
// Returning the block at once (debug.FreeOSMemory, a blocking collection
// and a scavenge) cost more than it saved once the compiles allocated
// less: the collection that frees the block runs concurrently instead.
// With page faults this cheap, collecting less often pays too: the
// collector's target is raised to heapGCPercent. Medians of 20
// alternated runs, wall ms (CPU ms, user+sys), ORILAB_HEAP=plain against
// prepared, on the development VM: mcx_core 142.6 (142.1) -> 127.7
// (117.7), track_ellipse_kernel 59.8 (60.5) -> 54.0 (53.2),
// simpleTexture_kernel 29.8 (29.2) -> 27.6 (26.8), lud_kernel 35.7 (34.0)
// -> 32.9 (31.0), convolutionSeparable 35.2 (33.5) -> 35.2 (33.1),
// dct8x8_kernel_short 31.9 (32.0) -> 32.6 (30.9). Sources under 20 KB are
// left alone: there the bigger heap cost more than their compiles fault
// (sad4.ptx, 14 KB: 15.4 -> 17.2; cuenergy_pre8_coalesce, 7 KB: 21.3 ->
// 23.4; scan_largearray_kernel, 19 KB: 17.9 -> 18.0).
const (
	// heapMinSource is the smallest source prepareHeap prepares for.
	heapMinSource = 20 << 10
	// heapPerSourceByte estimates the heap a compile needs per source
	// byte, to size the huge-page range.
	heapPerSourceByte = 1024
	heapMinRange      = 32 << 20
	heapMaxRange      = 128 << 20
	// heapGCPercent is the collector's target once the heap is prepared.
	heapGCPercent = 800
)

// prepareHeap readies the heap for compiling a source of n bytes and
// reports whether it did. It leaves the heap alone for a small source,
// when the environment's GOGC (gogc) chose the collector's target, or
// when ORILAB_HEAP (mode) is "plain", which asks for the runtime's
// defaults, to measure this against them.
func prepareHeap(n int, gogc, mode string) bool {
	_, ok := prepareHeapAt(n, gogc, mode)
	return ok
}

// prepareHeapAt is prepareHeap that also returns the start of the range
// advised, for the test.
func prepareHeapAt(n int, gogc, mode string) (uintptr, bool) {
	if n < heapMinSource || gogc != "" || mode == "plain" {
		return 0, false
	}
	size := min(max(n*heapPerSourceByte, heapMinRange), heapMaxRange)
	// No collection may start while the block is allocated: one started
	// by the block's own allocation marks it live (objects allocated
	// during marking survive that cycle), and the range is then never
	// reused.
	old := debug.SetGCPercent(-1)
	at, ok := adviseHugePages(size)
	if !ok {
		debug.SetGCPercent(old)
		return 0, false
	}
	debug.SetGCPercent(heapGCPercent)
	return at, true
}
