package ori

import "math/bits"

// AppendLiveOutWords appends to dst the virtual register words live on
// exit from b, as LiveOutWords lists them but in no particular order:
// the register allocator and the scheduler only gather the words into
// tables, for every block and (the allocator) every register class, and
// LiveOutWords' fresh sorted list each time was a visible part of their
// cost. With room in dst it allocates nothing.
func (l *LiveSets) AppendLiveOutWords(dst []Reg, b *Block) []Reg {
	for wi, x := range l.out[l.at(b)] {
		for x != 0 {
			i := wi*64 + bits.TrailingZeros64(x)
			x &= x - 1
			k := l.keys[i]
			dst = append(dst, Reg{Class: k.class, Virtual: true, N: k.n, Off: k.word, Words: 1})
		}
	}
	return dst
}
