package regalloc

import "math/bits"

// Block-level liveness of one class's virtual registers, word by word,
// solved from the accesses collect gathered.
//
// The ranges were seeded from ori.Liveness, which solves every class of
// the function at once and, being keyed by the function's fingerprint,
// hashed the whole function first. Each class's rewrite changes the
// function, so every class paid for a whole-function solve (and a
// fingerprint) where it needed its own words only: the P, UP and UR
// solves are small, and the R one skips the other classes' words. The
// rules are ori.Liveness's, restricted to the class: an instruction reads
// its guard, its register sources and the bases of its addresses, an
// unguarded write kills the words it writes and a guarded one kills
// nothing, and a block's live-out is the union of its successors'
// live-in. Both are least fixed points of the same equations, so the sets
// are the same; TestClassLivenessMatchesOri compares them.

// classLive holds the live-out words of every block (in f.Blocks order).
// Word k is word k-base[owner[k]] of value owner[k].
type classLive struct {
	base  []int
	owner []int32
	// out[bi*n : (bi+1)*n] is block bi's live-out set, n words of 64 bits.
	out []uint64
	n   int
}

// classLiveness solves the liveness of p's values; collect must have run.
func (p *problem) classLiveness() *classLive {
	nv := len(p.vregs)
	base := p.scr.ints.take(nv + 1)
	for i, v := range p.vregs {
		base[i+1] = base[i] + v.width
	}
	nw := base[nv]
	owner := p.scr.int32s.take(nw)
	for vi := range p.vregs {
		for k := base[vi]; k < base[vi+1]; k++ {
			owner[k] = int32(vi)
		}
	}
	n := (nw + 63) / 64
	nb := len(p.f.Blocks)
	slab := p.words
	if cap(slab) < 4*nb*n {
		slab = zeroedWords(4 * nb * n)
	} else {
		slab = slab[:4*nb*n]
		clear(slab)
	}
	p.words = slab
	gen, kill, in, out := slab[:nb*n], slab[nb*n:2*nb*n], slab[2*nb*n:3*nb*n], slab[3*nb*n:]
	set := func(s []uint64, bi, k int) { s[bi*n+k/64] |= 1 << (k % 64) }
	// Gen (read before any kill in the block) and kill, from each value's
	// accesses, which are in instruction order.
	for vi, v := range p.vregs {
		cur, killed := -1, uint8(0)
		for _, a := range v.acc {
			if bi := p.block[a.g]; bi != cur {
				cur, killed = bi, 0
			}
			for m := a.read &^ killed; m != 0; m &= m - 1 {
				set(gen, cur, base[vi]+bits.TrailingZeros8(m))
			}
			if !a.guardedDef {
				killed |= a.write
				for m := a.write; m != 0; m &= m - 1 {
					set(kill, cur, base[vi]+bits.TrailingZeros8(m))
				}
			}
		}
	}
	// Block bi's successors are succ[succAt[bi]:succAt[bi+1]] (a
	// successor outside the layout, if any, is left out).
	succAt := p.scr.ints.take(nb + 1)
	var succ []int
	for bi := range p.f.Blocks {
		succAt[bi] = len(succ)
		for _, si := range p.blockSuccs(bi) {
			if si >= 0 {
				succ = append(succ, int(si))
			}
		}
	}
	succAt[nb] = len(succ)
	for changed := true; changed; {
		changed = false
		for bi := nb - 1; bi >= 0; bi-- {
			o := out[bi*n : (bi+1)*n]
			for _, si := range succ[succAt[bi]:succAt[bi+1]] {
				s := in[si*n : (si+1)*n]
				for j := range o {
					o[j] |= s[j]
				}
			}
			x, g, k := in[bi*n:(bi+1)*n], gen[bi*n:(bi+1)*n], kill[bi*n:(bi+1)*n]
			for j := range x {
				if w := g[j] | o[j]&^k[j]; w != x[j] {
					x[j] = w
					changed = true
				}
			}
		}
	}
	return &classLive{base: base, owner: owner, out: out, n: n}
}

// eachOut calls fn for every live-out word of block bi: value vi, word w.
func (l *classLive) eachOut(bi int, fn func(vi, w int)) {
	for j, x := range l.out[bi*l.n : (bi+1)*l.n] {
		for ; x != 0; x &= x - 1 {
			k := j*64 + bits.TrailingZeros64(x)
			vi := int(l.owner[k])
			fn(vi, k-l.base[vi])
		}
	}
}
