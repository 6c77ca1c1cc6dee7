package sched

// The dependency DAG of one scheduling region (a basic block without its
// leading MOV.PHIs, cut into pieces of at most maxRegion instructions).
//
// ptxas builds it in two stages (BuildDependencyGraph and
// BuildDependencyEdges, 001:22536-22583); orilab builds it in one forward
// scan over the region, keeping for every register word its last writer
// and the readers since that write:
//
//   - RAW: a read depends on the word's last writer, with the writer's
//     latency (Latency(...).Cycles) as the edge weight;
//   - WAW: a write depends on the word's last writer, weight 1;
//   - WAR: a write depends on every read of the word since its last write,
//     weight 0 (002:571-590 gives the same three weights).
//
// A guarded write does not end the previous value's life (the old value
// survives lanes whose guard is false), but the chain "earlier write ->
// guarded write (WAW) -> later read (RAW)" still orders all three, so one
// last writer per word is enough.
//
// Memory and ordering edges follow mem.go's kinds: a memory instruction
// depends on the previous ordering point and on every earlier memory
// instruction since then that it may alias (weight 1); an ordering point
// depends on the previous ordering point and on all memory instructions
// since it; a full barrier depends on everything before it and everything
// after depends on it. The block terminator is a full barrier, so it stays
// last.
//
// Worked example (sm_75):
//
//	#1 LDG.E %r1 = [%r0.64]           variable, estimate 28
//	#2 IADD3 %r2 = %r3, 0x1, RZ       fixed 4
//	#3 IMAD %r4 = %r1, %r2, RZ        fixed 5
//	#4 STG.E [%r0.64], %r4
//	#5 EXIT
//
// gives the edges #1->#3 (RAW, 28), #2->#3 (RAW, 4), #3->#4 (RAW, 5),
// #1->#4 (memory, 1: the store may overwrite what the load reads), and
// #1..#4 -> #5 (order, and memory for #1 and #4: the terminator is a full
// barrier). Heights (longest latency path to the end) are #1
// 28+5+1 = 34, #2 10, #3 6, #4 1, #5 1, so an ILP schedule issues the load
// first.

import "orilab/pipeline/ori"

// depKind says why an edge exists; one edge can carry several reasons.
type depKind uint8

const (
	depRAW depKind = 1 << iota
	depWAR
	depWAW
	depMem
	depOrder
)

// edge is one dependency from its owner (the earlier instruction) to to.
type edge struct {
	to   int32
	lat  int32 // cycles the successor must issue after the owner
	kind depKind
}

// dag is the dependency graph of a region; node i is insts[i], and the
// original order is a topological order.
type dag struct {
	insts []*ori.Inst
	info  []Info
	uses  []use
	succ  [][]edge
	// rawPreds lists each node's RAW producers (the reverse of the RAW
	// edges), for the backward searches of ReduceReg.
	rawPreds [][]int32
	npred    []int32
	height   []int32 // longest latency path from the node to the region's end
	// waits marks nodes that read a variable-latency result produced in
	// the region: ptxas's "barrier target" flag (001:22280).
	waits []bool
	// float marks the nodes that may cross CALLs (floatcalls.go); nil
	// when none may.
	float []bool
}

// memNode is a memory instruction the alias test may compare against.
type memNode struct {
	i    int32
	ref  memRef
	base []word
	ver  []int32
}

// buildDAG builds the dependency graph of insts on SM arch. With
// floatCalls, plain instructions that name only virtual registers may
// sink below the CALLs after them (floatcalls.go).
func buildDAG(insts []*ori.Inst, arch int, floatCalls bool) *dag {
	return new(dagScratch).build(insts, arch, floatCalls, nil, nil)
}

