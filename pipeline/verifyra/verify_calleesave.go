package verifyra

import (
	"fmt"

	"orilab/pipeline/ori"
)

// checkCalleeSaves checks the protocol by which a .func preserves the
// callee-saved registers R16-R31 (regalloc/calleesave.go). The
// reaching-definitions walk verifies one function at a time and takes
// every CALL to leave R16-R31 intact (callClobber), so the callee's side
// of that promise is checked here, structurally:
//
//   - a save is an inserted "STL [R1+off], Rn" (n in R16-R31) in the
//     entry block; no two saves share a slot or a register;
//   - a restore (calleeRestore) reloads Rn from the slot that saved Rn;
//   - every RET of the function is preceded, in its block, by a restore
//     of every saved register, after the block's last other write of it;
//   - every callee-saved register the function writes is saved, except
//     the ABI's return-address pair when the function returns through it
//     (the caller's pair held the return address itself).
//
// Without this, an allocation that restores R16 from R17's slot, or
// forgets a restore, passed the verifier while corrupting its caller.
func (v *rdVerifier) checkCalleeSaves() {
	f := v.f
	if f.Entry || len(f.Blocks) == 0 || v.private() {
		return
	}
	fail := func(b *ori.Block, in *ori.Inst, format string, args ...any) {
		v.mism = append(v.mism, RAMismatch{Block: b.ID, Inst: in.ID, Code: 0, Operand: OperandNone, Msg: fmt.Sprintf(format, args...)})
	}
	inserted := func(in *ori.Inst) bool { return in.Role == ori.RoleNone && v.pre.byID[in.ID] == nil }
	slotOf := map[int32]int64{} // saved register -> slot
	regOf := map[int64]int32{}  // slot -> saved register
	saves := map[*ori.Inst]bool{}
	entry := f.Blocks[0]
	for _, in := range entry.Insts {
		if !inserted(in) || in.Op != ori.OpSTL || len(in.Srcs) != 2 || in.Guarded() {
			continue
		}
		a, r := in.Srcs[0], in.Srcs[1]
		if a.Kind != ori.OpdMem || !a.HasBase || a.Reg.Virtual || a.Reg.N != 1 || r.Kind != ori.OpdReg || r.Reg.Virtual ||
			r.Reg.Class != ori.ClassR || r.Reg.Words != 1 || r.Reg.N < 16 || r.Reg.N > 31 {
			continue
		}
		n := r.Reg.N
		if _, dup := slotOf[n]; dup {
			fail(entry, in, "saves callee-saved R%d a second time", n)
			continue
		}
		if m, dup := regOf[a.Imm]; dup {
			fail(entry, in, "saves R%d into [R1+%#x], which already holds R%d", n, a.Imm, m)
			continue
		}
		slotOf[n], regOf[a.Imm] = a.Imm, n
		saves[in] = true
	}
	ra := int32(20)
	if f.RetAddr != 0 {
		ra = f.RetAddr
	}
	retViaABI := false
	written := map[int32]*ori.Inst{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpRET && len(in.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdReg && in.Srcs[0].Reg.N == ra {
				retViaABI = true
			}
			if v.calleeRestore(in) && inserted(in) {
				n, off := in.Dsts[0].Reg.N, in.Srcs[0].Imm
				switch m, ok := regOf[off]; {
				case !ok:
					fail(b, in, "restores R%d from [R1+%#x], which no save wrote", n, off)
				case m != n:
					fail(b, in, "restores R%d from [R1+%#x], which holds R%d", n, off, m)
				}
				continue
			}
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || o.Reg.Class != ori.ClassR || o.Reg.Virtual || o.Reg.IsZero() {
					continue
				}
				for w := int32(0); w < int32(o.Reg.Words); w++ {
					if n := o.Reg.N + w; n >= 16 && n <= 31 && written[n] == nil {
						written[n] = in
					}
				}
			}
		}
	}
	for n := int32(16); n <= 31; n++ {
		in := written[n]
		if in == nil {
			continue
		}
		if _, ok := slotOf[n]; !ok && !(retViaABI && (n == ra || n == ra+1)) {
			fail(entry, in, "writes callee-saved R%d, which the function never saves", n)
		}
	}
	for _, b := range f.Blocks {
		k := len(b.Insts) - 1
		if k < 0 || b.Insts[k].Op != ori.OpRET {
			continue
		}
		last := map[int32]int{} // saved register -> its last restore
		for i, in := range b.Insts[:k] {
			if v.calleeRestore(in) && inserted(in) {
				last[in.Dsts[0].Reg.N] = i
			}
		}
		for i := k - 1; i >= 0; i-- {
			in := b.Insts[i]
			if v.calleeRestore(in) && inserted(in) {
				continue
			}
			for _, o := range in.Dsts {
				if o.Kind != ori.OpdReg || o.Reg.Class != ori.ClassR || o.Reg.Virtual {
					continue
				}
				for w := int32(0); w < int32(o.Reg.Words); w++ {
					if r, ok := last[o.Reg.N+w]; ok && i > r {
						fail(b, in, "writes callee-saved R%d after its restore and before RET", o.Reg.N+w)
					}
				}
			}
		}
		for n := range slotOf {
			if _, ok := last[n]; !ok {
				fail(b, b.Insts[k], "returns without restoring callee-saved R%d", n)
			}
		}
	}
}
