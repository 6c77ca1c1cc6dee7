package opt

import (
	"testing"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// passByPhase returns the pass a phase name's row of the phase table runs,
// so a test can say which position it exercises. Package pipeline's table
// is the truth; TestPassByPhaseNamesRows checks that every name here is a
// row with code.
func passByPhase(name string) (Pass, bool) {
	switch name {
	case "EarlyOriSimpleLiveDead", "OriPerformLiveDeadFirst", "OriPerformLiveDeadSecond",
		"OriPerformLiveDeadThird", "OriPerformLiveDeadFourth", "OriSimpleLiveDead":
		return LiveDead, true
	case "GeneralOptimizeEarly", "GeneralOptimize", "GeneralOptimizeMid", "GeneralOptimizeMid2",
		"GeneralOptimizeLate", "GeneralOptimizeLate2":
		return GeneralOptimize, true
	case "DoSwitchOptFirst", "DoSwitchOptSecond":
		return SwitchOpt, true
	case "OriCommoning", "LateOriCommoning":
		return Commoning, true
	case "Vectorization", "LateVectorization":
		return Vectorization, true
	case "OriHoistInvariantsEarly":
		return HoistInvariantsEarly, true
	case "OriHoistInvariantsLate":
		return HoistInvariantsLate, true
	case "OriHoistInvariantsLate2":
		return HoistInvariantsLate2, true
	case "OriHoistInvariantsLate3":
		return HoistInvariantsLate3, true
	case "OriBranchOpt":
		return BranchOpt, true
	case "OriLoopSimplification":
		return LoopSimplification, true
	case "OriStrengthReduce":
		return StrengthReduce, true
	case "OriCopyProp":
		return CopyProp, true
	case "OriLoopUnrolling":
		return LoopUnrolling, true
	case "GenerateMovPhi":
		return GenerateMovPhi, true
	case "OriRemoveRedundantBarriers":
		return RemoveRedundantBarriers, true
	case "SinkRemat":
		return SinkRemat, true
	case "OriDoRematEarly":
		return RematEarly, true
	case "OriDoRemat":
		return Remat, true
	case "OriDoPredication":
		return Predication, true
	case "SinkCodeIntoBlock":
		return SinkCode, true
	case "ConvertAllMovPhiToMov":
		return ConvertAllMovPhiToMov, true
	case "ConvertToUniformReg":
		return ConvertToUniformReg, true
	case "OriBackCopyPropagate":
		return BackCopyPropagate, true
	case "OriRemoveNopCode":
		return RemoveNopCode, true
	case "PlaceBlocksInSourceOrder":
		return PlaceBlocksInSourceOrder, true
	case "FixUpTexDepBarAndSync":
		return Convergence, true
	}
	return Pass{}, false
}

// PassByPhase is passByPhase for the external tests.
var PassByPhase = passByPhase

// passRun says how applyPass runs a pass.
type passRun struct {
	ssaIn, ssaOut bool     // verify the input and the output in SSA mode
	skipVerifyIn  bool     // the input need not verify
	skipVerifyOut bool     // the output is not verified (a test that checks it itself)
	knobs         []string // -knob settings (none: the defaults)
	knobSet       *knobs.Set
	sites         *Sites
}

// applyPass is the one "IR text in, IR text out" driver of the pass
// tests: it parses in, verifies it, runs the pass the phase name's row
// runs at -O3 on sm_75 with r's knobs and sites, recomputes the CFG (as
// the phase manager does after every pass), verifies the result and
// returns its text and whether the pass reported a change.
func applyPass(t *testing.T, name, in string, r passRun) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(in))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if !r.skipVerifyIn {
		if err := ori.Verify(f, ori.VerifyOptions{SSA: r.ssaIn}); err != nil {
			t.Fatalf("input does not verify: %v", err)
		}
	}
	ks := r.knobSet
	if ks == nil && len(r.knobs) > 0 {
		if ks, _, err = knobs.Load(knobs.Default, knobs.Sources{CLI: r.knobs}); err != nil {
			t.Fatal(err)
		}
	}
	p, ok := passByPhase(name)
	if !ok {
		t.Fatalf("%s is not a phase with a mid-end pass", name)
	}
	changed, err := p.Run(f, &Context{OptLevel: 3, Arch: 75, Knobs: ks, Sites: r.sites})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if !r.skipVerifyOut {
		if err := ori.Verify(f, ori.VerifyOptions{SSA: r.ssaOut}); err != nil {
			t.Fatalf("output does not verify: %v\n%s", err, f)
		}
	}
	return f.String(), changed
}
