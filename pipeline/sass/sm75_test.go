package sass

import "testing"

// TestSM75Words pins sm_75's global, generic, atomic, surface, texture and
// tensor-core forms (forms.go: Turing has no memory descriptor, so its
// accesses are the Volta register forms): each Ori instruction, with
// ptxas's control bits, encodes to the word ptxas 13.0.88 -arch sm_75
// wrote for it (probes of ld/st .global and generic of every size,
// ordering and scope, atom and red of every operation and type, and
// testdata/kernels/tex_forms.ptx, surf_forms.ptx, ZLUDA's ldmatrix_trans
// and an mma.sync probe with .target lowered to sm_75; nvdisasm 13.5
// -hex; the register numbers are ptxas's), prints as nvdisasm prints that
// word, and decodes back to the same text. The register-reuse bits
// (122-125) of ptxas's TEX.SCR.B, TLD4.SCR.A and HMMA words are cleared:
// orilab sets them only from its own reuse pass.
func TestSM75Words(t *testing.T) {
	cases := []struct {
		ori    string
		lo, hi uint64
		text   string
	}{
		// A weak access is .SYS, .nc CONSTANT.SYS, the 64-bit address
		// register prints without .64.
		{"LDG.E.U16 R0 = [R2.64+0x4]", 0x0000040002007381, 0x000ea800001ee500, "LDG.E.U16.SYS R0, [R2+0x4] ;"},
		{"LDG.E.STRONG.SYS R27 = [R2.64+0x30]", 0x00003000021b7381, 0x000ee800001f6900, "LDG.E.STRONG.SYS R27, [R2+0x30] ;"},
		{"LDG.E.64 R18.64 = [R2.64+0x8]", 0x0000080002127381, 0x000f2800001eeb00, "LDG.E.64.SYS R18, [R2+0x8] ;"},
		{"LDG.E.STRONG.GPU.128 R8.128 = [R2.64+0x30]", 0x0000300002087381, 0x000ea800001f4d00, "LDG.E.128.STRONG.GPU R8, [R2+0x30] ;"},
		{"LDG.E.CONSTANT R4 = [R2.64+0x20]", 0x0000200002047381, 0x000ee200001e6900, "LDG.E.CONSTANT.SYS R4, [R2+0x20] ;"},
		{"LDG.E.CONSTANT.64 R20.64 = [R2.64+0x28]", 0x0000280002147381, 0x000f2200001e6b00, "LDG.E.64.CONSTANT.SYS R20, [R2+0x28] ;"},
		{"LD.E R24 = [R16.64]", 0x0000000010187980, 0x000f28000010e900, "LD.E.SYS R24, [R16] ;"},
		{"LD.E.S16 R29 = [R16.64+0x10]", 0x00000010101d7980, 0x000f28000010e700, "LD.E.S16.SYS R29, [R16+0x10] ;"},
		{"LD.E.STRONG.GPU R31 = [R16.64+0x18]", 0x00000018101f7980, 0x000f220000114900, "LD.E.STRONG.GPU R31, [R16+0x18] ;"},
		{"STG.E.64 [R2.64+0x70], R8.64", 0x0000700802007386, 0x0001e8000010eb00, "STG.E.64.SYS [R2+0x70], R8 ;"},
		{"STG.E.U8 [R2.64+0x68], R4", 0x0000680402007386, 0x0001e8000010e100, "STG.E.U8.SYS [R2+0x68], R4 ;"},
		// .relaxed.cta: orilab's STRONG.SM is sm_75's STRONG.CTA.
		{"STG.E.STRONG.SM [R2.64+0xa0], R4", 0x0000a00402007386, 0x000fe80000110900, "STG.E.STRONG.CTA [R2+0xa0], R4 ;"},
		{"ST.E.64 [R16.64+0x70], R8.64", 0x0000007010007385, 0x000fe8000010eb08, "ST.E.64.SYS [R16+0x70], R8 ;"},
		{"ST.E.STRONG.GPU [R16.64+0x7c], R4", 0x0000007c10007385, 0x000fe20000114904, "ST.E.STRONG.GPU [R16+0x7c], R4 ;"},
		{"ATOMG.E.ADD.U32.STRONG.GPU R27 = [R24.64], R26", 0x0000001a181b73a8, 0x000ea800001f41ff, "ATOMG.E.ADD.STRONG.GPU PT, R27, [R24], R26 ;"},
		{"ATOMG.E.MIN.S32.STRONG.GPU R41 = [R24.64+0x8], R26", 0x0000081a182973a8, 0x00016800009f43ff, "ATOMG.E.MIN.S32.STRONG.GPU PT, R41, [R24+0x8], R26 ;"},
		{"ATOMG.E.ADD.U64.STRONG.GPU R6.64 = [R24.64+0x30], R4.64", 0x00003004180673a8, 0x000ea200001f45ff, "ATOMG.E.ADD.64.STRONG.GPU PT, R6, [R24+0x30], R4 ;"},
		{"ATOMG.E.CAS.U32.STRONG.GPU R37 = [R24.64+0x14], R26, R27", 0x0000141a182573a9, 0x00416800001f411b, "ATOMG.E.CAS.STRONG.GPU PT, R37, [R24+0x14], R26, R27 ;"},
		{"ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU R36 = [R24.64+0x58], R43", 0x0000582b182473a8, 0x00216800001f47ff, "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU PT, R36, [R24+0x58], R43 ;"},
		{"ATOMG.E.ADD.U32.STRONG.SM R10 = [R24.64+0x68], R26", 0x0000681a180a73a8, 0x000ee800001f01ff, "ATOMG.E.ADD.STRONG.CTA PT, R10, [R24+0x68], R26 ;"},
		{"ATOMG.E.ADD.U32.STRONG.SYS R45 = [R24.64+0x6c], R26", 0x00006c1a182d73a8, 0x000ee200001f61ff, "ATOMG.E.ADD.STRONG.SYS PT, R45, [R24+0x6c], R26 ;"},
		{"ATOM.E.INC.U32.STRONG.GPU R31 = [R20.64+0x4], R26", 0x0000041a141f738a, 0x00016800019f41ff, "ATOM.E.INC.STRONG.GPU PT, R31, [R20+0x4], R26 ;"},
		{"ATOM.E.CAS.U32.STRONG.GPU R0 = [R20.64+0x8], R26, R27", 0x0000081a1400738b, 0x00016800001f411b, "ATOM.E.CAS.STRONG.GPU PT, R0, [R20+0x8], R26, R27 ;"},
		{"ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU R44, P0 = [R20.64+0xc], R43", 0x00000c2b142c738a, 0x000ea200001147ff, "ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU P0, R44, [R20+0xc], R43 ;"},
		{"RED.E.ADD.U32.STRONG.GPU [R24.64+0x70], R26", 0x0000701a1800798e, 0x000fe20000114100, "RED.E.ADD.STRONG.GPU [R24+0x70], R26 ;"},
		{"RED.E.MIN.S32.STRONG.GPU [R24.64+0x78], R26", 0x0000781a1800798e, 0x000fe20000914300, "RED.E.MIN.S32.STRONG.GPU [R24+0x78], R26 ;"},
		{"RED.E.ADD.F64.RN.STRONG.GPU [R24.64+0x88], R22.64", 0x000088161800798e, 0x000fe20000114d00, "RED.E.ADD.F64.RN.STRONG.GPU [R24+0x88], R22 ;"},
		{"RED.E.ADD.U32.STRONG.SM [R24.64+0x94], R26", 0x0000941a1800798e, 0x000fe20000110100, "RED.E.ADD.STRONG.CTA [R24+0x94], R26 ;"},
		// Surfaces: sm_80's words with the .CTA scope.
		{"SULD.D.BA.2D.64.STRONG.SM R10.64 = R2, 0x0, 0x60", 0x68006000020a7b99, 0x00016200001f0b00, "SULD.D.BA.2D.64.STRONG.CTA R10, [R2], 0x0, 0x60 ;"},
		{"SULD.D.BA.1D.U8.STRONG.SM R0 = R0, 0x0, 0x61", 0x0800610000007b99, 0x000f6200001f0100, "SULD.D.BA.1D.U8.STRONG.CTA R0, [R0], 0x0, 0x61 ;"},
		{"SULD.D.BA.2D.STRONG.SM.IGN R29 = R6, 0x0, 0x60", 0x60006000061d7b99, 0x00036200001f0900, "SULD.D.BA.2D.STRONG.CTA.IGN R29, [R6], 0x0, 0x60 ;"},
		{"SULD.D.BA.3D.STRONG.SM.TRAP R21 = R4, 0x0, 0x63", 0xb000630004157b99, 0x000f6200001f0900, "SULD.D.BA.3D.STRONG.CTA.TRAP R21, [R4], 0x0, 0x63 ;"},
		{"SUST.D.BA.2D.STRONG.SM.TRAP R24, R22, 0x0, 0x5c", 0x70005c1618007b9d, 0x000fe20000110900, "SUST.D.BA.2D.STRONG.CTA.TRAP [R24], R22, 0x0, 0x5c ;"},
		{"SUST.D.BA.2D.STRONG.SM R14, R23, 0x0, 0x60", 0x680060170e007b9d, 0x000fe20000110900, "SUST.D.BA.2D.STRONG.CTA [R14], R23, 0x0, 0x60 ;"},
		// Textures: sm_80's words.
		{"TEX.SCR.B.LL.2D R6.64, R4.64 = R26, R6", 0x380000061a047361, 0x001f4800019e0f06, "TEX.SCR.B.LL R6, R4, R26, R6, 2D ;"},
		{"TEX.SCR.LL.ARRAY_2D R10.64, R8.64 = R20, R8, 0x0, 0x60", 0xb000600814087b60, 0x000f6200019e0f0a, "TEX.SCR.LL R10, R8, R20, R8, 0x0, 0x60, ARRAY_2D ;"},
		{"TLD.SCR.LZ.ARRAY_1D R14.64, R12.64 = R20, R40, 0x0, 0x61", 0x90006128140c7b66, 0x000f6200009e0f0e, "TLD.SCR.LZ R14, R12, R20, R40, 0x0, 0x61, ARRAY_1D ;"},
		{"TLD.SCR.LZ.1D R18.64, R16.64 = R0, 0x0, 0x5f", 0x10005fff00107b66, 0x000f6200009e0f12, "TLD.SCR.LZ R18, R16, R0, 0x0, 0x5f, 1D ;"},
		{"TLD.SCR.LZ.3D R30.64, R28.64 = R40, R40, 0x0, 0x62", 0x50006228281c7b66, 0x000f6200009e0f1e, "TLD.SCR.LZ R30, R28, R40, R40, 0x0, 0x62, 3D ;"},
		{"TLD4.SCR.A.2D R38.64, R36.64 = R24, R27, 0x0, 0x63", 0x3000631b18247b63, 0x000f4200019e0f26, "TLD4.SCR.A R38, R36, R24, R27, 0x0, 0x63, 2D ;"},
		{"TXQ.TEX_HEADER_DIMENSION RZ, R22 = R22, 0x0, 0x5f, 0x1", 0x00005f0016167b6f, 0x000f6200000001ff, "TXQ RZ, R22, R22, TEX_HEADER_DIMENSION, 0x0, 0x5f, 0x1 ;"},
		{"TXQ.B.TEX_HEADER_DIMENSION RZ, R23 = R42, 0x2", 0x080000002a177370, 0x000fe200000002ff, "TXQ.B RZ, R23, R42, TEX_HEADER_DIMENSION, 0x2 ;"},
		// Tensor cores: ldmatrix, and mma.sync's Turing shapes.
		{"LDSM.16.MT88.4 R8.128 = [R0]", 0x000000000008783b, 0x000e240000004200, "LDSM.16.MT88.4 R8, [R0] ;"},
		{"HMMA.1688.F32 R8.128 = R4.64, R6, R8.128", 0x000000060408723c, 0x008f6e0000001008, "HMMA.1688.F32 R8, R4, R6, R8 ;"},
		{"HMMA.1688.F16 R12.64 = R4.64, R6, R12.64", 0x00000006040c723c, 0x000f6c000000000c, "HMMA.1688.F16 R12, R4, R6, R12 ;"},
		{"IMMA.8816.S8.S8 R14.64 = R4, R6, R14.64", 0x00000006040e7237, 0x000e22000000540e, "IMMA.8816.S8.S8 R14, R4.ROW, R6.COL, R14 ;"},
	}
	for _, c := range cases {
		checkMeasuredWord(t, 75, c.ori, c.lo, c.hi, allBits, c.text, true)
	}
}

