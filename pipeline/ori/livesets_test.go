package ori

import (
	"fmt"
	"testing"
)

func TestLiveSets(t *testing.T) {
	src := `.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r1 = 0x1 ;
	#3 MOV %r1[1] = 0x2 ;
	#4 MOV %r9 = 0x3 ;
BB1:
	#5 MOV.PHI %r2 = %r0, BB0, %r3, BB1 ;
	#6 IADD3 %r3 = %r2, %r1[1], RZ ;
	#7 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 STS [%r3], %r9 ;
	#10 EXIT ;
}
`
	f, err := ParseFunc("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	l := Liveness(f)
	b0, b1 := f.Blocks[0], f.Blocks[1]
	// The phi reads %r0 at the end of BB0 and %r3 at the end of BB1; %r2
	// is defined by the phi, so it is not live into BB1.
	for _, c := range []struct {
		got  []Reg
		want string
	}{
		{l.LiveOutWords(b0), "[%r0 %r1[1] %r9]"},
		{l.LiveInWords(b1), "[%r1[1] %r9]"},
		{l.LiveOutWords(b1), "[%r1[1] %r3 %r9]"},
		{l.LiveInWords(b0), "[]"},
	} {
		if s := fmt.Sprint(c.got); s != c.want {
			t.Errorf("got %s, want %s", s, c.want)
		}
	}
	if !l.LiveOut(b0, VReg(ClassR, 1, 2)) || l.LiveOut(b0, VReg(ClassR, 1, 1)) {
		t.Error("LiveOut of the %r1 pair: word 1 is live, word 0 is not")
	}
	// Strong liveness with only stores essential: %r1 feeds the loop
	// counter, so it stays live; the dead ISETP chain does not matter here.
	s := StrongLiveness(f, func(in *Inst) bool { return in.Op.Flags()&(FStore|FBranch|FExit) != 0 })
	if got := fmt.Sprint(s.LiveOutWords(b0)); got != "[%r0 %r1[1] %r9]" {
		t.Errorf("strong live-out of BB0 = %s", got)
	}
	var dead []int32
	for _, b := range f.Blocks {
		s.Walk(b, func(in *Inst, _ func(Reg) bool, needed bool) {
			if !needed {
				dead = append(dead, in.ID)
			}
		})
	}
	if got := fmt.Sprint(dead); got != "[2]" {
		t.Errorf("faint instructions = %s, want [2]", got)
	}
	// WalkUnchanged reuses the indexed words and must report the same:
	// each instruction's need and which words are live after it.
	walk := func(w func(*Block, func(*Inst, func(Reg) bool, bool))) string {
		out := ""
		for _, b := range f.Blocks {
			w(b, func(in *Inst, after func(Reg) bool, needed bool) {
				out += fmt.Sprintf("#%d %v", in.ID, needed)
				for _, r := range []Reg{VReg(ClassR, 0, 1), VReg(ClassR, 1, 2), VReg(ClassR, 3, 1), VReg(ClassR, 9, 1)} {
					out += fmt.Sprintf(" %v", after(r))
				}
				out += "; "
			})
		}
		return out
	}
	// Per instruction, last to first: needed, then whether %r0, the %r1
	// pair, %r3 and %r9 are live after it. #2 writes only the dead word 0
	// of %r1, and #4 starts %r9's life.
	want := "#4 true true true false true; #3 true true true false false; #2 false true false false false; #1 true true false false false; " +
		"#8 true false true true true; #7 true false true true true; #6 true false true true true; #5 true false true false true; " +
		"#10 true false false false false; #9 true false false false false; "
	if got := walk(s.Walk); got != want {
		t.Errorf("Walk: %s\nwant  %s", got, want)
	}
	if got := walk(s.WalkUnchanged); got != want {
		t.Errorf("WalkUnchanged: %s\nwant           %s", got, want)
	}
}

// TestLiveSetsRecompute edits one block in place (its store reads %r3
// instead of %r9, so %r9 is no longer live anywhere) and removes another, then checks that
// Recompute, told about the edited block, gives the sets of a fresh
// Liveness at every block, phis included; and that the check mode
// catches an edit Recompute was not told about.
func TestLiveSetsRecompute(t *testing.T) {
	src := fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r9 = 0x3 ;
	#3 MOV %r8 = 0x4 ;
	#4 ISETP.LT.AND %p1, PT = %r0, 0x8, PT ;
	#5 @%p1 BRA BB2 ;
BB1:
	#6 IADD3 %r8 = %r8, 0x1, RZ ;
BB2:
	#7 MOV.PHI %r2 = %r0, BB0, %r2, BB2, %r0, BB1 ;
	#8 IADD3 %r3 = %r2, %r8, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#10 @%p0 BRA BB2 ;
BB3:
	#11 STS [%r3], %r9 ;
	#12 EXIT ;
`)
	build := func() (*Func, *LiveSets) {
		f, err := ParseFunc("k.ori", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		return f, Liveness(f)
	}
	// edit drops the store (so %r9 dies) and BB1 with its phi source.
	edit := func(f *Func) (edited []*Block) {
		b2, b3 := f.Blocks[2], f.Blocks[3]
		for k, o := range b3.Insts[0].Srcs { // in place: the block keeps its length
			if o.Kind == OpdReg && o.Reg.N == 9 {
				b3.Insts[0].Srcs[k].Reg.N = 3
			}
		}
		phi := b2.Insts[0]
		phi.Srcs = phi.Srcs[:4]
		f.Blocks = append(f.Blocks[:1], f.Blocks[2:]...)
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		return []*Block{b3}
	}
	words := func(rs []Reg) string { return fmt.Sprint(rs) }

	f, l := build()
	if !l.LiveOut(f.Blocks[2], VReg(ClassR, 9, 1)) {
		t.Fatal("before the edit %r9 must be live out of BB2")
	}
	edited := edit(f)
	r := l.Recompute(func(b *Block) bool { return b == edited[0] })
	fresh := Liveness(f)
	for _, b := range f.Blocks {
		if got, want := words(r.LiveInWords(b)), words(fresh.LiveInWords(b)); got != want {
			t.Errorf("BB%d live in: recomputed %s, fresh %s", b.ID, got, want)
		}
		if got, want := words(r.LiveOutWords(b)), words(fresh.LiveOutWords(b)); got != want {
			t.Errorf("BB%d live out: recomputed %s, fresh %s", b.ID, got, want)
		}
	}
	if r.LiveOut(f.Blocks[1], VReg(ClassR, 9, 1)) {
		t.Error("after the edit %r9 is still live out of BB2")
	}

	// Not told about BB3: its old words keep %r9 alive, and the check
	// mode must say so.
	f, l = build()
	edit(f)
	CheckLiveRecompute.Store(true)
	defer CheckLiveRecompute.Store(false)
	defer func() {
		if recover() == nil {
			t.Error("an undeclared edit passed the check of Recompute")
		}
	}()
	l.Recompute(func(*Block) bool { return false })
}

// TestLiveSetsRelease: live sets computed in the memory of released
// strong live sets equal sets computed afresh (on a clone, which has no
// released memory), after each kind of edit a pass makes between two
// liveness computations: a source rewritten in place, an instruction
// deleted, new registers past every index table, a block removed, and
// words indexed by a Walk of an edited block.
func TestLiveSetsRelease(t *testing.T) {
	f, err := ParseFunc("k.ori", []byte(fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r9 = 0x3 ;
	#3 MOV %r8 = 0x4 ;
	#4 MOV %r1 = 0x1 ;
	#5 MOV %r1[1] = 0x2 ;
	#6 ISETP.LT.AND %p1, PT = %r0, 0x8, PT ;
	#7 @%p1 BRA BB2 ;
BB1:
	#8 IADD3 %r8 = %r8, 0x1, RZ ;
BB2:
	#9 MOV.PHI %r2 = %r0, BB0, %r2, BB2, %r0, BB1 ;
	#10 IADD3 %r3 = %r2, %r8, RZ ;
	#11 IADD3 %r4 = %r1[1], %r3, RZ ;
	#12 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#13 @%p0 BRA BB2 ;
BB3:
	#14 STS [%r3], %r9 ;
	#15 STS [%r4], %r1.64 ;
	#16 EXIT ;
`)))
	if err != nil {
		t.Fatal(err)
	}
	ess := func(in *Inst) bool { return in.Op.Flags()&(FStore|FBranch|FExit) != 0 }
	sets := func(l *LiveSets, g *Func) string {
		out := ""
		for _, b := range g.Blocks {
			out += fmt.Sprintf("BB%d in %v out %v; ", b.ID, l.LiveInWords(b), l.LiveOutWords(b))
		}
		return out
	}
	edits := []struct {
		name string
		edit func()
	}{
		{"none", func() {}},
		{"source rewritten", func() { f.Blocks[3].Insts[0].Srcs[1].Reg.N = 3 }},
		{"instruction deleted", func() { f.Blocks[0].Insts = append(f.Blocks[0].Insts[:1], f.Blocks[0].Insts[2:]...) }},
		{"new registers", func() {
			b := f.Blocks[3]
			var last Reg
			for i := 0; i < 300; i++ { // past the tables sized for the old count
				r := f.NewVReg(ClassR, 2)
				in := NewInst(OpIADD3)
				in.ID = f.NewID()
				in.Dsts = []Operand{R(r)}
				in.Srcs = []Operand{R(VReg(ClassR, 3, 1)), Imm(int64(i)), R(RZ)}
				if i > 0 {
					in.Srcs[0] = R(last)
				}
				b.Insts = append([]*Inst{in}, b.Insts...)
				last = r
			}
			b.Insts[len(b.Insts)-2].Srcs[1] = R(last)
		}},
		{"block removed", func() {
			phi := f.Blocks[2].Insts[0]
			phi.Srcs = phi.Srcs[:4]
			f.Blocks = append(f.Blocks[:1], f.Blocks[2:]...)
		}},
	}
	for _, e := range edits {
		e.edit()
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		reused := f.cache.spare != nil
		s := StrongLiveness(f, ess)
		if reused && f.cache.spare != nil {
			t.Errorf("%s: the released memory was not taken", e.name)
		}
		g := f.Clone()
		if err := g.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if got, want := sets(s, f), sets(StrongLiveness(g, ess), g); got != want {
			t.Errorf("%s: strong liveness in released memory:\n%s\nfresh:\n%s", e.name, got, want)
		}
		// A Walk of an edited block indexes words the solve did not see
		// (here a new register read by the store); Release must clear
		// their index entries too.
		b := f.Blocks[len(f.Blocks)-1]
		st := b.Insts[len(b.Insts)-2]
		old := st.Srcs[1]
		st.Srcs[1] = R(f.NewVReg(ClassR, 2))
		s.Walk(b, func(*Inst, func(Reg) bool, bool) {})
		st.Srcs[1] = old
		s.Release()
		if f.cache.spare == nil {
			t.Fatalf("%s: nothing released", e.name)
		}
		for c, d := range f.cache.spare.dense {
			for i, v := range d[:cap(d)] {
				if v != 0 {
					t.Fatalf("%s: released index of class %d has entry %d = %d", e.name, c, i, v)
				}
			}
		}
		// Ordinary liveness takes released memory too.
		if got, want := sets(Liveness(f), f), sets(computeLive(g, nil), g); got != want {
			t.Errorf("%s: liveness in released memory:\n%s\nfresh:\n%s", e.name, got, want)
		}
		if l := Liveness(f); true {
			l.Release() // not the caller's to release: a no-op
			if Liveness(f) != l || len(l.keys) == 0 {
				t.Errorf("%s: releasing the cached liveness changed it", e.name)
			}
		}
	}
}

