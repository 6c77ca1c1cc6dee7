package sass

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// parseFunc reads a function in Ori's text form.
func parseFunc(t *testing.T, body string) *ori.Func {
	t.Helper()
	f, err := ori.ParseFunc("test.ori", []byte(".entry k\n{\n"+body+"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestEncodePtxasWords: instructions ptxas 13.0.88 wrote for a small
// kernel (nvdisasm -hex of its cubin), written in Ori with the same
// control words, encode to ptxas's words, the memory descriptor UR4 of
// the global accesses included (ptxas loads it from c[0x0][0x118]).
func TestEncodePtxasWords(t *testing.T) {
	f := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R1 = c[0x0][0x28] ;
	#2 [B------:R-:W0:-:S02] S2R R2 = SR_TID.X ;
	#3 [B0-----:R-:W-:Y:S13] ISETP.GE.U32.AND P0, PT = R2, c[0x0][0x168], PT ;
	#4 [B------:R-:W-:-:S05] @P0 EXIT ;
	#5 [B------:R-:W-:Y:S05] IMAD.WIDE.U32 R2.64 = R2, R3, c[0x0][0x160] ;
	#6 [B------:R-:W2:-:S02] LDG.E R0 = desc[UR4][R2.64+0x10] ;
	#7 [B--2---:R-:W-:Y:S05] FFMA R5 = R0, R0, 0f3F800000 ;
	#8 [B------:R-:W-:-:S01] STG.E desc[UR4][R2.64], R5 ;
	#9 [B------:R-:W-:-:S05] EXIT ;
BB1:
	#10 [B------:R-:W-:Y:S00] BRA BB1 ;
`)
	want := map[int][]Word{
		80: {
			{0x00000a0000017a02, 0x000fe40000000f00},
			{0x0000000000027919, 0x000e240000002100},
			{0x00005a0002007a0c, 0x001fda0003f06070},
			{0x000000000000094d, 0x000fea0003800000},
			{0x0000580002027625, 0x000fca00078e0003},
			{0x0000100402007981, 0x000ea4000c1e1900},
			{0x3f80000000057423, 0x004fca0000000000},
			{0x0000000502007986, 0x000fe2000c101904},
			{0x000000000000794d, 0x000fea0003800000},
			{0xfffffff000007947, 0x000fc0000383ffff},
		},
	}
	// sm_90 differs in the branch: the offset in 4-byte units, its low
	// byte at bits 16-23 (ptxas's self-branch: 0xfffffffc00fc7947).
	want[90] = append([]Word(nil), want[80]...)
	want[90][9] = Word{0xfffffffc00fc7947, 0x000fc0000383ffff}
	for _, arch := range []int{80, 90} {
		code, err := EncodeFunc(f, arch)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range code.Words {
			if w != want[arch][i] {
				t.Errorf("sm_%d #%d: %v, want %v", arch, i+1, w, want[arch][i])
			}
		}
	}
}

// TestDecodeRoundTrip decodes the words of a function back and compares
// the text and the control words, with Decode and with one Decoder
// reused for every word (whose results must not share operands).
func TestDecodeRoundTrip(t *testing.T) {
	var dec Decoder
	f := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R1 = c[0x0][0x28] ;
	#2 [B------:R-:W0:-:S01] S2R R0 = SR_TID.X ;
	#3 [B0-----:R-:W-:Y:S04] ISETP.GE.AND P0, PT = R0, c[0x0][0x170], PT ;
	#4 [B------:R-:W-:-:S01] BSSY 0x1, BB2 ;
	#5 [B------:R-:W-:-:S05] @!P0 BRA BB2 ;
BB1:
	#6 [B------:R-:W-:-:S04] IADD3 R6, P0 = R6.reuse, -0x1, RZ ;
	#7 [B------:R-:W-:-:S04] IADD3.X R7 = R7, RZ, RZ, P0, !PT ;
	#8 [B------:R-:W-:-:S04] LOP3.LUT R8, P1 = R6, 0xff, RZ, 0xc0, !PT ;
	#9 [B------:R-:W-:-:S04] FFMA R5 = -R4, |R4|, 0f3F800000 ;
	#10 [B------:R-:W-:-:S04] SHFL.BFLY P2, R9 = R8, 0x1, 0x1f ;
	#11 [B------:R-:W-:-:S04] PLOP3.LUT P0, PT = P1, PT, !P2, 0x80, 0x0 ;
	#12 [B------:R-:W-:-:S04] DADD R10.64 = R10.64, 0d3FF8000000000000 ;
	#13 [B------:R-:W1:-:S04] LDS.U16 R7 = [R0+0x4] ;
	#14 [B------:R1:W-:-:S04] STL.64 [R1-0x8], R10.64 ;
	#15 [B------:R-:W-:-:S04] BSYNC 0x1 ;
BB2:
	#16 [B------:R-:W-:Y:S05] EXIT ;
`)
	for _, arch := range Archs {
		if arch < 80 {
			continue
		}
		code, err := EncodeFunc(f, arch)
		if err != nil {
			t.Fatalf("sm_%d: %v", arch, err)
		}
		blocks := map[int]int32{}
		pc := 0
		var insts []*ori.Inst
		for _, b := range f.Blocks {
			blocks[pc] = b.ID
			pc += 16 * len(b.Insts)
			insts = append(insts, b.Insts...)
		}
		for i, w := range code.Words {
			d, err := Decode(w, arch, DecodeContext{PC: 16 * i, Blocks: blocks})
			if err != nil {
				t.Fatalf("sm_%d: %v", arch, err)
			}
			got, _ := InstText(d)
			want, _ := InstText(insts[i])
			if got != want || d.Ctrl != insts[i].Ctrl {
				t.Errorf("sm_%d: %s %v decodes as %s %v", arch, want, insts[i].Ctrl, got, d.Ctrl)
			}
			d, err = dec.Decode(w, arch, DecodeContext{PC: 16 * i, Blocks: blocks})
			if err != nil {
				t.Fatalf("sm_%d: Decoder: %v", arch, err)
			}
			if got, _ := InstText(d); got != want || d.Ctrl != insts[i].Ctrl {
				t.Errorf("sm_%d: Decoder: %s %v decodes as %s %v", arch, want, insts[i].Ctrl, got, d.Ctrl)
			}
		}
	}
}

// TestEncodeRefuses: operand forms no word can hold are errors that name
// the instruction; nothing is encoded silently wrong.
func TestEncodeRefuses(t *testing.T) {
	cases := []struct {
		arch      int
		inst, err string
	}{
		{80, "IMAD R6 = R5, 0x3, 0x7", "sass: IMAD: sources B 0x3 and C 0x7: only one may be an immediate, constant or uniform register"},
		{80, "FMUL R4 = 0f3F800000, R5", "sass: FMUL: source A 0f3F800000 must be a R register (legalize it first)"},
		{80, "IADD3 R4 = R5, R6, 0x1", "sass: IADD3: source C 0x1: this instruction has no form with an immediate, constant or uniform register in C (legalize it first)"},
		{80, "RET", "sass: RET: no encoding of this modifier form for sm_80"},
		{75, "HMNMX2 R0 = R2, R3, PT", "sass: HMNMX2: no encoding of this modifier form for sm_75"},
		{80, "LDG.E.FOO R0 = [R2.64]", "sass: LDG.E.FOO: modifier .FOO has no encoding here for sm_80 (or is out of order)"},
		{80, "LDG.E R0 = [R2.64+0x800000]", "sass: LDG.E: source 0 ([R2.64+0x800000]): address offset 0x800000 does not fit 24 signed bits"},
		{90, "WARPSYNC 0x5", "sass: WARPSYNC: source 0 (0x5): sm_90 has no form with an immediate mask other than all lanes (0x5); the mask must be in a register"},
		{80, "REDUX.SUM R8 = R9", "sass: REDUX.SUM: result 0: R8 where the encoding holds a UR register"},
		{80, "DADD R2.64 = R2.64, 0d3FB999999999999A", "sass: DADD: f64 immediate 0.10000000000000000555 needs more than the 32 upper bits the encoding holds"},
		{80, "MOV R3.64 = RZ", "sass: MOV: result 0: R3.64 is a 2-register tuple that is not aligned"},
		{80, "S2R R0 = SR_NOSUCH", "sass: S2R: source 0 (SR_NOSUCH): special register SR_NOSUCH has no number in orilab's table"},
		{80, "@P0 UIADD3 UR4 = UR4, 0x1, URZ", "sass: UIADD3: guard P0: a uniform instruction's guard is a uniform predicate"},
		{80, "IMMA.16832.S8.S8 R6.128 = R16.128, R20.64, R8.128", "sass: IMMA.16832.S8.S8: result 0: R6.128 is a 4-register tuple that is not aligned"},
		{75, "HMMA.16816.F32 R12.128 = R4.128, R20.64, R8.128", "sass: HMMA.16816.F32: no encoding of this modifier form for sm_75"},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.inst+" ;\n")
		in := f.Blocks[0].Insts[0]
		_, err := Encode(in, c.arch, 0, nil)
		if err == nil || err.Error() != c.err {
			t.Errorf("sm_%d %s: error %v, want %q", c.arch, c.inst, err, c.err)
		}
	}
	if _, err := Encode(ori.NewInst(ori.OpNOP), 70, 0, nil); err == nil || !strings.Contains(err.Error(), "no encoding tables for sm_70") {
		t.Errorf("sm_70: %v", err)
	}
}

// TestControlBits pins the control word's bits (the notation's meaning
// is in doc.go): yield is bit 109 clear.
func TestControlBits(t *testing.T) {
	c := ori.Ctrl{Set: true, Stall: 13, Yield: true, WrBar: 2, RdBar: 4, Wait: 0x21}
	var w Word
	if err := encodeCtrl(&w, c); err != nil {
		t.Fatal(err)
	}
	want := uint64(13)<<41 | 0<<45 | 2<<46 | 4<<49 | 0x21<<52
	if w.Hi != want {
		t.Errorf("control word %#x, want %#x", w.Hi, want)
	}
	if d := decodeCtrl(w); d != c {
		t.Errorf("decodes as %v, want %v", d, c)
	}
	if err := encodeCtrl(&w, ori.Ctrl{Set: true, Stall: 16, WrBar: -1, RdBar: -1}); err == nil {
		t.Error("stall 16 encoded")
	}
}

// TestLegalize: operand swaps keep the meaning (the LOP3 truth table is
// checked by evaluating it) and make the instruction encodable.
func TestLegalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ISETP.LT.U32.AND P0, PT = c[0x0][0x170], R2, PT", "ISETP.GT.U32.AND P0, PT, R2, c[0x0][0x170], PT ;"},
		{"IADD3 R4 = 0x1, R5, RZ", "IADD3 R4, R5, 0x1, RZ ;"},
		{"IADD3 R4 = R5, RZ, 0x1", "IADD3 R4, R5, 0x1, RZ ;"},
		{"SEL R4 = 0x1, RZ, P0", "SEL R4, RZ, 0x1, !P0 ;"},
		{"FMUL R4 = 0f3F800000, R5", "FMUL R4, R5, 1 ;"},
		{"LOP3.LUT R4 = 0xff, R5, R6, 0xe0, !PT", "LOP3.LUT R4, R5, 0xff, R6, 0xc8, !PT ;"},
		{"LOP3.LUT R4 = R5, R6, 0xff, 0xd8, !PT", "LOP3.LUT R4, R5, 0xff, R6, 0xb8, !PT ;"},
		{"SEL R4 = 0x1, 0x0, P0", "SEL R4, RZ, 0x1, !P0 ;"},
		{"LDG.E.CONSTANT.64 R4.64 = desc[UR4][R2.64]", "LDG.E.64.CONSTANT R4, [R2.64] ;"},
		{"ATOMG.E.CAS.U32.STRONG.GPU R9 = [R4.64+0xc], R2, R3", "ATOMG.E.CAS.STRONG.GPU PT, R9, [R4+0xc], R2, R3 ;"},
		{"STG.E.STRONG.GPU.64 desc[UR4][R2.64], R4.64", "STG.E.64.STRONG.GPU [R2.64], R4 ;"},
		{"SEL R4 = 0x0, 0x7ff00000, P0", "SEL R4, RZ, 0x7ff00000, P0 ;"},
		{"FSETP.GT.AND P0, PT = 0f00000000, R5, PT", "FSETP.GT.AND P0, PT, RZ, R5, PT ;"},
		{"LOP3.LUT R4 = 0x0, 0xff, R5, 0xc0, !PT", "LOP3.LUT R4, RZ, 0xff, R5, 0xc0, !PT ;"},
		{"IMAD R4 = R4, 0x1f, 0x0", "IMAD R4, R4, 0x1f, RZ ;"},
		{"IMAD R4 = 0x1f, R4, 0x0", "IMAD R4, R4, 0x1f, RZ ;"},
		{"IMAD R4 = R4, c[0x0][0x0], 0x0", "IMAD R4, R4, c[0x0][0x0], RZ ;"},
		{"IMAD R4 = R4, R5, 0x0", "IMAD R4, R4, R5, 0x0 ;"},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.in+" ;\n")
		in := f.Blocks[0].Insts[0]
		Legalize(in, 80)
		got, _ := InstText(in)
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
		if _, err := Encode(in, 80, 0, nil); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
	for lut := 0; lut < 256; lut++ {
		for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
			q := permuteLUT(uint8(lut), p[0], p[1])
			for n := 0; n < 8; n++ {
				v := [3]int{n >> 2 & 1, n >> 1 & 1, n & 1}
				w := v
				w[p[0]], w[p[1]] = v[p[1]], v[p[0]]
				if lut>>(v[0]<<2|v[1]<<1|v[2])&1 != int(q)>>(w[0]<<2|w[1]<<1|w[2])&1 {
					t.Fatalf("permuteLUT(%#x, %d, %d) = %#x is wrong at %d", lut, p[0], p[1], q, n)
				}
			}
		}
	}
}

