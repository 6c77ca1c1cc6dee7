package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"orilab/pipeline"
)

// countRematEarly replaces OriDoRematEarly's transformation with a
// counter. The row's gate stays: the phase runs only when the knob
// RematEarlyEnable is 1 (ptxas's default is 0), so the counter says
// whether a front door compiled with the knob.
func countRematEarly(t *testing.T) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	restore := pipeline.SetPhaseOverrideForTest("OriDoRematEarly", func(*pipeline.PhaseContext) error {
		n.Add(1)
		return nil
	})
	t.Cleanup(restore)
	return &n
}

// knobSource is one way to give RematEarlyEnable=1 to a front door: it
// returns the extra arguments and the spec (or PTX file) to use.
type knobSource struct {
	name string
	set  func(t *testing.T, dir string) (args []string, specPath, ptxPath string)
}

// iaddCopy copies testdata/kernels/iadd.{json,ptx} into dir, with
// pragma (if any) as a module-scope .pragma line.
func iaddCopy(t *testing.T, dir, pragma string) (specPath, ptxPath string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kernels", "iadd.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if pragma != "" {
		text = strings.Replace(text, ".address_size 64\n", ".address_size 64\n.pragma \""+pragma+"\";\n", 1)
		if !strings.Contains(text, ".pragma") {
			t.Fatal("iadd.ptx has no .address_size 64 line to put the .pragma after")
		}
	}
	others, err := filepath.Glob(filepath.Join("..", "..", "testdata", "kernels", "iadd.*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range others { // the spec and its hex files
		if strings.HasSuffix(o, ".ptx") {
			continue
		}
		b, err := os.ReadFile(o)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, filepath.Base(o), string(b))
	}
	return filepath.Join(dir, "iadd.json"), writeFile(t, dir, "iadd.ptx", text)
}

var knobSources = []knobSource{
	{"-knob", func(t *testing.T, dir string) ([]string, string, string) {
		s, p := iaddCopy(t, dir, "")
		return []string{"-knob", "RematEarlyEnable=1"}, s, p
	}},
	{"-knobs-file", func(t *testing.T, dir string) ([]string, string, string) {
		s, p := iaddCopy(t, dir, "")
		f := writeFile(t, dir, "knobs.txt", "[knobs]\nRematEarlyEnable=1\n")
		return []string{"-knobs-file", f}, s, p
	}},
	{"ORILAB_KNOBS", func(t *testing.T, dir string) ([]string, string, string) {
		t.Setenv("ORILAB_KNOBS", "RematEarlyEnable=1")
		s, p := iaddCopy(t, dir, "")
		return nil, s, p
	}},
	{".pragma", func(t *testing.T, dir string) ([]string, string, string) {
		s, p := iaddCopy(t, dir, "RematEarlyEnable=1")
		return nil, s, p
	}},
}

// frontDoors are the subcommands that compile, each as a command line on
// a spec or PTX file, with the exit codes it may end with on iadd (which
// passes: bisect and reduce find nothing to do, exit 1, after compiling).
var frontDoors = []struct {
	name  string
	args  func(specPath, ptxPath string) []string
	codes []int
}{
	{"compile", func(_, p string) []string { return []string{"compile", "-O", "3", p} }, []int{0}},
	{"run", func(s, _ string) []string { return []string{"run", s} }, []int{0}},
	{"bisect", func(s, _ string) []string { return []string{"bisect", s, "--mode", "phase"} }, []int{1}},
	{"reduce", func(s, _ string) []string { return []string{"reduce", s} }, []int{1}},
	{"inject", func(s, _ string) []string {
		return []string{"inject", s, "--bugspec", "1,0,0,0 0 0", "--seed", "7"}
	}, []int{0}},
}

// TestEveryFrontDoorTakesEveryKnobSource gives RematEarlyEnable=1 to each
// front door by -knob, by a knobs file, by ORILAB_KNOBS and by a .pragma
// in the PTX, and checks that OriDoRematEarly ran in what it compiled;
// without the knob it must not run.
func TestEveryFrontDoorTakesEveryKnobSource(t *testing.T) {
	n := countRematEarly(t)
	for _, fd := range frontDoors {
		t.Run(fd.name+"/none", func(t *testing.T) {
			s, p := iaddCopy(t, t.TempDir(), "")
			n.Store(0)
			code, _, errs := runCLI(t, fd.args(s, p)...)
			if !codeIn(code, fd.codes) || n.Load() != 0 {
				t.Fatalf("without the knob: exit %d, OriDoRematEarly ran %d times; stderr %q", code, n.Load(), errs)
			}
		})
		for _, src := range knobSources {
			t.Run(fd.name+"/"+src.name, func(t *testing.T) {
				extra, s, p := src.set(t, t.TempDir())
				n.Store(0)
				code, _, errs := runCLI(t, append(fd.args(s, p), extra...)...)
				if !codeIn(code, fd.codes) || n.Load() == 0 {
					t.Fatalf("RematEarlyEnable=1 by %s: exit %d, OriDoRematEarly ran %d times; stderr %q", src.name, code, n.Load(), errs)
				}
			})
		}
	}
}

