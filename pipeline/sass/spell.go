package sass

// nvdisasm's spelling of an instruction. Ori keeps every modifier and
// operand the simulator and the encoder need (I2F.F32.S32.RN, IMAD.SHL's
// shift count, -0x1); nvdisasm leaves defaults out, names some aliases
// and prints most immediates as unsigned 32-bit words. The printer
// rewrites a copy of each instruction into nvdisasm's terms before it
// prints it, so orilab's listing reads as nvdisasm's does for the same
// words (the nvdisasm test in package pipeline compares them). The rules
// were measured with nvdisasm 13.5 on ptxas's and orilab's words.

import (
	"math/bits"
	"slices"

	"orilab/pipeline/ori"
)

// spell returns a copy of in as nvdisasm prints it for SM arch.
func spell(in *ori.Inst, arch int) *ori.Inst { return spellIn(nil, in, arch) }

// spellScratch holds the copy spellIn makes, reused from instruction to
// instruction by one printer: the copy lives only while the instruction
// is printed, and cloning each one was most of the printer's allocations.
type spellScratch struct {
	inst ori.Inst
	ops  []ori.Operand
	mods []string
}

// spellIn is spell with the copy made in sc (a fresh one when sc is nil);
// it is valid until the next call with sc. The copy's operand lists are
// capped at their lengths, so that spelling rules that append to one
// cannot overwrite the other.
func spellIn(sc *spellScratch, in *ori.Inst, arch int) *ori.Inst {
	var c *ori.Inst
	if sc == nil {
		c = in.Clone()
		c.Mods = slices.Clone(in.Mods)
	} else {
		sc.inst = *in
		c = &sc.inst
		sc.ops = append(append(sc.ops[:0], in.Dsts...), in.Srcs...)
		nd, no := len(in.Dsts), len(sc.ops)
		c.Dsts, c.Srcs = nil, nil
		if nd > 0 {
			c.Dsts = sc.ops[:nd:nd]
		}
		if no > nd {
			c.Srcs = sc.ops[nd:no:no]
		}
		c.Mods = nil
		if len(in.Mods) > 0 {
			sc.mods = append(sc.mods[:0], in.Mods...)
			c.Mods = sc.mods
		}
	}
	if arch < 90 {
		// The memory descriptor is in the word before sm_90 too (ptxas
		// writes UR4 there), but nvdisasm prints desc[URx] only from
		// sm_90 (measured with nvdisasm 13.5 on ptxas's sm_80 words).
		for i := range c.Srcs {
			c.Srcs[i].HasDesc = false
		}
		for i := range c.Dsts {
			c.Dsts[i].HasDesc = false
		}
	}
	fimm := floatImm(in)
	drop := func(i int) { c.Mods = slices.Delete(c.Mods, i, i+1) }
	switch c.Op {
	case ori.OpI2F:
		// Mods: result type, source type, rounding. F32 results, S32
		// sources and round-to-nearest are the defaults; nvdisasm still
		// prints .RN for an F32 result from a 64-bit integer.
		if len(c.Mods) >= 2 && c.Mods[0] == "F32" && c.Mods[len(c.Mods)-1] == "RN" &&
			(len(c.Mods) == 2 || len(c.Mods) == 3 && (c.Mods[1] == "S32" || c.Mods[1] == "U32")) {
			c.Mods = c.Mods[1 : len(c.Mods)-1]
		}
		if len(c.Mods) > 0 && c.Mods[0] == "F32" {
			drop(0)
		}
		if i := slices.Index(c.Mods, "S32"); i >= 0 {
			drop(i)
		}
		if len(c.Mods) >= 2 && len(c.Mods) <= 3 && c.Mods[0] == "F64" && c.Mods[len(c.Mods)-1] == "RN" {
			drop(len(c.Mods) - 1)
		}
		// An f16 or bf16 result never names RN, whatever the source
		// (measured: I2F.F16, I2F.F16.U32, I2F.F16.S64, I2F.BF16.S16,
		// I2F.F16.U16 for round-to-nearest words).
		if len(c.Mods) >= 2 && (c.Mods[0] == "F16" || c.Mods[0] == "BF16") && c.Mods[len(c.Mods)-1] == "RN" {
			drop(len(c.Mods) - 1)
		}
	case ori.OpFLO:
		// The signed search is the default (FLO R11, R10 for bfind.s32).
		if i := slices.Index(c.Mods, "S32"); i >= 0 {
			drop(i)
		}
	case ori.OpF2I:
		// Mods: result type, source type, ...; S32 results and F32
		// sources are the defaults.
		if len(c.Mods) > 0 && c.Mods[0] == "F32" {
			drop(0)
		} else if len(c.Mods) > 1 && isIntType(c.Mods[0]) && c.Mods[1] == "F32" {
			drop(1)
		}
		if len(c.Mods) > 0 && c.Mods[0] == "S32" {
			drop(0)
		}
		// .FTZ comes first (measured: ptxas's F2I.FTZ.U32.TRUNC.NTZ).
		if i := slices.Index(c.Mods, "FTZ"); i > 0 {
			c.Mods = append([]string{"FTZ"}, slices.Delete(c.Mods, i, i+1)...)
		}
	case ori.OpF2F:
		// F64 to F32 and conversions between F32 and F16 round to
		// nearest by default; .FTZ comes before the types.
		narrow := len(c.Mods) >= 2 && (c.Mods[0] == "F32" && c.Mods[1] == "F64" || (c.Mods[0] == "F16" || c.Mods[0] == "BF16") && (c.Mods[1] == "F32" || c.Mods[1] == "F64") || c.Mods[0] == "F32" && c.Mods[1] == "F16")
		if len(c.Mods) >= 3 && narrow && c.Mods[len(c.Mods)-1] == "RN" &&
			(len(c.Mods) == 3 || len(c.Mods) == 4 && c.Mods[2] == "FTZ") {
			drop(len(c.Mods) - 1)
		}
		if len(c.Mods) >= 3 && isFloatType(c.Mods[0]) && isFloatType(c.Mods[1]) && c.Mods[2] == "FTZ" {
			c.Mods = append([]string{"FTZ"}, slices.Delete(c.Mods, 2, 3)...)
		}
	case ori.OpFRND:
		// The rounding is last; RN is the default, the others have
		// names of their own.
		if n := len(c.Mods); n > 0 {
			switch c.Mods[n-1] {
			case "RN":
				drop(n - 1)
			case "RM":
				c.Mods[n-1] = "FLOOR"
			case "RP":
				c.Mods[n-1] = "CEIL"
			case "RZ":
				c.Mods[n-1] = "TRUNC"
			}
		}
	case ori.OpATOM, ori.OpATOMG, ori.OpATOMS, ori.OpRED:
		// .U32 is the default type. CAS prints its 64-bit address
		// without .64.
		i := 0
		if len(c.Mods) > 0 && c.Mods[0] == "E" {
			i = 1
		}
		j := i + 1 // the type follows the operation
		if len(c.Mods) > i+1 && c.Mods[i] == "CAST" && c.Mods[i+1] == "SPIN" {
			j = i + 2
		}
		if len(c.Mods) > j && c.Mods[j] == "U32" {
			drop(j)
		}
		// U64 is the word's 64 (forms.go's atomPre).
		if k := slices.Index(c.Mods, "U64"); k >= 0 {
			c.Mods[k] = "64"
		}
		if c.Op != ori.OpATOMS && len(c.Mods) > 1 && c.Mods[0] == "E" && c.Mods[1] == "CAS" {
			for k, o := range c.Srcs {
				if o.Kind == ori.OpdMem && o.HasBase {
					c.Srcs[k].Reg.Words = 1
				}
			}
		}
	case ori.OpFCHK:
		if len(c.Mods) > 0 && c.Mods[0] == "DIVIDE" {
			drop(0)
		}
	case ori.OpLD, ori.OpST, ori.OpLDG, ori.OpSTG:
		// The access size comes before the memory ordering.
		if len(c.Mods) > 0 && c.Mods[0] == "E" {
			n := 0
			switch {
			case len(c.Mods) > 2 && c.Mods[1] == "STRONG":
				n = 2
			case len(c.Mods) > 1 && c.Mods[1] == "CONSTANT":
				n = 1
			}
			if n > 0 && len(c.Mods) > 1+n && isSize(c.Mods[1+n]) {
				size := c.Mods[1+n]
				c.Mods = slices.Insert(slices.Delete(c.Mods, 1+n, 2+n), 1, size)
			}
		}
		if arch > 0 && arch < 80 {
			// sm_75: nvdisasm names a weak access's scope (.SYS) and
			// a constant one's (.CONSTANT.SYS), measured on ptxas's
			// words: LDG.E.SYS R2, [R2]; LDG.E.64.CONSTANT.SYS R20,
			// [R2+0x28]; LD.E.S16.SYS R29, [R16+0x10].
			switch {
			case slices.Contains(c.Mods, "STRONG"):
			case slices.Contains(c.Mods, "CONSTANT"):
				i := slices.Index(c.Mods, "CONSTANT")
				c.Mods = slices.Insert(c.Mods, i+1, "SYS")
			default:
				c.Mods = append(c.Mods, "SYS")
			}
		}
	}
	if arch > 0 && arch < 80 {
		switch c.Op {
		case ori.OpLD, ori.OpST, ori.OpLDG, ori.OpSTG, ori.OpATOM, ori.OpATOMG, ori.OpRED, ori.OpSULD, ori.OpSUST:
			// sm_75 prints a 64-bit address register without .64
			// (ATOMG.E.ADD.STRONG.GPU PT, R27, [R24], R26) and the
			// .cta scope as STRONG.CTA, the word's (forms.go's
			// order75).
			for k, o := range c.Srcs {
				if o.Kind == ori.OpdMem && o.HasBase {
					c.Srcs[k].Reg.Words = 1
				}
			}
			for i := 0; i+1 < len(c.Mods); i++ {
				if c.Mods[i] == "STRONG" && c.Mods[i+1] == "SM" {
					c.Mods[i+1] = "CTA"
				}
			}
		}
	}
	switch c.Op {
	case ori.OpMEMBAR:
		if len(c.Mods) == 1 {
			switch c.Mods[0] {
			case "CTA", "SM", "GPU", "SYS":
				c.Mods = []string{"SC", c.Mods[0]}
			}
		}
	case ori.OpVOTE:
		// A vote whose mask nobody reads prints no RZ result.
		if len(c.Dsts) > 1 && c.Dsts[0].Kind == ori.OpdReg && c.Dsts[0].Reg == ori.RZ {
			c.Dsts = c.Dsts[1:]
		}
	case ori.OpIADD3, ori.OpUIADD3:
		// An absent carry-out is PT in the word; nvdisasm prints none.
		for len(c.Dsts) > 1 {
			o := c.Dsts[len(c.Dsts)-1]
			if o.Kind != ori.OpdReg || (o.Reg != ori.PT && o.Reg != ori.UPT) || o.Not {
				break
			}
			c.Dsts = c.Dsts[:len(c.Dsts)-1]
		}
	case ori.OpIMAD:
		spellIMAD(c)
	case ori.OpLOP3, ori.OpULOP3:
		// A PT predicate result prints nothing (LOP3.LUT R0, R0, R3,
		// R2, 0x3f, !PT for Ori's LOP3.LUT R0, PT = ...).
		if len(c.Dsts) == 2 && c.Dsts[1].Kind == ori.OpdReg && (c.Dsts[1].Reg == ori.PT || c.Dsts[1].Reg == ori.UPT) && !c.Dsts[1].Not {
			c.Dsts = c.Dsts[:1]
		}
	case ori.OpREDUX:
		// AND is the default operation (nvdisasm: REDUX UR62, R0).
		if len(c.Mods) > 0 && c.Mods[0] == "AND" {
			drop(0)
		}
	case ori.OpF2FP:
		// The tf32 conversion reads only B (A is RZ in the word) and
		// prints .RELU first (F2FP.RELU.TF32.F32.PACK_B R13, R2).
		if len(c.Mods) > 0 && c.Mods[0] == "SATFINITE" && c.Mods[len(c.Mods)-1] == "PACK_AB" {
			// The fp8 pack takes its high half from C (RZ).
			c.Mods[len(c.Mods)-1] = "PACK_AB_MERGE_C"
			if len(c.Srcs) == 2 {
				c.Srcs = append(c.Srcs, ori.R(ori.RZ))
			}
		}
		if len(c.Mods) >= 3 && c.Mods[0] == "F16" && c.Mods[len(c.Mods)-1] == "UNPACK_B" &&
			len(c.Srcs) == 2 && c.Srcs[0].Kind == ori.OpdReg && c.Srcs[0].Reg == ori.RZ {
			c.Srcs = c.Srcs[1:]
		}
		if len(c.Mods) >= 3 && c.Mods[0] == "TF32" {
			if i := slices.Index(c.Mods, "RELU"); i >= 0 {
				c.Mods = append([]string{"RELU"}, slices.Delete(c.Mods, i, i+1)...)
			}
			if len(c.Srcs) == 2 && c.Srcs[0].Kind == ori.OpdReg && c.Srcs[0].Reg == ori.RZ {
				c.Srcs = c.Srcs[1:]
			}
		}
		// sm_89 and later name the source type of a plain pack
		// (F2FP.BF16.F32.PACK_AB, F2FP.F16.F32.PACK_AB).
		if arch >= 89 && !slices.Contains(c.Mods, "F32") {
			switch {
			case len(c.Mods) > 0 && c.Mods[0] == "PACK_AB":
				c.Mods = append([]string{"F16", "F32"}, c.Mods...)
			case len(c.Mods) > 1 && c.Mods[0] == "BF16" && c.Mods[1] == "PACK_AB":
				c.Mods = slices.Insert(c.Mods, 1, "F32")
			}
		}
	case ori.OpDMMA:
		// nvdisasm -b SM90 spells the shape of the same word 8x8x4
		// (measured on ptxas 13.0's DMMA words for sm_80 and sm_90).
		if arch >= 90 && len(c.Mods) > 0 && c.Mods[0] == "884" {
			c.Mods[0] = "8x8x4"
		}
	case ori.OpWARPSYNC:
		// sm_90 has WARPSYNC.ALL, which the encoder uses for the full
		// mask (forms.go, sAllLanes).
		if arch >= 90 && len(c.Mods) == 0 && len(c.Srcs) == 1 && c.Srcs[0].Kind == ori.OpdImm && uint32(c.Srcs[0].Imm) == 0xffffffff {
			c.Mods = []string{"ALL"}
			c.Srcs = nil
		}
	}
	for k, o := range c.Srcs {
		switch {
		case o.Kind == ori.OpdMem && !o.HasBase && o.Imm == 0:
			// An absolute address 0 is [RZ].
			c.Srcs[k].HasBase, c.Srcs[k].Reg = true, ori.RZ
		case o.Kind == ori.OpdCBank && c.Op == ori.OpLDC && !o.HasBase && o.Imm == 0:
			c.Srcs[k].HasBase, c.Srcs[k].Reg = true, ori.RZ
		case o.Kind == ori.OpdImm:
			c.Srcs[k] = spellImm(c.Op, o, fimm)
		}
	}
	return c
}

