package verifyra

// The memcheck report of the reaching-definitions verifier: for each
// mismatched read, the definitions that reach it before and after
// allocation (classic reaching definitions, a forward union dataflow over
// the value words of the original function and the locations of the
// allocated one), their differences classified as BENIGN when a
// spill/refill/copy/remat chain explains them, and ptxas's banner layout
// (wiki, "Reporter Output Format").

import (
	"fmt"
	"sort"
	"strings"

	"orilab/pipeline/ori"
)

// rdDefSite is one definition a reaching-definitions walk tracks.
type rdDefSite struct {
	key  int
	site Producer
	kill bool
}

// rdReach is a reaching-definitions solver over n keys; defs gives the
// definitions of an instruction, entry those at the function entry.
type rdReach struct {
	f     *ori.Func
	n     int
	defs  func(in *ori.Inst) []rdDefSite
	in    map[*ori.Block][][]Producer
	entry [][]Producer
}

func rdAddProducer(ps []Producer, p Producer) []Producer {
	for _, q := range ps {
		if q == p {
			return ps
		}
	}
	out := append(append([]Producer(nil), ps...), p)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Inst != out[j].Inst {
			return out[i].Inst < out[j].Inst
		}
		return out[i].Dst < out[j].Dst
	})
	return out
}

func (r *rdReach) transfer(in *ori.Inst, st [][]Producer) {
	for _, d := range r.defs(in) {
		if d.kill {
			st[d.key] = []Producer{d.site}
		} else {
			st[d.key] = rdAddProducer(st[d.key], d.site)
		}
	}
}

func (r *rdReach) solve() {
	r.in = map[*ori.Block][][]Producer{}
	if len(r.f.Blocks) == 0 {
		return
	}
	r.in[r.f.Blocks[0]] = r.entry
	for changed := true; changed; {
		changed = false
		for _, b := range r.f.Blocks {
			st0, ok := r.in[b]
			if !ok {
				continue
			}
			st := append([][]Producer(nil), st0...)
			for _, in := range b.Insts {
				r.transfer(in, st)
			}
			for _, s := range b.Succs {
				cur, seen := r.in[s]
				next := append([][]Producer(nil), cur...)
				if !seen {
					next = make([][]Producer, r.n)
				}
				grew := !seen
				for k := range st {
					for _, p := range st[k] {
						if n := rdAddProducer(next[k], p); len(n) != len(next[k]) {
							next[k] = n
							grew = true
						}
					}
				}
				if grew {
					r.in[s] = next
					changed = true
				}
			}
		}
	}
}

// before calls visit with the state right before each reachable
// instruction.
func (r *rdReach) before(visit func(b *ori.Block, in *ori.Inst, st [][]Producer)) {
	for _, b := range r.f.Blocks {
		st0, ok := r.in[b]
		if !ok {
			continue
		}
		st := append([][]Producer(nil), st0...)
		for _, in := range b.Insts {
			visit(b, in, st)
			r.transfer(in, st)
		}
	}
}

// rdRead is what the report needs to know about a mismatched read.
type rdRead struct {
	want rdVal
	loc  rdLoc
}

