package sass

// The encoding tables: one form per opcode variant that orilab's back end
// emits, for sm_75-sm_90 (one table: these targets share the Volta word
// layout; where a form differs per target it says so with arch/archMax).
//
// Provenance. Opcode numbers, operand positions and modifier values are
// facts from three sources, cross-checked:
//   - ptxas 13.0.88's own words for the testdata and corpus kernels,
//     disassembled by nvdisasm 13.5 -hex (pipeline/sass/internal/gen
//     collects them into testdata/ptxas/; TestDecodePtxasWords decodes
//     them with these tables);
//   - Mesa NAK's sm70_encode.rs (bit positions and values; facts only);
//   - nvdisasm -b SMxx over raw words orilab writes, which is the test of
//     record (TestNvdisasm* in package pipeline): a field that is wrong
//     shows up as a text mismatch there.
// The tmpl fields are ptxas's values for fields orilab does not model
// (cache eviction "normal", the unused predicate fields), copied from
// its words.

import (
	"fmt"
	"slices"
	"sync"

	"orilab/pipeline/ori"
)

// Operand slot shorthands.
var (
	dR   = slot{k: sR, pos: 16}
	dR64 = slot{k: sR, pos: 16, words: 2}
	dUR  = slot{k: sUR, pos: 16}
	// pd81/pd84: predicate results at 81 and 84, PT when absent.
	pd81 = slot{k: sP, pos: 81, opt: true}
	pd84 = slot{k: sP, pos: 84, opt: true}
	// pAcc: the accumulating predicate source of SETP forms and the
	// select predicate of SEL/FSEL/IMNMX.
	pAcc  = slot{k: sP, pos: 87, not: 90}
	upAcc = slot{k: sUP, pos: 87, not: 90}
	a     = slot{k: sA}
	aNeg  = slot{k: sA, mod: mNeg}
	aFP   = slot{k: sA, mod: mNeg | mAbs}
	b     = slot{k: sB}
	bNeg  = slot{k: sB, mod: mNeg}
	bFP   = slot{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}
	bInt  = slot{k: sB, signed: true}
	c     = slot{k: sC}
	cNeg  = slot{k: sC, mod: mNeg, signed: true}
	cFP   = slot{k: sC, mod: mNeg | mAbs, fk: ori.ImmF32}
	mem   = slot{k: sMem}
	// mem32: sm_75's generic LD and ST, a signed 32-bit offset at 32.
	mem32 = slot{k: sMem, pos: 32, n: 32}
)

// An unused predicate field is written {pos, 3, 7}: three bits holding
// PT.

// Modifier groups shared by several forms.
var (
	gFTZ   = group{pos: 80, n: 1, names: modNames{{0, ""}, {1, "FTZ"}}}
	gSAT   = group{pos: 77, n: 1, names: modNames{{0, ""}, {1, "SAT"}}}
	gRnd   = group{pos: 78, n: 2, names: modNames{{0, ""}, {1, "RM"}, {2, "RP"}, {3, "RZ"}}}
	gRndRN = group{pos: 78, n: 2, names: modNames{{0, "RN"}, {1, "RM"}, {2, "RP"}, {3, "RZ"}}, implicit: true}
	gBool  = group{pos: 74, n: 2, names: modNames{{0, "AND"}, {1, "OR"}, {2, "XOR"}}}
	gICmp  = group{pos: 76, n: 3, names: modNames{{0, "F"}, {1, "LT"}, {2, "EQ"}, {3, "LE"}, {4, "GT"}, {5, "NE"}, {6, "GE"}, {7, "T"}}}
	gFCmp  = group{pos: 76, n: 4, names: modNames{{0, "F"}, {1, "LT"}, {2, "EQ"}, {3, "LE"}, {4, "GT"}, {5, "NE"}, {6, "GE"}, {7, "NUM"}, {8, "NAN"}, {9, "LTU"}, {10, "EQU"}, {11, "LEU"}, {12, "GTU"}, {13, "NEU"}, {14, "GEU"}, {15, "T"}}}
	// DSETP's comparison: 0 and 15 are MIN and MAX, not F and T
	// (measured: nvdisasm over every value of bits 76-79 of ptxas's
	// DSETP.MAX.AND word), so an Ori DSETP.F or .T has no encoding.
	gDCmp = group{pos: 76, n: 4, names: modNames{{0, "MIN"}, {1, "LT"}, {2, "EQ"}, {3, "LE"}, {4, "GT"}, {5, "NE"}, {6, "GE"}, {7, "NUM"}, {8, "NAN"}, {9, "LTU"}, {10, "EQU"}, {11, "LEU"}, {12, "GTU"}, {13, "NEU"}, {14, "GEU"}, {15, "MAX"}}}
	gU32  = group{pos: 73, n: 1, names: modNames{{0, "U32"}, {1, ""}}}
	gX    = group{pos: 74, n: 1, names: modNames{{0, ""}, {1, "X"}}}
	// gMemType: the access size of loads and stores.
	gMemType = group{pos: 73, n: 3, names: modNames{{0, "U8"}, {1, "S8"}, {2, "U16"}, {3, "S16"}, {4, ""}, {5, "64"}, {6, "128"}}}
	// gOrder: memory ordering and scope of global and generic accesses
	// on sm_80 and later (NAK's set_mem_order; "" is weak).
	gOrder = group{pos: 77, n: 4, names: modNames{{0, ""}, {4, "CONSTANT"}, {5, "STRONG.SM"}, {7, "STRONG.GPU"}, {0xa, "STRONG.SYS"}}}
	// gOrder75: the same field on sm_75, two groups of two bits that
	// nvdisasm prints as one name: bits 79-80 the semantics (0
	// CONSTANT, 1 weak, 2 STRONG, 3 MMIO) and 77-78 the scope (0 CTA,
	// 1 SM, 2 GPU, 3 SYS). Measured: nvdisasm -b SM75 over all sixteen
	// values in ptxas 13.0.88's LDG word, and ptxas's words for ld/st
	// .global and generic, weak, .nc, .volatile and .relaxed at every
	// scope, atom and red, suld and sust (weak is 7, which nvdisasm
	// prints .SYS; .nc 3, CONSTANT.SYS; .volatile 0xb, STRONG.SYS;
	// .cta 8, STRONG.CTA). spell.go prints the scope ptxas's words
	// name; orilab's STRONG.SM (the .cta scope on sm_80 and later) is
	// written as STRONG.CTA (order75), so 9 has no name here.
	gOrder75  = group{pos: 77, n: 4, names: modNames{{3, "CONSTANT"}, {7, ""}, {8, "STRONG.CTA"}, {0xa, "STRONG.GPU"}, {0xb, "STRONG.SYS"}}}
	gE        = group{pos: 72, n: 1, names: modNames{{1, "E"}}}
	gAtom     = group{pos: 87, n: 4, names: atomNames}
	atomNames = modNames{{0, "ADD"}, {1, "MIN"}, {2, "MAX"}, {3, "INC"}, {4, "DEC"}, {5, "AND"}, {6, "OR"}, {7, "XOR"}, {8, "EXCH"}}
	// gAtomT: the type of ATOMG, ATOM, RED and ATOMS (sm_75-sm_89, and
	// ATOMS on sm_90); gAtomT90 the integer types of ATOMG, ATOM and RED
	// on sm_90, gAtomF90 the float types of their float opcodes there.
	// Measured: ptxas 13.0.88's words for atom.global/generic and
	// red.global of every PTX type on sm_80 and sm_90 (MIN.S64 is 5 on
	// sm_80 and 3 on sm_90; nvdisasm -b SM90 prints 5 as INVALID5).
	// Ori's U64 is "64" in the word (atomPre).
	gAtomT   = group{pos: 73, n: 3, names: modNames{{0, "U32"}, {1, "S32"}, {2, "64"}, {3, "F32.FTZ.RN"}, {4, "F16x2.RN"}, {5, "S64"}, {6, "F64.RN"}}, implicit: true}
	gAtomT90 = group{pos: 73, n: 3, names: modNames{{0, "U32"}, {1, "S32"}, {2, "64"}, {3, "S64"}}, implicit: true}
	gAtomF90 = group{pos: 73, n: 4, names: modNames{{0, "F16x2.RN"}, {3, "BF16x2.RN"}, {9, "F32.FTZ.RN"}, {15, "F64.RN"}}}
)

// formIndex holds the forms of each opcode (of) and all of them in the
// decoder's search order (all).
type formIndex struct {
	of  map[ori.Opcode][]*form
	all []*form
}

// forms returns the form index, built on first use rather than at
// initialization, which every orilab process paid (also those that
// encode nothing: --help, the workbench before its first compile).
var forms = sync.OnceValue(func() *formIndex {
	x := &formIndex{of: map[ori.Opcode][]*form{}}
	for _, f := range append(barForms(), formTable...) {
		x.of[f.op] = append(x.of[f.op], f)
	}
	x.all = sortedForms(x.of)
	return x
})

