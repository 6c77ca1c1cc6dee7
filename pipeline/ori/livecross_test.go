package ori

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestLiveSetsMatchReference compares the live sets, whose block sets hold
// only the words that can cross a block boundary (crossFirst), with a
// straightforward solve over maps of words, on random functions that mix
// block-local temporaries, words live across blocks, loops (back
// branches), guarded writes, 64-bit pairs read by word and MOV.PHIs. Both
// ordinary and strong liveness are compared: every block's live-in and
// live-out words, LiveIn and LiveOut of every register, and at every
// instruction of a Walk the words live after it and whether it is
// needed; then the same after a Recompute of every block.
func TestLiveSetsMatchReference(t *testing.T) {
	essential := func(in *Inst) bool { return in.Op.Flags()&(FStore|FBranch|FExit) != 0 }
	locals := 0
	for seed := int64(1); seed <= 200; seed++ {
		src := randomLiveFunc(rand.New(rand.NewSource(seed)), 10)
		f, err := ParseFunc("rand.ori", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		for _, ess := range []func(*Inst) bool{nil, essential} {
			want, refOut := refLiveness(f, ess)
			if ess == nil {
				var want Pressure
				for _, b := range f.Blocks {
					p := refPressure(b, refOut)
					want = Pressure{max(want.R, p.R), max(want.UR, p.UR), max(want.P, p.P), max(want.UP, p.UP)}
				}
				if got := maxPressure(f); got != want {
					t.Fatalf("seed %d: pressure %+v, reference %+v\n%s", seed, got, want, src)
				}
			}
			l := computeLive(f, ess)
			if l.nc < len(l.keys) {
				locals++
			}
			if got := describeLive(f, l); got != want {
				t.Fatalf("seed %d, strong %v:\n%s\ngot:\n%s\nwant:\n%s", seed, ess != nil, src, got, want)
			}
			r := l.Recompute(func(*Block) bool { return true })
			if got := describeLive(f, r); got != want {
				t.Fatalf("seed %d, strong %v, recomputed:\n%s\ngot:\n%s\nwant:\n%s", seed, ess != nil, src, got, want)
			}
		}
	}
	// The functions must exercise the renumbering: most have words that
	// never cross a block boundary.
	if locals < 200 {
		t.Errorf("only %d of 400 live sets had block-local words", locals)
	}
}

// randomLiveFunc writes a function of 3 to 9 blocks. Each block but the
// last ends in a guarded branch to a random block (backward ones make
// loops) and falls through to the next; registers %r0-%r5 and %p0 are
// shared by all blocks, %r(100+10i+k) are block i's temporaries, and
// %r50 is written as a 64-bit pair and read by word; %r(1000+30i+k) is
// a chain of temporaries at the top of block i; %r60 is written before
// every read.
//
// Blocks have up to long instructions besides the first and the last.
func randomLiveFunc(rng *rand.Rand, long int) string {
	nb := 3 + rng.Intn(7)
	targets := make([]int, nb)
	preds := make([][]int, nb)
	for i := 0; i+1 < nb; i++ {
		targets[i] = rng.Intn(nb)
		preds[i+1] = append(preds[i+1], i)
		preds[targets[i]] = append(preds[targets[i]], i)
	}
	var s strings.Builder
	id := 1
	emit := func(format string, args ...any) {
		fmt.Fprintf(&s, "\t#%d "+format+" ;\n", append([]any{id}, args...)...)
		id++
	}
	for i := 0; i < nb; i++ {
		fmt.Fprintf(&s, "BB%d:\n", i)
		shared := func() string { return fmt.Sprintf("%%r%d", rng.Intn(6)) }
		local := func() string { return fmt.Sprintf("%%r%d", 100+10*i+rng.Intn(4)) }
		any := func() string {
			switch rng.Intn(5) {
			case 0, 1:
				return local()
			case 2:
				return fmt.Sprintf("%%r50[%d]", rng.Intn(2))
			}
			return shared()
		}
		if len(preds[i]) > 0 && rng.Intn(2) == 0 {
			srcs := []string{}
			for _, p := range preds[i] {
				srcs = append(srcs, fmt.Sprintf("%s, BB%d", any(), p))
			}
			emit("MOV.PHI %s = %s", shared(), strings.Join(srcs, ", "))
		}
		// Temporaries written first, so that most are local to the block,
		// and a chain of words each read once right after it is written:
		// more words than one 64-bit set word holds, most of them local,
		// so that the block sets are narrower than the walks'.
		emit("MOV %s = 0x%x", local(), rng.Intn(100))
		for k := 0; k < 24; k++ {
			src := "0x1"
			if k > 0 {
				src = fmt.Sprintf("%%r%d", 1000+30*i+k-1)
			}
			emit("IADD3 %%r%d = %s, %s, RZ", 1000+30*i+k, src, any())
		}
		for k := 1 + rng.Intn(long); k > 0; k-- {
			switch rng.Intn(9) {
			case 0:
				emit("IADD3 %s = %s, %s, RZ", local(), any(), any())
			case 1:
				emit("IADD3 %s = %s, %s, RZ", shared(), any(), any())
			case 2:
				emit("@%%p0 MOV %s = %s", any(), any())
			case 3:
				emit("ISETP.LT.AND %%p0, PT = %s, 0x40, PT", any())
			case 4:
				emit("STS [%s], %s", any(), any())
			case 5:
				emit("IMAD.WIDE.U32 %%r50.64 = %s, 0x4, %s", any(), any())
			case 6:
				// %r60 is never read before it is written: local to every
				// block, written guarded in some (and so live above).
				emit("@%%p0 MOV %%r60 = %s", any())
			case 7:
				emit("MOV %%r60 = %s", any())
				emit("STS [%%r60], %s", any())
			default:
				emit("MOV %s = %s", local(), any())
			}
		}
		if i+1 < nb {
			emit("@%%p0 BRA BB%d", targets[i])
		} else {
			emit("EXIT")
		}
	}
	return fn(s.String())
}

// TestMaxPressureMatchesReference compares maxPressure, whose block sets
// hold only the words that can cross a block boundary, with the pressure
// walked from the reference solve's live-out sets, on random functions
// with short blocks (where the words live across blocks decide the
// peak).
func TestMaxPressureMatchesReference(t *testing.T) {
	for seed := int64(1); seed <= 1000; seed++ {
		src := randomLiveFunc(rand.New(rand.NewSource(seed)), 1+int(seed%4))
		f, err := ParseFunc("rand.ori", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		_, out := refLiveness(f, nil)
		got := make([]Pressure, len(f.Blocks))
		blockPressures(f, got)
		for i, b := range f.Blocks {
			if want := refPressure(b, out); got[i] != want {
				t.Fatalf("seed %d: pressure of BB%d %+v, reference %+v\n%s", seed, b.ID, got[i], want, src)
			}
		}
	}
}

// describeLive prints, per block, l's live-in and live-out words, the
// registers LiveIn and LiveOut report, and per instruction (last to
// first, as Walk visits them) whether it is needed and the words live
// after it.
func describeLive(f *Func, l *LiveSets) string {
	regs := liveRefRegs(f)
	var s strings.Builder
	for _, b := range f.Blocks {
		fmt.Fprintf(&s, "BB%d in %v out %v\n", b.ID, l.LiveInWords(b), l.LiveOutWords(b))
		var in, out []Reg
		for _, r := range regs {
			if l.LiveIn(b, r) {
				in = append(in, r)
			}
			if l.LiveOut(b, r) {
				out = append(out, r)
			}
		}
		fmt.Fprintf(&s, "  LiveIn %v LiveOut %v\n", in, out)
		l.Walk(b, func(in *Inst, after func(Reg) bool, needed bool) {
			var live []Reg
			for _, r := range regs {
				if after(r) {
					live = append(live, r)
				}
			}
			fmt.Fprintf(&s, "  #%d %v %v\n", in.ID, needed, live)
		})
	}
	return s.String()
}

// liveRefRegs lists every virtual register word f touches, sorted as
// LiveInWords sorts.
func liveRefRegs(f *Func) []Reg {
	seen := map[Reg]bool{}
	add := func(r Reg) {
		if r.Virtual {
			for w := 0; w < int(r.Words); w++ {
				seen[Reg{Class: r.Class, Virtual: true, N: r.N, Off: r.Off + uint8(w), Words: 1}] = true
			}
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			add(in.Guard)
			for _, o := range append(slices.Clone(in.Srcs), in.Dsts...) {
				if o.Kind == OpdReg || (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
					add(o.Reg)
				}
			}
		}
	}
	var regs []Reg
	for r := range seen {
		regs = append(regs, r)
	}
	slices.SortFunc(regs, func(a, b Reg) int {
		if a.Class != b.Class {
			return int(a.Class) - int(b.Class)
		}
		if a.N != b.N {
			return int(a.N - b.N)
		}
		return int(a.Off) - int(b.Off)
	})
	return regs
}

// refLiveness solves liveness the plain way (a map of words per block,
// whole sweeps until nothing changes) and prints it as describeLive does.
// A phi's sources are read at the end of the predecessor they name, its
// result is written at the top of its block; a guarded write does not
// kill; with essential set, an instruction's reads count only when it is
// essential or writes a word live after it.
//
// It also returns the live-out words of each block.
func refLiveness(f *Func, essential func(*Inst) bool) (string, map[*Block]map[Reg]bool) {
	type set = map[Reg]bool
	words := func(r Reg) []Reg {
		var ws []Reg
		if r.Virtual {
			for w := 0; w < int(r.Words); w++ {
				ws = append(ws, Reg{Class: r.Class, Virtual: true, N: r.N, Off: r.Off + uint8(w), Words: 1})
			}
		}
		return ws
	}
	defs := func(in *Inst) []Reg {
		var ws []Reg
		for _, o := range in.Dsts {
			if o.Kind == OpdReg {
				ws = append(ws, words(o.Reg)...)
			}
		}
		return ws
	}
	uses := func(in *Inst) []Reg {
		ws := words(in.Guard)
		if in.IsPhi() {
			return ws
		}
		for _, o := range in.Srcs {
			if o.Kind == OpdReg || (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
				ws = append(ws, words(o.Reg)...)
			}
		}
		for _, o := range in.Dsts {
			if (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
				ws = append(ws, words(o.Reg)...)
			}
		}
		return ws
	}
	needed := func(in *Inst, after set) bool {
		if essential == nil || essential(in) {
			return true
		}
		for _, d := range defs(in) {
			if after[d] {
				return true
			}
		}
		return false
	}
	// phiReads[b][p]: the words b's needed phis read at the end of p.
	// walk runs block b backward from out, calling visit (if set) with
	// each instruction and the words live after it.
	walk := func(b *Block, out set, phiReads map[int32]set, visit func(*Inst, set, bool)) set {
		cur := set{}
		for r := range out {
			cur[r] = true
		}
		for i := len(b.Insts) - 1; i >= 0; i-- {
			in := b.Insts[i]
			need := needed(in, cur)
			if visit != nil {
				visit(in, cur, need)
			}
			if !in.Guarded() {
				for _, d := range defs(in) {
					delete(cur, d)
				}
			}
			if !need {
				continue
			}
			for _, u := range uses(in) {
				cur[u] = true
			}
			if in.IsPhi() && phiReads != nil {
				for j := 0; j+1 < len(in.Srcs); j += 2 {
					p := in.Srcs[j+1].Block
					if phiReads[p] == nil {
						phiReads[p] = set{}
					}
					for _, w := range words(in.Srcs[j].Reg) {
						phiReads[p][w] = true
					}
				}
			}
		}
		return cur
	}
	in, out := map[*Block]set{}, map[*Block]set{}
	phis := map[*Block]map[int32]set{}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			o := set{}
			for _, s := range b.Succs {
				for r := range in[s] {
					o[r] = true
				}
				for r := range phis[s][b.ID] {
					o[r] = true
				}
			}
			p := map[int32]set{}
			i := walk(b, o, p, nil)
			if fmt.Sprint(i) != fmt.Sprint(in[b]) || fmt.Sprint(p) != fmt.Sprint(phis[b]) || fmt.Sprint(o) != fmt.Sprint(out[b]) {
				changed = true
			}
			in[b], out[b], phis[b] = i, o, p
		}
	}
	regs := liveRefRegs(f)
	list := func(s set) []Reg {
		var l []Reg
		for _, r := range regs {
			if s[r] {
				l = append(l, r)
			}
		}
		return l
	}
	var s strings.Builder
	for _, b := range f.Blocks {
		fmt.Fprintf(&s, "BB%d in %v out %v\n", b.ID, list(in[b]), list(out[b]))
		fmt.Fprintf(&s, "  LiveIn %v LiveOut %v\n", list(in[b]), list(out[b]))
		walk(b, out[b], nil, func(in *Inst, after set, needed bool) {
			fmt.Fprintf(&s, "  #%d %v %v\n", in.ID, needed, list(after))
		})
	}
	return s.String(), out
}

