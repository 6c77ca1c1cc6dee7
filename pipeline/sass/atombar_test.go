package sass

import (
	"fmt"
	"testing"
)

// TestAtomicAndBarrierWords pins the atomic, fence and barrier forms:
// each Ori instruction, with ptxas's control word, encodes to the word
// ptxas 13.0.88 wrote for it (-O3 probes of atom/red with every type,
// order and scope, and of bar.sync/bar.arrive/bar.red with every mix of
// immediate and register operands, on sm_80 and sm_90; nvdisasm 13.5
// -hex), prints as nvdisasm prints that word, and decodes back to the
// same text.
func TestAtomicAndBarrierWords(t *testing.T) {
	cases := []struct {
		arch   int
		ori    string
		lo, hi uint64
		text   string
	}{
		{90, "[B------:R0:W5:-:S04] ATOMG.E.MIN.S64.STRONG.GPU R10.64 = desc[UR6][R28.64], R18.64", 0x000000121c0a79a8, 0x00016800089ee7c6, "ATOMG.E.MIN.S64.STRONG.GPU PT, R10, desc[UR6][R28.64], R18 ;"},
		{90, "[B------:R-:W2:-:S04] @P0 ATOMG.E.ADD.U64.STRONG.GPU R26.64 = desc[UR6][R28.64], R36.64", 0x000000241c1a09a8, 0x000ea800081ee5c6, "@P0 ATOMG.E.ADD.64.STRONG.GPU PT, R26, desc[UR6][R28.64], R36 ;"},
		{90, "[B---3--:R0:W5:-:S04] ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU R2 = desc[UR6][R28.64+0x8], R3", 0x000008031c0279a3, 0x00816800081ef3c6, "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU PT, R2, desc[UR6][R28.64+0x8], R3 ;"},
		{90, "[B------:R0:W5:-:S04] ATOMG.E.ADD.F64.RN.STRONG.GPU R8.64 = desc[UR6][R28.64+0x10], R14.64", 0x0000100e1c0879a3, 0x00016800081effc6, "ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R8, desc[UR6][R28.64+0x10], R14 ;"},
		{90, "[B----4-:R0:W5:-:S01] ATOMG.E.ADD.F16x2.RN.STRONG.GPU R13 = desc[UR6][R24.64], R12", 0x0000000c180d79a3, 0x01016200081ee1c6, "ATOMG.E.ADD.F16x2.RN.STRONG.GPU PT, R13, desc[UR6][R24.64], R12 ;"},
		{90, "[B------:R0:W5:-:S04] ATOMG.E.ADD.BF16x2.RN.STRONG.GPU R0 = desc[UR6][R24.64], R12", 0x0000000c180079a3, 0x00016800081ee7c6, "ATOMG.E.ADD.BF16x2.RN.STRONG.GPU PT, R0, desc[UR6][R24.64], R12 ;"},
		{90, "[B------:R1:W5:-:S01] ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU R40, P0 = desc[UR6][R28.64+0x8], R3", 0x000008031c2879a2, 0x000362000810f3c6, "ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU P0, R40, desc[UR6][R28.64+0x8], R3 ;"},
		{90, "[B0-----:R0:W5:-:S01] ATOM.E.MIN.S64.STRONG.GPU R16.64, P0 = desc[UR6][R28.64], R18.64", 0x000000121c10798a, 0x001162000890e7c6, "ATOM.E.MIN.S64.STRONG.GPU P0, R16, desc[UR6][R28.64], R18 ;"},
		{90, "[B------:R0:W-:-:S04] RED.E.ADD.F64.RN.STRONG.GPU desc[UR6][R28.64+0x10], R14.64", 0x0000100e1c0079a6, 0x0001e8000c10ff86, "REDG.E.ADD.F64.RN.STRONG.GPU desc[UR6][R28.64+0x10], R14 ;"},
		{90, "[B------:R-:W-:-:S01] RED.E.MIN.S64.STRONG.GPU desc[UR6][R28.64], R18.64", 0x000000121c00798e, 0x000fe2000c90e786, "REDG.E.MIN.S64.STRONG.GPU desc[UR6][R28.64], R18 ;"},
		{90, "[B0-----:R-:W3:-:S04] ATOMG.E.MAX.S32.STRONG.SM R46 = desc[UR6][R24.64], R12", 0x0000000c182e79a8, 0x001ee800091ea3c6, "ATOMG.E.MAX.S32.STRONG.SM PT, R46, desc[UR6][R24.64], R12 ;"},
		{90, "[B------:R0:W5:-:S04] ATOMG.E.CAS.U64.STRONG.GPU R34.64 = [R28.64], R20.64, R22.64", 0x000000141c2273a9, 0x00016800001ee516, "ATOMG.E.CAS.64.STRONG.GPU PT, R34, [R28], R20, R22 ;"},
		{90, "[B------:R0:W1:-:S04] ATOMS.CAS.U64 R20.64 = [R25+0x8], R20.64, R22.64", 0x000008141914738d, 0x0000680000000416, "ATOMS.CAS.64 R20, [R25+0x8], R20, R22 ;"},
		{80, "[B01----:R1:W0:Y:S15] ATOMS.EXCH.U64 R12.64 = [0x0], R10.64", 0x0000000aff0c738c, 0x00321e0004000400, "ATOMS.EXCH.64 R12, [RZ], R10 ;"},
		{90, "[B01----:R1:W0:Y:S15] ATOM.E.ADD.F16x2.RN.STRONG.GPU R27, P0 = desc[UR4][R12.64], R5", 0x000000050c1b79a2, 0x00321e000810e1c4, "ATOM.E.ADD.F16x2.RN.STRONG.GPU P0, R27, desc[UR4][R12.64], R5 ;"},
		{90, "[B--2---:R-:W-:-:S04] CCTL.IVALL", 0x00000000ff00798f, 0x004fe80002000000, "CCTL.IVALL ;"},
		{90, "[B------:R-:W-:-:S06] MEMBAR.ALL.GPU", 0x0000000000007992, 0x000fec000000a000, "MEMBAR.ALL.GPU ;"},
		{90, "[B------:R-:W-:Y:S00] ERRBAR", 0x00000000000079ab, 0x000fc00000000000, "ERRBAR ;"},
		{90, "[B------:R-:W-:-:S06] CGAERRBAR", 0x00000000000075ab, 0x000fec0000000000, "CGAERRBAR ;"},
		{80, "[B------:R0:W5:-:S04] ATOMG.E.MIN.S64.STRONG.GPU R12.64 = desc[UR6][R30.64+0x8], R18.64", 0x000008121e0c79a8, 0x00016800089eebc6, "ATOMG.E.MIN.S64.STRONG.GPU PT, R12, [R30.64+0x8], R18 ;"},
		{80, "[B---3--:R0:W5:-:S04] ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU R0 = desc[UR6][R30.64+0x10], R2", 0x000010021e0079a8, 0x00816800081ee7c6, "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU PT, R0, [R30.64+0x10], R2 ;"},
		{80, "[B------:R0:W5:-:S04] ATOMG.E.ADD.F16x2.RN.STRONG.GPU R15 = desc[UR6][R30.64], R14", 0x0000000e1e0f79a8, 0x00016800081ee9c6, "ATOMG.E.ADD.F16x2.RN.STRONG.GPU PT, R15, [R30.64], R14 ;"},
		{80, "[B------:R2:W-:-:S04] RED.E.ADD.F64.RN.STRONG.GPU desc[UR6][R30.64+0x18], R28.64", 0x0000181c1e00798e, 0x0005e8000c10ed86, "RED.E.ADD.F64.RN.STRONG.GPU [R30.64+0x18], R28 ;"},
		{80, "[B------:R-:W-:Y:S05] CCTL.IVALL", 0x00000000ff00798f, 0x000fca0002000000, "CCTL.IVALL ;"},
		{80, "[B------:R-:W-:-:S06] MEMBAR.ALL.SYS", 0x0000000000007992, 0x000fec000000b000, "MEMBAR.ALL.SYS ;"},
		{80, "[B------:R-:W-:Y:S00] ERRBAR", 0x00000000000079ab, 0x000fc00000000000, "ERRBAR ;"},
		{80, "[B------:R0:W-:-:S06] BAR.SYNC.DEFER_BLOCKING R5, R5", 0x000000050000731d, 0x0001ec0000010000, "BAR.SYNC.DEFER_BLOCKING R5, R5 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.SYNC.DEFER_BLOCKING 0x1, R4", 0x004000040000791d, 0x000fec0000010000, "BAR.SYNC.DEFER_BLOCKING 0x1, R4 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.SYNC.DEFER_BLOCKING R0, 0x60", 0x000180000000751d, 0x000fec0000010000, "BAR.SYNC.DEFER_BLOCKING R0, 0x60 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.SYNC.DEFER_BLOCKING R0", 0x000000000000751d, 0x000fec0000010000, "BAR.SYNC.DEFER_BLOCKING R0 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.ARV R7, R7", 0x000000070000731d, 0x000fec0000002000, "BAR.ARV R7, R7 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.ARV 0x2, R4", 0x008000040000791d, 0x000fec0000002000, "BAR.ARV 0x2, R4 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.RED.OR.DEFER_BLOCKING 0x2, 0x40, P1", 0x0081000000007b1d, 0x000fec0000814800, "BAR.RED.OR.DEFER_BLOCKING 0x2, 0x40, P1 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.RED.OR.DEFER_BLOCKING 0x3, R4, P1", 0x00c000040000791d, 0x000fec0000814800, "BAR.RED.OR.DEFER_BLOCKING 0x3, R4, P1 ;"},
		{80, "[B------:R-:W-:-:S06] BAR.RED.POPC.DEFER_BLOCKING R9, R9, P1", 0x000000090000731d, 0x000fec0000814000, "BAR.RED.POPC.DEFER_BLOCKING R9, R9, P1 ;"},
		{80, "[B-1----:R-:W-:-:S01] BAR.RED.AND.DEFER_BLOCKING R0, P2", 0x000000000000751d, 0x002fe20001014400, "BAR.RED.AND.DEFER_BLOCKING R0, P2 ;"},
		{90, "[B01----:R1:W-:Y:S15] BAR.ARV 0x1, 0x40", 0x0041000000007b1d, 0x0033de0000002000, "BAR.ARV 0x1, 0x40 ;"},
		{90, "[B01----:R1:W-:Y:S15] BAR.SYNC.DEFER_BLOCKING 0x1, 0x40", 0x0041000000007b1d, 0x0033de0000010000, "BAR.SYNC.DEFER_BLOCKING 0x1, 0x40 ;"},
		{90, "[B------:R0:W-:-:S06] BAR.ARV R5, 0x80", 0x000200050000751d, 0x0001ec0000002000, "BAR.ARV R5, 0x80 ;"},
		{90, "[B------:R-:W-:-:S06] BAR.RED.OR.DEFER_BLOCKING 0x2, 0x40, !PT", 0x0081000000007b1d, 0x000fec0007814800, "BAR.RED.OR.DEFER_BLOCKING 0x2, 0x40, !PT ;"},
		{90, "[B------:R-:W-:-:S08] BAR.SYNC.DEFER_BLOCKING 0x0", 0x0000000000007b1d, 0x000ff00000010000, "BAR.SYNC.DEFER_BLOCKING 0x0 ;"},
	}
	for _, c := range cases {
		checkMeasuredWord(t, c.arch, c.ori, c.lo, c.hi, allBits, c.text, false)
	}
}