var formTable = []*form{
	// Integer ALU.
	{op: ori.OpIADD3, opc: 0x010, noCVar: true, alu: true, notX: "X",
		dsts: []slot{dR, pd81, pd84},
		srcs: []slot{aNeg, {k: sB, mod: mNeg, signed: true}, cNeg,
			{k: sP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"},
			{k: sP, pos: 77, not: 80, opt: true, dfltNot: true, keepIf: "X"}},
		mods: []group{gX}},
	{op: ori.OpUIADD3, opc: 0x090, noCVar: true, alu: true, uni: true, notX: "X",
		dsts: []slot{dUR, {k: sUP, pos: 81, opt: true}, {k: sUP, pos: 84, opt: true}},
		srcs: []slot{aNeg, {k: sB, mod: mNeg, signed: true}, cNeg,
			{k: sUP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"},
			{k: sUP, pos: 77, not: 80, opt: true, dfltNot: true, keepIf: "X"}},
		mods: []group{gX}},
	{op: ori.OpIMAD, opc: 0x024, alu: true,
		dsts: []slot{dR, pd81},
		srcs: []slot{a, bInt, cNeg, {k: sP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"}},
		mods: []group{gU32, gX}},
	{op: ori.OpIMAD, key: []string{"SHL"}, opc: 0x024, alu: true, pre: imadSHL, encodeOnly: true,
		dsts: []slot{dR, pd81},
		srcs: []slot{a, bInt, cNeg, {k: sP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"}},
		mods: []group{gU32, gX}},
	{op: ori.OpIMAD, key: []string{"WIDE"}, opc: 0x025, alu: true,
		dsts: []slot{dR64, pd81},
		srcs: []slot{a, bInt, {k: sC, mod: mNeg, signed: true, words: 2}, {k: sP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"}},
		mods: []group{gU32, gX}},
	// IMAD.HI has no immediate C (nvdisasm -b SM80/SM90 rejects form 2
	// and reads forms 1 and 3-7).
	{op: ori.OpIMAD, key: []string{"HI"}, opc: 0x027, alu: true, pre: noImmC,
		dsts: []slot{dR, pd81},
		srcs: []slot{a, bInt, cNeg, {k: sP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"}},
		mods: []group{gU32, gX}},
	{op: ori.OpUIMAD, opc: 0x0a4, alu: true, uni: true,
		dsts: []slot{dUR},
		srcs: []slot{a, bInt, cNeg},
		mods: []group{gU32}, tmpl: []fix{{81, 3, 7}}},
	{op: ori.OpUIMAD, key: []string{"WIDE"}, opc: 0x0a5, alu: true, uni: true,
		dsts: []slot{{k: sUR, pos: 16, words: 2}},
		srcs: []slot{a, bInt, cNeg},
		mods: []group{gU32}, tmpl: []fix{{81, 3, 7}}},
	{op: ori.OpISETP, opc: 0x00c, alu: true,
		dsts: []slot{{k: sP, pos: 81}, {k: sP, pos: 84}},
		srcs: []slot{a, bInt, pAcc, {k: sP, pos: 68, not: 71, opt: true, keepIf: "EX"}},
		mods: []group{gICmp, gU32, gBool, {pos: 72, n: 1, names: modNames{{0, ""}, {1, "EX"}}}}},
	{op: ori.OpUISETP, opc: 0x08c, alu: true, uni: true,
		dsts: []slot{{k: sUP, pos: 81}, {k: sUP, pos: 84}},
		srcs: []slot{a, bInt, upAcc, {k: sUP, pos: 68, not: 71, opt: true, keepIf: "EX"}},
		mods: []group{gICmp, gU32, gBool, {pos: 72, n: 1, names: modNames{{0, ""}, {1, "EX"}}}}},
	{op: ori.OpIMNMX, opc: 0x017, alu: true,
		dsts: []slot{dR}, srcs: []slot{a, bInt, pAcc}, mods: []group{gU32}},
	{op: ori.OpIABS, opc: 0x013, alu: true, dsts: []slot{dR}, srcs: []slot{bInt}},
	{op: ori.OpLOP3, key: []string{"LUT"}, opc: 0x012, noCVar: true, alu: true,
		dsts: []slot{dR, pd81},
		srcs: []slot{a, b, c, {k: sImm, pos: 72, n: 8}, {k: sP, pos: 87, not: 90}},
		mods: []group{{pos: 80, n: 1, names: modNames{{0, ""}, {1, "PAND"}}}}},
	{op: ori.OpULOP3, key: []string{"LUT"}, opc: 0x092, noCVar: true, alu: true, uni: true,
		dsts: []slot{dUR, {k: sUP, pos: 81, opt: true}},
		srcs: []slot{a, b, c, {k: sImm, pos: 72, n: 8}, {k: sUP, pos: 87, not: 90}}},
	{op: ori.OpPLOP3, key: []string{"LUT"}, opc: 0x81c,
		dsts: []slot{{k: sP, pos: 81}, {k: sP, pos: 84}},
		srcs: []slot{{k: sP, pos: 87, not: 90}, {k: sP, pos: 77, not: 80}, {k: sP, pos: 68, not: 71, ubit: 67},
			{k: sLUT2}, {k: sImm, pos: 16, n: 8}}},
	{op: ori.OpSHF, opc: 0x019, noCVar: true, alu: true,
		dsts: []slot{dR}, srcs: []slot{a, b, c},
		mods: []group{{pos: 76, n: 1, names: modNames{{0, "L"}, {1, "R"}}}, {pos: 75, n: 1, names: modNames{{0, ""}, {1, "W"}}},
			{pos: 73, n: 2, names: modNames{{0, "S64"}, {1, "U64"}, {2, "S32"}, {3, "U32"}}}, {pos: 80, n: 1, names: modNames{{0, ""}, {1, "HI"}}}}},
	{op: ori.OpUSHF, opc: 0x099, noCVar: true, alu: true, uni: true,
		dsts: []slot{dUR}, srcs: []slot{a, b, c},
		mods: []group{{pos: 76, n: 1, names: modNames{{0, "L"}, {1, "R"}}}, {pos: 75, n: 1, names: modNames{{0, ""}, {1, "W"}}},
			{pos: 73, n: 2, names: modNames{{0, "S64"}, {1, "U64"}, {2, "S32"}, {3, "U32"}}}, {pos: 80, n: 1, names: modNames{{0, ""}, {1, "HI"}}}}},
	{op: ori.OpLEA, opc: 0x011, alu: true, notX: "X",
		dsts: []slot{dR, pd81},
		srcs: []slot{aNeg, b, {k: sImm, pos: 75, n: 5}},
		fix:  []fix{{80, 1, 0}}, tmpl: []fix{{64, 8, 0xff}, {87, 4, 0xf}},
		mods: []group{gX}},
	{op: ori.OpLEA, opc: 0x011, alu: true, notX: "X",
		dsts: []slot{dR, pd81},
		srcs: []slot{aNeg, b, c, {k: sImm, pos: 75, n: 5}, {k: sP, pos: 87, not: 90, opt: true, dfltNot: true, keepIf: "X"}},
		fix:  []fix{{80, 1, 1}},
		mods: []group{{pos: 80, n: 1, names: modNames{{1, "HI"}}}, gX}},
	// ULEA UR4, UR5, UR4, 0x18 is ptxas's 0x0000000405047291,
	// 0x002fcc000f8ec03f (sm_90, the shared-address sequence): C is
	// URZ and bits 87-91 are set.
	{op: ori.OpULEA, opc: 0x091, alu: true, uni: true,
		dsts: []slot{dUR},
		srcs: []slot{aNeg, b, {k: sImm, pos: 75, n: 5}},
		fix:  []fix{{80, 1, 0}}, tmpl: []fix{{64, 8, 0x3f}, {81, 3, 7}, {87, 5, 0x1f}}},
	{op: ori.OpPRMT, opc: 0x016, noCVar: true, alu: true,
		dsts: []slot{dR}, srcs: []slot{a, b, c},
		mods: []group{{pos: 72, n: 3, names: modNames{{0, ""}, {1, "F4E"}, {2, "B4E"}, {3, "RC8"}, {4, "ECL"}, {5, "ECR"}, {6, "RC16"}}}}},
	{op: ori.OpSEL, opc: 0x007, alu: true, dsts: []slot{dR}, srcs: []slot{a, bInt, pAcc}},
	{op: ori.OpUSEL, opc: 0x087, alu: true, uni: true, dsts: []slot{dUR}, srcs: []slot{a, bInt, upAcc}},
	{op: ori.OpPOPC, opc: 0x109, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNot}}},
	// FLO: bit 73 set is the signed search (bfind.s32), which nvdisasm
	// prints as plain FLO and Ori spells FLO.S32 (the simulator reads
	// it; spell.go drops it); an FLO with neither is unsigned, as the
	// simulator executes it. Measured: ptxas 13.0.88's FLO R12, R7 for
	// bfind.s32 on sm_80 and sm_90 has bit 73 set, FLO.U32 clear.
	{op: ori.OpFLO, opc: 0x100, alu: true, dsts: []slot{dR, pd81}, srcs: []slot{{k: sB, mod: mNot}},
		mods: []group{{pos: 73, n: 1, names: modNames{{0, "U32"}, {1, "S32"}}, implicit: true}, {pos: 74, n: 1, names: modNames{{0, ""}, {1, "SH"}}}}},
	{op: ori.OpBREV, opc: 0x101, alu: true, dsts: []slot{dR}, srcs: []slot{b}},
	{op: ori.OpBMSK, opc: 0x01b, alu: true, dsts: []slot{dR}, srcs: []slot{a, b},
		mods: []group{{pos: 75, n: 1, names: modNames{{0, ""}, {1, "W"}}}}},
	{op: ori.OpSGXT, opc: 0x01a, alu: true, dsts: []slot{dR}, srcs: []slot{a, b},
		mods: []group{{pos: 75, n: 1, names: modNames{{0, ""}, {1, "W"}}}, gU32}},
	// IDP has no immediate form and nothing but a register in C:
	// nvdisasm -b SM80 rejects its words in forms 2, 3, 4 and 7 and reads
	// 1, 5 and 6; ptxas 13.0.88 puts dp4a's immediate into c[0x2][] on
	// sm_80 and into a register (MOV) on sm_90, and PostFixForMercTargets
	// moves it into a register.
	{op: ori.OpIDP, opc: 0x026, alu: true, noCVar: true, pre: noImmB, dsts: []slot{dR}, srcs: []slot{a, b, c},
		mods: []group{{pos: 73, n: 5, names: modNames{{0x03, "4A.S8.S8"}, {0x01, "4A.S8.U8"}, {0x02, "4A.U8.S8"}, {0x00, "4A.U8.U8"}, {0x1b, "2A.HI.S16.S8"}, {0x19, "2A.HI.S16.U8"}, {0x1a, "2A.HI.U16.S8"}, {0x18, "2A.HI.U16.U8"}, {0x0b, "2A.LO.S16.S8"}, {0x09, "2A.LO.S16.U8"}, {0x0a, "2A.LO.U16.S8"}, {0x08, "2A.LO.U16.U8"}}}}},
	{op: ori.OpMOV, opc: 0x002, alu: true, dsts: []slot{dR}, srcs: []slot{bInt}, tmpl: []fix{{72, 4, 0xf}}},
	{op: ori.OpUMOV, opc: 0x082, alu: true, dsts: []slot{dUR}, srcs: []slot{{k: sB, mod: mNoRZ, signed: true}}},
	{op: ori.OpS2R, opc: 0x919, dsts: []slot{dR}, srcs: []slot{{k: sSR, pos: 72}}},
	{op: ori.OpS2UR, opc: 0x9c3, dsts: []slot{dUR}, srcs: []slot{{k: sSR, pos: 72}}},
	{op: ori.OpULDC, opc: 0xab9, dsts: []slot{dUR}, srcs: []slot{{k: sUCB}}, mods: []group{gMemType}},
	{op: ori.OpLDC, opc: 0xb82, dsts: []slot{dR}, srcs: []slot{{k: sCB}}, mods: []group{gMemType}},

	// Floating point.
	{op: ori.OpFADD, opc: 0x021, alu: true, dsts: []slot{dR}, srcs: []slot{aFP, {k: sBC, mod: mNeg | mAbs, fk: ori.ImmF32}},
		mods: []group{gFTZ, gRnd, gSAT}},
	{op: ori.OpFMUL, opc: 0x020, alu: true, dsts: []slot{dR}, srcs: []slot{aFP, bFP},
		mods: []group{gFTZ, gRnd, gSAT}, tmpl: []fix{{84, 3, 4}}},
	{op: ori.OpFFMA, opc: 0x023, alu: true, dsts: []slot{dR}, srcs: []slot{aFP, bFP, cFP},
		mods: []group{gFTZ, gRnd, gSAT}},
	// ptxas leaves bits 64-71 (source C, which FMNMX lacks) 0; sm_75-89
	// ignore them, sm_90 reads a nonzero value there as another form
	// (nvdisasm: FMNMX.IS_A Rd, PT, ...), so the field is fixed at 0.
	// .NAN (bit 81, min/max.NaN) is sm_80 and later: nvdisasm -b SM80,
	// SM86, SM90 print ptxas's FMNMX.FTZ.NAN word (bits 80 and 81 set)
	// with it, -b SM75 without it.
	{op: ori.OpFMNMX, opc: 0x009, alu: true, archMax: 75, dsts: []slot{dR}, srcs: []slot{aFP, bFP, pAcc},
		mods: []group{gFTZ}, tmpl: []fix{{64, 8, 0}}},
	{op: ori.OpFMNMX, opc: 0x009, alu: true, arch: 80, dsts: []slot{dR}, srcs: []slot{aFP, bFP, pAcc},
		mods: []group{gFTZ, {pos: 81, n: 1, names: modNames{{0, ""}, {1, "NAN"}}}}, tmpl: []fix{{64, 8, 0}}},
	// FSET writes 1.0 or 0.0 (nvdisasm: FSET.BF); measured on ptxas's
	// FSET.BF.GT.AND word, modifiers as FSETP's.
	{op: ori.OpFSET, key: []string{"BF"}, opc: 0x00a, alu: true, dsts: []slot{dR}, srcs: []slot{aFP, bFP, pAcc},
		mods: []group{gFCmp, gFTZ, gBool}},
	{op: ori.OpFSEL, opc: 0x008, alu: true, dsts: []slot{dR}, srcs: []slot{a, {k: sB, fk: ori.ImmF32}, pAcc}},
	{op: ori.OpFSETP, opc: 0x00b, alu: true,
		dsts: []slot{{k: sP, pos: 81}, {k: sP, pos: 84}}, srcs: []slot{aFP, bFP, pAcc},
		mods: []group{gFCmp, gFTZ, gBool}},
	// FCHK's immediate is an f32 (nvdisasm prints FCHK P0, R2, 0).
	{op: ori.OpFCHK, opc: 0x102, alu: true, dsts: []slot{{k: sP, pos: 81}}, srcs: []slot{a, {k: sB, fk: ori.ImmF32}},
		mods: []group{{pos: 76, n: 1, names: modNames{{0, "DIVIDE"}}, implicit: true}}},
	{op: ori.OpMUFU, opc: 0x108, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		mods: []group{{pos: 74, n: 4, names: modNames{{0, "COS"}, {1, "SIN"}, {2, "EX2"}, {3, "LG2"}, {4, "RCP"}, {5, "RSQ"}, {6, "RCP64H"}, {7, "RSQ64H"}, {8, "SQRT"}, {9, "TANH"}}}}},
	// FRND's rounding: orilab spells floor, ceiling and truncation as
	// .RM, .RP, .RZ (nvdisasm: .FLOOR, .CEIL, .TRUNC).
	{op: ori.OpFRND, opc: 0x107, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		mods: []group{gFTZ, gRndRN}, tmpl: []fix{{75, 2, 2}, {84, 2, 2}}},
	{op: ori.OpFRND, opc: 0x113, alu: true, dsts: []slot{dR64}, srcs: []slot{{k: sB, mod: mNeg | mAbs, words: 2, f64hi: true}},
		fix:  []fix{{75, 2, 3}, {84, 2, 3}},
		mods: []group{{pos: 75, n: 2, names: modNames{{3, "F64"}}}, gFTZ, gRndRN}},
	// F2FP packs two f32 values into f16x2 or bf16x2, A into the high
	// half (measured on ptxas's F2FP.BF16.PACK_AB and F2FP.PACK_AB
	// words: bit 76 set for BF16; bit 77 SATFINITE and bit 78 MERGE_C
	// are other forms, as are bits 73-75 and 86-90 set (the fp8 and tf32
	// conversions below); C, unused, holds RZ).
	// Bits 79-80 are the rounding, 3 RZ (ptxas's F2FP.PACK_AB.RZ and
	// F2FP.BF16.F32.PACK_AB.RZ words for cvt.rz.{f16x2,bf16x2}.f32 on
	// sm_80 and sm_90; nvdisasm prints 1 and 2 as ???1, ???2).
	{op: ori.OpF2FP, opc: 0x03e, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sA}, {k: sB, fk: ori.ImmF32}},
		mods: []group{{pos: 76, n: 1, names: modNames{{1, "BF16"}, {0, ""}}}, {pos: 78, n: 1, names: modNames{{0, "PACK_AB"}}},
			{pos: 79, n: 2, names: modNames{{0, ""}, {3, "RZ"}}}},
		fix: []fix{{73, 3, 0}, {77, 1, 0}, {86, 1, 0}, {87, 4, 0}}, tmpl: []fix{{64, 8, 0xff}}},
	// F2FP.TF32.F32.PACK_B: cvt.{rn,rz}{.relu}.tf32.f32 (measured on
	// ptxas's three words for testdata/kernels/cvt_tf32 on sm_80 and
	// sm_90: bits 76, 78, 86 and 89 set, 79-80 the rounding, 3 RZ; bit
	// 75 RELU, which nvdisasm prints first, F2FP.RELU.TF32.F32.PACK_B).
	// A, unused, is RZ (nvdisasm prints only B), C too. sm_90 only:
	// nvdisasm -b SM80 reads the same word as F2FP.BF16.MERGE_C (and
	// the PTX needs sm_90).
	{op: ori.OpF2FP, key: []string{"TF32", "F32", "PACK_B"}, opc: 0x03e, alu: true, arch: 90, dsts: []slot{dR},
		srcs: []slot{{k: sA}, {k: sB, fk: ori.ImmF32}},
		mods: []group{{pos: 79, n: 2, names: modNames{{0, ""}, {3, "RZ"}}}, {pos: 75, n: 1, names: modNames{{0, ""}, {1, "RELU"}}}},
		fix:  []fix{{76, 1, 1}, {77, 1, 0}, {78, 1, 1}, {86, 1, 1}, {89, 1, 1}}, tmpl: []fix{{64, 8, 0xff}}},
	// The fp8 conversions (sm_89 and later), measured on ptxas
	// 13.0.88's words for cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32
	// and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} on sm_89 and sm_90. The
	// pack: bit 77 SATFINITE, 78 MERGE_C (C, RZ, supplies the high
	// half: nvdisasm prints F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C R0,
	// R5, R0, RZ), 76 E4M3 (clear: E5M2), 75 RELU, 87 and 90 set. The
	// unpack: bit 74 UNPACK_B, 73 E4M3, 75 RELU, 89 set; A is RZ and
	// nvdisasm prints only B.
	{op: ori.OpF2FP, key: []string{"SATFINITE"}, opc: 0x03e, alu: true, arch: 89, dsts: []slot{dR},
		srcs: []slot{{k: sA}, {k: sB, fk: ori.ImmF32}},
		mods: []group{{pos: 75, n: 1, names: modNames{{0, ""}, {1, "RELU"}}}, {pos: 76, n: 1, names: modNames{{1, "E4M3"}, {0, "E5M2"}}},
			{pos: 78, n: 1, names: modNames{{1, "F32.PACK_AB"}}}},
		fix: []fix{{77, 1, 1}, {79, 2, 0}, {86, 1, 0}, {87, 1, 1}, {89, 1, 0}, {90, 1, 1}}, tmpl: []fix{{64, 8, 0xff}}},
	{op: ori.OpF2FP, key: []string{"F16"}, opc: 0x03e, alu: true, arch: 89, dsts: []slot{dR},
		srcs: []slot{{k: sA}, {k: sB}},
		mods: []group{{pos: 73, n: 1, names: modNames{{1, "E4M3"}, {0, "E5M2"}}}, {pos: 74, n: 1, names: modNames{{1, "UNPACK_B"}}}},
		fix:  []fix{{75, 1, 0}, {76, 2, 0}, {78, 3, 0}, {86, 1, 0}, {87, 2, 0}, {89, 1, 1}, {90, 1, 0}}, tmpl: []fix{{64, 8, 0xff}}},
	{op: ori.OpF2F, opc: 0x110, alu: true, dsts: []slot{dR64}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		fix:  []fix{{75, 2, 3}, {84, 2, 2}},
		mods: []group{{pos: 75, n: 2, names: modNames{{3, "F64"}}}, {pos: 84, n: 2, names: modNames{{2, "F32"}}}, gFTZ}},
	{op: ori.OpF2F, opc: 0x110, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, words: 2, f64hi: true}},
		fix:  []fix{{75, 2, 2}, {84, 2, 3}},
		mods: []group{{pos: 75, n: 2, names: modNames{{2, "F32"}}}, {pos: 84, n: 2, names: modNames{{3, "F64"}}}, gFTZ, gRndRN}},
	// F2F from f64 to f16 (1) and bf16 (4, sm_90: nvdisasm -b SM80
	// rejects the word): bits 75-77, as I2F's (ptxas 13.0.88's
	// F2F.F16.F64, F2F.F16.F64.RZ, F2F.BF16.F64, F2F.BF16.F64.RM words
	// for cvt.{rn,rz,rm}.{f16,bf16}.f64 on sm_90).
	{op: ori.OpF2F, opc: 0x110, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, words: 2, f64hi: true}},
		fix:  []fix{{75, 3, 1}, {84, 2, 3}},
		mods: []group{{pos: 75, n: 3, names: modNames{{1, "F16"}}}, {pos: 84, n: 2, names: modNames{{3, "F64"}}}, gFTZ, gRndRN}},
	{op: ori.OpF2F, opc: 0x110, alu: true, arch: 90, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, words: 2, f64hi: true}},
		fix:  []fix{{75, 3, 4}, {84, 2, 3}},
		mods: []group{{pos: 75, n: 3, names: modNames{{4, "BF16"}}}, {pos: 84, n: 2, names: modNames{{3, "F64"}}}, gFTZ, gRndRN}},
	// F2F between f32 and f16 is another opcode, 0x104, with the same
	// type fields (1 is F16) and rounding (measured: ptxas 13.0.88's
	// F2F.F16.F32 R0, c[0x0][0x168] for cvt.rn.f16.f32 on sm_75, and
	// nvdisasm -b SM80/SM90 over that word with the types swapped and
	// every rounding: F2F.F32.F16, .RM, .RP, .RZ, F2F.FTZ.F16.F32).
	// Decision: sm_80 and later encode it too, although ptxas writes
	// F2FP.PACK_AB and HADD2.F32 there; nvdisasm decodes the word on
	// every target and it is the instruction the lowering chose.
	{op: ori.OpF2F, opc: 0x104, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		fix:  []fix{{75, 2, 1}, {84, 2, 2}},
		mods: []group{{pos: 75, n: 2, names: modNames{{1, "F16"}}}, {pos: 84, n: 2, names: modNames{{2, "F32"}}}, gFTZ, gRndRN}},
	// F2F.BF16.F32: the result type 4 in bits 75-77, as I2F's
	// (ptxas 13.0.88's F2F.BF16.F32 and F2F.BF16.F32.RZ words for
	// cvt.rn/.rz.bf16.f32 on sm_80 and sm_90).
	{op: ori.OpF2F, opc: 0x104, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		fix:  []fix{{75, 3, 4}, {84, 2, 2}},
		mods: []group{{pos: 75, n: 3, names: modNames{{4, "BF16"}}}, {pos: 84, n: 2, names: modNames{{2, "F32"}}}, gFTZ, gRndRN}},
	{op: ori.OpF2F, opc: 0x104, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs}},
		fix:  []fix{{75, 2, 2}, {84, 2, 1}},
		mods: []group{{pos: 75, n: 2, names: modNames{{2, "F32"}}}, {pos: 84, n: 2, names: modNames{{1, "F16"}}}, gFTZ, gRndRN}},
	{op: ori.OpF2I, opc: 0x111, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, f64hi: true}},
		fix: []fix{{84, 2, 3}},
		mods: []group{{pos: 72, n: 5, names: modNames{{0x11, "S32"}, {0x10, "U32"}, {0x19, "S64"}, {0x18, "U64"}}}, {pos: 84, n: 2, names: modNames{{3, "F64"}}},
			gFTZ, {pos: 78, n: 2, names: modNames{{0, ""}, {1, "FLOOR"}, {2, "CEIL"}, {3, "TRUNC"}}}, {pos: 77, n: 1, names: modNames{{0, ""}, {1, "NTZ"}}}}},
	{op: ori.OpF2I, opc: 0x111, alu: true, dsts: []slot{dR64}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		fix: []fix{{84, 2, 2}},
		mods: []group{{pos: 72, n: 5, names: modNames{{0x19, "S64"}, {0x18, "U64"}}}, {pos: 84, n: 2, names: modNames{{2, "F32"}}},
			gFTZ, {pos: 78, n: 2, names: modNames{{0, ""}, {1, "FLOOR"}, {2, "CEIL"}, {3, "TRUNC"}}}, {pos: 77, n: 1, names: modNames{{0, ""}, {1, "NTZ"}}}}},
	{op: ori.OpF2I, opc: 0x105, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, mod: mNeg | mAbs, fk: ori.ImmF32}},
		fix: []fix{{84, 2, 2}},
		mods: []group{{pos: 72, n: 5, names: modNames{{0x11, "S32"}, {0x10, "U32"}}}, {pos: 84, n: 2, names: modNames{{2, "F32"}}},
			gFTZ, {pos: 78, n: 2, names: modNames{{0, ""}, {1, "FLOOR"}, {2, "CEIL"}, {3, "TRUNC"}}}, {pos: 77, n: 1, names: modNames{{0, ""}, {1, "NTZ"}}}}},
	{op: ori.OpI2F, opc: 0x106, alu: true, dsts: []slot{dR}, srcs: []slot{bInt},
		fix: []fix{{75, 2, 2}},
		mods: []group{{pos: 75, n: 2, names: modNames{{2, "F32"}}},
			{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{5, "S32"}, {4, "U32"}, {3, "S16"}, {2, "U16"}}}, gRndRN}},
	{op: ori.OpI2F, opc: 0x112, alu: true, dsts: []slot{dR64}, srcs: []slot{bInt},
		fix: []fix{{75, 2, 3}},
		mods: []group{{pos: 75, n: 2, names: modNames{{3, "F64"}}},
			{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{5, "S32"}, {4, "U32"}, {7, "S64"}, {6, "U64"}}}, gRndRN}},
	{op: ori.OpI2F, opc: 0x112, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, words: 2}},
		fix: []fix{{75, 2, 2}},
		mods: []group{{pos: 75, n: 2, names: modNames{{2, "F32"}}},
			{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{7, "S64"}, {6, "U64"}}}, gRndRN}},
	// I2F to f16 and bf16: the result type is bits 75-77, 1 F16, 2 F32,
	// 4 BF16 (sm_90; nvdisasm -b SM80 prints the BF16 word as I2F.???0,
	// and cvt.bf16 from an integer needs sm_90). Measured on ptxas
	// 13.0.88's words for cvt.{rn,rz,rm,rp}.{f16,bf16}.{s32,u32,s16,s64,u64}
	// (I2F.F16, I2F.F16.U32.RZ, I2F.F16.S16.RM, I2F.BF16, I2F.F16.S64,
	// I2F.F16.U64.RP, I2F.BF16.S64) and nvdisasm -b SM90 over bits 75-77.
	{op: ori.OpI2F, key: []string{"F16"}, opc: 0x106, alu: true, dsts: []slot{dR}, srcs: []slot{bInt},
		fix:  []fix{{75, 3, 1}},
		mods: []group{{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{5, "S32"}, {4, "U32"}, {3, "S16"}, {2, "U16"}}}, gRndRN}},
	{op: ori.OpI2F, key: []string{"BF16"}, opc: 0x106, alu: true, arch: 90, dsts: []slot{dR}, srcs: []slot{bInt},
		fix:  []fix{{75, 3, 4}},
		mods: []group{{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{5, "S32"}, {4, "U32"}, {3, "S16"}, {2, "U16"}}}, gRndRN}},
	{op: ori.OpI2F, key: []string{"F16"}, opc: 0x112, alu: true, dsts: []slot{dR}, srcs: []slot{{k: sB, words: 2}},
		fix:  []fix{{75, 3, 1}},
		mods: []group{{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{7, "S64"}, {6, "U64"}}}, gRndRN}},
	{op: ori.OpI2F, key: []string{"BF16"}, opc: 0x112, alu: true, arch: 90, dsts: []slot{dR}, srcs: []slot{{k: sB, words: 2}},
		fix:  []fix{{75, 3, 4}},
		mods: []group{{pos: 74, n: 1, pos2: 84, n2: 2, names: modNames{{7, "S64"}, {6, "U64"}}}, gRndRN}},
	{op: ori.OpDADD, opc: 0x029, alu: true, dsts: []slot{dR64},
		srcs: []slot{{k: sA, mod: mNeg | mAbs, words: 2}, {k: sC, mod: mNeg | mAbs, words: 2, f64hi: true}},
		mods: []group{gRnd}},
	{op: ori.OpDMUL, opc: 0x028, alu: true, dsts: []slot{dR64},
		srcs: []slot{{k: sA, mod: mNeg | mAbs, words: 2}, {k: sB, mod: mNeg | mAbs, words: 2, f64hi: true}},
		mods: []group{gRnd}},
	{op: ori.OpDFMA, opc: 0x02b, alu: true, dsts: []slot{dR64},
		srcs: []slot{{k: sA, mod: mNeg | mAbs, words: 2}, {k: sB, mod: mNeg | mAbs, words: 2, f64hi: true}, {k: sC, mod: mNeg | mAbs, words: 2, f64hi: true}},
		mods: []group{gRnd}},
	{op: ori.OpDSETP, opc: 0x02a, alu: true,
		dsts: []slot{{k: sP, pos: 81}, {k: sP, pos: 84}},
		srcs: []slot{{k: sA, mod: mNeg | mAbs, words: 2}, {k: sBC, mod: mNeg | mAbs, words: 2, f64hi: true}, pAcc},
		mods: []group{gDCmp, gBool}},
	// .RELU is bit 79 (ptxas's HFMA2.RELU and HFMA2.BF16_V2.RELU words
	// for fma.rn.relu.{f16x2,bf16x2} on sm_80 and sm_90). Bits 87-89 are
	// a predicate that ptxas sets to PT and nvdisasm prints after C with
	// .RELU when it is not (HFMA2.RELU R4, R5, R3, R4, P0).
	{op: ori.OpHFMA2, opc: 0x031, alu: true, arch: 80, dsts: []slot{dR}, srcs: []slot{aFP, bFP, cFP},
		mods: []group{{pos: 85, n: 1, names: modNames{{0, ""}, {1, "BF16_V2"}}}, gFTZ, gSAT, {pos: 79, n: 1, names: modNames{{0, ""}, {1, "RELU"}}}},
		tmpl: []fix{{87, 3, 7}}},
	// HADD2 and HMUL2 (opcodes 0x030, 0x032): A at 24 and B at 32 with
	// FADD's negation and absolute-value bits, FTZ at 80, SAT at 77,
	// BF16_V2 at 85 on sm_90 only (nvdisasm -b SM80 ignores that bit).
	// Measured: nvdisasm -b SM80/SM90 over ptxas's HADD2 word for
	// testdata/cuda's f16 kernels with each bit set. Registers only:
	// ptxas's HADD2 with a constant holds it in C's field (form 3),
	// which orilab does not emit; the half swizzles (A at 74-75, B at
	// 60-61: R11.H0_H0 is 2) and the f32 result (bit 78, HADD2.F32) are
	// fixed at orilab's plain H1_H0 f16x2, so ptxas's words with them
	// do not decode as something else.
	{op: ori.OpHADD2, opc: 0x030, alu: true, arch: 80, archMax: 89, dsts: []slot{dR}, srcs: []slot{aFP, bFP}, pre: regB,
		mods: []group{gFTZ, gSAT}, fix: []fix{{85, 1, 0}, {9, 3, formRR}, {60, 2, 0}, {74, 2, 0}, {78, 1, 0}}},
	{op: ori.OpHADD2, opc: 0x030, alu: true, arch: 90, dsts: []slot{dR}, srcs: []slot{aFP, bFP}, pre: regB,
		mods: []group{{pos: 85, n: 1, names: modNames{{0, ""}, {1, "BF16_V2"}}}, gFTZ, gSAT}, fix: []fix{{9, 3, formRR}, {60, 2, 0}, {74, 2, 0}, {78, 1, 0}}},
	{op: ori.OpHMUL2, opc: 0x032, alu: true, arch: 80, archMax: 89, dsts: []slot{dR}, srcs: []slot{aFP, bFP}, pre: regB,
		mods: []group{gFTZ, gSAT}, fix: []fix{{85, 1, 0}, {9, 3, formRR}, {60, 2, 0}, {74, 2, 0}, {78, 1, 0}}},
	{op: ori.OpHMUL2, opc: 0x032, alu: true, arch: 90, dsts: []slot{dR}, srcs: []slot{aFP, bFP}, pre: regB,
		mods: []group{{pos: 85, n: 1, names: modNames{{0, ""}, {1, "BF16_V2"}}}, gFTZ, gSAT}, fix: []fix{{9, 3, formRR}, {60, 2, 0}, {74, 2, 0}, {78, 1, 0}}},
	{op: ori.OpHMNMX2, opc: 0x040, alu: true, arch: 80, dsts: []slot{dR}, srcs: []slot{aFP, bFP, pAcc},
		mods: []group{{pos: 85, n: 1, names: modNames{{0, ""}, {1, "BF16_V2"}}}, gFTZ, {pos: 81, n: 1, names: modNames{{0, ""}, {1, "NAN"}}}}},
	// HSETP2's B register takes C's reuse flag (bit 124): nvdisasm -b
	// SM80/SM90 prints HSETP2 P1, P2, R0, R2.reuse for it and rejects
	// the word with bit 123 set ("undefined value for table
	// TABLES_opex_4").
	{op: ori.OpHSETP2, opc: 0x034, alu: true, bReuseC: true,
		dsts: []slot{{k: sP, pos: 81}, {k: sP, pos: 84}}, srcs: []slot{aFP, bFP, pAcc},
		mods: []group{gFCmp, gFTZ, {pos: 69, n: 2, names: modNames{{0, "AND"}, {1, "OR"}, {2, "XOR"}}}}},

	// Memory. Global and generic accesses on sm_80 and later take the
	// form with a memory descriptor register (opcode 0x98x); tmpl's URZ
	// in that field marks it (form.descPos), and the encoder writes the
	// operand's descriptor there (see doc.go, "Encoding").
	// Ori writes the size after the ordering (LDG.E.CONSTANT.64, as the
	// lowering appends it); the printer puts it first, as nvdisasm does.
	{op: ori.OpLDG, opc: 0x981, arch: 80, dsts: []slot{dR}, srcs: []slot{mem},
		mods: []group{gE, gOrder, gMemType}, tmpl: []fix{{32, 6, 63}, {76, 1, 1}, {81, 3, 7}, {84, 3, 1}, {90, 2, 3}}},
	{op: ori.OpLD, opc: 0x980, arch: 80, dsts: []slot{dR}, srcs: []slot{mem},
		mods: []group{gE, gOrder, gMemType}, tmpl: []fix{{32, 6, 63}, {76, 1, 1}, {84, 3, 1}, {90, 2, 3}}},
	{op: ori.OpSTG, opc: 0x986, arch: 80, srcs: []slot{mem, {k: sR, pos: 32}},
		mods: []group{gE, gOrder, gMemType}, tmpl: []fix{{64, 6, 63}, {76, 1, 1}, {84, 3, 1}, {90, 2, 3}}},
	{op: ori.OpST, opc: 0x985, arch: 80, srcs: []slot{mem, {k: sR, pos: 32}},
		mods: []group{gE, gOrder, gMemType}, tmpl: []fix{{64, 6, 63}, {76, 1, 1}, {84, 3, 1}, {90, 2, 3}}},
	// sm_75 has no memory descriptor: global and generic accesses with
	// a register address are the Volta forms (measured: ptxas 13.0.88
	// -arch sm_75 on loads and stores of every size, ordering and scope
	// at [R+off], nvdisasm 13.5 -hex; ptxas's [UR4+off] forms, opcode
	// 0x98x with bits 90-91 set, are not emitted by orilab). LDG 0x381
	// and STG 0x386 hold the offset at 40 as LDS's and STG its data at
	// 32; the generic LD 0x980 (bits 90-91 clear: no uniform register)
	// and ST 0x385 hold a signed 32-bit offset at 32 (nvdisasm -b SM75
	// reads 0xfffffff0 there as [R16+-0x10] and 0x01000000 as
	// +0x1000000), ST its data at 64. Bit 76 would be .PRIVATE.
	{op: ori.OpLDG, opc: 0x381, archMax: 75, dsts: []slot{dR}, srcs: []slot{mem}, pre: order75,
		mods: []group{gE, gOrder75, gMemType}, fix: []fix{{76, 1, 0}}, tmpl: []fix{{81, 3, 7}, {84, 3, 1}}},
	{op: ori.OpLD, opc: 0x980, archMax: 75, dsts: []slot{dR}, srcs: []slot{mem32}, pre: order75,
		mods: []group{gE, gOrder75, gMemType}, fix: []fix{{76, 1, 0}, {90, 2, 0}}, tmpl: []fix{{84, 3, 1}}},
	{op: ori.OpSTG, opc: 0x386, archMax: 75, srcs: []slot{mem, {k: sR, pos: 32}}, pre: order75,
		mods: []group{gE, gOrder75, gMemType}, fix: []fix{{76, 1, 0}}, tmpl: []fix{{84, 3, 1}}},
	{op: ori.OpST, opc: 0x385, archMax: 75, srcs: []slot{mem32, {k: sR, pos: 64}}, pre: order75,
		mods: []group{gE, gOrder75, gMemType}, fix: []fix{{76, 1, 0}}, tmpl: []fix{{84, 3, 1}}},
	// LDS: bits 78-79 scale the address register (3: [R16.X16+0x4],
	// measured on ptxas's word); orilab's addresses are unscaled.
	{op: ori.OpLDS, opc: 0x984, dsts: []slot{dR}, srcs: []slot{mem}, mods: []group{{pos: 76, n: 1, names: modNames{{0, ""}, {1, "U"}}}, gMemType},
		fix: []fix{{78, 2, 0}}},
	{op: ori.OpSTS, opc: 0x388, srcs: []slot{mem, {k: sR, pos: 32}}, mods: []group{gMemType}},
	{op: ori.OpLDL, opc: 0x983, dsts: []slot{dR}, srcs: []slot{mem}, mods: []group{gMemType}, tmpl: []fix{{84, 3, 1}}},
	{op: ori.OpSTL, opc: 0x387, srcs: []slot{mem, {k: sR, pos: 32}}, mods: []group{gMemType}, tmpl: []fix{{84, 3, 1}}},
	// ATOMG, ATOM and RED: sm_80-sm_89 one opcode each; sm_90 the same
	// for integer types and 0x9a3, 0x9a2, 0x9a6 for float types, whose
	// type field is 4 bits wide (gAtomF90).
	{op: ori.OpATOMG, opc: 0x9a8, arch: 80, archMax: 89, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomPre,
		mods: []group{gE, gAtom, gAtomT, gOrder}, tmpl: []fix{{64, 6, 63}, {70, 2, 3}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpATOM, opc: 0x98a, arch: 80, archMax: 89, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomPre,
		mods: []group{gE, gAtom, gAtomT, gOrder}, tmpl: []fix{{64, 6, 63}, {70, 2, 3}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpATOMG, opc: 0x9a8, arch: 90, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomPre,
		mods: []group{gE, gAtom, gAtomT90, gOrder}, tmpl: []fix{{64, 6, 63}, {70, 2, 3}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpATOM, opc: 0x98a, arch: 90, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomPre,
		mods: []group{gE, gAtom, gAtomT90, gOrder}, tmpl: []fix{{64, 6, 63}, {70, 2, 3}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpATOMG, opc: 0x9a3, arch: 90, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}},
		mods: []group{gE, gAtom, gAtomF90, gOrder}, tmpl: []fix{{64, 6, 63}, {70, 2, 3}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpATOM, opc: 0x9a2, arch: 90, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}},
		mods: []group{gE, gAtom, gAtomF90, gOrder}, tmpl: []fix{{64, 6, 63}, {70, 2, 3}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpATOM, key: []string{"E", "CAS"}, opc: 0x38b, arch: 80, dsts: []slot{dR, pd81}, pre: atomPre,
		srcs: []slot{mem, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{gAtomT, gOrder}, tmpl: []fix{{72, 1, 1}, {84, 3, 1}}},
	// ATOMG.E.CAS: ATOM.E.CAS's fields under its own opcode, without a
	// memory descriptor (measured on sm_80-sm_90).
	{op: ori.OpATOMG, key: []string{"E", "CAS"}, opc: 0x3a9, arch: 80, dsts: []slot{dR, pd81}, pre: atomPre,
		srcs: []slot{mem, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{gAtomT, gOrder}, tmpl: []fix{{72, 1, 1}, {84, 3, 1}}},
	// RED: ATOM's fields without a result, under its own opcode. Bits
	// 87-89 are the operation (RED has no EXCH, so ATOM's fourth bit,
	// 90, is not one) and bits 90-91 hold 3, bits 70-71 2 (measured: ptxas
	// 13.0.88's RED.E.MAX.S32.STRONG.GPU words on sm_75 and sm_80, and
	// nvdisasm over orilab's RED words in TestNvdisasmEncoding).
	{op: ori.OpRED, opc: 0x98e, arch: 80, archMax: 89, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomPre,
		mods: []group{gE, {pos: 87, n: 3, names: atomNames}, gAtomT, gOrder}, fix: []fix{{90, 2, 3}},
		tmpl: []fix{{64, 6, 63}, {70, 2, 2}, {84, 3, 1}}},
	{op: ori.OpRED, opc: 0x98e, arch: 90, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomPre,
		mods: []group{gE, {pos: 87, n: 3, names: atomNames}, gAtomT90, gOrder}, fix: []fix{{90, 2, 3}},
		tmpl: []fix{{64, 6, 63}, {70, 2, 2}, {84, 3, 1}}},
	{op: ori.OpRED, opc: 0x9a6, arch: 90, srcs: []slot{mem, {k: sR, pos: 32}},
		mods: []group{gE, {pos: 87, n: 3, names: atomNames}, gAtomF90, gOrder}, fix: []fix{{90, 2, 3}},
		tmpl: []fix{{64, 6, 63}, {70, 2, 2}, {84, 3, 1}}},
	// sm_75's ATOMG 0x3a8, ATOM 0x38a, their CAS 0x3a9 and 0x38b, and
	// RED 0x98e with bits 90-91 clear: the fields of sm_80's forms
	// without the descriptor, bits 64-71 RZ (ATOMG, ATOM) or 0 (RED),
	// and the ordering in gOrder75. Measured: ptxas 13.0.88 -arch sm_75
	// on atom.global and atom of every operation and type, cas.b32/.b64,
	// .cta/.gpu/.sys scopes, red.global and red of add/min/and and the
	// float types ([R24+0x4] addresses; ptxas's RED with [UR4+0x24] is
	// the same opcode with bits 90-91 set and the UR at 64).
	{op: ori.OpATOMG, opc: 0x3a8, archMax: 75, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: order75,
		mods: []group{gE, gAtom, gAtomT, gOrder75}, fix: []fix{{91, 1, 0}}, tmpl: []fix{{64, 8, 0xff}, {84, 3, 1}}},
	{op: ori.OpATOM, opc: 0x38a, archMax: 75, dsts: []slot{dR, pd81}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: order75,
		mods: []group{gE, gAtom, gAtomT, gOrder75}, fix: []fix{{91, 1, 0}}, tmpl: []fix{{64, 8, 0xff}, {84, 3, 1}}},
	{op: ori.OpATOM, key: []string{"E", "CAS"}, opc: 0x38b, archMax: 75, dsts: []slot{dR, pd81}, pre: order75,
		srcs: []slot{mem, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{gAtomT, gOrder75}, tmpl: []fix{{72, 1, 1}, {84, 3, 1}}},
	{op: ori.OpATOMG, key: []string{"E", "CAS"}, opc: 0x3a9, archMax: 75, dsts: []slot{dR, pd81}, pre: order75,
		srcs: []slot{mem, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{gAtomT, gOrder75}, tmpl: []fix{{72, 1, 1}, {84, 3, 1}}},
	{op: ori.OpRED, opc: 0x98e, archMax: 75, srcs: []slot{mem, {k: sR, pos: 32}}, pre: order75,
		mods: []group{gE, {pos: 87, n: 3, names: atomNames}, gAtomT, gOrder75}, fix: []fix{{64, 8, 0}, {90, 2, 0}},
		tmpl: []fix{{84, 3, 1}}},
	{op: ori.OpATOMS, opc: 0x38c, dsts: []slot{dR}, srcs: []slot{mem, {k: sR, pos: 32}}, pre: atomsPre,
		mods: []group{gAtom, gAtomT}},
	// ATOMS.CAS and ATOMS.CAST.SPIN: opcode 0x38d, the compare value at
	// 32 and the new value at 64; bits 87-88 hold 3 for CAST.SPIN
	// (measured: ptxas 13.0.88's atom.shared.cas.b32 and the
	// atom.shared.add.f32 loop on sm_80 and sm_90, 0x000000040505738d /
	// 0x...0000004005 and 0x000000040005738d / 0x...01804005; bit 78 there
	// is the .X4 address scale orilab does not use).
	{op: ori.OpATOMS, key: []string{"CAS"}, opc: 0x38d, dsts: []slot{dR}, srcs: []slot{mem, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{gAtomT}, fix: []fix{{87, 2, 0}}, pre: atomPre},
	{op: ori.OpATOMS, key: []string{"CAST", "SPIN"}, opc: 0x38d, dsts: []slot{dR}, srcs: []slot{mem, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{gAtomT}, fix: []fix{{87, 2, 3}}, pre: atomPre},

	// Tensor cores (issue 23's lowering of ldmatrix, stmatrix and
	// mma.sync). Measured with ptxas 13.0.88 -arch sm_80 and sm_90 on
	// probe kernels with every shape and type the lowering emits
	// (internal/gen's probe_mma and probe_ldsm), nvdisasm 13.5 -hex:
	// D at 16, A at 24, B at 32, C at 64, as a plain register each (the
	// tuples are aligned: reg checks it). HMMA: bit 75 m16n8k16 and bit
	// 78 m16n8k4 (neither: m16n8k8), bit 76 an f32 accumulator, bits
	// 82-83 the input type (0 f16, 1 bf16, 2 tf32).
	{op: ori.OpHMMA, opc: 0x23c, arch: 80, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{{pos: 75, n: 1, pos2: 78, n2: 1, names: modNames{{1, "16816"}, {0, "1688"}, {2, "1684"}}},
			{pos: 76, n: 1, names: modNames{{0, "F16"}, {1, "F32"}}},
			{pos: 82, n: 2, names: modNames{{0, ""}, {1, "BF16"}, {2, "TF32"}}}}},
	// IMMA: bits 75 and 86 the shape (both m16n8k32, 86 alone m16n8k16,
	// neither m8n8k16), bit 76 a signed A, bit 78 a signed B, bit 82
	// SAT; bit 74 is set in every word ptxas writes (nvdisasm prints A
	// and B as R16.ROW, R20.COL).
	{op: ori.OpIMMA, opc: 0x237, arch: 80, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{{pos: 75, n: 1, pos2: 86, n2: 1, names: modNames{{3, "16832"}, {2, "16816"}, {0, "8816"}}},
			{pos: 76, n: 1, names: modNames{{0, "U8"}, {1, "S8"}}},
			{pos: 78, n: 1, names: modNames{{0, "U8"}, {1, "S8"}}},
			{pos: 82, n: 1, names: modNames{{0, ""}, {1, "SAT"}}}},
		fix: []fix{{74, 1, 1}}},
	// sm_75 (Turing) has the f16 m16n8k8 HMMA and the 8-bit m8n8k16
	// IMMA only, in the same words (measured: ptxas 13.0.88 -arch sm_75
	// on mma.sync m16n8k8 f16/f32 and m8n8k16 s8: HMMA.1688.F32 R8,
	// R4, R6, R8 is 0x000000060408723c 0x...1008, as on sm_80).
	{op: ori.OpHMMA, key: []string{"1688"}, opc: 0x23c, archMax: 75, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{{pos: 76, n: 1, names: modNames{{0, "F16"}, {1, "F32"}}}},
		fix:  []fix{{75, 1, 0}, {78, 1, 0}, {82, 2, 0}}},
	{op: ori.OpIMMA, key: []string{"8816"}, opc: 0x237, archMax: 75, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sR, pos: 64}},
		mods: []group{{pos: 76, n: 1, names: modNames{{0, "U8"}, {1, "S8"}}},
			{pos: 78, n: 1, names: modNames{{0, "U8"}, {1, "S8"}}},
			{pos: 82, n: 1, names: modNames{{0, ""}, {1, "SAT"}}}},
		fix: []fix{{74, 1, 1}, {75, 1, 0}, {86, 1, 0}}},
	// DMMA.884 has no modifier bits (nvdisasm -b SM90 prints the same
	// word DMMA.8x8x4).
	{op: ori.OpDMMA, key: []string{"884"}, opc: 0x23f, arch: 80, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sR, pos: 64}}},
	// LDSM and STSM: the address as LDS's, bits 72-73 the matrix count
	// (0 one, 1 .2, 2 .4), bit 78 the transposed layout MT88; STSM (sm_90)
	// reads its registers at 32.
	{op: ori.OpLDSM, key: []string{"16"}, opc: 0x83b, arch: 75, dsts: []slot{dR}, srcs: []slot{mem},
		mods: []group{{pos: 78, n: 1, names: modNames{{0, "M88"}, {1, "MT88"}}}, {pos: 72, n: 2, names: modNames{{0, ""}, {1, "2"}, {2, "4"}}}}},
	{op: ori.OpSTSM, key: []string{"16"}, opc: 0x844, arch: 90, srcs: []slot{mem, {k: sR, pos: 32}},
		mods: []group{{pos: 78, n: 1, names: modNames{{0, "M88"}, {1, "MT88"}}}, {pos: 72, n: 2, names: modNames{{0, ""}, {1, "2"}, {2, "4"}}}}},

	// Textures and surfaces (lower/tex.go, lower/surface.go). Measured:
	// ptxas 13.0.88 -arch sm_75, sm_80 and sm_90 on
	// testdata/kernels/tex_forms.ptx and surf_forms.ptx (.target
	// lowered to sm_75 for sm_75), nvdisasm 13.5 -hex; sm_75's texture
	// words are sm_80's, its surface words differ in the ordering only (the words are pinned in
	// TestTextureWords). D2 (the second result pair) at 64, D at 16, Ra at
	// 24, Rb at 32 (RZ when the coordinates fit Ra: ptxas's TLD.LZ 1D),
	// the texture slot at 40 (sm_80) or the header's uniform register at
	// 40 (sm_90, opcode bit 10 set, bit 91 set), and the printed 0x0 above
	// it at 54 (every ptxas word holds 0 there, so its width is not
	// measured). Bits 61-63 the dimension (1D 0, 2D 1, 3D 2, ARRAY_1D 4,
	// ARRAY_2D 5), bit 60 .SCR (sm_80), bit 59 .B (a bindless handle in
	// Rb: opcode 0x361 for TEX, 0x370 for TXQ; ptxas wrote no bindless
	// TLD or TLD4, so orilab's TLD.SCR.B and TLD4.SCR.B are refused). Bits 87-89 TEX and TLD's
	// level of detail (1 LZ, 3 LL) and TLD4's component (0 R ... 3 A);
	// bits 72-75 the write mask (gTexMask: 0xf unless opt/texmask.go
	// narrowed it) and 81-84 hold 0xf in every word ptxas writes.
	{op: ori.OpTEX, opc: 0xb60, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gTexSCR, gTexLL, gTexDim, gTexMask}, fix: []fix{{59, 1, 0}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTEX, opc: 0xb60, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gTexSCR, gTexLL, gTexDim, gTexMask}, fix: []fix{{59, 1, 0}, {32, 8, 0xff}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTEX, opc: 0xf60, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gTexLL, gTexDim, gTexMask}, fix: []fix{{91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTEX, opc: 0xf60, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gTexLL, gTexDim, gTexMask}, fix: []fix{{32, 8, 0xff}, {91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD, opc: 0xb66, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gTexSCR, gTexLZ, gTexDim, gTexMask}, fix: []fix{{59, 1, 0}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD, opc: 0xf66, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gTexLZ, gTexDim, gTexMask}, fix: []fix{{91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD, opc: 0xb66, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gTexSCR, gTexLZ, gTexDim, gTexMask}, fix: []fix{{59, 1, 0}, {32, 8, 0xff}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD, opc: 0xf66, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gTexLZ, gTexDim, gTexMask}, fix: []fix{{32, 8, 0xff}, {91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD4, opc: 0xb63, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gTexSCR, gTLD4, gTexDim, gTexMask}, fix: []fix{{59, 1, 0}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD4, opc: 0xb63, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gTexSCR, gTLD4, gTexDim, gTexMask}, fix: []fix{{59, 1, 0}, {32, 8, 0xff}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD4, opc: 0xf63, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gTLD4, gTexDim, gTexMask}, fix: []fix{{91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTLD4, opc: 0xf63, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gTLD4, gTexDim, gTexMask}, fix: []fix{{32, 8, 0xff}, {91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpTEX, opc: 0x361, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}},
		mods: []group{gTexSCR, {pos: 59, n: 1, names: modNames{{1, "B"}}}, gTexLL, gTexDim, gTexMask}, tmpl: []fix{{81, 4, 0xf}}},
	// TXQ RZ, Rd, Ra, query, [slot | UR, 0x0 | nothing (.B)], mask: RZ at
	// 64, Rd at 16, Ra at 24, the component mask at 72; every word ptxas
	// writes holds the TEX_HEADER_DIMENSION query as 0 in bits 62-63
	// (Decision: the query field's place is not measured; orilab emits
	// only this query, so the group only consumes its name).
	{op: ori.OpTXQ, opc: 0xb6f, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}, {k: sImm, pos: 72, n: 4}},
		mods: []group{gTxqQuery}, fix: []fix{{59, 2, 0}}},
	{op: ori.OpTXQ, opc: 0x370, archMax: 89, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 72, n: 4}},
		mods: []group{{pos: 59, n: 1, names: modNames{{1, "B"}}}, gTxqQuery}},
	{op: ori.OpTXQ, opc: 0xf6f, arch: 90, dsts: []slot{{k: sR, pos: 64}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 72, n: 4}},
		mods: []group{gTxqQuery}, fix: []fix{{91, 1, 1}}},
	// SULD.D.BA and SUST.D.BA: the data at 16 (SULD) or 32 (SUST), the
	// coordinates at 24, the slot or uniform register at 40 as TEX's.
	// Bit 72 .D.BA, bits 73-75 the size as LDG's, 77-80 the ordering as
	// LDG's (.STRONG.SM), 59-60 the out-of-range mode (0 IGN, 1 none, 2
	// TRAP), 61-63 the dimension (1D 0, 1D_ARRAY 2, 2D 3, 3D 5).
	// sm_75: the same words with the ordering in gOrder75 (ptxas's
	// SULD.D.BA.2D.STRONG.CTA.TRAP, SUST.D.BA.2D.STRONG.CTA.IGN: the
	// .CTA scope where sm_80 writes .SM).
	{op: ori.OpSULD, opc: 0xb99, archMax: 75, dsts: []slot{dR}, pre: order75,
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gSurfDBA, gSurfDim, gMemType, gOrder75, gSurfMode}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpSUST, opc: 0xb9d, archMax: 75, dsts: nil, pre: order75,
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gSurfDBA, gSurfDim, gMemType, gOrder75, gSurfMode}, tmpl: []fix{{84, 1, 1}}},
	{op: ori.OpSULD, opc: 0xb99, arch: 80, archMax: 89, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gSurfDBA, gSurfDim, gMemType, gOrder, gSurfMode}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpSULD, opc: 0xf99, arch: 90, dsts: []slot{dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gSurfDBA, gSurfDim, gMemType, gOrder, gSurfMode}, fix: []fix{{91, 1, 1}}, tmpl: []fix{{81, 4, 0xf}}},
	{op: ori.OpSUST, opc: 0xb9d, arch: 80, archMax: 89, dsts: nil,
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sImm, pos: 54, n: 5}, {k: sImm, pos: 40, n: 14}},
		mods: []group{gSurfDBA, gSurfDim, gMemType, gOrder, gSurfMode}, tmpl: []fix{{84, 1, 1}}},
	{op: ori.OpSUST, opc: 0xf9d, arch: 90, dsts: nil,
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sUR, pos: 40}, {k: sImm, pos: 54, n: 5}},
		mods: []group{gSurfDBA, gSurfDim, gMemType, gOrder, gSurfMode}, fix: []fix{{91, 1, 1}}, tmpl: []fix{{84, 1, 1}}},

	// Warp collectives and synchronization.
	{op: ori.OpSHFL, opc: 0x389, dsts: []slot{{k: sP, pos: 81}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sR, pos: 64}}, mods: []group{gShfl}},
	{op: ori.OpSHFL, opc: 0x589, dsts: []slot{{k: sP, pos: 81}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sR, pos: 32}, {k: sImm, pos: 40, n: 13}}, mods: []group{gShfl}},
	{op: ori.OpSHFL, opc: 0x989, dsts: []slot{{k: sP, pos: 81}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 53, n: 5}, {k: sR, pos: 64}}, mods: []group{gShfl}},
	{op: ori.OpSHFL, opc: 0xf89, dsts: []slot{{k: sP, pos: 81}, dR},
		srcs: []slot{{k: sR, pos: 24}, {k: sImm, pos: 53, n: 5}, {k: sImm, pos: 40, n: 13}}, mods: []group{gShfl}},
	{op: ori.OpVOTE, opc: 0x806, dsts: []slot{dR, {k: sP, pos: 81}}, srcs: []slot{{k: sP, pos: 87, not: 90}},
		mods: []group{{pos: 72, n: 2, names: modNames{{0, "ALL"}, {1, "ANY"}, {2, "EQ"}}}}},
	{op: ori.OpMATCH, opc: 0x3a1, dsts: []slot{dR, pd81}, srcs: []slot{{k: sR, pos: 24}},
		mods: []group{{pos: 79, n: 1, names: modNames{{0, "ALL"}, {1, "ANY"}}}, {pos: 73, n: 1, names: modNames{{0, ""}, {1, "U64"}}}}},
	{op: ori.OpREDUX, opc: 0x3c4, arch: 80, dsts: []slot{dUR}, srcs: []slot{{k: sR, pos: 24}},
		mods: []group{{pos: 78, n: 3, names: modNames{{0, "AND"}, {1, "OR"}, {2, "XOR"}, {3, "SUM"}, {4, "MIN"}, {5, "MAX"}}}, {pos: 73, n: 1, names: modNames{{0, ""}, {1, "S32"}}}}},
	// BAR.SYNC, BAR.ARV and BAR.RED: barForms (below).
	// B2R.RESULT d[, p]: bit 78 selects the barrier result (measured on
	// ptxas's B2R.RESULT R9 and B2R.RESULT RZ, P0 words), p at 81.
	{op: ori.OpB2R, key: []string{"RESULT"}, opc: 0x31c, dsts: []slot{dR, pd81}, fix: []fix{{78, 1, 1}}},
	{op: ori.OpWARPSYNC, opc: 0x148, alu: true, archMax: 89, srcs: []slot{bInt}, tmpl: []fix{{87, 3, 7}}},
	// sm_90: ptxas writes WARPSYNC with a register only; the immediate
	// form decodes as WARPSYNC.ALL whatever its mask (nvdisasm 13.5).
	{op: ori.OpWARPSYNC, opc: 0x348, arch: 90, srcs: []slot{{k: sR, pos: 24}}, tmpl: []fix{{87, 3, 7}}},
	{op: ori.OpWARPSYNC, opc: 0x948, arch: 90, srcs: []slot{{k: sAllLanes}}, tmpl: []fix{{87, 3, 7}}},
	{op: ori.OpNANOSLEEP, opc: 0x15d, alu: true, srcs: []slot{b}, tmpl: []fix{{87, 3, 7}}},
	{op: ori.OpMEMBAR, opc: 0x992,
		mods: []group{{pos: 79, n: 1, names: modNames{{0, ""}, {1, "ALL"}}}, {pos: 76, n: 3, names: modNames{{0, "CTA"}, {1, "SM"}, {2, "GPU"}, {3, "SYS"}}}}},
	// The fences of release and acquire atomics (lower's atomic.go):
	// ERRBAR 0x00000000000079ab, CGAERRBAR (sm_90) 0x00000000000075ab
	// with nothing but the control word above, and CCTL.IVALL
	// 0x00000000ff00798f 0x...0002000000 (RZ at 24, 4 in bits 87-90):
	// ptxas 13.0.88's words for atom.acquire/.release/.acq_rel probes on
	// sm_75, sm_80 and sm_90.
	{op: ori.OpERRBAR, opc: 0x9ab},
	{op: ori.OpCGAERRBAR, opc: 0x5ab, arch: 90},
	{op: ori.OpCCTL, key: []string{"IVALL"}, opc: 0x98f, fix: []fix{{24, 8, 0xff}, {87, 4, 4}}},
	// cp.async (lower/cpasync.go). LDGSTS 0xfae: the shared address's
	// register at 16 and its signed 20-bit offset at 44, the global
	// pair at 24 and its signed 12-bit offset at 32, the descriptor at
	// 64, the size at 73 as loads have it, bit 81 clear for .BYPASS
	// (cp.async.cg; set for .ca), .ZFILL at 82, the source predicate at 87 (not: 90); .E has no bit
	// (bits 71-72 are the L2 prefetch size .LTC64B/.LTC128B, 77-80 the
	// ordering, 84-86 the eviction priority, 1 normal). LDGDEPBAR 0x9af
	// is the opcode alone; DEPBAR 0x91a holds the scoreboard at 44, the
	// count at 38 and .LE at 47. Measured: ptxas 13.0.88's words for
	// testdata/lower/mem_cp_async.ptx, testdata/kernels/cp_async_srcsize
	// and ZLUDA's cp_async on sm_80-sm_90 (the same words on each), and
	// nvdisasm 13.5 -b SM80 over each bit of them flipped.
	{op: ori.OpLDGSTS, key: []string{"E"}, opc: 0xfae, arch: 80,
		srcs: []slot{{k: sMem, pos: 44, n: 20, basePos: 16, narrow: true}, {k: sMem, pos: 32, n: 12}, {k: sP, pos: 87, not: 90, opt: true}},
		mods: []group{{pos: 81, n: 1, names: modNames{{0, "BYPASS"}, {1, ""}}}, gMemType, {pos: 82, n: 1, names: modNames{{0, ""}, {1, "ZFILL"}}}},
		tmpl: []fix{{64, 6, 63}, {70, 1, 1}, {76, 1, 1}, {84, 3, 1}, {91, 1, 1}}},
	{op: ori.OpLDGDEPBAR, opc: 0x9af, arch: 80},
	{op: ori.OpDEPBAR, key: []string{"LE"}, opc: 0x91a, arch: 80, srcs: []slot{{k: sImm, pos: 44, n: 3}, {k: sImm, pos: 38, n: 6}}, fix: []fix{{47, 1, 1}}},
	{op: ori.OpBSSY, opc: 0x945, srcs: []slot{{k: sBar, pos: 16}, {k: sTarget, pos: 34, n: 30}}, tmpl: []fix{{87, 3, 7}}},
	{op: ori.OpBSYNC, opc: 0x941, srcs: []slot{{k: sBar, pos: 16}}, tmpl: []fix{{87, 3, 7}}},

	// Control.
	// Bits 32-33 are BRA's mode (.CONV, .DIV with a UR operand when bit
	// 91 is set); the offset, in 4-byte units, starts at 34. Bits 87-90
	// are a branch condition, PT here (nvdisasm: BRA P1, target is
	// another form); no value of them or of bits 82-104 names a uniform
	// predicate, so an @UP guard has no BRA word (measured with
	// nvdisasm on ptxas's BRA word).
	{op: ori.OpBRA, opc: 0x947, archMax: 89, srcs: []slot{{k: sTarget, pos: 34, n: 48}},
		fix: []fix{{32, 2, 0}, {91, 1, 0}, {87, 3, 7}, {90, 1, 0}}},
	{op: ori.OpBRA, opc: 0x947, arch: 90, srcs: []slot{{k: sTarget90}},
		fix: []fix{{32, 2, 0}, {91, 1, 0}, {87, 3, 7}, {90, 1, 0}}},
	{op: ori.OpEXIT, opc: 0x94d, tmpl: []fix{{87, 3, 7}}},
	// BRX Ra jumps to the offset in the pair Ra (a jump-table entry:
	// the target's offset from the kernel's start, JumpTable) plus the
	// kernel's start, which the branch field reaches from the next
	// instruction, as RET.REL.NODEC's. Measured on ptxas 13.0's words
	// for brx.idx probes: sm_80 0x000fea000383ffff_ffffff7004007949
	// (BRX R4 at 0x80), sm_90 0x000fea000383ffff_fffffffc04e07949 (R4 at
	// 0x70); bits 87-89 a PT condition as BRA's.
	{op: ori.OpBRX, opc: 0x949, srcs: []slot{{k: sR, pos: 24, words: 2}}, toBase: true, pre: brxPre, tmpl: []fix{{87, 3, 7}}},
	{op: ori.OpCALL, key: []string{"REL", "NOINC"}, opc: 0x944, srcs: []slot{{k: sSym}}, tmpl: []fix{{86, 4, 0xf}}},
	// CALL.REL.NOINC Ra calls the function at the offset in Ra (a
	// function pointer: the callee's offset from the kernel's start,
	// RelocFuncAddr) plus the kernel's start, which the branch field
	// reaches from the next instruction, as RET.REL.NODEC's. Only the
	// low word is an address (ptxas moves the 32-bit offset into Ra
	// alone). Measured on ptxas 13.0's words for
	// TestIndirectFunctionCall.ptx: sm_80 0x000fea0003c3ffff_fffffd8006007344
	// (CALL.REL.NOINC R6 at 0x270), sm_90 0x000fea0003c3ffff_fffffffc06587344
	// (R6 at 0x290).
	{op: ori.OpCALL, key: []string{"REL", "NOINC"}, opc: 0x344, srcs: []slot{{k: sR, pos: 24}}, toBase: true, tmpl: []fix{{86, 4, 0xf}}},
	// RET.REL.NODEC Ra returns to the address in the pair Ra (its low
	// word: the caller's return point as an offset from the kernel's
	// start) plus the kernel's start, which the branch field reaches
	// from the next instruction. Measured on ptxas 13.0's words:
	// sm_80 0xffffff1004007950 (RET.REL.NODEC R4 at 0xe0 of its kernel),
	// sm_90 0xfffffffc14107950 (R20 at 0x3b0); bits 86-89 as CALL's.
	{op: ori.OpRET, key: []string{"REL", "NODEC"}, opc: 0x950, srcs: []slot{{k: sR, pos: 24, words: 2}}, toBase: true, tmpl: []fix{{86, 4, 0xf}}},
	{op: ori.OpBPT, key: []string{"TRAP"}, opc: 0x95c, srcs: []slot{{k: sImm, pos: 34, n: 20}}, tmpl: []fix{{84, 2, 3}}},
	{op: ori.OpNOP, opc: 0x918},
}

