package fp

import (
	"math/rand"
	"testing"
)

// Operands for the benchmarks: ordinary finite values of mixed
// magnitude (the common case in kernels), 1024 of them so the loop does
// not get to predict a single path.
var bench32, bench64 = func() ([]uint32, []uint64) {
	r := rand.New(rand.NewSource(1))
	a := make([]uint32, 1024+2)
	b := make([]uint64, 1024+2)
	for i := range a {
		a[i] = uint32(r.Intn(2))<<31 | uint32(127-20+r.Intn(40))<<23 | r.Uint32()&0x7fffff
		b[i] = uint64(r.Intn(2))<<63 | uint64(1023-100+r.Intn(200))<<52 | r.Uint64()&(1<<52-1)
	}
	return a, b
}()

var sink32 uint32
var sink64 uint64

func BenchmarkAdd32RN(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Add32(bench32[j], bench32[j+1], RN, false)
	}
	sink32 = s
}

func BenchmarkMul32RN(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Mul32(bench32[j], bench32[j+1], RN, false)
	}
	sink32 = s
}

func BenchmarkFma32RN(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Fma32(bench32[j], bench32[j+1], bench32[j+2], RN, false)
	}
	sink32 = s
}

func BenchmarkFma32RNFTZ(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Fma32(bench32[j], bench32[j+1], bench32[j+2], RN, true)
	}
	sink32 = s
}

func BenchmarkAdd64RN(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Add64(bench64[j], bench64[j+1], RN)
	}
	sink64 = s
}

func BenchmarkMul64RN(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Mul64(bench64[j], bench64[j+1], RN)
	}
	sink64 = s
}

func BenchmarkFma64RN(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Fma64(bench64[j], bench64[j+1], bench64[j+2], RN)
	}
	sink64 = s
}

func BenchmarkDiv32RN(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s ^= Div32(bench32[j], bench32[j+1], RN, false)
	}
	sink32 = s
}

func BenchmarkSqrt64RN(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s ^= Sqrt64(bench64[i&1023]&^(1<<63), RN)
	}
	sink64 = s
}

func BenchmarkRcp32Approx(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Rcp32Approx(bench32[i&1023])
	}
	sink32 = s
}