// spellImm returns an immediate as nvdisasm prints it in an instruction
// of op: f32 values in float-point slots, unsigned words elsewhere except
// in the integer arithmetic that prints signed values.
func spellImm(op ori.Opcode, o ori.Operand, float bool) ori.Operand {
	if o.FKind == ori.ImmF64 {
		return o
	}
	if float {
		o.FKind = ori.ImmF32
		o.Imm = int64(uint32(o.Imm))
		return o
	}
	o.FKind = ori.ImmInt
	if signedImmOps[op] {
		o.Imm = int64(int32(uint32(o.Imm)))
	} else {
		o.Imm = int64(uint32(o.Imm))
	}
	return o
}

// floatImm reports whether in's 32-bit immediates are f32 values: the
// f32 arithmetic, and conversions and roundings from f32.
func floatImm(in *ori.Inst) bool {
	switch in.Op {
	case ori.OpF2F:
		return len(in.Mods) > 1 && in.Mods[1] == "F32"
	case ori.OpF2I, ori.OpFRND:
		return !in.HasMod("F64")
	}
	return floatImmOps[in.Op]
}

// floatImmOps are the opcodes whose 32-bit immediates nvdisasm prints as
// f32 values (their forms decode them as ori.ImmF32, forms.go).
var floatImmOps = map[ori.Opcode]bool{
	ori.OpFADD: true, ori.OpFMUL: true, ori.OpFFMA: true, ori.OpFSETP: true,
	ori.OpFMNMX: true, ori.OpFSEL: true, ori.OpFSET: true, ori.OpMUFU: true, ori.OpF2FP: true, ori.OpFCHK: true,
}

