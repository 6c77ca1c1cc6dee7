package opt_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/spec"
)

// TestLatePassesChangeTheirKernels checks that OriBackCopyPropagate,
// OriRemoveRedundantBarriers, ConvertToUniformReg, DoSwitchOpt*,
// (Late)Vectorization and the partial-SSA window change the IR of the
// testdata kernel written for each at -O3, and that the knob named for
// each switches it off. (The kernels' specs run at every level in
// TestTestdataOptSpecsAllLevels.)
func TestLatePassesChangeTheirKernels(t *testing.T) {
	checkPhasesChangeKernels(t, []phaseCase{
		{"testdata/opt/backcopy.ptx", "OriBackCopyPropagate", nil, []string{"BackCopyPropBudget=0"}},
		{"testdata/opt/barriers.ptx", "OriRemoveRedundantBarriers", nil, []string{"DisableRedundantBarrierRemoval"}},
		{"testdata/opt/backcopy.ptx", "ConvertToUniformReg", []string{"UregAddsInstructions"}, []string{"UregAddsInstructions", "DisableUreg"}},
		{"testdata/opt/vectorize.ptx", "Vectorization", nil, []string{"DisableReadVectorization", "DisableWriteVectorization"}},
		// The late position merges what the early one left: shown with the
		// early one switched off.
		{"testdata/opt/vectorize.ptx", "LateVectorization", []string{"DisablePhases=Vectorization"},
			[]string{"DisablePhases=Vectorization", "DisableReadVectorization", "DisableWriteVectorization"}},
		{"testdata/opt/switch_chain.ptx", "DoSwitchOptFirst", nil, []string{"DisablePhases=DoSwitchOptFirst"}},
		// The second position lowers what the first left: shown with the
		// first switched off.
		{"testdata/opt/switch_chain.ptx", "DoSwitchOptSecond", []string{"DisablePhases=DoSwitchOptFirst"},
			[]string{"DisablePhases=DoSwitchOptFirst+DoSwitchOptSecond"}},
		// The tree form of the second position (see TestSwitchTreeNeedsPartialSSA),
		// under its knob; without it the sparse chain stays (ptxas's choice).
		{"testdata/opt/switch_sparse.ptx", "DoSwitchOptSecond", []string{"SwitchSearchTree"}, nil},
		// The partial-SSA window: without GenerateMovPhi there is no
		// MOV.PHI to convert, so one knob switches off both ends.
		{"testdata/opt/movphi.ptx", "GenerateMovPhi", nil, []string{"DisablePhases=GenerateMovPhi"}},
		{"testdata/opt/movphi.ptx", "ConvertAllMovPhiToMov", nil, []string{"DisablePhases=GenerateMovPhi"}},
	})
}

// TestMovPhiWindow: after GenerateMovPhi movphi.ptx has MOV.PHI for R
// and P registers, every phase up to ConvertAllMovPhiToMov keeps the IR
// verifying in SSA mode (the session verifies after every phase), and
// none is left afterwards.
func TestMovPhiWindow(t *testing.T) {
	s := prsSession(t, "testdata/opt/movphi.ptx", 3, "DumpNVuCodeText")
	in := prsSnapshot(t, s, "GenerateMovPhi").Module.String()
	if !strings.Contains(in, "MOV.PHI %r") || !strings.Contains(in, "MOV.PHI %p") {
		t.Errorf("no R and P phis after GenerateMovPhi:\n%s", in)
	}
	for _, name := range []string{"ConvertAllMovPhiToMov", "DumpNVuCodeText"} {
		if out := prsSnapshot(t, s, name).Module.String(); strings.Contains(out, "MOV.PHI") {
			t.Errorf("MOV.PHI left after %s:\n%s", name, out)
		}
	}
}