// BenchmarkComputeLive computes the liveness of a function of 10,000
// instructions afresh (no cache), as a pass that edited it would.
func BenchmarkComputeLive(b *testing.B) {
	f := bigFingerprintFunc(b, 2000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		computeLive(f, nil)
	}
}

// TestLiveSetsAsLiveness: strong sets under which every instruction is
// needed become the ordinary liveness Liveness hands out, with the
// ordinary sets and ordinary walks (an unread instruction is needed),
// until the code changes.
func TestLiveSetsAsLiveness(t *testing.T) {
	src := fn(`BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 MOV %r9 = 0x3 ;
	#3 MOV %r8 = 0x4 ;
	#4 ISETP.LT.AND %p1, PT = %r0, 0x8, PT ;
	#5 @%p1 BRA BB2 ;
BB1:
	#6 IADD3 %r8 = %r8, 0x1, RZ ;
BB2:
	#7 MOV.PHI %r2 = %r0, BB0, %r2, BB2, %r0, BB1 ;
	#8 IADD3 %r3 = %r2, %r8, RZ ;
	#9 ISETP.LT.AND %p0, PT = %r3, 0x40, PT ;
	#10 @%p0 BRA BB2 ;
BB3:
	#11 STS [%r3], %r9 ;
	#12 EXIT ;
`)
	f, err := ParseFunc("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseFunc("k.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*Func{f, g} {
		if err := h.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
	}
	ess := func(in *Inst) bool { return in.Op.Flags()&(FStore|FBranch|FExit) != 0 }
	s := StrongLiveness(f, ess)
	for _, b := range f.Blocks {
		s.WalkUnchanged(b, func(in *Inst, _ func(Reg) bool, needed bool) {
			if !needed {
				t.Fatalf("#%d is not needed: the fixture must have nothing dead", in.ID)
			}
		})
	}
	if fp := s.AsLiveness(0); fp != Fingerprint(f) {
		t.Fatalf("AsLiveness returned fingerprint %#x, want %#x", fp, Fingerprint(f))
	}
	l := Liveness(f)
	if l != s {
		t.Fatal("Liveness computed the sets again instead of handing out the adopted ones")
	}
	want := computeLive(g, nil)
	for i, b := range f.Blocks {
		gb := g.Blocks[i]
		if got, w := fmt.Sprint(l.LiveInWords(b), l.LiveOutWords(b)), fmt.Sprint(want.LiveInWords(gb), want.LiveOutWords(gb)); got != w {
			t.Errorf("BB%d: adopted sets %s, ordinary liveness %s", b.ID, got, w)
		}
	}
	// An unread instruction added to a block: an ordinary walk calls it
	// needed (a strong one would not).
	b := f.Blocks[3]
	dead := NewInst(OpIADD3)
	dead.ID = f.NewID()
	dead.Dsts = []Operand{R(f.NewVReg(ClassR, 1))}
	dead.Srcs = []Operand{R(VReg(ClassR, 3, 1)), Imm(1), R(RZ)}
	b.Insts = append([]*Inst{dead}, b.Insts...)
	l.Walk(b, func(in *Inst, _ func(Reg) bool, needed bool) {
		if in == dead && !needed {
			t.Error("a walk of the adopted sets treats an unread instruction as not needed")
		}
	})
	if Liveness(f) == l {
		t.Error("Liveness handed out the adopted sets after the code changed")
	}
}
