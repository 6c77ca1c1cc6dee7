package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
)

// parallelOutput is everything a compilation hands to its front doors:
// the SASS text, the cubin (or why there is none), the -v usage with the
// allocator's counts, and the final IR.
func parallelOutput(t *testing.T, s *Session) string {
	t.Helper()
	b := s.Backend()
	if b == nil {
		t.Fatal("no back-end record")
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "SASS:\n%s\nencode error: %v\ncubin: %x\n", b.SASS, b.EncodeErr, b.Cubin)
	var names []string
	for n := range b.RAStats {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&out, "regalloc %s: %+v\n", n, *b.RAStats[n])
	}
	m := s.Module()
	if err := sass.Resources(&out, m.Arch, sass.GlobalBytes(m), sass.ModuleUsage(m, m.Arch)); err != nil {
		t.Fatal(err)
	}
	out.WriteString(m.String())
	return out.String()
}

// TestParallelSameOutput compiles modules with several kernels and
// functions one function at a time (Jobs 1) and split by call-graph
// component on several goroutines, and requires the same bytes: SASS,
// cubin, -v lines, allocation statistics and the final IR, both as a
// release compilation and with the verifiers (which keep and merge the
// pre-allocation copy). Run under -race it also finds state the
// components share by accident.
func TestParallelSameOutput(t *testing.T) {
	shared := testenv.Shared(t)
	sdk := filepath.Join(shared, "corpus/gpuocelot/tests/ptx/sdk2.2")
	// split is how many components the parallel compilation runs (0: the
	// module is one, and nothing splits).
	files := []struct {
		name  string
		split int
	}{
		{"../testdata/opt/loop_unroll.ptx", 5},
		{"../testdata/kernels/tex_func.ptx", 0},     // two kernels calling the same .funcs
		{filepath.Join(sdk, "transposeNew.ptx"), 8}, // module-level .shared arrays
		{filepath.Join(sdk, "dct8x8.ptx"), 14},      // 8 kernels, .funcs (some called by no kernel)
		// f64 divisions in several kernels: their component makes the
		// shared slow-path subroutines (OutlineF64SlowPath).
		{filepath.Join(sdk, "MonteCarlo_SM13.ptx"), 6},
	}
	for _, tc := range files {
		file := tc.name
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, release := range []bool{true, false} {
			var outs [2]string
			var split [2]int
			for i, jobs := range []int{1, 4} {
				s, err := NewSession(file, src, Options{Arch: 80}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Release: release, Jobs: jobs})
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				if err := s.RunAll(); err != nil {
					t.Fatalf("%s (jobs %d, release %v): %v", file, jobs, release, err)
				}
				outs[i], split[i] = parallelOutput(t, s), s.splitInto
			}
			name := filepath.Base(file)
			if split[0] != 0 || split[1] != tc.split {
				t.Errorf("%s: split into %d components with Jobs 1 and %d with Jobs 4; want 0 and %d", name, split[0], split[1], tc.split)
			}
			if outs[0] != outs[1] {
				t.Errorf("%s (release %v): the parallel compilation differs from the serial one\n%s", name, release, firstDiff(outs[0], outs[1]))
			}
		}
	}
}

// firstDiff shows where two outputs part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("serial:   ...%q\nparallel: ...%q", a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}

// TestParallelErrorIsSerial: a phase that fails in a split compilation
// gives the serial compilation's error, word for word. A register limit
// of 2 makes the allocator refuse every kernel; serially the first
// kernel's refusal is the error, and the split must not report another
// kernel's (whichever goroutine failed first).
func TestParallelErrorIsSerial(t *testing.T) {
	file := "../testdata/opt/loop_unroll.ptx"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var msgs [2]string
	for i, jobs := range []int{1, 4} {
		s, err := NewSession(file, src, Options{Arch: 80}, PhaseOptions{OptLevel: 3, NoSnapshots: true, Release: true, MaxRegCount: 2, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		err = s.RunAll()
		if err == nil {
			t.Fatalf("jobs %d: compiled with 2 registers", jobs)
		}
		msgs[i] = err.Error()
	}
	if msgs[0] != msgs[1] {
		t.Errorf("the split compilation's error differs from the serial one's:\nserial:   %s\nparallel: %s", msgs[0], msgs[1])
	}
}

// TestComponents groups functions by the call graph: kernels that call
// nothing stand alone, a kernel goes with what it calls, and an indirect
// call takes every .func along.
func TestComponents(t *testing.T) {
	fn := func(kind, name, body string) string {
		return kind + " " + name + "\n.shared 0x0\n.local 0x0\n{\nBB0:\n" + body + "}\n\n"
	}
	m, err := ori.ParseModule("m.ori", []byte(".module sm_80 address_size=64\n\n"+
		fn(".entry", "a", "\t#1 EXIT ;\n")+
		fn(".func", "f", "\t#1 RET ;\n")+
		fn(".entry", "b", "\t#1 CALL.REL.NOINC `f` ;\n\t#2 EXIT ;\n")+
		fn(".entry", "c", "\t#1 EXIT ;\n")+
		fn(".func", "g", "\t#1 RET ;\n")+
		fn(".entry", "d", "\t#1 EXIT ;\n")))
	if err != nil {
		t.Fatal(err)
	}
	show := func(cs [][]*ori.Func) string {
		got := ""
		for _, c := range cs {
			got += "["
			for i, f := range c {
				if i > 0 {
					got += " "
				}
				got += f.Name
			}
			got += "]"
		}
		return got
	}
	if got, want := show(components(m)), "[a][f b][c][g][d]"; got != want {
		t.Errorf("components = %s, want %s", got, want)
	}
	// An indirect call in d: f and g could be its targets.
	d := m.Func("d")
	call := &ori.Inst{Op: ori.OpCALL, Srcs: []ori.Operand{ori.R(ori.VReg(ori.ClassR, 0, 2))}}
	d.Blocks[0].Insts = append([]*ori.Inst{call}, d.Blocks[0].Insts...)
	if got, want := show(components(m)), "[a][f b g d][c]"; got != want {
		t.Errorf("with an indirect call in d: components = %s, want %s", got, want)
	}
	// DDIVs in a and c: one component makes their shared slow path.
	for _, name := range []string{"a", "c"} {
		f := m.Func(name)
		div := &ori.Inst{Op: ori.OpDDIV, Dsts: []ori.Operand{ori.R(ori.VReg(ori.ClassR, 1, 2))}, Srcs: []ori.Operand{ori.R(ori.VReg(ori.ClassR, 2, 2)), ori.R(ori.VReg(ori.ClassR, 3, 2))}}
		f.Blocks[0].Insts = append([]*ori.Inst{div}, f.Blocks[0].Insts...)
	}
	if got, want := show(components(m)), "[a c][f b g d]"; got != want {
		t.Errorf("with DDIVs in a and c: components = %s, want %s", got, want)
	}
}