// TestNormalize pins the comparison's normalization.
func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"@P0  EXIT ;", "@P0 EXIT ;"},
		{"BRA 0x10;", "BRA 0x10 ;"},
		{"HFMA2 R10, R11, c[0x0] [0x170], R10 ;", "HFMA2 R10, R11, c[0x0][0x170], R10 ;"},
		{"@!P1  BRA `(0x50) ;", "@!P1 BRA 0x50 ;"},
		{"DSETP.GTU.AND P0, PT, |R2|, +INF , PT ;", "DSETP.GTU.AND P0, PT, |R2|, +INF, PT ;"},
		{"CALL.REL.NOINC 0x30 ;", "CALL.REL.NOINC `(CALLEE) ;"},
		{"CALL.REL.NOINC `(helper) ;", "CALL.REL.NOINC `(CALLEE) ;"},
		{"RET.REL.NODEC R20 `(k) ;", "RET.REL.NODEC R20 `(KERNEL) ;"},
		{"@P0 RET.REL.NODEC R6 0x0 ;", "@P0 RET.REL.NODEC R6 `(KERNEL) ;"},
		{"BRX R4 -0x90                             (*\"BRANCH_TARGETS .L_x_3,.L_x_4\"*);", "BRX R4 `(KERNEL) ;"},
		{"BRX R4 `(0x0) ;", "BRX R4 `(KERNEL) ;"},
		{"LDG.E R0, desc[URZ][R2.64+0x10] ;", "LDG.E R0, [R2.64+0x10] ;"},
		{"LDG.E R0, desc[UR4][R2.64+0x10] ;", "LDG.E R0, desc[UR4][R2.64+0x10] ;"},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestEncodeCallWords: the return's word and the return point's MOV
