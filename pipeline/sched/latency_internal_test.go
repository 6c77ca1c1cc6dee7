package sched

import "testing"

// TestDenseLatencyTables: the arrays Latency reads hold exactly the cells
// of the tables they are built from, and nothing else.
func TestDenseLatencyTables(t *testing.T) {
	for arch, tab := range tables {
		for c := range Class(classSpan) {
			if got, want := denseRates[tableIndex(arch)][c], tab[c]; got != want {
				t.Errorf("sm_%d class %d: dense %v, table %v", arch, c, got, want)
			}
		}
	}
	for c := range Class(classSpan) {
		if got, want := denseFixed[c], fixedCycles[c]; got != want {
			t.Errorf("class %d: dense fixed latency %d, table %d", c, got, want)
		}
	}
	for _, arch := range []int{70, 75, 80, 84, 86, 88, 89, 90, 120} {
		if got, want := tableIndex(arch), map[int]int{75: 0, 80: 1, 86: 2, 89: 3}[TableArch(arch)]; got != want {
			t.Errorf("tableIndex(%d) = %d, want %d", arch, got, want)
		}
	}
}