// order75 writes an sm_75 global, generic or surface access for its
// word: the .cta scope, which orilab's lowering spells STRONG.SM (sm_80's
// name for it), is STRONG.CTA, as ptxas 13.0.88 -arch sm_75 writes it
// (ld/st/atom/red .relaxed.cta, suld/sust: STRONG.CTA, value 8; see
// gOrder75); and an atomic's U64 is 64 (atomPre).
//
// Decision: follow ptxas (CTA) rather than keep SM, which sm_75 also
// has (nvdisasm -b SM75 reads 9 as STRONG.SM): the CTA scope is what
// PTX's .cta asks for, and the listing then equals ptxas's.
func order75(in *ori.Inst, arch int) (*ori.Inst, error) {
	for i := 0; i+1 < len(in.Mods); i++ {
		if in.Mods[i] == "STRONG" && in.Mods[i+1] == "SM" {
			c := in.Clone()
			c.Mods = slices.Clone(in.Mods)
			c.Mods[i+1] = "CTA"
			in = c
			break
		}
	}
	return atomPre(in, arch)
}

// imadSHL turns orilab's IMAD.SHL d = a, k, c (a << k) + c into IMAD
// with the multiplier 1 << k, which is what the hardware computes and
// nvdisasm prints (as IMAD.SHL when c is RZ).
func imadSHL(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Srcs) < 2 || in.Srcs[1].Kind != ori.OpdImm || in.Srcs[1].Imm < 0 || in.Srcs[1].Imm > 31 {
		return nil, fmt.Errorf("IMAD.SHL takes a shift count 0-31 as source B")
	}
	c := in.Clone()
	c.Mods = c.Mods[1:]
	c.Srcs[1].Imm = int64(int32(uint32(1) << uint(in.Srcs[1].Imm)))
	return c, nil
}

