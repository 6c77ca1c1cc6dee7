package difftest

import (
	"testing"

	"orilab/internal/ptxgen"
)

// BenchmarkCheck measures one program checked at -O0 and -O3 (what a
// campaign spends per program and level pair).
func BenchmarkCheck(b *testing.B) {
	for i := 0; i < b.N; i++ {
		p := ptxgen.Generate(uint64(1000 + i%50))
		Check(p, Options{Configs: []Config{{OptLevel: 0}, {OptLevel: 3}}})
	}
}

// BenchmarkGenerate measures the generator alone.
func BenchmarkGenerate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = ptxgen.Generate(uint64(i)).PTX()
	}
}
