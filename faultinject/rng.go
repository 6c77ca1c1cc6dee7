package faultinject

import "math/bits"

// rng is the injector's pseudo-random generator: SplitMix64 (Steele, Lea
// and Flood, "Fast splittable pseudorandom number generators", 2014).
//
// Decision: orilab carries its own generator instead of math/rand so that
// a seed printed in a report replays the same faults with any Go release:
// the whole sequence is defined by the dozen lines below.
type rng struct{ s uint64 }

func newRNG(seed int64) *rng { return &rng{s: uint64(seed)} }

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	return mix64(r.s)
}

// mix64 is SplitMix64's finalizer: a bijection that spreads every input
// bit over the whole word.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n), n > 0, by Lemire's
// multiply-and-reject method (no modulo bias).
func (r *rng) intn(n int) int {
	bound := uint64(n)
	for {
		hi, lo := bits.Mul64(r.next(), bound)
		if lo < bound && lo < -bound%bound {
			continue
		}
		return int(hi)
	}
}

// TrialSeed derives the seed of trial number trial of a campaign from the
// campaign's seed. Each trial's faults depend only on these two numbers,
// never on which worker ran it or in what order.
func TrialSeed(campaign int64, trial int) int64 {
	return int64(mix64(uint64(campaign) ^ mix64(uint64(trial)+0x632BE59BD9B4E019)))
}
