package fp

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestTanhHardwareFuzz compares TanhSFU32 with what the H100's
// tanh.approx.f32 returned for operands of the recorded random programs
// (../shared/hwtruth/fuzz-h100.tgz), recovered by pipeline's
// TestMUFUExtract into testdata/tanh-h100-fuzz.txt: operands of
// magnitude in (2^-8, 0.5) and [2, 8), with random low fraction bits,
// which the structured sweep (the top 9 fraction bits only) that the
// tables were solved from does not have. A line "program x lo hi" says
// the result lies in [lo, hi]; most are exact (lo == hi).
func TestTanhHardwareFuzz(t *testing.T) {
	f, err := os.Open("testdata/tanh-h100-fuzz.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, exact, line := 0, 0, 0
	operands := map[uint32]bool{}
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		var prog string
		var x, lo, hi uint32
		if _, err := fmt.Sscanf(l, "%s %x %x %x", &prog, &x, &lo, &hi); err != nil {
			t.Fatalf("testdata/tanh-h100-fuzz.txt:%d: %v", line, err)
		}
		n++
		operands[x] = true
		if lo == hi {
			exact++
		}
		if got := TanhSFU32(x); got < lo || got > hi {
			t.Errorf("%s: tanh.approx.f32(%#08x) = %#08x, the H100 gave %#08x..%#08x", prog, x, got, lo, hi)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 500 {
		t.Fatalf("testdata/tanh-h100-fuzz.txt: %d observations, want the file's 500 or more", n)
	}
	t.Logf("%d observations (%d exact) of %d operands agree", n, exact, len(operands))
}
