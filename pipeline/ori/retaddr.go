package ori

// ReturnCall returns the index in b of the CALL whose return point the
// instruction at index i of b loads (a MOV of RetAddrSym): the next CALL
// of the block. It returns -1 when the block has none after i, which
// the verifier reports.
func ReturnCall(b *Block, i int) int {
	for j := i + 1; j < len(b.Insts); j++ {
		if b.Insts[j].Op == OpCALL {
			return j
		}
	}
	return -1
}

// ReturnPoints maps every return-address MOV of f (a source RetAddr) to
// the byte address of the instruction after its CALL, with f's blocks
// laid out in order from address base, 16 bytes per instruction. The
// encoder and the printer read the same map, so the listing and the
// words agree.
func ReturnPoints(f *Func, base int) map[*Inst]int {
	var out map[*Inst]int
	pc := base
	for _, b := range f.Blocks {
		for i, in := range b.Insts {
			if in.Op == OpMOV && len(in.Srcs) == 1 && in.Srcs[0].IsRetAddr() {
				if j := ReturnCall(b, i); j >= 0 {
					if out == nil {
						out = map[*Inst]int{}
					}
					out[in] = pc + 16*(j-i+1)
				}
			}
			pc += 16
		}
	}
	return out
}
