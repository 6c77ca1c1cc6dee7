package pipeline

import "testing"

// TestPhaseTableNames pins the true 0-158 phase order reconstructed from the
// wiki (see the PhaseTable doc comment) and checks the table's invariants.
func TestPhaseTableNames(t *testing.T) {
	want := [159]string{
		"OriCheckInitialProgram", "ApplyNvOptRecipes", "PromoteFP16", "AnalyzeControlFlow", // 0-3
		"AdvancedPhaseBeforeConvUnSup", "ConvertUnsupportedOps", "SetControlFlowOpLastInBB", "AdvancedPhaseAfterConvUnSup", // 4-7
		"OriCreateMacroInsts", "ReportInitialRepresentation", "EarlyOriSimpleLiveDead", "ReplaceUniformsWithImm", // 8-11
		"OriSanitize", "GeneralOptimizeEarly", "DoSwitchOptFirst", "OriBranchOpt", // 12-15
		"OriPerformLiveDeadFirst", "OptimizeBindlessHeaderLoads", "OriLoopSimplification", "OriSplitLiveRanges", // 16-19
		"PerformPGO", "OriStrengthReduce", "OriCopyProp", "OriLoopUnrolling", // 20-23
		"GenerateMovPhi", "OriPipelining", "StageAndFence", "OriRemoveRedundantBarriers", // 24-27
		"AnalyzeUniformsForSpeculation", "SinkRemat", "GeneralOptimize", "DoSwitchOptSecond", // 28-31
		"OptimizeNaNOrZero", "OriLinearReplacement", "CompactLocalMemory", "OriPerformLiveDeadSecond", // 32-35
		"ExtractShaderConstsFirst", "ConvertMemoryToRegisterOrUniform", "OriHoistInvariantsEarly", "EmitPSI", // 36-39
		"GeneralOptimizeMid", "Vectorization", "OptimizeNestedCondBranches", "ConvertVTGReadWrite", // 40-43
		"DoVirtualCTAExpansion", "MarkAdditionalColdBlocks", "ExpandMbarrier", "ForwardProgress", // 44-47
		"OptimizeUniformAtomic", "MidExpansion", "GeneralOptimizeMid2", "AdvancedPhaseEarlyEnforceArgs", // 48-51
		"EnforceArgumentRestrictions", "GvnCse", "OriReassociateAndCommon", "ExtractShaderConstsFinal", // 52-55
		"OriReplaceEquivMultiDefMov", "OriCommoning", "OriPropagateVaryingFirst", "OriDoRematEarly", // 56-59
		"LateExpansion", "SpeculativeHoistComInsts", "RemoveASTToDefaultValues", "GeneralOptimizeLate", // 60-63
		"OriLoopFusion", "DoVTGMultiViewExpansion", "OriPerformLiveDeadThird", "OriRemoveRedundantMultiDefMov", // 64-67
		"OriDoPredication", "OriSimpleLiveDead", "LateOriCommoning", "GeneralOptimizeLate2", // 68-71
		"OriHoistInvariantsLate", "LateVectorization", "DoKillMovement", "DoTexMovement", // 72-75
		"OriDoRemat", "SinkCodeIntoBlock", "OriPropagateVaryingSecond", "OptimizeSyncInstructions", // 76-79
		"LateExpandSyncInstructions", "ConvertAllMovPhiToMov", "ConvertToUniformReg", "LateArchOptimizeFirst", // 80-83
		"UpdateAfterOptimize", "AdvancedPhaseLateConvUnSup", "LateExpansionUnsupportedOps", "OriHoistInvariantsLate2", // 84-87
		"ExpandJmxComputation", "LateArchOptimizeSecond", "AdvancedPhaseBackPropVReg", "OriBackCopyPropagate", // 88-91
		"OriPerformLiveDeadFourth", "OriPropagateGmma", "InsertPseudoUseDefForConvUR", "FixupGmmaSequence", // 92-95
		"OriHoistInvariantsLate3", "AdvancedPhaseSetRegAttr", "OriSetRegisterAttr", "OriCalcDependantTex", // 96-99
		"AdvancedPhaseAfterSetRegAttr", "LateExpansionUnsupportedOps2", "FinalInspectionPass", "LateEnforceArgumentRestrictions", // 100-103
		"SetAfterLegalization", "ReportBeforeScheduling", "AdvancedPhasePreSched", "BackPropagateVEC2D", // 104-107
		"OriDoSyncronization", "ApplyPostSyncronizationWars", "AdvancedPhaseAllocReg", "ReportAfterRegisterAllocation", // 108-111
		"Get64bRegComponents", "AdvancedPhasePostExpansion", "ScheduleInstructions", "UpdateAfterScheduleInstructions", // 112-115
		"ApplyPostRegAllocWars", "AdvancedPhasePostSched", "UpdateAfterOriDoSyncronization", "OriRemoveNopCode", // 116-119
		"ReportBeforeRegisterAllocation", "OptimizeHotColdInLoop", "AllocateRegisters", "OptimizeHotColdFlow", // 120-123
		"UpdateAfterOriAllocateRegisters", "PostSchedule", "AdvancedPhasePostFixUp", "PostExpansionLowering", // 124-127
		"PlaceBlocksInSourceOrder", "PostFixForMercTargets", "FixUpTexDepBarAndSync", "AdvancedScoreboardsAndOpexes", // 128-131
		"UpdateAfterConvertUnsupportedOps", "MergeEquivalentConditionalFlow", "AdvancedPhaseAfterMidExpansion", "AdvancedPhaseLateExpandSyncInstructions", // 132-135
		"LateMergeEquivalentConditionalFlow", "LateExpansionUnsupportedOpsMid", "OriSplitHighPressureLiveRanges", "ProcessO0WaitsAndSBs", // 136-139
		"PostFixUp", "MercConverter", "MercEncodeAndDecode", "MercExpandInstructions", // 140-143
		"MercGenerateWARs1", "MercGenerateOpex", "MercGenerateWARs2", "MercGenerateSassUCode", // 144-147
		"ComputeVCallRegUse", "CalcRegisterMap", "UpdateAfterPostRegAlloc", "ReportFinalMemoryUsage", // 148-151
		"AdvancedPhaseOriPhaseEncoding", "FormatCodeList", "UpdateAfterFormatCodeList", "DumpNVuCodeText", // 152-155
		"DumpNVuCodeHex", "DebuggerBreak", "NOP", // 156-158
	}

	index := make(map[string]int, len(PhaseTable))
	for i, p := range PhaseTable {
		if p.Index != i {
			t.Errorf("PhaseTable[%d].Index = %d", i, p.Index)
		}
		if p.Name != want[i] {
			t.Errorf("PhaseTable[%d].Name = %q, want %q", i, p.Name, want[i])
		}
		if p.Name == "" || p.Category == "" || p.Doc == "" {
			t.Errorf("PhaseTable[%d] (%q) has an empty Name, Category or Doc", i, p.Name)
		}
		if j, dup := index[p.Name]; dup {
			t.Errorf("name %q appears at both %d and %d", p.Name, j, i)
		}
		index[p.Name] = i
	}

	// Gates: exactly the AdvancedPhase*/AdvancedScoreboardsAndOpexes hooks,
	// 16 after deduplication, each worker present and later in the table.
	gates := 0
	for i, p := range PhaseTable {
		if p.Category != "Gate" {
			if len(p.Workers) != 0 {
				t.Errorf("%d %s: non-gate has workers %v", i, p.Name, p.Workers)
			}
			continue
		}
		gates++
		for _, w := range p.Workers {
			j, ok := index[w]
			if !ok {
				t.Errorf("gate %d %s: worker %q not in table", i, p.Name, w)
				continue
			}
			if j <= i {
				t.Errorf("gate %d %s: worker %s at %d does not come after it", i, p.Name, w, j)
			}
		}
	}
	if gates != 16 {
		t.Errorf("got %d gates, want 16", gates)
	}
	workers := map[string]string{
		"AdvancedPhasePreSched":      "ScheduleInstructions",
		"AdvancedPhaseAllocReg":      "AllocateRegisters",
		"AdvancedPhasePostExpansion": "PostExpansionLowering",
		"AdvancedPhasePostFixUp":     "PostFixUp",
	}
	for g, w := range workers {
		p := PhaseTable[index[g]]
		if p.Category != "Gate" || len(p.Workers) != 1 || p.Workers[0] != w {
			t.Errorf("%s: Category=%s Workers=%v, want gate dispatching to %s", g, p.Category, p.Workers, w)
		}
	}

	// The 16 names the compressed numbering omitted, at their true indices
	// (wiki 9126-9143).
	omitted := map[int]string{
		22: "OriCopyProp", 32: "OptimizeNaNOrZero", 37: "ConvertMemoryToRegisterOrUniform",
		41: "Vectorization", 57: "OriCommoning", 69: "OriSimpleLiveDead",
		73: "LateVectorization", 77: "SinkCodeIntoBlock", 103: "LateEnforceArgumentRestrictions",
		114: "ScheduleInstructions", 115: "UpdateAfterScheduleInstructions",
		118: "UpdateAfterOriDoSyncronization", 120: "ReportBeforeRegisterAllocation",
		122: "AllocateRegisters", 124: "UpdateAfterOriAllocateRegisters", 127: "PostExpansionLowering",
	}
	if len(omitted) != 16 {
		t.Fatalf("omitted list has %d entries", len(omitted))
	}
	for i, n := range omitted {
		if PhaseTable[i].Name != n {
			t.Errorf("true index %d = %q, want omitted name %q", i, PhaseTable[i].Name, n)
		}
	}

	// Phases 139-158 are correctly numbered in the wiki (9123, 9426-9447).
	late := [20]string{
		"ProcessO0WaitsAndSBs", "PostFixUp", "MercConverter", "MercEncodeAndDecode",
		"MercExpandInstructions", "MercGenerateWARs1", "MercGenerateOpex", "MercGenerateWARs2",
		"MercGenerateSassUCode", "ComputeVCallRegUse", "CalcRegisterMap", "UpdateAfterPostRegAlloc",
		"ReportFinalMemoryUsage", "AdvancedPhaseOriPhaseEncoding", "FormatCodeList", "UpdateAfterFormatCodeList",
		"DumpNVuCodeText", "DumpNVuCodeHex", "DebuggerBreak", "NOP",
	}
	for k, n := range late {
		if PhaseTable[139+k].Name != n {
			t.Errorf("phase %d = %q, want %q", 139+k, PhaseTable[139+k].Name, n)
		}
	}
	// Unknown names resolve to 158, the NOP sentinel (9744, 41323).
	if PhaseTable[158].Name != "NOP" {
		t.Errorf("phase 158 = %q, want NOP", PhaseTable[158].Name)
	}

	// A few O-level gates, as both page 17 and page 64 state them.
	olevels := map[string]string{
		"DoSwitchOptFirst": "> 0", "OriLoopSimplification": "4-5", "SinkRemat": "> 1 / > 4",
		"LateExpandSyncInstructions": "> 2", "AdvancedScoreboardsAndOpexes": "> 0",
		"ProcessO0WaitsAndSBs": "== 0",
		// Stricter than the wiki's "" (every level): see the Decision
		// above PhaseTable.
		"EarlyOriSimpleLiveDead": "> 0",
	}
	for n, ol := range olevels {
		if got := PhaseTable[index[n]].OLevel; got != ol {
			t.Errorf("%s OLevel = %q, want %q", n, got, ol)
		}
	}
}

