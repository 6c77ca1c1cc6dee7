package sched

import "orilab/pipeline/ori"

// wordTable numbers register words (or registers, as words whose n is
// the register's) densely for one region: the DAG builder's per-word
// state and the pressure tracker's word and register indices. It holds
// its entries in slices indexed by class and number, each valid while
// its stamp equals the table's generation, so that a new region starts
// with reset (one increment) instead of a fresh map: the maps these
// replaced were most of the cost of building small regions' DAGs and
// trackers. Words the slices do not cover (a physical number at or above
// 256, a negative one) go to a map.
type wordTable struct {
	id    [2][ori.NumClasses][]int32 // [virtual][class][n]
	stamp [2][ori.NumClasses][]uint32
	gen   uint32
	other map[word]int32
}

// wordTableLimit bounds the numbers the slices cover.
const wordTableLimit = 1 << 24

// reset forgets every entry.
func (t *wordTable) reset() {
	t.gen++
	if t.gen == 0 {
		// The generation wrapped: clear the stamps it could match.
		for v := range t.stamp {
			for c := range t.stamp[v] {
				clear(t.stamp[v][c])
			}
		}
		t.gen = 1
	}
	clear(t.other)
}

// slot returns the table entry of w, or nil when the map holds it.
func (t *wordTable) slot(w word, grow bool) (*int32, *uint32) {
	if w.class >= ori.NumClasses || w.n < 0 || w.n >= wordTableLimit || !w.virt && w.n >= 256 {
		return nil, nil
	}
	v := 0
	if w.virt {
		v = 1
	}
	ids, st := &t.id[v][w.class], &t.stamp[v][w.class]
	k := int(w.n)
	if k >= len(*ids) {
		if !grow {
			return nil, nil
		}
		m := max(k+1, 2*len(*ids), 64)
		*ids = append(*ids, make([]int32, m-len(*ids))...)
		*st = append(*st, make([]uint32, m-len(*st))...)
	}
	return &(*ids)[k], &(*st)[k]
}

// get returns w's id and whether it has one.
func (t *wordTable) get(w word) (int32, bool) {
	if t.gen == 0 {
		t.reset()
	}
	id, st := t.slot(w, false)
	if id == nil {
		if w.class < ori.NumClasses && w.n >= 0 && w.n < wordTableLimit && (w.virt || w.n < 256) {
			return 0, false // in the slices' range, beyond what was set
		}
		k, ok := t.other[w]
		return k, ok
	}
	if *st != t.gen {
		return 0, false
	}
	return *id, true
}

// set gives w the id k.
func (t *wordTable) set(w word, k int32) {
	if t.gen == 0 {
		t.reset()
	}
	id, st := t.slot(w, true)
	if id == nil {
		if t.other == nil {
			t.other = map[word]int32{}
		}
		t.other[w] = k
		return
	}
	*id, *st = k, t.gen
}

// reserve makes room in the slices for the virtual words of class c
// numbered below n, so that a table sized once for a function does not
// grow by doubling (and copying) while its regions are numbered.
func (t *wordTable) reserve(c ori.RegClass, n int32) {
	if c >= ori.NumClasses {
		return
	}
	n = min(n, wordTableLimit)
	ids, st := &t.id[1][c], &t.stamp[1][c]
	if int(n) > len(*ids) {
		*ids = append(*ids, make([]int32, int(n)-len(*ids))...)
		*st = append(*st, make([]uint32, int(n)-len(*st))...)
	}
}
