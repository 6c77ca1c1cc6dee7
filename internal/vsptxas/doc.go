// Package vsptxas measures orilab against NVIDIA's ptxas on the same PTX:
// `orilab vs-ptxas FILE|DIR...` compiles every file with both, at the same
// -arch and -O level, and reports per kernel the registers, the spill
// bytes and the static instruction count, and per file the compile time
// of the whole process (orilab's binary against ptxas's, runs alternated,
// medians), with geometric means of the ratios over the whole set. The
// time is the wall clock, or with Options.CPU (--cpu) the CPU time, user
// plus system, of each compiler process, which a loaded machine distorts
// far less.
//
// Both compilers are run as programs: orilab as `orilab compile -v`, whose
// SASS text and ptxas-style resource lines are parsed, and ptxas as
// `ptxas -v -o FILE.cubin` followed by `cuobjdump -sass` for the
// instruction count. The timed runs have both write a cubin (orilab
// falls back to its SASS text for a file it cannot encode, which the
// report counts). Counting rules, the same on both sides: every
// instruction of a function's SASS, except NOPs and the branch-to-self
// that ptxas appends after the last EXIT. A file either compiler rejects
// is reported with both verdicts and left out of the means.
//
// The tools are found by internal/nvtools. The full-corpus comparison is
// a benchmark to run by hand (its numbers go into the notes of issue 21);
// the package test runs it on two small files, so the harness itself is
// tested wherever ptxas is installed.
package vsptxas