// TestPhaseRowsHaveCode checks the table's central invariant: every row
// has exactly one of code (Fn.Run) and a reason it is a no-op (NoOp), a
// required row has code, and a Skip hook comes with code. Code is a Go
// value, so a misspelt pass reference does not compile.
func TestPhaseRowsHaveCode(t *testing.T) {
	withCode := 0
	for i, p := range PhaseTable {
		switch {
		case p.Fn.Run == nil && p.NoOp == "":
			t.Errorf("%d %s: no code and no no-op reason", i, p.Name)
		case p.Fn.Run != nil && p.NoOp != "":
			t.Errorf("%d %s: has code and the no-op reason %q", i, p.Name, p.NoOp)
		case p.Fn.Run == nil && p.Fn.Skip != nil:
			t.Errorf("%d %s: a Skip gate without code", i, p.Name)
		case p.Required && p.Fn.Run == nil:
			t.Errorf("%d %s: required, but has no code", i, p.Name)
		}
		if p.Fn.Run != nil {
			withCode++
		}
	}
	// 60 rows have code today (16 of the manager's own, the encoding
	// phases PostFixForMercTargets, MercEncodeAndDecode,
	// MercGenerateSassUCode and FormatCodeList among them, and 44 mid-end
	// rows running 39 passes, three rows a sequence of them); the count
	// changes only with a commit that builds a phase.
	if withCode != 60 {
		t.Errorf("%d rows have code, want 60", withCode)
	}
}
