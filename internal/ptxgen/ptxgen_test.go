package ptxgen

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"orilab/pipeline/ptx"
	"orilab/pipeline/spec"
)

// compiles checks that the front end (parser and semantic checks)
// accepts a program: the generator's promise to emit only valid PTX that
// orilab reads. Whether the lowering and the phases handle it is what
// package difftest checks (a lowering that fails is a bad-program
// failure there, tolerated only while a saved finding marks it open).
func compiles(t *testing.T, p *Program) {
	t.Helper()
	src := p.PTX()
	if _, err := ptx.Parse("gen.ptx", []byte(src)); err != nil {
		t.Fatalf("seed %d: the front end rejects the program: %v\n%s", p.Seed, err, src)
	}
}

func TestSameSeedSameProgram(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 77, 1 << 40} {
		a, b := Generate(seed), Generate(seed)
		if a.PTX() != b.PTX() {
			t.Fatalf("seed %d: two generations differ", seed)
		}
		if !bytes.Equal(a.SpecJSON("x", "x.ptx", nil), b.SpecJSON("x", "x.ptx", nil)) {
			t.Fatalf("seed %d: two specs differ", seed)
		}
	}
	if Generate(1).PTX() == Generate(2).PTX() {
		t.Fatal("seeds 1 and 2 give the same program")
	}
}

// TestPinnedProgram pins a few facts of one seed's program, so a change
// to the generator that changes what a seed means is noticed (saved
// findings name seeds).
func TestPinnedProgram(t *testing.T) {
	p := Generate(1)
	src := p.PTX()
	if !strings.HasPrefix(src, "// orilab ptxgen seed 1\n.version 8.0\n.target sm_") {
		t.Fatalf("header:\n%s", src[:80])
	}
	if p.Kernel.Name != "fuzz" || p.Params[0].Name != "out" {
		t.Fatalf("kernel %s, first parameter %s", p.Kernel.Name, p.Params[0].Name)
	}
}

func TestProgramsCompile(t *testing.T) {
	n := 150
	if testing.Short() {
		// Seeds 1-58 are the first run with every family (the mma
		// statements' own random stream moved "continue" past seed 30).
		n = 60
	}
	kinds := map[string]bool{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		p := Generate(seed)
		compiles(t, p)
		for k := range p.Kinds() {
			kinds[strings.SplitN(k, ".", 2)[0]] = true
		}
	}
	// Every family shows up somewhere in the batch.
	for _, f := range []string{"int", "bits", "int64", "carry", "f32", "f64", "approx", "b16", "f16", "cmp", "mem",
		"local", "atomic", "shared", "warp", "call", "pred", "if", "loop", "switch", "lanesplit", "break", "continue"} {
		if !kinds[f] {
			t.Errorf("no %s statement in %d programs", f, n)
		}
	}
}

// TestLaunchInvariants checks what the collectives and the exchange rely
// on: whole warps when the program has collectives, and an out buffer of
// the same number of words per thread.
func TestLaunchInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		p := Generate(seed)
		l := p.Launch
		if (p.Profile.w("warp") > 0 || p.Profile.w("lanesplit") > 0) && l.Threads()%32 != 0 {
			t.Errorf("seed %d: collectives with %d threads per CTA", seed, l.Threads())
		}
		if p.Params[0].Count%(l.Threads()*l.CTAs()) != 0 {
			t.Errorf("seed %d: out has %d words for %d threads", seed, p.Params[0].Count, l.Threads()*l.CTAs())
		}
		if p.Profile.w("exit") > 0 && !p.kernelMayExit() && strings.Contains(p.Kernel.String(), "exit;") {
			t.Errorf("seed %d: an early exit in a kernel with barriers or collectives", seed)
		}
	}
}

func TestSpecJSONMatchesSpec(t *testing.T) {
	dir := t.TempDir()
	for _, seed := range []uint64{3, 4, 5} {
		p := Generate(seed)
		if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(p.PTX()), 0o644); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 4*p.Params[0].Count)
		out[0] = 7
		if err := os.WriteFile(filepath.Join(dir, "k.out.hex"), HexValues(out, 4), 0o644); err != nil {
			t.Fatal(err)
		}
		js := p.SpecJSON("k", "k.ptx", []Expectation{{Param: "out", Elem: "u32", File: "k.out.hex"}})
		if err := os.WriteFile(filepath.Join(dir, "k.json"), js, 0o644); err != nil {
			t.Fatal(err)
		}
		loaded, err := spec.Load(filepath.Join(dir, "k.json"))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, js)
		}
		mem := p.Spec("k", loaded.PTXPath)
		if !reflect.DeepEqual(loaded.Params, mem.Params) || loaded.Launch != mem.Launch || loaded.Kernel != mem.Kernel {
			t.Fatalf("seed %d: the JSON spec and the in-memory spec differ:\n%+v\n%+v", seed, loaded.Params, mem.Params)
		}
		if len(loaded.Expect) != 1 || loaded.Expect[0].Values[0] != 7 || len(loaded.Expect[0].Values) != p.Params[0].Count {
			t.Fatalf("seed %d: expectation %+v", seed, loaded.Expect)
		}
	}
}

