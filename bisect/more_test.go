package bisect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

func loadSpec(t *testing.T, path string) *spec.Spec {
	t.Helper()
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// specWithoutExpect writes a copy of iadd.json without expectations, so
// the oracle is the IR right after lowering.
func specWithoutExpect(t *testing.T) *spec.Spec {
	t.Helper()
	ptx, err := filepath.Abs("../testdata/kernels/iadd.ptx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	js := fmt.Sprintf(`{"name": "iadd_noexpect", "ptx": %q, "kernel": "iadd",
  "launch": {"grid": [3, 1, 1], "block": [128, 1, 1]},
  "params": [
    {"name": "a", "kind": "buffer", "elem": "u32", "count": 384, "init": "lcg:7"},
    {"name": "b", "kind": "buffer", "elem": "u32", "count": 384, "init": "index"},
    {"name": "c", "kind": "buffer", "elem": "u32", "count": 384, "init": "zero"},
    {"name": "n", "kind": "scalar", "type": "u32", "value": "300"}]}`, ptx)
	p := filepath.Join(dir, "iadd_noexpect.json")
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadSpec(t, p)
}

func TestPassingKernelHasNoCulprit(t *testing.T) {
	s := loadSpec(t, "../testdata/kernels/iadd.json")
	pr, err := Phase(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Found || pr.Executions != 1 || !strings.Contains(pr.Reason, "passes") {
		t.Fatalf("%+v", pr)
	}
	dr, err := Disable(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if dr.Found || dr.Executions != 1 {
		t.Fatalf("%+v", dr)
	}
}

// TestLoweredOracle breaks a phase of a spec without expected values: the
// oracle is then the output of the IR right after lowering.
func TestLoweredOracle(t *testing.T) {
	s := specWithoutExpect(t)
	if pr, err := Phase(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}}); err != nil || pr.Found {
		t.Fatalf("unbroken: %+v %v", pr, err)
	}
	restore := pipeline.SetPhaseOverrideForTest("GeneralOptimizeMid", plant(breakStoreOff, -1))
	defer restore()
	pr, err := Phase(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !pr.Found || pr.Name != "GeneralOptimizeMid" || pr.Index != 40 || !strings.Contains(pr.Oracle, "lowering") {
		t.Fatalf("%+v", pr)
	}
	if len(pr.Mismatches) == 0 || pr.Mismatches[0].Param != "c" || len(pr.Mismatches[0].First) == 0 {
		t.Fatalf("mismatches: %+v", pr.Mismatches)
	}
	if pr.Replay != "orilab bisect "+s.File+" -O 3 --mode phase" {
		t.Errorf("replay %q", pr.Replay)
	}
	if !strings.Contains(pr.Diff, "\n-\t#32 STG.E [%r14.64], %r17 ;") || !strings.Contains(pr.Diff, "\n+\t#32 STG.E [%r14.64+0x4], %r17 ;") {
		t.Errorf("diff does not show the store:\n%s", pr.Diff)
	}
	t.Logf("%d executions\n%s", pr.Executions, pr.Diff)
	dr, err := Disable(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !dr.Found || len(dr.Phases) != 1 || dr.Phases[0] != "GeneralOptimizeMid" || dr.Knob != "-knob DisablePhases=GeneralOptimizeMid" {
		t.Fatalf("%+v", dr)
	}
}

// TestRequiredCulprit: a broken required phase is named by phase mode, and
// disable mode reports that no optional set helps.
func TestRequiredCulprit(t *testing.T) {
	s := loadSpec(t, "../testdata/kernels/iadd.json")
	restore := pipeline.SetPhaseOverrideForTest("OriSanitize", plant(breakStoreOff, -1))
	defer restore()
	pr, err := Phase(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil || !pr.Found || pr.Name != "OriSanitize" || !pr.Required {
		t.Fatalf("%+v %v", pr, err)
	}
	dr, err := Disable(context.Background(), s, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil || dr.Found || !strings.Contains(dr.Reason, "required") {
		t.Fatalf("%+v %v", dr, err)
	}
}

// TestBaseDisablePhases: phases disabled on the command line stay disabled
// and appear in the replay and knob lines.
func TestBaseDisablePhases(t *testing.T) {
	s := loadSpec(t, "../testdata/kernels/iadd.json")
	restore := pipeline.SetPhaseOverrideForTest("OriCopyProp", plant(breakIADD3Imm, -1))
	defer restore()
	opts := Options{Request: pipeline.Request{OptLevel: 3, DisablePhases: []string{"OriCommoning"}}}
	pr, err := Phase(context.Background(), s, opts)
	if err != nil || !pr.Found || pr.Name != "OriCopyProp" {
		t.Fatalf("%+v %v", pr, err)
	}
	if !strings.Contains(pr.Replay, "-knob DisablePhases=OriCommoning --mode phase") {
		t.Errorf("replay %q", pr.Replay)
	}
	dr, err := Disable(context.Background(), s, opts)
	if err != nil || !dr.Found || dr.Knob != "-knob DisablePhases=OriCommoning+OriCopyProp" {
		t.Fatalf("%+v %v", dr, err)
	}
}

func TestCompileOnlyAndCancel(t *testing.T) {
	s := loadSpec(t, "../testdata/kernels/iadd.json")
	cp := *s
	cp.CompileOnly, cp.Expect = true, nil
	if _, err := Phase(context.Background(), &cp, Options{Request: pipeline.Request{OptLevel: 3}}); err == nil || !strings.Contains(err.Error(), "compile_only") {
		t.Errorf("compile_only: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Phase(ctx, s, Options{Request: pipeline.Request{OptLevel: 3}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestDDMin(t *testing.T) {
	calls := 0
	// The property holds when the set contains both 3 and 11.
	test := func(set []int) (bool, error) {
		calls++
		has := map[int]bool{}
		for _, x := range set {
			has[x] = true
		}
		return has[3] && has[11], nil
	}
	var all []int
	for i := 0; i < 16; i++ {
		all = append(all, i)
	}
	got, err := ddmin(all, test)
	if err != nil || fmt.Sprint(got) != "[3 11]" {
		t.Fatalf("ddmin = %v, %v", got, err)
	}
	got, _ = ddmin([]int{7}, test)
	if fmt.Sprint(got) != "[7]" {
		t.Fatalf("single: %v", got)
	}
}
