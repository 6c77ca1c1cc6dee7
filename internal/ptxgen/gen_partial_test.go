package ptxgen

import (
	"regexp"
	"strings"
	"testing"
)

// TestPartialDefinitions checks the partial-definition statements: every
// read kind for every class shows up in a batch, the defining
// instruction is guarded and defines a register the statement reads
// afterwards, and a selp read takes that register on the side where the
// guard held.
func TestPartialDefinitions(t *testing.T) {
	guardRe := regexp.MustCompile(`^@(!?)(%p\d+) \S+ (%[a-z]+\d+)[,;]`)
	kinds := map[string]int{}
	for seed := uint64(1); seed <= 200; seed++ {
		p := Generate(seed)
		compiles(t, p)
		for _, f := range append(append([]*Func(nil), p.Funcs...), p.Kernel) {
			walkStmts(f.Body, func(s Stmt) {
				l, ok := s.(*Leaf)
				if !ok {
					return
				}
				if strings.HasPrefix(l.Kind, "b16x.") {
					kinds["b16x"]++
					return
				}
				if !strings.HasPrefix(l.Kind, "partial.") {
					return
				}
				kinds[l.Kind]++
				// The guarded definition is the first guarded line.
				def := -1
				var m []string
				for i, line := range l.Lines {
					if m = guardRe.FindStringSubmatch(line); m != nil {
						def = i
						break
					}
				}
				if def < 0 {
					t.Fatalf("seed %d %s: no guarded definition in %q", seed, l.Kind, l.Lines)
				}
				neg, pred, tmp := m[1] == "!", m[2], m[3]
				rest := strings.Join(l.Lines[def+1:], "\n")
				if !regexp.MustCompile(regexp.QuoteMeta(tmp) + `\b[^\d]`).MatchString(rest + "\n") {
					t.Fatalf("seed %d %s: %s is never read after %q:\n%s", seed, l.Kind, tmp, l.Lines[def], rest)
				}
				if strings.HasPrefix(l.Kind, "partial.selp.") && !strings.HasSuffix(l.Kind, ".pred") {
					last := l.Lines[len(l.Lines)-1]
					ops := strings.Split(strings.TrimSuffix(last[strings.Index(last, " ")+1:], ";"), ", ")
					want := 1 // selp d, a, b, p: a where p holds
					if neg {
						want = 2
					}
					if len(ops) != 4 || ops[want] != tmp || ops[3] != pred {
						t.Fatalf("seed %d %s: %q does not take %s where %s guard holds", seed, l.Kind, last, tmp, m[0][:len(m[1])+len(pred)+1])
					}
				}
			})
		}
	}
	for _, read := range []string{"selp", "guarded", "complement"} {
		for _, c := range []string{"b16", "b32", "b64", "f32", "pred"} {
			if k := "partial." + read + "." + c; kinds[k] == 0 {
				t.Errorf("no %s statement in 200 programs", k)
			}
		}
	}
	if kinds["b16x"] == 0 {
		t.Error("no b16x statement in 200 programs")
	}
}

// TestPartialsKeepTheSeedsProgram checks that the statements of
// gen_partial.go are only added: with them deleted, a program is the one
// the generator makes with partial definitions avoided minus its b16x
// statements, which is the program of the seed before they existed
// (register declarations aside, which count the added temporaries).
func TestPartialsKeepTheSeedsProgram(t *testing.T) {
	strip := func(p *Program, prefixes ...string) (string, int) {
		n := 0
		for _, f := range append(append([]*Func(nil), p.Funcs...), p.Kernel) {
			for _, l := range stmtLists(&f.Body) {
				var keep []Stmt
				for _, s := range *l {
					drop := false
					for _, pre := range prefixes {
						drop = drop || strings.HasPrefix(s.kind(), pre)
					}
					if drop {
						n++
						continue
					}
					keep = append(keep, s)
				}
				*l = keep
			}
		}
		return regexp.MustCompile(`(?m)^\t\.reg .*\n`).ReplaceAllString(p.PTX(), ""), n
	}
	added := 0
	for seed := uint64(1); seed <= 20; seed++ {
		// The mma statements come after these (gen_mma.go) and are
		// stripped from both.
		got, n := strip(Generate(seed), "partial.", "b16x.", "mma.")
		want, _ := strip(GenerateWith(seed, Options{Avoid: []string{"partial-definitions"}}), "b16x.", "mma.")
		if got != want {
			t.Fatalf("seed %d: deleting the partial and b16x statements does not give the program without them:\n%s\nwant\n%s", seed, got, want)
		}
		added += n
	}
	if added == 0 {
		t.Fatal("no partial or b16x statements in 20 programs")
	}
}
