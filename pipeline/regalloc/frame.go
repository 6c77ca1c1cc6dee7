package regalloc

import "orilab/pipeline/ori"

// The stack frame after allocation.
//
// The lowering allocates a function's .local frame with
//
//	MOV R1 = c[0x0][0x28]          (kernels only: the initial stack pointer)
//	IADD3 R1 = R1, -FRAME, RZ      (when the frame is not empty)
//
// at the top of the entry block, and a .func pops it with
// "IADD3 R1 = R1, FRAME, RZ" right before each RET. Spill slots grow the
// frame, so the allocator patches those immediates, or inserts the
// instructions when the frame was empty before.
//
// Decision: every non-empty frame is rounded up to a multiple of 16
// bytes (the lowering already rounds the .local frame; spill slots keep
// it rounded). The stack pointer starts 16-byte aligned (the local window's
// segsSize is), and a callee's frame sits right below its caller's, so this
// keeps R1 16-byte aligned in every function: 128-bit spill slots and
// .local variables aligned to 16 stay aligned however deep the calls go.

// frameAlign is the alignment of every frame.
const frameAlign = 16

// isSPAdjust reports whether in is "IADD3 R1 = R1, imm, RZ".
func isSPAdjust(in *ori.Inst) bool {
	return in.Op == ori.OpIADD3 && len(in.Mods) == 0 && len(in.Dsts) == 1 && len(in.Srcs) == 3 &&
		in.Dsts[0].Kind == ori.OpdReg && in.Dsts[0].Reg == stackPointer &&
		in.Srcs[0].Kind == ori.OpdReg && in.Srcs[0].Reg == stackPointer && !in.Srcs[0].Neg &&
		in.Srcs[1].Kind == ori.OpdImm && in.Srcs[2].Kind == ori.OpdReg && in.Srcs[2].Reg == ori.RZ
}

// isSPInit reports whether in is a kernel's "MOV R1 = c[0x0][0x28]".
func isSPInit(in *ori.Inst) bool {
	return in.Op == ori.OpMOV && len(in.Mods) == 0 && len(in.Dsts) == 1 && in.Dsts[0].Kind == ori.OpdReg &&
		in.Dsts[0].Reg == stackPointer
}

// setFrame makes f's frame size bytes (already rounded), patching or
// inserting the prologue and epilogues, and removing them when the frame
// is empty.
func setFrame(f *ori.Func, bytes int64) {
	old := f.LocalBytes
	f.LocalBytes = bytes
	if old == bytes || len(f.Blocks) == 0 {
		return
	}
	adjust := func(imm int64, like *ori.Inst) *ori.Inst {
		n := ori.NewInst(ori.OpIADD3)
		n.ID = f.NewID()
		n.Dsts = []ori.Operand{ori.R(stackPointer)}
		n.Srcs = []ori.Operand{ori.R(stackPointer), ori.Imm(imm), ori.R(ori.RZ)}
		if like != nil {
			n.Guard, n.GuardNot, n.Line = like.Guard, like.GuardNot, like.Line
		}
		return n
	}
	// Prologue: after the stack pointer's initialization in a kernel, at
	// the very top of a .func.
	entry := f.Blocks[0]
	at := 0
	if f.Entry {
		for i, in := range entry.Insts {
			if isSPInit(in) {
				at = i + 1
				break
			}
		}
	}
	switch {
	case at < len(entry.Insts) && isSPAdjust(entry.Insts[at]) && entry.Insts[at].Srcs[1].Imm < 0:
		if bytes == 0 {
			entry.Insts = append(entry.Insts[:at], entry.Insts[at+1:]...)
		} else {
			entry.Insts[at].Srcs[1] = ori.Imm(-bytes)
		}
	case bytes > 0:
		var like *ori.Inst
		if at < len(entry.Insts) {
			like = entry.Insts[at]
		}
		n := adjust(-bytes, nil)
		if like != nil {
			n.Line = like.Line
		}
		entry.Insts = append(entry.Insts[:at], append([]*ori.Inst{n}, entry.Insts[at:]...)...)
	}
	if f.Entry {
		return
	}
	// Epilogues: right before every RET.
	for _, b := range f.Blocks {
		for i := 0; i < len(b.Insts); i++ {
			ret := b.Insts[i]
			if ret.Op != ori.OpRET {
				continue
			}
			if i > 0 && isSPAdjust(b.Insts[i-1]) && b.Insts[i-1].Srcs[1].Imm > 0 {
				if bytes == 0 {
					b.Insts = append(b.Insts[:i-1], b.Insts[i:]...)
					i--
				} else {
					b.Insts[i-1].Srcs[1] = ori.Imm(bytes)
				}
				continue
			}
			if bytes > 0 {
				b.Insts = append(b.Insts[:i], append([]*ori.Inst{adjust(bytes, ret)}, b.Insts[i:]...)...)
				i++
			}
		}
	}
}

// hoistPrologue moves the stack pointer's setup (a kernel's
// "MOV R1 = c[0x0][0x28]" and the frame allocation "IADD3 R1 = R1, -N,
// RZ") to the top of the entry block.
//
// Spill stores address the frame through R1, so every instruction whose
// result may be spilled must come after the frame exists. The lowering
// puts the zero definitions of registers PTX reads before writing at the
// very top of the entry block, before the prologue; a spilled one would be
// stored through an uninitialized (kernel) or the caller's (.func) stack
// pointer. Nothing before the prologue reads or writes R1, and the
// prologue reads nothing else, so moving it first changes no value.
func hoistPrologue(f *ori.Func) {
	if len(f.Blocks) == 0 {
		return
	}
	entry := f.Blocks[0]
	init, adj := -1, -1
	for i, in := range entry.Insts {
		if f.Entry && init < 0 && isSPInit(in) && !in.Guarded() {
			init = i
			continue
		}
		if (init >= 0 || !f.Entry) && isSPAdjust(in) && in.Srcs[1].Imm < 0 && !in.Guarded() {
			adj = i
			break
		}
		if touchesSP(in) {
			break
		}
	}
	var pro []*ori.Inst
	last := -1
	for _, i := range []int{init, adj} {
		if i >= 0 {
			pro = append(pro, entry.Insts[i])
			last = i
		}
	}
	if len(pro) == 0 {
		return
	}
	rest := make([]*ori.Inst, 0, len(entry.Insts))
	for i, in := range entry.Insts {
		if i == init || i == adj {
			continue
		}
		if i < last && touchesSP(in) {
			return // something else uses R1 before the prologue completes
		}
		rest = append(rest, in)
	}
	entry.Insts = append(pro, rest...)
}

// touchesSP reports whether in reads or writes R1.
func touchesSP(in *ori.Inst) bool {
	found := false
	eachReg(in, func(r ori.Reg, _ bool) { found = found || r.Overlaps(stackPointer) })
	return found
}

// alignFrame rounds a frame size up to frameAlign.
func alignFrame(n int64) int64 { return (n + frameAlign - 1) / frameAlign * frameAlign }