// refPressure is the peak pressure of block b from the reference
// live-out sets out: the block walked backward, counting the live words of each class at its
// end, after each instruction (results count even if unread) and before
// it. The random functions have no physical registers but RZ and PT,
// which are not counted.
func refPressure(b *Block, out map[*Block]map[Reg]bool) Pressure {
	var p Pressure
	words := func(r Reg, f func(Reg)) {
		if r.Virtual {
			for w := 0; w < int(r.Words); w++ {
				f(Reg{Class: r.Class, Virtual: true, N: r.N, Off: r.Off + uint8(w), Words: 1})
			}
		}
	}
	{
		cur := map[Reg]bool{}
		for r := range out[b] {
			cur[r] = true
		}
		record := func() {
			var c [NumClasses]int
			for r := range cur {
				c[r.Class]++
			}
			p.R, p.UR, p.P, p.UP = max(p.R, c[ClassR]), max(p.UR, c[ClassUR]), max(p.P, c[ClassP]), max(p.UP, c[ClassUP])
		}
		add := func(r Reg) { cur[r] = true }
		del := func(r Reg) { delete(cur, r) }
		record()
		for i := len(b.Insts) - 1; i >= 0; i-- {
			in := b.Insts[i]
			for _, o := range in.Dsts {
				if o.Kind == OpdReg {
					words(o.Reg, add)
				}
			}
			record()
			if !in.Guarded() {
				for _, o := range in.Dsts {
					if o.Kind == OpdReg {
						words(o.Reg, del)
					}
				}
			}
			if !in.IsPhi() {
				words(in.Guard, add)
				for _, o := range in.Srcs {
					if o.Kind == OpdReg || (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
						words(o.Reg, add)
					}
				}
				for _, o := range in.Dsts {
					if (o.Kind == OpdMem || o.Kind == OpdCBank) && o.HasBase {
						words(o.Reg, add)
					}
				}
			}
			record()
		}
	}
	return p
}
