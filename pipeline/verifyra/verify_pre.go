package verifyra

// What the reaching-definitions verifier (verify.go) learns from the
// function before allocation: which instructions survive, which copies
// the allocator coalesced (union-find), where removed ABI moves act, how
// often each value is defined, the implicit ABI reads of CALL and RET,
// and value liveness, which proves that removed instructions and
// coalesced copies lost nothing.

import (
	"fmt"

	"orilab/pipeline/ori"
)

// rdPre is the analysis of the function before allocation.
type rdPre struct {
	f       *ori.Func
	byID    map[int32]*ori.Inst
	blockOf map[int32]*ori.Block
	present map[int32]bool // IDs that also appear after allocation
	// parent is the union-find forest of coalesced values; a root is the
	// least member (rdVal.less), so messages name a class by it.
	parent map[rdVal]rdVal
	// coalesced holds the removed virtual-to-virtual MOVs; mergedBy names,
	// for a class root, one of the MOVs that merged it (for messages).
	coalesced map[int32]bool
	mergedBy  map[rdVal]int32
	// events are removed MOVs between a virtual and a physical register
	// (ABI moves whose value the allocator placed directly in the ABI
	// register). They keep their meaning as copies at their position.
	events map[int32]bool
	// rematOf holds the instructions that RoleRemat instructions
	// recompute; they may be gone after allocation.
	rematOf map[int32]bool
	// defs counts the definitions of each class (canonical value),
	// counting function entry and CALL for physical values; coalesced
	// copies define nothing new.
	defs map[rdVal]int
	// callArgs lists, per CALL, the ABI argument registers it reads
	// implicitly; rets the result registers RET reads.
	callArgs map[int32][]rdVal
	rets     []rdVal
	// phys are the physical values the function names before allocation.
	phys []rdVal
	// errs are mismatches found in the function before allocation.
	errs []RAMismatch
	// undef lists the virtual values (classes) live at the entry: some
	// path reads them before any definition, or past only a guarded one
	// ("@%p0 MOV %a = ..." then an unguarded read of %a). Sorted.
	undef []rdVal
}

// rdValOf returns the value of word w of register operand r before
// allocation.
func rdValOf(r ori.Reg, w int) rdVal {
	if r.Virtual {
		return rdVal{class: r.Class, virtual: true, n: r.N, word: r.Off + uint8(w)}
	}
	return rdVal{class: r.Class, n: r.N + int32(w)}
}

var rdSP = rdVal{class: ori.ClassR, n: 1}

// rdOpReg returns the register an operand reads or writes: the register
// itself, or the base of an address.
func rdOpReg(o ori.Operand) (ori.Reg, bool) {
	switch o.Kind {
	case ori.OpdReg:
		return o.Reg, true
	case ori.OpdMem, ori.OpdCBank:
		if o.HasBase {
			return o.Reg, true
		}
	}
	return ori.Reg{}, false
}

// rdIsRegCopy reports whether in is a plain MOV (UMOV) of one register into
// another of the same file and width, without operand modifiers: the
// instructions a coalescer may remove.
func rdIsRegCopy(in *ori.Inst) bool {
	if in.Op != ori.OpMOV && in.Op != ori.OpUMOV || len(in.Mods) != 0 || len(in.Dsts) != 1 || len(in.Srcs) != 1 {
		return false
	}
	d, s := in.Dsts[0], in.Srcs[0]
	if d.Kind != ori.OpdReg || s.Kind != ori.OpdReg || d.Reg.IsZero() || s.Reg.IsZero() {
		return false
	}
	if s.Neg || s.Abs || s.Not {
		return false
	}
	return d.Reg.Class == s.Reg.Class && d.Reg.Words == s.Reg.Words
}

