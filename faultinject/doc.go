// Package faultinject injects bugspec-style faults into post-register-
// allocation Ori and measures whether the verifiers, or execution, catch
// them. It follows ptxas's internal fault injector (the bugspec.txt
// mechanism of the wiki's "Debug Infrastructure" section) and adds the
// campaign machinery that turns it into a measurement.
//
// # Specification
//
// A bug specification is one line of six integers, "C0,C1,C2,C3 C4 C5",
// the number of faults to inject in each category; zero or a negative
// number disables a category (spec.go). ParseSpec and ParseFile read it
// with errors that name the field, and for files the file:line:col.
//
// # Categories and kinds
//
// Each category collects its candidate instructions (collect.go) and
// corrupts one operand of each selected instruction (mutate.go). Each
// fault carries one of ptxas's ten kind codes:
//
//	field  category      candidates                                      kind
//	0      register      any instruction with an allocated register     1 r-ur register (R, UR)
//	                     operand; the last such operand is replaced     2 p-up register (P, UP)
//	1      predicate     guarded instructions; the guard is replaced    6 predicated bug
//	                     (inverted when no other predicate is in use)
//	2      offset/spill  spill and refill instructions (Role spill,     4 offset
//	                     refill): the [R1+off] offset gets +16 as a
//	                     signed 24-bit field; a spill without memory    8 spill-regill bug
//	                     operand gets its value register replaced
//	3      remat         rematerialized instructions (Role remat): an   7 remat bug
//	                     immediate bit flipped, else a constant-bank
//	                     offset moved, else a register replaced
//	4      R2P/P2R       P2R and R2P: the general register replaced     9 r2p-p2r bug
//	5      bit-spill     P2R/R2P with a one-bit mask (one predicate in  10 bit-spill bug
//	                     one bit of a register): the bit moved to
//	                     another predicate
//
// Kinds 3 (any reg) and 5 (regular bug) are in ptxas's table, but no
// category produces them. Replacement registers keep the class and the
// width, stay aligned, and lie in the function's used range (R4 up to the
// highest register the function uses): the corrupted IR stays well formed
// and executable, so what catches the fault is a verifier or the result,
// never a malformed-IR error. R0-R3 (the stack pointer R1 included), RZ
// and PT are never chosen as replacements nor replaced (a PT guard can
// only be inverted). A fault on a branch's guard updates the CFG edges.
//
// # Selection and report
//
// Inject draws, for each active category in field order, the requested
// number of candidates uniformly, re-drawing an instruction that already
// has a fault (an FNV-1a hash set, fnv.go), and mutates in place. Its
// Report gives ptxas's lines exactly:
//
//	Num forced bugs N
//	Created a bug at index I : kind K inst # ID [OFF] in operand OP correct val V replaced with W
//
// plus notes for categories that had too few candidates.
//
// # Differences from ptxas
//
//   - ptxas seeds its generator from the clock (srand(time(0))), so no run
//     can be repeated. orilab takes an explicit seed and draws from its
//     own generator (rng.go): the same module, spec and seed give the same
//     faults on every machine and Go release.
//   - ptxas injects whenever ./bugspec.txt exists, silently. orilab
//     injects only when asked; InjectCompat (with ReadCompatSpec and
//     CompatSeed) reproduces the implicit behaviour for --ptxas-compat,
//     including the "Cannot open file with bug specification" line, and
//     still reports the seed it used.
//   - ptxas injects per function; orilab pools the candidates of all the
//     module's functions (or those Options.Funcs names).
//   - Each instruction receives at most one fault, across categories, so
//     every outcome can be attributed to one fault.
//   - Spill, refill and remat instructions are found by Inst.Role, which
//     the allocator sets, instead of ptxas's allocator side tables.
//
// # Campaigns
//
// Campaign runs many trials in parallel (campaign.go), each on a fresh
// copy of the post-allocation snapshot with a seed derived from the
// campaign seed and the trial number (TrialSeed), and classifies each
// trial (outcome.go): caught by a verifier (structural, reaching
// definitions, hazard), caught by execution (mismatch, memory fault,
// hang), masked, or a compiler crash. The Matrix counts faults by kind and
// outcome, as a text table or JSON; escaped faults come with a replay
// command. The compiler enters through the Target interface, so this
// package does not depend on the driver above it.
//
// # One verdict everywhere
//
// PipelineTarget judges a corrupted module with pipeline.VerifyPostRA,
// the verifiers the phase manager runs on a fault planted in a
// compilation; Plant builds that planted fault (a pipeline.Fault) from a
// bugspec line, a seed and a phase for orilab compile --bugspec, orilab
// bisect --bugspec and the workbench's Fault pane. So a fault gets the
// same verdict from all of them as from orilab inject.
package faultinject