// dagScratch holds buildDAG's tables between the regions of one Schedule
// call, so that a function's regions reuse them instead of allocating
// their own: the DAG itself (its per-node slices, the edge lists'
// backing arrays), the operand words, and the per-word state. The DAG
// build returns is valid until the next build on the same scratch.
type dagScratch struct {
	d dag
	// info, uses and words hold the nodes' latencies and operand words
	// when the caller does not give them (words backs the uses' lists).
	info  []Info
	uses  []use
	words []word
	stamp []int32
	where []int32
	float []bool
	// Per-word state, indexed by the dense id idOf gives each word.
	lastW, version []int32
	readers        [][]int32
	mems           []memNode
	// ids numbers the region's words (wordTable).
	ids wordTable
}

// resized returns s with length n and every element zero, reusing its
// array when it is large enough.
func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// sized returns s with length n, reusing its array when it is large
// enough, without clearing it: for tables whose every element the caller
// sets before reading it.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// emptied returns s with length n and every inner slice empty, keeping
// the inner slices' arrays for reuse.
func emptied[T any](s [][]T, n int) [][]T {
	if cap(s) < n {
		t := make([][]T, n)
		copy(t, s[:cap(s)])
		s = t
	}
	s = s[:n]
	for i := range s {
		s[i] = s[i][:0]
	}
	return s
}

