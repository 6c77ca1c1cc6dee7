package lower

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// cp.async as ptxas lowers it on sm_80 and later: one LDGSTS per copy
// (global to shared without a register in between), LDGDEPBAR for
// cp.async.commit_group and DEPBAR.LE SB0, n for cp.async.wait_group n.
// What ptxas 13.0.88 -arch sm_80 -O3 writes for each form (sm_86, sm_89
// and sm_90 the same words; sm_90 adds desc[UR4] and three @!PT LDS RZ,
// [RZ] before each LDGSTS, which orilab does not write):
//
//	cp.async.ca.shared.global [d], [g], 16;         LDGSTS.E.128 [Rd], [Rg.64]
//	cp.async.cg.shared.global [d], [g], 16;         LDGSTS.E.BYPASS.128 ...
//	cp.async.ca.shared.global [d], [g], 16, 12;     LDGSTS.E.128.ZFILL [Rd], [Rg.64+0x4]
//	cp.async.ca.shared.global [d], [g], 8, %n;      IADD3 t = -n, 0x8 ; LOP3 t = t & 0x7
//	                                                 g' = g + t (64-bit) ; P = n != 0
//	                                                 LDGSTS.E.64.ZFILL [Rd], [g'.64], P
//	cp.async.ca.shared.global [d], [g], 8, %p;      LDGSTS.E.64 [Rd], [Rg.64], !p
//	cp.async.commit_group;                           LDGDEPBAR
//	cp.async.wait_group n;                           DEPBAR.LE SB0, n
//	cp.async.wait_all;                               LDGDEPBAR ; DEPBAR.LE SB0, 0x0
//
// LDGSTS's predicate says whether the source is read (false: all bytes
// zero), and .ZFILL takes a zero-fill count from the source address's low
// bits (sim/exec_cpasync.go has the semantics). The copy needs no
// register for the data, where the synchronous lowering (mem.go's
// lowerCp) loads every word into one and masks the partial ones:
// cp_async_forms took 12 registers that way, ptxas 7.
//
// Decision: a register src-size above cp-size copies what ptxas's code
// copies, (src-size mod cp-size) bytes unless that is 0, and a constant
// one cp-size bytes (the manual leaves src-size > cp-size undefined; the
// synchronous lowering copies cp-size bytes).
//
// Decision: cp.async.wait_group n waits for at most 63 pending groups
// when n is larger (DEPBAR's count has 6 bits): waiting longer than asked
// is always allowed.
//
// The scoreboard SB0 belongs to LDGDEPBAR in a function that has one
// (sched's control words allocate the other five), as in ptxas's code.

