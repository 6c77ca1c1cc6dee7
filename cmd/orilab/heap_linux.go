package main

import (
	"syscall"
	"unsafe"
)

// adviseHugePages makes the runtime map size bytes of heap and marks the
// mapping MADV_HUGEPAGE; it returns the range's start, or false when the
// kernel refused the advice. The block is garbage once this returns.
func adviseHugePages(size int) (uintptr, bool) {
	b := make([]byte, size)
	if syscall.Madvise(b, syscall.MADV_HUGEPAGE) != nil {
		return 0, false
	}
	return uintptr(unsafe.Pointer(&b[0])), true
}
