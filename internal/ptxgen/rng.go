package ptxgen

// rng is the generator's random source: splitmix64, written out here so
// that a seed means the same program in every Go release (math/rand's
// derived methods may change between releases; this cannot).
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

// next returns the next 64 random bits (splitmix64).
func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a value in [0, n); n must be positive. The modulo bias is
// below 2^-40 for the small n the generator uses.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// rangeIn returns a value in [lo, hi].
func (r *rng) rangeIn(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// percent is true with probability p/100.
func (r *rng) percent(p int) bool { return r.intn(100) < p }

// pick returns one of xs.
func (r *rng) pick(xs ...string) string { return xs[r.intn(len(xs))] }

// weighted returns an index into ws with probability proportional to its
// weight; it returns -1 when every weight is zero.
func (r *rng) weighted(ws []int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	if total == 0 {
		return -1
	}
	n := r.intn(total)
	for i, w := range ws {
		if n < w {
			return i
		}
		n -= w
	}
	return -1
}

// fork returns an independent stream derived from this one and a label,
// so that adding draws in one part of the generator does not shift the
// random choices of another.
func (r *rng) fork(label uint64) *rng {
	return newRNG(r.next() ^ label*0xd1342543de82ef95)
}

// Rand is the generator's random source for tools that draw their own
// reproducible choices next to a program (the fuzzer's knob settings).
type Rand struct{ r rng }

// NewRand returns a source seeded with seed.
func NewRand(seed uint64) *Rand { return &Rand{rng{s: seed}} }

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 { return r.r.next() }

// Intn returns a value in [0, n); n must be positive.
func (r *Rand) Intn(n int) int { return r.r.intn(n) }

// Percent is true with probability p/100.
func (r *Rand) Percent(p int) bool { return r.r.percent(p) }