// TestFuzzTakesKnobSources does the same for orilab fuzz, whose programs
// are generated (so they carry no .pragma of the user's).
func TestFuzzTakesKnobSources(t *testing.T) {
	n := countRematEarly(t)
	fuzz := []string{"fuzz", "--seed", "5", "--count", "1", "-O", "3", "--findings", "", "--no-reduce"}
	code, _, errs := runCLI(t, fuzz...)
	if code != 0 || n.Load() != 0 {
		t.Fatalf("without the knob: exit %d, OriDoRematEarly ran %d times; stderr %q", code, n.Load(), errs)
	}
	for _, src := range knobSources[:3] {
		t.Run(src.name, func(t *testing.T) {
			extra, _, _ := src.set(t, t.TempDir())
			n.Store(0)
			code, _, errs := runCLI(t, append(append([]string(nil), fuzz...), extra...)...)
			if code != 0 || n.Load() == 0 {
				t.Fatalf("RematEarlyEnable=1 by %s: exit %d, OriDoRematEarly ran %d times; stderr %q", src.name, code, n.Load(), errs)
			}
		})
	}
}

// TestTUIRequestFromFlags checks that orilab tui's flags reach the
// workbench: the knobs of every source end up in the compilation it
// shows (tui's own tests compile it).
func TestTUIRequestFromFlags(t *testing.T) {
	n := countRematEarly(t)
	for _, src := range knobSources {
		t.Run(src.name, func(t *testing.T) {
			extra, _, p := src.set(t, t.TempDir())
			fs := newFlagSetForTest()
			rf := addRequestFlags(fs, false, false)
			if _, err := parseArgs(fs, extra); err != nil {
				t.Fatal(err)
			}
			req, ok := rf.request("tui", os.Stderr)
			if !ok {
				t.Fatal("bad flags")
			}
			w, cleanup, err := openWorkbench([]string{p}, req)
			defer cleanup()
			if err != nil {
				t.Fatal(err)
			}
			r, err := w.Request()
			if err != nil {
				t.Fatal(err)
			}
			n.Store(0)
			sess, err := r.Start(w.PTX, pipeline.SessionControl{})
			if err != nil {
				t.Fatal(err)
			}
			if err := sess.RunAll(); err != nil || n.Load() == 0 {
				t.Fatalf("RematEarlyEnable=1 by %s: %v, OriDoRematEarly ran %d times", src.name, err, n.Load())
			}
		})
	}
}

func codeIn(c int, codes []int) bool {
	for _, x := range codes {
		if c == x {
			return true
		}
	}
	return false
}

func newFlagSetForTest() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// TestPhasesTakesKnobSources: orilab phases evaluates each row's gate
// under the knobs given, by -knob, a knobs file or ORILAB_KNOBS.
func TestPhasesTakesKnobSources(t *testing.T) {
	row := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " OriDoRematEarly ") {
				return strings.Join(strings.Fields(l)[3:], " ")
			}
		}
		return "(no row)"
	}
	_, out, _ := runCLI(t, "phases")
	if got := row(out); got != "no-op: switched off by the knob RematEarlyEnable=0 (set it to 1 to run this position)" {
		t.Fatalf("default: %q", got)
	}
	for _, src := range knobSources[:3] {
		extra, _, _ := src.set(t, t.TempDir())
		code, out, errs := runCLI(t, append([]string{"phases"}, extra...)...)
		if got := row(out); code != 0 || got != "runs" {
			t.Errorf("RematEarlyEnable=1 by %s: exit %d, row %q, stderr %q", src.name, code, got, errs)
		}
	}
	_, out, _ = runCLI(t, "phases", "-knob", "DisablePhases=OriBranchOpt")
	if !strings.Contains(out, " 15  OriBranchOpt                         Optimization no-op: disabled by the DisablePhases knob\n") {
		t.Errorf("DisablePhases:\n%s", out)
	}
}
