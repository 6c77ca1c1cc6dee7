package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// hangSpec is a kernel that waits for a flag nobody sets: every execution
// of it hangs until the step limit.
const hangSpec = "testdata/hang/spin.json"

// TestBisectTimeoutStopsAHang: --timeout ends a search promptly even while
// an execution hangs (it waited for the whole step limit, some 40 s), and
// says where the search stood.
func TestBisectTimeoutStopsAHang(t *testing.T) {
	start := time.Now()
	code, _, errs := runCLI(t, "bisect", hangSpec, "--mode", "phase", "--timeout", "1s")
	took := time.Since(start)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if took > 10*time.Second {
		t.Errorf("--timeout 1s took %s", took.Round(time.Millisecond))
	}
	for _, want := range []string{"orilab bisect: gave up after --timeout 1s\n", "orilab bisect: it stood at: executing after "} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestBisectReportsHangs: the report and the JSON say how many executions
// hung at the step limit.
func TestBisectReportsHangs(t *testing.T) {
	code, out, errs := runCLI(t, "bisect", hangSpec, "--mode", "phase", "--max-steps", "20000")
	if code != exitMismatch {
		t.Errorf("exit %d, want %d; stderr %s", code, exitMismatch, errs)
	}
	want := "spin: no culprit: the IR right after lowering already fails: the lowering (or the spec) is at fault, not a phase (4 executions, 4 of them hung at the step limit and counted as failures (--max-steps bounds each))\n"
	if out != want {
		t.Errorf("stdout\n%q\nwant\n%q", out, want)
	}
	_, out, _ = runCLI(t, "bisect", hangSpec, "--mode", "phase", "--max-steps", "20000", "--json")
	var r struct{ Executions, Hangs int }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Executions != 4 || r.Hangs != 4 {
		t.Errorf("JSON executions %d hangs %d, want 4 and 4:\n%s", r.Executions, r.Hangs, out)
	}
}
