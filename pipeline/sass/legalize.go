package sass

// Operand-order legalization: the lowering and the optimizer may leave an
// immediate or a constant bank in source A, which no ALU word can hold
// (A is always a register: bits 24-31). Where the operation commutes, the
// operands are swapped so the encoder finds a legal form; the meaning is
// unchanged, so the simulator executes the result as before. An
// immediate 0 that no word can hold becomes RZ (in A or B of the ALU
// operations that read any register value; in C beside an immediate,
// constant or uniform register in B, and in IMAD.HI, zeroCToRZ). Forms that
// need a new instruction (two immediates in IMAD, an immediate in FCHK)
// are left alone: they need the legalization phase, which can allocate a
// register, and the encoder refuses them with an error naming them.

import "orilab/pipeline/ori"

// LegalizeFunc rewrites the operand order of f's instructions for SM
// arch (see above) and reports how many it changed.
func LegalizeFunc(f *ori.Func, arch int) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if Legalize(in, arch) {
				n++
			}
		}
	}
	return n
}

// isFileReg reports whether o is a register of the ALU's register file
// (R, or UR for uniform instructions).
func isFileReg(o ori.Operand, uniform bool) bool {
	if o.Kind != ori.OpdReg {
		return false
	}
	if uniform {
		return o.Reg.Class == ori.ClassUR
	}
	return o.Reg.Class == ori.ClassR
}

// swapFlip maps a comparison to the one that holds with the operands
// swapped.
var swapFlip = map[string]string{
	"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE",
	"LTU": "GTU", "GTU": "LTU", "LEU": "GEU", "GEU": "LEU",
}

// Legalize swaps in's sources where source A cannot be encoded and the
// operation allows it; it reports whether it changed in.
func Legalize(in *ori.Inst, arch int) bool {
	_ = arch // sm_75-sm_90 share the rules
	uni := in.Op.Has(ori.FUniform)
	s := in.Srcs
	if len(s) < 2 {
		return false
	}
	if zeroCToRZ(in, uni) {
		Legalize(in, arch)
		return true
	}
	if isFileReg(s[0], uni) {
		return legalizeC(in, uni)
	}
	if zeroRZ[in.Op] {
		// A zero immediate reads as the zero register: integer 0 and
		// f32 +0.0 are both the all-zero word. In A it makes the
		// instruction legal as it stands; in B it gives the swaps
		// below a register to move into A (SEL R, 0x1, 0x0, P).
		for j := 0; j < 2; j++ {
			if isZeroImm(s[j]) {
				s[j] = ori.R(zeroReg(uni))
				if j == 0 {
					legalizeC(in, uni)
					return true
				}
				Legalize(in, arch)
				return true
			}
		}
	}
	swap01 := func() { s[0], s[1] = s[1], s[0] }
	switch in.Op {
	case ori.OpIADD3, ori.OpUIADD3:
		if len(s) >= 3 {
			if isFileReg(s[1], uni) {
				swap01()
				legalizeC(in, uni)
				return true
			}
			if isFileReg(s[2], uni) {
				s[0], s[2] = s[2], s[0]
				return true
			}
		}
	case ori.OpIMAD, ori.OpUIMAD:
		if in.HasMod("SHL") {
			return false
		}
		if isFileReg(s[1], uni) {
			swap01()
			return true
		}
	case ori.OpFADD, ori.OpFMUL, ori.OpFFMA, ori.OpDADD, ori.OpDMUL, ori.OpDFMA,
		ori.OpHADD2, ori.OpHMUL2, ori.OpHFMA2:
		if isFileReg(s[1], uni) {
			swap01()
			return true
		}
	case ori.OpFMNMX, ori.OpIMNMX, ori.OpHMNMX2:
		if isFileReg(s[1], uni) {
			swap01()
			return true
		}
	case ori.OpSEL, ori.OpUSEL, ori.OpFSEL:
		if len(s) == 3 && isFileReg(s[1], uni) && s[2].Kind == ori.OpdReg {
			swap01()
			s[2].Not = !s[2].Not
			return true
		}
	case ori.OpISETP, ori.OpUISETP, ori.OpFSETP, ori.OpDSETP:
		if !isFileReg(s[1], uni) || len(in.Mods) == 0 {
			return false
		}
		cmp := in.Mods[0]
		switch cmp {
		case "EQ", "NE", "EQU", "NEU", "NUM", "NAN", "F", "T":
		default:
			f, ok := swapFlip[cmp]
			if !ok {
				return false
			}
			in.Mods = append([]string{f}, in.Mods[1:]...)
		}
		swap01()
		return true
	case ori.OpLOP3, ori.OpULOP3:
		if len(s) < 4 || s[3].Kind != ori.OpdImm {
			return false
		}
		for _, j := range []int{1, 2} {
			if isFileReg(s[j], uni) {
				s[0], s[j] = s[j], s[0]
				s[3].Imm = int64(permuteLUT(uint8(s[3].Imm), 0, j))
				legalizeC(in, uni)
				return true
			}
		}
	}
	return false
}

