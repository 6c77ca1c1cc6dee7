package pipeline

// PhaseInfo is one row of ptxas's phase table.
type PhaseInfo struct {
	Index    int // 0..158
	Name     string
	Category string
	OLevel   string   // the O-level gate as the wiki states it: "" (all levels), "> 0", "> 1", "4-5", ...
	Gate     bool     // an AdvancedPhase* hook
	Workers  []string // for gates: the phases it dispatches to
	Doc      string   // one line
}

// PhaseTable is ptxas's true 0-158 phase table.
//
// Line numbers below refer to the wiki seed
// /work/shared/seeds/001_68f96e4642bb4ae5.txt.
//
// Sources. The rows come from the "Pass Inventory & Ordering" table
// (page 17, 9224-9453). It is the only table that names all 159 entries
// and gives category, O-level and description. Corrections Log #13
// (1591) and page 17 itself (9088-9091, 9119-9124) say all 159 entries
// are named in the static table off_22BD0C0. The 1272-byte memcpy at
// 9610 (159 x 8-byte pointers) agrees. Pages 9 (4170-4393) and 18
// (9945-10118) carry the older "139 named + 20 unnamed arch-specific"
// model, which #13 withdraws. Their names for 0-138 match page 17
// row for row, and only their group boundaries differ. The DUMPIR page
// says "144 names + sentinel 'All Phases Summary'" (41166, 41493-41508).
// That is also the older model, and it conflicts with the 1272-byte
// table, so it is not used.
//
// Expanding the compressed numbering. Page 17 numbers 0-138 in a
// "compressed" scheme. The true table puts 16 omitted names at fixed
// indices (9126-9143): 22 OriCopyProp, 32 OptimizeNaNOrZero,
// 37 ConvertMemoryToRegisterOrUniform, 41 Vectorization, 57 OriCommoning,
// 69 OriSimpleLiveDead, 73 LateVectorization, 77 SinkCodeIntoBlock,
// 103 LateEnforceArgumentRestrictions, 114 ScheduleInstructions,
// 115 UpdateAfterScheduleInstructions, 118 UpdateAfterOriDoSyncronization,
// 120 ReportBeforeRegisterAllocation, 122 AllocateRegisters,
// 124 UpdateAfterOriAllocateRegisters, 127 PostExpansionLowering. Later
// entries "shift up", but 139-158 are "correctly numbered" (9123). With
// 139 + 16 + 20 entries that cannot all hold unless 16 compressed rows
// drop out. Exactly 16 compressed rows, #116-#131, repeat names that
// also appear at 139-158:
// ProcessO0WaitsAndSBs, the six Merc* phases, ComputeVCallRegUse,
// CalcRegisterMap, UpdateAfterPostRegAlloc, ReportFinalMemoryUsage,
// AdvancedPhaseOriPhaseEncoding, UpdateAfterFormatCodeList,
// DumpNVuCodeText, DumpNVuCodeHex and DebuggerBreak. They are the
// compressed model's copies of late phases. Names must be unique
// because lookup is a binary search on name, and 41542 says duplicate
// names "do not occur". So those 16 rows are dropped, and each name keeps
// its 139-158 index. Compressed #0-#115 and #132-#138, in order, fill
// the 123 free true slots around the 16 fixed ones. This places compressed
// #132-#138 exactly at 132-138, so the counts check out. The 20 names
// #13 calls newly found are the 16 omitted names plus the 4 late names
// with no compressed twin: PostFixUp, MercConverter, FormatCodeList and
// NOP. The true index of compressed #c is c for c<=21, and after that
// c plus the number of fixed slots at or below it. Each row's trailing
// comment gives its compressed number and source line.
//
// Conflicts and how they were resolved:
//   - 139 named + 20 unnamed (4170ff, 9518, 10117) and 144 + sentinel
//     (41166, 41495-41505) against 159 named (9088, 1591, 9610): 159 named is
//     used, per Corrections Log #13.
//   - The DUMPIR page puts LateEnforceArgumentRestrictions,
//     UpdateAfterScheduleInstructions, UpdateAfterOriDoSyncronization,
//     ReportBeforeRegisterAllocation and UpdateAfterOriAllocateRegisters
//     at ">= 139" (41351, 41500-41505). The true indices at 9126-9143
//     (103, 115, 118, 120, 124) are used instead.
//   - Page 17 lists ComputeVCallRegUse, CalcRegisterMap, the Merc*
//     phases, the Update/Report/Dump passes, DebuggerBreak and
//     AdvancedPhaseOriPhaseEncoding twice, as "late-pipeline duplicates"
//     (9167-9200, 9460-9484). Each name appears once here, at its
//     139-158 index. Categories and O-levels of the two copies agree.
//   - Gate count: page 17 says 17 (9093, 9115), but it counts
//     AdvancedPhaseOriPhaseEncoding twice. Pages 9 and 18 say 16
//     (4396-4415, 10119-10140). Deduplicated, there are 16 gates.
//   - The gate-worker table calls the worker of AdvancedPhasePostExpansion
//     "PostExpansion [127]" (9162). The name table entry at 127 is
//     PostExpansionLowering (9143), and that name is used.
//   - Workers: only four gates have a documented dispatch (9157-9163):
//     PreSched to ScheduleInstructions, AllocReg to AllocateRegisters,
//     PostExpansion to PostExpansionLowering and PostFixUp to PostFixUp.
//     AdvancedPhaseBackPropVReg is not given OriBackCopyPropagate as a
//     worker. Line 13460 says 83 is "activated through" 82, but
//     14041-14066 says the backend override of the gate carries the
//     algorithm and OriBackCopyPropagate only sets a progress counter.
//   - "Compressed numbering diverges starting around phase 8" (9121):
//     the first fixed slot is 22, so indices 0-21 are unshifted.
//   - Group boundaries differ between pages 9, 17 and 18, and page 18
//     defers to page 17 (9947). Groups are not part of this table.
//   - Categories use page 17's 10 tags. Page 9's free-text categories
//     ("Recipe application", ...) are not used. Page 17's tag counts
//     (9105-9115) sum to 153 and disagree with its own rows. The counts
//     here come from the rows.
//   - O-levels: the page 17 column and the page 64 activation table
//     (40934-40962) agree on all 21 gated names. Page 17's "twenty-two"
//     (9219) counts ProcessO0WaitsAndSBs twice. The feature matrix
//     (40963-40993) also turns off strength reduction, hot/cold
//     partitioning and speculative hoisting at low levels. Page 17 says
//     unannotated phases run at every level (9219), and the matrix is
//     not per phase, so those rows keep OLevel "" with a comment.
//     "4--5" in the wiki is written "4-5" here.
//   - 158 is NOP. Both lookup listings return 158 for an unknown name
//     (9744, 41323, "the sentinel NOP phase"), and page 17 lists 158 NOP
//     (9447).
//   - Not fully explained by the wiki: detail pages cite compressed
//     numbers as binary facts. One getName returns 64 for
//     LateOriCommoning (14346), and vtable addresses are
//     "computed from base + index*40" (17198). Here LateOriCommoning is
//     at true index 70. Page 17 defers a full renumbering (9123), so those pages still
//     use compressed numbers. The table follows the explicit true
//     indices. The name-table refs at 13450 fit neither numbering.
//     AllocateRegisters at 0x22BD490 (41507) is slot 122, which matches
//     the true index.
//   - The true indices put some workers and update passes well after
//     the phase they serve. ScheduleInstructions 114 follows
//     AdvancedPhasePostExpansion 113. UpdateAfterOriDoSyncronization 118
//     comes 10 slots after OriDoSyncronization 108. The wiki says the
//     ordering table is the identity (9458), so these indices stand as
//     given. Every gate still precedes its workers.
var PhaseTable = [159]PhaseInfo{
	{0, "OriCheckInitialProgram", "Validation", "", false, nil, "Checks the structural correctness of the Ori IR produced by PTX lowering."},                                                                // wiki #0 (9231), unshifted
	{1, "ApplyNvOptRecipes", "Optimization", "", false, nil, "Applies NvOptRecipe per-phase tuning (option 391; creates the 440-byte recipe sub-manager)."},                                                 // wiki #1 (9232), unshifted
	{2, "PromoteFP16", "Lowering", "", false, nil, "Promotes FP16 operations to FP32 where the target lacks native FP16 support."},                                                                          // wiki #2 (9233), unshifted
	{3, "AnalyzeControlFlow", "Analysis", "", false, nil, "Builds the CFG and finds loops, dominators and back edges."},                                                                                     // wiki #3 (9234), unshifted
	{4, "AdvancedPhaseBeforeConvUnSup", "Gate", "", true, nil, "Backend hook just before ConvertUnsupportedOps; no-op by default."},                                                                         // wiki #4 (9235), unshifted
	{5, "ConvertUnsupportedOps", "Lowering", "", false, nil, "Rewrites operations the target SM cannot execute into equivalent supported sequences."},                                                       // wiki #5 (9236), unshifted
	{6, "SetControlFlowOpLastInBB", "Cleanup", "", false, nil, "Makes every control-flow instruction the last instruction of its basic block."},                                                             // wiki #6 (9237), unshifted
	{7, "AdvancedPhaseAfterConvUnSup", "Gate", "", true, nil, "Backend hook just after ConvertUnsupportedOps; no-op by default."},                                                                           // wiki #7 (9238), unshifted
	{8, "OriCreateMacroInsts", "Lowering", "", false, nil, "Expands PTX-level macro instructions into Ori instruction sequences."},                                                                          // wiki #8 (9239), unshifted
	{9, "ReportInitialRepresentation", "Reporting", "", false, nil, "Dumps the initial Ori IR; no-op unless DUMPIR/--keep asks for it."},                                                                    // wiki #9 (9240), unshifted
	{10, "EarlyOriSimpleLiveDead", "Optimization", "", false, nil, "Cheap early dead-code elimination of values left dead by lowering (runs even at O0)."},                                                  // wiki #10 (9241), unshifted
	{11, "ReplaceUniformsWithImm", "Optimization", "", false, nil, "Replaces uniform-register reads whose value is known with immediates."},                                                                 // wiki #11 (9242), unshifted
	{12, "OriSanitize", "Validation", "", false, nil, "Validates IR consistency after the initial-setup transformations."},                                                                                  // wiki #12 (9243), unshifted
	{13, "GeneralOptimizeEarly", "Optimization", "", false, nil, "GeneralOptimize bundle #1: copy-prop, const-fold, algebraic simplify, DCE to a fixed point."},                                             // wiki #13 (9244), unshifted
	{14, "DoSwitchOptFirst", "Optimization", "> 0", false, nil, "Switch optimization, first pass: jump tables and case clustering."},                                                                        // wiki #14 (9251), unshifted; O-level: p17 9251 = p64 40941
	{15, "OriBranchOpt", "Optimization", "> 0", false, nil, "Branch folding, unreachable-block removal and conditional-branch simplification."},                                                             // wiki #15 (9252), unshifted; O-level: p17 9252 = p64 40942
	{16, "OriPerformLiveDeadFirst", "Analysis", "", false, nil, "Full liveness analysis plus dead-code elimination (1st of 4 instances)."},                                                                  // wiki #16 (9253), unshifted
	{17, "OptimizeBindlessHeaderLoads", "Optimization", "", false, nil, "Hoists and de-duplicates bindless texture header loads."},                                                                          // wiki #17 (9254), unshifted
	{18, "OriLoopSimplification", "Optimization", "4-5", false, nil, "Loop canonicalization (single entry, single back edge, preheader); aggressive peeling at O4+."},                                       // wiki #18 (9255), unshifted; O-level: p17 9255 = p64 40943
	{19, "OriSplitLiveRanges", "Optimization", "", false, nil, "Splits live ranges at loop boundaries to cut register pressure."},                                                                           // wiki #19 (9256), unshifted
	{20, "PerformPGO", "Optimization", "", false, nil, "Applies profile-guided data (block weights, branch probabilities)."},                                                                                // wiki #20 (9257), unshifted
	{21, "OriStrengthReduce", "Optimization", "", false, nil, "Strength reduction: replaces multiply/divide by cheaper shift/add forms."},                                                                   // wiki #21 (9258), unshifted; feature matrix 40973 says off at O0; not a confirmed per-phase gate, OLevel left ""
	{22, "OriCopyProp", "Optimization", "", false, nil, "Forward copy propagation; a sub-pass of every GeneralOptimize bundle, also injectable into Mercury via NamedPhases."},                              // omitted from the compressed numbering; true index 22 at wiki 9128
	{23, "OriLoopUnrolling", "Optimization", "> 1", false, nil, "Loop unrolling driven by trip count and register-pressure heuristics."},                                                                    // wiki #22 (9259); O-level: p17 9259 = p64 40944
	{24, "GenerateMovPhi", "Lowering", "", false, nil, "Builds SSA form by inserting MOV.PHI pseudo-instructions."},                                                                                         // wiki #23 (9260)
	{25, "OriPipelining", "Optimization", "> 1", false, nil, "Software pipelining: overlaps loop iterations to hide latency."},                                                                              // wiki #24 (9261); O-level: p17 9261 = p64 40945
	{26, "StageAndFence", "Lowering", "", false, nil, "Inserts memory fence and staging instructions needed for coherence."},                                                                                // wiki #25 (9262)
	{27, "OriRemoveRedundantBarriers", "Optimization", "> 1", false, nil, "Removes barriers that data-flow analysis proves redundant."},                                                                     // wiki #26 (9263); O-level: p17 9263 = p64 40946
	{28, "AnalyzeUniformsForSpeculation", "Analysis", "", false, nil, "Finds uniform values that are safe to execute speculatively."},                                                                       // wiki #27 (9264)
	{29, "SinkRemat", "Optimization", "> 1 / > 4", false, nil, "Sinks instructions toward their uses and marks rematerialization candidates (full cutlass mode at O5)."},                                    // wiki #28 (9265); O-level: p17 9265 = p64 40947
	{30, "GeneralOptimize", "Optimization", "", false, nil, "GeneralOptimize bundle #2 (after early loop/branch optimizations)."},                                                                           // wiki #29 (9266)
	{31, "DoSwitchOptSecond", "Optimization", "> 0", false, nil, "Switch optimization, second pass after loop/branch transformations."},                                                                     // wiki #30 (9267); O-level: p17 9267 = p64 40948
	{32, "OptimizeNaNOrZero", "Optimization", "", false, nil, "Standalone NaN-or-zero folding pass."},                                                                                                       // omitted from the compressed numbering; true index 32 at wiki 9129
	{33, "OriLinearReplacement", "Optimization", "", false, nil, "Replaces branch-heavy patterns with linear (branchless) sequences."},                                                                      // wiki #31 (9268)
	{34, "CompactLocalMemory", "Optimization", "", false, nil, "Compacts local-memory allocations by dropping dead slots and reordering."},                                                                  // wiki #32 (9269)
	{35, "OriPerformLiveDeadSecond", "Analysis", "", false, nil, "Full liveness analysis plus dead-code elimination (2nd instance)."},                                                                       // wiki #33 (9276)
	{36, "ExtractShaderConstsFirst", "Optimization", "", false, nil, "Finds uniform values that can be loaded from constant memory (1st pass)."},                                                            // wiki #34 (9277)
	{37, "ConvertMemoryToRegisterOrUniform", "Optimization", "", false, nil, "Promotes stack variables to R or UR registers (sub_910840; knob 487; sub-pass of GeneralOptimizeMid)."},                       // omitted from the compressed numbering; true index 37 at wiki 9130
	{38, "OriHoistInvariantsEarly", "Optimization", "", false, nil, "Loop-invariant code motion, early instance."},                                                                                          // wiki #35 (9278)
	{39, "EmitPSI", "Lowering", "", false, nil, "Emits pixel-shader-input interpolation setup for graphics shaders."},                                                                                       // wiki #36 (9279)
	{40, "GeneralOptimizeMid", "Optimization", "", false, nil, "GeneralOptimize bundle #3, the most complete one (includes memory-to-register promotion)."},                                                 // wiki #37 (9280)
	{41, "Vectorization", "Optimization", "", false, nil, "Load/store vectorization (DisableReadVectorization/DisableWriteVectorization knobs)."},                                                           // omitted from the compressed numbering; true index 41 at wiki 9131
	{42, "OptimizeNestedCondBranches", "Optimization", "> 0", false, nil, "Flattens nested conditional branches."},                                                                                          // wiki #38 (9281); O-level: p17 9281 = p64 40949
	{43, "ConvertVTGReadWrite", "Lowering", "", false, nil, "Converts vertex/tessellation/geometry shader read/write operations."},                                                                          // wiki #39 (9282)
	{44, "DoVirtualCTAExpansion", "Lowering", "", false, nil, "Expands virtual CTA operations into physical CTA primitives."},                                                                               // wiki #40 (9283)
	{45, "MarkAdditionalColdBlocks", "Analysis", "", false, nil, "Marks further basic blocks cold from heuristics and profile data."},                                                                       // wiki #41 (9284)
	{46, "ExpandMbarrier", "Lowering", "", false, nil, "Expands MBARRIER pseudo-instructions into native barrier sequences."},                                                                               // wiki #42 (9285)
	{47, "ForwardProgress", "Lowering", "", false, nil, "Inserts code that guarantees forward progress (no indefinite stalls)."},                                                                            // wiki #43 (9286)
	{48, "OptimizeUniformAtomic", "Optimization", "", false, nil, "Turns thread-uniform atomics into warp-level reductions."},                                                                               // wiki #44 (9287)
	{49, "MidExpansion", "Lowering", "", false, nil, "Target-dependent mid-level expansion before register allocation."},                                                                                    // wiki #45 (9288)
	{50, "GeneralOptimizeMid2", "Optimization", "", false, nil, "GeneralOptimize bundle #4 (after VTG/CTA/mbarrier expansion)."},                                                                            // wiki #46 (9289)
	{51, "AdvancedPhaseEarlyEnforceArgs", "Gate", "", true, nil, "Backend hook before EnforceArgumentRestrictions; no-op by default."},                                                                      // wiki #47 (9290)
	{52, "EnforceArgumentRestrictions", "Lowering", "", false, nil, "Enforces ABI restrictions on function arguments (register classes, alignment)."},                                                       // wiki #48 (9291)
	{53, "GvnCse", "Optimization", "> 1", false, nil, "Global value numbering combined with common-subexpression elimination."},                                                                             // wiki #49 (9292); O-level: p17 9292 = p64 40950
	{54, "OriReassociateAndCommon", "Optimization", "", false, nil, "Reassociates expressions to expose commoning, then commons them."},                                                                     // wiki #50 (9293)
	{55, "ExtractShaderConstsFinal", "Optimization", "", false, nil, "Final shader-constant extraction (GVN may expose new constants)."},                                                                    // wiki #51 (9294)
	{56, "OriReplaceEquivMultiDefMov", "Optimization", "", false, nil, "Removes redundant multi-definition moves whose sources are equivalent."},                                                            // wiki #52 (9295)
	{57, "OriCommoning", "Optimization", "", false, nil, "Commoning (CSE) sub-pass; related to LateOriCommoning."},                                                                                          // omitted from the compressed numbering; true index 57 at wiki 9132
	{58, "OriPropagateVaryingFirst", "Optimization", "", false, nil, "Propagates varying (divergent) annotations, first pass."},                                                                             // wiki #53 (9302)
	{59, "OriDoRematEarly", "Optimization", "> 1", false, nil, "Early rematerialization of cheap values near their uses."},                                                                                  // wiki #54 (9303); O-level: p17 9303 = p64 40951
	{60, "LateExpansion", "Lowering", "", false, nil, "Expands operations that must be lowered after the high-level optimizations."},                                                                        // wiki #55 (9304)
	{61, "SpeculativeHoistComInsts", "Optimization", "", false, nil, "Speculatively hoists common instructions above branches."},                                                                            // wiki #56 (9305); feature matrix 40986 says off at O0-O1; not a confirmed per-phase gate, OLevel left ""
	{62, "RemoveASTToDefaultValues", "Cleanup", "", false, nil, "Drops address-space-type annotations already lowered to defaults."},                                                                        // wiki #57 (9306)
	{63, "GeneralOptimizeLate", "Optimization", "", false, nil, "GeneralOptimize bundle #5 (after late expansion)."},                                                                                        // wiki #58 (9307)
	{64, "OriLoopFusion", "Optimization", "", false, nil, "Fuses adjacent loops with compatible bounds and no cross-loop dependences."},                                                                     // wiki #59 (9308)
	{65, "DoVTGMultiViewExpansion", "Lowering", "", false, nil, "Expands multi-view operations for VTG shaders."},                                                                                           // wiki #60 (9309)
	{66, "OriPerformLiveDeadThird", "Analysis", "", false, nil, "Full liveness analysis plus dead-code elimination (3rd instance)."},                                                                        // wiki #61 (9310)
	{67, "OriRemoveRedundantMultiDefMov", "Optimization", "", false, nil, "Removes dead multi-definition moves."},                                                                                           // wiki #62 (9311)
	{68, "OriDoPredication", "Optimization", "> 1", false, nil, "If-conversion: turns short conditional branches into predicated code."},                                                                    // wiki #63 (9312); O-level: p17 9312 = p64 40952
	{69, "OriSimpleLiveDead", "Optimization", "", false, nil, "Simple liveness/DCE sub-pass; related to EarlyOriSimpleLiveDead."},                                                                           // omitted from the compressed numbering; true index 69 at wiki 9133
	{70, "LateOriCommoning", "Optimization", "", false, nil, "Late CSE for redundancies exposed by predication."},                                                                                           // wiki #64 (9313)
	{71, "GeneralOptimizeLate2", "Optimization", "", false, nil, "GeneralOptimize bundle #6 (after predication and late commoning)."},                                                                       // wiki #65 (9314)
	{72, "OriHoistInvariantsLate", "Optimization", "", false, nil, "Loop-invariant code motion, late instance (after predication)."},                                                                        // wiki #66 (9315)
	{73, "LateVectorization", "Optimization", "", false, nil, "Second vectorization pass for opportunities exposed by optimization."},                                                                       // omitted from the compressed numbering; true index 73 at wiki 9134
	{74, "DoKillMovement", "Optimization", "", false, nil, "Moves kill annotations toward last uses to lower register pressure."},                                                                           // wiki #67 (9316)
	{75, "DoTexMovement", "Optimization", "", false, nil, "Moves texture fetches to reduce exposed latency."},                                                                                               // wiki #68 (9317)
	{76, "OriDoRemat", "Optimization", "> 1", false, nil, "Late rematerialization of values exposed by predication and fusion."},                                                                            // wiki #69 (9318); O-level: p17 9318 = p64 40953
	{77, "SinkCodeIntoBlock", "Optimization", "", false, nil, "Code sinking (sub_78DB70); can be disabled with DisablePhases=SinkCodeIntoBlock."},                                                           // omitted from the compressed numbering; true index 77 at wiki 9135
	{78, "OriPropagateVaryingSecond", "Optimization", "", false, nil, "Propagates varying annotations, second pass after predication."},                                                                     // wiki #70 (9319)
	{79, "OptimizeSyncInstructions", "Optimization", "> 1", false, nil, "Eliminates and simplifies synchronization instructions."},                                                                          // wiki #71 (9320); O-level: p17 9320 = p64 40954
	{80, "LateExpandSyncInstructions", "Lowering", "> 2", false, nil, "Expands sync pseudo-instructions into final hardware sequences."},                                                                    // wiki #72 (9321); O-level: p17 9321 = p64 40955
	{81, "ConvertAllMovPhiToMov", "Lowering", "", false, nil, "Leaves SSA form: turns MOV.PHI into plain MOV."},                                                                                             // wiki #73 (9322)
	{82, "ConvertToUniformReg", "Optimization", "", false, nil, "Moves qualifying values from R registers to uniform (UR) registers."},                                                                      // wiki #74 (9323)
	{83, "LateArchOptimizeFirst", "Optimization", "", false, nil, "Architecture-specific late optimizations, first pass."},                                                                                  // wiki #75 (9324)
	{84, "UpdateAfterOptimize", "Cleanup", "", false, nil, "Refreshes IR metadata invalidated by the late optimization group."},                                                                             // wiki #76 (9325)
	{85, "AdvancedPhaseLateConvUnSup", "Gate", "", true, nil, "Backend hook at the late unsupported-op boundary; no-op by default."},                                                                        // wiki #77 (9326)
	{86, "LateExpansionUnsupportedOps", "Lowering", "", false, nil, "Expands unsupported operations remaining after optimization."},                                                                         // wiki #78 (9333)
	{87, "OriHoistInvariantsLate2", "Optimization", "", false, nil, "Loop-invariant code motion, late instance 2 (after late expansion)."},                                                                  // wiki #79 (9334)
	{88, "ExpandJmxComputation", "Lowering", "", false, nil, "Expands JMX (indexed-jump computation) pseudo-instructions."},                                                                                 // wiki #80 (9335)
	{89, "LateArchOptimizeSecond", "Optimization", "", false, nil, "Architecture-specific late optimizations, second pass."},                                                                                // wiki #81 (9336)
	{90, "AdvancedPhaseBackPropVReg", "Gate", "", true, nil, "Backend hook whose override itself carries backward copy propagation; no-op by default."},                                                     // wiki #82 (9337)
	{91, "OriBackCopyPropagate", "Optimization", "", false, nil, "Backward copy-propagation progress marker (sets pipeline progress to 9); off unless a backend enables it."},                               // wiki #83 (9338)
	{92, "OriPerformLiveDeadFourth", "Analysis", "", false, nil, "Full liveness analysis plus dead-code elimination (4th instance)."},                                                                       // wiki #84 (9339)
	{93, "OriPropagateGmma", "Optimization", "", false, nil, "Propagates WGMMA accumulator values through the IR."},                                                                                         // wiki #85 (9340)
	{94, "InsertPseudoUseDefForConvUR", "Lowering", "", false, nil, "Inserts pseudo use/defs that keep UR-converted values alive through DCE."},                                                             // wiki #86 (9341)
	{95, "FixupGmmaSequence", "Lowering", "", false, nil, "Fixes WGMMA sequences for hardware ordering constraints."},                                                                                       // wiki #87 (9342)
	{96, "OriHoistInvariantsLate3", "Optimization", "", false, nil, "Loop-invariant code motion, late instance 3 (after GMMA fixup)."},                                                                      // wiki #88 (9343)
	{97, "AdvancedPhaseSetRegAttr", "Gate", "", true, nil, "Backend hook before OriSetRegisterAttr; no-op by default."},                                                                                     // wiki #89 (9344)
	{98, "OriSetRegisterAttr", "Analysis", "", false, nil, "Annotates registers with scheduling attributes (latency class, bank)."},                                                                         // wiki #90 (9345)
	{99, "OriCalcDependantTex", "Analysis", "", false, nil, "Computes texture-instruction dependences for the scheduler."},                                                                                  // wiki #91 (9346)
	{100, "AdvancedPhaseAfterSetRegAttr", "Gate", "", true, nil, "Backend hook after OriSetRegisterAttr; no-op by default."},                                                                                // wiki #92 (9347)
	{101, "LateExpansionUnsupportedOps2", "Lowering", "", false, nil, "Second late unsupported-op expansion (ops exposed by GMMA/attribute passes)."},                                                       // wiki #93 (9348)
	{102, "FinalInspectionPass", "Validation", "", false, nil, "Final IR validation before the irreversible scheduling/RA stages."},                                                                         // wiki #94 (9349)
	{103, "LateEnforceArgumentRestrictions", "Lowering", "", false, nil, "Late counterpart of EnforceArgumentRestrictions."},                                                                                // omitted from the compressed numbering; true index 103 at wiki 9136
	{104, "SetAfterLegalization", "Cleanup", "> 1", false, nil, "Sets the post-legalization flag on the compilation context."},                                                                              // wiki #95 (9350); O-level: p17 9350 = p64 40956
	{105, "ReportBeforeScheduling", "Reporting", "", false, nil, "Dumps the IR entering scheduling/RA; no-op unless diagnostics are on."},                                                                   // wiki #96 (9351)
	{106, "AdvancedPhasePreSched", "Gate", "", true, []string{"ScheduleInstructions"}, "Pre-scheduling hook; when a backend activates it, it drives ScheduleInstructions."},                                 // wiki #97 (9358)
	{107, "BackPropagateVEC2D", "Optimization", "", false, nil, "Back-propagates 2D vector register assignments."},                                                                                          // wiki #98 (9359)
	{108, "OriDoSyncronization", "Scheduling", "> 1", false, nil, "Inserts BAR/DEPBAR/MEMBAR synchronization required by the memory model."},                                                                // wiki #99 (9360); O-level: p17 9360 = p64 40957
	{109, "ApplyPostSyncronizationWars", "Scheduling", "> 1", false, nil, "Fixes write-after-read hazards exposed by sync insertion."},                                                                      // wiki #100 (9361); O-level: p17 9361 = p64 40958
	{110, "AdvancedPhaseAllocReg", "Gate", "", true, []string{"AllocateRegisters"}, "Register-allocation hook; when activated it drives AllocateRegisters (no hard-coded allocator in the base pipeline)."}, // wiki #101 (9362)
	{111, "ReportAfterRegisterAllocation", "Reporting", "", false, nil, "Dumps the IR after register allocation; no-op unless diagnostics are on."},                                                         // wiki #102 (9363)
	{112, "Get64bRegComponents", "RegAlloc", "", false, nil, "Splits 64-bit register pairs into 32-bit halves where the target needs it."},                                                                  // wiki #103 (9364)
	{113, "AdvancedPhasePostExpansion", "Gate", "", true, []string{"PostExpansionLowering"}, "Post-RA expansion hook; when activated it drives PostExpansionLowering."},                                     // wiki #104 (9371)
	{114, "ScheduleInstructions", "Scheduling", "", false, nil, "Instruction scheduler (sub_8D0640); forward at O<=2, reverse at O>2; worker of AdvancedPhasePreSched."},                                    // omitted from the compressed numbering; true index 114 at wiki 9137
	{115, "UpdateAfterScheduleInstructions", "Cleanup", "", false, nil, "Refreshes IR metadata after scheduling."},                                                                                          // omitted from the compressed numbering; true index 115 at wiki 9138
	{116, "ApplyPostRegAllocWars", "RegAlloc", "", false, nil, "Fixes write-after-read hazards exposed by register allocation."},                                                                            // wiki #105 (9372)
	{117, "AdvancedPhasePostSched", "Gate", "", true, nil, "Post-scheduling hook; no-op by default."},                                                                                                       // wiki #106 (9373)
	{118, "UpdateAfterOriDoSyncronization", "Cleanup", "", false, nil, "Refreshes IR metadata after sync insertion."},                                                                                       // omitted from the compressed numbering; true index 118 at wiki 9139
	{119, "OriRemoveNopCode", "Cleanup", "", false, nil, "Removes NOPs and placeholder dead code."},                                                                                                         // wiki #107 (9374)
	{120, "ReportBeforeRegisterAllocation", "Reporting", "", false, nil, "Dumps the IR just before register allocation (DUMPIR target)."},                                                                   // omitted from the compressed numbering; true index 120 at wiki 9140
	{121, "OptimizeHotColdInLoop", "Optimization", "", false, nil, "Separates hot and cold paths inside loops."},                                                                                            // wiki #108 (9375); feature matrix 40987 says off at O0; not a confirmed per-phase gate, OLevel left ""
	{122, "AllocateRegisters", "RegAlloc", "", false, nil, "The register allocator entry (DUMPIR=AllocateRegisters); worker of AdvancedPhaseAllocReg."},                                                     // omitted from the compressed numbering; true index 122 at wiki 9141
	{123, "OptimizeHotColdFlow", "Optimization", "", false, nil, "Separates hot and cold paths at function level."},                                                                                         // wiki #109 (9376); feature matrix 40987 says off at O0; not a confirmed per-phase gate, OLevel left ""
	{124, "UpdateAfterOriAllocateRegisters", "Cleanup", "", false, nil, "Refreshes IR metadata after register allocation."},                                                                                 // omitted from the compressed numbering; true index 124 at wiki 9142
	{125, "PostSchedule", "Scheduling", "> 0", false, nil, "Post-scheduling pass that finalizes instruction order."},                                                                                        // wiki #110 (9377); O-level: p17 9377 = p64 40959
	{126, "AdvancedPhasePostFixUp", "Gate", "", true, []string{"PostFixUp"}, "Post-fixup hook; when activated it drives PostFixUp."},                                                                        // wiki #111 (9378)
	{127, "PostExpansionLowering", "Lowering", "", false, nil, "Post-RA expansion/lowering; worker of AdvancedPhasePostExpansion."},                                                                         // omitted from the compressed numbering; true index 127 at wiki 9143
	{128, "PlaceBlocksInSourceOrder", "Cleanup", "", false, nil, "Chooses the final basic-block layout (source order)."},                                                                                    // wiki #112 (9379)
	{129, "PostFixForMercTargets", "Encoding", "", false, nil, "Fixes up instructions for Mercury encoding requirements."},                                                                                  // wiki #113 (9380)
	{130, "FixUpTexDepBarAndSync", "Scheduling", "", false, nil, "Repairs texture dependency barriers and sync after scheduling."},                                                                          // wiki #114 (9381)
	{131, "AdvancedScoreboardsAndOpexes", "Gate", "> 0", true, nil, "Full scoreboard/control-word generation at O1+ (sub_A36360, sub_A23CF0); no-op at O0."},                                                // wiki #115 (9382); O-level: p17 9382 = p64 40960
	{132, "UpdateAfterConvertUnsupportedOps", "Cleanup", "", false, nil, "Refreshes IR metadata after late unsupported-op conversion (no-op by default)."},                                                  // wiki #132 (9421), unshifted
	{133, "MergeEquivalentConditionalFlow", "Optimization", "", false, nil, "Merges blocks with equivalent conditional flow (tail merging)."},                                                               // wiki #133 (9422), unshifted
	{134, "AdvancedPhaseAfterMidExpansion", "Gate", "", true, nil, "Backend hook after mid-level expansion; no-op by default."},                                                                             // wiki #134 (9423), unshifted
	{135, "AdvancedPhaseLateExpandSyncInstructions", "Gate", "", true, nil, "Backend hook for late sync-instruction expansion; no-op by default."},                                                          // wiki #135 (9424), unshifted
	{136, "LateMergeEquivalentConditionalFlow", "Optimization", "", false, nil, "Second conditional-flow merge for cases exposed by late transforms."},                                                      // wiki #136 (9425), unshifted
	{137, "LateExpansionUnsupportedOpsMid", "Lowering", "", false, nil, "Mid-late unsupported-op expansion between the two merge passes."},                                                                  // wiki #137 (9426), unshifted
	{138, "OriSplitHighPressureLiveRanges", "RegAlloc", "", false, nil, "Last-resort live-range splitting when pressure exceeds the register limit."},                                                       // wiki #138 (9427), unshifted
	{139, "ProcessO0WaitsAndSBs", "Scheduling", "== 0", false, nil, "O0-only conservative scoreboards: maximum stalls and waits at every hazard."},                                                          // wiki #139 (9428); also listed as compressed #116 (9383), dropped as a duplicate; O-level: p17 9428 and 9383 = p64 40961
	{140, "PostFixUp", "Cleanup", "", false, nil, "Target post-fixup (target vtable+0x148); worker of AdvancedPhasePostFixUp."},                                                                             // wiki #140 (9429)
	{141, "MercConverter", "Encoding", "", false, nil, "Converts Ori instructions into Mercury form (sub_9F3760)."},                                                                                         // wiki #141 (9430)
	{142, "MercEncodeAndDecode", "Encoding", "", false, nil, "Encodes to SASS and decodes back to verify the round trip."},                                                                                  // wiki #142 (9431); also listed as compressed #117 (9392), dropped as a duplicate
	{143, "MercExpandInstructions", "Encoding", "", false, nil, "Expands Mercury pseudo-instructions into final SASS sequences."},                                                                           // wiki #143 (9432); also listed as compressed #118 (9393), dropped as a duplicate
	{144, "MercGenerateWARs1", "Encoding", "", false, nil, "WAR hazard annotation, first pass (before expansion effects)."},                                                                                 // wiki #144 (9433); also listed as compressed #119 (9394), dropped as a duplicate
	{145, "MercGenerateOpex", "Encoding", "", false, nil, "Generates opex (operation extension) annotations per instruction."},                                                                              // wiki #145 (9434); also listed as compressed #120 (9395), dropped as a duplicate
	{146, "MercGenerateWARs2", "Encoding", "", false, nil, "WAR hazard annotation, second pass (hazards introduced by expansion)."},                                                                         // wiki #146 (9435); also listed as compressed #121 (9396), dropped as a duplicate
	{147, "MercGenerateSassUCode", "Encoding", "", false, nil, "Emits the final SASS microcode bytes."},                                                                                                     // wiki #147 (9436); also listed as compressed #122 (9397), dropped as a duplicate
	{148, "ComputeVCallRegUse", "RegAlloc", "", false, nil, "Computes register usage at virtual/indirect call sites for EIATTR metadata."},                                                                  // wiki #148 (9437); also listed as compressed #123 (9406), dropped as a duplicate
	{149, "CalcRegisterMap", "RegAlloc", "", false, nil, "Computes the final physical-to-logical register map emitted as EIATTR."},                                                                          // wiki #149 (9438); also listed as compressed #124 (9407), dropped as a duplicate
	{150, "UpdateAfterPostRegAlloc", "Cleanup", "", false, nil, "Refreshes IR metadata after post-RA processing (no-op by default)."},                                                                       // wiki #150 (9439); also listed as compressed #125 (9408), dropped as a duplicate
	{151, "ReportFinalMemoryUsage", "Reporting", "", false, nil, "Prints the memory-pool consumption summary (no-op by default)."},                                                                          // wiki #151 (9440); also listed as compressed #126 (9409), dropped as a duplicate
	{152, "AdvancedPhaseOriPhaseEncoding", "Gate", "", true, nil, "Encoding-boundary hook; when active sets pipeline progress to 21; no-op by default."},                                                    // wiki #152 (9441); also listed as compressed #127 (9410), dropped as a duplicate
	{153, "FormatCodeList", "Encoding", "", false, nil, "Formats the instruction list for ELF output."},                                                                                                     // wiki #153 (9442)
	{154, "UpdateAfterFormatCodeList", "Cleanup", "", false, nil, "Refreshes IR data structures after FormatCodeList (no-op by default)."},                                                                  // wiki #154 (9443); also listed as compressed #128 (9411), dropped as a duplicate
	{155, "DumpNVuCodeText", "Reporting", "", false, nil, "Dumps SASS as text (cuobjdump-style) when requested."},                                                                                           // wiki #155 (9444); also listed as compressed #129 (9412), dropped as a duplicate
	{156, "DumpNVuCodeHex", "Reporting", "", false, nil, "Dumps raw SASS as hex when requested."},                                                                                                           // wiki #156 (9445); also listed as compressed #130 (9413), dropped as a duplicate
	{157, "DebuggerBreak", "Cleanup", "", false, nil, "Development breakpoint hook (empty in release builds)."},                                                                                             // wiki #157 (9446); also listed as compressed #131 (9414), dropped as a duplicate
	{158, "NOP", "Cleanup", "", false, nil, "Terminal no-op; the index an unknown phase name resolves to."},                                                                                                 // wiki #158 (9447)
}
