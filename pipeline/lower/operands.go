package lower

import (
	"math"
	"strings"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

func f32bits(f float64) uint32 { return math.Float32bits(float32(f)) }
func f64bits(f float64) uint64 { return math.Float64bits(f) }

// floatBits converts f to the bit pattern of float type t (round to
// nearest even). Integer types get the f32 pattern for 4-byte types and
// the f64 pattern for 8-byte ones.
func floatBits(f float64, t string) uint64 {
	switch t {
	case ".f64", ".b64", ".u64", ".s64":
		return f64bits(f)
	case ".f16":
		return uint64(f32ToF16(float32(f)))
	case ".bf16":
		return uint64(f32ToBF16(float32(f)))
	}
	return uint64(f32bits(f))
}

// f32ToF16 rounds an f32 to binary16, round to nearest even.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b >> 23) & 0xff)
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - e)
		half := uint32(1) << (shift - 1)
		v := man >> shift
		rem := man & ((1 << shift) - 1)
		if rem > half || rem == half && v&1 == 1 {
			v++
		}
		return sign | uint16(v)
	}
	v := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && v&1 == 1 {
		v++
	}
	return sign | uint16(v)
}

// f32ToBF16 rounds an f32 to bfloat16, round to nearest even.
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	rounding := uint32(0x7fff) + (b>>16)&1
	return uint16((b + rounding) >> 16)
}

// typeBits returns the width in bits of a PTX type's value.
func typeBits(t string) int { return int(typeBytes(t)) * 8 }

func isSigned(t string) bool { return strings.HasPrefix(t, ".s") }

// wordsOf returns how many 32-bit words a value of type t occupies.
func wordsOf(t string) int {
	if b := typeBytes(t); b > 4 {
		return int(b / 4)
	}
	return 1
}

// lastType returns the last type modifier of an instruction, which is
// the operation type for most PTX instructions ("add.s32" -> ".s32").
func lastType(in *ptx.Instr) string {
	for i := len(in.Mods) - 1; i >= 0; i-- {
		if isType(in.Mods[i]) {
			return in.Mods[i]
		}
	}
	return ""
}

// types returns every type modifier in order ("cvt.rn.f32.s32" ->
// [".f32", ".s32"]).
func types(in *ptx.Instr) []string {
	var ts []string
	for _, m := range in.Mods {
		if isType(m) {
			ts = append(ts, m)
		}
	}
	return ts
}

func isType(m string) bool {
	switch m {
	case ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64",
		".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".f32", ".f64",
		".bf16", ".bf16x2", ".tf32", ".pred", ".u16x2", ".s16x2", ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2":
		return true
	}
	return false
}

// reg resolves a register operand (with an optional vector component) to
// its Ori register, or returns nil when the name is not a register.
func (c *fn) reg(o *ptx.Operand) (*preg, ori.Reg, bool) {
	r := c.lookupReg(o.Name)
	if r == nil {
		return nil, ori.Reg{}, false
	}
	reg := r.reg
	if o.Comp != "" && r.vec > 0 {
		idx := strings.Index("xyzw", o.Comp[1:2])
		if idx < 0 {
			idx = strings.Index("rgba", o.Comp[1:2])
		}
		ew := regWords(r.typ, 0)
		reg = reg.Word(idx * ew).Wide(ew)
		if ew == 1 {
			reg = reg.Wide(1)
		}
	}
	return r, reg, true
}

// src returns a source operand for an instruction of type t. Registers
// come back whole (a .64 tuple for 64-bit types); immediates carry their
// full value, converted to t's bit pattern for float types; special
// registers are read into a fresh register first.
func (c *fn) src(o *ptx.Operand, t string) (ori.Operand, error) {
	switch o.Kind {
	case ptx.OpInt:
		v, _ := o.Int()
		if isFloatType(t) {
			// An integer literal in a float position is a bit pattern only
			// for 0x forms? PTX treats it as a value; convert.
			return c.fimm(floatBits(float64(v), t), t), nil
		}
		return ori.Imm(v), nil
	case ptx.OpFloat:
		bits := constBits(o, t)
		return c.fimm(bits, t), nil
	case ptx.OpName:
		if o.Name == "WARP_SZ" && c.lookupReg(o.Name) == nil {
			return ori.Imm(32), nil
		}
		if r, reg, ok := c.reg(o); ok {
			op := ori.R(reg)
			if o.Neg {
				op.Neg = true
			}
			if o.Not {
				op.Not = true
			}
			if r.pred {
				op.Reg = r.reg
			}
			if o.HasOff {
				// "reg+imm" as a value (ZLUDA operand tests): add it.
				tmp := c.newReg(wordsOf(t))
				c.add(tmp, op, ori.Imm(o.Off), wordsOf(t))
				return ori.R(tmp), nil
			}
			return op, nil
		}
		if _, ok := specialReg(o.Name); ok {
			return c.readSpecial(o)
		}
		// A variable or function name as a value is its address.
		return c.symAddr(o, t)
	case ptx.OpVec:
		return ori.Operand{}, c.l.unsupported(o.Pos, "a vector operand here")
	}
	return ori.Operand{}, c.l.unsupported(o.Pos, "this operand form")
}

