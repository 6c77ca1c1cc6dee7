package ori

import (
	"fmt"
	"strings"
	"testing"
)

const fingerprintSrc = `.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x1 ;
	#3 ISETP.LT.AND %p0, PT = %r0, 0x40, PT ;
	#4 @%p0 BRA BB2 ;
BB1:
	#5 IADD3 %r1 = %r0, %r1, RZ ;
BB2:
	#6 STS [%r0], %r1 ;
	#7 EXIT ;
}
`

func parseFingerprintFunc(t *testing.T) *Func {
	t.Helper()
	f, err := ParseFunc("k.ori", []byte(fingerprintSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFingerprint: every kind of edit a pass makes changes the
// fingerprint, and a clone has the same one.
func TestFingerprint(t *testing.T) {
	base := Fingerprint(parseFingerprintFunc(t))
	if got := Fingerprint(parseFingerprintFunc(t).Clone()); got != base {
		t.Errorf("clone: fingerprint %x, want %x", got, base)
	}
	edits := map[string]func(f *Func){
		"source immediate": func(f *Func) { f.Blocks[0].Insts[1].Srcs[0].Imm = 2 },
		"source register":  func(f *Func) { f.Blocks[1].Insts[0].Srcs[1].Reg.N = 0 },
		"operand negation": func(f *Func) { f.Blocks[1].Insts[0].Srcs[0].Neg = true },
		"result register":  func(f *Func) { f.Blocks[1].Insts[0].Dsts[0].Reg = RZ },
		// The register allocator's rewrite: same number, now physical
		// (a word hash that let the virtual flag, bit 62, fall off the
		// top missed exactly this).
		"virtual to physical": func(f *Func) {
			// Every %r1 (four operands) becomes R1.
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					for _, ops := range [][]Operand{in.Dsts, in.Srcs} {
						for i := range ops {
							if r := &ops[i].Reg; ops[i].Kind == OpdReg && r.Virtual && r.Class == ClassR && r.N == 1 {
								r.Virtual = false
							}
						}
					}
				}
			}
		},
		"high register number": func(f *Func) { f.Blocks[1].Insts[0].Dsts[0].Reg.N |= 1 << 30 },
		"guard":                func(f *Func) { f.Blocks[0].Insts[3].GuardNot = true },
		"modifier":             func(f *Func) { f.Blocks[0].Insts[2].Mods[1] = "OR" },
		"opcode":               func(f *Func) { f.Blocks[1].Insts[0].Op = OpIMAD },
		"branch target":        func(f *Func) { f.Blocks[0].Insts[3].Srcs[0].Block = 1 },
		"deleted inst":         func(f *Func) { f.Blocks[1].Insts = f.Blocks[1].Insts[:0] },
		"moved inst": func(f *Func) {
			b0, b2 := f.Blocks[0], f.Blocks[2]
			b2.Insts = append([]*Inst{b0.Insts[1]}, b2.Insts...)
			b0.Insts = append(b0.Insts[:1], b0.Insts[2:]...)
		},
		"block order":  func(f *Func) { f.Blocks[1], f.Blocks[2] = f.Blocks[2], f.Blocks[1] },
		"control word": func(f *Func) { f.Blocks[2].Insts[1].Ctrl.Stall = 4 },
	}
	for name, edit := range edits {
		f := parseFingerprintFunc(t)
		edit(f)
		if Fingerprint(f) == base {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
}

// TestFixedPointMemo: a memo holds until the code changes, and a clone's
// memos are its own.
func TestFixedPointMemo(t *testing.T) {
	f := parseFingerprintFunc(t)
	if at, _ := f.AtFixedPoint("P"); at {
		t.Fatal("fixed point before any was noted")
	}
	_, fp := f.AtFixedPoint("P")
	f.NoteFixedPoint("P", fp)
	if at, _ := f.AtFixedPoint("P"); !at {
		t.Error("no fixed point right after noting it")
	}
	if at, _ := f.AtFixedPoint("Q"); at {
		t.Error("a memo of pass P answers for pass Q")
	}
	c := f.Clone()
	if at, _ := c.AtFixedPoint("P"); !at {
		t.Error("the clone lost the memo of identical code")
	}
	c.NoteFixedPoint("Q", 0)
	if _, ok := f.fixed["Q"]; ok {
		t.Error("a memo noted on the clone shows on the original")
	}
	f.Blocks[0].Insts[1].Srcs[0].Imm = 7
	if at, fp := f.AtFixedPoint("P"); at || fp != Fingerprint(f) {
		t.Errorf("after an edit in place: at %v, fingerprint %x, want false, %x", at, fp, Fingerprint(f))
	}
	// A pass that changed nothing since AtFixedPoint answered without
	// the fingerprint notes 0: NoteFixedPoint computes it.
	f.NoteFixedPoint("R", 0)
	if at, _ := f.AtFixedPoint("R"); !at {
		t.Error("no fixed point right after noting it with fingerprint 0")
	}
	// An instruction moved to another block keeps the count of
	// instructions but not the shape: the answer needs no fingerprint.
	b0, b2 := f.Blocks[0], f.Blocks[2]
	b2.Insts = append([]*Inst{b0.Insts[1]}, b2.Insts...)
	b0.Insts = append(b0.Insts[:1], b0.Insts[2:]...)
	if at, fp := f.AtFixedPoint("R"); at || fp != 0 {
		t.Errorf("after a move: at %v, fingerprint %x, want false, 0", at, fp)
	}
	if at, fp := f.AtFixedPoint("S"); at || fp != 0 {
		t.Errorf("no memo: at %v, fingerprint %x, want false, 0", at, fp)
	}
}

// TestLivenessCache: Liveness hands out the same sets while the code is
// unchanged, and fresh, correct ones after an edit.
func TestLivenessCache(t *testing.T) {
	f := parseFingerprintFunc(t)
	l := Liveness(f)
	if Liveness(f) != l {
		t.Error("unchanged code: liveness computed again")
	}
	b2 := f.Blocks[2]
	if got := fmt.Sprint(l.LiveInWords(b2)); got != "[%r0 %r1]" {
		t.Fatalf("live into BB2 = %s", got)
	}
	// Store %r0 twice: %r1 is no longer read.
	b2.Insts[0].Srcs[1].Reg = VReg(ClassR, 0, 1)
	l2 := Liveness(f)
	if l2 == l {
		t.Fatal("edited code: the old liveness handed out")
	}
	if got := fmt.Sprint(l2.LiveInWords(b2)); got != "[%r0]" {
		t.Errorf("after the edit, live into BB2 = %s, want [%%r0]", got)
	}
	// Recompute consumes its input: it is not handed out again.
	l3 := l2.Recompute(func(*Block) bool { return false })
	if l4 := Liveness(f); l4 == l2 || l4 == l3 {
		t.Error("a consumed liveness handed out again")
	}
	// New blocks with the same code (a pass that rebuilt them) are not
	// the blocks the sets are keyed by.
	l5 := Liveness(f)
	g := f.Clone()
	f.Blocks = g.Blocks
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if Liveness(f) == l5 {
		t.Error("liveness keyed by the old blocks handed out for new ones")
	}
}

// bigFingerprintFunc is a function of n copies of a five-instruction
// loop body, each its own block: a large kernel's shape for the
// benchmarks.
func bigFingerprintFunc(tb testing.TB, n int) *Func {
	tb.Helper()
	var s strings.Builder
	s.WriteString(".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 S2R %r0 = SR_TID.X ;\n\t#2 MOV %r1 = 0x1 ;\n")
	id := 3
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&s, "BB%d:\n", i)
		fmt.Fprintf(&s, "\t#%d IADD3 %%r%d = %%r0, %%r1, RZ ;\n", id, i+1)
		fmt.Fprintf(&s, "\t#%d IMAD.WIDE.U32 %%r%d.64 = %%r%d, 0x4, %%r0 ;\n", id+1, 2*n+2*i, i+1)
		fmt.Fprintf(&s, "\t#%d ISETP.LT.AND %%p0, PT = %%r%d, 0x40, PT ;\n", id+2, i+1)
		fmt.Fprintf(&s, "\t#%d @%%p0 STG.E [%%r%d.64+0x10], %%r%d ;\n", id+3, 2*n+2*i, i+1)
		fmt.Fprintf(&s, "\t#%d FADD %%r1 = %%r1, -%%r%d ;\n", id+4, i+1)
		id += 5
	}
	fmt.Fprintf(&s, "BB%d:\n\t#%d EXIT ;\n}\n", n+1, id)
	f, err := ParseFunc("big.ori", []byte(s.String()))
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		tb.Fatal(err)
	}
	return f
}

// BenchmarkFingerprint hashes a function of 10,000 instructions.
func BenchmarkFingerprint(b *testing.B) {
	f := bigFingerprintFunc(b, 400)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Fingerprint(f)
	}
}
