package sched

// Instructions that sink below CALLs.
//
// A CALL is a full barrier of the DAG (mem.go): it reads the argument
// registers, clobbers every register its callee may write and may touch
// any memory. Before allocation none of that concerns an instruction
// that touches no memory and names only virtual registers: the callee
// cannot see or change a virtual register, and the allocator keeps every
// value live across a call out of the registers the call clobbers. Such
// an instruction before a CALL may therefore sink below it (though never
// below a block terminator or a write of the stack pointer), and the
// pressure-driven passes place it next to its readers instead of where
// the PTX wrote it. ZLUDA's mma_m16n8k32_s32_s8_s8_s32 computes sixteen
// values up front and passes four to each of six calls; kept above the
// calls the values all lived across the first call (30 registers, ptxas
// 23, which computes each right before its call; orilab now 22).
//
// Decision: only downward. An instruction after a CALL stays after it:
// raising it above the call makes its result live across the call, which
// costs a register the callee leaves alone (or a callee-saved one, or a
// spill) for nothing; letting the passes raise them cost constret and
// func_frame a register each (a constant MOV and an address computation
// hoisted above a call).
//
// After allocation every operand is physical, so nothing floats; the
// argument moves into R4.. and the result moves out of them name
// physical registers and stay ordered with their CALL.
//
// Knob SchedFloatAcrossCalls=0 keeps every instruction above the CALLs
// after it.

// floats reports whether an instruction with operands u may sink below a
// CALL:
// it has some register operand and every one is virtual. The caller
// checks that the instruction is plain (no memory, no ordering).
func floats(u *use) bool {
	n := 0
	for _, ws := range [3][]word{u.guard, u.srcs, u.dsts} {
		for _, w := range ws {
			if !w.virt {
				return false
			}
			n++
		}
	}
	return n > 0
}

// floating reports whether node i may sink below the CALLs after it.
func (d *dag) floating(i int32) bool { return d.float != nil && d.float[i] }
