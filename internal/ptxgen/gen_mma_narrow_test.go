package ptxgen

import (
	"regexp"
	"strings"
	"testing"
)

// TestNarrowMMAOnlyAdds checks that the narrow mma statements are only
// added: with them deleted a program is the one generated without them
// (register declarations aside), so every seed keeps its other
// statements. It also checks that each narrow form appears in 300
// programs, only on targets that have it, and only next to other mma
// statements (the kernels that may hold them).
func TestNarrowMMAOnlyAdds(t *testing.T) {
	narrow := func(kind string) bool {
		for _, f := range narrowMMAForms {
			if kind == "mma."+f.name {
				return true
			}
		}
		return false
	}
	strip := func(p *Program) (string, int) {
		n := 0
		var keep []Stmt
		for _, s := range p.Kernel.Body {
			if narrow(s.kind()) {
				n++
				continue
			}
			keep = append(keep, s)
		}
		p.Kernel.Body = keep
		return regexp.MustCompile(`(?m)^\t\.reg .*\n`).ReplaceAllString(p.PTX(), ""), n
	}
	kinds := map[string]int{}
	for seed := uint64(1); seed <= 300; seed++ {
		p := Generate(seed)
		text := p.PTX()
		for _, f := range narrowMMAForms {
			if strings.Contains(text, "mma.sync.aligned."+f.ptx+" ") {
				kinds[f.name]++
				if p.Target < f.minSM {
					t.Errorf("seed %d: %s on sm_%d", seed, f.ptx, p.Target)
				}
			}
		}
		got, n := strip(p)
		if n > 1 {
			t.Errorf("seed %d: %d narrow mma statements, want at most 1", seed, n)
		}
		if n == 1 && strings.Count(got, "mma.sync") == 0 {
			t.Errorf("seed %d: a narrow mma in a kernel without the other mma statements", seed)
		}
		want, _ := strip(GenerateWith(seed, Options{Avoid: []string{"narrow-tensor-cores"}}))
		if got != want {
			t.Fatalf("seed %d: deleting the narrow mma statement does not give the program without it:\n%s\nwant\n%s", seed, got, want)
		}
	}
	for _, f := range narrowMMAForms {
		if kinds[f.name] == 0 {
			t.Errorf("no %s in 300 programs", f.ptx)
		}
	}
}
