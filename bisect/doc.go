// Package bisect finds what breaks a kernel: the phase, a set of phases
// to disable, a knob difference, or the single rewrite inside a phase; and
// it shrinks a failing kernel. Its oracle is execution: a kernel spec's
// expected values, or, when the spec has none, the output of the IR right
// after lowering. A compilation that fails in a phase (a verifier rejects
// its output or a fault planted after it, the phase returns an error or
// panics) fails like a wrong output, and a hang is a failure through the
// simulator's step limit: phase mode puts the failing phase last in its
// search, the other modes count the compilation as failing (exec.go).
//
// Every compilation of a search is the caller's pipeline.Request
// (Options embeds it: target, -O, knobs from every source, DisablePhases,
// --verify, a planted fault) with the mode's own changes on top.
//
// The modes, each re-running its final answer twice (the flakiness
// guard):
//   - Phase (phase.go): a binary search over the phases that changed the
//     IR (a phase that changed nothing shares its module with the previous
//     snapshot and cannot introduce a difference), then a confirmation.
//   - Disable (disable.go): delta debugging (ddmin) over the optional
//     phases that ran, through the DisablePhases knob, for a minimal set
//     whose disabling makes the kernel pass.
//   - Knobs (knobs.go): ddmin over the knobs whose values differ between a
//     passing and a failing setting, for a minimal difference that fails.
//   - Sites (sites.go): inside one phase, a binary search over prefixes of
//     the rewrites it numbers (the BisectSites knob) for the one rewrite
//     that breaks the kernel.
//
// Reduce (reduce.go) shrinks the PTX and the launch of a failing kernel
// while its failure signature (culprit phase and kind of failure, or
// compile-error message) stays the same and no register is read before it
// is written where the original did not; ptxrewrite.go is its PTX
// rewriter, and the reduced spec is written by pipeline/spec's writer.
package bisect
