package sass

import "testing"

// TestTextureWords pins the texture and surface forms: each Ori
// instruction, with ptxas's control bits, encodes to the word ptxas
// 13.0.88 wrote for testdata/kernels/tex_forms.ptx or surf_forms.ptx
// (and ZLUDA's tex_read_3d_float; -arch sm_80 and sm_90, nvdisasm 13.5
// -hex; the register numbers are ptxas's), prints as nvdisasm prints that
// word, and decodes back to the same text. The register-reuse bits (122-125) of ptxas's TEX.SCR.B,
// TLD.SCR.LZ 1D and TLD4.SCR.R words are cleared: orilab sets them only
// from its own reuse pass.
func TestTextureWords(t *testing.T) {
	cases := []struct {
		arch   int
		ori    string
		lo, hi uint64
		text   string
	}{
		{80, "TEX.SCR.LL.ARRAY_2D R22.64, R20.64 = R12, R20, 0x0, 0x60", 0xb00060140c147b60, 0x000f6200019e0f16, "TEX.SCR.LL R22, R20, R12, R20, 0x0, 0x60, ARRAY_2D ;"},
		// ZLUDA's tex_read_3d_float.
		{80, "TEX.SCR.LL.3D R6.64, R4.64 = R4, R6, 0x0, 0x5d", 0x50005d0604047b60, 0x000f4200019e0f06, "TEX.SCR.LL R6, R4, R4, R6, 0x0, 0x5d, 3D ;"},
		{90, "TEX.LL.3D R6.64, R4.64 = R4, R7, UR4, 0x0", 0x4000040704047f60, 0x001f6c00099e0f06, "TEX.LL R6, R4, R4, R7, UR4, 0x0, 3D ;"},
		{80, "TEX.SCR.B.LL.2D R6.64, R4.64 = R16, R6", 0x3800000610047361, 0x001f4200019e0f06, "TEX.SCR.B.LL R6, R4, R16, R6, 2D ;"},
		{90, "TEX.LL.2D R26.64, R24.64 = R24, R7, UR4, 0x0", 0x2000040718187f60, 0x008f6200099e0f1a, "TEX.LL R26, R24, R24, R7, UR4, 0x0, 2D ;"},
		{90, "TEX.LL.ARRAY_2D R6.64, R4.64 = R4, R7, UR8, 0x0", 0xa000080704047f60, 0x001f6200099e0f06, "TEX.LL R6, R4, R4, R7, UR8, 0x0, ARRAY_2D ;"},
		{80, "TLD.SCR.LZ.3D R10.64, R8.64 = R8, R8, 0x0, 0x62", 0x5000620808087b66, 0x000f6200009e0f0a, "TLD.SCR.LZ R10, R8, R8, R8, 0x0, 0x62, 3D ;"},
		{80, "TLD.SCR.LZ.ARRAY_1D R14.64, R12.64 = R12, R8, 0x0, 0x61", 0x900061080c0c7b66, 0x000f6400009e0f0e, "TLD.SCR.LZ R14, R12, R12, R8, 0x0, 0x61, ARRAY_1D ;"},
		{80, "TLD.SCR.LZ.1D R26.64, R24.64 = R24, 0x0, 0x5f", 0x10005fff18187b66, 0x000f4200009e0f1a, "TLD.SCR.LZ R26, R24, R24, 0x0, 0x5f, 1D ;"},
		{90, "TLD.LZ.3D R10.64, R8.64 = R8, UR12, 0x0", 0x40000cff08087f66, 0x004fe200089e0f0a, "TLD.LZ R10, R8, R8, UR12, 0x0, 3D ;"},
		{90, "TLD.LZ.1D R22.64, R20.64 = R20, UR6, 0x0", 0x000006ff14147f66, 0x000f6200089e0f16, "TLD.LZ R22, R20, R20, UR6, 0x0, 1D ;"},
		{80, "TLD4.SCR.R.2D R6.64, R4.64 = R0, R17, 0x0, 0x63", 0x3000631100047b63, 0x001f4200001e0f06, "TLD4.SCR.R R6, R4, R0, R17, 0x0, 0x63, 2D ;"},
		{80, "TLD4.SCR.A.2D R22.64, R20.64 = R0, R17, 0x0, 0x63", 0x3000631100147b63, 0x002f6200019e0f16, "TLD4.SCR.A R22, R20, R0, R17, 0x0, 0x63, 2D ;"},
		{90, "TLD4.A.2D R22.64, R20.64 = R20, UR14, 0x0", 0x20000eff14147f63, 0x010f6200099e0f16, "TLD4.A R22, R20, R20, UR14, 0x0, 2D ;"},
		{90, "TLD4.R.2D R18.64, R16.64 = R16, UR14, 0x0", 0x20000eff10107f63, 0x008f6200081e0f12, "TLD4.R R18, R16, R16, UR14, 0x0, 2D ;"},
		{80, "TXQ.TEX_HEADER_DIMENSION RZ, R18 = R18, 0x0, 0x5f, 0x1", 0x00005f0012127b6f, 0x000f6200000001ff, "TXQ RZ, R18, R18, TEX_HEADER_DIMENSION, 0x0, 0x5f, 0x1 ;"},
		{80, "TXQ.B.TEX_HEADER_DIMENSION RZ, R19 = R10, 0x2", 0x080000000a137370, 0x000fe200000002ff, "TXQ.B RZ, R19, R10, TEX_HEADER_DIMENSION, 0x2 ;"},
		{90, "TXQ.TEX_HEADER_DIMENSION RZ, R27 = R27, UR12, 0x0, 0x4", 0x00000c001b1b7f6f, 0x000fe200080004ff, "TXQ RZ, R27, R27, TEX_HEADER_DIMENSION, UR12, 0x0, 0x4 ;"},
		{80, "SULD.D.BA.2D.64.STRONG.SM R12.64 = R12, 0x0, 0x60", 0x680060000c0c7b99, 0x000f6200001eab00, "SULD.D.BA.2D.64.STRONG.SM R12, [R12], 0x0, 0x60 ;"},
		{80, "SULD.D.BA.2D.STRONG.SM.IGN R11 = R10, 0x0, 0x60", 0x600060000a0b7b99, 0x000fe200001ea900, "SULD.D.BA.2D.STRONG.SM.IGN R11, [R10], 0x0, 0x60 ;"},
		{80, "SULD.D.BA.1D.U8.STRONG.SM R0 = R0, 0x0, 0x61", 0x0800610000007b99, 0x000f6200001ea100, "SULD.D.BA.1D.U8.STRONG.SM R0, [R0], 0x0, 0x61 ;"},
		{80, "SULD.D.BA.1D_ARRAY.STRONG.SM.TRAP R22 = R20, 0x0, 0x62", 0x5000620014167b99, 0x000f6200001ea900, "SULD.D.BA.1D_ARRAY.STRONG.SM.TRAP R22, [R20], 0x0, 0x62 ;"},
		{80, "SULD.D.BA.3D.STRONG.SM.TRAP R23 = R4, 0x0, 0x63", 0xb000630004177b99, 0x002fe200001ea900, "SULD.D.BA.3D.STRONG.SM.TRAP R23, [R4], 0x0, 0x63 ;"},
		{90, "SULD.D.BA.1D.64.STRONG.SM.TRAP R18.64 = R25, UR5, 0x0", 0x1000050019127f99, 0x001f6200081eab00, "SULD.D.BA.1D.64.STRONG.SM.TRAP R18, [R25], UR5, 0x0 ;"},
		{90, "SULD.D.BA.2D.STRONG.SM.TRAP R8 = R8, UR4, 0x0", 0x7000040008087f99, 0x002fe200081ea900, "SULD.D.BA.2D.STRONG.SM.TRAP R8, [R8], UR4, 0x0 ;"},
		{80, "SUST.D.BA.2D.STRONG.SM.TRAP R22, R9, 0x0, 0x5c", 0x70005c0916007b9d, 0x0003e2000010a900, "SUST.D.BA.2D.STRONG.SM.TRAP [R22], R9, 0x0, 0x5c ;"},
		{80, "SUST.D.BA.2D.STRONG.SM R18, R26, 0x0, 0x60", 0x6800601a12007b9d, 0x000fe2000010a900, "SUST.D.BA.2D.STRONG.SM [R18], R26, 0x0, 0x60 ;"},
		{90, "SUST.D.BA.2D.STRONG.SM.IGN R14, R23, UR4, 0x0", 0x600004170e007f9d, 0x0007e2000810a900, "SUST.D.BA.2D.STRONG.SM.IGN [R14], R23, UR4, 0x0 ;"},
	}
	for _, c := range cases {
		checkMeasuredWord(t, c.arch, c.ori, c.lo, c.hi, allBits, c.text, true)
	}
	// ptxas wrote no bindless TLD: its word is not measured, so the
	// encoder refuses it rather than guess.
	f := parseFunc(t, "BB0:\n\t#1 TLD.SCR.B.LZ.2D R6.64, R4.64 = R4, R6 ;\n")
	if _, err := Encode(f.Blocks[0].Insts[0], 80, 0, nil); err == nil {
		t.Errorf("TLD.SCR.B.LZ encodes for sm_80")
	}
}