// producers fills Before and After of every read mismatch, and refines
// "uninitialized" to "refill reads uninitialized memory" when only refills
// reach the read.
func (v *rdVerifier) producers(ms []RAMismatch) {
	reads := map[int32][]int{}
	for i, m := range ms {
		if m.read != nil {
			reads[m.Inst] = append(reads[m.Inst], i)
		}
	}
	if len(reads) == 0 {
		return
	}
	// After allocation: keys are locations.
	post := &rdReach{f: v.f, n: len(v.locs), entry: make([][]Producer, len(v.locs))}
	for _, i := range v.regs {
		post.entry[i] = []Producer{{Inst: 0}}
	}
	post.defs = func(in *ori.Inst) []rdDefSite {
		var out []rdDefSite
		role := in.Role.String()
		kill := !in.Guarded()
		if in.Op == ori.OpCALL {
			for _, i := range v.regs {
				if i != v.r1 && !v.calleeSaved(i) {
					out = append(out, rdDefSite{key: i, site: Producer{Inst: in.ID, Dst: -1}, kill: true})
				}
			}
		}
		for di, o := range in.Dsts {
			if o.Kind == ori.OpdReg && !o.Reg.Virtual && !o.Reg.IsZero() {
				for w := 0; w < int(o.Reg.Words); w++ {
					if i, ok := v.locIdx[rdRegLoc(o.Reg, w)]; ok {
						out = append(out, rdDefSite{key: i, site: Producer{Inst: in.ID, Dst: di, Role: role}, kill: kill})
					}
				}
			}
		}
		if off, size, ok := rdSlotAccess(in); ok && in.Role != ori.RoleRefill {
			for w := rdAlignDown(off); w < off+size; w += 4 {
				out = append(out, rdDefSite{key: v.locIdx[rdLoc{kind: rdSlotKind, n: int32(w)}], site: Producer{Inst: in.ID, Role: role}, kill: kill})
			}
		}
		return out
	}
	post.solve()
	// Role chains: what each spill, refill and copy read.
	chain := map[int32][]Producer{}
	roleOf := map[int32]*ori.Inst{}
	post.before(func(b *ori.Block, in *ori.Inst, st [][]Producer) {
		for _, mi := range reads[in.ID] {
			ms[mi].After = st[v.locIdx[ms[mi].read.loc]]
		}
		if in.Role == ori.RoleNone {
			return
		}
		roleOf[in.ID] = in
		var from []rdLoc
		switch in.Role {
		case ori.RoleSpill:
			if len(in.Srcs) == 2 && in.Srcs[1].Kind == ori.OpdReg {
				r := in.Srcs[1].Reg
				for w := 0; w < int(r.Words); w++ {
					from = append(from, rdRegLoc(r, w))
				}
			}
		case ori.RoleRefill:
			if off, size, ok := rdSlotAccess(in); ok {
				for w := rdAlignDown(off); w < off+size; w += 4 {
					from = append(from, rdLoc{kind: rdSlotKind, n: int32(w)})
				}
			}
		case ori.RoleCopy:
			if len(in.Srcs) == 1 && in.Srcs[0].Kind == ori.OpdReg {
				r := in.Srcs[0].Reg
				for w := 0; w < int(r.Words); w++ {
					from = append(from, rdRegLoc(r, w))
				}
			}
		}
		for _, l := range from {
			if i, ok := v.locIdx[l]; ok {
				for _, p := range st[i] {
					chain[in.ID] = rdAddProducer(chain[in.ID], p)
				}
			}
		}
	})
	// Before allocation: keys are the original value words.
	pf := v.pre.f
	index := map[rdVal]int{}
	var keys []rdVal
	key := func(x rdVal) int {
		if i, ok := index[x]; ok {
			return i
		}
		index[x] = len(keys)
		keys = append(keys, x)
		return len(keys) - 1
	}
	for _, x := range v.pre.phys {
		key(x)
	}
	for _, b := range pf.Blocks {
		for _, in := range b.Insts {
			for _, x := range v.pre.rdDefs(in) {
				key(x)
			}
			for _, x := range v.pre.rdUses(in) {
				key(x)
			}
		}
	}
	for _, m := range ms {
		if m.read != nil {
			key(m.read.want)
		}
	}
	pre := &rdReach{f: pf, n: len(keys), entry: make([][]Producer, len(keys))}
	for _, x := range v.pre.phys {
		pre.entry[index[x]] = []Producer{{Inst: 0}}
	}
	pre.defs = func(in *ori.Inst) []rdDefSite {
		var out []rdDefSite
		kill := !in.Guarded()
		if in.Op == ori.OpCALL {
			for _, x := range v.pre.phys {
				if x != rdSP {
					out = append(out, rdDefSite{key: index[x], site: Producer{Inst: in.ID, Dst: -1}, kill: true})
				}
			}
		}
		for di, o := range in.Dsts {
			if o.Kind == ori.OpdReg && !o.Reg.IsZero() {
				for w := 0; w < int(o.Reg.Words); w++ {
					out = append(out, rdDefSite{key: index[rdValOf(o.Reg, w)], site: Producer{Inst: in.ID, Dst: di}, kill: kill})
				}
			}
		}
		return out
	}
	pre.solve()
	preReads := map[int32][]int{}
	for i, m := range ms {
		if m.read == nil {
			continue
		}
		id := m.Inst
		if m.Origin != 0 {
			id = m.Origin
		}
		preReads[id] = append(preReads[id], i)
	}
	pre.before(func(b *ori.Block, in *ori.Inst, st [][]Producer) {
		for _, mi := range preReads[in.ID] {
			ms[mi].Before = st[index[ms[mi].read.want]]
		}
	})
	for i := range ms {
		m := &ms[i]
		if m.read == nil {
			continue
		}
		m.expanded = map[int32]bool{}
		m.expandedBy = map[int32]map[int32]bool{}
		for _, p := range m.After {
			e := v.expand([]Producer{p}, chain, roleOf)
			m.expandedBy[p.Inst] = e
			for id := range e {
				m.expanded[id] = true
			}
		}
		if m.Code == 5 && len(m.After) > 0 {
			allRefills := true
			for _, p := range m.After {
				if p.Role != ori.RoleRefill.String() {
					allRefills = false
				}
			}
			if allRefills {
				m.Code = 2
			}
		}
	}
}

// expand follows spill, refill and copy producers back to the
// definitions they carry (a remat stands for its origin).
func (v *rdVerifier) expand(ps []Producer, chain map[int32][]Producer, roleOf map[int32]*ori.Inst) map[int32]bool {
	out := map[int32]bool{}
	seen := map[int32]bool{}
	var walk func(p Producer)
	walk = func(p Producer) {
		in := roleOf[p.Inst]
		if p.Role == "" || in == nil {
			out[p.Inst] = true
			return
		}
		if seen[p.Inst] {
			return
		}
		seen[p.Inst] = true
		if in.Role == ori.RoleRemat {
			out[in.Origin] = true
			return
		}
		for _, q := range chain[p.Inst] {
			walk(q)
		}
	}
	for _, p := range ps {
		walk(p)
	}
	return out
}

