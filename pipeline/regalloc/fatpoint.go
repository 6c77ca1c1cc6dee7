package regalloc

import (
	"cmp"
	"math"
	"slices"
)

// The fat-point core: one allocation attempt for one register class.
//
// ptxas's allocator (001:19182-19544) is not a graph colourer. It keeps a
// per-physical-register pressure histogram and, for each virtual register
// in priority order, picks the physical slot where the register conflicts
// least with what is already assigned, committing greedily with no
// backtracking. This file does the same over explicit live ranges:
//
//   - The items to place are the values that stay in registers and, for
//     every spilled value, its per-instruction temporaries (cost.go).
//   - The occupancy of every physical slot is a bitset over program
//     positions (ranges.go): the precolored physical registers, then every
//     committed item. The primary cost of a slot for an item is its
//     interference there: zero when the item's live range misses the
//     slot's occupancy (and that of the next width-1 slots for a tuple).
//   - The secondary cost is affinity: each copy "MOV a = b" whose other
//     side already sits in a register makes that register (offset by the
//     copy's word position) cheaper by the copy's frequency. That is the
//     allocator's coalescing: when both sides of a copy share a register
//     the copy becomes "MOV Rx = Rx" and is deleted after allocation.
//   - Selection (the wiki's select_fatpoint): the best interference-free
//     preferred slot wins; otherwise the scan runs upward from the first
//     allocatable register in steps of the item's alignment and accepts
//     the first slot with zero cost, which keeps the register count low.
//   - Once everything is placed, a last pass moves an item to its copy
//     partner's register when that register is free over the item's whole
//     range and no higher than the attempt uses (recoalesce): the greedy
//     order often places one side of a copy before the other exists.
//
// Items are placed in priority order: first the fixed ones (temporaries,
// and values that spilling would not shrink), widest first and then in
// program order, so the tuples that need alignment find room; then the
// others by decreasing spill-cost density. The second NOSPILL trial
// places everything in program order instead, like a linear scan, which
// often needs fewer registers; the better trial is kept (the wiki's
// best-result recorder).
//
// When an item finds no free slot in SPILL mode, the spill guidance looks
// at the fat point from the other side: for every slot it sums the
// priorities of the committed items that conflict with the item there
// (the primary pressure histogram); a slot with a precolored or fixed
// conflict, or with more conflicts than RegAllocThresholdForDiscardConflicts,
// is discarded. If the cheapest slot costs less than the item itself
// (or the item cannot be spilled), its occupants are evicted and spilled
// and the item takes the slot; otherwise the item is spilled. Spill
// decisions take effect in the next attempt, which rebuilds the items
// with the new temporaries; the attempt that places everything with no
// new spill is the result.

// allocMode is NOSPILL (no spilling, the register file is virtually
// unbounded so the attempt measures what the code needs) or SPILL (the
// target is a hard ceiling and values are spilled to meet it).
type allocMode uint8

const (
	modeNoSpill allocMode = iota
	modeSpill
)

func (m allocMode) String() string {
	if m == modeNoSpill {
		return "NOSPILL"
	}
	return "SPILL"
}

// virtualFile is the size of the register file a NOSPILL attempt may use:
// the wiki's 512-entry pressure arrays.
const virtualFile = 512

// item is one live range to place.
type item struct {
	v     int // the value (index in problem.vregs)
	g     int // temporaries: the instruction
	start int // first word of the value the item holds
	width int
	slot  int // assigned register, -1 if none
	segs  []seg
	wsegs [][]seg // per word, or nil: every word occupies segs
	// same, per word, lists the words of other items that hold the same
	// value wherever both are live (samevalue.go); nil when none.
	same  [][]sameWord
	prio  float64
	first int32
	temp  bool // a temporary of a spilled value at instruction g
	fixed bool
	// (The two flags last: 128 bytes an item, not 144; every attempt
	// writes all its items.)
}

// link is one affinity of an item: it would like slot(other)+delta, or
// phys+delta when other < 0. An avoid link is the opposite: the item
// would rather not sit there (see newAttempt).
type link struct {
	other, phys, delta int
	weight             float64
	avoid              bool
}