// signedImmOps are the opcodes whose immediates nvdisasm prints signed
// (-0x1); every other integer immediate prints as an unsigned word.
var signedImmOps = map[ori.Opcode]bool{
	ori.OpIADD3: true, ori.OpUIADD3: true, ori.OpIMAD: true, ori.OpUIMAD: true,
	ori.OpISETP: true, ori.OpUISETP: true, ori.OpIMNMX: true,
}

// spellIMAD writes IMAD as nvdisasm's aliases: IMAD.SHL for a power-of-two
// multiplier and no addend, IMAD.MOV for RZ * RZ + c, IMAD.IADD for a
// multiplier of 1. Ori's own IMAD.SHL holds a shift count; the word (and
// nvdisasm) hold the multiplier 1 << k.
func spellIMAD(c *ori.Inst) {
	if len(c.Mods) > 0 && c.Mods[0] == "SHL" && len(c.Srcs) > 1 && c.Srcs[1].Kind == ori.OpdImm {
		c.Mods = c.Mods[1:]
		c.Srcs[1].Imm = int64(int32(uint32(1) << uint(c.Srcs[1].Imm&31)))
	}
	if len(c.Dsts) != 1 || len(c.Srcs) != 3 || !(len(c.Mods) == 0 || len(c.Mods) == 1 && c.Mods[0] == "U32") {
		return
	}
	a, b, cc := c.Srcs[0], c.Srcs[1], c.Srcs[2]
	isRZ := func(o ori.Operand) bool {
		return o.Kind == ori.OpdReg && o.Reg == ori.RZ && !o.Reuse && !o.Neg && !o.Not
	}
	alias := ""
	// Measured with nvdisasm 13.5 -b SM80/SM90: a zero product (RZ in A
	// or B) is MOV whatever B and C are (IMAD.MOV R4, RZ, 0x1f, R16;
	// IMAD.MOV R4, R5, RZ, R16; IMAD.MOV R4, RZ, 0x2, RZ), except with a
	// uniform C (IMAD.U32 R3, RZ, RZ, UR4); over IMAD Rd, Ra, 1<<k, RZ
	// for every k, signed and .U32: SHL for k = 1-30 except 16 (0x10000,
	// the bf16-to-f32 shift, prints as plain IMAD), MOV for k = 0.
	switch {
	case (isRZ(a) || isRZ(b)) && !(cc.Kind == ori.OpdReg && cc.Reg.Class == ori.ClassUR):
		alias = "MOV"
	case b.Kind == ori.OpdImm && b.FKind == ori.ImmInt && b.Imm == 1 && isRZ(cc):
		alias = "MOV"
	case b.Kind == ori.OpdImm && b.FKind == ori.ImmInt && b.Imm > 1 && b.Imm <= 1<<30 && b.Imm != 1<<16 && bits.OnesCount64(uint64(b.Imm)) == 1 && isRZ(cc):
		alias = "SHL"
	case b.Kind == ori.OpdImm && b.FKind == ori.ImmInt && b.Imm == 1:
		alias = "IADD"
	}
	if alias != "" {
		c.Mods = append([]string{alias}, c.Mods...)
	}
}

func isIntType(m string) bool {
	switch m {
	case "S32", "U32", "S64", "U64", "S16", "U16", "S8", "U8":
		return true
	}
	return false
}

func isFloatType(m string) bool {
	switch m {
	case "F16", "F32", "F64", "BF16":
		return true
	}
	return false
}

func isSize(m string) bool {
	switch m {
	case "U8", "S8", "U16", "S16", "64", "128":
		return true
	}
	return false
}
