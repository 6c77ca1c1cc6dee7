package ori

// Hash returns a 64-bit FNV-1a hash of everything the text form of m
// shows (blocks, instructions, operands, control words, module data),
// computed from the fields directly: the phase manager hashes after every
// phase to tell changed from unchanged, and formatting the text each time
// would double the cost of an observed compilation.
func Hash(m *Module) uint64 {
	// FNV-1a, written out: the same values as hash/fnv's New64a fed the
	// same bytes, without an interface call and a buffer per word (the
	// hash runs after every phase of a snapshot compile).
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	u64 := func(v uint64) {
		x := h // a local, not the captured variable, in the loop
		for i := 0; i < 8; i++ {
			x ^= v & 0xff
			x *= prime64
			v >>= 8
		}
		h = x
	}
	str := func(s string) {
		u64(uint64(len(s)))
		x := h
		for i := 0; i < len(s); i++ {
			x ^= uint64(s[i])
			x *= prime64
		}
		h = x
	}
	reg := func(r Reg) {
		v := uint64(r.Class) | uint64(r.Off)<<8 | uint64(r.Words)<<16 | uint64(uint32(r.N))<<32
		if r.Virtual {
			v |= 1 << 24
		}
		u64(v)
	}
	opd := func(o Operand) {
		flags := uint64(o.Kind) | uint64(o.FKind)<<8 | uint64(uint32(o.Bank))<<32
		for i, b := range []bool{o.HasBase, o.Neg, o.Abs, o.Not, o.Reuse, o.HasDesc} {
			if b {
				flags |= 1 << (16 + i)
			}
		}
		u64(flags)
		reg(o.Reg)
		if o.HasDesc {
			reg(o.Desc)
		}
		u64(uint64(o.Imm))
		u64(uint64(uint32(o.Block)))
		str(o.Name)
	}
	u64(uint64(m.Arch)<<8 | uint64(m.AddressSize))
	for _, g := range m.Globals {
		str(g.Name)
		u64(uint64(g.Space))
		u64(uint64(g.Size))
		u64(uint64(g.Align))
		u64(uint64(g.Offset))
		u64(uint64(g.AddrSlot))
		str(string(g.Init))
	}
	for _, f := range m.Funcs {
		str(f.Name)
		u64(uint64(len(f.Params))<<32 | uint64(len(f.Rets)))
		for _, p := range append(append([]Param(nil), f.Params...), f.Rets...) {
			str(p.Name)
			u64(uint64(p.Size))
			u64(uint64(p.Align))
			u64(uint64(p.Offset))
			u64(uint64(p.Words))
		}
		for _, v := range f.SharedVars {
			str(v.Name)
			u64(uint64(v.Offset))
			u64(uint64(v.Size))
		}
		for _, v := range f.Literals {
			u64(v) // the pool's values, in order
		}
		u64(uint64(len(f.Literals)))
		u64(uint64(f.SharedBytes))
		u64(uint64(f.LocalBytes))
		for _, b := range f.Blocks {
			u64(uint64(uint32(b.ID)) | 1<<40)
			str(b.Label)
			for _, p := range b.Preds {
				u64(uint64(uint32(p.ID)))
			}
			u64(1 << 41)
			for _, s := range b.Succs {
				u64(uint64(uint32(s.ID)))
			}
			for _, in := range b.Insts {
				u64(uint64(uint32(in.ID)) | uint64(in.Op)<<32 | uint64(len(in.Dsts))<<48 | uint64(len(in.Srcs))<<56)
				for _, md := range in.Mods {
					str(md)
				}
				reg(in.Guard)
				c := in.Ctrl
				u64(uint64(c.Stall) | uint64(c.Wait)<<8 | uint64(uint8(c.WrBar))<<16 | uint64(uint8(c.RdBar))<<24 | uint64(uint32(in.Line))<<32)
				u64(uint64(in.Role) | uint64(uint32(in.Origin))<<8)
				var fl uint64
				if c.Set {
					fl |= 1
				}
				if c.Yield {
					fl |= 2
				}
				if in.GuardNot {
					fl |= 4
				}
				u64(fl)
				for _, o := range in.Dsts {
					opd(o)
				}
				for _, o := range in.Srcs {
					opd(o)
				}
			}
		}
	}
	return h
}