// attempt is one allocation attempt.
type attempt struct {
	p       *problem
	mode    allocMode
	spilled []bool // the values spilled in this attempt
	items   []item
	itemOf  []int // value -> its item, -1 when spilled
	// accTemp holds, for access j of value v, the temporary item of
	// spilled v at that access, or -1: accTemp[p.accBase[v]+j] (tempItem).
	accTemp []int32
	// tempSegs is the slab the temporaries' one-segment ranges are cut
	// from.
	tempSegs []seg
	links    []link
	// The links of item i are links[prefList[prefAt[i]:prefAt[i+1]]], in
	// the order they were made (prefsOf); linkOwner is each link's item
	// while they are collected.
	linkOwner []int32
	prefAt    []int32
	prefList  []int32
	base      []posSet // precolored occupancy per slot
	occ       []posSet // committed items per slot
	owners    [][]int  // committed items per slot
	// hw is one past the highest slot whose occ or owners entry may
	// hold a buffer (run resets only those).
	hw    int
	limit int // one past the highest usable slot
	// Buffers of order, choose and unshared, kept with the attempt.
	orderBuf []int
	keys     []orderKey
	tried    []triedSlot
	avoidBuf []int
	segBuf   [2][]seg
	victBuf  [2][]int
	// threshold is RegAllocThresholdForDiscardConflicts.
	threshold int
	// Results.
	requests []int   // values to spill next time
	failed   int     // an item that could not be placed at all, or -1
	used     int     // registers used: one past the highest slot
	copies   float64 // frequency-weighted copies left (affinities not met)
	// notes receives guidance lines for RegAllocPrintDetails.
	notes func(format string, args ...any)
}

// recycle hands at's buffers to the next attempt (of this class or a
// later one); nothing may use at afterwards.
func (p *problem) recycle(at *attempt) {
	p.scr.recycle(at)
}

// tempItem returns the temporary item of spilled value v at instruction
// g, and whether it has one (the deleted definition of a rematerialized
// value has none, nor has an instruction that does not touch v).
func (at *attempt) tempItem(v, g int) (int, bool) {
	acc := at.p.vregs[v].acc
	j, found := slices.BinarySearchFunc(acc, g, func(a access, g int) int { return a.g - g })
	if !found {
		return 0, false
	}
	i := at.accTemp[int(at.p.accBase[v])+j]
	return int(i), i >= 0
}