// TestUniformLoopNeedsNoConvergenceBarrier: with UregAddsInstructions
// backcopy.ptx's loop counter moves to UR, its exit branch is on a UP (in the final code on a P
// register that PostFixForMercTargets copies from UP0 right before it,
// as no BRA word holds a UP), and the final code has no BSSY/BSYNC
// around it; with DisableUreg the branch is on a P register computed
// per thread and gets them, as by default (the uniform loop issues a
// ULDC and a PLOP3 more per iteration, so ConvertToUniformReg leaves it).
func TestUniformLoopNeedsNoConvergenceBarrier(t *testing.T) {
	count := func(cli ...string) (bssy, upBranch int) {
		s := prsSession(t, "testdata/opt/backcopy.ptx", 3, "DumpNVuCodeText", cli...)
		text := prsSnapshot(t, s, "DumpNVuCodeText").Module.String()
		return strings.Count(text, "BSSY"), len(upBranchRE.FindAllString(text, -1))
	}
	if bssy, up := count("UregAddsInstructions"); bssy != 0 || up != 1 {
		t.Errorf("uniform registers on: %d BSSY, %d branches on UP0; want 0 and 1", bssy, up)
	}
	for _, k := range []string{"DisableUreg", "UregAddsInstructions=false"} {
		if bssy, up := count(k); bssy != 1 || up != 0 {
			t.Errorf("%s: %d BSSY, %d branches on UP0; want 1 and 0", k, bssy, up)
		}
	}
}

// upBranchRE matches a branch on a copy of UP0.
var upBranchRE = regexp.MustCompile(`PLOP3\.LUT P\d, PT = PT, PT, UP0, 0x80, 0x0 ;.*\n.*@!?P\d BRA`)

// TestIDIVKeptWholeForTheOptimizer: idiv_loop.ptx divides by a parameter
// in a 12-iteration loop. At -O0 ConvertUnsupportedOps expands the
// divisions (and with it disabled the late phase does); at -O3 they stay
// IDIVs, are commoned and hoisted, and only LateExpansionUnsupportedOps
// expands the two that are left: two reciprocals in the final code, and
// fewer than half of -O0's warp steps.
func TestIDIVKeptWholeForTheOptimizer(t *testing.T) {
	const ptx = "testdata/opt/idiv_loop.ptx"
	o0 := prsSnapshot(t, prsSession(t, ptx, 0, "ConvertUnsupportedOps"), "ConvertUnsupportedOps")
	if o0.Status != pipeline.StatusChanged {
		t.Errorf("-O0 ConvertUnsupportedOps: %s %s", o0.Status, o0.Reason)
	}
	off := prsSession(t, ptx, 0, "LateExpansionUnsupportedOps", "DisablePhases=ConvertUnsupportedOps")
	if sn := prsSnapshot(t, off, "ConvertUnsupportedOps"); sn.Status != pipeline.StatusDisabled {
		t.Errorf("DisablePhases=ConvertUnsupportedOps: %s", sn.Status)
	}
	if sn := prsSnapshot(t, off, "LateExpansionUnsupportedOps"); sn.Status != pipeline.StatusChanged {
		t.Errorf("-O0 LateExpansionUnsupportedOps after a disabled ConvertUnsupportedOps: %s", sn.Status)
	}
	s3 := prsSession(t, ptx, 3, "DumpNVuCodeText")
	if sn := prsSnapshot(t, s3, "ConvertUnsupportedOps"); sn.Status != pipeline.StatusNoOp {
		t.Errorf("-O3 ConvertUnsupportedOps: %s", sn.Status)
	}
	if sn := prsSnapshot(t, s3, "LateExpansionUnsupportedOps"); sn.Status != pipeline.StatusChanged {
		t.Errorf("-O3 LateExpansionUnsupportedOps: %s", sn.Status)
	}
	if n := strings.Count(prsSnapshot(t, s3, "DumpNVuCodeText").Module.String(), "MUFU.RCP"); n != 2 {
		t.Errorf("-O3: %d reciprocals in the final code, want 2 (one per remaining IDIV)", n)
	}
	steps := warpStepsO0O3(t, "testdata/opt/idiv_loop.json")
	if 2*steps[1] >= steps[0] {
		t.Errorf("-O3 runs %d warp steps, -O0 %d: want less than half", steps[1], steps[0])
	}
}

