package ori

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// OpdKind classifies an operand.
type OpdKind uint8

const (
	OpdReg   OpdKind = iota // a register or tuple, with Neg/Abs/Not/Reuse
	OpdImm                  // an immediate; FKind says how to print it
	OpdCBank                // c[Bank][Imm], or c[Bank][Reg+Imm] when HasBase
	OpdMem                  // [Reg+Imm] (HasBase) or [Imm]
	OpdSR                   // a special register, Name = "SR_TID.X"
	OpdBlock                // a branch target, Block = block ID
	OpdSym                  // a function or global symbol, Name
)

// FloatKind says whether an immediate is a float and of which width. The
// value is always the raw bit pattern in Imm; the kind only affects
// printing and constant folding.
type FloatKind uint8

const (
	ImmInt FloatKind = iota
	ImmF32
	ImmF64
)

// Operand is one instruction operand.
type Operand struct {
	Kind    OpdKind
	Reg     Reg       // OpdReg; the base of OpdMem/OpdCBank when HasBase
	HasBase bool      // OpdMem, OpdCBank: Reg is a base address register
	Neg     bool      // OpdReg: arithmetic negation (-R1)
	Abs     bool      // OpdReg: absolute value (|R1|)
	Not     bool      // OpdReg (predicates): logical not (!P0)
	Reuse   bool      // OpdReg: operand reuse cache hint (post-scheduling)
	Imm     int64     // OpdImm: value or bits; OpdMem/OpdCBank: byte offset
	FKind   FloatKind // OpdImm: int, f32 bits or f64 bits
	Bank    int32     // OpdCBank: constant bank
	Block   int32     // OpdBlock: target block ID
	Name    string    // OpdSR: register name; OpdSym: symbol
	// HasDesc and Desc: OpdMem of a global or generic access on sm_80
	// and later names its memory descriptor, a uniform register pair
	// (desc[UR4][R2.64]) that the encoding phases load from constant
	// bank 0 (pipeline/descriptor.go). The simulator does not read it.
	HasDesc bool
	Desc    Reg
}

// R returns a register operand.
func R(r Reg) Operand { return Operand{Kind: OpdReg, Reg: r} }

// Imm returns an integer immediate.
func Imm(v int64) Operand { return Operand{Kind: OpdImm, Imm: v} }

// F32 returns an f32 immediate.
func F32(f float32) Operand {
	return Operand{Kind: OpdImm, Imm: int64(math.Float32bits(f)), FKind: ImmF32}
}

// F64 returns an f64 immediate.
func F64(f float64) Operand {
	return Operand{Kind: OpdImm, Imm: int64(math.Float64bits(f)), FKind: ImmF64}
}

// CBank returns c[bank][off].
func CBank(bank int, off int64) Operand { return Operand{Kind: OpdCBank, Bank: int32(bank), Imm: off} }

// Mem returns [base+off].
func Mem(base Reg, off int64) Operand {
	return Operand{Kind: OpdMem, Reg: base, HasBase: true, Imm: off}
}

// AbsMem returns the absolute address [off].
func AbsMem(off int64) Operand { return Operand{Kind: OpdMem, Imm: off} }

// SR returns a special register operand such as "SR_TID.X".
func SR(name string) Operand { return Operand{Kind: OpdSR, Name: name} }

// BlockRef returns a branch target operand.
func BlockRef(id int) Operand { return Operand{Kind: OpdBlock, Block: int32(id)} }

// Sym returns a symbol operand (a call target).
func Sym(name string) Operand { return Operand{Kind: OpdSym, Name: name} }

// RetAddrSym names the return point of a call: "MOV R20 = `.ret`" loads
// the address of the instruction after the next CALL of its block into
// the callee's return-address register (the ABI of ptxas: the caller
// writes the address, relative to the start of the kernel's code, into
// R20 and zero into R21, and the callee ends with RET.REL.NODEC R20;
// a call the compiler sees whole uses R2:R3, Func.RetAddr).
// The leading dot keeps it apart from every PTX identifier. The encoder
// and printer resolve it from the layout (ReturnPoint), the simulator
// from the CALL's position.
const RetAddrSym = ".ret"

// FuncAddrOf returns the operand "the address of function name", the
// source of a MOV that loads the low word of a function pointer (the
// high word is zero). The cubin writer resolves it to the function's
// offset from the kernel's start (the encoder's RelocFuncAddr); the
// simulator to its own mapping (FuncAddr).
func FuncAddrOf(name string) Operand { return Sym(name) }

// IsFuncAddr reports whether o, a MOV source, is a function address
// (FuncAddrOf).
func (o Operand) IsFuncAddr() bool { return o.Kind == OpdSym && o.Name != RetAddrSym }

// RetAddr returns the return-point operand (see RetAddrSym).
func RetAddr() Operand { return Sym(RetAddrSym) }

// IsRetAddr reports whether o is the return-point operand.
func (o Operand) IsRetAddr() bool { return o.Kind == OpdSym && o.Name == RetAddrSym }

// IsReg reports whether o is a register operand.
func (o Operand) IsReg() bool { return o.Kind == OpdReg }

// Regs calls f for every register o reads as a source: the register
// itself, or the base of an address.
func (o Operand) usesReg() (Reg, bool) {
	switch o.Kind {
	case OpdReg:
		return o.Reg, true
	case OpdMem, OpdCBank:
		if o.HasBase {
			return o.Reg, true
		}
	}
	return Reg{}, false
}

func hexImm(v int64) string {
	if v < 0 {
		return "-0x" + strconv.FormatUint(uint64(-v), 16)
	}
	return "0x" + strconv.FormatInt(v, 16)
}

func (o Operand) String() string {
	var b strings.Builder
	switch o.Kind {
	case OpdReg:
		if o.Not {
			b.WriteByte('!')
		}
		if o.Neg {
			b.WriteByte('-')
		}
		if o.Abs {
			b.WriteByte('|')
		}
		b.WriteString(o.Reg.String())
		if o.Abs {
			b.WriteByte('|')
		}
		if o.Reuse {
			b.WriteString(".reuse")
		}
	case OpdImm:
		switch o.FKind {
		case ImmF32:
			fmt.Fprintf(&b, "0f%08X", uint32(o.Imm))
		case ImmF64:
			fmt.Fprintf(&b, "0d%016X", uint64(o.Imm))
		default:
			b.WriteString(hexImm(o.Imm))
		}
	case OpdCBank:
		fmt.Fprintf(&b, "c[0x%x][", o.Bank)
		if o.HasBase {
			b.WriteString(o.Reg.String())
			if o.Imm != 0 {
				if o.Imm > 0 {
					b.WriteByte('+')
				}
				b.WriteString(hexImm(o.Imm))
			}
		} else {
			b.WriteString(hexImm(o.Imm))
		}
		b.WriteByte(']')
	case OpdMem:
		if o.HasDesc {
			// Always a pair: printed by its first register, as SASS does.
			d := o.Desc
			d.Words = 1
			b.WriteString("desc[" + d.String() + "]")
		}
		b.WriteByte('[')
		if o.HasBase {
			b.WriteString(o.Reg.String())
			if o.Imm != 0 {
				if o.Imm > 0 {
					b.WriteByte('+')
				}
				b.WriteString(hexImm(o.Imm))
			}
		} else {
			b.WriteString(hexImm(o.Imm))
		}
		b.WriteByte(']')
	case OpdSR:
		b.WriteString(o.Name)
	case OpdBlock:
		fmt.Fprintf(&b, "BB%d", o.Block)
	case OpdSym:
		b.WriteString("`" + o.Name + "`")
	}
	return b.String()
}