// newAttempt builds the items of an attempt with the given spilled values.
// It reuses the buffers of an attempt handed to recycle, if any.
func (p *problem) newAttempt(mode allocMode, spilled []bool, limit int, base []posSet) *attempt {
	old := p.scr.spare()
	if p.accBase == nil {
		p.accBase = make([]int32, len(p.vregs)+1)
		for vi, v := range p.vregs {
			p.accBase[vi+1] = p.accBase[vi] + int32(len(v.acc))
		}
	}
	// Sized up front: the previous class's items were usually fewer.
	nItems, nTemps := 0, 0
	for vi, v := range p.vregs {
		if spilled[vi] {
			nTemps += len(v.acc)
		} else {
			nItems++
		}
	}
	items := old.items[:0]
	if n := nItems + nTemps; cap(items) < n {
		if mode == modeSpill {
			// With room for the temporaries of the next SPILL
			// attempts, which spill more.
			n += n / 4
		}
		items = make([]item, 0, n)
	}
	itemOf := old.itemOf
	if cap(itemOf) < len(p.vregs) {
		itemOf = make([]int, len(p.vregs))
	}
	accTemp := old.accTemp
	if nTemps > 0 && cap(accTemp) < int(p.accBase[len(p.vregs)]) {
		accTemp = make([]int32, p.accBase[len(p.vregs)])
	}
	tempSegs := old.tempSegs[:0]
	if cap(tempSegs) < nTemps {
		tempSegs = make([]seg, 0, nTemps)
	}
	at := old
	*at = attempt{p: p, mode: mode, spilled: spilled, limit: limit, base: base, failed: -1,
		itemOf: itemOf[:len(p.vregs)], accTemp: accTemp, tempSegs: tempSegs, items: items, links: old.links[:0],
		linkOwner: old.linkOwner[:0], prefAt: old.prefAt, prefList: old.prefList,
		occ: old.occ, owners: old.owners, hw: old.hw, requests: old.requests[:0],
		orderBuf: old.orderBuf, keys: old.keys, tried: old.tried, avoidBuf: old.avoidBuf, segBuf: old.segBuf, victBuf: old.victBuf}
	for vi, v := range p.vregs {
		at.itemOf[vi] = -1
		if !spilled[vi] {
			at.itemOf[vi] = len(at.items)
			at.items = append(at.items, item{v: vi, width: v.width, segs: v.segs, wsegs: v.wsegs, prio: v.prio, fixed: v.fixed, slot: -1})
			continue
		}
		for j, a := range v.acc {
			k := int(p.accBase[vi]) + j
			t := tempAt(v, a)
			if t.none {
				at.accTemp[k] = -1
				continue
			}
			at.accTemp[k] = int32(len(at.items))
			at.tempSegs = append(at.tempSegs, t.seg)
			n := len(at.tempSegs)
			at.items = append(at.items, item{v: vi, temp: true, g: a.g, start: t.start, width: t.width,
				segs: at.tempSegs[n-1 : n : n], prio: math.Inf(1), fixed: true, slot: -1})
		}
	}
	for i := range at.items {
		if len(at.items[i].segs) > 0 {
			at.items[i].first = at.items[i].segs[0].lo
		}
	}
	// Affinities from copies, resolved to the items that hold each side
	// at the copy.
	resolve := func(e prefEnd, g int) (it, off int, ok bool) {
		if e.v < 0 {
			return -1, 0, true
		}
		if spilled[e.v] {
			i, ok := at.tempItem(e.v, g)
			if !ok {
				return 0, 0, false
			}
			return i, e.off - at.items[i].start, true
		}
		return at.itemOf[e.v], e.off, true
	}
	for _, pr := range p.prefs {
		di, doff, ok1 := resolve(pr.dst, pr.g)
		si, soff, ok2 := resolve(pr.src, pr.g)
		if !ok1 || !ok2 || di == si && di >= 0 {
			continue
		}
		// Decision: a copy between two virtual registers one of which
		// is spilled is not coalesced, and its two sides avoid sharing a
		// register. The post-allocation verifier reads a deleted copy as
		// the merge of its two values everywhere, while here only the
		// spilled value's temporary would share the register; keeping
		// the copy keeps the two views in agreement.
		avoid := pr.dst.v >= 0 && pr.src.v >= 0 && (spilled[pr.dst.v] || spilled[pr.src.v])
		if !avoid && !p.coalesce {
			continue
		}
		// slot(d)+doff == slot(s)+soff, or the physical register.
		add := func(it int, l link) {
			at.linkOwner = append(at.linkOwner, int32(it))
			at.links = append(at.links, l)
		}
		switch {
		case di >= 0 && si >= 0:
			add(di, link{other: si, delta: soff - doff, weight: pr.weight, avoid: avoid})
			add(si, link{other: di, delta: doff - soff, weight: pr.weight, avoid: avoid})
		case di >= 0:
			add(di, link{other: -1, phys: pr.src.phys, delta: -doff, weight: pr.weight})
		case si >= 0:
			add(si, link{other: -1, phys: pr.dst.phys, delta: -soff, weight: pr.weight})
		}
	}
	at.indexLinks()
	if p.sameValue && p.coalesce {
		at.sameValuePairs()
	}
	return at
}

// indexLinks groups the links by item (prefsOf), keeping each item's in
// the order they were made: the weights of links to one register add up
// in that order (choose).
func (at *attempt) indexLinks() {
	n := len(at.items)
	if cap(at.prefAt) < n+1 {
		at.prefAt = make([]int32, n+1)
	}
	at.prefAt = at.prefAt[:n+1]
	clear(at.prefAt)
	if cap(at.prefList) < len(at.links) {
		at.prefList = make([]int32, len(at.links))
	}
	at.prefList = at.prefList[:len(at.links)]
	for _, o := range at.linkOwner {
		at.prefAt[o+1]++
	}
	for i := 0; i < n; i++ {
		at.prefAt[i+1] += at.prefAt[i]
	}
	// Place each link at its item's cursor, then shift the cursors (now
	// the ends) back to the starts.
	for li, o := range at.linkOwner {
		at.prefList[at.prefAt[o]] = int32(li)
		at.prefAt[o]++
	}
	copy(at.prefAt[1:], at.prefAt[:n])
	at.prefAt[0] = 0
}

