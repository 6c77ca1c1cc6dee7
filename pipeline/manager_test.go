package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ori"
)

func kernelSrc(t testing.TB) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "iadd.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestPhasePlanReasons(t *testing.T) {
	rows := PhasePlan(3, 75)
	want := map[string]string{
		"OptimizeNaNOrZero":     "not built yet: orilab has no implementation of this phase",
		"AdvancedPhasePreSched": "gate hook: no-op by default; its worker ScheduleInstructions runs at its own position",
		"NOP":                   "the terminal NOP phase (ptxas maps unknown phase names here); it never does anything",
	}
	for _, r := range rows {
		if w, ok := want[r.Name]; ok && r.Reason != w {
			t.Errorf("%s: reason %q, want %q", r.Name, r.Reason, w)
		}
	}
	o0 := PhasePlan(0, 75)
	if r := o0[14]; r.Name != "DoSwitchOptFirst" || r.Reason != "O-level gate: runs at -O1 and above (this is -O0)" {
		t.Errorf("-O0 %s: %q", r.Name, r.Reason)
	}
	if r := PhasePlan(1, 75)[139]; r.Name != "ProcessO0WaitsAndSBs" || r.Reason != "O-level gate: runs only at -O0 (this is -O1)" {
		t.Errorf("-O1 %s: %q", r.Name, r.Reason)
	}
}

func TestSessionStopAndResume(t *testing.T) {
	s, err := NewSession("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(12); err != nil {
		t.Fatal(err)
	}
	if s.Next() != 13 || len(s.Snapshots) != 13 || s.Done() {
		t.Fatalf("after RunTo(12): next %d, %d snapshots", s.Next(), len(s.Snapshots))
	}
	if err := s.RunAll(); err != nil {
		t.Fatal(err)
	}
	if !s.Done() || len(s.Snapshots) != 159 {
		t.Fatalf("after RunAll: %d snapshots", len(s.Snapshots))
	}
	for i, sn := range s.Snapshots {
		if sn.Index != i || sn.Name != PhaseTable[i].Name || sn.Module == nil || sn.Insts == 0 {
			t.Fatalf("snapshot %d is %+v", i, sn)
		}
	}
	if sn := s.Snapshots[0]; sn.Status != StatusUnchanged {
		t.Errorf("OriCheckInitialProgram: %s, want unchanged", sn.Status)
	}
}