func TestHexValues(t *testing.T) {
	got := string(HexValues([]byte{1, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff}, 4))
	if got != "0x80000001\n0xffffffff\n" {
		t.Fatalf("got %q", got)
	}
	if got := string(HexValues([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 8)); got != "0x0807060504030201\n" {
		t.Fatalf("got %q", got)
	}
}

// TestDeletionKeepsPrograms deletes statements one at a time, everywhere,
// and checks every result still compiles: the property Shrink relies on.
func TestDeletionKeepsPrograms(t *testing.T) {
	for _, seed := range []uint64{11, 12, 13} {
		p := Generate(seed)
		n := p.countStmts()
		if n == 0 {
			t.Fatalf("seed %d: no statements", seed)
		}
		for i := 0; i < n; i += 1 + n/15 {
			q := p.clone()
			q.deleteNth(i)
			if q.countStmts() >= n {
				t.Fatalf("seed %d: deleting statement %d left %d of %d", seed, i, q.countStmts(), n)
			}
			compiles(t, q)
		}
		if p.countStmts() != n {
			t.Fatalf("seed %d: deleting from a clone changed the original", seed)
		}
		// Every state variable defined as zero, as Shrink may do.
		q := p.clone()
		for _, f := range append(append([]*Func(nil), q.Funcs...), q.Kernel) {
			for k, in := range f.Inits {
				f.Inits[k] = &Init{Var: in.Var, Class: in.Class, Lines: []string{in.ZeroLine()}}
			}
		}
		compiles(t, q)
	}
}

func TestShrink(t *testing.T) {
	// Find a program with a shuffle and shrink it to just that.
	var p *Program
	for seed := uint64(1); p == nil; seed++ {
		if q := Generate(seed); q.Kinds()["warp.shfl.bfly"] > 0 && q.Launch.CTAs() > 1 {
			p = q
		}
	}
	keep := func(q *Program) bool { return q.Kinds()["warp.shfl.bfly"] > 0 }
	q, tests := Shrink(p, keep, 1000)
	if tests == 0 || !keep(q) {
		t.Fatalf("shrink: %d tests, kinds %v", tests, q.Kinds())
	}
	if q.Launch.CTAs() != 1 || q.Launch.Threads() != 32 {
		t.Errorf("launch not shrunk: %+v", q.Launch)
	}
	if n := q.countStmts(); n > 3 {
		t.Errorf("%d statements left, want the shuffle and at most its enclosing statements:\n%s", n, q.PTX())
	}
	if len(q.Funcs) != 0 {
		t.Errorf("%d device functions left", len(q.Funcs))
	}
	if out := q.Params[0].Count; out != p.Params[0].Count/(p.Launch.Threads()*p.Launch.CTAs())*32 {
		t.Errorf("out resized to %d words", out)
	}
	compiles(t, q)
	// The budget is respected.
	if _, tests := Shrink(p, func(*Program) bool { return true }, 5); tests != 5 {
		t.Errorf("budget 5: %d tests", tests)
	}
}

// TestSwitchForms: across seeds both switch forms occur, the branch table
// (brx.idx) and nvcc's cascade of setp.eq + bra (one compare per arm).
func TestSwitchForms(t *testing.T) {
	kinds := map[string]int{}
	cascadeSeen := false
	for seed := uint64(1); seed <= 100; seed++ {
		p := Generate(seed)
		for k, n := range p.Kinds() {
			if strings.HasPrefix(k, "switch.") {
				kinds[k] += n
			}
		}
		src := p.PTX()
		if strings.Contains(src, "setp.eq.u32") && strings.Contains(src, ", 4;\n") {
			cascadeSeen = true
		}
	}
	var table, cascade int
	for k, n := range kinds {
		if strings.HasSuffix(k, ".cascade") {
			cascade += n
		} else {
			table += n
		}
	}
	if table == 0 || cascade == 0 || !cascadeSeen {
		t.Errorf("switch kinds over 100 seeds: %v (a cascade's compares in the PTX: %v)", kinds, cascadeSeen)
	}
}
