package sass

import (
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/ori"
)

// arithWords are arithmetic forms with their words and nvdisasm's text:
// ptxas 13.0.88's words where it writes the form (probe kernels for
// cvt.{rn,rz,rm,rp}.{f16,bf16}.{s32,u32,s16,s64,u64,f32,f64},
// cvt.rz.f16x2.f32, bfind.s32, max.ftz.NaN.f32, fma.rn.relu.{f16x2,
// bf16x2} and dp4a with an immediate, disassembled with nvdisasm -hex),
// and otherwise orilab's words as nvdisasm -b SMxx prints them. The
// control bits (105 and up) are left out of the comparison.
var arithWords = []struct {
	arch   int
	ori    string
	lo, hi uint64
	text   string
}{
	{80, "F2FP.PACK_AB.RZ R10 = R3, R4", 0x00000004030a723e, 0x00000000000180ff, "F2FP.PACK_AB.RZ R10, R3, R4 ;"},
	{90, "F2FP.PACK_AB.RZ R10 = R3, R4", 0x00000004030a723e, 0x00000000000180ff, "F2FP.F16.F32.PACK_AB.RZ R10, R3, R4 ;"},
	{80, "I2F.F16.S32.RN R12 = R5", 0x00000005000c7306, 0x0000000000200c00, "I2F.F16 R12, R5 ;"},
	{90, "I2F.F16.U32.RZ R13 = R6", 0x00000006000d7306, 0x000000000020c800, "I2F.F16.U32.RZ R13, R6 ;"},
	{80, "I2F.F16.S16.RM R12 = R12", 0x0000000c000c7306, 0x0000000000104c00, "I2F.F16.S16.RM R12, R12 ;"},
	{90, "I2F.BF16.S32.RN R10 = R5", 0x00000005000a7306, 0x0000000000202400, "I2F.BF16 R10, R5 ;"},
	{90, "I2F.BF16.U32.RZ R5 = R5", 0x0000000500057306, 0x000000000020e000, "I2F.BF16.U32.RZ R5, R5 ;"},
	{90, "I2F.F16.S64.RN R5 = R2.64", 0x0000000200057312, 0x0000000000300c00, "I2F.F16.S64 R5, R2 ;"},
	{90, "I2F.F16.U64.RP R5 = R2.64", 0x0000000200057312, 0x0000000000308800, "I2F.F16.U64.RP R5, R2 ;"},
	{90, "I2F.BF16.S64.RN R5 = R2.64", 0x0000000200057312, 0x0000000000302400, "I2F.BF16.S64 R5, R2 ;"},
	{80, "F2F.BF16.F32.RN R8 = R0", 0x0000000000087304, 0x0000000000202000, "F2F.BF16.F32 R8, R0 ;"},
	{90, "F2F.BF16.F32.RZ R8 = R0", 0x0000000000087304, 0x000000000020e000, "F2F.BF16.F32.RZ R8, R0 ;"},
	{90, "F2F.F16.F64.RN R3 = R4.64", 0x0000000400037310, 0x0000000000300800, "F2F.F16.F64 R3, R4 ;"},
	{80, "F2F.F16.F64.RZ R10 = R4.64", 0x00000004000a7310, 0x000000000030c800, "F2F.F16.F64.RZ R10, R4 ;"},
	{90, "F2F.BF16.F64.RN R10 = R4.64", 0x00000004000a7310, 0x0000000000302000, "F2F.BF16.F64 R10, R4 ;"},
	{90, "F2F.BF16.F64.RM R6 = R4.64", 0x0000000400067310, 0x0000000000306000, "F2F.BF16.F64.RM R6, R4 ;"},
	{80, "FLO.S32 R12 = R7", 0x00000007000c7300, 0x00000000000e0200, "FLO R12, R7 ;"},
	{90, "FLO.U32 R10 = R10", 0x0000000a000a7300, 0x00000000000e0000, "FLO.U32 R10, R10 ;"},
	{80, "FMNMX.FTZ.NAN R12 = R3, R4, !PT", 0x00000004030c7209, 0x0000000007830000, "FMNMX.FTZ.NAN R12, R3, R4, !PT ;"},
	{90, "FMNMX.NAN R3 = R3, R4, PT", 0x0000000403037209, 0x0000000003820000, "FMNMX.NAN R3, R3, R4, PT ;"},
	{80, "HFMA2.BF16_V2.RELU R3 = R5, R6, R7", 0x0000000605037231, 0x0000000003a08007, "HFMA2.BF16_V2.RELU R3, R5, R6, R7 ;"},
	{90, "HFMA2.RELU R5 = R5, R6, R7", 0x0000000605057231, 0x0000000003808007, "HFMA2.RELU R5, R5, R6, R7 ;"},
	{80, "IDP.4A.S8.U8 R9 = R0, c[0x2][0x0], R4", 0x0080000000097a26, 0x0000000000000204, "IDP.4A.S8.U8 R9, R0, c[0x2][0x0], R4 ;"},
	// orilab's words, read by nvdisasm 13.5: IADD3.X's bit 63 on a
	// uniform register or a constant is ~; IMAD.HI with RZ in C (its
	// immediate form does not exist); FCHK's immediate is an f32.
	{80, "IADD3.X R5 = R7, !UR1, RZ, P0, !PT", 0x8000000107057c10, 0x00000000087fe4ff, "IADD3.X R5, R7, ~UR1, RZ, P0, !PT ;"},
	{80, "IMAD.HI R0 = R2, R3, RZ", 0x0000000302007227, 0x00000000078e02ff, "IMAD.HI R0, R2, R3, RZ ;"},
	{90, "FCHK.DIVIDE P0 = R2, 0f3F800000", 0x3f80000002007902, 0, "FCHK P0, R2, 1 ;"},
}

