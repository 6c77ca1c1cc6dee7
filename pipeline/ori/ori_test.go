package ori

import (
	"fmt"
	"strings"
	"testing"
)

const sampleFunc = `.entry k
.param p offset=0x160 size=0x8 align=0x8
.shared_var tile offset=0x0 size=0x100
.literal 0x3fb999999999999a
.literal 0x400921fb54442d18
.shared 0x100
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ; line 7
	#2 ISETP.GE.AND %p0, PT = %r0, 0x20, PT ;
	#3 @%p0 BRA BB2 ;
BB1 <$L__BB0_1>:
	#4 IMAD.WIDE.U32 %r1.64 = %r0, 0x4, c[0x0][0x160] ;
	#5 LDG.E %r2 = [%r1.64+0x10] ;
	#6 FFMA %r3 = -%r2, |%r2|, 0f3F800000 ;
	#7 IADD3 %r4[1], %p1 = %r1[1], 0x1, RZ ;
	#8 STG.E [%r1.64], %r3 ;
	#10 STL [R1+0x8], %r3 ; line 9 spill
	#11 LDL %r5 = [R1+0x8] ; refill
	#12 MOV %r6 = 0x4 ; remat #4
	#13 MOV %r7 = %r6 ; copy
BB2:
	#9 [B0-2---:R1:W-:Y:S04] EXIT ;
}
`

func TestTextRoundTrip(t *testing.T) {
	f, err := ParseFunc("k.ori", []byte(sampleFunc))
	if err != nil {
		t.Fatal(err)
	}
	out := f.String()
	f2, err := ParseFunc("k2.ori", []byte(out))
	if err != nil {
		t.Fatalf("printed text does not parse: %v\n%s", err, out)
	}
	if out2 := f2.String(); out2 != out {
		t.Fatalf("not a fixed point:\n%s\n---\n%s", out, out2)
	}
	// The printed CFG comments are derived, not parsed.
	if !strings.Contains(out, "BB1 <$L__BB0_1>:                        // preds BB0 | succs BB2\n") {
		t.Errorf("block header missing CFG comment:\n%s", out)
	}
	in := f.Blocks[2].Insts[0]
	if !in.Ctrl.Set || in.Ctrl.Wait != 0b101 || in.Ctrl.RdBar != 1 || in.Ctrl.WrBar != -1 || !in.Ctrl.Yield || in.Ctrl.Stall != 4 {
		t.Errorf("control word parsed as %+v", in.Ctrl)
	}
	if r := f.Blocks[1].Insts[5]; r.Role != RoleSpill || r.Line != 9 {
		t.Errorf("spill parsed as role %v line %d", r.Role, r.Line)
	}
	if r := f.Blocks[1].Insts[7]; r.Role != RoleRemat || r.Origin != 4 {
		t.Errorf("remat parsed as role %v origin %d", r.Role, r.Origin)
	}
	if f.Blocks[0].Insts[0].Line != 7 {
		t.Errorf("line = %d, want 7", f.Blocks[0].Insts[0].Line)
	}
	if err := Verify(f, VerifyOptions{}); err != nil {
		t.Fatalf("sample does not verify: %v", err)
	}
	// New IDs and registers continue after the parsed ones.
	if id := f.NewID(); id != 14 {
		t.Errorf("NewID = %d, want 14", id)
	}
	if r := f.NewVReg(ClassR, 1); r.N != 8 {
		t.Errorf("NewVReg = %s, want %%r5", r)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 FROB %r0 = %r1 ;\n}\n", "x.ori:6:5: error: unknown opcode \"FROB\""},
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 MOV %r0 = %q1 ;\n}\n", "x.ori:6:15: error: unknown virtual register \"%q1\""},
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 MOV %r0 = %r1\n}\n", "x.ori:6:18: error: instruction must end with ';'"},
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 BRA BB7 ;\n}\n", "x.ori:7:1: error: k: instruction #1 branches to BB7, which does not exist"},
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 EXIT ;\n\t#1 EXIT ;\n}\n", "x.ori:7:2: error: instruction ID #1 used twice"},
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 EXIT ; line 3 spilled\n}\n", "x.ori:6:11: error: expected \"line N\" or a role (spill, refill, remat #ID, copy) after ';', found \"line 3 spilled\""},
		{".entry k\n.literal 1.5\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 EXIT ;\n}\n", "x.ori:2:1: error: .literal \"1.5\": want a 64-bit hexadecimal value (0x...)"},
		{".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 EXIT ; remat 4\n}\n", "x.ori:6:11: error: expected \"remat #ID\" after ';', found \"remat 4\""},
	}
	for _, c := range cases {
		_, err := ParseFunc("x.ori", []byte(c.text))
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
}

