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
// memory that also holds spill slots. On sm_90 every CTA is alone in
// its cluster (SR_CgaCtaId reads 0), and a shared address with that rank
// in bits 24-31 is the CTA's own window. Global memory is a set of
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
// LDGSTS (cp.async) copies from global to shared memory when it executes,
// which is one execution the PTX manual allows; LDGDEPBAR and DEPBAR then
// have nothing to wait for (exec_cpasync.go).
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
// threads.
//
// The H100 does not always reconverge there. Of the 72 recorded programs
// of issue 18 that read activemask (../shared/hwtruth), 68 agree with this
// model and 4 do not: the "activemask" family of the conformance test. In
// each, ptxas -O3 brackets a divergent region with BSSY/BSYNC, the path of
// some threads runs YIELD (a loop head, a callee's entry), and the H100's
// activemask after the BSYNC is, for every thread, exactly the group of
// threads that took its path through the region, as if the BSYNC had
// merged none of them. Writing the recovered masks in place of
// activemask (a table indexed by thread) makes all four programs
// bit-exact at -O0 and -O3, so every one of their differing elements
// comes from this:
//   - fuzz5551189 (line 235, out word 8 of each thread): a brx.idx whose
//     index is the lane parity (the odd lanes' target runs a loop); the
//     even lanes read 0x55555555, the odd 0xaaaaaaaa (in block 1, warp 0,
//     lane 1 read 0x55555557 with the even lanes and the other odd lanes
//     0xaaaaaaa8), where the model gives 0xffffffff; 562 elements follow
//     from it.
//   - fuzz5550705 (line 355, out word 9): "@%p4 bra" on lane < 16 skips a
//     call of fn1; lanes 16-31, which made the call, read 0xffff0000 (32
//     elements; lanes 0-15 overwrite the word).
//   - fuzz5551241 (line 459, out word 13): a region of brx.idx targets and
//     two loops; in each of the 18 warps, lanes 6, 11, 12, 16 and 24 left
//     it alone or in pairs (0x40, 0x800, 0x1000, 0x10000, 0x1000000,
//     0x10040, 0x1040, 0x1000800 by warp), the rest as one group
//     (0xfefee7bf in block 0) or two (0x02384489 and 0xfcc6a336 in blocks
//     1-5); 1,902 elements.
//   - fuzz5550319 (line 496, not stored: it is the argument of fn2, whose
//     checksum, out word 6, was inverted for it): the loop at $L_fuzz_7
//     runs (global thread id & 7) + 1 times and ptxas brackets it with
//     BSSY B2/BSYNC B2 (YIELD at its head); every thread read
//     0x01010101 << (lane & 7), its trip-count group, so activemask % 3 was
//     not 0 and "@!%p14 bra" skipped the rcp.approx.ftz.f64, subc.u32 and
//     st.u64 that the model's 0xffffffff runs: the differences in out
//     words 4-5, 8 and 30-31 (the previous reading, a cross-thread load
//     race and an rcp.approx.ftz.f64 error, was wrong: no thread writes
//     in_u32, and the rcp never ran on the H100); 2,102 elements.
//
// Why this is not modelled: PTX does not define activemask's result
// outside a .sync point (it is "the threads currently executing"), and
// the H100's groups follow ptxas -O3's code, not the PTX: where its
// BSSY/BSYNC pairs and YIELDs sit, and how it unrolled or if-converted
// the region (fuzz5550319's loop is unrolled by four with a predicated
// remainder). orilab's code at each -O level differs from that, and the
// fuzz oracle needs every level to give one result; the hardware's rule
// for when a BSYNC lets a group go on is not documented (our reading, the
// forward-progress release of a thread that waits while another
// YIELDs, fits all four, but whether the release happens depends on
// scheduler timing this model does not have). The generator (internal/ptxgen) now puts
// bar.warp.sync -1 before every activemask, so new programs read the
// full mask on any GPU. A shuffle that
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
