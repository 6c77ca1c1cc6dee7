package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// runCLI runs the command line in-process and returns its exit code and
// outputs.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const header = ".version 7.0\n.target sm_80\n.address_size 64\n"

// kernelSrc puts body lines into a kernel with %r0..%r3, %rd0..%rd3 and
// %p0..%p1 declared; body lines start at line 8.
func kernelSrc(body ...string) string {
	return header +
		".visible .entry k(.param .u64 k_param_0)\n{\n" +
		"\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n" +
		strings.Join(body, "\n") + "\n\tret;\n}\n"
}

func TestCompileParseOnlyValid(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "ok.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	code, out, errs := runCLI(t, "compile", "--parse-only", p)
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and no output", code, out, errs)
	}
}

// TestCompileParseOnlyErrors pins the exact stderr of `orilab compile
// --parse-only` for each kind of front-end error.
func TestCompileParseOnlyErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown instruction", kernelSrc("\tfrob.b32 %r1;"),
			"bad.ptx:8:2: error: unknown instruction 'frob'\n\tfrob.b32 %r1;\n\t^\n"},
		{"undeclared register", kernelSrc("\tmov.u32 %r1, %r7;"),
			"bad.ptx:8:15: error: use of undeclared register '%r7'\n\tmov.u32 %r1, %r7;\n\t             ^\n"},
		{"undeclared label", kernelSrc("\tbra.uni DONE;"),
			"bad.ptx:8:10: error: use of undeclared label 'DONE'\n\tbra.uni DONE;\n\t        ^\n"},
		{"undeclared parameter", kernelSrc("\tld.param.u32 %r1, [k_param_1];"),
			"bad.ptx:8:21: error: use of undeclared parameter 'k_param_1'\n\tld.param.u32 %r1, [k_param_1];\n\t                   ^\n"},
		{"wrong operand count", kernelSrc("\tmad.lo.s32 %r1, %r2, %r3;"),
			"bad.ptx:8:2: error: wrong number of operands for mad.lo.s32: got 3, want 4\n\tmad.lo.s32 %r1, %r2, %r3;\n\t^\n"},
		{"wrong operand kind", kernelSrc("\tst.global.u32 %r1, %r2;"),
			"bad.ptx:8:16: error: operand 1 of st.global.u32 must be a memory address [...], found register %r1\n\tst.global.u32 %r1, %r2;\n\t              ^\n"},
		{"duplicate declaration", kernelSrc("\t.reg .b32 %r<2>;"),
			"bad.ptx:8:12: error: duplicate declaration of %r<2> (first declared at 6:12)\n\t.reg .b32 %r<2>;\n\t          ^\n"},
		{"instruction too new for target", strings.Replace(kernelSrc("\tredux.sync.min.u32 %r1, %r2, -1;"), "sm_80", "sm_75", 1),
			"bad.ptx:8:2: error: redux requires sm_80 or higher, but the module targets sm_75\n\tredux.sync.min.u32 %r1, %r2, -1;\n\t^\n"},
		{"syntax: missing semicolon", kernelSrc("\tmov.u32 %r1, 1", "\tmov.u32 %r2, 2;"),
			"bad.ptx:9:2: error: expected ',' or ';' after operand 2 of mov, found identifier 'mov'\n\tmov.u32 %r2, 2;\n\t^\n"},
		{"unterminated string", header + ".pragma \"nounroll;\n",
			"bad.ptx:4:9: error: unterminated string literal\n.pragma \"nounroll;\n        ^\n"},
		{"bad .address_size", ".version 7.0\n.target sm_80\n.address_size 48\n",
			"bad.ptx:3:1: error: .address_size must be 32 or 64, found '48'\n.address_size 48\n^\n"},
		{"guard not a predicate", kernelSrc("\t@%r1 ret;"),
			"bad.ptx:8:2: error: guard %r1 is not a predicate register\n\t@%r1 ret;\n\t^\n"},
		{"unknown type", header + ".global .u33 x;\n",
			"bad.ptx:4:9: error: unknown type or modifier '.u33' in .global declaration\n.global .u33 x;\n        ^\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "bad.ptx", c.src)
			wd, _ := os.Getwd()
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
			defer os.Chdir(wd)
			code, out, errs := runCLI(t, "compile", "--parse-only", filepath.Base(p))
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if errs != c.want {
				t.Errorf("stderr mismatch\n got:\n%s\nwant:\n%s", errs, c.want)
			}
		})
	}
}