// barForms lists the forms of BAR.SYNC, BAR.ARV and BAR.RED. Measured:
// ptxas 13.0.88's words for bar.sync, bar.arrive and bar.red with every
// mix of immediate and register operands on sm_80 and sm_90
// (testdata/lower/sync_bar*.ptx and probes), nvdisasm 13.5 -hex. Bits
// 77-78 hold the operation (0 SYNC, 1 ARV, 2 RED), 74-75 the reduction
// (0 POPC, 1 AND, 2 OR), 87-90 its predicate, bit 80 DEFER_BLOCKING
// (which ptxas sets on every SYNC and RED; orilab does not). The opcode
// says where the barrier and the thread count are:
//
//	0xb1d  BAR.SYNC 0x1, 0x40  barrier at 54 (4 bits), count at 42
//	                           (12 bits, 0: none, nvdisasm prints none)
//	0x91d  BAR.SYNC 0x1, R4    the count in the register at 32
//	0x51d  BAR.SYNC R0, 0x60   the barrier in the register at 32
//	0x31d  BAR.SYNC R5, R5     both in the register at 32: the barrier
//	                           in its low bits, the count in bits 16-27
//	                           (ptxas packs them with LOP3 ... 0xfff0000,
//	                           ... 0xe2; so does orilab's lowering)
//
// BAR.RED has no result in the word: B2R.RESULT reads it
// (PostFixForMercTargets splits orilab's BAR.RED d = ... in two).
func barForms() []*form {
	var out []*form
	bar := slot{k: sImm, pos: 54, n: 4}
	cnt := slot{k: sImm, pos: 42, n: 12}
	optCnt := slot{k: sImm, pos: 42, n: 12, opt: true}
	r := slot{k: sR, pos: 32}
	pred := slot{k: sP, pos: 87, not: 90}
	noCnt := fix{42, 12, 0}
	gDefer := group{pos: 80, n: 1, names: modNames{{0, ""}, {1, "DEFER_BLOCKING"}}}
	add := func(key string, op uint64, opc uint16, mods []group, srcs []slot, fixes ...fix) {
		fm := &form{op: ori.OpBAR, key: []string{key}, opc: opc, srcs: srcs, mods: mods,
			fix: append([]fix{{77, 2, op}}, fixes...)}
		if opc == 0x31d {
			fm.pre = packedBar
		}
		out = append(out, fm)
	}
	for _, k := range []struct {
		key  string
		op   uint64
		mods []group
	}{{"SYNC", 0, []group{gDefer}}, {"ARV", 1, nil}} {
		// The packed form first: an instruction with two registers
		// that no form holds is refused with its reason (packedBar).
		add(k.key, k.op, 0x31d, k.mods, []slot{r, r})
		add(k.key, k.op, 0xb1d, k.mods, []slot{bar, optCnt})
		add(k.key, k.op, 0x91d, k.mods, []slot{bar, r})
		add(k.key, k.op, 0x51d, k.mods, []slot{r, optCnt})
	}
	red := []group{{pos: 74, n: 2, names: modNames{{0, "POPC"}, {1, "AND"}, {2, "OR"}}}, gDefer}
	add("RED", 2, 0x31d, red, []slot{r, r, pred})
	add("RED", 2, 0xb1d, red, []slot{bar, pred}, noCnt)
	add("RED", 2, 0xb1d, red, []slot{bar, cnt, pred})
	add("RED", 2, 0x91d, red, []slot{bar, r, pred})
	add("RED", 2, 0x51d, red, []slot{r, pred}, noCnt)
	add("RED", 2, 0x51d, red, []slot{r, cnt, pred})
	return out
}

