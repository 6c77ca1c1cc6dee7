// Package regalloc is orilab's register allocator: ptxas's AllocateRegisters
// phase (phase 122), a fat-point allocator after the wiki's "Allocator
// Architecture", "Fat-Point Allocation Algorithm" and "Spill Mechanism"
// pages (001:18566-20729). It owns
//
//   - Allocate, which turns every virtual register of a function into a
//     physical one, spilling to local memory and rematerializing where the
//     registers do not suffice, and returns Stats (allocate.go);
//   - the RA knobs it reads (knobs.go).
//
// The post-allocation reaching-definitions verifier that proves every
// allocation is package pipeline/verifyra: it reads only the IR before
// and after, so it checks any allocator's output (and the fault
// injector's corruptions of it).
//
// # The algorithm
//
// ptxas does not colour an interference graph. For each register class it
// takes the virtual registers in priority order and gives each the
// physical register where it interferes least with what is already
// assigned, reading a per-physical-register pressure histogram ("fat
// point"); no assignment is ever revisited. When a class does not fit, the
// whole class is allocated again with more values spilled (NOSPILL, then
// SPILL retries). orilab follows that shape:
//
//  1. Classes go in the order UP, P, UR, R: a spilled predicate is kept in
//     an R (UR) register, which the later class then places (slots.go).
//  2. Per class, live ranges are built from the class's own block
//     liveness (ori.Liveness's rules restricted to the class, classlive.go)
//     at word granularity on a linear order of the function with four positions
//     per instruction, so spill code has positions of its own (ranges.go,
//     problem.go); positions that no definition of a value reaches are
//     then taken out of its range (undefined.go). Each word of a tuple
//     also gets a range of its own, so a register of a tuple is free
//     where that word is dead (wordranges.go). Physical registers already in the code (R1, the ABI
//     argument and result registers R4.. around CALL and RET) are
//     precolored ranges; a CALL clobbers every caller-saved register,
//     or, when it calls a whole-seen callee (step 3), the registers that
//     callee changes.
//  3. R values live across a CALL under the ABI may take only the
//     callee-saved registers R16-R31 of ptxas's ABI, and are spilled when
//     none is free; predicate and uniform values live across such a CALL
//     are spilled up front (their files have no callee-saved registers).
//     A .func under the ABI saves the callee-saved registers it writes
//     (calleesave.go). A callee the compiler sees whole
//     (ori.Func.WholeSeen) is allocated before its callers, which learn
//     the registers it changes (Options.Callees): values of every class
//     live across a call to it take any register outside that set, and it
//     saves nothing, as with ptxas (interproc.go).
//  4. NOSPILL trials place every value with the register file virtually
//     unbounded and measure what they used (fatpoint.go). If that fits the
//     target (--maxrregcount, the ABI minimum, RegTargetList), done.
//  5. Otherwise SPILL attempts run with the target as a hard limit. A value
//     that finds no register either gets spilled or, when the spill
//     guidance finds a register whose occupants are cheaper to spill
//     (spill cost per freed position, cost.go), evicts them. The next
//     attempt replaces every spilled value by per-instruction temporaries
//     (refill before a read, store after a write) and tries again, until
//     an attempt places everything. The two sides of a copy may share
//     a register even where both are live, when neither is written again
//     meanwhile (samevalue.go).
//  6. The result is written back (rewrite.go): registers, LDL/STL on spill
//     slots of the frame (slot sharing between values that are never live
//     together), remat clones of cheap definitions (remat.go), the frame
//     grown and rounded to 16 bytes (frame.go), redundant refills and dead
//     spill stores dropped (refills.go), coalesced copies "MOV Rx = Rx"
//     deleted.
//
// # A worked example
//
// With --maxrregcount 8 only R4-R7 are usable. In
//
//	#2 S2R %r0 = SR_TID.X
//	#3 IADD3 %r1 = %r0, 0x1, RZ
//	#4 IADD3 %r2 = %r0, 0x2, RZ
//	#5 IADD3 %r3 = %r0, 0x3, RZ
//	#6 IADD3 %r4 = %r0, 0x4, RZ
//	#7 IMAD %r5 = %r1, %r2, %r3
//	...
//
// five values are live at #6. The NOSPILL trials report "used 10" (R4-R9);
// the first SPILL attempt places the densest values and spills %r5 and
// %r0 when no register is left for them; %r0 is an S2R of a stable special
// register, so it is rematerialized rather than stored. The next attempt
// spills %r2 as well, the third fits:
//
//	#15 S2R R4 = SR_TID.X ; remat #2
//	#3 IADD3 R7 = R4, 0x1, RZ
//	#4 IADD3 R4 = R4, 0x2, RZ
//	#17 STL [R1], R4 ; spill
//	#18 S2R R4 = SR_TID.X ; remat #2
//	#5 IADD3 R6 = R4, 0x3, RZ
//	...
//
// (TestSpillToMemory pins the whole function and its log.)
//
// # Conventions
//
// After Allocate no virtual register is left. R1 is the stack pointer and
// never allocated. R0-R3 are reserved by the calling convention: in a
// .func and in a kernel that make calls under the ABI R registers are
// allocated from R4; a kernel without calls gets R0, R2 and R3 as well,
// as ptxas gives them (RegAllocLowRegisters), and so do a kernel and a
// whole-seen .func whose calls all go to whole-seen callees. Tuples are aligned to their size. Spill stores carry ori.RoleSpill, refills ori.RoleRefill,
// rematerializations ori.RoleRemat with Origin set to the instruction they
// recompute. Spill slots live above the function's .local variables in its
// frame, addressed [R1+off].
//
// # Buffers
//
// The attempts of every class, the precolored tables and each class's
// problem (instruction list, values with their accesses and ranges,
// liveness sets) reuse the buffers of a scratch that Allocate takes from
// a pool and gives back (scratch.go): attempt to attempt, class to
// class and function to function, nothing is made afresh that an
// earlier one already had, and each buffer is reset before it is read
// (TestScratchReuse allocates with a dirty scratch and with a clean one
// and compares).
//
// # Limits
//
//   - A value is spilled everywhere (refill before every read), not split
//     around the region that needs it; a value live across calls that
//     finds no free callee-saved register is refilled at every use, not
//     just after each call.
//   - A .func under the ABI saves every callee-saved register it writes,
//     also one it writes only on paths without calls; and -v does not
//     count those saves as spill stores (ptxas does; calleesave.go).
//   - Callers and whole-seen callees are not allocated together: the
//     callee takes its registers first, from the lowest, and the values
//     its callers keep across the call go above them; the arguments stay
//     in R4.. and the return address in R2:R3, where ptxas moves both to
//     suit each pair (interproc.go).
//   - There is no bank-conflict avoidance and no smem spilling.
//   - UR values cannot be spilled (Ori has no R2UR); a UR class that does
//     not fit, or a UR value live across a call, is an error.
//   - Bisection-grade knobs exist for rematerialization; the other RA
//     knobs of ptxas are not registered (only knobs orilab reads are).
package regalloc
