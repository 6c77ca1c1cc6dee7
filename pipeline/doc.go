// Package pipeline ties orilab's compiler together: it takes PTX source
// through the front end (pipeline/ptx) and the lowering (pipeline/lower)
// to verified Ori, runs ptxas's 159 phases on it, and executes kernel
// specs (pipeline/spec) on the simulator (pipeline/sim).
//
// Its parts, in dependency order (no two files depend on each other in a
// loop; TestNoFileCycles checks it):
//
//   - context.go: what a phase sees (PhaseContext, Backend) and the code
//     of a phase (PhaseFunc);
//   - the phases' code owned here: checks.go (validation, CFG analysis,
//     and ReleaseVerifiers: what a release compilation skips),
//     midend.go (running a pipeline/opt pass over every function),
//     expand.go (ConvertUnsupportedOps, LateExpansionUnsupportedOps),
//     outlineslow.go (the knobs OutlineF64SlowPath and
//     OutlineF32SlowPath: slow paths as subroutines, lower/slowpath.go),
//     cpasync.go (the knob CpAsyncLDGSTS: cp.async as LDGSTS,
//     lower/cpasync.go),
//     backend.go (scheduling, allocation, control words, SASS text),
//     mercfixup.go (PostFixForMercTargets: operand legalization and the
//     memory descriptor before encoding; ldgstspad.go its sm_90 padding
//     before LDGSTS) and encodephases.go (the encode/decode round trip,
//     the words and the cubin); a caller that reads only one output
//     leaves the other out (PhaseOptions.NoSASSText, NoCubin);
//   - phasetable.go: the one phase table, PhaseTable. Each row holds the
//     phase's index, name, category, O-level gate, whether it is
//     required, its doc line and its code or the reason it is a no-op;
//     `orilab phases`, the manager, bisection, the workbench and the
//     fault injector all read it;
//   - phases.go: looking phases up by name, the gates (PhasePlan);
//   - plant.go: planting a fault after a phase and the post-RA verifiers
//     that judge it (VerifyPostRA);
//   - manager.go: the phase manager (Session), which runs the phases with
//     a snapshot after each (with the remarks of its passes), names a
//     phase that fails or panics (PhaseError) and runs the verifier after
//     every phase on request;
//   - parallel.go: compiling the module's call-graph components at once
//     up to PlaceBlocksInSourceOrder, and the later per-function phases'
//     functions at once (PhaseOptions.Jobs), with the serial output;
//   - request.go: the one compilation request (Request) every front door
//     builds: target, -O, the knobs resolved once from every source in
//     ptxas's order (ORILAB_KNOBS, knobs file, -knob, .pragma),
//     --maxrregcount, verify mode, release mode (no verifiers), a planted
//     fault, observers, how many functions compile at once (Jobs);
//   - knobs.go, sites.go, dumpir.go, report.go: .pragma knobs (with their
//     positions, for errors), BisectSites,
//     DUMPIR and the per-phase statistics and trace;
//   - compile.go and run.go: Compile, and RunSpec/Execute, which run a
//     kernel spec on any phase's IR and check its buffers.
package pipeline
