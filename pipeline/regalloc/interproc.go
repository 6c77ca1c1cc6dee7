package regalloc

import "orilab/pipeline/ori"

// Allocation across functions: calls to whole-seen callees.
//
// Under the ABI a CALL may change every register but R1 and R16-R31, so
// the values a caller keeps across it must sit in R16-R31 (or memory).
// A callee that orilab sees whole (ori.Func.WholeSeen: only called
// directly, not recursive, not address-taken, not .weak) needs no such
// contract: the pipeline allocates it before its callers
// (ori.CalleesFirst), records the registers its allocated code changes,
// transitively through the calls it makes (ori.Clobbers), and hands
// those sets to the callers' allocation (Options.Callees). A CALL to
// such a callee then clobbers only its set, at the CALL's write
// position, in every class; a caller value live across the call may
// take any register outside it (P, UR and UP values too, which under
// the ABI must be spilled), and the callee saves and restores nothing.
// A function whose calls all go to whole-seen callees may also use R0,
// R2 and R3 (RegAllocLowRegisters) as a kernel without calls does: the
// return-address pair R2:R3 is written right before each CALL, which
// its precolored range keeps free there.
//
// Decision: this is what ptxas 13.0.88 does (sm_80, -O3), measured with
// cuobjdump -sass on two probes. In testdata/kernels/constret.ptx the
// kernel keeps %tid.x in R0 across the call to mid, which writes R2,
// R3 and R5 and saves nothing (0 bytes stack frame). In a kernel that
// calls a 9-instruction .func twice, the callee writes R2, R3, R6 and R7
// and the kernel keeps three values in R0, R4 and R5 across both calls,
// 11 registers in all, with no save or restore anywhere. ptxas's private
// convention goes further: it also places the arguments and the return
// address where they suit both sides (R7, R6 and R8 in the second probe),
// where orilab keeps the ABI's argument registers R4.. and R2:R3, so a
// callee's clobber set always holds its result registers, and the
// caller's values across the call go above the callee's registers.
//
// Calls under the ABI keep it (recursive, indirect, .weak, undefined
// callees, and every call when Options.Callees is nil, as when a single
// function is allocated on its own). A .func under the ABI that calls a
// whole-seen callee saves the callee-saved registers that callee changes
// as if it wrote them itself (saveCalleeSaved).

// abiClobbers is what a call under the ABI may change.
var abiClobbers = ori.ABIClobbers()

// callModel tells what each CALL of a function may change.
type callModel struct {
	// callees holds the clobber sets of the whole-seen callees; nil
	// means every call is under the ABI.
	callees map[string]ori.RegSet
}

// clobbers returns the registers CALL in may change and whether the call
// is under the ABI.
func (m callModel) clobbers(in *ori.Inst) (ori.RegSet, bool) {
	if m.callees != nil {
		if name, ok := ori.CallTarget(in); ok {
			if s, ok := m.callees[name]; ok {
				return s, false
			}
		}
	}
	return abiClobbers, true
}

// private reports whether f is allocated as a whole-seen callee: it
// saves no callee-saved register, its callers knowing what it changes.
func (m callModel) private(f *ori.Func) bool { return m.callees != nil && f.WholeSeen() }

// onlyPrivateCalls reports whether every CALL of f goes to a whole-seen
// callee with a known clobber set.
func (m callModel) onlyPrivateCalls(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpCALL {
				if _, abi := m.clobbers(in); abi {
					return false
				}
			}
		}
	}
	return true
}

// callBase occupies, at each CALL's write position, the registers of the
// class the call may change: under the ABI every register from lo up but
// the callee-saved ones (R only: values of the other classes live across
// such a call are spilled before the attempts, vreg.mustSpill); for a
// whole-seen callee its clobber set.
//
// The ABI calls occupy the same positions in every register they
// clobber, so the registers that hold nothing else share one bitset
// (base is only read after this); a register with a range or a
// whole-seen call's clobber of its own gets the positions in its own
// bitset. Before, each of the up to 500 registers of the virtual file
// got a bitset over the whole function.
func (p *problem) callBase(base []posSet) {
	var abi []seg // the write positions of the ABI calls
	for i, g := range p.calls {
		at := []seg{{posWrite(g), posWrite(g)}}
		if p.callABI[i] {
			if p.class == ori.ClassR {
				abi = append(abi, at[0])
			}
			continue
		}
		set := p.callSets[i]
		for r := p.lo; r < p.limit; r++ {
			if set.Has(p.class, r) {
				if base[r] == nil {
					base[r] = p.scr.baseSet(p.npos)
				}
				base[r].set(at, true)
			}
		}
	}
	if len(abi) == 0 {
		return
	}
	shared := p.scr.baseSet(p.npos)
	shared.set(abi, true)
	for r := p.lo; r < virtualFile; r++ {
		switch {
		case calleeSaved(r):
		case base[r] == nil:
			base[r] = shared
		default:
			base[r].set(abi, true)
		}
	}
}

// callKill is the physical registers of the class CALL g kills in the
// precolored liveness: all of them under the ABI (Decision: a physical
// value never survives such a call, even in R16-R31, as before), the
// callee's clobber set otherwise, so an argument register the callee
// leaves alone still holds the argument after it.
func (p *problem) callKill(i int, all physSet) physSet {
	if p.callABI[i] {
		return all
	}
	return physSet(p.callSets[i][p.class])
}
