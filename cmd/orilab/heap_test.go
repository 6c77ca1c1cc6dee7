package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestPrepareHeap checks when a compile prepares the heap and what that
// leaves behind: the collector's target, and on Linux a heap mapping
// advised for huge pages (VmFlags "hg" in /proc/self/smaps).
func TestPrepareHeap(t *testing.T) {
	orig := debug.SetGCPercent(compileGCPercent)
	defer debug.SetGCPercent(orig)
	var advised uintptr
	for _, c := range []struct {
		n          int
		gogc, mode string
		want       bool
	}{
		{heapMinSource - 1, "", "", false},
		{heapMinSource, "100", "", false},
		{heapMinSource, "", "plain", false},
		{heapMinSource, "", "", runtime.GOOS == "linux"},
	} {
		debug.SetGCPercent(compileGCPercent)
		at, got := prepareHeapAt(c.n, c.gogc, c.mode)
		if got {
			advised = at
		}
		pct := debug.SetGCPercent(compileGCPercent)
		if got != c.want {
			t.Errorf("prepareHeap(%d, GOGC=%q, ORILAB_HEAP=%q) = %v, want %v", c.n, c.gogc, c.mode, got, c.want)
		}
		wantPct := compileGCPercent
		if c.want {
			wantPct = heapGCPercent
		}
		if pct != wantPct {
			t.Errorf("prepareHeap(%d, GOGC=%q, ORILAB_HEAP=%q): GC percent %d, want %d", c.n, c.gogc, c.mode, pct, wantPct)
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	// The block that made the runtime map the range is garbage: the next
	// collection frees it, so the compile's allocations can reuse the
	// range.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc >= heapMinRange {
		t.Errorf("after a collection the heap holds %d bytes; the %d-byte block was kept", ms.HeapAlloc, heapMinRange)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	// The mapping that holds the advised range: its header line is
	// "start-end perms ...", its last line "VmFlags: ...".
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(line, "%x-%x ", &lo, &hi); err == nil && strings.Contains(line, " ") {
			in = lo <= advised && advised < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line+" ", " hg ") {
				t.Errorf("the heap mapping at %#x is not advised for huge pages: %s", advised, line)
			}
			return
		}
	}
	t.Errorf("no mapping holds the advised range at %#x", advised)
}