// rdCategory is ptxas's message for each memcheck error code.
var rdCategory = map[int]string{
	1:  "Failed to find matching spill for refilling load that is involved in this operand computation",
	3:  "Failed to establish match for P2R-R2P pattern involved in this operand computation",
	2:  "This operand was fully defined before register allocation, however refill that is involved in this operand computation reads potentially uninitialized memory",
	5:  "Before register allocation this operand was fully defined, now an uninitialized value can reach it",
	6:  "After reg-alloc there are some extra def(s) that participate in this operand computation. They were not used this way before the allocation.",
	7:  "Rematerialization problem",
	10: "During register allocation we did not add any new definitions for this operand and yet some original old ones disappeared",
}

func (p Producer) line(op string) string {
	var s string
	switch {
	case p.Inst == 0:
		s = "  [entry] for src opr # " + op
	case p.Dst < 0:
		s = fmt.Sprintf("  [%d] call clobber for src opr # %s", p.Inst, op)
	default:
		s = fmt.Sprintf("  [%d] def opr # %d for src opr # %s", p.Inst, p.Dst, op)
	}
	if p.Role != "" {
		s += " (" + p.Role + ")"
	}
	return s
}

func rdOpNumber(op int) string {
	switch op {
	case OperandGuard:
		return "guard"
	case OperandImplicit:
		return "implicit"
	}
	return fmt.Sprint(op)
}

// Report renders the mismatches in ptxas's memcheck format. Operand
// numbers, "src opr #" included, are OperandNumber's (destinations
// first), not ptxas's source index: see OperandNumber's Decision. Per mismatch
// a 110-character '=' banner naming the instruction, the producers of the
// operand before and after allocation, the additions and removals with
// their classification, and the category message; then ptxas's totals.
func (e *ReachingDefsError) Report() string {
	var b strings.Builder
	banner := strings.Repeat("=", 110) + "\n"
	old := 0
	for _, m := range e.Mismatches {
		b.WriteString(banner)
		if m.Code == 7 {
			fmt.Fprintf(&b, "REMATERIALIZATION PROBLEM. New Instruction [%d] Old Instruction [%d]\n", m.Inst, m.Origin)
		}
		fmt.Fprintf(&b, "INSTRUCTION: [%d]   (%s BB%d)\n", m.Inst, e.Func, m.Block)
		b.WriteString(banner)
		b.WriteByte('\n')
		if m.read != nil {
			op := rdOpNumber(m.Operand)
			if len(m.Before) == 0 {
				old++
			}
			fmt.Fprintf(&b, "Operand # %s\n", op)
			fmt.Fprintf(&b, "Producers for operand %s of instruction [%d] before register allocation:\n", op, m.Inst)
			for _, p := range m.Before {
				b.WriteString(p.line(op) + "\n")
			}
			fmt.Fprintf(&b, "\nProducers for operand # %s of instruction [%d] after register allocation:\n", op, m.Inst)
			for _, p := range m.After {
				b.WriteString(p.line(op) + "\n")
			}
			before := map[int32]bool{}
			for _, p := range m.Before {
				before[p.Inst] = true
			}
			direct := map[int32]bool{}
			for _, p := range m.After {
				direct[p.Inst] = true
			}
			var adds, rems []string
			for _, p := range m.After {
				if before[p.Inst] {
					continue
				}
				verdict := "POTENTIAL PROBLEM"
				if p.Role != "" && rdSubset(m.expandedBy[p.Inst], before) {
					verdict = "BENIGN (explainable)"
				}
				adds = append(adds, fmt.Sprintf("%s  %s", strings.Replace(p.line(op), "for src", "src", 1), verdict))
			}
			for _, p := range m.Before {
				if direct[p.Inst] {
					continue
				}
				verdict := "POTENTIAL PROBLEM"
				if m.expanded[p.Inst] {
					verdict = "BENIGN (explainable)"
				}
				rems = append(rems, fmt.Sprintf("%s  %s", strings.Replace(p.line(op), "for src", "src", 1), verdict))
			}
			if len(adds) > 0 {
				b.WriteString("\nAdditions\n" + strings.Join(adds, "\n") + "\n")
			}
			if len(rems) > 0 {
				b.WriteString("\nRemovals\n" + strings.Join(rems, "\n") + "\n")
			}
			b.WriteByte('\n')
		}
		if c, ok := rdCategory[m.Code]; ok {
			if m.Code == 7 {
				fmt.Fprintf(&b, "%s: Old instruction: [%d] New instruction: [%d]\n", c, m.Origin, m.Inst)
			} else {
				b.WriteString(c + "\n")
			}
		}
		fmt.Fprintf(&b, "verify-ra %s BB%d #%d: %s\n\n", e.Func, m.Block, m.Inst, m.Msg)
	}
	fmt.Fprintf(&b, "TOTAL MISMATCH %d   MISMATCH ON OLD %d\n", len(e.Mismatches), old)
	return b.String()
}

// rdSubset reports whether a is non-empty and inside b.
func rdSubset(a, b map[int32]bool) bool {
	for id := range a {
		if !b[id] {
			return false
		}
	}
	return len(a) > 0
}
