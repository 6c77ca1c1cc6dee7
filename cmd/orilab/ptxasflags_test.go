package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPtxasFlags checks each ptxas option orilab compile takes: honoured
// (the output says so) or refused with its reason, exactly.
func TestPtxasFlags(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc("\tmov.u32 %r1, %tid.x;", "\tbar.sync 1;"))
	_, base, _ := runCLI(t, "compile", p)
	cases := []struct {
		name string
		args []string
		code int
		// errs is the exact stderr; same says stdout is the default SASS.
		errs string
		same bool
	}{
		{"version", []string{"--version"}, 0, "", false},
		// At -O0 the barrier stays (at -O3 OriRemoveRedundantBarriers
		// deletes it: nothing in the kernel touches memory).
		{"verbose", []string{"--verbose", "-O0", p}, 0, "ptxas info    : 0 bytes gmem\n" +
			"ptxas info    : Compiling entry function 'k' for 'sm_80'\n" +
			"ptxas info    : Function properties for k\n" +
			"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
			"ptxas info    : Used 4 registers, used 2 barriers, 360 bytes cmem[0]\n", false},
		{"c", []string{"-c", p}, 0, "", true},
		{"lineinfo", []string{"-lineinfo", p}, 0, "", true},
		{"m64", []string{"-m64", p}, 0, "", true},
		{"m32", []string{"-m32", p}, 2, "orilab compile: --machine 32: only 64-bit addresses exist (ptxas 13: \"Value '32' is not defined for option 'machine'\")\n", false},
		{"fmad false", []string{"--fmad=false", p}, 0, "", true},
		{"fmad bogus", []string{"--fmad", "bogus", p}, 2, "orilab compile: --fmad \"bogus\": expected true or false\n", false},
		{"def-load-cache ca", []string{"--def-load-cache=ca", p}, 0, "", true},
		{"def-load-cache cg", []string{"--def-load-cache", "cg", p}, 2, "orilab compile: --def-load-cache cg: orilab lowers every load with the default cache operator (ca); it does not model cg\n", false},
		{"def-load-cache xx", []string{"--def-load-cache=xx", p}, 2, "orilab compile: --def-load-cache \"xx\": want ca, cg, cs, lu or cv\n", false},
		{"expensive", []string{"--allow-expensive-optimizations=false", p}, 0, "", true},
		{"compute arch", []string{"-arch=compute_80", p}, 0, "", true},
		{"g with O3", []string{"-g", "-O3", p}, 2, "orilab compile: -g with -O3: optimized debugging is not supported (as in ptxas); leave -O out or use -O0\n", false},
		{"maxrregcount 300", []string{"--maxrregcount", "300", p}, 0, "orilab compile: warning: --maxrregcount 300 is above the 255 registers a thread has; ignored (as ptxas does)\n", true},
		{"maxrregcount 300 Werror", []string{"--maxrregcount", "300", "-Werror", p}, 2, "orilab compile: error: --maxrregcount 300 is above the 255 registers a thread has; ignored (as ptxas does) (-Werror)\n", false},
		{"maxrregcount 2 Werror", []string{"-Werror", "--maxrregcount=2", p}, 2, "orilab compile: error: adjusting --maxrregcount 2 to the lower bound of 24 registers per thread (as ptxas does) (-Werror)\n", false},
		{"warn-on-spills, none", []string{"--warn-on-spills", "-Werror", p}, 0, "", true},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, append([]string{"compile"}, c.args...)...)
		if code != c.code || errs != c.errs {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.name, code, errs, c.code, c.errs)
		}
		if c.same && out != base {
			t.Errorf("%s: the SASS differs from the default's:\n%s", c.name, out)
		}
	}
	// --version prints the release it models.
	if _, out, _ := runCLI(t, "compile", "--version"); !strings.Contains(out, "V13.0.88") {
		t.Errorf("--version: %q", out)
	}
	// --output-file is -o.
	o := filepath.Join(dir, "k.sass")
	if code, _, errs := runCLI(t, "compile", "--output-file", o, p); code != 0 {
		t.Fatalf("--output-file: exit %d, %s", code, errs)
	}
	if b, err := os.ReadFile(o); err != nil || string(b) != base {
		t.Errorf("--output-file wrote %q (%v)", b, err)
	}
	// -g compiles at -O0, as -O0 does.
	_, g, _ := runCLI(t, "compile", "-g", p)
	_, o0, _ := runCLI(t, "compile", "-O0", p)
	if g != o0 {
		t.Errorf("-g:\n%s\nwant the -O0 SASS:\n%s", g, o0)
	}
}

// TestWarnOnSpills forces spills and checks --warn-on-spills' line, and
// that -Werror turns it into an error.
func TestWarnOnSpills(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "pipeline", "regalloc", "testdata", "pressure.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := writeFile(t, dir, "pressure.ptx", string(src))
	code, _, errs := runCLI(t, "compile", "--maxrregcount", "24", "--warn-on-spills", p)
	if code != 0 || !strings.HasPrefix(errs, "orilab compile: warning: registers are spilled to local memory in function 'pressure', ") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "compile", "--maxrregcount", "24", "--warn-on-spills", "-Werror", p)
	if code != 2 || !strings.HasPrefix(errs, "orilab compile: error: registers are spilled to local memory in function 'pressure', ") {
		t.Errorf("-Werror: exit %d, stderr %q", code, errs)
	}
}

// TestFmadFlag: by default a mul.f32 feeding an add.f32 becomes one FFMA
// (as ptxas --fmad=true); --fmad=false keeps FMUL and FADD, and an
// explicit -knob FMAContraction=1 after it wins.
func TestFmadFlag(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "k.ptx", kernelSrc(
		"\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<2>;",
		"\tld.param.u64 %rd1, [k_param_0];",
		"\tld.global.f32 %f1, [%rd1];",
		"\tld.global.f32 %f2, [%rd1+4];",
		"\tmul.f32 %f3, %f1, %f2;",
		"\tadd.f32 %f0, %f3, %f1;",
		"\tst.global.f32 [%rd1], %f0;"))
	for _, c := range []struct {
		args      []string
		has, lack string
	}{
		{nil, "FFMA", "FMUL"},
		{[]string{"--fmad=true"}, "FFMA", "FMUL"},
		{[]string{"--fmad=false"}, "FMUL", "FFMA"},
		{[]string{"--fmad=false", "-O0"}, "FADD", "FFMA"},
		{[]string{"--fmad=false", "-knob", "FMAContraction=1"}, "FFMA", "FMUL"},
	} {
		code, out, errs := runCLI(t, append(append([]string{"compile"}, c.args...), p)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		if !strings.Contains(out, c.has) || strings.Contains(out, c.lack) {
			t.Errorf("%v: want %s and no %s in\n%s", c.args, c.has, c.lack, out)
		}
	}
}
