// Package ptxasdiff compares orilab's PTX front end with NVIDIA's ptxas:
// for each PTX file, whether each accepts it and, for rejected files, the
// line of the first error. ptxas 13.0 is the reference for what is valid
// PTX (issue 19).
//
// Run runs both over a set of files (ptxas in parallel, optionally with a
// cache of its verdicts); Summarize counts the agreement; Mutate makes the
// mutants of a valid module (one modifier, immediate or register of one
// instruction changed). The package's tests compare the shared corpus and
// testdata, the fuzz programs NVIDIA's JIT refused, and the mutants;
// internal/ptxgen's tests use Run on freshly generated programs.
package ptxasdiff
