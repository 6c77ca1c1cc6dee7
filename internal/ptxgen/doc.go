// Package ptxgen generates random PTX programs that are valid and free of
// undefined behaviour by construction, each with a kernel spec, for
// differential testing of the compiler (`orilab fuzz`, package difftest).
//
// It owns
//
//   - the program model (program.go): a kernel and device functions whose
//     bodies are statement trees (straight-line leaves, ifs, loops, break
//     and continue) over state variables that are always defined, and
//     its PTX text form;
//   - the generator (generate.go, gen.go and one gen_*.go file per
//     statement family: integer, float, comparison, memory, atomic,
//     shared, warp and call statements), which draws everything from a
//     seed with its own random source (rng.go), so a seed means the same
//     program on every platform and Go release;
//   - statements added to each function after its body, from a random
//     stream of their own so that a seed keeps every statement it had
//     (gen_partial.go): predicated partial definitions, registers defined
//     only under a guard and then read, and 16-bit scalar arithmetic the
//     b16 family lacks;
//   - tensor-core statements (gen_mma.go): mma.sync of the f16, bf16,
//     tf32 and s8/u8 shapes at the top level of kernels whose warps are
//     whole and never exit early, also from a random stream of their own,
//     and in some of those kernels one of the s4/u4 or b1 shapes
//     (gen_mma_narrow.go), from a stream forked after the others;
//   - the launch and parameter contents of a program, as a kernel spec in
//     memory (Program.Spec) or as a JSON file (Program.SpecJSON);
//   - the structural reducer (shrink.go): statement deletion, which always
//     leaves a valid program because no statement depends on another.
//
// The rules that keep programs well defined are listed in gen.go and next
// to the statement families that rely on them. The generator emits only
// what orilab's front end and lowering accept; a program they reject is a
// generator bug or a front-end bug, and difftest reports it as a bad
// program.
package ptxgen
