package opt

import "orilab/pipeline/ori"

// cmWordIndex numbers the words of virtual registers densely: word w of
// register %rN is slot N*4+w of a slice, grown on demand, instead of a
// map entry (hashing cmWord keys was most of the cost of building
// remat's pressure state, which is rebuilt after every kept step).
// Registers numbered past cmWordDenseLimit, negative numbers and word
// offsets of 4 or more (only in malformed IR) fall back to a map.
type cmWordIndex struct {
	dense [ori.NumClasses][]int32 // slot: number+1, 0 for a word not numbered yet
	other map[cmWord]int32
	// used[c] is one past the highest slot of class c set since the last
	// reset: a pooled index (sized for the largest function it has seen)
	// clears that much, not all of it.
	used [ori.NumClasses]int
}

// reset forgets every number, keeping the memory.
func (x *cmWordIndex) reset() {
	for c := range x.dense {
		clear(x.dense[c][:x.used[c]])
		x.used[c] = 0
	}
	clear(x.other)
}

// cmWordDenseLimit bounds the dense part: a function with more virtual
// registers of a class than this is far beyond any corpus kernel.
const cmWordDenseLimit = 1 << 22

func (x *cmWordIndex) slot(w cmWord) (int, bool) {
	if w.n < 0 || w.n >= cmWordDenseLimit || w.w >= 4 || int(w.class) >= len(x.dense) {
		return 0, false
	}
	return int(w.n)<<2 | int(w.w), true
}

// get returns w's number, if it has one.
func (x *cmWordIndex) get(w cmWord) (int32, bool) {
	if i, ok := x.slot(w); ok {
		if d := x.dense[w.class]; i < len(d) && d[i] != 0 {
			return d[i] - 1, true
		}
		return 0, false
	}
	n, ok := x.other[w]
	return n, ok
}

// set numbers w with n.
func (x *cmWordIndex) set(w cmWord, n int32) {
	if i, ok := x.slot(w); ok {
		d := x.dense[w.class]
		if i >= len(d) {
			d = append(d, make([]int32, max(i+1-len(d), len(d)))...)
			x.dense[w.class] = d
		}
		d[i] = n + 1
		x.used[w.class] = max(x.used[w.class], i+1)
		return
	}
	if x.other == nil {
		x.other = map[cmWord]int32{}
	}
	x.other[w] = n
}
