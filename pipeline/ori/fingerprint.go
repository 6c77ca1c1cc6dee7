package ori

import "math/bits"

// Fingerprint hashes f's code: the blocks in layout order (ID, label,
// nounroll flag) and every field of every instruction (ID, opcode,
// modifiers, guard, operands, control word, line, role, origin). Two
// states of a function with the same fingerprint have, up to a 64-bit
// hash collision, the same code. It walks the instructions once without
// allocating, far cheaper than any analysis a pass would rebuild. It is
// never 0.
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
			// The control word and role take bits 0-41; the operand
			// counts and the guard's negation share its value when the
			// counts are small (bit 63 says so), as they almost always
			// are, else they follow on their own.
			c := &in.Ctrl
			v := int64(c.Stall) | int64(uint8(c.WrBar))<<8 | int64(uint8(c.RdBar))<<16 | int64(c.Wait)<<24 |
				int64(in.Role)<<32 | fpFlag(c.Set, 40) | fpFlag(c.Yield, 41)
			nm, nd, ns := len(in.Mods), len(in.Dsts), len(in.Srcs)
			if nm < 1<<6 && nd < 1<<6 && ns < 1<<7 {
				h.int(v | int64(nm)<<42 | int64(nd)<<48 | int64(ns)<<54 | fpFlag(in.GuardNot, 61) | fpFlag(true, 63))
			} else {
				h.int(v)
				h.int(int64(nm) | int64(nd)<<16 | int64(ns)<<32 | fpFlag(in.GuardNot, 48))
			}
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
			h.int(fpPair(in.Line, in.Origin))
		}
	}
	// 0 is left to mean "not computed" (see AtFixedPoint).
	return max(uint64(h), 1)
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
	// A string of up to seven bytes (a modifier, most labels) is one
	// value: its length in the top byte, its bytes below. A longer one
	// is 0xff and its length, then eight bytes at a time (the count
	// says how many follow, so the zero padding of the last chunk is
	// not ambiguous).
	if len(s) < 8 {
		v := uint64(len(s)) << 56
		for i := 0; i < len(s); i++ {
			v |= uint64(s[i]) << (8 * i)
		}
		h.int(int64(v))
		return
	}
	h.int(int64(0xff<<56 | uint64(len(s))))
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
	h.int(int64(r.Class) | int64(r.Off)<<8 | int64(r.Words)<<16 | int64(uint32(r.N))<<24 | fpFlag(r.Virtual, 56))
}

// fpRegBits packs r into 45 bits when its class, offset and width are
// below 16 (every register the compiler makes).
func fpRegBits(r Reg) (uint64, bool) {
	if r.Class >= 16 || r.Off >= 16 || r.Words >= 16 {
		return 0, false
	}
	v := uint64(r.Class) | uint64(r.Off)<<5 | uint64(r.Words)<<9 | uint64(uint32(r.N))<<13
	if r.Virtual {
		v |= 1 << 4
	}
	return v, true
}

func (h *fpHash) operand(o *Operand) {
	reg, imm, pair, desc := o.Reg != (Reg{}), o.Imm != 0, o.Bank != 0 || o.Block != 0, o.Desc != (Reg{})
	// Most operands are a register, or an immediate that fits in 32
	// bits, with every other field zero: those are one value, tagged by
	// bits 63 and 62 (the general form below leaves both clear), with
	// the kind, the float kind and the flags in bits 0-10.
	if !pair && o.Name == "" && !desc && o.Kind < 8 && o.FKind < 4 {
		small := uint64(o.Kind) | uint64(o.FKind)<<3 | uint64(fpFlag(o.HasBase, 5)|fpFlag(o.Neg, 6)|fpFlag(o.Abs, 7)|
			fpFlag(o.Not, 8)|fpFlag(o.Reuse, 9)|fpFlag(o.HasDesc, 10))
		if rb, ok := fpRegBits(o.Reg); ok && !imm {
			h.int(int64(3<<62 | small | rb<<11))
			return
		}
		if !reg && o.Imm == int64(int32(o.Imm)) {
			h.int(int64(2<<62 | small | uint64(uint32(o.Imm))<<11))
			return
		}
	}
	flags := int64(o.Kind) | int64(o.FKind)<<8 | fpFlag(o.HasBase, 16) | fpFlag(o.Neg, 17) | fpFlag(o.Abs, 18) |
		fpFlag(o.Not, 19) | fpFlag(o.Reuse, 20) | fpFlag(o.HasDesc, 21)
	// Most fields of most operands are zero (a register source has no
	// immediate, bank, name or descriptor): bits 32-36 say which fields
	// are not, and only those are mixed after the flags. The flags
	// decide what follows, so the sequence still tells every operand
	// apart, at a third of the mixes (operands were two thirds of the
	// fingerprint's time).
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
// current Fingerprint for a later NoteFixedPoint, or 0 when it could
// answer without it.
//
// A pass that is idempotent (running it on its own result changes
// nothing) uses the pair to skip a run on code it already settled: the
// dead-code and GeneralOptimize phases run six times each per function,
// often on a function no phase in between touched, and each run rebuilt
// its analyses (whole-function liveness, the copy problem) only to find
// nothing to do.
//
// The fingerprint is computed only when it can decide: not when pass has
// no fixed point noted, and not when the function's shape (its blocks
// and how many instructions each holds, read without reading any
// instruction) differs from the shape noted. Over the large corpus files
// those were two thirds of the questions, and the fingerprint reads
// every operand of the function.
func (f *Func) AtFixedPoint(pass string) (bool, uint64) {
	old, ok := f.fixed[pass]
	if !ok || old.shape != shapeOf(f) {
		return false, 0
	}
	fp := Fingerprint(f)
	return old.fp == fp, fp
}

// NoteFixedPoint records that pass, run again on f as it is now (with
// Fingerprint fp), would change nothing. fp 0 (AtFixedPoint did not
// compute it, and the pass changed nothing since) computes it here.
func (f *Func) NoteFixedPoint(pass string, fp uint64) {
	if f.fixed == nil {
		f.fixed = map[string]fixedPoint{}
	}
	if fp == 0 {
		fp = Fingerprint(f)
	}
	f.fixed[pass] = fixedPoint{fp: fp, shape: shapeOf(f)}
}

// fixedPoint is a noted fixed point: the Fingerprint of the code, and
// its shape (shapeOf), which tells most changed code apart without the
// fingerprint.
type fixedPoint struct{ fp, shape uint64 }

// shapeOf hashes f's blocks in layout order with their IDs and
// instruction counts: equal code has an equal shape, so a different
// shape is a change.
func shapeOf(f *Func) uint64 {
	h := fpHash(fpSeed)
	h.int(int64(len(f.Blocks)))
	for _, b := range f.Blocks {
		h.int(fpPair(b.ID, int32(len(b.Insts))))
	}
	return uint64(h)
}