// TestSM75Refusals: what sm_75 lacks is refused with a reason: the shapes
// of mma.sync that need sm_80, a generic offset beyond 32 bits, a memory
// descriptor (sm_80 and later).
func TestSM75Refusals(t *testing.T) {
	cases := []struct{ ori, want string }{
		{"HMMA.16816.F32 R12.128 = R4.128, R20.64, R8.128", "sass: HMMA.16816.F32: no encoding of this modifier form for sm_75"},
		{"IMMA.16832.S8.S8 R4.128 = R16.128, R20.64, R8.128", "sass: IMMA.16832.S8.S8: no encoding of this modifier form for sm_75"},
		{"LDG.E R0 = [R2.64+0x800000]", "sass: LDG.E: source 0 ([R2.64+0x800000]): address offset 0x800000 does not fit 24 signed bits"},
		{"LD.E R0 = [R2.64+0x80000000]", "sass: LD.E: source 0 ([R2.64+0x80000000]): address offset 0x80000000 does not fit 32 signed bits"},
		{"LDG.E R0 = desc[UR4][R2.64]", "sass: LDG.E: source 0 (desc[UR4][R2.64]): desc[UR4][R2.64]: this form has no memory descriptor field"},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.ori+" ;\n")
		_, err := Encode(f.Blocks[0].Insts[0], 75, 0, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("sm_75 %s: %v, want %q", c.ori, err, c.want)
		}
	}
}