// prefsOf returns the indices in at.links of item i's links.
func (at *attempt) prefsOf(i int) []int32 {
	return at.prefList[at.prefAt[i]:at.prefAt[i+1]]
}

// order returns the placement order of the items.
func (at *attempt) order(programOrder bool) []int {
	n := len(at.items)
	if cap(at.orderBuf) < n {
		at.orderBuf = make([]int, n)
	}
	if cap(at.keys) < n {
		at.keys = make([]orderKey, n)
	}
	idx, keys := at.orderBuf[:n], at.keys[:n]
	for i := range keys {
		keys[i] = sortKey(&at.items[i], i, programOrder)
	}
	// The keys carry the item index as the last tie-break, which makes
	// the order total: the unstable (and faster) sort gives a stable
	// sort's result.
	slices.SortFunc(keys, func(a, b orderKey) int {
		switch {
		case a.group != b.group:
			return cmp.Compare(a.group, b.group)
		case a.k1 != b.k1:
			return cmp.Compare(a.k1, b.k1)
		case a.k2 != b.k2:
			return cmp.Compare(a.k2, b.k2)
		}
		return cmp.Compare(a.idx, b.idx)
	})
	for i, k := range keys {
		idx[i] = int(k.idx)
	}
	return idx
}

// orderKey is an item's place in the placement order, compared field by
// field (group, k1, k2, idx): the item's fields read once per sort
// instead of through the items at every comparison.
type orderKey struct {
	k1         float64
	k2         int32
	group, idx int32
}

// sortKey builds the key of item it (index i) for order: in program
// order (wider first at one position) for the linear-scan trial;
// otherwise fixed items first, widest first and then in program order,
// and the others by decreasing density, then in program order; ties by
// index.
func sortKey(it *item, i int, programOrder bool) orderKey {
	switch {
	case programOrder:
		// In program order, wider first at one position.
		return orderKey{k1: float64(it.first), k2: int32(-it.width), idx: int32(i)}
	case it.fixed:
		// Fixed items first, widest first, then in program order.
		return orderKey{k1: float64(-it.width), k2: it.first, idx: int32(i)}
	}
	// The others by decreasing density (finite, never NaN), then in
	// program order.
	return orderKey{group: 1, k1: -it.prio, k2: it.first, idx: int32(i)}
}

// slotOcc returns the committed occupancy of slot s, creating it.
func (at *attempt) slotOcc(s int) posSet {
	if at.occ[s] == nil {
		at.occ[s] = newPosSet(at.p.npos)
	}
	return at.occ[s]
}

// word returns the positions where word k of item it occupies its
// register.
func (it *item) word(k int) []seg {
	if it.wsegs != nil {
		return it.wsegs[k]
	}
	return it.segs
}

// free reports whether item it can take slots s..s+width-1.
func (at *attempt) free(it *item, s int) bool {
	for k := 0; k < it.width; k++ {
		if b := at.base[s+k]; b != nil && b.overlaps(it.word(k)) {
			return false
		}
		if o := at.occ[s+k]; o != nil && o.overlaps(it.word(k)) {
			// The overlap may be all with a same-valued word there.
			if ws, cut := at.unshared(it, k, s+k); !cut || o.overlaps(ws) {
				return false
			}
		}
	}
	return true
}

func (at *attempt) place(i, s int) {
	it := &at.items[i]
	it.slot = s
	at.hw = max(at.hw, s+it.width)
	for k := 0; k < it.width; k++ {
		at.slotOcc(s+k).set(it.word(k), true)
		at.owners[s+k] = append(at.owners[s+k], i)
	}
}

func (at *attempt) unplace(i int) {
	it := &at.items[i]
	s := it.slot
	for k := 0; k < it.width; k++ {
		at.occ[s+k].set(it.word(k), false)
		own := at.owners[s+k]
		for j, x := range own {
			if x == i {
				at.owners[s+k] = append(own[:j], own[j+1:]...)
				break
			}
		}
		if it.same != nil && len(it.same[k]) > 0 {
			// A same-valued word may share positions with this one:
			// give the remaining owners theirs back.
			for _, j := range at.owners[s+k] {
				o := &at.items[j]
				at.occ[s+k].set(o.word(s+k-o.slot), true)
			}
		}
	}
	it.slot = -1
}

