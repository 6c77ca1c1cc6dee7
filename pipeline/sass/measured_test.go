package sass

import "testing"

// TestTensorCoreWords pins the tensor-core forms: each Ori instruction,
// with ptxas's control word, encodes to the word ptxas 13.0.88 wrote
// for it (probe_mma and probe_ldsm of internal/gen, nvdisasm -hex), prints
// as nvdisasm prints that word, and decodes back to the same text.
func TestTensorCoreWords(t *testing.T) {
	cases := []struct {
		arch   int
		ori    string
		lo, hi uint64
		text   string
	}{
		{80, "[B01----:R-:W-:Y:S00] HMMA.16816.F32 R12.128 = R4.128, R20.64, R8.128", 0x00000014040c723c, 0x003fc00000001808, "HMMA.16816.F32 R12, R4, R20, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] HMMA.16816.F16 R12.64 = R12.128, R20.64, R8.64", 0x000000140c0c723c, 0x003fc00000000808, "HMMA.16816.F16 R12, R12, R20, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] HMMA.1688.F32 R12.128 = R12.64, R20, R8.128", 0x000000140c0c723c, 0x003fc00000001008, "HMMA.1688.F32 R12, R12, R20, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] HMMA.1688.F16 R4.64 = R16.64, R20, R8.64", 0x000000141004723c, 0x003fc00000000008, "HMMA.1688.F16 R4, R16, R20, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] HMMA.16816.F32.BF16 R4.128 = R4.128, R20.64, R16.128", 0x000000140404723c, 0x003fc00000041810, "HMMA.16816.F32.BF16 R4, R4, R20, R16 ;"},
		{80, "[B01----:R-:W-:Y:S00] HMMA.1688.F32.BF16 R4.128 = R12.64, R20, R4.128", 0x000000140c04723c, 0x003fc00000041004, "HMMA.1688.F32.BF16 R4, R12, R20, R4 ;"},
		{80, "[B01----:R-:W-:Y:S00] HMMA.1688.F32.TF32 R16.128 = R16.128, R20.64, R8.128", 0x000000141010723c, 0x003fc00000081008, "HMMA.1688.F32.TF32 R16, R16, R20, R8 ;"},
		{90, "[B01----:R-:W-:Y:S00] HMMA.1684.F32.TF32 R4.128 = R12.64, R2, R4.128", 0x000000020c04723c, 0x003fc00000085004, "HMMA.1684.F32.TF32 R4, R12, R2, R4 ;"},
		{80, "[B01----:R-:W-:Y:S00] IMMA.16832.S8.S8 R16.128 = R16.128, R20.64, R8.128", 0x0000001410107237, 0x003fc00000405c08, "IMMA.16832.S8.S8 R16, R16.ROW, R20.COL, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] IMMA.16832.U8.S8 R12.128 = R12.128, R20.64, R8.128", 0x000000140c0c7237, 0x003fc00000404c08, "IMMA.16832.U8.S8 R12, R12.ROW, R20.COL, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] IMMA.16832.S8.U8 R16.128 = R16.128, R20.64, R8.128", 0x0000001410107237, 0x003fc00000401c08, "IMMA.16832.S8.U8 R16, R16.ROW, R20.COL, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] IMMA.16832.U8.U8.SAT R12.128 = R12.128, R20.64, R8.128", 0x000000140c0c7237, 0x003fc00000440c08, "IMMA.16832.U8.U8.SAT R12, R12.ROW, R20.COL, R8 ;"},
		{90, "[B01----:R-:W-:Y:S00] IMMA.16816.S8.S8 R16.128 = R16.64, R2, R8.128", 0x0000000210107237, 0x003fc00000405408, "IMMA.16816.S8.S8 R16, R16.ROW, R2.COL, R8 ;"},
		{80, "[B01----:R-:W-:Y:S00] IMMA.16816.U8.U8 R12.128 = R12.64, R20, R8.128", 0x000000140c0c7237, 0x003fc00000400408, "IMMA.16816.U8.U8 R12, R12.ROW, R20.COL, R8 ;"},
		{80, "[B01----:R-:W-:Y:S15] IMMA.8816.S8.S8 R4.64 = R16, R20, R8.64", 0x0000001410047237, 0x003fde0000005408, "IMMA.8816.S8.S8 R4, R16.ROW, R20.COL, R8 ;"},
		{80, "[B01----:R-:W-:Y:S15] IMMA.8816.U8.S8.SAT R8.64 = R12, R20, R8.64", 0x000000140c087237, 0x003fde0000044408, "IMMA.8816.U8.S8.SAT R8, R12.ROW, R20.COL, R8 ;"},
		{80, "[B01----:R1:W0:Y:S00] DMMA.884 R4.128 = R6.64, R10.64, R4.128", 0x0000000a0604723f, 0x0032000000000004, "DMMA.884 R4, R6, R10, R4 ;"},
		{90, "[B01----:R1:W0:Y:S15] DMMA.884 R4.128 = R6.64, R2.64, R4.128", 0x000000020604723f, 0x00321e0000000004, "DMMA.8x8x4 R4, R6, R2, R4 ;"},
		{80, "[B01----:R1:W0:Y:S15] LDSM.16.M88 R4 = [R3]", 0x000000000304783b, 0x00321e0000000000, "LDSM.16.M88 R4, [R3] ;"},
		{80, "[B------:R-:W0:-:S01] LDSM.16.M88.2 R6.64 = [R4+0x20]", 0x000020000406783b, 0x000e220000000100, "LDSM.16.M88.2 R6, [R4+0x20] ;"},
		{90, "[B01----:R1:W0:Y:S15] LDSM.16.M88.4 R4.128 = [R4]", 0x000000000404783b, 0x00321e0000000200, "LDSM.16.M88.4 R4, [R4] ;"},
		{90, "[B01----:R1:W0:Y:S15] LDSM.16.MT88.2 R8.64 = [R8]", 0x000000000808783b, 0x00321e0000004100, "LDSM.16.MT88.2 R8, [R8] ;"},
		{80, "[B01----:R1:W0:Y:S15] LDSM.16.MT88.4 R4.128 = [R4]", 0x000000000404783b, 0x00321e0000004200, "LDSM.16.MT88.4 R4, [R4] ;"},
		{90, "[B01----:R1:W-:Y:S15] STSM.16.M88 [R15], R18", 0x000000120f007844, 0x0033de0000000000, "STSM.16.M88 [R15], R18 ;"},
		{90, "[B01----:R1:W-:Y:S15] STSM.16.M88.4 [R20], R4.128", 0x0000000414007844, 0x0033de0000000200, "STSM.16.M88.4 [R20], R4 ;"},
		{90, "[B01----:R1:W-:Y:S15] STSM.16.MT88.2 [R20], R12.64", 0x0000000c14007844, 0x0033de0000004100, "STSM.16.MT88.2 [R20], R12 ;"},
		// The atom.shared.add.f32 loop's compare-and-swap (ptxas
		// -arch sm_90 -O3 on an atom.shared.add.f32 probe).
		{90, "[B------:R-:W0:-:S02] ATOMS.CAST.SPIN R5 = [R0], R4, R5", 0x000000040005738d, 0x000e240001800005, "ATOMS.CAST.SPIN R5, [R0], R4, R5 ;"},
	}
	for _, c := range cases {
		checkMeasuredWord(t, c.arch, c.ori, c.lo, c.hi, allBits, c.text, false)
	}
	// STSM is an sm_90 form (stmatrix needs sm_90).
	f := parseFunc(t, "BB0:\n\t#1 STSM.16.M88 [R15], R18 ;\n")
	if _, err := Encode(f.Blocks[0].Insts[0], 80, 0, nil); err == nil {
		t.Errorf("STSM encodes for sm_80")
	}
}

