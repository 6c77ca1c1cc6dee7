package sim

import (
	"math/bits"

	"orilab/pipeline/ori"
)

func init() {
	execTable[ori.OpLDG] = execLoad
	execTable[ori.OpLDS] = execLoad
	execTable[ori.OpLDL] = execLoad
	execTable[ori.OpLD] = execLoad
	execTable[ori.OpSTG] = execStore
	execTable[ori.OpSTS] = execStore
	execTable[ori.OpSTL] = execStore
	execTable[ori.OpST] = execStore
	execTable[ori.OpLDC] = execLDC
	execTable[ori.OpATOMG] = execAtom
	execTable[ori.OpATOMS] = execAtom
	execTable[ori.OpATOM] = execAtom
	execTable[ori.OpRED] = execAtom
}

// accessSize returns the bytes moved by a memory instruction and whether a
// sub-word load sign-extends.
func accessSize(d *dinst) (int, bool) {
	switch {
	case d.has("U8"):
		return 1, false
	case d.has("S8"):
		return 1, true
	case d.has("U16"):
		return 2, false
	case d.has("S16"):
		return 2, true
	case d.has("64"):
		return 8, false
	case d.has("128"):
		return 16, false
	}
	return 4, false
}

// space of an access: what the opcode says, or the window a generic
// address falls in.
type space uint8

const (
	spGlobal space = iota
	spShared
	spLocal
)

func (sp space) String() string {
	switch sp {
	case spShared:
		return "shared"
	case spLocal:
		return "local"
	}
	return "global"
}

// address computes the byte address of a memory operand for one lane.
func (s *machine) address(w *warp, f *frame, o *opnd, lane int) uint64 {
	addr := o.imm
	if o.base {
		if o.words >= 2 {
			addr += s.baseReg64(w, f, o, lane)
		} else {
			addr = uint64(uint32(uint64(s.baseReg(w, f, o, lane)) + o.imm))
		}
	}
	return addr
}

// resolve maps an instruction's address to a byte slice in the right
// memory, checking bounds and alignment.
func (s *machine) resolve(w *warp, f *frame, d *dinst, o *opnd, lane, n int, what string) ([]byte, error) {
	addr := s.address(w, f, o, lane)
	sp := spGlobal
	if d.op == ori.OpLD || d.op == ori.OpST || d.op == ori.OpATOM {
		// In 32-bit mode the windows are adjacent 256 MiB ranges
		// (windows in mem.go) and the local window follows the
		// constant one, so the constant window ends where it starts.
		if addr >= s.constW && addr-s.constW < 1<<32 && (s.mod.AddressSize == 64 || addr < s.localW) {
			off := addr - s.constW
			bank := s.bank[3]
			if what != "load" {
				return nil, s.faultLane(w, f, d, lane, "generic %s of %d bytes at address 0x%x writes the read-only constant window", what, n, addr)
			}
			if off+uint64(n) > uint64(len(bank)) {
				return nil, s.faultLane(w, f, d, lane, "out-of-bounds constant load of %d bytes at offset 0x%x (bank 3 holds %d bytes)", n, off, len(bank))
			}
			return bank[off : off+uint64(n)], nil
		}
		if s.paramW != 0 && addr >= s.paramW && addr-s.paramW < 1<<32 {
			// cvta.param: window base + x is constant bank 0 offset x.
			off := addr - s.paramW
			bank := s.bank[0]
			if what != "load" {
				return nil, s.faultLane(w, f, d, lane, "generic %s of %d bytes at address 0x%x writes the read-only kernel-parameter window", what, n, addr)
			}
			if off+uint64(n) > uint64(len(bank)) {
				return nil, s.faultLane(w, f, d, lane, "out-of-bounds kernel-parameter load of %d bytes at offset 0x%x (bank 0 holds %d bytes)", n, off, len(bank))
			}
			return bank[off : off+uint64(n)], nil
		}
	}
	switch d.op {
	case ori.OpLDS, ori.OpSTS, ori.OpATOMS, ori.OpLDSM, ori.OpSTSM:
		sp = spShared
	case ori.OpLDL, ori.OpSTL:
		sp = spLocal
	case ori.OpLD, ori.OpST, ori.OpATOM:
		switch {
		case addr >= s.sharedW && addr-s.sharedW < 1<<32 && s.sharedW != 0 && (s.mod.AddressSize == 64 || addr < s.localW):
			sp, addr = spShared, addr-s.sharedW
		case addr >= s.localW && addr-s.localW < 1<<32:
			sp, addr = spLocal, addr-s.localW
		}
	}
	return s.locate(w, f, d, sp, addr, lane, n, what)
}