// legalizeC moves a non-register source C of IADD3 and LOP3 (which have
// no such form) into B when B is a register.
func legalizeC(in *ori.Inst, uni bool) bool {
	s := in.Srcs
	if len(s) < 3 || isFileReg(s[2], uni) || !isFileReg(s[1], uni) {
		return false
	}
	switch in.Op {
	case ori.OpIADD3, ori.OpUIADD3:
		s[1], s[2] = s[2], s[1]
		return true
	case ori.OpLOP3, ori.OpULOP3:
		if len(s) < 4 || s[3].Kind != ori.OpdImm {
			return false
		}
		s[1], s[2] = s[2], s[1]
		s[3].Imm = int64(permuteLUT(uint8(s[3].Imm), 1, 2))
		return true
	}
	return false
}

// permuteLUT returns the LOP3 truth table for the sources i and j
// swapped. Bit index of the table: a<<2 | b<<1 | c (a = 0xf0, b = 0xcc,
// c = 0xaa).
func permuteLUT(lut uint8, i, j int) uint8 {
	var out uint8
	for n := 0; n < 8; n++ {
		v := [3]int{n >> 2 & 1, n >> 1 & 1, n & 1}
		v[i], v[j] = v[j], v[i]
		if lut>>(v[0]<<2|v[1]<<1|v[2])&1 != 0 {
			out |= 1 << n
		}
	}
	return out
}

// zeroCToRZ replaces an immediate 0 in source C by RZ (URZ) where the
// word could not hold it: beside an immediate, constant or uniform
// register in B (IMAD R5 = R5, 0x1f, 0x0: one variable field), and in
// IMAD.HI, which has no immediate C. Elsewhere the immediate stays, so
// code that encodes keeps its listing.
func zeroCToRZ(in *ori.Inst, uni bool) bool {
	s := in.Srcs
	if !zeroC[in.Op] || len(s) < 3 || !isZeroImm(s[2]) {
		return false
	}
	hi := in.Op == ori.OpIMAD && len(in.Mods) > 0 && in.Mods[0] == "HI"
	if !hi && isFileReg(s[1], uni) {
		return false
	}
	s[2] = ori.R(zeroReg(uni))
	return true
}

// zeroC lists the ALU operations whose source C (Srcs[2]) takes any
// 32-bit register value (not LEA, whose third source is its shift, nor
// the SETP and SEL forms, whose third is a predicate).
var zeroC = map[ori.Opcode]bool{
	ori.OpIADD3: true, ori.OpUIADD3: true, ori.OpIMAD: true, ori.OpUIMAD: true,
	ori.OpLOP3: true, ori.OpULOP3: true, ori.OpFFMA: true, ori.OpSHF: true, ori.OpPRMT: true,
}

// zeroRZ lists the ALU operations whose sources A and B take any 32-bit
// register value, so that an immediate 0 there may become RZ (URZ).
var zeroRZ = map[ori.Opcode]bool{
	ori.OpIADD3: true, ori.OpUIADD3: true, ori.OpIMAD: true, ori.OpUIMAD: true,
	ori.OpLOP3: true, ori.OpULOP3: true, ori.OpSEL: true, ori.OpUSEL: true, ori.OpFSEL: true,
	ori.OpISETP: true, ori.OpUISETP: true, ori.OpFSETP: true, ori.OpIMNMX: true, ori.OpFMNMX: true,
	ori.OpFADD: true, ori.OpFMUL: true, ori.OpFFMA: true, ori.OpSHF: true, ori.OpSGXT: true,
	ori.OpPRMT: true, ori.OpLEA: true,
}

// isZeroImm reports whether o is an integer or f32 immediate 0 (+0.0,
// not -0.0: the word of -0.0 is not zero).
func isZeroImm(o ori.Operand) bool {
	return o.Kind == ori.OpdImm && o.FKind != ori.ImmF64 && uint32(o.Imm) == 0 && !o.Neg && !o.Abs && !o.Not
}

func zeroReg(uniform bool) ori.Reg {
	if uniform {
		return ori.URZ
	}
	return ori.RZ
}
