package regalloc

import "orilab/pipeline/ori"

// Callee-saved registers, as ptxas 13.0's calling convention has them.
//
// Measured (ptxas -arch sm_80 at -O0 and -O3 on recursive and indirect
// calls, which must follow the ABI): a callee that writes any of R16-R31
// stores it to its frame right after "IADD3 R1 = R1, -FRAME" and loads
// it back before the frame is popped at each RET (fib's prologue: STL
// [R1+0x1c], R23 ... STL [R1+0x4], R16); the caller keeps values that
// live across a CALL in those registers (R16, R17, R22, R23 in fib; R17
// in its kernel) and none in R0, R3 or R4-R15. ptxas also saves R2 that
// way; orilab never allocates R0-R3, so only R16-R31 matter here.
//
// So the allocator
//
//   - places R values live across a CALL under the ABI in R16-R31 only
//     (the driver occupies every other register at each such CALL's
//     write position), and spills those that find none there;
//   - in a .func under the ABI, saves every register of R16-R31 the
//     function writes (saveCalleeSaved, after allocation, when the frame
//     is final).
//
// Calls to whole-seen callees do not follow this (interproc.go).
//
// The return address. Under the ABI (recursive and indirect calls; the
// others use R2:R3, lower/private.go, which nothing here allocates) the
// caller writes it into R20:R21 right before the CALL (a callee-saved pair, which ptxas's callees save and restore like
// the others), so R20:R21 cannot hold a value across a call in the
// caller: the precolored range of that MOV occupies them. The callee
// copies it into a virtual pair at entry; the allocator places that pair
// anywhere (in R20:R21 itself in a function without calls). When the pair
// lands in another callee-saved register, restoring that register before
// RET would destroy the return address; instead the function moves the
// return address back into its pair (R20:R21, or Func.RetAddr's) before
// the restores and returns through it. That is exact: the caller's R20:R21 held the return
// address itself, so R20:R21 are restored by the move, and only the
// other callee-saved registers are reloaded.
//
// Decision: ptxas's -v counts the saves and restores as spill stores
// and loads (fib: 32 bytes of spill stores for its 8 saved registers);
// orilab's counts only the allocator's spill code (the role-marked
// instructions the verifier and the fault injector read), and the saves
// show in the stack frame.

// calleeSaved reports whether R register r keeps its value across a
// CALL under the ABI.
func calleeSaved(r int) bool { return r >= 16 && r <= 31 }

// retAddrABI is the ABI's return-address pair, R20:R21, when
// Func.RetAddr does not name another.
const retAddrABI = 20

// saveCalleeSaved saves and restores the callee-saved registers a .func
// writes, or a whole-seen callee of it changes (interproc.go), growing
// its frame, and returns the stores and loads it added. A whole-seen
// .func saves nothing: its callers know what it changes. It runs once
// allocation is complete (finish).
func saveCalleeSaved(f *ori.Func, calls callModel) (stores, loads int) {
	if f.Entry || calls.private(f) {
		return 0, 0
	}
	ra := retAddrABI
	if f.RetAddr != 0 {
		ra = int(f.RetAddr)
	}
	var written [32]bool
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpCALL {
				if set, abi := calls.clobbers(in); !abi {
					for n := 16; n <= 31; n++ {
						written[n] = written[n] || set.Has(ori.ClassR, n)
					}
				}
			}
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || o.Reg.Class != ori.ClassR || o.Reg.Virtual || o.Reg.IsZero() {
					continue
				}
				for w := 0; w < int(o.Reg.Words); w++ {
					if n := int(o.Reg.N) + w; calleeSaved(n) {
						written[n] = true
					}
				}
			}
		}
	}
	// Returns whose address register would be reloaded go through the
	// ABI pair instead (see above); the ABI pair itself is then never
	// reloaded.
	viaABI := false
	for _, b := range f.Blocks {
		if ret := lastRET(b); ret != nil {
			x := ret.Srcs[0].Reg
			if int(x.N) != ra && (calleeSaved(int(x.N)) && written[x.N] || calleeSaved(int(x.N)+1) && written[x.N+1]) {
				viaABI = true
			}
		}
	}
	var saved []int
	for n := range written {
		if written[n] && !(viaABI && (n == ra || n == ra+1)) {
			saved = append(saved, n)
		}
	}
	if len(saved) == 0 && !viaABI {
		return 0, 0
	}
	base := f.LocalBytes
	if len(saved) > 0 {
		setFrame(f, alignFrame(base+4*int64(len(saved))))
	}
	slot := func(k int) ori.Operand { return ori.Mem(stackPointer, base+4*int64(k)) }
	// Saves: right after the frame's allocation, the first instruction
	// of a .func (hoistPrologue, setFrame).
	entry := f.Blocks[0]
	at := 0
	if len(entry.Insts) > 0 && isSPAdjust(entry.Insts[0]) && entry.Insts[0].Srcs[1].Imm < 0 {
		at = 1
	}
	var saves []*ori.Inst
	for k, n := range saved {
		st := ori.NewInst(ori.OpSTL)
		st.ID = f.NewID()
		st.Srcs = []ori.Operand{slot(k), ori.R(ori.PReg(ori.ClassR, n, 1))}
		saves = append(saves, st)
	}
	entry.Insts = append(entry.Insts[:at], append(saves, entry.Insts[at:]...)...)
	// Restores: before each RET's frame release.
	for _, b := range f.Blocks {
		ret := lastRET(b)
		if ret == nil {
			continue
		}
		i := len(b.Insts) - 1
		if i > 0 && isSPAdjust(b.Insts[i-1]) && b.Insts[i-1].Srcs[1].Imm > 0 {
			i--
		}
		var seq []*ori.Inst
		if x := ret.Srcs[0].Reg; viaABI && int(x.N) != ra {
			for w := 0; w < 2; w++ {
				mv := ori.NewInst(ori.OpMOV)
				mv.ID = f.NewID()
				mv.Role = ori.RoleCopy
				mv.Guard, mv.GuardNot = ret.Guard, ret.GuardNot
				mv.Dsts = []ori.Operand{ori.R(ori.PReg(ori.ClassR, ra+w, 1))}
				mv.Srcs = []ori.Operand{ori.R(x.Word(w))}
				seq = append(seq, mv)
			}
			ret.Srcs[0] = ori.R(ori.PReg(ori.ClassR, ra, 2))
		}
		for k, n := range saved {
			ld := ori.NewInst(ori.OpLDL)
			ld.ID = f.NewID()
			ld.Guard, ld.GuardNot = ret.Guard, ret.GuardNot
			ld.Dsts = []ori.Operand{ori.R(ori.PReg(ori.ClassR, n, 1))}
			ld.Srcs = []ori.Operand{slot(k)}
			seq = append(seq, ld)
			loads++
		}
		b.Insts = append(b.Insts[:i], append(seq, b.Insts[i:]...)...)
	}
	return len(saved), loads
}

// lastRET returns b's RET.REL.NODEC when it ends b.
func lastRET(b *ori.Block) *ori.Inst {
	if n := len(b.Insts); n > 0 {
		if in := b.Insts[n-1]; in.Op == ori.OpRET && len(in.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdReg {
			return in
		}
	}
	return nil
}
