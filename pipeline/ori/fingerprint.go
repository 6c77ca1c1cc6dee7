package ori

import "math/bits"

// Fingerprint hashes f's code: the blocks in layout order (ID, label,
// nounroll flag) and every field of every instruction (ID, opcode,
// modifiers, guard, operands, control word, line, role, origin). Two
// states of a function with the same fingerprint have, up to a 64-bit
// hash collision, the same code. It walks the instructions once without
// allocating, far cheaper than any analysis a pass would rebuild.
func Fingerprint(f *Func) uint64 {
	// Fields of known width are packed into one 64-bit value before
	// they are mixed (each mix is four multiplications, and Fingerprint
	// was 7% of the compile time of the large corpus files): packing is
	// injective, so it changes which values are mixed, not what the
	// hash tells apart.
	h := fpHash(fpSeed)
	h.int(int64(len(f.Blocks)))
	for _, b := range f.Blocks {
		h.int(fpPair(b.ID, int32(len(b.Insts))) ^ fpFlag(b.NoUnroll, 0))
		h.str(b.Label)
		for _, in := range b.Insts {
			h.int(fpPair(in.ID, int32(in.Op)))
			h.int(int64(len(in.Mods)) | int64(len(in.Dsts))<<16 | int64(len(in.Srcs))<<32 | fpFlag(in.GuardNot, 48))
			for _, m := range in.Mods {
				h.str(m)
			}
			h.reg(in.Guard)
			for i := range in.Dsts {
				h.operand(&in.Dsts[i])
			}
			for i := range in.Srcs {
				h.operand(&in.Srcs[i])
			}
			c := &in.Ctrl
			h.int(int64(c.Stall) | int64(uint8(c.WrBar))<<8 | int64(uint8(c.RdBar))<<16 | int64(c.Wait)<<24 |
				int64(in.Role)<<32 | fpFlag(c.Set, 40) | fpFlag(c.Yield, 41))
			h.int(fpPair(in.Line, in.Origin))
		}
	}
	return uint64(h)
}

// fpPair packs two 32-bit values into one.
func fpPair(a, b int32) int64 { return int64(uint64(uint32(a))<<32 | uint64(uint32(b))) }

// fpFlag is bit i set when b holds.
func fpFlag(b bool, i uint) int64 {
	if b {
		return 1 << i
	}
	return 0
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
	// Eight bytes at a time (the length is mixed first, so the zero
	// padding of the last chunk is not ambiguous).
	for len(s) > 0 {
		var v uint64
		n := min(len(s), 8)
		for i := 0; i < n; i++ {
			v |= uint64(s[i]) << (8 * i)
		}
		h.int(int64(v))
		s = s[n:]
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
	flags := int64(o.Kind) | int64(o.FKind)<<8 | fpFlag(o.HasBase, 16) | fpFlag(o.Neg, 17) | fpFlag(o.Abs, 18) |
		fpFlag(o.Not, 19) | fpFlag(o.Reuse, 20) | fpFlag(o.HasDesc, 21)
	// Most fields of most operands are zero (a register source has no
	// immediate, bank, name or descriptor): bits 32-36 say which fields
	// are not, and only those are mixed after the flags. The flags
	// decide what follows, so the sequence still tells every operand
	// apart, at a third of the mixes (operands were two thirds of the
	// fingerprint's time).
	reg, imm, pair, desc := o.Reg != (Reg{}), o.Imm != 0, o.Bank != 0 || o.Block != 0, o.Desc != (Reg{})
	flags |= fpFlag(reg, 32) | fpFlag(imm, 33) | fpFlag(pair, 34) | fpFlag(o.Name != "", 35) | fpFlag(desc, 36)
	h.int(flags)
	if reg {
		h.reg(o.Reg)
	}
	if imm {
		h.int(o.Imm)
	}
	if pair {
		h.int(fpPair(o.Bank, o.Block))
	}
	if o.Name != "" {
		h.str(o.Name)
	}
	if desc {
		h.reg(o.Desc)
	}
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