// TestF2FPTF32Words pins cvt.{rn,rz}{.relu}.tf32.f32's F2FP words
// (ptxas 13.0.88's for testdata/kernels/cvt_tf32 on sm_90) and
// nvdisasm's text for them; sm_80 has no such word (nvdisasm -b SM80
// reads it as F2FP.BF16.MERGE_C), so the encoder refuses it there.
func TestF2FPTF32Words(t *testing.T) {
	cases := []struct {
		ori    string
		lo, hi uint64
		text   string
	}{
		{"[B------:R-:W-:-:S02] F2FP.TF32.F32.PACK_B R9 = RZ, R2.reuse", 0x00000002ff09723e, 0x080fe400024050ff, "F2FP.TF32.F32.PACK_B R9, R2.reuse ;"},
		{"[B------:R-:W-:-:S01] F2FP.TF32.F32.PACK_B.RZ R11 = RZ, R2.reuse", 0x00000002ff0b723e, 0x080fe2000241d0ff, "F2FP.TF32.F32.PACK_B.RZ R11, R2.reuse ;"},
		{"[B------:R-:W-:-:S01] F2FP.TF32.F32.PACK_B.RELU R13 = RZ, R2", 0x00000002ff0d723e, 0x000fe200024058ff, "F2FP.RELU.TF32.F32.PACK_B R13, R2 ;"},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.ori+" ;\n")
		if _, err := Encode(f.Blocks[0].Insts[0], 80, 0, nil); err == nil {
			t.Errorf("sm_80 %s encodes", c.ori)
		}
	}
	for _, arch := range []int{90} {
		for _, c := range cases {
			checkMeasuredWord(t, arch, c.ori, c.lo, c.hi, allBits, c.text, false)
		}
	}
}