func TestCompileEmitPTXWritesAtomically(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x; // comment dropped"))
	outPath := filepath.Join(dir, "out.ptx")
	if err := os.WriteFile(outPath, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A failing compile must leave the previous output alone.
	bad := writeFile(t, dir, "bad.ptx", kernelSrc("\tfrob;"))
	if code, _, _ := runCLI(t, "compile", "--emit", "ptx", "-o", outPath, bad); code != 2 {
		t.Fatalf("bad input: exit %d, want 2", code)
	}
	if b, _ := os.ReadFile(outPath); string(b) != "previous" {
		t.Fatalf("failed compile changed the output file to %q", b)
	}
	if code, _, errs := runCLI(t, "compile", "--emit", "ptx", "-o", outPath, p); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(outPath)
	if !strings.Contains(string(b), "\tmov.u32 %r1, %tid.x;\n") || strings.Contains(string(b), "comment") {
		t.Fatalf("unexpected output:\n%s", b)
	}
}

// TestUnavailableCommands checks every command that has not been built
// yet: it must say so in one line and exit 2. Every command is built now,
// so the test adds one that is not, to keep the path exercised.
func TestUnavailableCommands(t *testing.T) {
	saved := commands
	commands = append(append([]command(nil), commands...), command{name: "encode", usage: "orilab encode FILE.ptx", summary: "write a cubin", missing: "SASS encoding has not been built"})
	defer func() { commands = saved }()
	for _, c := range commands {
		if c.run != nil {
			continue
		}
		name := c.name
		code, out, errs := runCLI(t, name)
		if code != 2 || out != "" {
			t.Errorf("%s: exit %d stdout %q, want 2 and nothing", name, code, out)
		}
		if !strings.HasPrefix(errs, "orilab "+name+": not available yet: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: stderr %q, want one 'not available yet' line", name, errs)
		}
	}
}

// TestCompileSASS checks the default output (SASS text with control
// words) and the -v resource lines of a trivial kernel, exactly.
func TestCompileSASS(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "ok.ptx", kernelSrc())
	code, out, errs := runCLI(t, "compile", "-v", p)
	if code != 0 || !strings.Contains(out, "        /*0000*/                   MOV R1, c[0x0][0x28] ;") || !strings.Contains(out, "        /*0010*/                   EXIT ;") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	want := "ptxas info    : 0 bytes gmem\n" +
		"ptxas info    : Compiling entry function 'k' for 'sm_80'\n" +
		"ptxas info    : Function properties for k\n" +
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
		"ptxas info    : Used 4 registers, used 0 barriers, 360 bytes cmem[0]\n"
	if errs != want {
		t.Errorf("-v:\n%s\nwant\n%s", errs, want)
	}
	code, _, errs = runCLI(t, "compile", "--maxrregcount", "-1", p)
	if code != 2 || errs != "orilab compile: --maxrregcount -1: want 1 to 255 (0 for no limit)\n" {
		t.Errorf("--maxrregcount -1: exit %d, stderr %q", code, errs)
	}
	// Without the allocator there are no physical registers: no SASS.
	p2 := writeFile(t, dir, "reg.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	code, _, errs = runCLI(t, "compile", "-knob", "NamedPhases=OriSanitize", p2)
	if code != 2 || !strings.HasPrefix(errs, "orilab compile: no SASS: ") {
		t.Errorf("NamedPhases without allocation: exit %d, stderr %q", code, errs)
	}
}

