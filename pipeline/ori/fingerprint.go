package ori

import "math/bits"

// Fingerprint hashes f's code: the blocks in layout order (ID, label,
// nounroll flag) and every field of every instruction (ID, opcode,
// modifiers, guard, operands, control word, line, role, origin). Two
// states of a function with the same fingerprint have, up to a 64-bit
// hash collision, the same code. It walks the instructions once without
// allocating, far cheaper than any analysis a pass would rebuild.
func Fingerprint(f *Func) uint64 {
	h := fpHash(fpSeed)
	h.int(int64(len(f.Blocks)))
	for _, b := range f.Blocks {
		h.int(int64(b.ID))
		h.str(b.Label)
		h.bool(b.NoUnroll)
		h.int(int64(len(b.Insts)))
		for _, in := range b.Insts {
			h.int(int64(in.ID))
			h.int(int64(in.Op))
			h.int(int64(len(in.Mods)))
			for _, m := range in.Mods {
				h.str(m)
			}
			h.reg(in.Guard)
			h.bool(in.GuardNot)
			h.int(int64(len(in.Dsts)))
			for i := range in.Dsts {
				h.operand(&in.Dsts[i])
			}
			h.int(int64(len(in.Srcs)))
			for i := range in.Srcs {
				h.operand(&in.Srcs[i])
			}
			c := &in.Ctrl
			h.bool(c.Set)
			h.int(int64(c.Stall))
			h.bool(c.Yield)
			h.int(int64(c.WrBar))
			h.int(int64(c.RdBar))
			h.int(int64(c.Wait))
			h.int(int64(in.Line))
			h.int(int64(in.Role))
			h.int(int64(in.Origin))
		}
	}
	return uint64(h)
}

const fpSeed = 0x9e3779b97f4a7c15

// fpHash mixes 64-bit values: each is scrambled (multiply, xor-shift)
// before it is folded in, and the state is rotated, so that a difference
// in any bit of any value reaches every bit of the result. (Plain FNV
// over whole words does not: a multiplication carries a difference only
// towards the high bits, and the virtual flag of a register, in bit 62,
// was lost.)
type fpHash uint64

func (h *fpHash) int(x int64) {
	v := uint64(x) * 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	v ^= v >> 29
	*h = fpHash(bits.RotateLeft64(uint64(*h)^v, 27)*0x100000001b3 + 0x52dce729)
}

func (h *fpHash) bool(b bool) {
	if b {
		h.int(1)
	} else {
		h.int(0)
	}
}

func (h *fpHash) str(s string) {
	h.int(int64(len(s)))
	for i := 0; i < len(s); i++ {
		h.int(int64(s[i]))
	}
}

func (h *fpHash) reg(r Reg) {
	v := int64(r.Class) | int64(r.Off)<<8 | int64(r.Words)<<16 | int64(r.N)<<24
	if r.Virtual {
		v |= 1 << 62
	}
	h.int(v)
}

func (h *fpHash) operand(o *Operand) {
	flags := int64(o.Kind) | int64(o.FKind)<<8
	for i, b := range [...]bool{o.HasBase, o.Neg, o.Abs, o.Not, o.Reuse, o.HasDesc} {
		if b {
			flags |= 1 << (16 + i)
		}
	}
	h.int(flags)
	h.reg(o.Reg)
	h.int(o.Imm)
	h.int(int64(o.Bank))
	h.int(int64(o.Block))
	h.str(o.Name)
	h.reg(o.Desc)
}

// AtFixedPoint reports whether pass left f at a fixed point (see
// NoteFixedPoint) and f's code has not changed since, and returns f's
// current Fingerprint for a later NoteFixedPoint.
//
// A pass that is idempotent (running it on its own result changes
// nothing) uses the pair to skip a run on code it already settled: the
// dead-code and GeneralOptimize phases run six times each per function,
// often on a function no phase in between touched, and each run rebuilt
// its analyses (whole-function liveness, the copy problem) only to find
// nothing to do.
func (f *Func) AtFixedPoint(pass string) (bool, uint64) {
	fp := Fingerprint(f)
	old, ok := f.fixed[pass]
	return ok && old == fp, fp
}

// NoteFixedPoint records that pass, run again on f as it is now (with
// Fingerprint fp), would change nothing.
func (f *Func) NoteFixedPoint(pass string, fp uint64) {
	if f.fixed == nil {
		f.fixed = map[string]uint64{}
	}
	f.fixed[pass] = fp
}