// locate maps addr in space sp to a byte slice, checking bounds and
// alignment (resolve after it has found the space).
func (s *machine) locate(w *warp, f *frame, d *dinst, sp space, addr uint64, lane, n int, what string) ([]byte, error) {
	if sp == spShared && s.mod.Arch >= 90 && addr >= 1<<24 {
		// sm_90: bits 24-31 of a shared address name a CTA of the
		// cluster (what SR_CgaCtaId and mapa put there). The CTA's own
		// rank addresses its own window, as on the H100, whose
		// .shared::cta addresses are its .shared::cluster addresses.
		if rank := addr >> 24; rank != clusterRank {
			return nil, s.faultLane(w, f, d, lane, "shared %s of %d bytes at address 0x%x names CTA %d of the cluster; the simulator runs one CTA per cluster (rank %d)", what, n, addr, rank, clusterRank)
		}
		addr &= 1<<24 - 1
	}
	if addr%uint64(n) != 0 {
		return nil, s.faultLane(w, f, d, lane, "misaligned %s %s of %d bytes at address 0x%x", sp, what, n, addr)
	}
	switch sp {
	case spShared:
		sh := w.cta.shared
		if addr+uint64(n) > uint64(len(sh)) {
			return nil, s.faultLane(w, f, d, lane, "out-of-bounds shared %s of %d bytes at offset 0x%x (the CTA has %d bytes of shared memory)", what, n, addr, len(sh))
		}
		return sh[addr : addr+uint64(n)], nil
	case spLocal:
		if addr+uint64(n) > uint64(s.local) {
			return nil, s.faultLane(w, f, d, lane, "out-of-bounds local %s of %d bytes at offset 0x%x (the local window is %d bytes; a deep call chain overflows it)", what, n, int64(addr), s.local)
		}
		base := lane * s.local
		return w.local[base+int(addr) : base+int(addr)+n], nil
	}
	a, off, ok := s.global.find(addr, n)
	if !ok {
		return nil, s.faultLane(w, f, d, lane, "out-of-bounds global %s of %d bytes at address 0x%x (%s)", what, n, addr, s.global.describe(addr))
	}
	return a.Data[off : off+n], nil
}

func execLoad(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	n, signed := accessSize(d)
	eff := s.guardMask(w, f, d, mask)
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		b, err := s.resolve(w, f, d, &d.src[0], lane, n, "load")
		if err != nil {
			return err
		}
		switch {
		case n < 4:
			v := uint32(le(b, n))
			if signed {
				sh := uint(32 - 8*n)
				v = uint32(int32(v<<sh) >> sh)
			}
			s.set(w, f, &d.dst[0], lane, 0, v)
		default:
			for i := 0; i < n/4; i++ {
				s.set(w, f, &d.dst[0], lane, i, uint32(le(b[4*i:], 4)))
			}
		}
	}
	advance(f, mask)
	return nil
}

func execStore(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	n, _ := accessSize(d)
	eff := s.guardMask(w, f, d, mask)
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		b, err := s.resolve(w, f, d, &d.src[0], lane, n, "store")
		if err != nil {
			return err
		}
		if n < 4 {
			putLE(b, uint64(s.get(w, f, &d.src[1], lane, 0)), n)
			continue
		}
		for i := 0; i < n/4; i++ {
			putLE(b[4*i:], uint64(s.get(w, f, &d.src[1], lane, i)), 4)
		}
	}
	advance(f, mask)
	return nil
}

// execLDC loads from a constant bank with a register index.
func execLDC(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	n, signed := accessSize(d)
	eff := s.guardMask(w, f, d, mask)
	o := &d.src[0]
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		off := int64(o.imm)
		if o.base {
			off += int64(int32(s.baseReg(w, f, o, lane)))
		}
		bank := s.bank[o.bank]
		if off < 0 || int(off)+n > len(bank) {
			return s.faultLane(w, f, d, lane, "constant bank %d read of %d bytes at offset 0x%x is out of bounds (the bank holds %d bytes)", o.bank, n, off, len(bank))
		}
		if n < 4 {
			v := uint32(le(bank[off:], n))
			if signed {
				sh := uint(32 - 8*n)
				v = uint32(int32(v<<sh) >> sh)
			}
			s.set(w, f, &d.dst[0], lane, 0, v)
			continue
		}
		for i := 0; i < n/4; i++ {
			s.set(w, f, &d.dst[0], lane, i, uint32(le(bank[int(off)+4*i:], 4)))
		}
	}
	advance(f, mask)
	return nil
}

// atomOp is the read-modify-write of an atomic, on 32- or 64-bit values.
type atomOp func(old, b, c uint64) uint64