// packedBar refuses a BAR whose barrier and count are two different
// registers: the word has one register for both (barForms).
func packedBar(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Srcs) < 2 || in.Srcs[0].Kind != ori.OpdReg || in.Srcs[1].Kind != ori.OpdReg ||
		in.Srcs[0].Reg != in.Srcs[1].Reg || in.Srcs[0].Not || in.Srcs[1].Not {
		return nil, fmt.Errorf("the barrier and the count in registers must be one register holding both (the lowering packs them)")
	}
	return in, nil
}

// brxPre accepts an indirect branch whose register holds a jump-table
// entry (PostFixForMercTargets' form: BRX Ra.64, c[0x2][table],
// targets...) and drops the operands the word does not hold, and a
// decoded BRX Ra.64 as it is; Ori's BRX Ra, targets... (Ra an index into
// the targets) has no word.
func brxPre(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Srcs) == 1 {
		return in, nil
	}
	if in.Srcs[1].Kind != ori.OpdCBank {
		return nil, fmt.Errorf("an indirect branch on an index needs a jump table, which PostFixForMercTargets builds only in a kernel (bank 2 is the launched kernel's)")
	}
	c := in.Clone()
	c.Srcs = c.Srcs[:1]
	return c, nil
}

// atomsPre refuses a 64-bit ATOMS other than EXCH: ptxas 13.0.88
// writes atom.shared.{add.u64,min.s64,max.u64} as a compare-and-swap
// loop (ATOMS.CAST.SPIN.64; measured on sm_80 and sm_90), and nvdisasm
// reads the S64 type of ATOMS.MIN as S32 (sm_80) or INVALID5 (sm_90):
// no such word was measured. It is atomPre otherwise.
func atomsPre(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Mods) > 1 && in.Mods[0] != "EXCH" && (in.Mods[1] == "U64" || in.Mods[1] == "S64") {
		return nil, fmt.Errorf("no word: ptxas writes a 64-bit shared %s as a compare-and-swap loop (ATOMS.CAST.SPIN.64), which orilab's lowering does not yet", in.Mods[0])
	}
	return atomPre(in, arch)
}