// TestAtomicAndBarrierRefusals: the forms no word holds are refused with
// a reason, never mis-encoded: a barrier and a count in two different
// registers (the word reads both from one), an acquire atomic (the
// lowering writes fences around a STRONG one), a scalar f16 add (ptxas
// emulates it), a 64-bit shared MIN (ptxas writes a CAS loop).
func TestAtomicAndBarrierRefusals(t *testing.T) {
	cases := []struct {
		arch int
		ori  string
		want string
	}{
		{90, "BAR.SYNC R2, R3", "sass: BAR.SYNC: the barrier and the count in registers must be one register holding both (the lowering packs them)"},
		{80, "BAR.RED.POPC R2, R3, P0", "sass: BAR.RED.POPC: the barrier and the count in registers must be one register holding both (the lowering packs them)"},
		{90, "ATOMG.E.ADD.U32.ACQUIRE.GPU R0 = desc[UR4][R2.64], R4", "sass: ATOMG.E.ADD.U32.ACQUIRE.GPU: modifier .ACQUIRE has no encoding here for sm_90 (or is out of order)"},
		{90, "ATOMG.E.ADD.F16.RN.STRONG.GPU R0 = desc[UR4][R2.64], R4", "sass: ATOMG.E.ADD.F16.RN.STRONG.GPU: modifier .F16 has no encoding here for sm_90 (or is out of order)"},
		{80, "ATOMS.MIN.S64 R0.64 = [R2], R4.64", "sass: ATOMS.MIN.S64: no word: ptxas writes a 64-bit shared MIN as a compare-and-swap loop (ATOMS.CAST.SPIN.64), which orilab's lowering does not yet"},
	}
	for _, c := range cases {
		f := parseFunc(t, "BB0:\n\t#1 "+c.ori+" ;\n")
		_, err := Encode(f.Blocks[0].Insts[0], c.arch, 0, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("sm_%d %s: %v, want %q", c.arch, c.ori, err, c.want)
		}
	}
}