// execAtom: ATOMG/ATOMS/ATOM d = [a], b[, c] and RED [a], b; ATOMS.CAST.SPIN
// d = [a], b, c stores c where [a] holds b, like CAS, and sets d to 1 when
// it stored and 0 when not (ptxas's compare-and-swap loops test it
// against 1, measured on the atom.shared.add.f32 loop). Lanes apply
// their updates one after another in lane order, which is one of the
// orders hardware could produce and keeps runs deterministic.
func execAtom(s *machine, w *warp, f *frame, d *dinst, mask uint32) error {
	op, width, err := atomicOf(d)
	if err != nil {
		return s.fault(w, f, d, mask, "%v", err)
	}
	srcA := 0
	eff := s.guardMask(w, f, d, mask)
	hasDst := len(d.dst) > 0
	cast := d.has("CAST")
	for m := eff; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		mem, err := s.resolve(w, f, d, &d.src[srcA], lane, width, "atomic")
		if err != nil {
			return err
		}
		var b, c uint64
		if width == 8 {
			b = s.get64(w, f, &d.src[srcA+1], lane)
			if len(d.src) > srcA+2 {
				c = s.get64(w, f, &d.src[srcA+2], lane)
			}
		} else {
			b = uint64(s.get(w, f, &d.src[srcA+1], lane, 0))
			if len(d.src) > srcA+2 {
				c = uint64(s.get(w, f, &d.src[srcA+2], lane, 0))
			}
		}
		old := le(mem, width)
		putLE(mem, op(old, b, c), width)
		if cast {
			// CAST writes whether the swap happened (1) or not (0),
			// not the old value.
			if old == b { // b holds width bytes (get zero-extends 32-bit values)
				old = 1
			} else {
				old = 0
			}
		}
		if hasDst {
			if width == 8 {
				s.set64(w, f, &d.dst[0], lane, old)
			} else {
				s.set(w, f, &d.dst[0], lane, 0, uint32(old))
			}
		}
	}
	advance(f, mask)
	return nil
}

// atomicOf decodes the operation and width of an atomic from its
// modifiers: the op (ADD MIN MAX INC DEC AND OR XOR EXCH CAS) and the type
// (U32 S32 U64 S64 F32 F64, with .64 as an untyped 64-bit width).
func atomicOf(d *dinst) (atomOp, int, error) {
	width := 4
	signed, fl := false, ""
	for _, m := range d.in.Mods {
		switch m {
		case "U64", "64":
			width = 8
		case "S64":
			width, signed = 8, true
		case "S32":
			signed = true
		case "F32":
			fl = "F32"
		case "F64":
			fl, width = "F64", 8
		case "F16x2", "BF16x2":
			fl = m
		case "F16", "BF16":
			fl, width = m, 2
		}
	}
	// F32.FTZ flushes subnormals (global atom.add.f32); generic accesses
	// that land in shared memory are treated the same, which only matters
	// for subnormal operands.
	if fl == "F32" && d.has("FTZ") {
		fl = "F32FTZ"
	}
	mask := uint64(1)<<(8*uint(width)) - 1
	if width == 8 {
		mask = ^uint64(0)
	}
	sext := func(v uint64) int64 {
		if width == 4 {
			return int64(int32(v))
		}
		return int64(v)
	}
	var op atomOp
	for _, m := range d.in.Mods {
		switch m {
		case "ADD":
			if fl != "" {
				op = floatAtomicAdd(fl)
				if op == nil {
					return nil, 0, errUnsupportedAtomic(d)
				}
				continue
			}
			op = func(o, b, _ uint64) uint64 { return (o + b) & mask }
		case "MIN":
			if signed {
				op = func(o, b, _ uint64) uint64 {
					if sext(b) < sext(o) {
						return b
					}
					return o
				}
			} else {
				op = func(o, b, _ uint64) uint64 { return min(o, b&mask) }
			}
		case "MAX":
			if signed {
				op = func(o, b, _ uint64) uint64 {
					if sext(b) > sext(o) {
						return b
					}
					return o
				}
			} else {
				op = func(o, b, _ uint64) uint64 { return max(o, b&mask) }
			}
		case "INC":
			op = func(o, b, _ uint64) uint64 {
				if o >= b&mask {
					return 0
				}
				return o + 1
			}
		case "DEC":
			op = func(o, b, _ uint64) uint64 {
				if o == 0 || o > b&mask {
					return b & mask
				}
				return o - 1
			}
		case "AND":
			op = func(o, b, _ uint64) uint64 { return o & b }
		case "OR":
			op = func(o, b, _ uint64) uint64 { return o | b }
		case "XOR":
			op = func(o, b, _ uint64) uint64 { return o ^ b }
		case "EXCH":
			op = func(_, b, _ uint64) uint64 { return b & mask }
		case "CAS", "CAST":
			op = func(o, b, c uint64) uint64 {
				if o == b&mask {
					return c & mask
				}
				return o
			}
		}
	}
	if op == nil {
		return nil, 0, errUnsupportedAtomic(d)
	}
	return op, width, nil
}