func rdNewPre(before, after *ori.Func) (*rdPre, error) {
	p := &rdPre{
		f:         before,
		byID:      map[int32]*ori.Inst{},
		blockOf:   map[int32]*ori.Block{},
		present:   map[int32]bool{},
		parent:    map[rdVal]rdVal{},
		coalesced: map[int32]bool{},
		mergedBy:  map[rdVal]int32{},
		events:    map[int32]bool{},
		rematOf:   map[int32]bool{},
		defs:      map[rdVal]int{},
		callArgs:  map[int32][]rdVal{},
	}
	for _, b := range before.Blocks {
		for _, in := range b.Insts {
			if in.IsPhi() {
				return nil, fmt.Errorf("verify-ra %s BB%d #%d: the function before allocation still has MOV.PHI; allocation needs ConvertAllMovPhiToMov first", before.Name, b.ID, in.ID)
			}
			p.byID[in.ID] = in
			p.blockOf[in.ID] = b
		}
	}
	for _, b := range after.Blocks {
		for _, in := range b.Insts {
			p.present[in.ID] = true
			if in.Role == ori.RoleRemat {
				// Only rematerializations define the value now; the
				// remat rules (one definition) make that safe.
				p.rematOf[in.Origin] = true
			}
		}
	}
	var vcopies []*ori.Inst
	physSeen := map[rdVal]bool{rdSP: true}
	notePhys := func(r ori.Reg) {
		if r.Virtual || r.IsZero() {
			return
		}
		for w := 0; w < int(r.Words); w++ {
			physSeen[rdValOf(r, w)] = true
		}
	}
	for _, b := range before.Blocks {
		for _, in := range b.Insts {
			if !in.Guard.IsZero() {
				notePhys(in.Guard)
			}
			for _, ops := range [2][]ori.Operand{in.Dsts, in.Srcs} {
				for _, o := range ops {
					if r, ok := rdOpReg(o); ok {
						notePhys(r)
					}
				}
			}
			if p.present[in.ID] || !rdIsRegCopy(in) {
				continue
			}
			d, s := in.Dsts[0].Reg, in.Srcs[0].Reg
			switch {
			case d.Virtual && s.Virtual:
				vcopies = append(vcopies, in)
			case d.Virtual != s.Virtual && !in.Guarded():
				p.events[in.ID] = true
			}
		}
	}
	// Removed copies between virtual registers merge their values, except
	// those whose values interfere before allocation: a coalescer that
	// merged interfering values must have separated them again (say, the
	// source was spilled right after the copy, so only a dead temporary
	// shared the destination's register; fuzz finding
	// regalloc-bar-red-merge). Those copies act as copies at their place,
	// like the ABI moves, and the forward walk checks what really holds
	// which value. Demoting can make another class interfere only by
	// splitting it, so the loop ends.
	demoted := map[int32]bool{}
	for {
		p.parent, p.mergedBy, p.coalesced = map[rdVal]rdVal{}, map[rdVal]int32{}, map[int32]bool{}
		for _, in := range vcopies {
			if demoted[in.ID] {
				continue
			}
			p.coalesced[in.ID] = true
			d, s := in.Dsts[0].Reg, in.Srcs[0].Reg
			for w := 0; w < int(d.Words); w++ {
				p.union(rdValOf(d, w), rdValOf(s, w), in.ID)
			}
		}
		roots := p.checkLiveness(false)
		more := false
		for _, in := range vcopies {
			if !demoted[in.ID] && roots[p.canon(rdValOf(in.Dsts[0].Reg, 0))] {
				demoted[in.ID], p.events[in.ID] = true, true
				more = true
			}
		}
		if !more {
			break
		}
	}
	if !before.Entry {
		for _, r := range before.Rets {
			words := (r.Size + 3) / 4
			for w := int64(0); w < words; w++ {
				v := rdVal{class: ori.ClassR, n: int32(r.Offset + w)}
				p.rets = append(p.rets, v)
				physSeen[v] = true
			}
		}
	}
	for _, b := range before.Blocks {
		var written map[rdVal]bool
		for _, in := range b.Insts {
			if in.Op == ori.OpCALL {
				var args []rdVal
				for v := range written {
					args = append(args, v)
				}
				rdSortVals(args)
				p.callArgs[in.ID] = args
				written = nil
				continue
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && !o.Reg.Virtual && !o.Reg.IsZero() && o.Reg.Class == ori.ClassR {
					for w := 0; w < int(o.Reg.Words); w++ {
						if v := rdValOf(o.Reg, w); v != rdSP {
							if written == nil {
								written = map[rdVal]bool{}
							}
							written[v] = true
						}
					}
				}
			}
		}
	}
	for v := range physSeen {
		p.phys = append(p.phys, v)
	}
	rdSortVals(p.phys)
	// Definition counts, per class.
	for _, v := range p.phys {
		p.defs[p.canon(v)]++ // the value on entry
	}
	for _, b := range before.Blocks {
		for _, in := range b.Insts {
			if p.coalesced[in.ID] {
				continue
			}
			if in.Op == ori.OpCALL {
				for _, v := range p.phys {
					if v != rdSP {
						p.defs[p.canon(v)]++
					}
				}
			}
			for _, o := range in.Dsts {
				if o.Kind == ori.OpdReg && !o.Reg.IsZero() {
					for w := 0; w < int(o.Reg.Words); w++ {
						p.defs[p.canon(rdValOf(o.Reg, w))]++
					}
				}
			}
		}
	}
	p.checkLiveness(true)
	return p, nil
}

// canon returns the name of v's coalescing class.
func (p *rdPre) canon(v rdVal) rdVal {
	root := v
	for {
		q, ok := p.parent[root]
		if !ok || q == root {
			break
		}
		root = q
	}
	for v != root { // path compression
		q := p.parent[v]
		p.parent[v] = root
		v = q
	}
	return root
}

