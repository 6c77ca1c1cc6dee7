// Package lower translates a checked PTX module into Ori: PTX's typed
// virtual-ISA instructions become SASS opcodes on virtual registers, labels
// become basic blocks, kernel parameters become constant-bank reads, and
// instructions SASS does not have (integer division, 64-bit arithmetic,
// IEEE division and square root) become instruction sequences.
//
// The meaning of every opcode and modifier it emits is fixed by
// pipeline/ori/SEMANTICS.md; the simulator implements the same document.
// The lowering is organised like ptxas's DAGgen: a driver (lower.go,
// body.go) walks functions and blocks and dispatches each instruction by
// its PTX opcode (dispatch.go) to a handler of one of the family files:
// int.go, bits.go, cmp.go, float.go, cvt.go, mem.go, atomic.go, ctrl.go,
// sreg.go, sync.go (barriers and the warp collectives shfl, vote,
// redux, match), mma.go and mma_narrow.go (ldmatrix, stmatrix and
// mma.sync), simd.go and video_more.go (the SIMD video instructions
// and vmad; the scalar ones are in bits.go), tex.go (texture fetches and
// queries: tex, tld4, txq, with .texref header words in constant bank 0)
// and surface.go (suld.b, sust.b, suq); cpasync.go lowers cp.async to
// LDGSTS, LDGDEPBAR and DEPBAR on sm_80 and later (Options.CpAsyncLDGSTS;
// otherwise mem.go copies through registers). expand.go holds the expansions of the operations kept
// whole for the optimizer (integer division, f64 division and square
// root), which the phases ConvertUnsupportedOps and
// LateExpansionUnsupportedOps call. slowpath.go puts the slow paths of
// f64 division and reciprocal (where DDIV is expanded) and of
// rsqrt.approx.f64 (at lowering, Options.OutlineSlowPaths) and, when
// Options.OutlineF32Div is set, of the IEEE f32 division (at lowering) into
// subroutines the module shares, called with the private convention, as
// ptxas does; a lowering of several functions at once (Options.Jobs)
// makes them through a view per function and places them where the
// serial lowering would, so its module is the serial one.
//
// Shared variables have one module-wide layout (body.go), from 0x400 on
// sm_90 where the first KB is the system's (ori.SharedReserved), and a
// variable's address taken as a value is, on sm_90, the offset with the
// CTA's cluster rank in bits 24-31 (MOV, S2R SR_CgaCtaId, LEA; mem.go's
// sharedAddr), as ptxas 13.0 builds it.
//
// A module whose .target is newer than Options.Arch is refused, as ptxas
// refuses it. atom/red.shared.add.f32 becomes ptxas's compare-and-swap
// loop (atomic.go): no ATOMS word adds f32.
//
// The two commuted operands of an f64 add, sub, mul, fma or min/max are
// put in the order ptxas 13.0 -O3 gives them, the earlier-defined value
// first and a constant second (commute.go), since the f64 units return
// the second operand's NaN when both are NaNs.
//
// A mul and an add (or sub) without rounding modifiers become one fused
// multiply-add where ptxas 13.0 contracts them (contract.go), at every -O
// level, unless the FMAContraction knob (--fmad=false) says no.
//
// Where ptxas 13.0 computes a result at compile time differently from the
// instruction's run-time rule, and the H100 shows ptxas's result, the
// lowering computes ptxas's (ptxasfold.go: a shift folded into a
// multiplier, abs/neg of a NaN constant, an 8-bit store of an f16
// value); those rules look at every definition of a register that
// reaches the use, which ptxreach.go finds on the PTX statements (a
// register declared in a nested block is another register). rcp, sqrt,
// rsqrt, lg2, ex2, sin and cos .approx.f32 of a compile-time constant
// become a move of the value ptxas 13.0 folds them to (approxfold.go), at
// every -O level, unless the FoldApproxConstants knob says no.
//
// Before lowering, a .func holding brx.idx is inlined at each direct call
// it can be (inlinebrx.go) and dropped, so that its jump table lies in the
// calling kernel's constant bank 2 as ptxas's does; the parsed module is
// left as it was.
//
// Anything it cannot translate is an error "FILE:LINE:COL: error:
// unsupported: ...", never a silent skip.
package lower
