package pipeline

// jumpTables turns each indirect branch of a kernel into ptxas's jump
// table, at PostFixForMercTargets. Ori's BRX a, BB0, ..., BBn-1 jumps to
// the a-th block; no SASS word holds a target list. ptxas 13.0.88 writes
// brx.idx (and its own switch tables) as
//
//	IMAD.SHL.U32 R0, R0, 0x4, RZ          the index times 4
//	LDC R4, c[0x2][R0]                    the entry: a target's offset
//	                                      from the kernel's start
//	SHF.R.S32.HI R5, RZ, 0x1f, R4         the pair's high word
//	BRX R4 -0x90                          jump to the kernel's start + R4
//
// with the table in .nv.constant2.KERNEL (4 bytes per entry, no
// relocations) and EIATTR_INDIRECT_BRANCH_TARGETS naming the BRX and
// its targets (measured: ptxas -O3 -arch sm_80 and sm_90 on brx.idx
// probes and testdata/opt/switch_chain, cuobjdump -sass and -elf).
//
// Here the table goes into the kernel's literal pool (ori.Func.Literals,
// bank 2), two 4-byte entries per 8-byte literal, after the literals
// already there; the BRX keeps its targets and names the table:
//
//	BRX R4.64, c[0x2][0x8], BB1, BB2, BB3
//
// Decision: in Ori, entry i holds i, and the simulator's BRX jumps to
// target i of the register's value, so the legalized code runs exactly
// as before; the cubin writer writes the targets' offsets into those
// entries (sass.JumpTable), which is what the hardware's BRX adds to the
// kernel's start. A BRX outside a kernel keeps its index form, and the
// encoder refuses it: bank 2 is the launched kernel's, and a .func may
// be called from several kernels. So does a BRX where no register pair
// is free.

import "orilab/pipeline/ori"

func jumpTables(f *ori.Func, m *mirror) {
	if !f.Entry {
		return
	}
	var live *physLive
	for bi, b := range f.Blocks {
		k := len(b.Insts) - 1
		if k < 0 {
			continue
		}
		in := b.Insts[k]
		if in.Op != ori.OpBRX || len(in.Srcs) < 2 || in.Srcs[1].Kind != ori.OpdBlock ||
			in.Srcs[0].Kind != ori.OpdReg || in.Srcs[0].Reg.Class != ori.ClassR {
			continue
		}
		if live == nil {
			live = physLiveness(f)
		}
		after := live.afterEach(bi, b)
		pair, ok := scratchReg(f, in, after[k], 2)
		if !ok {
			continue
		}
		n := len(in.Srcs) - 1
		base := 8 * len(f.Literals)
		for i := 0; i < n; i += 2 {
			v := uint64(i)
			if i+1 < n {
				v |= uint64(i+1) << 32
			}
			f.Literals = append(f.Literals, v)
		}
		lo := ori.PReg(ori.ClassR, int(pair.N), 1)
		hi := ori.PReg(ori.ClassR, int(pair.N)+1, 1)
		ins := tableLoad(f, in, in.Srcs[0], lo, hi, base)
		b.Insts = append(b.Insts[:k], append(ins, in)...)
		table := ori.CBank(literalBank, int64(base))
		in.Srcs = append([]ori.Operand{ori.R(pair), table}, in.Srcs[1:]...)
		if p := m.byID[in.ID]; p != nil && p.Op == ori.OpBRX && len(p.Srcs) == len(in.Srcs)-1 {
			v := m.pre.NewVReg(ori.ClassR, 2)
			pins := tableLoad(f, p, p.Srcs[0], v.Word(0), v.Word(1), base)
			m.insertBefore(p.ID, pins...)
			p.Srcs = append([]ori.Operand{ori.R(v), table}, p.Srcs[1:]...)
			m.pre.Literals = append([]uint64(nil), f.Literals...)
		}
	}
}

// tableLoad returns the three instructions that load the jump-table
// entry of index idx, for the BRX in, into the pair lo, hi.
func tableLoad(f *ori.Func, in *ori.Inst, idx ori.Operand, lo, hi ori.Reg, base int) []*ori.Inst {
	mk := func(op ori.Opcode, mods []string, d ori.Reg, srcs ...ori.Operand) *ori.Inst {
		x := ori.NewInst(op, mods...)
		x.ID = f.NewID()
		x.Line = in.Line
		x.Guard, x.GuardNot = in.Guard, in.GuardNot
		x.Dsts = []ori.Operand{ori.R(d)}
		x.Srcs = srcs
		return x
	}
	entry := ori.CBank(literalBank, int64(base))
	entry.HasBase, entry.Reg = true, lo
	return []*ori.Inst{
		mk(ori.OpIMAD, []string{"SHL", "U32"}, lo, idx, ori.Imm(2), ori.R(ori.RZ)),
		mk(ori.OpLDC, nil, lo, entry),
		mk(ori.OpSHF, []string{"R", "S32", "HI"}, hi, ori.R(ori.RZ), ori.Imm(0x1f), ori.R(lo)),
	}
}