// choose selects a slot for item i: the interference-free slot with the
// lowest secondary cost (the strongest affinity), else the lowest free
// slot; -1 when every slot below the limit conflicts.
func (at *attempt) choose(i int) int {
	it := &at.items[i]
	best, bestW := -1, 0.0
	// tried holds the weight summed so far for each register a link
	// asked for, or -Inf when the item does not fit there; avoid the
	// registers avoid links name. Both are few per item.
	tried, avoid := at.tried[:0], at.avoidBuf[:0]
	for _, li := range at.prefsOf(i) {
		l := at.links[li]
		want := l.phys + l.delta
		if l.other >= 0 {
			o := at.items[l.other].slot
			if o < 0 {
				continue
			}
			want = o + l.delta
		}
		if l.avoid {
			avoid = append(avoid, want)
			continue
		}
		if want < at.p.lo || want%it.width != 0 || want+it.width > at.limit {
			continue
		}
		k := slices.IndexFunc(tried, func(t triedSlot) bool { return t.slot == want })
		if k < 0 {
			k = len(tried)
			tried = append(tried, triedSlot{slot: want})
			if !at.free(it, want) {
				tried[k].w = math.Inf(-1)
				continue
			}
		}
		w := tried[k].w
		if math.IsInf(w, -1) {
			continue
		}
		w += l.weight
		tried[k].w = w
		if w > bestW || w == bestW && want < best {
			best, bestW = want, w
		}
	}
	at.tried, at.avoidBuf = tried, avoid
	if best >= 0 {
		return best
	}
	fallback := -1
	for s := at.p.lo; s+it.width <= at.limit; s += it.width {
		if !at.free(it, s) {
			continue
		}
		if !slices.Contains(avoid, s) {
			return s
		}
		if fallback < 0 {
			fallback = s
		}
	}
	return fallback
}

// triedSlot is a register choose has looked at for the current item.
type triedSlot struct {
	slot int
	w    float64
}

// run places every item. programOrder selects the linear-scan order of
// the second NOSPILL trial.
func (at *attempt) run(programOrder bool) {
	// A recycled attempt brings its slot tables: emptied, not
	// reallocated.
	// Only the entries below the high-water mark hold anything: a fresh
	// table is not read at all, its pages stay untouched until used.
	n := (at.p.npos + 63) / 64 // newPosSet's length
	at.occ, at.owners = at.occ[:cap(at.occ)], at.owners[:cap(at.owners)]
	for s := 0; s < at.hw; s++ {
		// An attempt of an earlier class (or function) may have had
		// fewer positions.
		if o := at.occ[s]; cap(o) >= n {
			at.occ[s] = o[:n]
			clear(at.occ[s])
		} else {
			at.occ[s] = nil
		}
		at.owners[s] = at.owners[s][:0]
	}
	if cap(at.occ) < at.limit {
		occ, owners := make([]posSet, at.limit), make([][]int, at.limit)
		copy(occ, at.occ[:at.hw])
		copy(owners, at.owners[:at.hw])
		at.occ, at.owners = occ, owners
	}
	at.occ, at.owners = at.occ[:at.limit], at.owners[:at.limit]
	for _, i := range at.order(programOrder) {
		if s := at.choose(i); s >= 0 {
			at.place(i, s)
			continue
		}
		if at.mode == modeNoSpill {
			at.failed = i
			break
		}
		at.guide(i)
		if at.failed >= 0 {
			break
		}
	}
	at.used = at.p.lo
	if h := at.p.physHigh(); h > at.used {
		at.used = h
	}
	for _, it := range at.items {
		if it.slot >= 0 && it.slot+it.width > at.used {
			at.used = it.slot + it.width
		}
	}
	if at.failed >= 0 && at.mode == modeNoSpill {
		at.used = at.limit + 1
	}
	if at.failed < 0 {
		at.recoalesce()
	}
	for i := range at.items {
		it := &at.items[i]
		for _, li := range at.prefsOf(i) {
			l := at.links[li]
			if l.avoid || it.slot < 0 {
				continue
			}
			want := l.phys + l.delta
			if l.other >= 0 {
				if at.items[l.other].slot < 0 {
					continue
				}
				want = at.items[l.other].slot + l.delta
			}
			if it.slot != want {
				at.copies += l.weight
			}
		}
	}
}