// TestArithWords: each form encodes to its word, prints as nvdisasm does,
// and decodes back to the same text.
func TestArithWords(t *testing.T) {
	for _, c := range arithWords {
		checkMeasuredWord(t, c.arch, c.ori, c.lo, c.hi, belowCtrl, c.text, false)
	}
}

// TestConstantModifiers: bits 63 and 62 of a constant source are its
// negation and absolute value (under .X, 63 is ~), as for registers. Ori's
// text has no modifier on a constant, so the operands are built here;
// nvdisasm -b SM80/SM90 prints the words with them, and the decoder reads
// them back.
func TestConstantModifiers(t *testing.T) {
	for _, c := range []struct {
		arch          int
		ori           string
		not, neg, abs bool
		text          string
	}{
		{90, "IADD3.X R5 = R7, c[0x0][0x164], RZ, P0, !PT", true, false, false, "IADD3.X R5, R7, ~c[0x0][0x164], RZ, P0, !PT ;"},
		{80, "FFMA R0 = R2, c[0x0][0x160], R3", false, true, false, "FFMA R0, R2, -c[0x0][0x160], R3 ;"},
		{90, "FADD R0 = R2, c[0x0][0x164]", false, true, true, "FADD R0, R2, -|c[0x0][0x164]| ;"},
	} {
		f := parseFunc(t, "BB0:\n\t#1 "+c.ori+" ;\n")
		in := f.Blocks[0].Insts[0]
		in.Srcs[1].Not, in.Srcs[1].Neg, in.Srcs[1].Abs = c.not, c.neg, c.abs
		w, err := Encode(in, c.arch, 0, nil)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if w.Bit(63) != (c.not || c.neg) || w.Bit(62) != c.abs {
			t.Errorf("%s: word %v", c.text, w)
		}
		if got, _ := InstTextRaw(in, c.arch); Normalize(got) != c.text {
			t.Errorf("prints %q, want %q", got, c.text)
		}
		d, err := Decode(w, c.arch, DecodeContext{Raw: true})
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if got, _ := InstTextRaw(d, c.arch); Normalize(got) != c.text {
			t.Errorf("decodes as %q, want %q", got, c.text)
		}
		if tool, err := nvtools.Find(nvtools.Nvdisasm); err == nil {
			got, err := NvdisasmRaw(tool, c.arch, w.Bytes(), 0)
			if err != nil || Normalize(got[0]) != c.text {
				t.Errorf("nvdisasm: %q, %v; want %q", got, err, c.text)
			}
		}
	}
}