// TestIDIV64HoistedOutOfItsLoop: idiv64_loop.ptx divides a 64-bit value
// by a 64-bit parameter of 2^32 or more in a 12-iteration loop. The two
// IDIV.U64 stay whole through the optimizer, LICM takes them out of the
// loop, and LateExpansionUnsupportedOps expands them after it (each one
// a 64-iteration shift-subtract loop): -O3 runs under a fifth of -O0's
// warp steps, where every iteration runs both expansions.
func TestIDIV64HoistedOutOfItsLoop(t *testing.T) {
	const ptx = "testdata/opt/idiv64_loop.ptx"
	s3 := prsSession(t, ptx, 3, "LateExpansionUnsupportedOps")
	before := prsSnapshot(t, s3, "OriHoistInvariantsEarly").Module.String()
	if n := strings.Count(before, "IDIV.U64"); n != 2 {
		t.Errorf("%d IDIV.U64 after OriHoistInvariantsEarly, want 2:\n%s", n, before)
	}
	if sn := prsSnapshot(t, s3, "LateExpansionUnsupportedOps"); sn.Status != pipeline.StatusChanged || strings.Contains(sn.Module.String(), "IDIV") {
		t.Errorf("-O3 LateExpansionUnsupportedOps: %s, IDIV left: %v", sn.Status, strings.Contains(sn.Module.String(), "IDIV"))
	}
	steps := warpStepsO0O3(t, "testdata/opt/idiv64_loop.json")
	if 5*steps[1] >= steps[0] {
		t.Errorf("-O3 runs %d warp steps, -O0 %d: want under a fifth", steps[1], steps[0])
	}
}

// TestSwitchTreeNeedsPartialSSA: switch_sparse.ptx's compares all write
// %p1. Under SwitchSearchTree, DoSwitchOptFirst leaves the chain (the
// predicate has other readers); in partial SSA each compare has its own
// predicate and DoSwitchOptSecond lowers the chain to a tree; with
// GenerateMovPhi switched off it cannot.
func TestSwitchTreeNeedsPartialSSA(t *testing.T) {
	const ptx = "testdata/opt/switch_sparse.ptx"
	s := prsSession(t, ptx, 3, "DoSwitchOptSecond", "SwitchSearchTree")
	if sn := prsSnapshot(t, s, "DoSwitchOptFirst"); sn.Status == pipeline.StatusChanged {
		t.Errorf("DoSwitchOptFirst changed the chain whose predicate is shared")
	}
	sn := prsSnapshot(t, s, "DoSwitchOptSecond")
	if sn.Status != pipeline.StatusChanged || !strings.Contains(sn.Module.String(), "ISETP.LT.AND") {
		t.Errorf("DoSwitchOptSecond: %s, no tree:\n%s", sn.Status, sn.Module)
	}
	off := prsSession(t, ptx, 3, "DoSwitchOptSecond", "SwitchSearchTree", "DisablePhases=GenerateMovPhi")
	if sn := prsSnapshot(t, off, "DoSwitchOptSecond"); sn.Status == pipeline.StatusChanged {
		t.Errorf("DoSwitchOptSecond changed the chain without partial SSA")
	}
}

// TestDDIVHoistedOutOfItsLoop: ddiv_loop.ptx divides and takes a square
// root of loop-invariant f64 values in an 8-iteration loop. DDIV and
// DSQRT stay whole through the optimizer, LICM takes them out of the
// loop, and LateExpansionUnsupportedOps expands them after it: -O3 runs
// under a third of -O0's warp steps.
func TestDDIVHoistedOutOfItsLoop(t *testing.T) {
	s3 := prsSession(t, "testdata/opt/ddiv_loop.ptx", 3, "LateExpansionUnsupportedOps")
	hoisted := prsSnapshot(t, s3, "OriHoistInvariantsEarly")
	if hoisted.Status != pipeline.StatusChanged {
		t.Errorf("OriHoistInvariantsEarly: %s", hoisted.Status)
	}
	if sn := prsSnapshot(t, s3, "LateExpansionUnsupportedOps"); sn.Status != pipeline.StatusChanged || strings.Contains(sn.Module.String(), "DDIV") {
		t.Errorf("-O3 LateExpansionUnsupportedOps: %s", sn.Status)
	}
	steps := warpStepsO0O3(t, "testdata/opt/ddiv_loop.json")
	if 3*steps[1] >= steps[0] {
		t.Errorf("-O3 runs %d warp steps, -O0 %d: want under a third", steps[1], steps[0])
	}
}

// warpStepsO0O3 runs the spec at -O0 and -O3 (both must pass) and
// returns the warp steps of each.
func warpStepsO0O3(t *testing.T, rel string) [2]int64 {
	t.Helper()
	sp, err := spec.Load(filepath.Join(prsRepoRoot(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	var steps [2]int64
	for i, o := range []int{0, 3} {
		rep, err := pipeline.RunSpec(sp, pipeline.RunOptions{Request: pipeline.Request{OptLevel: o}})
		if err != nil || !rep.Pass {
			t.Fatalf("%s -O%d: %v %v", rel, o, err, rep)
		}
		steps[i] = rep.Stats.WarpSteps
	}
	return steps
}
