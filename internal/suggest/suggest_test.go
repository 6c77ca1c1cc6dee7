package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"OriBranchOx", "OriBranchOpt", 2}, {"flaw", "lawn", 2}, {"same", "same", 0},
	} {
		if got := Distance(tc.a, tc.b, 0); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
		if got := Distance(tc.b, tc.a, 0); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.d)
		}
		if got := Distance(tc.a, tc.b, 1); tc.d >= 1 && got < 1 {
			t.Errorf("Distance(%q, %q, bound 1) = %d, want at least 1", tc.a, tc.b, got)
		}
		if got := Distance(tc.a, tc.b, tc.d+1); got != tc.d {
			t.Errorf("Distance(%q, %q, bound %d) = %d, want %d", tc.a, tc.b, tc.d+1, got, tc.d)
		}
	}
}
