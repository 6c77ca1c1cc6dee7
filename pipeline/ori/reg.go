package ori

import (
	"fmt"
	"strconv"
)

// RegClass is a register file.
type RegClass uint8

const (
	ClassR  RegClass = iota // 32-bit per-thread registers R0-R254, RZ = R255
	ClassUR                 // 32-bit warp-uniform registers UR0-UR62, URZ = UR63 (sm_75+)
	ClassP                  // 1-bit predicates P0-P6, PT = P7
	ClassUP                 // 1-bit uniform predicates UP0-UP6, UPT = UP7 (sm_75+)
	NumClasses
)

// Physical limits per class: the zero/true register sits at Limit.
var classLimit = [NumClasses]int{ClassR: 255, ClassUR: 63, ClassP: 7, ClassUP: 7}

// Limit returns the number of the class's zero (RZ, URZ) or true (PT, UPT)
// register; allocatable registers are 0..Limit-1.
func (c RegClass) Limit() int { return classLimit[c] }

// IsPred reports whether the class holds 1-bit predicates.
func (c RegClass) IsPred() bool { return c == ClassP || c == ClassUP }

func (c RegClass) String() string {
	switch c {
	case ClassR:
		return "R"
	case ClassUR:
		return "UR"
	case ClassP:
		return "P"
	case ClassUP:
		return "UP"
	}
	return fmt.Sprintf("class%d", int(c))
}

// vprefix is the text prefix of virtual registers of each class.
var vprefix = [NumClasses]string{ClassR: "%r", ClassUR: "%ur", ClassP: "%p", ClassUP: "%up"}

// Reg names a register, or an aligned tuple of consecutive registers.
//
// A virtual register is a value of Width words (1, 2 or 4; predicates are
// always 1); an operand may use a slice of it: Off is the first word used
// and Words how many. After allocation, registers are physical: N is the
// hardware number of the first word (Off is then always 0) and the tuple
// must be aligned to its size. RZ, URZ, PT and UPT are physical in both
// forms.
type Reg struct {
	Class   RegClass
	Virtual bool
	N       int32 // virtual register number, or physical register number
	Off     uint8 // virtual only: first word of the value that is used
	Words   uint8 // words accessed: 1 (32-bit or predicate), 2 (64-bit), 4 (128-bit)
}

// Well-known physical registers.
var (
	RZ  = Reg{Class: ClassR, N: 255, Words: 1}
	URZ = Reg{Class: ClassUR, N: 63, Words: 1}
	PT  = Reg{Class: ClassP, N: 7, Words: 1}
	UPT = Reg{Class: ClassUP, N: 7, Words: 1}
)

// VReg returns word 0 of virtual register n of class c, accessed as words
// words.
func VReg(c RegClass, n int, words int) Reg {
	return Reg{Class: c, Virtual: true, N: int32(n), Words: uint8(words)}
}

// PReg returns physical register n of class c accessed as words words.
func PReg(c RegClass, n int, words int) Reg {
	return Reg{Class: c, N: int32(n), Words: uint8(words)}
}

// IsZero reports whether r is RZ, URZ, PT or UPT: reads give 0 (or true),
// writes are discarded.
func (r Reg) IsZero() bool { return !r.Virtual && int(r.N) == r.Class.Limit() }

// Word returns the single word i of the tuple r.
func (r Reg) Word(i int) Reg {
	w := r
	w.Words = 1
	if r.Virtual {
		w.Off = r.Off + uint8(i)
	} else if !r.IsZero() {
		w.N = r.N + int32(i)
	}
	return w
}

// Wide returns r widened (or narrowed) to words words at the same start.
func (r Reg) Wide(words int) Reg {
	r.Words = uint8(words)
	return r
}

// SameValue reports whether a and b name the same register (virtual value
// or physical start), ignoring the accessed slice.
func (r Reg) SameValue(o Reg) bool {
	return r.Class == o.Class && r.Virtual == o.Virtual && r.N == o.N
}

// Overlaps reports whether two register operands share at least one word.
func (r Reg) Overlaps(o Reg) bool {
	if r.Class != o.Class || r.Virtual != o.Virtual || r.IsZero() || o.IsZero() {
		return false
	}
	if r.Virtual {
		if r.N != o.N {
			return false
		}
		return int(r.Off) < int(o.Off)+int(o.Words) && int(o.Off) < int(r.Off)+int(r.Words)
	}
	return r.N < o.N+int32(o.Words) && o.N < r.N+int32(r.Words)
}

func (r Reg) String() string {
	var s string
	switch {
	case r.IsZero():
		switch r.Class {
		case ClassR:
			s = "RZ"
		case ClassUR:
			s = "URZ"
		case ClassP:
			s = "PT"
		case ClassUP:
			s = "UPT"
		}
		return s
	case r.Virtual:
		s = vprefix[r.Class] + strconv.Itoa(int(r.N))
		if r.Off != 0 {
			s += "[" + strconv.Itoa(int(r.Off)) + "]"
		}
	default:
		s = r.Class.String() + strconv.Itoa(int(r.N))
	}
	switch r.Words {
	case 2:
		s += ".64"
	case 4:
		s += ".128"
	}
	return s
}