// TestBRXWords: an indirect branch on a jump-table entry encodes to
// ptxas 13.0.88's words for its brx.idx probe (BRX R4 at 0x80 on sm_80,
// at 0x70 on sm_90: the branch field points at address 0, the kernel's
// start), prints with the field normalized as nvdisasm's BRX R4 -0x90,
// records its jump table, and decodes back; the index form that
// PostFixForMercTargets leaves in a .func is refused.
func TestBRXWords(t *testing.T) {
	f := parseFunc(t, "BB0:\n\t#1 [B------:R-:W-:-:S05] BRX R4.64, c[0x2][0x8], BB1, BB2, BB1 ;\nBB1:\n\t#2 EXIT ;\nBB2:\n\t#3 EXIT ;\n")
	in := f.Blocks[0].Insts[0]
	for _, c := range []struct {
		arch, pc int
		lo, hi   uint64
		nv       string
	}{
		{80, 0x80, 0xffffff7004007949, 0x000fea000383ffff, "BRX R4 -0x90 ;"},
		{90, 0x70, 0xfffffffc04e07949, 0x000fea000383ffff, "BRX R4 -0x80 ;"},
	} {
		w, err := Encode(in, c.arch, c.pc, map[int32]int{1: 0x100, 2: 0x110})
		if err != nil {
			t.Fatalf("sm_%d: %v", c.arch, err)
		}
		if want := (Word{c.lo, c.hi}); w != want {
			t.Errorf("sm_%d: word %v, ptxas wrote %v", c.arch, w, want)
		}
		got, err := InstTextRaw(in, c.arch)
		if err != nil || Normalize(got) != Normalize(c.nv) {
			t.Errorf("sm_%d: prints %q (%v), normalized %q; nvdisasm %q", c.arch, got, err, Normalize(got), Normalize(c.nv))
		}
		d, err := Decode(w, c.arch, DecodeContext{PC: c.pc, Raw: true})
		if err != nil {
			t.Fatalf("sm_%d: %v", c.arch, err)
		}
		if got, _ := InstTextRaw(d, c.arch); Normalize(got) != Normalize(c.nv) {
			t.Errorf("sm_%d: decodes as %q, nvdisasm %q", c.arch, got, c.nv)
		}
		if w2, err := Encode(d, c.arch, c.pc, nil); err != nil || w2 != w {
			t.Errorf("sm_%d: the decoded BRX encodes as %v (%v), not %v", c.arch, w2, err, w)
		}
	}
	code, err := EncodeFunc(f, 80)
	if err != nil {
		t.Fatal(err)
	}
	want := []JumpTable{{At: 0, Base: 8, Targets: []int{0x10, 0x20, 0x10}}}
	if fmt.Sprint(code.JumpTables) != fmt.Sprint(want) {
		t.Errorf("jump tables %v, want %v", code.JumpTables, want)
	}
	idx := parseFunc(t, "BB0:\n\t#1 BRX R0, BB1, BB2 ;\nBB1:\n\t#2 EXIT ;\nBB2:\n\t#3 EXIT ;\n")
	_, err = Encode(idx.Blocks[0].Insts[0], 80, 0, map[int32]int{1: 0x10, 2: 0x20})
	if want := "sass: BRX: an indirect branch on an index needs a jump table, which PostFixForMercTargets builds only in a kernel (bank 2 is the launched kernel's)"; err == nil || err.Error() != want {
		t.Errorf("index BRX: %v, want %q", err, want)
	}
}