// TestBarRedWords pins BAR.RED without a result and B2R.RESULT, which
// PostFixForMercTargets splits orilab's BAR.RED d = ... into, and
// BAR.SYNC with a register: ptxas 13.0.88's words for ZLUDA's
// bar_red_and_pred and bar_sync and the probe_forms kernel of
// internal/gen (sm_80; sm_90's are the same).
func TestBarRedWords(t *testing.T) {
	cases := []struct {
		ori    string
		lo, hi uint64
		text   string
	}{
		{"[B------:R-:W-:-:S06] BAR.RED.AND.DEFER_BLOCKING 0x1, !P0", 0x0040000000007b1d, 0x000fec0004014400, "BAR.RED.AND.DEFER_BLOCKING 0x1, !P0 ;"},
		{"[B------:R-:W-:-:S01] BAR.RED.OR.DEFER_BLOCKING 0x1, !PT", 0x0040000000007b1d, 0x000fe20007814800, "BAR.RED.OR.DEFER_BLOCKING 0x1, !PT ;"},
		{"[B------:R-:W-:-:S06] BAR.RED.POPC.DEFER_BLOCKING 0x0, !P0", 0x0000000000007b1d, 0x000fec0004014000, "BAR.RED.POPC.DEFER_BLOCKING 0x0, !P0 ;"},
		{"[B------:R-:W1:-:S01] B2R.RESULT RZ, P1 =", 0x0000000000ff731c, 0x000e620000024000, "B2R.RESULT RZ, P1 ;"},
		{"[B------:R-:W0:-:S04] B2R.RESULT R9 =", 0x000000000009731c, 0x000e2800000e4000, "B2R.RESULT R9 ;"},
		{"[B01----:R1:W-:Y:S15] BAR.SYNC.DEFER_BLOCKING R0", 0x000000000000751d, 0x0033de0000010000, "BAR.SYNC.DEFER_BLOCKING R0 ;"},
		{"[B01----:R1:W-:Y:S15] BAR.SYNC R4", 0x000000040000751d, 0x0033de0000000000, "BAR.SYNC R4 ;"},
	}
	for _, arch := range []int{80, 90} {
		for _, c := range cases {
			checkMeasuredWord(t, arch, c.ori, c.lo, c.hi, allBits, c.text, false)
		}
	}
	// A result on BAR.RED itself has no bits.
	f := parseFunc(t, "BB0:\n\t#1 BAR.RED.AND P1 = 0x0, P0 ;\n")
	if _, err := Encode(f.Blocks[0].Insts[0], 80, 0, nil); err == nil {
		t.Errorf("BAR.RED with a result encodes")
	}
}

