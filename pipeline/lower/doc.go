// Package lower translates a checked PTX module into Ori: PTX's typed
// virtual-ISA instructions become SASS opcodes on virtual registers, labels
// become basic blocks, kernel parameters become constant-bank reads, and
// instructions SASS does not have (integer division, 64-bit arithmetic,
// IEEE division and square root) become instruction sequences.
//
// The meaning of every opcode and modifier it emits is fixed by
// pipeline/ori/SEMANTICS.md; the simulator implements the same document.
// The lowering is organised like ptxas's DAGgen: a driver (lower.go) walks
// functions and blocks and dispatches each instruction by its PTX opcode to
// a handler registered by one of the family files (int.go, float.go,
// cvt.go, mem.go, ctrl.go, warp.go, ...).
//
// Anything it cannot translate is an error "FILE:LINE:COL: error:
// unsupported: ...", never a silent skip.
package lower
