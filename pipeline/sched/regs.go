package sched

// Register words: the unit every dependency in this package is tracked in.
//
// A 64-bit operand R4.64 touches the words R4 and R5; %r7.64 touches words
// 0 and 1 of virtual register 7; a predicate is one word. Two operands
// conflict when they share a word, whatever their widths. RZ, URZ, PT and
// UPT are not words: reading them gives a constant and writing them does
// nothing.
//
// Beyond the explicit operands, two opcodes touch predicates implicitly:
// P2R reads P0-P6 (the bits its mask selects) and R2P writes them
// (pipeline/sim: execP2R, execR2P). CALL and RET touch the ABI registers
// implicitly; the scheduler keeps them in place instead (see dag.go) and
// the control-word passes drain everything at them.

import (
	"strconv"

	"orilab/pipeline/ori"
)

// word is one register word.
//
// The fields are ordered, and padded by a named always-zero field, so that
// the struct is eight bytes of plain memory, which maps hash as one word.
type word struct {
	n     int32 // physical: the register number; virtual: N<<2 | word index
	class ori.RegClass
	virt  bool
	pad   uint16 // always 0
}

func (w word) String() string {
	if !w.virt {
		return w.class.String() + strconv.Itoa(int(w.n))
	}
	r := ori.Reg{Class: w.class, Virtual: true, N: w.n >> 2, Off: uint8(w.n & 3), Words: 1}
	return r.String()
}

// wordsOf appends the words of register r (none for RZ/URZ/PT/UPT).
func wordsOf(dst []word, r ori.Reg) []word {
	if r.IsZero() {
		return dst
	}
	n := int(r.Words)
	if n == 0 {
		n = 1
	}
	for i := 0; i < n; i++ {
		if r.Virtual {
			dst = append(dst, word{n: r.N<<2 | int32(r.Off) + int32(i), class: r.Class, virt: true})
		} else {
			dst = append(dst, word{n: r.N + int32(i), class: r.Class})
		}
	}
	return dst
}

// use lists the register words an instruction touches.
type use struct {
	guard  []word // the guard predicate, read at issue
	srcs   []word // register sources and address bases
	dsts   []word // results
	hasVir bool   // some operand is a virtual register
}

// predMask returns the predicate bits an implicit P0-P6 operand selects:
// the immediate mask, or all seven when the mask is not a constant.
func predMask(o ori.Operand) uint32 {
	if o.Kind == ori.OpdImm {
		return uint32(o.Imm) & 0x7f
	}
	return 0x7f
}

func predWords(dst []word, mask uint32) []word {
	for i := int32(0); i < 7; i++ {
		if mask&(1<<i) != 0 {
			dst = append(dst, word{n: i, class: ori.ClassP})
		}
	}
	return dst
}

// usesOf computes the words in touches. MOV.PHI is not special here: its
// callers keep phis out of the scheduled region.
func usesOf(in *ori.Inst) use { return usesInto(in, nil) }

// usesInto is usesOf with the word lists carved out of *arena (appended
// to it, each list capped at its length), when arena is not nil: the DAG
// builder keeps one arena for all the instructions of a function's
// regions instead of one allocation per instruction.
func usesInto(in *ori.Inst, arena *[]word) use {
	// The three lists are gathered in stack buffers and then share one
	// exact-size allocation (each capped at its length, so appending to
	// one cannot overwrite the next): the scheduler and the control-word
	// passes call this for every instruction, and growing three slices
	// from nil was most of its cost.
	var gb, sb, db [16]word
	u := use{guard: gb[:0], srcs: sb[:0], dsts: db[:0]}
	note := func(r ori.Reg) {
		if r.Virtual {
			u.hasVir = true
		}
	}
	if in.Guarded() {
		u.guard = wordsOf(u.guard, in.Guard)
		note(in.Guard)
	}
	for _, o := range in.Srcs {
		switch o.Kind {
		case ori.OpdReg:
			u.srcs = wordsOf(u.srcs, o.Reg)
			note(o.Reg)
		case ori.OpdMem, ori.OpdCBank:
			if o.HasBase {
				u.srcs = wordsOf(u.srcs, o.Reg)
				note(o.Reg)
			}
			if o.HasDesc {
				u.srcs = wordsOf(u.srcs, o.Desc)
				note(o.Desc)
			}
		}
	}
	for _, o := range in.Dsts {
		switch o.Kind {
		case ori.OpdReg:
			u.dsts = wordsOf(u.dsts, o.Reg)
			note(o.Reg)
		case ori.OpdMem, ori.OpdCBank:
			if o.HasBase {
				u.srcs = wordsOf(u.srcs, o.Reg)
				note(o.Reg)
			}
		}
	}
	switch in.Op {
	case ori.OpP2R:
		if n := len(in.Srcs); n > 0 {
			u.srcs = predWords(u.srcs, predMask(in.Srcs[n-1]))
		}
	case ori.OpR2P:
		mask := uint32(0x7f)
		if len(in.Srcs) > 1 {
			mask = predMask(in.Srcs[1])
		}
		u.dsts = predWords(u.dsts, mask)
	}
	ng, ns, nd := len(u.guard), len(u.srcs), len(u.dsts)
	if ng+ns+nd == 0 {
		return use{hasVir: u.hasVir}
	}
	var all []word
	if arena != nil {
		a := *arena
		if cap(a)-len(a) < ng+ns+nd {
			// A new block; the lists already carved keep the old one.
			a = make([]word, 0, max(2*cap(a), ng+ns+nd, 256))
		}
		start := len(a)
		a = append(append(append(a, u.guard...), u.srcs...), u.dsts...)
		all = a[start:len(a):len(a)]
		*arena = a
	} else {
		all = make([]word, 0, ng+ns+nd)
		all = append(append(append(all, u.guard...), u.srcs...), u.dsts...)
	}
	out := use{hasVir: u.hasVir}
	if ng > 0 {
		out.guard = all[:ng:ng]
	}
	if ns > 0 {
		out.srcs = all[ng : ng+ns : ng+ns]
	}
	if nd > 0 {
		out.dsts = all[ng+ns : ng+ns+nd : ng+ns+nd]
	}
	return out
}

// hasVirtual reports usesOf(in).hasVir without collecting any words.
func hasVirtual(in *ori.Inst) bool {
	if in.Guarded() && in.Guard.Virtual {
		return true
	}
	for k := range in.Srcs {
		switch o := &in.Srcs[k]; o.Kind {
		case ori.OpdReg:
			if o.Reg.Virtual {
				return true
			}
		case ori.OpdMem, ori.OpdCBank:
			if o.HasBase && o.Reg.Virtual || o.HasDesc && o.Desc.Virtual {
				return true
			}
		}
	}
	for k := range in.Dsts {
		switch o := &in.Dsts[k]; o.Kind {
		case ori.OpdReg:
			if o.Reg.Virtual {
				return true
			}
		case ori.OpdMem, ori.OpdCBank:
			if o.HasBase && o.Reg.Virtual {
				return true
			}
		}
	}
	return false
}

// hasWord reports whether ws contains w.
func hasWord(ws []word, w word) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}
