package faultinject

import (
	"fmt"
	"math"

	"orilab/pipeline/ori"
)

// Mutation: applying a candidate's plan in place.
//
// The operand values a fault reports ("correct val V replaced with W") are
// decimal numbers whose meaning depends on the operand:
//
//	register (R, UR)      the register number (R7 is 7; a tuple, its first register)
//	predicate (P, UP)     the number plus 8 when inverted, as in the 4-bit SASS
//	                      predicate field (!P2 is 10, PT is 7)
//	memory offset         the signed byte offset
//	immediate             the value (f32/f64 immediates: their bit pattern)
//	constant bank         the byte offset in the bank
//	P2R/R2P mask          the mask
//
// The mutations:
//
//	mutReg      a different register of the same class and width, aligned,
//	            chosen uniformly in the function's used range (as ptxas
//	            "allocates a new register of the same class")
//	mutGuardReg a different predicate of the guard's class; the inversion
//	            is kept
//	mutGuardNot the guard inverted, when no other predicate is in range
//	mutOffset   offset' = sext24((offset + 16) & 0xFFFFFF): ptxas adds 16
//	            to the signed 24-bit offset field, so the sum wraps at
//	            the field's edges
//	mutImmBit   one bit of the immediate flipped, chosen uniformly among
//	            its 32 bits (64 for an f64 immediate): a single-event upset
//	mutCBank    the constant-bank offset moved to the next word (+4)
//	mutMask     the mask's one bit moved to another of P0-P6, chosen
//	            uniformly, so a different predicate is saved or restored

// predValue encodes a predicate operand as the SASS 4-bit field does.
func predValue(r ori.Reg, not bool) int64 {
	v := int64(r.N)
	if not {
		v |= 8
	}
	return v
}

// regValue is the reported value of a register operand.
func regValue(o ori.Operand) int64 {
	if o.Reg.Class.IsPred() {
		return predValue(o.Reg, o.Not)
	}
	return int64(o.Reg.N)
}

// sext24 sign-extends the low 24 bits of v.
func sext24(v int64) int64 {
	v &= 0xFFFFFF
	if v&0x800000 != 0 {
		v -= 1 << 24
	}
	return v
}

// flipImm flips bit k of an immediate. Integer immediates are 32-bit and
// sign-extended by 64-bit operations, so a value written in the int32
// range stays sign-extended (flipping bit 31 of 0x10 gives -0x7ffffff0).
func flipImm(o ori.Operand, k int) int64 {
	switch o.FKind {
	case ori.ImmF64:
		return int64(uint64(o.Imm) ^ 1<<k)
	case ori.ImmF32:
		return int64(uint32(o.Imm) ^ 1<<k)
	}
	x := uint32(o.Imm) ^ 1<<k
	if o.Imm >= math.MinInt32 && o.Imm <= math.MaxInt32 {
		return int64(int32(x))
	}
	return int64(x) // written as an unsigned 32-bit pattern: keep it so
}

// apply performs c's mutation with the random choices drawn from r and
// returns the fault record (without its selection index).
func apply(c candidate, r *rng) (Fault, error) {
	in := c.in
	f := Fault{
		Kind:     c.plan.kind,
		Category: CatRegister, // set by the caller
		Func:     c.fi.f.Name,
		Block:    c.b.ID,
		Inst:     in.ID,
		Operand:  c.plan.opd,
		Before:   in.String(),
	}
	pick := func(alts []int32) int32 { return alts[r.intn(len(alts))] }
	switch c.plan.how {
	case mutReg:
		o := operand(in, c.plan.opd)
		alts := c.fi.alternatives(o.Reg)
		if len(alts) == 0 {
			return f, fmt.Errorf("faultinject: %s BB%d #%d: operand %d (%s) has no replacement register", f.Func, f.Block, f.Inst, c.plan.opd, o)
		}
		f.Correct = regValue(*o)
		o.Reg.N = pick(alts)
		f.Replaced = regValue(*o)
	case mutGuardReg:
		alts := c.fi.alternatives(in.Guard)
		if len(alts) == 0 {
			return f, fmt.Errorf("faultinject: %s BB%d #%d: guard %s has no replacement predicate", f.Func, f.Block, f.Inst, in.Guard)
		}
		f.Correct = predValue(in.Guard, in.GuardNot)
		in.Guard.N = pick(alts)
		f.Replaced = predValue(in.Guard, in.GuardNot)
	case mutGuardNot:
		f.Correct = predValue(in.Guard, in.GuardNot)
		in.GuardNot = !in.GuardNot
		f.Replaced = predValue(in.Guard, in.GuardNot)
	case mutOffset:
		o := operand(in, c.plan.opd)
		off := o.Imm
		f.Offset = &off
		f.Correct = o.Imm
		o.Imm = sext24(o.Imm + 16)
		f.Replaced = o.Imm
	case mutImmBit:
		o := operand(in, c.plan.opd)
		bits := 32
		if o.FKind == ori.ImmF64 {
			bits = 64
		}
		f.Correct = o.Imm
		o.Imm = flipImm(*o, r.intn(bits))
		f.Replaced = o.Imm
	case mutCBank:
		o := operand(in, c.plan.opd)
		f.Correct = o.Imm
		o.Imm += 4
		f.Replaced = o.Imm
	case mutMask:
		o := operand(in, c.plan.opd)
		bit := singleBitMask(in)
		if bit < 0 {
			return f, fmt.Errorf("faultinject: %s BB%d #%d: mask %s is not a single predicate bit", f.Func, f.Block, f.Inst, o)
		}
		j := r.intn(6)
		if j >= bit {
			j++ // the six predicates other than the original
		}
		f.Correct = o.Imm
		o.Imm = 1 << j
		f.Replaced = o.Imm
	}
	f.After = in.String()
	return f, nil
}