// recoalesce is a last look at the copies the greedy order left behind:
// an item whose copy partner sits elsewhere moves to the register that
// makes the copy disappear, when that register is free over the item's
// whole range and no higher than the attempt already uses. The result is
// still a valid assignment; it only changes which of several free
// registers an item got.
func (at *attempt) recoalesce() {
	for i := range at.items {
		it := &at.items[i]
		if it.slot < 0 {
			continue
		}
		for _, li := range at.prefsOf(i) {
			l := at.links[li]
			if l.avoid {
				continue
			}
			want := l.phys + l.delta
			if l.other >= 0 {
				if at.items[l.other].slot < 0 {
					continue
				}
				want = at.items[l.other].slot + l.delta
			}
			if want == it.slot || want < at.p.lo || want%it.width != 0 || want+it.width > min(at.used, at.limit) {
				continue
			}
			old := it.slot
			at.unplace(i)
			if at.free(it, want) {
				at.place(i, want)
				break
			}
			at.place(i, old)
		}
	}
}

// better reports whether attempt a beats b: fewer registers, then fewer
// copies left (the wiki's best-result recorder compares the register
// count first, then the cost).
func (a *attempt) better(b *attempt) bool {
	if a.used != b.used {
		return a.used < b.used
	}
	return a.copies < b.copies
}

// guide is the spill guidance for an item that found no free slot:
// evict the cheapest conflicting occupants of one slot, or spill the
// item itself.
func (at *attempt) guide(i int) {
	it := &at.items[i]
	bestSlot, bestCost := -1, math.Inf(1)
	var bestVictims []int
	// The victims of the slot looked at go to one buffer, the best
	// slot's stay in the other.
	cur := 0
	for s := at.p.lo; s+it.width <= at.limit; s += it.width {
		victims, cost, ok := at.conflicts(it, s, at.victBuf[cur][:0])
		if victims != nil {
			at.victBuf[cur] = victims
		}
		if !ok || len(victims) > at.threshold {
			continue
		}
		if cost < bestCost || cost == bestCost && len(victims) < len(bestVictims) {
			bestSlot, bestCost, bestVictims = s, cost, victims
			cur = 1 - cur
		}
	}
	if !it.fixed && (bestSlot < 0 || bestCost >= it.prio) {
		at.requests = append(at.requests, it.v)
		at.note("%s %s (density %.3g): no free register", at.p.spillVerb(it.v), at.p.name(it.v), it.prio)
		return
	}
	if bestSlot < 0 {
		at.failed = i
		return
	}
	for _, j := range bestVictims {
		at.unplace(j)
		at.requests = append(at.requests, at.items[j].v)
		at.note("%s %s (density %.3g): evicted from %s%d for %s", at.p.spillVerb(at.items[j].v), at.p.name(at.items[j].v),
			at.items[j].prio, at.p.class, bestSlot, at.p.itemName(it))
	}
	at.place(i, bestSlot)
}

// conflicts returns the committed items that conflict with it on slots
// s..s+width-1 and the sum of their priorities; ok is false when a
// precolored register or a fixed item is among them.
//
// The victims are appended to buf (empty), whose array they may share.
func (at *attempt) conflicts(it *item, s int, buf []int) (victims []int, cost float64, ok bool) {
	victims = buf
	for k := 0; k < it.width; k++ {
		if b := at.base[s+k]; b != nil && b.overlaps(it.word(k)) {
			return nil, 0, false
		}
		if o := at.occ[s+k]; o == nil || !o.overlaps(it.word(k)) {
			continue
		}
		for _, j := range at.owners[s+k] {
			o := &at.items[j]
			if !segsOverlap(o.word(s+k-o.slot), it.word(k)) || it.isSame(k, j, s+k-o.slot) {
				continue
			}
			if o.fixed {
				return nil, 0, false
			}
			dup := false
			for _, x := range victims {
				dup = dup || x == j
			}
			if !dup {
				victims = append(victims, j)
				cost += o.prio
			}
		}
	}
	return victims, cost, true
}

// spillVerb says what spilling value v means.
func (p *problem) spillVerb(v int) string {
	if p.vregs[v].remat {
		return "rematerialize"
	}
	return "spill"
}

func (at *attempt) note(format string, args ...any) {
	if at.notes != nil {
		at.notes(format, args...)
	}
}
