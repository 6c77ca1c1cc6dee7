package opt_test

// Whole-pipeline tests of the predication, rematerialization and sinking
// phases: every spec under testdata/opt runs at -O0..-O3, each phase
// changes its testdata kernel, its knob switches it off, and the
// measurement the report quotes (register pressure, static and dynamic
// instruction counts) can be reproduced with -v.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

func prsRepoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// prsKnobs loads -knob arguments into a knob set.
func prsKnobs(t *testing.T, cli ...string) *knobs.Set {
	t.Helper()
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: cli})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// prsSession compiles a testdata PTX file up to and including phase last.
func prsSession(t *testing.T, rel string, opt int, last string, cli ...string) *pipeline.Session {
	t.Helper()
	path := filepath.Join(prsRepoRoot(t), rel)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	po := pipeline.PhaseOptions{OptLevel: opt, Verify: true}
	if err := po.ApplyKnobs(prsKnobs(t, cli...)); err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.NewSession(path, src, pipeline.Options{}, po)
	if err != nil {
		t.Fatal(err)
	}
	i, err := pipeline.LookupPhase(last)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(i); err != nil {
		t.Fatal(err)
	}
	return s
}

// prsSnapshot returns the prsSnapshot of the named phase.
func prsSnapshot(t *testing.T, s *pipeline.Session, name string) *pipeline.Snapshot {
	t.Helper()
	for _, sn := range s.Snapshots {
		if sn.Name == name {
			return sn
		}
	}
	t.Fatalf("no prsSnapshot of %s", name)
	return nil
}

// TestTestdataOptSpecsAllLevels runs every spec under testdata/opt at -O0 to -O3
// (the package-level semantic test only globs testdata/kernels).
func TestTestdataOptSpecsAllLevels(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(prsRepoRoot(t), "testdata", "opt", "*.json"))
	if len(files) == 0 {
		t.Fatal("no specs under testdata/opt")
	}
	for _, f := range files {
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for o := 0; o <= 3; o++ {
			rep, err := pipeline.RunSpec(s, pipeline.RunOptions{Request: pipeline.Request{OptLevel: o, Verify: true}})
			if err != nil {
				t.Errorf("%s -O%d: %v", s.Name, o, err)
				continue
			}
			if !rep.Pass {
				t.Errorf("%s -O%d: %s", s.Name, o, strings.TrimSpace(spec.FormatResults(rep.Results)))
			}
		}
	}
}

// TestPredRematSinkChangeTheirKernels checks that each phase changes the IR of
// the testdata kernel written for it at -O3, and that the knob named for
// it switches it off. SinkCodeIntoBlock is shown with the early
// SinkRemat switched off, which otherwise sinks the same instructions
// first; ptxas has no knob of its own for it, DisablePhases is the switch.
func TestPredRematSinkChangeTheirKernels(t *testing.T) {
	checkPhasesChangeKernels(t, []phaseCase{
		{"testdata/opt/pred_shapes.ptx", "OriDoPredication", nil, []string{"DisablePredication"}},
		// remat_params' pressure is below the register target of sm_80
		// (32: full occupancy), which is reached at RematRegTargetFactor=0.
		{"testdata/opt/remat_params.ptx", "OriDoRemat", []string{"RematRegTargetFactor=0"}, []string{"RematRegTargetFactor=0", "RematEnable=0"}},
		{"testdata/opt/sink_late.ptx", "SinkRemat", nil, []string{"SinkRematEnable=0"}},
		{"testdata/opt/sink_late.ptx", "SinkCodeIntoBlock", []string{"SinkRematEnable=0"},
			[]string{"SinkRematEnable=0", "DisablePhases=SinkCodeIntoBlock"}},
		{"testdata/opt/remat_params.ptx", "OriDoRematEarly", []string{"RematRegTargetFactor=0", "RematEarlyEnable=1", "SinkRematEnable=0"}, []string{"RematRegTargetFactor=0", "SinkRematEnable=0"}},
	})
}

// phaseCase says that phase changes the kernel of ptx at -O3 under the
// knobs on, and does not under the knobs off.
type phaseCase struct {
	ptx, phase string
	on, off    []string
}

func checkPhasesChangeKernels(t *testing.T, cases []phaseCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.phase, func(t *testing.T) {
			on := prsSnapshot(t, prsSession(t, c.ptx, 3, c.phase, c.on...), c.phase)
			if on.Status != pipeline.StatusChanged {
				t.Errorf("%s did not change %s (%s %s)", c.phase, c.ptx, on.Status, on.Reason)
			}
			off := prsSnapshot(t, prsSession(t, c.ptx, 3, c.phase, c.off...), c.phase)
			if off.Status == pipeline.StatusChanged {
				t.Errorf("%s still changed %s with -knob %s", c.phase, c.ptx, strings.Join(c.off, " "))
			}
		})
	}
}

// prsMeasure compiles a spec's PTX at -O3 with the given knobs up to the
// last mid-end phase and returns the static instruction count, the
// largest R-register pressure of its functions and, when run, the warp
// steps of an execution (which must pass).
func prsMeasure(t *testing.T, s *spec.Spec, run bool, cli ...string) (insts, pressure int, steps int64) {
	t.Helper()
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		t.Fatal(err)
	}
	po := pipeline.PhaseOptions{OptLevel: 3}
	if err := po.ApplyKnobs(prsKnobs(t, cli...)); err != nil {
		t.Fatal(err)
	}
	sess, err := pipeline.NewSession(s.PTXPath, src, pipeline.Options{}, po)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := pipeline.LookupPhase("OriPerformLiveDeadFourth")
	if err := sess.RunTo(last); err != nil {
		t.Fatal(err)
	}
	m := sess.Module()
	for _, f := range m.Funcs {
		insts += f.NumInsts()
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		pressure = max(pressure, ori.MaxPressure(f).R)
	}
	if run {
		rep, err := pipeline.Execute(m, s, pipeline.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !rep.Pass {
			t.Fatalf("%s: %s", s.Name, spec.FormatResults(rep.Results))
		}
		steps = rep.Stats.WarpSteps
	}
	return insts, pressure, steps
}

// TestMeasurePredRematSink compares, at -O3 after the mid-end, each spec
// of testdata/opt, testdata/kernels and the sample compiled with all three
// families on and with each switched off. It fails when rematerialization
// and sinking raise the register pressure of a kernel; -v prints the table.
func TestMeasurePredRematSink(t *testing.T) {
	root := prsRepoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "opt", "*.json"))
	more, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", "*.json"))
	files = append(append(files, more...), filepath.Join(root, "testdata", "sample", "sample.json"))
	configs := []struct {
		name string
		cli  []string
	}{
		{"all on", nil},
		{"no predication", []string{"DisablePredication"}},
		{"no remat/sink", []string{"SinkRematEnable=0", "RematEnable=0", "DisablePhases=SinkCodeIntoBlock"}},
	}
	t.Logf("%-22s %-16s %6s %8s %10s", "kernel", "config", "insts", "R-press", "warp-steps")
	for _, f := range files {
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name == "barrier_divergent" {
			continue // faults by design at every level
		}
		var press [3]int
		for i, c := range configs {
			n, p, steps := prsMeasure(t, s, !s.CompileOnly, c.cli...)
			press[i] = p
			t.Logf("%-22s %-16s %6d %8d %10d", s.Name, c.name, n, p, steps)
		}
		if press[0] > press[2] {
			t.Errorf("%s: rematerialization and sinking raise the R pressure from %d to %d", s.Name, press[2], press[0])
		}
	}
}