// TestArithWordsNvdisasm runs nvdisasm over arithWords' encodings (and
// those of the other texts below): the table's texts are nvdisasm's.
func TestArithWordsNvdisasm(t *testing.T) {
	tool := nvtools.Require(t, nvtools.Nvdisasm)
	extra := []struct {
		arch int
		ori  string
		text string
	}{
		// HSETP2's B takes C's reuse flag; nvdisasm rejects the word
		// with B's.
		{80, "HSETP2.GT.AND P1, P2 = R0.reuse, R2.reuse, PT", "HSETP2.GT.AND P1, P2, R0.reuse, R2.reuse, PT ;"},
		{90, "MATCH.ALL R10, P0 = R0", "MATCH.ALL P0, R10, R0 ;"},
		{80, "MATCH.ALL.U64 R8 = R8.64", "MATCH.ALL.U64 PT, R8, R8 ;"},
		{90, "REDUX.AND UR62 = R0", "REDUX UR62, R0 ;"},
		{80, "LOP3.LUT R0, PT = R0, R3, R2, 0x3f, !PT", "LOP3.LUT R0, R0, R3, R2, 0x3f, !PT ;"},
		{80, "IMAD R4 = RZ, 0x1f, R16", "IMAD.MOV R4, RZ, 0x1f, R16 ;"},
		{90, "IMAD R4 = R5, RZ, R16", "IMAD.MOV R4, R5, RZ, R16 ;"},
		{80, "IMAD.SHL R0 = R5, 0x10, RZ", "IMAD R0, R5, 0x10000, RZ ;"},
		{90, "IMAD.U32 R0 = R5, 0x1, RZ", "IMAD.MOV.U32 R0, R5, 0x1, RZ ;"},
	}
	for _, c := range arithWords {
		extra = append(extra, struct {
			arch int
			ori  string
			text string
		}{c.arch, c.ori, c.text})
	}
	// One nvdisasm run per target: the words in a row.
	for _, arch := range []int{80, 90} {
		var blob []byte
		var insts []*ori.Inst
		var texts []string
		for _, c := range extra {
			if c.arch != arch {
				continue
			}
			f := parseFunc(t, "BB0:\n\t#1 [B------:R-:W-:-:S01] "+c.ori+" ;\n")
			in := f.Blocks[0].Insts[0]
			w, err := Encode(in, arch, 0, nil)
			if err != nil {
				t.Errorf("sm_%d %s: %v", arch, c.ori, err)
				continue
			}
			blob = append(blob, w.Bytes()...)
			insts = append(insts, in)
			texts = append(texts, c.text)
		}
		got, err := NvdisasmRaw(tool, arch, blob, 0)
		if err != nil {
			t.Errorf("sm_%d: %v", arch, err)
			continue
		}
		for i, in := range insts {
			mine, _ := InstTextRaw(in, arch)
			if Normalize(got[i]) != Normalize(texts[i]) || Normalize(mine) != Normalize(texts[i]) {
				t.Errorf("sm_%d %s: nvdisasm %q, orilab %q, want %q", arch, in, got[i], mine, texts[i])
			}
		}
	}
}

// TestArithRefuses: forms no word holds are errors, not words.
func TestArithRefuses(t *testing.T) {
	for _, c := range []struct {
		arch int
		ori  string
	}{
		{80, "IDP.4A.S8.U8 R0 = R12, 0x1020304, R7"},     // no immediate form
		{90, "IDP.4A.S8.U8 R0 = R12, R7, c[0x0][0x160]"}, // nothing but a register in C
		{80, "IMAD.HI R0 = R2, R3, 0x5"},                 // no immediate C
		{80, "IADD3.X R5 = R7, -UR1, RZ, P0, !PT"},       // .X takes ~
		{80, "I2F.BF16.S32.RN R10 = R5"},                 // sm_90 only
		{80, "F2F.BF16.F64.RN R10 = R4.64"},              // sm_90 only
		{75, "FMNMX.NAN R3 = R3, R4, PT"},                // sm_80 and later
	} {
		f := parseFunc(t, "BB0:\n\t#1 "+c.ori+" ;\n")
		if _, err := Encode(f.Blocks[0].Insts[0], c.arch, 0, nil); err == nil {
			t.Errorf("sm_%d %s encodes", c.arch, c.ori)
		}
	}
}

// TestLegalizeZeroC: an immediate 0 in C becomes RZ beside an immediate
// in B and in IMAD.HI, and stays elsewhere (LEA's third source is its
// shift).
func TestLegalizeZeroC(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"IMAD R5 = R5, 0x1f, 0x0", "IMAD R5 = R5, 0x1f, RZ"},
		{"IMAD.HI R0 = R2, R3, 0x0", "IMAD.HI R0 = R2, R3, RZ"},
		{"IADD3 R0 = R2, R3, 0x0", "IADD3 R0 = R2, 0x0, R3"}, // legalizeC
		{"LEA R0 = R2, R3, 0x0", "LEA R0 = R2, R3, 0x0"},
	} {
		f := parseFunc(t, "BB0:\n\t#1 "+c.in+" ;\n")
		in := f.Blocks[0].Insts[0]
		Legalize(in, 80)
		if got := strings.SplitN(in.String(), " ;", 2)[0]; got != "#1 "+c.want {
			t.Errorf("%s: legalized to %s, want %s", c.in, got, c.want)
		}
	}
}