// cpAsyncLDGSTS lowers cp.async (the copy and the group instructions) to
// LDGSTS, LDGDEPBAR and DEPBAR.
func cpAsyncLDGSTS(c *fn, in *ptx.Instr) error {
	switch {
	case in.HasMod(".commit_group"):
		c.emit(ori.OpLDGDEPBAR, nil, nil)
		return nil
	case in.HasMod(".wait_all"):
		c.emit(ori.OpLDGDEPBAR, nil, nil)
		c.emit(ori.OpDEPBAR, []string{"LE"}, nil, ori.Imm(0), ori.Imm(0))
		return nil
	case in.HasMod(".wait_group"):
		if len(in.Args) != 1 {
			return c.l.errorf(in.OpPos, "cp.async.wait_group takes one operand, the number of groups left pending")
		}
		n, ok := in.Args[0].Int()
		if !ok || n < 0 {
			return c.l.errorf(in.Args[0].Pos, "cp.async.wait_group needs a non-negative integer constant")
		}
		c.emit(ori.OpDEPBAR, []string{"LE"}, nil, ori.Imm(0), ori.Imm(min(n, 63)))
		return nil
	}
	dst, src, size, err := c.cpOperands(in) // mem.go
	if err != nil {
		return err
	}
	if in.HasMod(".cg") && size != 16 {
		return c.l.errorf(in.Args[2].Pos, "cp.async.cg copies 16 bytes")
	}
	args := in.Args
	if in.HasMod(".L2::cache_hint") && len(args) > 3 {
		args = args[:len(args)-1] // the cache policy: a hint only
	}
	g := c.globalBase(src.op)
	valid := ori.R(ori.PT)
	zfill := false
	if len(args) > 3 {
		a := args[3]
		if v, ok := a.Int(); ok {
			// A constant src-size: the zero-fill count in the address.
			switch {
			case v <= 0:
				valid.Not = true
			case v < size:
				g.Imm += size - v
				zfill = true
			}
		} else if r, reg, ok := c.reg(a); ok && r.pred {
			// ignore-src: read the source when it is false.
			valid = ori.R(reg)
			valid.Not = !a.Not
		} else {
			o, err := c.src(a, ".u32")
			if err != nil {
				return err
			}
			n := c.asReg(word(o, 0))
			t := c.newReg(1)
			neg := n
			neg.Neg = true
			c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(t)}, neg, ori.Imm(size), ori.R(ori.RZ))
			c.emit(ori.OpLOP3, []string{"LUT"}, []ori.Operand{ori.R(t)}, ori.R(t), ori.Imm(size-1), ori.R(ori.RZ), ori.Imm(0xc0), ori.R(ori.PT))
			g = c.add64(g, ori.R(t))
			p := c.newPred()
			c.emit(ori.OpISETP, []string{"NE", "U32", "AND"}, []ori.Operand{ori.R(p), ori.R(ori.PT)}, n, ori.R(ori.RZ), ori.R(ori.PT))
			valid = ori.R(p)
			zfill = true
		}
	}
	if g.Imm < -1<<11 || g.Imm >= 1<<11 {
		// LDGSTS's source offset has 12 bits.
		off := g.Imm
		g.Imm = 0
		g = c.add64(g, ori.Imm(off))
	}
	mods := []string{"E"}
	if in.HasMod(".cg") {
		mods = append(mods, "BYPASS")
	}
	mods = append(mods, sizeMod(size, ".b32")...)
	if zfill {
		mods = append(mods, "ZFILL")
	}
	srcs := []ori.Operand{dst.op, g}
	if valid.Reg != ori.PT || valid.Not {
		srcs = append(srcs, valid)
	}
	c.emit(ori.OpLDGSTS, mods, nil, srcs...)
	return nil
}

// globalBase returns the global address m as LDGSTS takes it: a 64-bit
// register pair and an offset.
func (c *fn) globalBase(m ori.Operand) ori.Operand {
	if m.Kind == ori.OpdMem && m.HasBase && m.Reg.Words == 2 {
		return m
	}
	r := c.newReg(2)
	switch {
	case m.Kind == ori.OpdMem && m.HasBase:
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.R(m.Reg))
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, ori.R(ori.RZ))
	default:
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(0))}, ori.Imm(int64(uint32(m.Imm))))
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(r.Word(1))}, ori.Imm(int64(uint32(uint64(m.Imm)>>32))))
		return ori.Mem(r, 0)
	}
	return ori.Mem(r, m.Imm)
}

// add64 returns the address m (a 64-bit base and an offset) plus the
// 32-bit unsigned value v, as a register pair with m's offset.
func (c *fn) add64(m ori.Operand, v ori.Operand) ori.Operand {
	d := c.newReg(2)
	cy := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(d.Word(0)), ori.R(cy)}, ori.R(m.Reg.Word(0)), v, ori.R(ori.RZ))
	hi := ori.R(ori.RZ)
	if v.Kind == ori.OpdImm && v.Imm < 0 {
		hi = ori.Imm(-1)
	}
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(d.Word(1))}, ori.R(m.Reg.Word(1)), hi, ori.R(ori.RZ), ori.R(cy), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
	return ori.Mem(d, m.Imm)
}
