package opt

// OriBackCopyPropagate, tuple copies: backward copy propagation of a
// multi-word value copied word by word into a slice of a wider register.
//
// A vector store's data tuple is assembled word by word (lowering writes
// one MOV per word). backcopy.go renames a one-word temporary into its
// word of the tuple; a 64-bit temporary is copied by two word MOVs, each
// of which reads only part of it, so that rule never applies and the
// copies stay. The register allocator cannot coalesce them either: a
// tuple is one item whose words are all live from its first partial
// definition, which overlaps the last reads of the pair. A texture fetch
// shows it (TEX writes two register pairs, the store wants one quad):
//
//	#7  TEX.SCR.LL.2D %r9.64, %r8.64 = %r6.64, %r7, 0x0, 0x5b
//	#12 MOV %r10 = %r8                    #7 TEX.SCR.LL.2D %r10[2].64, %r10.64 = ...
//	#13 MOV %r10[1] = %r8[1]        ==>
//	#14 MOV %r10[2] = %r9                 #16 STG.E.128 [%r0.64], %r10.128
//	#15 MOV %r10[3] = %r9[1]
//	#16 STG.E.128 [%r0.64], %r10.128
//
// Four copies and four registers fewer (tex_read_1d_float: 14 registers
// to ptxas's 10 before; ptxas writes the TEX results straight into the
// quad the store reads).
//
// A group is w adjacent, unguarded word MOVs (w = 2 or 4, the width of
// the source s) "MOV d[k+t] = s[t]" for t = 0..w-1, in order, with k a
// multiple of w (the slice keeps the tuple alignment the allocator
// needs). It is then handled as one copy of s into d[k].w, under the
// conditions of backcopy.go, and one more: s has no reads but the group's
// and those between its definition and the group (the reaching-copy
// dataflow of the one-word rule follows a single copy instruction).
//
// Knob: DisableBackCopyTuples switches the group rule off (the one-word
// rule stays, under BackCopyPropBudget like this one).

import (
	"slices"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

func init() {
	knobs.Default.Register(knobs.Knob{Name: "DisableBackCopyTuples", Type: knobs.TypeBool,
		Doc:     "Switch off backward copy propagation of a 64- or 128-bit value copied word by word into a slice of a wider register (phase OriBackCopyPropagate).",
		Readers: []string{"OriBackCopyPropagate"}})
}

// bcWordCopy reports whether in is an unguarded one-word copy between
// virtual R (or UR) registers without modifiers.
func bcWordCopy(in *ori.Inst) bool {
	if in.Op != ori.OpMOV && in.Op != ori.OpUMOV || len(in.Mods) != 0 || in.Guarded() ||
		len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return false
	}
	d, s := in.Dsts[0], in.Srcs[0]
	return d.Kind == ori.OpdReg && s.Kind == ori.OpdReg && !s.Neg && !s.Abs && !s.Not &&
		d.Reg.Virtual && s.Reg.Virtual && d.Reg.Class == s.Reg.Class &&
		(d.Reg.Class == ori.ClassR || d.Reg.Class == ori.ClassUR) && d.Reg.Words == 1 && s.Reg.Words == 1
}

// bcGroup recognizes a group of word copies ending at b.Insts[i]: it
// returns the slice d[k].w they write, the whole source s and the index
// of the group's first copy.
func bcGroup(b *ori.Block, i int, st *bcRegStats) (d, s ori.Reg, first int, ok bool) {
	if !bcWordCopy(b.Insts[i]) {
		return d, s, 0, false
	}
	d1, s1 := b.Insts[i].Dsts[0].Reg, b.Insts[i].Srcs[0].Reg
	w := int(st.count(cmRegOf(s1)).width)
	if w != 2 && w != 4 || int(s1.Off) != w-1 || i < w-1 || cmRegOf(d1) == cmRegOf(s1) {
		return d, s, 0, false
	}
	k := int(d1.Off) - (w - 1)
	if k < 0 || k%w != 0 || k+w > int(st.count(cmRegOf(d1)).width) {
		return d, s, 0, false
	}
	first = i - w + 1
	for t := 0; t < w; t++ {
		in := b.Insts[first+t]
		if !bcWordCopy(in) {
			return d, s, 0, false
		}
		dt, se := in.Dsts[0].Reg, in.Srcs[0].Reg
		if cmRegOf(dt) != cmRegOf(d1) || int(dt.Off) != k+t || cmRegOf(se) != cmRegOf(s1) || int(se.Off) != t {
			return d, s, 0, false
		}
	}
	d, s = d1, s1
	d.Off, d.Words = uint8(k), uint8(w)
	s.Off, s.Words = 0, uint8(w)
	return d, s, first, true
}

// bcGroupUses returns the reads of s outside the group b.Insts[first..last]
// (all of them between s's definition b.Insts[di] and the group), or
// ok=false when s is read anywhere else.
func bcGroupUses(f *ori.Func, st *bcRegStats, b *ori.Block, di, first, last int, s ori.Reg) (uses []bcUse, ok bool) {
	for _, x := range st.readersOf(f, s) {
		if !readsReg(x.in, s) {
			continue
		}
		j := slices.Index(x.b.Insts, x.in)
		if j < 0 || x.b == b && j >= first && j <= last {
			continue // deleted, or in the group
		}
		if x.b != b || j <= di || j >= first {
			return nil, false
		}
		uses = append(uses, x)
	}
	return uses, true
}