func TestDisablePhases(t *testing.T) {
	src := kernelSrc(t)
	_, err := NewSession("iadd.ptx", src, Options{}, PhaseOptions{OptLevel: 3, DisablePhases: []string{"oribranchopt", "SinkCodeIntoBlock"}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewSession("iadd.ptx", src, Options{}, PhaseOptions{OptLevel: 3, DisablePhases: []string{"OriBranchOpt"}})
	s.RunAll()
	if sn := s.Snapshots[15]; sn.Status != StatusDisabled || sn.Reason != "disabled by the DisablePhases knob" {
		t.Errorf("OriBranchOpt: %s %q", sn.Status, sn.Reason)
	}
	cases := map[string]string{
		"OriBrnchOpt": `DisablePhases: unknown phase "OriBrnchOpt" (did you mean "OriBranchOpt"?)`,
		"OriSanitize": "DisablePhases: OriSanitize is a required phase and cannot be disabled",
		// Without convergence barriers a warp never reconverges (fuzz seed
		// 104542, testdata/fuzzfindings/fixup-disabled-activemask).
		"FixUpTexDepBarAndSync": "DisablePhases: FixUpTexDepBarAndSync is a required phase and cannot be disabled",
		"NotAPhaseAtAllReally":  `DisablePhases: unknown phase "NotAPhaseAtAllReally" (orilab phases lists them)`,
		// Two edits from NOP is a different name, not a typo of it (issue 22).
		"Foo": `DisablePhases: unknown phase "Foo" (orilab phases lists them)`,
		"all": `DisablePhases: unknown phase "all" (orilab phases lists them)`,
	}
	for name, want := range cases {
		_, err := NewSession("iadd.ptx", src, Options{}, PhaseOptions{DisablePhases: []string{name}})
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", name, err, want)
		}
	}
}

// withPhase installs test code for a phase's row.
func withPhase(t *testing.T, name string, run func(c *PhaseContext) error) {
	i := mustPhase(name)
	old := PhaseTable[i]
	PhaseTable[i].Fn, PhaseTable[i].NoOp = PhaseFunc{Run: run}, ""
	t.Cleanup(func() { PhaseTable[i] = old })
}

func TestVerifyModeNamesTheBrokenPhase(t *testing.T) {
	withPhase(t, "GeneralOptimizeEarly", func(c *PhaseContext) error {
		// Break the IR: an EXIT in the middle of the entry block.
		f := c.Module.Funcs[0]
		b := f.Blocks[0]
		in := ori.NewInst(ori.OpEXIT)
		in.ID = f.NewID()
		b.Insts = append([]*ori.Inst{in}, b.Insts...)
		return nil
	})
	s, err := NewSession("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunAll()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"phase 13 GeneralOptimizeEarly broke an invariant:", "[terminator] EXIT is not the last instruction of its block", "--- IR before GeneralOptimizeEarly", "--- IR after GeneralOptimizeEarly"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	// The snapshots before the broken phase are intact.
	if len(s.Snapshots) != 13 {
		t.Errorf("%d snapshots recorded before the failure, want 13", len(s.Snapshots))
	}
}

func TestPanickingPhaseIsNamed(t *testing.T) {
	withPhase(t, "OriBranchOpt", func(c *PhaseContext) error { panic("boom") })
	_, err := CompileWith("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3})
	if err == nil || err.Error() != "phase 15 OriBranchOpt: internal error: the phase panicked: boom" {
		t.Fatalf("got %v", err)
	}
}

func TestChangedPhaseIsDetected(t *testing.T) {
	withPhase(t, "OriBranchOpt", func(c *PhaseContext) error {
		f := c.Module.Funcs[0]
		in := ori.NewInst(ori.OpNOP)
		in.ID = f.NewID()
		f.Blocks[0].Insts = append([]*ori.Inst{in}, f.Blocks[0].Insts...)
		return nil
	})
	res, err := CompileWith("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	before, after := res.Snapshots[14], res.Snapshots[15]
	if after.Status != StatusChanged || after.Insts != before.Insts+1 || after.Hash == before.Hash {
		t.Fatalf("OriBranchOpt snapshot: %s, %d insts (before %d)", after.Status, after.Insts, before.Insts)
	}
	if before.Module.Funcs[0].NumInsts() != before.Insts {
		t.Fatal("the earlier snapshot was mutated")
	}
}

func TestDumpIR(t *testing.T) {
	var buf bytes.Buffer
	_, err := CompileWith("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3, DumpIR: "orisanitize", DumpTo: &buf})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"// DUMPIR after OriSanitize\n", "# [inst=", "[texInst=0] [tepid=n/a] [rregs=n/a]", "# [Occupancy = n/a], [est numDivergentBranches=1]", ".entry iadd\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q:\n%s", want, out)
		}
	}
	_, err = CompileWith("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{DumpIR: "AllocateRegister"})
	if err == nil || err.Error() != `DUMPIR: unknown phase "AllocateRegister" (did you mean "AllocateRegisters"?)` {
		t.Fatalf("got %v", err)
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := CompileWith("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3, Context: ctx, Observer: func(*Snapshot) {
		if n++; n == 20 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

// largestZLUDAKernel is the biggest PTX file of the ZLUDA corpus that
// compiles.
func largestKernel(b *testing.B) (string, []byte) {
	path := filepath.Join(testenv.Shared(b), "corpus", "ZLUDA", "ptx", "src", "test", "_Z9vectorAddPKfS0_Pfi.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, src
}

// BenchmarkCompileSnapshots and BenchmarkCompileNoSnapshots compare the
// cost of observing every phase with the plain compile path.
func BenchmarkCompileSnapshots(b *testing.B) {
	name, src := largestKernel(b)
	for b.Loop() {
		if _, err := CompileWith(name, src, Options{}, PhaseOptions{OptLevel: 3}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileNoSnapshots(b *testing.B) {
	name, src := largestKernel(b)
	for b.Loop() {
		if _, err := CompileWith(name, src, Options{}, PhaseOptions{OptLevel: 3, NoSnapshots: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAnalysisCacheIsInvalidated compiles every spec at -O1, -O2 and -O3
// with ori.CheckAnalysisCache on: every use of a cached dominator or
// post-dominator tree, and every liveness ori.Liveness hands out again,
// is compared with a freshly computed one, and a stale one panics. (The
// trees are invalidated by ComputeCFG, the liveness by a change of the
// function's Fingerprint or blocks.)
func TestAnalysisCacheIsInvalidated(t *testing.T) {
	ori.CheckAnalysisCache.Store(true)
	defer ori.CheckAnalysisCache.Store(false)
	n := 0
	for _, s := range allSpecs(t) {
		src, err := os.ReadFile(s.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []int{1, 2, 3} {
			if _, err := CompileWith(s.PTXPath, src, Options{}, PhaseOptions{OptLevel: o, NoSnapshots: true}); err != nil {
				t.Errorf("%s -O%d: %v", s.Name, o, err)
			}
			n++
		}
	}
	t.Logf("%d compilations, every cached tree checked", n)
}

// TestSnapshotPressure checks the lazily computed pressure: each
// snapshot's Pressure is the worst R-register pressure of its own Module,
// and phases that change nothing share the previous snapshot's value.
func TestSnapshotPressure(t *testing.T) {
	res, err := CompileWith("iadd.ptx", kernelSrc(t), Options{}, PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	nonzero := false
	for i, s := range res.Snapshots {
		want := 0
		for _, f := range s.Module.Funcs {
			want = max(want, ori.MaxPressure(f).R)
		}
		if got := s.Pressure(); got != want {
			t.Errorf("snapshot %d %s: Pressure() = %d, MaxPressure of its module %d", i, s.Name, got, want)
		}
		nonzero = nonzero || want > 0
		if i > 0 && s.Module == res.Snapshots[i-1].Module && s.pressure != res.Snapshots[i-1].pressure {
			t.Errorf("snapshot %d %s: unchanged module but its own pressure record", i, s.Name)
		}
	}
	if !nonzero {
		t.Fatal("no snapshot has any register pressure: the test checks nothing")
	}
}
