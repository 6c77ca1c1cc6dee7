// Package difftest checks the compiler against itself with programs from
// ptxgen: the program executed right after lowering is the oracle, and
// every configuration (an -O level, optionally random knob settings) must
// produce the same buffers after the last phase, with the IR verifier run
// after every phase. It is the engine of `orilab fuzz`.
//
// It owns
//
//   - Check and CheckPTX (check.go): one program under a list of
//     configurations, and the outcome kinds (mismatch, exec-error,
//     compile-error, crash, bad-program);
//   - random knob settings (knobs.go): DisablePhases over the optional
//     phases of a level, and values for every registered code-generation
//     knob;
//   - campaigns (campaign.go): many seeds on several workers, with a
//     summary of outcomes, signatures and speed;
//   - findings (findings.go): the signature of a failure (kind, culprit
//     phase from bisect, normalized message), and for the first few of
//     each signature a saved case with its bisection, its ptxgen shrink
//     (which keeps a candidate only when it fails with the same kind,
//     class and culprit phase), its bisect.Reduce reduction and the
//     commands that replay it;
//   - coverage counts (coverage.go): statement kinds, PTX instructions,
//     Ori opcodes and per-phase change counts.
//
// Saved findings kept as regression tests live in testdata/fuzzfindings
// (see the tests in this package).
package difftest