// fimm returns a float immediate operand holding bits of type t. f16 and
// bf16 values travel as integer immediates in the low half.
func (c *fn) fimm(bits uint64, t string) ori.Operand {
	switch t {
	case ".f32":
		return ori.Operand{Kind: ori.OpdImm, Imm: int64(uint32(bits)), FKind: ori.ImmF32}
	case ".f64":
		return ori.Operand{Kind: ori.OpdImm, Imm: int64(bits), FKind: ori.ImmF64}
	}
	return ori.Imm(int64(bits))
}

// word returns word i of a (possibly 64-bit) operand: a register word, or
// the i-th 32 bits of an immediate.
func word(o ori.Operand, i int) ori.Operand {
	switch o.Kind {
	case ori.OpdReg:
		w := o
		w.Reg = o.Reg.Word(i)
		return w
	case ori.OpdImm:
		v := uint64(o.Imm)
		return ori.Imm(int64(int32(uint32(v >> (32 * uint(i))))))
	case ori.OpdCBank:
		w := o
		w.Imm += int64(4 * i)
		return w
	}
	return o
}

// newReg returns a fresh R-class virtual register of words words.
func (c *fn) newReg(words int) ori.Reg { return c.f.NewVReg(ori.ClassR, words) }

// newPred returns a fresh virtual predicate.
func (c *fn) newPred() ori.Reg { return c.f.NewVReg(ori.ClassP, 1) }

// dst returns the destination register of operand o for type t. A sink
// (_) gets a fresh register whose value nobody reads.
func (c *fn) dst(o *ptx.Operand, t string) (ori.Reg, error) {
	switch o.Kind {
	case ptx.OpSink:
		if t == ".pred" {
			return c.newPred(), nil
		}
		return c.newReg(wordsOf(t)), nil
	case ptx.OpName:
		if _, reg, ok := c.reg(o); ok {
			return reg, nil
		}
	}
	return ori.Reg{}, c.l.unsupported(o.Pos, "destination %s", describe(o))
}

func describe(o *ptx.Operand) string {
	switch o.Kind {
	case ptx.OpName:
		return o.Name
	case ptx.OpInt, ptx.OpFloat:
		return o.Text
	case ptx.OpAddr:
		return "an address"
	case ptx.OpVec:
		return "a vector"
	}
	return "an operand"
}

// mov copies words words from src to dst.
func (c *fn) mov(dst ori.Reg, src ori.Operand, words int) {
	for i := 0; i < words; i++ {
		c.emit(ori.OpMOV, nil, []ori.Operand{ori.R(dst.Word(i))}, word(src, i))
	}
}

// add computes dst = a + b over words words (32- or 64-bit).
func (c *fn) add(dst ori.Reg, a, b ori.Operand, words int) {
	if words == 1 {
		c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(dst.Word(0))}, word(a, 0), word(b, 0), ori.R(ori.RZ))
		return
	}
	carry := c.newPred()
	c.emit(ori.OpIADD3, nil, []ori.Operand{ori.R(dst.Word(0)), ori.R(carry)}, word(a, 0), word(b, 0), ori.R(ori.RZ))
	c.emit(ori.OpIADD3, []string{"X"}, []ori.Operand{ori.R(dst.Word(1))}, word(a, 1), word(b, 1), ori.R(ori.RZ), ori.R(carry), ori.Operand{Kind: ori.OpdReg, Reg: ori.PT, Not: true})
}
