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
	n := len(insts)
	d := &dag{
		insts:    insts,
		info:     make([]Info, n),
		uses:     make([]use, n),
		succ:     make([][]edge, n),
		rawPreds: make([][]int32, n),
		npred:    make([]int32, n),
		height:   make([]int32, n),
		waits:    make([]bool, n),
	}
	// Per-word state lives in slices indexed by a dense id given to each
	// word on first sight: one map lookup per operand word instead of one
	// per table (last writer, readers, version), which made buildDAG
	// map-bound on large blocks.
	// Physical words below R256 (every register after allocation) are
	// found in a table, holding id+1; the others go through the map.
	var phys [ori.NumClasses][256]int32
	var ids map[word]int32     // made on first use, sized for the region (virtual words)
	var lastW, version []int32 // lastW: -1 while the word is unwritten
	var readers [][]int32
	idOf := func(w word) int32 {
		small := !w.virt && w.n >= 0 && w.n < 256 && w.class < ori.NumClasses
		if small {
			if id := phys[w.class][w.n]; id > 0 {
				return id - 1
			}
		} else if id, ok := ids[w]; ok {
			return id
		}
		id := int32(len(lastW))
		if small {
			phys[w.class][w.n] = id + 1
		} else {
			if ids == nil {
				ids = make(map[word]int32, n)
			}
			ids[w] = id
		}
		lastW = append(lastW, -1)
		version = append(version, 0)
		readers = append(readers, nil)
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
	var mems []memNode
	// lastHard is the last full barrier that is not a CALL: floating
	// instructions (floatcalls.go) sink below CALLs but never below a
	// block terminator or a write of the stack pointer.
	lastOrder, lastFull, lastHard := int32(-1), int32(-1), int32(-1)
	// stamp[p] == i means the edge p->i exists at succ[p][where[p]].
	stamp := make([]int32, n)
	where := make([]int32, n)
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
		d.info[i] = Latency(arch, in)
		d.uses[i] = usesOf(in)
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
				d.float = make([]bool, n)
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