// TestMaxRegCountSpills compiles a kernel written to need about 36
// registers with --maxrregcount 24, 26 and 28 (below 24 the front door
// raises the limit to 24, as ptxas does): it must stay within the
// limit, the spill byte counts -v prints must equal the bytes of the STL
// and LDL instructions in the SASS, and the kernel must still pass.
func TestMaxRegCountSpills(t *testing.T) {
	src := filepath.Join("..", "..", "pipeline", "regalloc", "testdata", "pressure.ptx")
	spec := filepath.Join("..", "..", "pipeline", "regalloc", "testdata", "pressure.json")
	sizeOf := func(line string) int64 {
		switch {
		case strings.Contains(line, ".128 "):
			return 16
		case strings.Contains(line, ".64 "):
			return 8
		}
		return 4
	}
	for _, n := range []string{"24", "26", "28"} {
		code, out, errs := runCLI(t, "compile", "-O", "3", "--maxrregcount", n, "-v", src)
		if code != 0 {
			t.Fatalf("--maxrregcount %s: exit %d, stderr %q", n, code, errs)
		}
		var st, ld int64
		for _, l := range strings.Split(out, "\n") {
			switch {
			case strings.Contains(l, " STL"):
				st += sizeOf(l)
			case strings.Contains(l, " LDL"):
				ld += sizeOf(l)
			}
		}
		if st == 0 || ld == 0 {
			t.Errorf("--maxrregcount %s: no spill code in the SASS", n)
		}
		want := fmt.Sprintf("bytes stack frame, %d bytes spill stores, %d bytes spill loads\n", st, ld)
		if !strings.Contains(errs, want) || !strings.Contains(errs, "ptxas info    : Used "+n+" registers,") {
			t.Errorf("--maxrregcount %s: -v says\n%s\nwant spill bytes %q and %s registers", n, errs, want, n)
		}
		if code, out, errs := runCLI(t, "run", spec, "-O", "3", "--maxrregcount", n); code != 0 {
			t.Errorf("run --maxrregcount %s: exit %d\n%s%s", n, code, out, errs)
		}
	}
}

func TestCompileKnobsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	// DUMPIR writes the statistics header and the IR after the phase.
	code, out, errs := runCLI(t, "compile", "-knob", "DUMPIR=OriSanitize", p)
	if code != 0 || !strings.Contains(out, "// DUMPIR after OriSanitize\n# ") || !strings.Contains(out, "[inst=") {
		t.Fatalf("DUMPIR: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	// DisablePhases: a misspelled phase is an error with a suggestion.
	code, _, errs = runCLI(t, "compile", "--emit", "ir", "-knob", "DisablePhases=OriBrnchOpt", p)
	if code != 2 || errs != "orilab compile: DisablePhases: unknown phase \"OriBrnchOpt\" (did you mean \"OriBranchOpt\"?)\n" {
		t.Fatalf("DisablePhases typo: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "compile", "--emit", "ir", "-knob", "DisablePhases=OriBranchOpt+GvnCse", p)
	if code != 0 {
		t.Fatalf("DisablePhases: exit %d, stderr %q", code, errs)
	}
	// NamedPhases runs only the named phases: the phase-wise statistics
	// list exactly those that ran.
	code, _, errs = runCLI(t, "compile", "--emit", "ir", "--stat=phase-wise", "-knob", "NamedPhases=AnalyzeControlFlow,OriSanitize", p)
	if code != 0 || !strings.Contains(errs, "  AnalyzeControlFlow  ::  [Total ") || !strings.Contains(errs, "  OriSanitize  ::  [Total ") || strings.Contains(errs, "OriCheckInitialProgram") {
		t.Fatalf("NamedPhases: exit %d, stderr:\n%s", code, errs)
	}
	// An unknown knob is an error naming its source, with a suggestion.
	code, _, errs = runCLI(t, "compile", "--emit", "ir", "-knob", "DUMPIRR=OriSanitize", p)
	if code != 2 || !strings.Contains(errs, `unknown knob "DUMPIRR" (did you mean "DUMPIR"?)`) || !strings.Contains(errs, "-knob") {
		t.Fatalf("unknown knob: exit %d, stderr %q", code, errs)
	}
	// A knobs file.
	kf := writeFile(t, dir, "knobs.txt", "comment\n[knobs]\nDUMPIR=AnalyzeControlFlow\n")
	code, out, errs = runCLI(t, "compile", "-knobs-file", kf, p)
	if code != 0 || !strings.Contains(out, "// DUMPIR after AnalyzeControlFlow") {
		t.Fatalf("knobs file: exit %d, stderr %q", code, errs)
	}
	// --trace writes Chrome trace JSON.
	tr := filepath.Join(dir, "trace.json")
	if code, _, errs = runCLI(t, "compile", "--emit", "ir", "-o", filepath.Join(dir, "out.ori"), "--trace", tr, p); code != 0 {
		t.Fatalf("trace: exit %d, stderr %q", code, errs)
	}
	b, _ := os.ReadFile(tr)
	if !strings.HasPrefix(string(b), `{"displayTimeUnit":"ms","traceEvents":[{"name":"OriCheckInitialProgram"`) {
		t.Fatalf("trace file starts %.80q", b)
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	code, _, errs := runCLI(t, "compil")
	if code != 2 || !strings.Contains(errs, `unknown command "compil" (did you mean "compile"?)`) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestHelpListsCommands(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range commands {
		if !strings.Contains(out, "  "+c.name+" ") {
			t.Errorf("help does not list %s", c.name)
		}
	}
	// Asked for, a command's help goes to stdout, as orilab --help's does.
	for _, c := range commands {
		if c.run == nil {
			continue
		}
		code, out, errs := runCLI(t, c.name, "--help")
		if code != 0 || !strings.Contains(out, "usage: orilab "+c.name) || errs != "" {
			t.Errorf("%s --help: exit %d, stdout %.60q, stderr %.60q", c.name, code, out, errs)
		}
	}
	code, out, errs := runCLI(t, "help", "nosuch")
	if code != 2 || out != "" || errs != "orilab help: unknown command \"nosuch\"\nRun 'orilab help' for the list of commands.\n" {
		t.Errorf("help nosuch: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// An unknown flag gets one line and a pointer to --help, not the usage.
func TestUnknownFlagIsShort(t *testing.T) {
	code, out, errs := runCLI(t, "compile", "--nosuch", "x.ptx")
	want := "flag provided but not defined: -nosuch\nRun 'orilab compile --help' for usage.\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
}

func TestCompileMissingFile(t *testing.T) {
	code, _, errs := runCLI(t, "compile", "--parse-only", "/nonexistent/x.ptx")
	if code != 2 || errs != "orilab compile: open /nonexistent/x.ptx: no such file or directory\n" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestKnobsCommand(t *testing.T) {
	code, out, _ := runCLI(t, "knobs", "dump")
	if code != 0 || !strings.Contains(out, "DUMPIR  string") || !strings.Contains(out, "DumpKnobs  bool") || strings.Contains(out, "DisablePhases") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, _, errs := runCLI(t, "knobs", "nosuchknob")
	if code != 1 || errs != "orilab knobs: no knob matches \"nosuchknob\"\n" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestPhasesCommand(t *testing.T) {
	code, out, _ := runCLI(t, "phases", "-O", "0")
	if code != 0 || !strings.Contains(out, " 14  DoSwitchOptFirst") || !strings.Contains(out, "no-op: O-level gate: runs at -O1 and above (this is -O0)") || !strings.Contains(out, "159 phases run at -O0") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestPhasesAgreeWithTable reads `orilab phases -O 0` line by line and
// checks every row against pipeline.PhaseTable, with the O-level gate
// evaluated here from the row's own OLevel: a row runs exactly when it has
// code and its gate admits -O0, and otherwise the command prints the row's
// NoOp reason (or the gate's).
func TestPhasesAgreeWithTable(t *testing.T) {
	code, out, _ := runCLI(t, "phases", "-O", "0")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := strings.Split(out, "\n")
	admitsO0 := map[string]bool{"": true, "== 0": true}
	runs := 0
	for i, row := range pipeline.PhaseTable {
		if i >= len(lines) {
			t.Fatalf("only %d lines", len(lines))
		}
		f := strings.Fields(lines[i])
		if len(f) < 4 || f[0] != strconv.Itoa(i) || f[1] != row.Name || f[2] != row.Category {
			t.Errorf("line %d %q: want %d %s %s", i, lines[i], i, row.Name, row.Category)
			continue
		}
		state := strings.Join(f[3:], " ")
		switch {
		case row.Fn.Run != nil && admitsO0[row.OLevel]:
			runs++
			if state != "runs" {
				t.Errorf("%d %s: has code and its gate %q admits -O0, but the command says %q", i, row.Name, row.OLevel, state)
			}
		case !admitsO0[row.OLevel]:
			if !strings.HasPrefix(state, "no-op: O-level gate: runs at -O") {
				t.Errorf("%d %s: gate %q excludes -O0, but the command says %q", i, row.Name, row.OLevel, state)
			}
		default:
			if state != "no-op: "+row.NoOp {
				t.Errorf("%d %s: the command says %q, the row's reason is %q", i, row.Name, state, row.NoOp)
			}
		}
	}
	if want := fmt.Sprintf("%d of 159 phases run at -O0 on sm_75.", runs); !strings.Contains(out, want) {
		t.Errorf("summary: want %q in\n%s", want, out)
	}
}

func TestBisectCommand(t *testing.T) {
	spec := filepath.Join("..", "..", "testdata", "kernels", "iadd.json")
	code, out, errs := runCLI(t, "bisect", spec, "--mode", "phase")
	if code != 1 || !strings.Contains(out+errs, "no culprit: the kernel passes at -O3") {
		t.Fatalf("passing kernel: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runCLI(t, "bisect", spec, "--mode", "sites")
	if code != 1 || !strings.Contains(out, "no culprit: the kernel passes at -O3") {
		t.Fatalf("sites on a passing kernel: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCLI(t, "bisect", spec, "--mode", "phase", "--phase", "OriSanitize")
	if code != 2 || errs != "orilab bisect: --phase belongs to --mode sites, not --mode phase\n" {
		t.Fatalf("--phase with phase mode: exit %d, stderr %q", code, errs)
	}
	code, out, errs = runCLI(t, "bisect", spec, "--mode", "knobs", "--good", "DisablePhases=OriBranchOpt", "--bad", "")
	if code != 1 || out != "iadd: no knob difference: the kernel passes with the bad knob settings too: nothing to bisect (2 executions)\n" {
		t.Fatalf("knobs on a passing kernel: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCLI(t, "bisect", spec, "--mode", "knobs", "--good", "", "--bad", "DisablePhase=x")
	if code != 2 || errs != "orilab bisect: --bad: -knob DisablePhase=x: unknown knob \"DisablePhase\" (did you mean \"DisablePhases\"?)\n" {
		t.Fatalf("knobs with a misspelled knob: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "bisect", spec, "--mode", "phasee")
	if code != 2 {
		t.Fatalf("unknown mode: exit %d, stderr %q", code, errs)
	}
}

// TestBisectSitesPlanted plants a miscompile at the third rewrite site of
// a phase (an address IADD3 that adds 4 more) and checks that auto mode names
// the phase, the rewrite and the instruction, and that the reproduce line
// is the BisectSites knob.
func TestBisectSitesPlanted(t *testing.T) {
	spec := filepath.Join("..", "..", "testdata", "kernels", "iadd.json")
	var target int32
	restore := pipeline.SetPhaseOverrideForTest("OriSanitize", func(c *pipeline.PhaseContext) error {
		n := 0
		for _, f := range c.Module.Funcs {
			for _, b := range f.Blocks {
				for _, in := range b.Insts {
					if in.Op != ori.OpIADD3 || len(in.Mods) != 0 || len(in.Srcs) != 3 {
						continue
					}
					n++
					if c.Allow(f, in.ID, "planted: IADD3 adds 4") && n == 2 {
						target = in.ID
						in.Srcs[2] = ori.Imm(4)
					}
				}
			}
		}
		return nil
	})
	defer restore()
	code, out, errs := runCLI(t, "bisect", spec, "--mode", "auto")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		"iadd: culprit phase ",
		"culprit rewrite 2 of ",
		fmt.Sprintf("in OriSanitize: planted: IADD3 adds 4, instruction #%d of iadd", target),
		"it breaks the kernel by itself",
		"reproduce: -knob BisectSites=OriSanitize:2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// -arch below sm_75 is refused, as ptxas 13 refuses it, not raised.
func TestArchBelowTuringRefused(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "ok.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;"))
	code, out, errs := runCLI(t, "compile", "-arch", "sm_12", p)
	want := "orilab compile: -arch sm_12: orilab targets sm_75 and later (ptxas 13 has dropped older targets too)\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
}

// TestTuneGC checks that orilab compile raises the collector's target and
// that other commands, or an explicit GOGC, leave it alone.
func TestTuneGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	for _, c := range []struct {
		args []string
		gogc string
		want int
	}{
		{[]string{"compile", "k.ptx"}, "", compileGCPercent},
		{[]string{"compile", "k.ptx"}, "100", 100},
		{[]string{"fuzz"}, "", 100},
		{nil, "", 100},
	} {
		debug.SetGCPercent(100)
		tuneGC(c.args, c.gogc)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("tuneGC(%q, GOGC=%q): GC percent %d, want %d", c.args, c.gogc, got, c.want)
		}
	}
}
