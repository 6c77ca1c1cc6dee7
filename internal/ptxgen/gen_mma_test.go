package ptxgen

import (
	"regexp"
	"strings"
	"testing"
)

// TestTensorCoresKeepTheSeedsProgram checks that the mma statements are
// only added, at the kernel's top level: with them deleted, a program is
// the one generated with tensor cores avoided (register declarations
// aside). It also checks that every form appears in 300 programs and
// only on targets that have it.
func TestTensorCoresKeepTheSeedsProgram(t *testing.T) {
	strip := func(p *Program) (string, int) {
		n := 0
		var keep []Stmt
		for _, s := range p.Kernel.Body {
			if strings.HasPrefix(s.kind(), "mma.") {
				n++
				continue
			}
			keep = append(keep, s)
		}
		p.Kernel.Body = keep
		return regexp.MustCompile(`(?m)^\t\.reg .*\n`).ReplaceAllString(p.PTX(), ""), n
	}
	kinds := map[string]int{}
	added := 0
	for seed := uint64(1); seed <= 300; seed++ {
		p := Generate(seed)
		text := p.PTX()
		if c := strings.Count(text, "mma.sync"); c > 0 && p.Profile.w("warp") == 0 && p.Profile.w("lanesplit") == 0 {
			t.Fatalf("seed %d: mma in a kernel whose warps may not be whole", seed)
		}
		for _, f := range mmaForms {
			if strings.Contains(text, "mma.sync.aligned."+f.ptx+" ") {
				kinds[f.name]++
				if p.Target < f.minSM {
					t.Errorf("seed %d: %s on sm_%d", seed, f.ptx, p.Target)
				}
			}
		}
		got, n := strip(p)
		if c := strings.Count(text, "mma.sync"); c != n {
			t.Fatalf("seed %d: %d mma instructions, %d at the kernel's top level", seed, c, n)
		}
		if seed <= 30 {
			want, _ := strip(GenerateWith(seed, Options{Avoid: []string{"tensor-cores"}}))
			if got != want {
				t.Fatalf("seed %d: deleting the mma statements does not give the program without them:\n%s\nwant\n%s", seed, got, want)
			}
		}
		added += n
	}
	if added == 0 {
		t.Fatal("no mma statement in 300 programs")
	}
	for _, f := range mmaForms {
		if kinds[f.name] == 0 {
			t.Errorf("no %s in 300 programs", f.ptx)
		}
	}
}
