//go:build !linux

package main

// adviseHugePages is Linux's transparent huge pages; elsewhere the heap
// keeps the runtime's defaults.
func adviseHugePages(size int) (uintptr, bool) { return 0, false }
