package regalloc

import (
	"fmt"
	"sort"

	"orilab/pipeline/ori"
)

// The per-class driver: NOSPILL trials, then the SPILL retry loop
// (ptxas's sub_971A90, 001:18660-18710 and 19702-19808).
//
// R values live across a CALL under the ABI may only take the
// callee-saved registers R16-R31 (calleesave.go): every other register is
// occupied at each such CALL's write position in the attempts' base, so a
// value that finds no callee-saved register is spilled like any other
// that does not fit. Predicate and uniform values live across a CALL
// under the ABI (no callee-saved registers in their files) are spilled
// before the first attempt, into R holders that then live in callee-saved
// registers or memory. A CALL to a whole-seen callee occupies only the
// registers the callee changes (callBase, interproc.go).
// Decision: those ABI saves do not make an attempt a SPILL attempt;
// "NOSPILL" means no spilling for pressure.
//
// NOSPILL trials (RegAllocNumNonSpillTrials of them, 2 by default, 1 at
// -O0) allocate with the register file virtually unbounded and report
// what they used; each prints the wiki's debug line
//
//	R-CLASS NOSPILL REGALLOC: attemp 0, used 37, target 24
//
// (the "attemp" typo is ptxas's; Decision: the line starts with the class
// name, which the wiki's "-CLASS" implies but does not show). The best
// trial wins if it fits the target. Otherwise SPILL attempts run with the
// target as a hard limit, each spilling what the previous one asked for,
// until one places everything; they print
//
//	R-CLASS SPILL REGALLOC: attemp 1, used 24, target 24, spilled 9
//
// If a temporary cannot be placed even with every candidate spilled, the
// instruction needs more registers at once than the target allows, and
// allocation fails with ptxas's message.

// classResult is the outcome of allocating one class.
type classResult struct {
	at      *attempt
	spilled []bool
	target  int // the budget the allocation met
}

// allocateClass runs the NOSPILL trials and the SPILL retries for p.
func (a *allocator) allocateClass(p *problem, target int, targets []int) (*classResult, error) {
	name := p.class.String()
	spilled := make([]bool, len(p.vregs))
	nForced := 0
	for vi, v := range p.vregs {
		if v.mustSpill {
			spilled[vi] = true
			nForced++
			a.detail("%s-CLASS: %s is live across a call: %s it (the class has no callee-saved registers)", name, p.name(vi), p.spillVerb(vi))
		}
	}
	base := p.scr.newBase()
	for r, s := range p.phys {
		base[r] = p.scr.baseSet(p.npos)
		base[r].set(s, true)
	}
	p.callBase(base)

	var best *attempt
	var noSpill []Attempt
	for n := 0; n < a.set.trials; n++ {
		at := p.newAttempt(modeNoSpill, spilled, virtualFile, base)
		at.threshold = a.set.threshold
		at.run(n%2 == 1)
		noSpill = append(noSpill, Attempt{Class: name, Mode: "NOSPILL", N: n, Used: at.used, Spilled: nForced})
		if best == nil || at.better(best) {
			p.recycle(best)
			best = at
		} else {
			p.recycle(at)
		}
	}
	// RegTargetList: the smallest listed target the code fits in without
	// spilling, else the largest.
	if len(targets) > 0 {
		target = targets[len(targets)-1]
		for _, t := range targets {
			if best.used <= t {
				target = t
				break
			}
		}
	}
	for _, r := range noSpill {
		r.Target = target
		r.OK = r.Used <= target
		a.record(r)
	}
	if best.used <= target {
		return &classResult{at: best, spilled: spilled, target: target}, nil
	}

	p.recycle(best)
	limit := min(target, p.limit)
	for n := 1; ; n++ {
		at := p.newAttempt(modeSpill, spilled, limit, base)
		at.threshold = a.set.threshold
		at.notes = a.detail
		at.run(false)
		count := 0
		for _, s := range spilled {
			if s {
				count++
			}
		}
		ok := at.failed < 0 && len(at.requests) == 0
		a.record(Attempt{Class: name, Mode: "SPILL", N: n, Used: at.used, Target: target, Spilled: count, OK: ok})
		if at.failed >= 0 {
			return nil, p.failure(at, target)
		}
		if ok {
			return &classResult{at: at, spilled: spilled, target: target}, nil
		}
		next := append([]bool(nil), spilled...)
		grew := false
		for _, v := range at.requests {
			if !next[v] {
				next[v] = true
				grew = true
			}
		}
		if !grew {
			// Cannot happen: a request names a value that is not spilled
			// yet. Guard against looping forever all the same.
			return nil, p.failure(at, target)
		}
		spilled = next
		p.recycle(at)
	}
}

// failure explains why an attempt could not place an item.
func (p *problem) failure(at *attempt, target int) error {
	msg := fmt.Sprintf("Register allocation failed with register count of '%d'. Compile the program with a higher register target", target)
	if at.failed < 0 {
		return fmt.Errorf("regalloc: %s: %s", p.f.Name, msg)
	}
	it := &at.items[at.failed]
	g := it.g
	if !it.temp {
		g = int(it.segs[0].lo) / 4
	}
	need := p.demand(at, it)
	what := map[int]string{1: "a register", 2: "an aligned register pair", 4: "an aligned register quad"}[it.width]
	return p.errorf(g, "%s (%s needs %s while %d of the usable registers %s%d-%s%d are in use there)",
		msg, p.itemName(it), what, need, p.class, p.lo, p.class, at.limit-1)
}

// demand counts the registers occupied where item it is live, for the
// failure message.
func (p *problem) demand(at *attempt, it *item) int {
	n := 0
	for s := p.lo; s < at.limit; s++ {
		if b := at.base[s]; b != nil && b.overlaps(it.segs) {
			n++
		} else if o := at.occ[s]; o != nil && o.overlaps(it.segs) {
			n++
		}
	}
	return n
}

// name prints value vi as it appears in the IR.
func (p *problem) name(vi int) string {
	return ori.VReg(p.class, int(p.vregs[vi].num), 1).String()
}

// itemName prints an item: the value, or its temporary at an instruction.
func (p *problem) itemName(it *item) string {
	if it.temp {
		return fmt.Sprintf("the temporary of spilled %s at #%d", p.name(it.v), p.insts[it.g].ID)
	}
	return p.name(it.v)
}

// spilledValues lists the spilled value indices in order.
func spilledValues(spilled []bool) []int {
	var out []int
	for v, s := range spilled {
		if s {
			out = append(out, v)
		}
	}
	sort.Ints(out)
	return out
}
