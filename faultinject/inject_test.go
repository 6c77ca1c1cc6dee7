package faultinject

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

var howNames = map[how]string{mutReg: "reg", mutGuardReg: "guard", mutGuardNot: "not", mutOffset: "off", mutImmBit: "bit", mutCBank: "cbank", mutMask: "mask"}

// candidates renders a category's candidates as "#ID kK oOP how".
func candidates(t *testing.T, m *ori.Module, cat Category) string {
	t.Helper()
	fis, err := prepare(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, c := range collect(fis, cat) {
		parts = append(parts, fmt.Sprintf("#%d k%d o%d %s", c.in.ID, c.plan.kind, c.plan.opd, howNames[c.plan.how]))
	}
	return strings.Join(parts, ", ")
}

func TestCandidates(t *testing.T) {
	m := parseModule(t, postRA)
	want := map[Category]string{
		// Every instruction with an allocated register operand; #1 and
		// #2 only touch R1/RZ and #28 has no register. #11's last
		// register is the predicate P1 (kind 2), #7's is the stored
		// value, not the R1 base.
		CatRegister: "#3 k1 o0 reg, #4 k1 o0 reg, #5 k1 o0 reg, #6 k1 o3 reg, #7 k1 o1 reg, #8 k1 o2 reg, #9 k1 o0 reg, " +
			"#10 k1 o2 reg, #11 k2 o3 reg, #12 k1 o2 reg, #13 k1 o0 reg, #14 k1 o1 reg, #15 k1 o1 reg, #16 k1 o0 reg, " +
			"#17 k1 o2 reg, #18 k1 o0 reg, #19 k1 o2 reg, #20 k1 o0 reg, #21 k1 o2 reg, #22 k1 o1 reg, #23 k1 o0 reg, " +
			"#24 k1 o0 reg, #25 k1 o2 reg, #26 k1 o1 reg, #27 k1 o1 reg",
		// The guard is operand 4 of a four-operand IADD3.
		CatPredicate: "#15 k6 o4 guard, #22 k6 o4 guard, #25 k6 o4 guard, #26 k6 o4 guard",
		// STL/LDL get the offset; the SEL/ISETP predicate spill has no
		// memory operand and gets its value corrupted.
		CatSpill:    "#7 k4 o0 off, #11 k8 o3 reg, #17 k8 o2 reg, #23 k4 o1 off",
		CatRemat:    "#18 k7 o1 bit, #20 k7 o1 cbank, #24 k7 o0 reg",
		CatP2R:      "#9 k9 o0 reg, #13 k9 o0 reg, #16 k9 o0 reg",
		CatBitSpill: "#9 k10 o2 mask, #16 k10 o1 mask",
	}
	for cat := Category(0); cat < NumCategories; cat++ {
		if got := candidates(t, m, cat); got != want[cat] {
			t.Errorf("%s candidates:\n got %s\nwant %s", cat, got, want[cat])
		}
	}
}

// TestInjectPerCategory pins, for seed 1, the faults of each category:
// the report lines and the instruction before and after. The values are
// fixed by the generator, so a change here breaks every recorded replay.
func TestInjectPerCategory(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		lines []string
		diffs []string
	}{
		{"2,0,0,0 0 0", []string{
			"Num forced bugs 2",
			"Created a bug at index 14 : kind r-ur register inst # 17 in operand 2 correct val 9 replaced with 7",
			"Created a bug at index 24 : kind r-ur register inst # 27 in operand 1 correct val 6 replaced with 7",
		}, []string{
			"#17 ISETP.NE.AND P1, PT = R9, RZ, PT ; refill => #17 ISETP.NE.AND P1, PT = R7, RZ, PT ; refill",
			"#27 STG.E [R4.64], R6 ; => #27 STG.E [R4.64], R7 ;",
		}},
		{"0,2,0,0 0 0", []string{
			"Num forced bugs 2",
			"Created a bug at index 2 : kind predicated bug inst # 25 in operand 4 correct val 9 replaced with 8",
			"Created a bug at index 3 : kind predicated bug inst # 26 in operand 4 correct val 9 replaced with 8",
		}, []string{
			"#25 @!P1 IADD3 R6 = R6, R7, RZ ; => #25 @!P0 IADD3 R6 = R6, R7, RZ ;",
			"#26 @!P1 IADD3 R6 = R6, 0x2710, RZ ; => #26 @!P0 IADD3 R6 = R6, 0x2710, RZ ;",
		}},
		{"0,0,2,0 0 0", []string{
			"Num forced bugs 2",
			"Created a bug at index 2 : kind spill-regill bug inst # 17 in operand 2 correct val 9 replaced with 7",
			"Created a bug at index 3 : kind offset inst # 23 [0x8] in operand 1 correct val 8 replaced with 24",
		}, []string{
			"#17 ISETP.NE.AND P1, PT = R9, RZ, PT ; refill => #17 ISETP.NE.AND P1, PT = R7, RZ, PT ; refill",
			"#23 LDL.64 R4.64 = [R1+0x8] ; refill => #23 LDL.64 R4.64 = [R1+0x18] ; refill",
		}},
		{"0,0,0,3 0 0", []string{
			"Num forced bugs 3",
			"Created a bug at index 1 : kind remat bug inst # 20 in operand 1 correct val 0 replaced with 4",
			"Created a bug at index 2 : kind remat bug inst # 24 in operand 0 correct val 7 replaced with 9",
			"Created a bug at index 0 : kind remat bug inst # 18 in operand 1 correct val 7 replaced with 33554439",
		}, []string{
			"#20 MOV R7 = c[0x0][0x0] ; remat #41 => #20 MOV R7 = c[0x0][0x4] ; remat #41",
			"#24 S2R R7 = SR_TID.X ; remat #3 => #24 S2R R9 = SR_TID.X ; remat #3",
			"#18 MOV R7 = 0x7 ; remat #40 => #18 MOV R7 = 0x2000007 ; remat #40", // bit 25 flipped
		}},
		{"0,0,0,0 2 0", []string{
			"Num forced bugs 2",
			"Created a bug at index 1 : kind r2p-p2r bug inst # 13 in operand 0 correct val 8 replaced with 7",
			"Created a bug at index 2 : kind r2p-p2r bug inst # 16 in operand 0 correct val 5 replaced with 7",
		}, []string{
			"#13 P2R R8 = RZ, 0x3 ; => #13 P2R R7 = RZ, 0x3 ;",
			"#16 R2P R5, 0x1 ; => #16 R2P R7, 0x1 ;",
		}},
		{"0,0,0,0 0 2", []string{
			"Num forced bugs 2",
			"Created a bug at index 1 : kind bit-spill bug inst # 16 in operand 1 correct val 1 replaced with 32",
			"Created a bug at index 0 : kind bit-spill bug inst # 9 in operand 2 correct val 1 replaced with 8",
		}, []string{
			"#16 R2P R5, 0x1 ; => #16 R2P R5, 0x20 ;",
			"#9 P2R R5 = RZ, 0x1 ; => #9 P2R R5 = RZ, 0x8 ;",
		}},
	} {
		m := parseModule(t, postRA)
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Inject(m, sp, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rep.Lines(), "\n"); got != strings.Join(tc.lines, "\n") {
			t.Errorf("%s: lines:\n%s\nwant\n%s", tc.spec, got, strings.Join(tc.lines, "\n"))
		}
		var diffs []string
		for _, f := range rep.Faults {
			diffs = append(diffs, f.Before+" => "+f.After)
			if in := findInst(m, f.Func, f.Inst); in == nil || in.String() != f.After {
				t.Errorf("%s: instruction #%d in the module is %v, want %s", tc.spec, f.Inst, in, f.After)
			}
		}
		if got := strings.Join(diffs, "\n"); got != strings.Join(tc.diffs, "\n") {
			t.Errorf("%s: mutations:\n%s\nwant\n%s", tc.spec, got, strings.Join(tc.diffs, "\n"))
		}
		if len(rep.Notes()) != 0 {
			t.Errorf("%s: unexpected notes %q", tc.spec, rep.Notes())
		}
	}
}