// atomPre writes an atomic's U64 type as the word names it, 64 (ptxas's
// ATOMG.E.ADD.64, ATOMS.CAS.64: one type for the unsigned and the bit
// types, as Ori's U64 is).
func atomPre(in *ori.Inst, arch int) (*ori.Inst, error) {
	i := slices.Index(in.Mods, "U64")
	if i < 0 {
		return in, nil
	}
	c := in.Clone()
	c.Mods = slices.Clone(in.Mods)
	c.Mods[i] = "64"
	return c, nil
}

// regB refuses an HADD2 or HMUL2 whose source B is not an R register:
// their immediate, constant and uniform-register forms differ (measured
// with nvdisasm -b SM80/SM90: HADD2 R8, R8, UR8 is form 7, C's field,
// where HMUL2's is form 6; HADD2's form 6 is no instruction), and these
// tables describe neither.
func regB(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Srcs) > 1 && (in.Srcs[1].Kind != ori.OpdReg || in.Srcs[1].Reg.Class != ori.ClassR) {
		return nil, fmt.Errorf("source B %s: orilab encodes %s with R registers only", in.Srcs[1], in.Op)
	}
	return in, nil
}

// noImmB refuses an instruction whose source B is an immediate (IDP: no
// such form).
func noImmB(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Srcs) > 1 && in.Srcs[1].Kind == ori.OpdImm {
		return nil, fmt.Errorf("source B %s: %s has no form with an immediate", in.Srcs[1], in.Op)
	}
	return in, nil
}