// TestHalfWords pins F2F between f32 and f16, HADD2/HMUL2 on registers
// and the fp8 F2FP forms: ptxas 13.0.88's words where it writes them
// (F2F.F16.F32 on sm_75, HMUL2 on sm_90, F2FP on sm_89) and otherwise the words whose nvdisasm text was
// measured with nvdisasm -b SMxx. The control bits (105 and up) are
// left out of the comparison.
func TestHalfWords(t *testing.T) {
	cases := []struct {
		arch   int
		ori    string
		lo, hi uint64
		text   string
	}{
		{75, "F2F.F16.F32.RN R0 = c[0x0][0x168]", 0x00005a0000007b04, 0x0000000000200800, "F2F.F16.F32 R0, c[0x0][0x168] ;"},
		{80, "F2F.F16.F32.RZ R0 = R2", 0x0000000200007304, 0x000000000020c800, "F2F.F16.F32.RZ R0, R2 ;"},
		{90, "F2F.F16.F32.FTZ.RN R0 = R2", 0x0000000200007304, 0x0000000000210800, "F2F.FTZ.F16.F32 R0, R2 ;"},
		{80, "F2F.F32.F16 R0 = R2", 0x0000000200007304, 0x0000000000101000, "F2F.F32.F16 R0, R2 ;"},
		{90, "F2F.F32.F16.RM R0 = R2", 0x0000000200007304, 0x0000000000105000, "F2F.F32.F16.RM R0, R2 ;"},
		{80, "HADD2 R12 = R12, R12", 0x0000000c0c0c7230, 0, "HADD2 R12, R12, R12 ;"},
		{80, "HADD2.FTZ R12 = -R12, |R12|", 0x4000000c0c0c7230, 0x0000000000010100, "HADD2.FTZ R12, -R12, |R12| ;"},
		{90, "HADD2.BF16_V2.SAT R12 = R12, -R12", 0x8000000c0c0c7230, 0x0000000000202000, "HADD2.BF16_V2.SAT R12, R12, -R12 ;"},
		{90, "HMUL2 R10 = R8, R12", 0x0000000c080a7232, 0, "HMUL2 R10, R8, R12 ;"},
		{80, "HMUL2.FTZ R12 = R12, R12", 0x0000000c0c0c7232, 0x0000000000010000, "HMUL2.FTZ R12, R12, R12 ;"},
		// The fp8 conversions: ptxas's words for cvt.rn.satfinite{.relu}
		// .{e4m3x2,e5m2x2}.f32 and cvt.rn.f16x2.{e4m3x2,e5m2x2} (sm_89;
		// sm_90's are the same).
		{89, "F2FP.SATFINITE.E4M3.F32.PACK_AB R0 = R5, R0", 0x000000000500723e, 0x00000000048070ff, "F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C R0, R5, R0, RZ ;"},
		{90, "F2FP.SATFINITE.E5M2.F32.PACK_AB R4 = R5, R4", 0x000000040504723e, 0x00000000048060ff, "F2FP.SATFINITE.E5M2.F32.PACK_AB_MERGE_C R4, R5, R4, RZ ;"},
		{89, "F2FP.SATFINITE.RELU.E4M3.F32.PACK_AB R5 = R5, R2", 0x000000020505723e, 0x00000000048078ff, "F2FP.SATFINITE.RELU.E4M3.F32.PACK_AB_MERGE_C R5, R5, R2, RZ ;"},
		{89, "F2FP.F16.E4M3.UNPACK_B R7 = RZ, UR4", 0x00000004ff077c3e, 0x000000000a0006ff, "F2FP.F16.E4M3.UNPACK_B R7, UR4 ;"},
		{90, "F2FP.F16.E5M2.UNPACK_B R9 = RZ, UR4", 0x00000004ff097c3e, 0x000000000a0004ff, "F2FP.F16.E5M2.UNPACK_B R9, UR4 ;"},
	}
	for _, c := range cases {
		checkMeasuredWord(t, c.arch, c.ori, c.lo, c.hi, belowCtrl, c.text, false)
	}
	// sm_80 has no HADD2.BF16_V2 (nvdisasm -b SM80 ignores bit 85) and
	// no fp8 conversion (sm_89 and later), and a constant or a uniform
	// register in HADD2's or HMUL2's B is not a form orilab describes
	// (fuzz5551573 at -O3: the HADD2 word with UR8 in form 6, which is no
	// instruction, failed MercEncodeAndDecode).
	for _, s := range []string{"HADD2.BF16_V2 R12 = R12, R12", "HADD2 R8 = R8, c[0x0][0x170]",
		"F2FP.SATFINITE.E4M3.F32.PACK_AB R0 = R5, R0", "F2FP.F16.E4M3.UNPACK_B R7 = RZ, R4",
		"HADD2 R8 = R8, -UR8", "HMUL2 R8 = R8, UR8"} {
		f := parseFunc(t, "BB0:\n\t#1 "+s+" ;\n")
		if _, err := Encode(f.Blocks[0].Insts[0], 80, 0, nil); err == nil {
			t.Errorf("sm_80 %s encodes", s)
		}
	}
}
