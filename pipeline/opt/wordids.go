package opt

import "orilab/pipeline/ori"

// wordIDs numbers virtual register words densely (0, 1, 2, ... in the
// order they are added), for passes that keep per-word lists or bitsets.
// Virtual register numbers are small and dense (Func.NewVReg counts up),
// so the words of registers at offsets 0-3 are found in a slice per class
// indexed by number and word, and only the rest in a map: hashing every
// operand through a map was most of copy propagation's time.
type wordIDs struct {
	dense [ori.NumClasses][]int32 // n<<2 | word: id + 1 (0: none)
	other map[wkey]int32
	n     int32
}

// wordIDsDenseLimit bounds the slices (a number above it goes to the map).
const wordIDsDenseLimit = 1 << 22

func (x *wordIDs) slot(k wkey) (int, bool) {
	if k.n >= 0 && k.n < wordIDsDenseLimit && k.w < 4 && k.class < ori.NumClasses {
		return int(k.n)<<2 | int(k.w), true
	}
	return 0, false
}

// get returns k's id, if it has one.
func (x *wordIDs) get(k wkey) (int32, bool) {
	if i, ok := x.slot(k); ok {
		d := x.dense[k.class]
		if i < len(d) && d[i] > 0 {
			return d[i] - 1, true
		}
		return 0, false
	}
	id, ok := x.other[k]
	return id, ok
}

// add returns k's id, numbering it if it has none.
func (x *wordIDs) add(k wkey) int32 {
	if id, ok := x.get(k); ok {
		return id
	}
	id := x.n
	x.n++
	if i, ok := x.slot(k); ok {
		d := x.dense[k.class]
		if i >= len(d) {
			d = append(d, make([]int32, max(i+1-len(d), len(d)))...)
			x.dense[k.class] = d
		}
		d[i] = id + 1
		return id
	}
	if x.other == nil {
		x.other = map[wkey]int32{}
	}
	x.other[k] = id
	return id
}

// forget removes k's number (the table is emptied word by word, keeping
// its slices, for reuse).
func (x *wordIDs) forget(k wkey) {
	if i, ok := x.slot(k); ok {
		if d := x.dense[k.class]; i < len(d) {
			d[i] = 0
		}
		return
	}
	delete(x.other, k)
}