// against ptxas 13.0's (nvdisasm -hex; the kernel starts at 0, so the
// unlinked field, which points at address 0, is ptxas's). Bits 105 and
// up are the control word, which the scheduler sets.
func TestEncodeCallWords(t *testing.T) {
	cases := []struct {
		arch   int
		pc     int
		inst   string
		lo, hi uint64
	}{
		// sm_80: RET.REL.NODEC R4 `(k) at 0xe0 (0xffffff1004007950,
		// 0x000fea0003c3ffff).
		{80, 0xe0, "RET.REL.NODEC R4.64", 0xffffff1004007950, 0x0003c3ffff},
		// sm_90: RET.REL.NODEC R20 `(k) at 0x3b0 (0xfffffffc14107950,
		// 0x004fec0003c3ffff).
		{90, 0x3b0, "RET.REL.NODEC R20.64", 0xfffffffc14107950, 0x0003c3ffff},
		// MOV R20, 0x590: the return point once resolved
		// (0x0000059000147802, 0x000fe40000000f00).
		{80, 0x570, "MOV R20 = 0x590", 0x0000059000147802, 0x0000000f00},
		// CALL.REL.NOINC R6 `(kernelEntry), a call through a function
		// pointer (TestIndirectFunctionCall.ptx): sm_80 at 0x270
		// (0xfffffd8006007344, 0x000fea0003c3ffff), sm_90 at 0x290
		// (0xfffffffc06587344, 0x000fea0003c3ffff).
		{80, 0x270, "CALL.REL.NOINC R6", 0xfffffd8006007344, 0x0003c3ffff},
		{90, 0x290, "CALL.REL.NOINC R6", 0xfffffffc06587344, 0x0003c3ffff},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.inst+" ;\n")
		w, err := Encode(f.Blocks[0].Insts[0], c.arch, c.pc, nil)
		if err != nil {
			t.Errorf("sm_%d %s: %v", c.arch, c.inst, err)
			continue
		}
		if lo, hi := w.Field(0, 64), w.Field(64, 41); lo != c.lo || hi != c.hi {
			t.Errorf("sm_%d %s at 0x%x: 0x%016x 0x%x, want ptxas's 0x%016x 0x%x", c.arch, c.inst, c.pc, lo, hi, c.lo, c.hi)
		}
		d, err := Decode(w, c.arch, DecodeContext{PC: c.pc})
		if err != nil {
			t.Errorf("sm_%d %s: %v", c.arch, c.inst, err)
			continue
		}
		want := c.inst + " ;"
		if strings.HasPrefix(c.inst, "RET") || strings.HasPrefix(c.inst, "CALL") {
			want = strings.Replace(c.inst, ".64", "", 1) + " `(0x0) ;"
		}
		if got, _ := InstText(d); got != want && !strings.HasPrefix(c.inst, "MOV") {
			t.Errorf("sm_%d: %s decodes as %s", c.arch, c.inst, got)
		}
	}
	// The field must point at address 0: a word moved elsewhere unlinked
	// does not decode.
	f := parseFunc(t, "BB0:\n\t#1 RET.REL.NODEC R20.64 ;\n")
	w, _ := Encode(f.Blocks[0].Insts[0], 80, 0x40, nil)
	if _, err := Decode(w, 80, DecodeContext{PC: 0x50}); err == nil || !strings.Contains(err.Error(), "does not point at the start of the code") {
		t.Errorf("a return word decoded at the wrong address: %v", err)
	}
	// An unresolved return point is refused, not encoded as something.
	f = parseFunc(t, "BB0:\n\t#1 MOV R20 = `.ret` ;\n\t#2 CALL.REL.NOINC `g` ;\n")
	if _, err := Encode(f.Blocks[0].Insts[0], 80, 0, nil); err == nil || err.Error() != "sass: MOV: `.ret` cannot be source B of an ALU instruction" {
		t.Errorf("an unresolved return point: %v", err)
	}
}