func (p *rdPre) union(a, b rdVal, by int32) {
	ra, rb := p.canon(a), p.canon(b)
	if ra == rb {
		return
	}
	if rb.less(ra) {
		ra, rb = rb, ra
	}
	p.parent[rb] = ra
	if _, ok := p.mergedBy[ra]; !ok {
		if m, ok := p.mergedBy[rb]; ok {
			p.mergedBy[ra] = m
		} else {
			p.mergedBy[ra] = by
		}
	}
}

// implicitReads returns the values an instruction reads without naming
// them: a CALL reads its ABI arguments and the stack pointer, RET its
// results and the stack pointer.
func (p *rdPre) implicitReads(in *ori.Inst) []rdVal {
	switch {
	case in.Op == ori.OpCALL:
		return append(append([]rdVal(nil), p.callArgs[in.ID]...), rdSP)
	case in.Op.Has(ori.FRet):
		return append(append([]rdVal(nil), p.rets...), rdSP)
	}
	return nil
}

// rdUses returns the values in reads before allocation, guard first.
func (p *rdPre) rdUses(in *ori.Inst) []rdVal {
	var out []rdVal
	add := func(r ori.Reg) {
		if r.IsZero() {
			return
		}
		for w := 0; w < int(r.Words); w++ {
			out = append(out, rdValOf(r, w))
		}
	}
	add(in.Guard)
	for _, o := range in.Srcs {
		if r, ok := rdOpReg(o); ok {
			add(r)
		}
	}
	for _, o := range in.Dsts {
		if o.Kind != ori.OpdReg {
			if r, ok := rdOpReg(o); ok {
				add(r)
			}
		}
	}
	return append(out, p.implicitReads(in)...)
}

// rdDefs returns the values in writes before allocation. A CALL writes
// every physical value but the stack pointer.
func (p *rdPre) rdDefs(in *ori.Inst) []rdVal {
	var out []rdVal
	if in.Op == ori.OpCALL {
		for _, v := range p.phys {
			if v != rdSP {
				out = append(out, v)
			}
		}
	}
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg && !o.Reg.IsZero() {
			for w := 0; w < int(o.Reg.Words); w++ {
				out = append(out, rdValOf(o.Reg, w))
			}
		}
	}
	return out
}