// build builds the dependency graph of insts (see buildDAG) in s's
// tables. info and uses, when not nil, are the latencies and operand words
// of insts (Latency, usesOf), which the DAG then shares: Schedule computes
// them once for all its passes instead of once per pass.
func (s *dagScratch) build(insts []*ori.Inst, arch int, floatCalls bool, info []Info, uses []use) *dag {
	n := len(insts)
	d := &s.d
	*d = dag{
		insts:    insts,
		info:     info,
		uses:     uses,
		succ:     emptied(d.succ, n),
		rawPreds: emptied(d.rawPreds, n),
		npred:    resized(d.npred, n),
		height:   sized(d.height, n), // set for every node at the end
		waits:    resized(d.waits, n),
	}
	known := info != nil
	if !known {
		s.info, s.uses = resized(s.info, n), resized(s.uses, n)
		d.info, d.uses = s.info, s.uses
		s.words = s.words[:0]
	}
	// Per-word state lives in slices indexed by a dense id given to each
	// word on first sight: one table lookup per operand word instead of
	// one map lookup per table (last writer, readers, version), which
	// made buildDAG map-bound on large blocks.
	s.ids.reset()
	lastW, version, readers := s.lastW[:0], s.version[:0], s.readers[:0]
	idOf := func(w word) int32 {
		if id, ok := s.ids.get(w); ok {
			return id
		}
		id := int32(len(lastW))
		s.ids.set(w, id)
		lastW = append(lastW, -1)
		version = append(version, 0)
		if len(readers) < cap(readers) {
			// Reuse the reader list this slot had in an earlier region.
			readers = readers[:len(readers)+1]
			readers[id] = readers[id][:0]
		} else {
			readers = append(readers, nil)
		}
		return id
	}
	var guardIDs, srcIDs, dstIDs []int32
	toIDs := func(dst []int32, ws []word) []int32 {
		dst = dst[:0]
		for _, w := range ws {
			dst = append(dst, idOf(w))
		}
		return dst
	}
	mems := s.mems[:0]
	// lastHard is the last full barrier that is not a CALL: floating
	// instructions (floatcalls.go) sink below CALLs but never below a
	// block terminator or a write of the stack pointer.
	lastOrder, lastFull, lastHard := int32(-1), int32(-1), int32(-1)
	// stamp[p] == i means the edge p->i exists at succ[p][where[p]].
	s.stamp, s.where = sized(s.stamp, n), sized(s.where, n) // where is read only where stamp is set
	stamp, where := s.stamp, s.where
	for i := range stamp {
		stamp[i] = -1
	}
	add := func(p, i int32, k depKind, lat int32) {
		if p < 0 || p == i {
			return
		}
		if stamp[p] == i {
			e := &d.succ[p][where[p]]
			if k&depRAW != 0 && e.kind&depRAW == 0 {
				d.rawPreds[i] = append(d.rawPreds[i], p)
			}
			e.kind |= k
			e.lat = max(e.lat, lat)
			return
		}
		if k&depRAW != 0 {
			d.rawPreds[i] = append(d.rawPreds[i], p)
		}
		stamp[p], where[p] = i, int32(len(d.succ[p]))
		d.succ[p] = append(d.succ[p], edge{to: i, lat: lat, kind: k})
		d.npred[i]++
	}
	for ii, in := range insts {
		i := int32(ii)
		if !known {
			d.info[i] = Latency(arch, in)
			d.uses[i] = usesInto(in, &s.words)
		}
		u := &d.uses[i]
		guardIDs, srcIDs, dstIDs = toIDs(guardIDs, u.guard), toIDs(srcIDs, u.srcs), toIDs(dstIDs, u.dsts)
		k := orderKind(in)
		floating := floatCalls && k == kindPlain && floats(u)
		call := k == kindFull && in.Op == ori.OpCALL
		add(lastFull, i, depOrder, 0)
		switch {
		case call && floatCalls:
			for p := lastFull + 1; p < i; p++ {
				if !d.floating(p) {
					add(p, i, depOrder, 0)
				}
			}
		case k == kindFull && floatCalls:
			for p := lastHard + 1; p < i; p++ {
				add(p, i, depOrder, 0)
			}
		case k == kindFull:
			for p := lastFull + 1; p < i; p++ {
				add(p, i, depOrder, 0)
			}
		}
		if floating {
			if d.float == nil {
				s.float = resized(s.float, n)
				d.float = s.float
			}
			d.float[i] = true
		}
		for _, ws := range [2][]int32{guardIDs, srcIDs} {
			for _, w := range ws {
				if p := lastW[w]; p >= 0 {
					add(p, i, depRAW, int32(d.info[p].Cycles))
					if d.info[p].Variable {
						d.waits[i] = true
					}
				}
			}
		}
		for _, w := range dstIDs {
			if p := lastW[w]; p >= 0 {
				add(p, i, depWAW, 1)
			}
			for _, r := range readers[w] {
				add(r, i, depWAR, 0)
			}
		}
		switch k {
		case kindMem:
			add(lastOrder, i, depMem, 0)
			m := memNode{i: i, ref: memRefOf(in)}
			if m.ref.addr.HasBase {
				m.base = wordsOf(nil, m.ref.addr.Reg)
				for _, w := range m.base {
					m.ver = append(m.ver, version[idOf(w)])
				}
			}
			for _, o := range mems {
				if mayAlias(o.ref, m.ref, sameBase(o, m)) {
					add(o.i, i, depMem, 1)
				}
			}
			mems = append(mems, m)
		case kindOrder, kindFull:
			add(lastOrder, i, depOrder, 0)
			for _, o := range mems {
				add(o.i, i, depMem, 0)
			}
			mems = mems[:0]
			lastOrder = i
		}
		for _, ws := range [2][]int32{guardIDs, srcIDs} {
			for _, w := range ws {
				if rs := readers[w]; len(rs) == 0 || rs[len(rs)-1] != i {
					readers[w] = append(rs, i)
				}
			}
		}
		for _, w := range dstIDs {
			lastW[w] = i
			readers[w] = readers[w][:0]
			version[w]++
		}
		if k == kindFull {
			lastFull = i
			if !call {
				lastHard = i
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		h := int32(1)
		if len(d.uses[i].dsts) > 0 {
			h = int32(d.info[i].Cycles)
		}
		for _, e := range d.succ[i] {
			h = max(h, e.lat+d.height[e.to])
		}
		d.height[i] = h
	}
	s.lastW, s.version, s.readers, s.mems = lastW, version, readers, mems
	return d
}

// sameBase reports whether two memory nodes address off the same register
// value: the same base words, none written between them.
func sameBase(a, b memNode) bool {
	if len(a.base) != len(b.base) {
		return false
	}
	for k := range a.base {
		if a.base[k] != b.base[k] || a.ver[k] != b.ver[k] {
			return false
		}
	}
	return true
}