// verifyText parses a function and returns the verifier's messages.
func verifyText(t *testing.T, text string, opts VerifyOptions) string {
	t.Helper()
	f, err := ParseFunc("v.ori", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(f, opts); err != nil {
		return err.Error()
	}
	return ""
}

func fn(body string) string {
	return ".entry k\n.shared 0x0\n.local 0x0\n{\n" + body + "}\n"
}

// TestVerifierRules breaks each rule once and checks the message.
func TestVerifierRules(t *testing.T) {
	cases := []struct {
		name, text string
		ssa        bool
		want       string
	}{
		{"terminator", fn("BB0:\n\t#1 EXIT ;\n\t#2 MOV %r0 = 0x1 ;\n"), false,
			"verify k BB0 #1: [terminator] EXIT is not the last instruction of its block"},
		{"signature count", fn("BB0:\n\t#1 IADD3 %r0 = %r1, %r2 ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [signature] IADD3 has 2 sources, want 3 to 5"},
		{"signature kind", fn("BB0:\n\t#1 S2R %r0 = %r1 ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [signature] source 1 of S2R is %r1, want a special register"},
		{"result class", fn("BB0:\n\t#1 MOV %p0 = 0x1 ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [signature] result 1 of MOV is %p0, want an R or UR register"},
		{"uniform source", fn("BB0:\n\t#1 S2R %r0 = SR_TID.X ;\n\t#2 UIADD3 %ur0 = %r0, 0x1, URZ ;\n\t#3 EXIT ;\n"), false,
			"verify k BB0 #2: [uniform] UIADD3 reads %r0, not a uniform register"},
		{"uniform result", fn("BB0:\n\t#1 ULDC %r0 = c[0x0][0x0] ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [uniform] ULDC writes %r0, not a uniform register"},
		{"guard", fn("BB0:\n\t#1 @%r3 EXIT ;\n"), false,
			""}, // parse rejects non-predicate guards; see TestParseErrors-style check below
		{"return address without a call", fn("BB0:\n\t#1 MOV R20 = `.ret` ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [signature] the return address `.ret` is loaded but no CALL follows in its block"},
		// A MOV may load a function's address (FuncAddrOf); no other
		// instruction takes a symbol as a value.
		{"function address in MOV", fn("BB0:\n\t#1 MOV R6 = `g` ;\n\t#2 CALL.REL.NOINC R6 ;\n\t#3 EXIT ;\n"), false, "ok"},
		{"symbol in IADD3", fn("BB0:\n\t#1 IADD3 R20 = `g`, 0x1, RZ ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [signature] source 1 of IADD3 is `g`, want a register, immediate, constant or special register"},
		{"use before def", fn("BB0:\n\t#1 S2R %r0 = SR_TID.X ;\n\t#2 ISETP.EQ.AND %p0, PT = %r0, RZ, PT ;\n\t#3 @%p0 BRA BB2 ;\nBB1:\n\t#4 MOV %r1 = 0x1 ;\nBB2:\n\t#5 IADD3 %r2 = %r1, 0x1, RZ ;\n\t#6 EXIT ;\n"), false,
			"verify k BB2 #5: [use-before-def] %r1 is read before it is defined on some path from the entry"},
		{"use before def, tuple word", fn("BB0:\n\t#1 MOV %r0 = 0x1 ;\n\t#2 LDG.E %r1 = [%r0.64] ;\n\t#3 EXIT ;\n"), false,
			"verify k BB0 #2: [use-before-def] %r0[1] is read before it is defined on some path from the entry"},
		{"phys range", fn("BB0:\n\t#1 MOV R254.64 = 0x1 ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [phys-range] R254.64 is outside R0-R254"},
		{"alignment", fn("BB0:\n\t#1 LDG.E R3.64 = [R4.64] ;\n\t#2 EXIT ;\n"), false,
			"verify k BB0 #1: [alignment] R3.64 is a 2-register tuple that does not start at a multiple of 2"},
		{"ssa", fn("BB0:\n\t#1 MOV %r0 = 0x1 ;\nBB1:\n\t#2 MOV.PHI %r1 = %r0, BB0 ;\n\t#3 MOV %r1 = 0x2 ;\n\t#4 EXIT ;\n"), true,
			"verify k BB1 #3: [ssa] %r1, the result of a MOV.PHI, is defined again (first definition #2)"},
		{"ssa partial", fn("BB0:\n\t#1 MOV %r0 = 0x1 ;\n\t#2 MOV %r0 = 0x2 ;\n\t#3 EXIT ;\n"), true,
			"ok"}, // registers outside the phis may keep several definitions
		{"phi outside ssa", fn("BB0:\n\t#1 MOV %r0 = 0x1 ;\nBB1:\n\t#2 MOV.PHI %r1 = %r0, BB0 ;\n\t#3 EXIT ;\n"), false,
			"verify k BB1 #2: [phi] MOV.PHI outside the partial-SSA window"},
		{"phi missing pred", fn("BB0:\n\t#1 MOV %r0 = 0x1 ;\n\t#2 ISETP.EQ.AND %p0, PT = %r0, RZ, PT ;\n\t#3 @%p0 BRA BB2 ;\nBB1:\n\t#4 MOV %r1 = 0x2 ;\nBB2:\n\t#5 MOV.PHI %r2 = %r0, BB0 ;\n\t#6 EXIT ;\n"), true,
			"verify k BB2 #5: [phi] MOV.PHI has no value for predecessor BB1"},
		{"phi after non-phi", fn("BB0:\n\t#1 MOV %r0 = 0x1 ;\nBB1:\n\t#2 MOV %r1 = 0x1 ;\n\t#3 MOV.PHI %r2 = %r0, BB0 ;\n\t#4 EXIT ;\n"), true,
			"verify k BB1 #3: [phi] MOV.PHI after a non-phi instruction (#2)"},
	}
	for _, c := range cases {
		if c.want == "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			got := verifyText(t, c.text, VerifyOptions{SSA: c.ssa})
			if c.want == "ok" {
				if got != "" {
					t.Fatalf("got:\n%s\nwant no error", got)
				}
				return
			}
			if !strings.HasPrefix(got, c.want) {
				t.Fatalf("got:\n%s\nwant first line:\n%s", got, c.want)
			}
		})
	}
}

func TestVerifierCFGAndGuard(t *testing.T) {
	f, err := ParseFunc("v.ori", []byte(fn("BB0:\n\t#1 S2R %r0 = SR_TID.X ;\n\t#2 ISETP.EQ.AND %p0, PT = %r0, RZ, PT ;\n\t#3 @%p0 BRA BB2 ;\nBB1:\n\t#4 MOV %r1 = 0x1 ;\nBB2:\n\t#5 EXIT ;\n")))
	if err != nil {
		t.Fatal(err)
	}
	// A phase retargets the branch but forgets ComputeCFG.
	f.Blocks[0].Insts[2].Srcs[0] = BlockRef(1)
	want := "verify k BB0: [cfg] successors are [BB2 BB1] but the terminator gives [BB1]"
	if err := Verify(f, VerifyOptions{}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	f.Blocks[1].Insts[0].Guard = VReg(ClassR, 0, 1)
	want = "verify k BB1 #4: [guard] guard %r0 is not a predicate register"
	if err := Verify(f, VerifyOptions{}); err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

func TestMaxPressure(t *testing.T) {
	f, err := ParseFunc("p.ori", []byte(fn(`BB0:
	#1 MOV %r0 = 0x1 ;
	#2 MOV %r1 = 0x2 ;
	#3 MOV %r2.64 = 0x3 ;
	#4 IADD3 %r3 = %r0, %r1, %r2 ;
	#5 IADD3 %r3 = %r3, %r2[1], RZ ;
	#6 ISETP.EQ.AND %p0, PT = %r3, RZ, PT ;
	#7 @%p0 EXIT ;
BB1:
	#8 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	// Before #4: %r0, %r1 and both words of %r2 are live (4 words). The
	// result %r3 may take the register of a source that dies at #4, so
	// the pressure stays 4.
	p := MaxPressure(f)
	if p.R != 4 || p.P != 1 {
		t.Fatalf("pressure %+v, want R 4, P 1", p)
	}
	// The answer is kept with the function, and not handed out after an
	// edit: with #4 reading RZ for %r0, %r0 dies at once and at most
	// %r1 and %r2 are live together (3 words).
	if !f.cache.pressOK {
		t.Fatal("the pressure was not kept")
	}
	f.Blocks[0].Insts[3].Srcs[0] = R(RZ)
	if p := MaxPressure(f); p.R != 3 || p.P != 1 {
		t.Fatalf("after the edit: pressure %+v, want R 3, P 1", p)
	}
	// The computation's memory is reused from call to call (index
	// tables included): after a larger function with more registers and
	// physical ones, the small one's answer is the same.
	big := bigFingerprintFunc(t, 200)
	big.Blocks[1].Insts[0].Dsts[0].Reg = Reg{Class: ClassR, N: 5, Words: 1}
	want := maxPressure(big)
	if want.R < 5 {
		t.Fatalf("large function: pressure %+v", want)
	}
	if p := maxPressure(f); p.R != 3 || p.P != 1 {
		t.Fatalf("after a larger function: pressure %+v, want R 3, P 1", p)
	}
	if p := maxPressure(big); p != want {
		t.Fatalf("large function again: pressure %+v, want %+v", p, want)
	}
}

// TestTrialPressure checks that TrialPressure answers as MaxPressure
// does and leaves the kept answer alone: after a trial edit is undone,
// MaxPressure hands out the answer for the code as it was.
func TestTrialPressure(t *testing.T) {
	f, err := ParseFunc("p.ori", []byte(fn(`BB0:
	#1 MOV %r0 = 0x1 ;
	#2 MOV %r1 = 0x2 ;
	#3 IADD3 %r2 = %r0, %r1, RZ ;
	#4 ISETP.EQ.AND %p0, PT = %r2, RZ, PT ;
	#5 @%p0 EXIT ;
BB1:
	#6 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	before := MaxPressure(f)
	fp := f.cache.pressFP
	if before.R != 2 || before.P != 1 {
		t.Fatalf("pressure %+v, want R 2, P 1", before)
	}
	// The trial: #3 reads RZ for %r0, so %r0 is never read and is not
	// live beside %r1: one R word at a time.
	in := f.Blocks[0].Insts[2]
	old := in.Srcs[0]
	in.Srcs[0] = R(RZ)
	got := TrialPressure(f)
	if got.R != 1 || got.P != 1 {
		t.Fatalf("trial pressure %+v, want R 1, P 1", got)
	}
	if want := maxPressure(f); got != want {
		t.Fatalf("trial pressure %+v, maxPressure %+v", got, want)
	}
	if !f.cache.pressOK || f.cache.pressFP != fp || f.cache.press != before {
		t.Fatalf("TrialPressure changed the kept answer: ok %v, fingerprint %x (was %x), %+v", f.cache.pressOK, f.cache.pressFP, fp, f.cache.press)
	}
	in.Srcs[0] = old
	if p := MaxPressure(f); p != before {
		t.Fatalf("after the undo: pressure %+v, want %+v", p, before)
	}
}

func TestHashSeesEveryChange(t *testing.T) {
	f, err := ParseFunc("k.ori", []byte(sampleFunc))
	if err != nil {
		t.Fatal(err)
	}
	m := &Module{Arch: 75, AddressSize: 64, Funcs: []*Func{f}}
	h := Hash(m)
	// The value hash/fnv's New64a gave before Hash wrote FNV-1a out
	// inline (re-pinned when the hashed fields grew: parameter words,
	// texture references, the literal pool): snapshots' hashes must not
	// change with the implementation.
	if h != 0x89ef16da55382b0a {
		t.Errorf("Hash = %#x, want 0x89ef16da55382b0a", h)
	}
	if Hash(m.Clone()) != h {
		t.Fatal("a clone hashes differently")
	}
	edits := []func(*Module){
		func(m *Module) { m.Funcs[0].Blocks[1].Insts[0].Srcs[1] = Imm(5) },
		func(m *Module) { m.Funcs[0].Blocks[1].Insts[0].Mods = []string{"WIDE"} },
		func(m *Module) { m.Funcs[0].Blocks[1].Insts[2].Srcs[0].Neg = false },
		func(m *Module) { m.Funcs[0].Blocks[0].Insts[0].Line = 9 },
		func(m *Module) { m.Funcs[0].Blocks[2].Insts[0].Ctrl.Stall = 5 },
		func(m *Module) { m.Funcs[0].Blocks[0].Insts[2].GuardNot = true },
		func(m *Module) { m.Funcs[0].Blocks[1].Insts = m.Funcs[0].Blocks[1].Insts[1:] },
		func(m *Module) { m.Funcs[0].Literals[1]++ },
		func(m *Module) { m.Funcs[0].Literals = m.Funcs[0].Literals[:1] },
	}
	for i, e := range edits {
		c := m.Clone()
		e(c)
		if Hash(c) == h {
			t.Errorf("edit %d does not change the hash", i)
		}
	}
}

// TestReturnPoints: a .func's return-address register round-trips through
// the text form, and each return-point MOV resolves to the address after
// its block's next CALL.
func TestReturnPoints(t *testing.T) {
	text := `.func f
.retaddr R22
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R20 = ` + "`.ret`" + ` ;
	#2 MOV R21 = RZ ;
	#3 CALL.REL.NOINC ` + "`g`" + ` ;
	#4 MOV R20 = ` + "`.ret`" + ` ;
	#5 MOV R4 = RZ ;
	#6 MOV R21 = RZ ;
	#7 CALL.REL.NOINC ` + "`g`" + ` ;
	#8 RET.REL.NODEC R22.64 ;
}
`
	f, err := ParseFunc("t.ori", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if f.RetAddr != 22 || f.String() != text {
		t.Errorf("RetAddr %d; round trip:\n%s", f.RetAddr, f.String())
	}
	rp := ReturnPoints(f, 0x100)
	in := f.Blocks[0].Insts
	if len(rp) != 2 || rp[in[0]] != 0x130 || rp[in[3]] != 0x170 {
		t.Errorf("return points %v", rp)
	}
	if _, err := ParseFunc("t.ori", []byte(strings.Replace(text, "R22\n", "R23\n", 1))); err == nil || !strings.Contains(err.Error(), `.retaddr: "R23" is not an even R register`) {
		t.Errorf("odd .retaddr: %v", err)
	}
}

// TestCloneOperandsAreIndependent: Func.Clone cuts every instruction's
// operands and modifiers from shared arrays; growing or rewriting one
// instruction's slices must leave its neighbours and the original alone.
func TestCloneOperandsAreIndependent(t *testing.T) {
	f, err := ParseFunc("k.ori", []byte(sampleFunc))
	if err != nil {
		t.Fatal(err)
	}
	want := f.String()
	c := f.Clone()
	if c.String() != want {
		t.Fatalf("clone differs:\n%s\nwant\n%s", c, want)
	}
	var next []string
	for _, b := range c.Blocks {
		for _, in := range b.Insts {
			next = append(next, in.String())
		}
	}
	k := 0
	for _, b := range c.Blocks {
		for _, in := range b.Insts {
			in.Dsts = append(in.Dsts, Imm(7))
			in.Mods = append(in.Mods, "X")
			if len(in.Srcs) > 0 {
				in.Srcs = append(in.Srcs[:len(in.Srcs)-1], Imm(9), Imm(9))
			}
			if in.String() == next[k] {
				t.Fatalf("the edit of %s changed nothing", next[k])
			}
			k++
		}
	}
	// Every instruction was edited after its predecessor: had one edit
	// spilled into the next instruction's operands, the later ones would
	// show doubled edits. Edit a fresh clone the same way and compare.
	d := f.Clone()
	for _, b := range d.Blocks {
		for _, in := range b.Insts {
			in.Dsts = append(append([]Operand(nil), in.Dsts...), Imm(7))
			in.Mods = append(append([]string(nil), in.Mods...), "X")
			if len(in.Srcs) > 0 {
				in.Srcs = append(append([]Operand(nil), in.Srcs[:len(in.Srcs)-1]...), Imm(9), Imm(9))
			}
		}
	}
	if c.String() != d.String() {
		t.Fatalf("in-place edits of a clone leaked between instructions:\n%s\nwant\n%s", c, d)
	}
	if f.String() != want {
		t.Fatal("editing the clone changed the original")
	}
}

// TestUndefinedReadsReusesIndex: UndefinedReads takes its word index and
// sets from a pool; answers for functions of different sizes asked in
// turn are the answers each gets alone.
func TestUndefinedReadsReusesIndex(t *testing.T) {
	small := func() *Func {
		f, err := ParseFunc("u.ori", []byte(fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 ISETP.LT.AND %p0, PT = %r0, 0x8, PT ;
	#3 @%p0 BRA BB2 ;
BB1:
	#4 MOV %r1 = 0x1 ;
BB2:
	#5 STS [%r0], %r1 ;
	#6 STS [%r0], %r2.64 ;
	#7 EXIT ;
`)))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	const want = "[%r1 %r2 %r2[1]]"
	if got := fmt.Sprint(UndefinedReads(small())); got != want {
		t.Fatalf("undefined reads %s, want %s", got, want)
	}
	// The large function reads %r1 (set at its start) and its own
	// registers only; then the small one again.
	big := bigFingerprintFunc(t, 300)
	if got := fmt.Sprint(UndefinedReads(big)); got != "[]" {
		t.Fatalf("large function: undefined reads %s, want []", got)
	}
	if got := fmt.Sprint(UndefinedReads(small())); got != want {
		t.Fatalf("after the large function: undefined reads %s, want %s", got, want)
	}
}
