package faultinject

// The selector remembers which instructions already carry a fault in a
// small hash set keyed by instruction identity and hashed with 32-bit
// FNV-1a, the hash ptxas uses for its CFG maps and (per the wiki) for the
// bugspec selector's collision avoidance. In ptxas the key is the
// instruction's address; in orilab it is (function index, instruction ID),
// which names the same instruction in every copy of a module.

const (
	fnvOffset32 = 0x811C9DC5
	fnvPrime32  = 16777619
)

// fnv1a32 hashes the bytes of the little-endian words in order.
func fnv1a32(words ...uint32) uint32 {
	h := uint32(fnvOffset32)
	for _, w := range words {
		for i := 0; i < 4; i++ {
			h = (h ^ (w >> (8 * i) & 0xFF)) * fnvPrime32
		}
	}
	return h
}

// instKey names one instruction of a module.
type instKey struct {
	fn int32 // index of the function in the module
	id int32 // instruction ID, unique within the function
}

func (k instKey) hash() uint32 { return fnv1a32(uint32(k.fn), uint32(k.id)) }

// dedupSet is a chained hash set of instKeys. Buckets are a power of two
// (bucket = hash & (n-1)) and the table doubles when it holds more than
// four keys per bucket, the load limit of ptxas's general hash maps.
type dedupSet struct {
	buckets [][]instKey
	n       int
}

func newDedupSet() *dedupSet { return &dedupSet{buckets: make([][]instKey, 8)} }

func (s *dedupSet) has(k instKey) bool {
	for _, x := range s.buckets[k.hash()&uint32(len(s.buckets)-1)] {
		if x == k {
			return true
		}
	}
	return false
}

// add inserts k and reports whether it was new.
func (s *dedupSet) add(k instKey) bool {
	if s.has(k) {
		return false
	}
	if s.n >= 4*len(s.buckets) {
		old := s.buckets
		s.buckets = make([][]instKey, 2*len(old))
		for _, b := range old {
			for _, x := range b {
				i := x.hash() & uint32(len(s.buckets)-1)
				s.buckets[i] = append(s.buckets[i], x)
			}
		}
	}
	i := k.hash() & uint32(len(s.buckets)-1)
	s.buckets[i] = append(s.buckets[i], k)
	s.n++
	return true
}
