package opt

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
