// Package sim executes Ori: the simulator that is orilab's source of truth.
// Bisection, fault campaigns, the workbench's run view and every
// correctness test run kernels here. It executes a function at any point of
// the pipeline: virtual registers before register allocation, physical
// registers, local-memory spills and control words after.
//
// # What it models
//
// A launch is a grid of CTAs; each CTA has warps of 32 threads, shared
// memory (static plus the launch's dynamic part), and per-thread local
// memory that also holds spill slots. Global memory is a set of
// allocations with bounds checks; every access outside an allocation, and
// every misaligned access, is an error naming the instruction ID, the
// thread and the address. Constant bank 0 holds the launch geometry and
// the kernel parameters at the architecture's offsets (see
// pipeline/ori/SEMANTICS.md); bank 3 the module's .const data; bank 4 the
// addresses of module .global variables. Textures are the launch's
// bindings (Launch.Textures): TEX, TLD, TLD4 and TXQ read them by handle,
// from a register or from a .texref's header word in bank 0, with the
// CUDA programming guide's filtering and addressing rules (texture.go);
// SULD and SUST read and write the same bindings as surfaces (surface.go).
//
// # The warp model
//
// Threads have their own program counters, as on Volta and later. A warp
// executes in steps: each step picks the smallest program counter among
// its runnable threads (program order is the block layout order, then the
// instruction index) and executes that one instruction for every runnable
// thread at that counter. Threads that diverge therefore run separately
// and meet again as soon as the ones behind catch up, which for the code
// compilers produce is the immediate post-dominator. The set of threads
// that execute one instruction together is what the warp collectives see:
// SHFL, VOTE, REDUX, MATCH and activemask operate over exactly those
// threads. The H100 does not always reconverge there (issue 18, three
// recorded programs): in fuzz5551189 ptxas brackets a brx.idx that splits
// the warp by lane parity with BSSY B1 and BSYNC B1 and reads activemask
// right after the BSYNC, yet the H100 gives 0x55555555 to the even lanes
// and 0xaaaaaaaa to the odd ones; in fuzz5550705 (a call on one side) and
// fuzz5551241 (loops) likewise. In each, the path of the threads the
// BSYNC waits for executes YIELD (a loop, a callee's entry); our reading
// is that the waiting threads were released there (the forward-progress
// rule of independent thread scheduling), which depends on timing that
// this model, without scheduler timing, cannot reproduce. A shuffle that
// reads a lane outside that set reads that lane's current register value
// (PTX leaves it undefined; we make it deterministic).
//
// Function calls keep a per-warp stack of frames. CALL pushes a frame for
// the threads that execute it; the other threads of the caller wait until
// the callee's threads have all returned (RET) or exited. Each frame has
// its own virtual registers; physical registers belong to the warp, which
// is how the calling convention passes arguments in R4 and up.
//
// BAR.SYNC is a CTA barrier with the .aligned semantics of PTX's
// bar.sync: every live thread of a warp must execute the same barrier
// instruction together. Executing it in divergent code is reported as an
// error rather than left to hang. A barrier completes when every thread of
// the CTA that has not exited is waiting at it. BAR.RED writes its
// reduction into its result or, without one (the legalized code, where
// PostFixForMercTargets splits the result off as ptxas does), keeps it
// per lane for the B2R.RESULT that follows. BSSY/BSYNC and WARPSYNC
// are convergence points: a thread waits there until the other named
// threads arrive or exit. When no thread of a CTA can make progress, the
// run ends with a deadlock error that says who waits where.
//
// CTAs run one after another, and warps within a CTA round-robin with a
// fixed quantum, so a given IR and spec always produce the same result.
// The clock (SR_CLOCKLO) is the number of warp-steps executed so far.
// A step limit ends runs that do not terminate.
//
// # Provenance
//
// With Options.Provenance set, a run also records which PTX line produced
// every register, predicate and memory word it writes (provenance.go):
// copies pass their source's line on, so a word of an output buffer names
// the statement that computed it. The hardware-truth conformance test uses
// it to explain each difference from the H100's buffers.
//
// With Options.MUFU set, every 32-bit MUFU result passes through a
// function that may replace it. Perturbing one function's results and
// watching which output words start to agree with the H100's recovers
// single-instruction hardware data from whole recorded programs
// (pipeline's TestMUFUExtract; the tanh model is checked against what it
// recovered).
package sim