func findInst(m *ori.Module, fn string, id int32) *ori.Inst {
	f := m.Func(fn)
	if f == nil {
		return nil
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.ID == id {
				return in
			}
		}
	}
	return nil
}

// TestMutationInvariants checks, over many seeds, what every mutation
// must keep: the text round-trips, the structural verifier accepts the
// result, each faulty instruction differs from the original in exactly
// the reported operand (class, width and alignment kept, register inside
// the used range), each instruction carries at most one fault, and no
// other instruction changed.
func TestMutationInvariants(t *testing.T) {
	sp, _ := ParseSpec("4,2,2,2 2 1")
	pristine := parseModule(t, postRA)
	for seed := int64(0); seed < 200; seed++ {
		m := pristine.Clone()
		rep, err := Inject(m, sp, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o, msg := VerifyStructural(m); o != OutcomeNone {
			t.Fatalf("seed %d: %s", seed, msg)
		}
		back, err := ori.ParseModule("re.ori", []byte(m.String()))
		if err != nil || back.String() != m.String() {
			t.Fatalf("seed %d: text does not round-trip: %v", seed, err)
		}
		faulty := map[int32]Fault{}
		for _, f := range rep.Faults {
			if _, dup := faulty[f.Inst]; dup {
				t.Fatalf("seed %d: two faults on #%d", seed, f.Inst)
			}
			faulty[f.Inst] = f
		}
		for bi, b := range m.Funcs[0].Blocks {
			for ii, in := range b.Insts {
				orig := pristine.Funcs[0].Blocks[bi].Insts[ii]
				f, ok := faulty[in.ID]
				if !ok {
					if in.String() != orig.String() {
						t.Fatalf("seed %d: #%d changed without a fault: %s", seed, in.ID, in)
					}
					continue
				}
				checkMutation(t, seed, orig, in, f)
			}
		}
	}
}

func checkMutation(t *testing.T, seed int64, orig, in *ori.Inst, f Fault) {
	t.Helper()
	n := numOperands(in)
	if f.Operand == n {
		// The guard.
		if orig.Guard.Class != in.Guard.Class || (orig.Guard == in.Guard && orig.GuardNot == in.GuardNot) || in.Guard.N > 1 {
			t.Fatalf("seed %d: bad guard mutation %s => %s", seed, orig, in)
		}
		return
	}
	for i := 0; i < n; i++ {
		a, b := *operand(orig, i), *operand(in, i)
		if i != f.Operand {
			if a != b {
				t.Fatalf("seed %d: %s => %s: operand %d changed, the fault says %d", seed, orig, in, i, f.Operand)
			}
			continue
		}
		if a == b || a.Kind != b.Kind {
			t.Fatalf("seed %d: %s => %s: operand %d not mutated or changed kind", seed, orig, in, i)
		}
		if a.Kind == ori.OpdReg {
			r := b.Reg
			hi := map[ori.RegClass]int32{ori.ClassR: 9, ori.ClassP: 1}[r.Class]
			if r.Class != a.Reg.Class || r.Words != a.Reg.Words || r.N%int32(r.Words) != 0 || r.N+int32(r.Words)-1 > hi ||
				(r.Class == ori.ClassR && r.N < 4) {
				t.Fatalf("seed %d: %s => %s: bad replacement register", seed, orig, in)
			}
		}
	}
}

func TestReplay(t *testing.T) {
	sp, _ := ParseSpec("3,1,1,1 1 1")
	run := func(seed int64) (string, string) {
		m := parseModule(t, postRA)
		rep, err := Inject(m, sp, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), m.String()
	}
	r1, m1 := run(42)
	r2, m2 := run(42)
	if r1 != r2 || m1 != m2 {
		t.Fatal("the same seed gave different faults")
	}
	r3, m3 := run(43)
	if r1 == r3 || m1 == m3 {
		t.Fatal("seeds 42 and 43 gave the same faults")
	}
	// Every seed in a range gives a valid, distinct-enough outcome: count
	// the distinct reports over 50 seeds.
	seen := map[string]bool{}
	for s := int64(0); s < 50; s++ {
		r, _ := run(s)
		seen[r] = true
	}
	if len(seen) < 45 {
		t.Fatalf("only %d distinct reports over 50 seeds", len(seen))
	}
}

func TestReportLineFormat(t *testing.T) {
	off := int64(-0x10)
	for _, tc := range []struct {
		f    Fault
		want string
	}{
		{Fault{Index: 3, Kind: KindRUR, Inst: 12, Operand: 2, Correct: 5, Replaced: 9},
			"Created a bug at index 3 : kind r-ur register inst # 12 in operand 2 correct val 5 replaced with 9"},
		{Fault{Index: 0, Kind: KindOffset, Inst: 31, Offset: &off, Operand: 0, Correct: -16, Replaced: 0},
			"Created a bug at index 0 : kind offset inst # 31 [-0x10] in operand 0 correct val -16 replaced with 0"},
		{Fault{Index: 7, Kind: KindSpill, Inst: 4, Operand: 1, Correct: 10, Replaced: 8},
			"Created a bug at index 7 : kind spill-regill bug inst # 4 in operand 1 correct val 10 replaced with 8"},
	} {
		if got := tc.f.Line(); got != tc.want {
			t.Errorf("\n got %s\nwant %s", got, tc.want)
		}
	}
	rep := &Report{}
	if got := rep.Lines(); len(got) != 1 || got[0] != "Num forced bugs 0" {
		t.Errorf("empty report: %q", got)
	}
	want := []string{"", "r-ur register", "p-up register", "any reg", "offset", "regular bug", "predicated bug", "remat bug", "spill-regill bug", "r2p-p2r bug", "bit-spill bug"}
	for _, k := range Kinds() {
		if k.String() != want[k] {
			t.Errorf("kind %d is %q, want %q", k, k, want[k])
		}
	}
}

func TestFaultJSON(t *testing.T) {
	m := parseModule(t, postRA)
	sp, _ := ParseSpec("0,0,1,0 0 0")
	rep, err := Inject(m, sp, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":"0,0,1,0 0 0","seed":3,"faults":[{"index":0,"kind":4,"func":"k","block":0,"inst":7,"offset":8,"operand":0,"correct":8,"replaced":24,` +
		`"before":"#7 STL.64 [R1+0x8], R6.64 ; spill","after":"#7 STL.64 [R1+0x18], R6.64 ; spill","kind_name":"offset","category":"offset/spill"}],` +
		`"categories":[{"category":"offset/spill","requested":1,"candidates":4,"injected":1}]}`
	if string(b) != want {
		t.Fatalf("json:\n%s\nwant\n%s", b, want)
	}
}

func TestOffset24(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{
		{0x8, 0x18}, {-0x10, 0}, {-0x8, 0x8}, {0x7ffff8, -0x7ffff8}, {0x7ffff0, 0x7fffff + 1 - 0x1000000}, {0x1000008, 0x18},
	} {
		if got := sext24(tc.in + 16); got != tc.want {
			t.Errorf("offset %#x + 16 = %#x, want %#x", tc.in, got, tc.want)
		}
	}
	text := strings.Replace(postRA, "#7 STL.64 [R1+0x8], R6.64 ; spill", "#7 STL.64 [R1+0x7ffff8], R6.64 ; spill", 1)
	text = strings.Replace(text, "#23 LDL.64 R4.64 = [R1+0x8] ; refill", "#23 LDL.64 R4.64 = [R1+0x8] ;", 1)
	text = strings.Replace(text, "#11 SEL R9 = 0x1, RZ, P1 ; spill", "#11 SEL R9 = 0x1, RZ, P1 ;", 1)
	text = strings.Replace(text, "#17 ISETP.NE.AND P1, PT = R9, RZ, PT ; refill", "#17 ISETP.NE.AND P1, PT = R9, RZ, PT ;", 1)
	m := parseModule(t, text)
	sp, _ := ParseSpec("0,0,1,0 0 0")
	rep, err := Inject(m, sp, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Created a bug at index 0 : kind offset inst # 7 [0x7ffff8] in operand 0 correct val 8388600 replaced with -8388600"
	if len(rep.Faults) != 1 || rep.Faults[0].Line() != want || rep.Faults[0].After != "#7 STL.64 [R1-0x7ffff8], R6.64 ; spill" {
		t.Fatalf("got %q / %q\nwant %s", rep.Lines(), rep.Faults[0].After, want)
	}
}

func TestShortfallNotes(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		n     int
		notes []string
	}{
		{"0,0,0,9 0 0", 3, []string{"remat bugs: requested 9, injected 3 (only 3 candidates)"}},
		// P2R takes all three P2R/R2P, so nothing is left for bit-spill.
		{"0,0,0,0 3 2", 3, []string{"bit-spill bugs: requested 2, injected 0 (2 candidates, 2 of them already carrying a fault)"}},
		{"0,0,0,0 2 2", 3, []string{"bit-spill bugs: requested 2, injected 1 (2 candidates, 1 of them already carrying a fault)"}},
		{"-5,0,0,0 0 0", 0, nil},
		// The register category takes every instruction with a register,
		// which leaves nothing for the others.
		{"100,100,100,100 100 100", 25, []string{
			"register bugs: requested 100, injected 25 (only 25 candidates)",
			"predicate bugs: requested 100, injected 0 (4 candidates, 4 of them already carrying a fault)",
			"offset/spill bugs: requested 100, injected 0 (4 candidates, 4 of them already carrying a fault)",
			"remat bugs: requested 100, injected 0 (3 candidates, 3 of them already carrying a fault)",
			"R2P/P2R bugs: requested 100, injected 0 (3 candidates, 3 of them already carrying a fault)",
			"bit-spill bugs: requested 100, injected 0 (2 candidates, 2 of them already carrying a fault)",
		}},
	} {
		sp, _ := ParseSpec(tc.spec)
		m := parseModule(t, postRA)
		rep, err := Inject(m, sp, 3, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Faults) != tc.n || fmt.Sprint(rep.Notes()) != fmt.Sprint(tc.notes) {
			t.Errorf("%s: %d faults, notes %q; want %d, %q", tc.spec, len(rep.Faults), rep.Notes(), tc.n, tc.notes)
		}
	}
	// A function without any P2R: no candidates at all.
	m := parseModule(t, ".module sm_75 address_size=64\n\n.entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 S2R R4 = SR_TID.X ;\n\t#2 MOV R5 = R4 ;\n\t#3 EXIT ;\n}\n")
	sp, _ := ParseSpec("0,0,0,0 1 0")
	rep, err := Inject(m, sp, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.WriteTo(&out)
	if out.String() != "Num forced bugs 0\nR2P/P2R bugs: requested 1, injected 0 (no candidates)\n" {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestRegisterRange(t *testing.T) {
	m := parseModule(t, `.module sm_75 address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R2 = RZ ;
	#2 IADD3 R8.128 = R4.128, R12.128, RZ ;
	#3 UIADD3 UR2.64 = UR0.64, UR6.64, URZ ;
	#4 ISETP.EQ.AND P0, PT = R4, R5, PT ;
	#5 @P0 EXIT ;
	#6 EXIT ;
}
`)
	fis, err := prepare(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi := fis[0]
	for _, tc := range []struct {
		r    string
		want string
	}{
		{"R8.128", "[4 12]"},        // quads aligned to 4 within R4-R15
		{"R4.64", "[6 8 10 12 14]"}, // pairs aligned to 2
		{"R5", "[4 6 7 8 9 10 11 12 13 14 15]"},
		{"UR6.64", "[0 2 4]"}, // UR starts at UR0, up to UR7
		{"P0", "[]"},          // only P0 is used
		{"R2", "[]"},          // R0-R3 are never allocated
		{"R1", "[]"},          // the stack pointer
		{"RZ", "[]"},
	} {
		o, err := ori.ParseOperand(tc.r)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(fi.alternatives(o.Reg)); got != tc.want {
			t.Errorf("alternatives(%s) = %s, want %s", tc.r, got, tc.want)
		}
	}
	// With only P0 in use, the guard is inverted instead of replaced.
	if got := candidates(t, m, CatPredicate); got != "#5 k6 o0 not" {
		t.Errorf("predicate candidates: %s", got)
	}
	sp, _ := ParseSpec("0,1,0,0 0 0")
	rep, _ := Inject(m, sp, 0, Options{})
	if got := rep.Faults[0].Line() + " / " + rep.Faults[0].After; got != "Created a bug at index 0 : kind predicated bug inst # 5 in operand 0 correct val 0 replaced with 8 / #5 @!P0 EXIT ;" {
		t.Errorf("guard inversion: %s", got)
	}
	// #1 writes R2, #4's last register is R5 (its P0 has no alternative).
	if got := candidates(t, m, CatRegister); got != "#2 k1 o2 reg, #3 k1 o2 reg, #4 k1 o3 reg" {
		t.Errorf("register candidates: %s", got)
	}
}

func TestInjectErrors(t *testing.T) {
	sp, _ := ParseSpec("1,0,0,0 0 0")
	m := parseModule(t, ".module sm_75 address_size=64\n\n.entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 S2R R4 = SR_TID.X ;\nBB3:\n\t#7 MOV R5 = %r2 ;\n\t#3 EXIT ;\n}\n")
	_, err := Inject(m, sp, 0, Options{})
	want := "faultinject: k BB3 #7: virtual register %r2: faults are injected into post-register-allocation code only"
	if err == nil || err.Error() != want {
		t.Errorf("virtual register: %v, want %s", err, want)
	}
	_, err = Inject(parseModule(t, postRA), sp, 0, Options{Funcs: []string{"nope"}})
	if err == nil || err.Error() != `faultinject: no function named "nope" in the module` {
		t.Errorf("unknown function: %v", err)
	}
}

// twoFuncs has a device function and a kernel; the candidates come in
// module order.
const twoFuncs = `.module sm_75 address_size=64

.func f
.shared 0x0
.local 0x0
{
BB0:
	#1 IADD3 R4 = R4, R5, RZ ;
	#2 RET ;
}

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R R4 = SR_TID.X ;
	#2 MOV R5 = R4 ;
	#3 CALL ` + "`f`" + ` ;
	#4 EXIT ;
}
`

func TestModuleOrderAndFuncs(t *testing.T) {
	m := parseModule(t, twoFuncs)
	if got := candidates(t, m, CatRegister); got != "#1 k1 o2 reg, #1 k1 o0 reg, #2 k1 o1 reg" {
		t.Errorf("candidates: %s", got)
	}
	sp, _ := ParseSpec("3,0,0,0 0 0")
	rep, err := Inject(m, sp, 9, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Both functions have an instruction #1: the dedup key includes the
	// function, so all three candidates get a fault.
	var where []string
	for _, f := range rep.Faults {
		where = append(where, fmt.Sprintf("%s#%d", f.Func, f.Inst))
	}
	if len(where) != 3 || !strings.Contains(fmt.Sprint(where), "f#1") || !strings.Contains(fmt.Sprint(where), "k#1") {
		t.Errorf("faults in %v", where)
	}
	m = parseModule(t, twoFuncs)
	rep, err = Inject(m, sp, 9, Options{Funcs: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != 2 || rep.Faults[0].Func != "k" || rep.Faults[1].Func != "k" {
		t.Errorf("Funcs: faults %v", rep.Lines())
	}
}

func TestFNV1a(t *testing.T) {
	for _, words := range [][]uint32{{0}, {1, 2}, {0xdeadbeef, 0x12345678}, {}} {
		h := fnv.New32a()
		for _, w := range words {
			h.Write([]byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)})
		}
		if got := fnv1a32(words...); got != h.Sum32() {
			t.Errorf("fnv1a32(%v) = %#x, want %#x", words, got, h.Sum32())
		}
	}
	s := newDedupSet()
	for i := int32(0); i < 1000; i++ {
		if !s.add(instKey{fn: i % 3, id: i}) {
			t.Fatalf("key %d reported present", i)
		}
	}
	if len(s.buckets) < 1000/4 {
		t.Errorf("the set did not grow: %d buckets for 1000 keys", len(s.buckets))
	}
	for i := int32(0); i < 1000; i++ {
		if !s.has(instKey{fn: i % 3, id: i}) || s.has(instKey{fn: i%3 + 1, id: i}) || s.add(instKey{fn: i % 3, id: i}) {
			t.Fatalf("membership of key %d wrong", i)
		}
	}
}

func TestRNG(t *testing.T) {
	// SplitMix64's published first outputs for seed 0.
	r := newRNG(0)
	for _, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := r.next(); got != want {
			t.Fatalf("next = %#x, want %#x", got, want)
		}
	}
	r = newRNG(7)
	var hist [5]int
	for i := 0; i < 5000; i++ {
		hist[r.intn(5)]++
	}
	for i, n := range hist {
		if n < 900 || n > 1100 {
			t.Errorf("intn(5) gave %d %d times in 5000", i, n)
		}
	}
	if TrialSeed(1, 0) == TrialSeed(1, 1) || TrialSeed(1, 0) == TrialSeed(2, 0) || TrialSeed(1, 5) != TrialSeed(1, 5) {
		t.Error("trial seeds collide")
	}
}

func TestInjectCompat(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := InjectCompat(parseModule(t, postRA), dir, Options{}, &out)
	if rep != nil || err != nil || out.String() != "Cannot open file with bug specification\n" {
		t.Fatalf("no file: %v %v %q", rep, err, out.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "bugspec.txt"), []byte("0,0,0,0 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	m := parseModule(t, postRA)
	rep, err = InjectCompat(m, dir, Options{}, &out)
	if err != nil || rep == nil || len(rep.Faults) != 1 {
		t.Fatalf("with file: %v %v", rep, err)
	}
	if out.String() != strings.Join(rep.Lines(), "\n")+"\n" || !strings.HasPrefix(out.String(), "Num forced bugs 1\nCreated a bug at index ") {
		t.Fatalf("output %q", out.String())
	}
	// The report's seed replays the clock-seeded run.
	again := parseModule(t, postRA)
	rep2, err := Inject(again, rep.Spec, rep.Seed, Options{})
	if err != nil || fmt.Sprint(rep2.Lines()) != fmt.Sprint(rep.Lines()) || again.String() != m.String() {
		t.Fatalf("replay of seed %d differs", rep.Seed)
	}
}

func TestFlipImm(t *testing.T) {
	for _, tc := range []struct {
		o    ori.Operand
		bit  int
		want int64
	}{
		{ori.Imm(0x10), 0, 0x11},
		{ori.Imm(0x10), 31, -0x7ffffff0}, // int32-range values stay sign-extended
		{ori.Imm(-1), 4, -17},
		{ori.Imm(0xffffffff), 31, 0x7fffffff}, // an unsigned pattern stays unsigned
		{ori.F32(1.0), 31, 0xbf800000},        // f32 bits: -1.0
		{ori.F64(1.0), 63, -0x4010000000000000},
	} {
		if got := flipImm(tc.o, tc.bit); got != tc.want {
			t.Errorf("flip bit %d of %s = %#x, want %#x", tc.bit, tc.o, got, tc.want)
		}
	}
}

func TestGuardFaultKeepsCFG(t *testing.T) {
	m := parseModule(t, ".module sm_75 address_size=64\n\n.entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 S2R R4 = SR_TID.X ;\n\t#2 @!PT BRA BB2 ;\nBB1:\n\t#3 MOV R4 = RZ ;\nBB2:\n\t#4 EXIT ;\n}\n")
	sp, _ := ParseSpec("0,1,0,0 0 0")
	rep, err := Inject(m, sp, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Faults[0].Line() + " / " + rep.Faults[0].After; got != "Created a bug at index 0 : kind predicated bug inst # 2 in operand 1 correct val 15 replaced with 7 / #2 BRA BB2 ;" {
		t.Errorf("fault: %s", got)
	}
	if o, msg := VerifyStructural(m); o != OutcomeNone {
		t.Errorf("stale CFG after the fault: %s", msg)
	}
	if got := len(m.Funcs[0].Blocks[1].Preds); got != 0 {
		t.Errorf("BB1 still has %d predecessors", got)
	}
}