// TestEncodeSharedAddressWords: the sm_90 shared-address sequence
// encodes as ptxas 13.0.88's words (control bits aside) and decodes back
// to the same text: S2R R7, SR_CgaCtaId (0x0000000000077919,
// 0x000e220000008800) and LEA R6, R7, R0, 0x18 (0x0000000007067211,
// 0x001fe200078ec0ff), from ptxas -arch=sm_90 on a cvta.shared of a
// variable's address, and the uniform-datapath pair of -O3.
func TestEncodeSharedAddressWords(t *testing.T) {
	cases := []struct {
		inst, text string
		lo, hi     uint64
	}{
		{"S2R R7 = SR_CgaCtaId", "S2R R7, SR_CgaCtaId ;", 0x0000000000077919, 0x8800},
		{"LEA R6 = R7, R0, 0x18", "LEA R6, R7, R0, 0x18 ;", 0x0000000007067211, 0x00078ec0ff},
		// -O3: S2UR UR5, SR_CgaCtaId (0x00000000000579c3,
		// 0x000e620000008800) and ULEA UR4, UR5, UR4, 0x18
		// (0x0000000405047291, 0x002fcc000f8ec03f).
		{"S2UR UR5 = SR_CgaCtaId", "S2UR UR5, SR_CgaCtaId ;", 0x00000000000579c3, 0x8800},
		{"ULEA UR4 = UR5, UR4, 0x18", "ULEA UR4, UR5, UR4, 0x18 ;", 0x0000000405047291, 0x000f8ec03f},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.inst+" ;\n")
		w, err := Encode(f.Blocks[0].Insts[0], 90, 0, nil)
		if err != nil {
			t.Errorf("%s: %v", c.inst, err)
			continue
		}
		if lo, hi := w.Field(0, 64), w.Field(64, 41); lo != c.lo || hi != c.hi {
			t.Errorf("%s: 0x%016x 0x%x, want ptxas's 0x%016x 0x%x", c.inst, lo, hi, c.lo, c.hi)
		}
		d, err := Decode(w, 90, DecodeContext{})
		if err != nil {
			t.Errorf("%s: %v", c.inst, err)
			continue
		}
		if got, _ := InstText(d); got != c.text {
			t.Errorf("%s decodes as %q, want %q", c.inst, got, c.text)
		}
	}
}
