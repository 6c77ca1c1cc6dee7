package opt

import "orilab/pipeline/ori"

// wordTable maps virtual register words to values of type T without a
// map: the words of registers numbered below wordIDsDenseLimit at offsets
// 0-3 sit in a slice per class indexed by number and word (see wordIDs),
// the rest in a map. Every slot carries the generation it was written in,
// so reset empties the table in constant time and one table serves every
// block of a walk (a map per block, or one assignment per written word
// into a map, was most of the f64 constant folding's time).
type wordTable[T any] struct {
	dense [ori.NumClasses][]wordSlot[T]
	other map[wkey]T
	gen   uint32
}

type wordSlot[T any] struct {
	gen uint32
	v   T
}

// reset forgets every entry.
func (t *wordTable[T]) reset() {
	t.gen++
	if t.gen == 0 { // wrapped: old stamps could match again
		for c := range t.dense {
			clear(t.dense[c])
		}
		t.gen = 1
	}
	clear(t.other)
}

// get returns k's value, if it has one.
func (t *wordTable[T]) get(k wkey) (T, bool) {
	if t.gen == 0 {
		t.gen = 1
	}
	if k.n >= 0 && k.n < wordIDsDenseLimit && k.w < 4 && k.class < ori.NumClasses {
		i := int(k.n)<<2 | int(k.w)
		if d := t.dense[k.class]; i < len(d) && d[i].gen == t.gen {
			return d[i].v, true
		}
		var zero T
		return zero, false
	}
	v, ok := t.other[k]
	return v, ok
}

// set gives k the value v.
func (t *wordTable[T]) set(k wkey, v T) {
	if t.gen == 0 {
		t.gen = 1
	}
	if k.n >= 0 && k.n < wordIDsDenseLimit && k.w < 4 && k.class < ori.NumClasses {
		i := int(k.n)<<2 | int(k.w)
		d := t.dense[k.class]
		if i >= len(d) {
			d = append(d, make([]wordSlot[T], max(i+1-len(d), len(d)))...)
			t.dense[k.class] = d
		}
		d[i] = wordSlot[T]{gen: t.gen, v: v}
		return
	}
	if t.other == nil {
		t.other = map[wkey]T{}
	}
	t.other[k] = v
}
