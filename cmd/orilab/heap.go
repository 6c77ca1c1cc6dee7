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
// MADV_HUGEPAGE, and returns the block to the runtime and its pages to
// the kernel (debug.FreeOSMemory). The advice belongs to the mapping, not
// to the pages, so it stays when the pages are released, and the
// compile's allocations that reuse the range fault in huge pages; the
// runtime knows released pages come back zeroed and does not clear them.
// With page faults this cheap, collecting less often pays too: the
// collector's target is raised to heapGCPercent. Medians of 20
// alternated runs (CPU ms, user+sys, on the development VM while other
// compiles loaded it): convolutionSeparable 61.0 -> 51.7, mcx_core 191 ->
// 154, lud_kernel 52.0 -> 46.0, track_ellipse_kernel 81.3 -> 73.8. Sources
// under 20 KB are left alone: the forced collection and the new arena's
// metadata cost a few milliseconds, more than their compiles fault
// (sad4.ptx, 14 KB: 19.2 -> 24.0; scan_largearray_kernel, 19 KB: 21.7 ->
// 25.4).
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
	at, ok := adviseHugePages(size)
	if !ok {
		return 0, false
	}
	debug.FreeOSMemory()
	debug.SetGCPercent(heapGCPercent)
	return at, true
}
