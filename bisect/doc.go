// Package bisect finds what breaks a kernel: the phase, a set of phases
// to disable, or a knob difference. Its oracle is execution: a kernel
// spec's expected values, or, when the spec has none, the output of the IR
// right after lowering.
//
// Three modes are built, each re-running its final answer twice (the
// flakiness guard):
//   - Phase (phase.go): a binary search over the phases that changed the
//     IR (a phase that changed nothing shares its module with the previous
//     snapshot and cannot introduce a difference), then a confirmation.
//   - Disable (disable.go): delta debugging (ddmin) over the optional
//     phases that ran, through the DisablePhases knob, for a minimal set
//     whose disabling makes the kernel pass.
//   - Knobs (knobs.go): ddmin over the knobs whose values differ between a
//     passing and a failing setting, for a minimal difference that fails.
//
// The sites mode (single rewrites inside a phase) needs per-pass rewrite
// counters, which the optimizer passes do not have yet.
package bisect