// noImmC refuses an instruction whose source C is an immediate
// (IMAD.HI: no such form).
func noImmC(in *ori.Inst, arch int) (*ori.Inst, error) {
	if len(in.Srcs) > 2 && in.Srcs[2].Kind == ori.OpdImm {
		return nil, fmt.Errorf("source C %s: %s has no form with an immediate in C", in.Srcs[2], in.Name())
	}
	return in, nil
}

// Texture and surface modifier groups (see the forms).
var (
	gTexSCR = group{pos: 60, n: 1, names: modNames{{0, ""}, {1, "SCR"}}}
	gTexLL  = group{pos: 87, n: 3, names: modNames{{3, "LL"}}}
	gTexLZ  = group{pos: 87, n: 3, names: modNames{{1, "LZ"}}}
	gTLD4   = group{pos: 87, n: 2, names: modNames{{0, "R"}, {1, "G"}, {2, "B"}, {3, "A"}}}
	gTexDim = group{pos: 61, n: 3, names: modNames{{0, "1D"}, {1, "2D"}, {2, "3D"}, {4, "ARRAY_1D"}, {5, "ARRAY_2D"}}}
	// gTexMask is the write mask of TEX, TLD and TLD4: no modifier for
	// all four components, else the mask as nvdisasm prints it after the
	// dimension (opt/texmask.go).
	gTexMask = group{pos: 72, n: 4, names: modNames{{0xf, ""}, {1, "0x1"}, {2, "0x2"}, {3, "0x3"}, {4, "0x4"}, {5, "0x5"}, {6, "0x6"},
		{7, "0x7"}, {8, "0x8"}, {9, "0x9"}, {0xa, "0xa"}, {0xb, "0xb"}, {0xc, "0xc"}, {0xd, "0xd"}, {0xe, "0xe"}}}
	gTxqQuery = group{pos: 62, n: 2, names: modNames{{0, "TEX_HEADER_DIMENSION"}}}
	gSurfDBA  = group{pos: 72, n: 1, names: modNames{{1, "D.BA"}}}
	gSurfDim  = group{pos: 61, n: 3, names: modNames{{0, "1D"}, {2, "1D_ARRAY"}, {3, "2D"}, {5, "3D"}}}
	gSurfMode = group{pos: 59, n: 2, names: modNames{{1, ""}, {0, "IGN"}, {2, "TRAP"}}}
)

var gShfl = group{pos: 58, n: 2, names: modNames{{0, "IDX"}, {1, "UP"}, {2, "DOWN"}, {3, "BFLY"}}}
