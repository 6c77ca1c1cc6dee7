package opt

// OriPerformLiveDeadFourth, tuple splitting: a multi-word virtual
// register of which every definition and every read names a single word
// becomes one register per word.
//
// The lowering builds some values as tuples that no instruction ever
// reads or writes whole: a .func parameter of type .v4.u16 arrives in R4-R7
// and is copied word by word into a four-word register, of which each
// element is then read alone; load narrowing, dead code elimination and
// the folds can leave other tuples accessed only word by word. The
// register allocator places a tuple as one item, aligned to its size and
// live wherever any of its words is (regalloc/problem.go), so such a
// value takes four aligned registers from its first word's definition to
// its last word's read. Split, each word is an ordinary value with its
// own live range and no alignment:
//
//	MOV %r4 = R4                      MOV %r4 = R4
//	MOV %r4[1] = R5                   MOV %r20 = R5
//	MOV %r4[2] = R6        ==>        MOV %r21 = R6
//	MOV %r4[3] = R7                   MOV %r22 = R7
//	LOP3.LUT %r7 = %r4, 0xffff, ...   LOP3.LUT %r7 = %r4, 0xffff, ...
//	LOP3.LUT %r8 = %r4[1], 0xffff,..  LOP3.LUT %r8 = %r20, 0xffff, ...
//
// In testdata/kernels/vec_subword_mov.ptx the callee pack4 then keeps
// each element in the register it arrives in (R4-R7, the copies
// coalesced away) instead of R8-R11, and its caller, which must keep its
// output pointer clear of what pack4 writes, needs 12 registers instead
// of 16 (ptxas: 10).
//
// Words are independent storage (ori/SEMANTICS.md: a register tuple is
// its words), so renaming a word that is only ever named alone changes
// no value. Any access of two or more words at once (a 64-bit operand,
// an address base pair, a memory descriptor) keeps the register whole.
//
// Knob: DisableTupleSplit switches it off. Each split register is one
// site (its first definition's instruction).

import (
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableTupleSplit", Type: knobs.TypeBool,
		Doc:     "Switch off splitting a multi-word virtual register whose every access names one word into one register per word (phase OriPerformLiveDeadFourth).",
		Readers: []string{"OriPerformLiveDeadFourth"}})
}

// SplitTuples splits tuples that are only ever accessed word by word.
var SplitTuples = Pass{
	Run:  splitTuples,
	NoOp: offBy("DisableTupleSplit"),
}

// tsKey names a virtual register.
type tsKey struct {
	class ori.RegClass
	n     int32
}

// tsInfo is what splitTuples learns about one virtual register.
type tsInfo struct {
	extent int       // words: the highest Off+Words seen
	whole  bool      // some access names two or more words
	first  *ori.Inst // first instruction that names it
	words  []ori.Reg // after the split: the register of each word
}

func splitTuples(f *ori.Func, c *Context) (bool, error) {
	if c.Bool("DisableTupleSplit") {
		return false, nil
	}
	info := map[tsKey]*tsInfo{}
	var order []*tsInfo // by first access, so sites are numbered stably
	note := func(in *ori.Inst, r ori.Reg) {
		if !r.Virtual {
			return
		}
		k := tsKey{r.Class, r.N}
		x := info[k]
		if x == nil {
			x = &tsInfo{first: in}
			info[k] = x
			order = append(order, x)
		}
		x.extent = max(x.extent, int(r.Off)+max(int(r.Words), 1))
		if r.Words > 1 {
			x.whole = true
		}
	}
	visit := func(fn func(in *ori.Inst, r *ori.Reg)) {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				fn(in, &in.Guard)
				for _, ops := range [][]ori.Operand{in.Dsts, in.Srcs} {
					for i := range ops {
						o := &ops[i]
						switch {
						case o.Kind == ori.OpdReg:
							fn(in, &o.Reg)
						case (o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase:
							fn(in, &o.Reg)
						}
						if o.HasDesc {
							fn(in, &o.Desc)
						}
					}
				}
			}
		}
	}
	visit(func(in *ori.Inst, r *ori.Reg) { note(in, *r) })
	split := 0
	for _, x := range order {
		if x.whole || x.extent < 2 {
			continue
		}
		if !c.Sites.Allow(f, x.first.ID, "split a tuple accessed only word by word") {
			x.whole = true
			continue
		}
		split++
	}
	if split == 0 {
		return false, nil
	}
	visit(func(in *ori.Inst, r *ori.Reg) {
		if !r.Virtual {
			return
		}
		x := info[tsKey{r.Class, r.N}]
		if x == nil || x.whole || x.extent < 2 {
			return
		}
		if x.words == nil {
			x.words = make([]ori.Reg, x.extent)
			x.words[0] = ori.VReg(r.Class, int(r.N), 1)
			for w := 1; w < x.extent; w++ {
				x.words[w] = f.NewVReg(r.Class, 1)
			}
		}
		*r = x.words[r.Off]
	})
	return true, nil
}