// checkLiveness runs value liveness over the function before allocation
// and reports two ways the allocation can lose a value that the forward
// walk cannot see:
//
//   - an instruction that is gone after allocation (and is neither a
//     coalesced copy nor an ABI move event) while one of its results is
//     still read: the older value would otherwise pass for the new one;
//   - a definition of a member of a coalesced class while another member
//     is live: union-find treats the class as one value, so the walk
//     would accept the overwritten member. Chaitin's exception applies: a
//     copy between members of the class does not interfere.
//
// With report false it records nothing and returns the roots of the
// classes whose members interfere (rdNewPre turns their copies into
// events); with report true it records both kinds in p.errs.
func (p *rdPre) checkLiveness(report bool) map[rdVal]bool {
	roots := map[rdVal]bool{}
	f := p.f
	index := map[rdVal]int{}
	var keys []rdVal
	key := func(v rdVal) int {
		if i, ok := index[v]; ok {
			return i
		}
		index[v] = len(keys)
		keys = append(keys, v)
		return len(keys) - 1
	}
	for _, v := range p.phys {
		key(v)
	}
	// Every instruction's reads and writes are indexed once; the fixed
	// point then works on per-block summaries (the values read before
	// being overwritten, gen, and the values overwritten unguarded, kill)
	// with a worklist. Liveness is monotone, so this reaches the same
	// least fixed point as re-walking every instruction on every sweep,
	// which the verifier did before (a fifth of its time).
	type instVals struct {
		uses, defs []int32
		kill       bool
	}
	iv := make([][]instVals, len(f.Blocks))
	for bi, b := range f.Blocks {
		iv[bi] = make([]instVals, len(b.Insts))
		for i, in := range b.Insts {
			x := instVals{kill: !in.Guarded()}
			for _, v := range p.rdUses(in) {
				x.uses = append(x.uses, int32(key(v)))
			}
			for _, v := range p.rdDefs(in) {
				x.defs = append(x.defs, int32(key(v)))
			}
			iv[bi][i] = x
		}
	}
	n := len(keys)
	pos := map[*ori.Block]int{}
	for i, b := range f.Blocks {
		pos[b] = i
	}
	liveIn := make([]rdBits, len(f.Blocks))
	for i := range liveIn {
		liveIn[i] = rdNewBits(n)
	}
	step := func(x *instVals, live rdBits) {
		if x.kill {
			for _, d := range x.defs {
				live.clear(int(d))
			}
		}
		for _, u := range x.uses {
			live.set(int(u))
		}
	}
	liveOut := func(bi int) rdBits {
		out := rdNewBits(n)
		for _, s := range f.Blocks[bi].Succs {
			if si, ok := pos[s]; ok {
				out.or(liveIn[si])
			}
		}
		return out
	}
	gen := make([]rdBits, len(f.Blocks))
	kill := make([]rdBits, len(f.Blocks))
	preds := make([][]int32, len(f.Blocks))
	for bi, b := range f.Blocks {
		g, k := rdNewBits(n), rdNewBits(n)
		for i := len(iv[bi]) - 1; i >= 0; i-- {
			x := &iv[bi][i]
			if x.kill {
				for _, d := range x.defs {
					k.set(int(d))
					g.clear(int(d))
				}
			}
			for _, u := range x.uses {
				g.set(int(u))
			}
		}
		gen[bi], kill[bi] = g, k
		for _, s := range b.Succs {
			if si, ok := pos[s]; ok {
				preds[si] = append(preds[si], int32(bi))
			}
		}
	}
	work := make([]int32, 0, len(f.Blocks))
	queued := make([]bool, len(f.Blocks))
	for bi := range f.Blocks { // popped from the end: last block first
		work = append(work, int32(bi))
		queued[bi] = true
	}
	for len(work) > 0 {
		bi := int(work[len(work)-1])
		work = work[:len(work)-1]
		queued[bi] = false
		out := liveOut(bi)
		in, g, k := liveIn[bi], gen[bi], kill[bi]
		grew := false
		for i := range in {
			if x := g[i] | out[i]&^k[i]; x != in[i] {
				in[i] = x
				grew = true
			}
		}
		if !grew {
			continue
		}
		for _, pb := range preds[bi] {
			if !queued[pb] {
				queued[pb] = true
				work = append(work, pb)
			}
		}
	}
	if report && len(f.Blocks) > 0 {
		seen := map[rdVal]bool{}
		for i, v := range keys {
			if v.virtual && liveIn[0].has(i) && !seen[p.canon(v)] {
				seen[p.canon(v)] = true
				p.undef = append(p.undef, p.canon(v))
			}
		}
		rdSortVals(p.undef)
	}
	// Members of each multi-member class, for the interference check.
	classes := map[rdVal][]rdVal{}
	for _, v := range keys {
		r := p.canon(v)
		classes[r] = append(classes[r], v)
	}
	for bi, b := range f.Blocks {
		live := liveOut(bi)
		type hit struct {
			in  *ori.Inst
			msg string
			cd  int
		}
		var hits []hit
		for i := len(b.Insts) - 1; i >= 0; i-- {
			in := b.Insts[i]
			defs := p.rdDefs(in)
			_, isFrame := rdFrameAdjust(in)
			if !p.present[in.ID] && !p.coalesced[in.ID] && !p.events[in.ID] && !p.rematOf[in.ID] && !isFrame && in.Op != ori.OpCALL {
				for _, d := range defs {
					if live.has(index[d]) {
						hits = append(hits, hit{in, fmt.Sprintf("%s was removed by the allocation, but %s, which it defines, is read afterwards", in.Name(), d), 10})
						break
					}
				}
			}
			if !p.coalesced[in.ID] && in.Op != ori.OpCALL {
				var copyOf rdVal
				isCopy := rdIsRegCopy(in) && !in.Guarded()
				for w, d := range defs {
					if isCopy {
						copyOf = p.canon(rdValOf(in.Srcs[0].Reg, w))
					}
					root := p.canon(d)
					if isCopy && copyOf == root {
						continue
					}
					for _, m := range classes[root] {
						if m != d && live.has(index[m]) {
							roots[root] = true
							hits = append(hits, hit{in, fmt.Sprintf("%s writes %s while %s is live, but the allocation merged them by removing the copy #%d", in.Name(), d, m, p.mergedBy[root]), 6})
							break
						}
					}
				}
			}
			step(&iv[bi][i], live)
		}
		for i := len(hits) - 1; i >= 0 && report; i-- {
			h := hits[i]
			p.errs = append(p.errs, RAMismatch{Block: b.ID, Inst: h.in.ID, Code: h.cd, Operand: OperandNone, Msg: h.msg})
		}
	}
	return roots
}

// rdBits is a fixed-size bitset.
type rdBits []uint64

func rdNewBits(n int) rdBits    { return make(rdBits, (n+63)/64) }
func (s rdBits) set(i int)      { s[i/64] |= 1 << (i % 64) }
func (s rdBits) clear(i int)    { s[i/64] &^= 1 << (i % 64) }
func (s rdBits) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s rdBits) or(o rdBits) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s rdBits) equal(o rdBits) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}
