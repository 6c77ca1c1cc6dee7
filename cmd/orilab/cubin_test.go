package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
)

// TestCompileCubin: -o FILE.cubin writes an ELF for the CUDA machine
// (EM_CUDA 190, sm_80 in e_flags), --output-format cubin does the same
// for any file name, --emit sass keeps the text even for .cubin, and
// the conflicting or impossible requests are errors.
func TestCompileCubin(t *testing.T) {
	dir := t.TempDir()
	ptx := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "iadd.ptx")
	isCubin := func(p string) bool {
		b, err := os.ReadFile(p)
		return err == nil && len(b) > 64 && bytes.HasPrefix(b, []byte("\x7fELF")) && b[18] == 190 && b[49] == 80
	}
	k := filepath.Join(dir, "k.cubin")
	if code, out, errs := runCLI(t, "compile", "-arch", "sm_80", "-o", k, ptx); code != 0 || out != "" || errs != "" || !isCubin(k) {
		t.Fatalf("-o k.cubin: exit %d, stdout %q, stderr %q, cubin %v", code, out, errs, isCubin(k))
	}
	bin := filepath.Join(dir, "k.bin")
	if code, _, errs := runCLI(t, "compile", "-arch", "sm_80", "--output-format", "cubin", "-o", bin, ptx); code != 0 || !isCubin(bin) {
		t.Fatalf("--output-format cubin: exit %d, stderr %q", code, errs)
	}
	txt := filepath.Join(dir, "t.cubin")
	if code, _, errs := runCLI(t, "compile", "-arch", "sm_80", "--emit", "sass", "-o", txt, ptx); code != 0 {
		t.Fatalf("--emit sass -o t.cubin: exit %d, stderr %q", code, errs)
	}
	if b, _ := os.ReadFile(txt); !strings.Contains(string(b), "LDG.E") {
		t.Errorf("--emit sass -o t.cubin did not write SASS text:\n%s", b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--output-format", "cubin", ptx}, "orilab compile: a cubin is binary: write it to a file with -o FILE\n"},
		{[]string{"--output-format", "elf", "-o", k, ptx}, "orilab compile: --output-format \"elf\": want cubin, sass, ir, lowered or ptx\n"},
		{[]string{"--emit", "ir", "--output-format", "cubin", "-o", k, ptx}, "orilab compile: --emit ir and --output-format cubin disagree: give one\n"},
		{[]string{"-arch", "sm_100", "-o", k, ptx}, "orilab compile: no cubin: the encoding phases did not run for sm_100 (orilab encodes sm_75, sm_80, sm_86, sm_89 and sm_90 after register allocation; see orilab phases)\n"},
	} {
		code, _, errs := runCLI(t, append([]string{"compile"}, c.args...)...)
		if code != 2 || errs != c.want {
			t.Errorf("compile %v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestCompileCubinRefused: an instruction the encoder has no word for
// (a 64-bit shared atomic minimum, which ptxas writes as a
// compare-and-swap loop) is the error, naming it; no file is written.
// Calls, direct (returning through RET.REL.NODEC) and through a function
// pointer (CALL.REL.NOINC Ra, the pointer an offset from the kernel's
// start), get their cubins.
func TestCompileCubinRefused(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "t.ptx", header+`.visible .entry k(.param .u64 out)
{
	.reg .u64 %rd<4>;
	.shared .align 8 .b64 s;
	ld.param.u64 %rd1, [out];
	ld.global.u64 %rd2, [%rd1];
	atom.shared.min.s64 %rd3, [s], %rd2;
	st.global.u64 [%rd1], %rd3;
	ret;
}
`)
	out := filepath.Join(dir, "t.cubin")
	code, _, errs := runCLI(t, "compile", "-arch", "sm_80", "-o", out, p)
	if want := "orilab compile: no cubin: sass: k BB0 #4 ATOMS.MIN.S64: no word: ptxas writes a 64-bit shared MIN as a compare-and-swap loop (ATOMS.CAST.SPIN.64), which orilab's lowering does not yet\n"; code != 2 || errs != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a cubin was written")
	}
	indirect := writeFile(t, dir, "f.ptx", header+`.func (.reg .u32 r) one()
{
	mov.u32 r, 1;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .u32 %r<2>;
	.reg .u64 %rd<3>;
	mov.u64 %rd2, one;
	{
	proto: .callprototype (.reg .u32 _) _ ();
	call (%r1), %rd2, (), proto;
	}
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r1;
	ret;
}
`)
	out = filepath.Join(dir, "f.cubin")
	if code, _, errs := runCLI(t, "compile", "-arch", "sm_80", "-o", out, indirect); code != 0 {
		t.Errorf("an indirect call: exit %d, stderr %q", code, errs)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("an indirect call: no cubin written (%v)", err)
	}
	direct := writeFile(t, dir, "g.ptx", header+`.func (.reg .u32 r) one()
{
	mov.u32 r, 1;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .u32 %r<2>;
	.reg .u64 %rd<2>;
	call (%r1), one, ();
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r1;
	ret;
}
`)
	out = filepath.Join(dir, "g.cubin")
	if code, _, errs := runCLI(t, "compile", "-arch", "sm_80", "-o", out, direct); code != 0 {
		t.Errorf("a direct call: exit %d, stderr %q", code, errs)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("a direct call: no cubin written (%v)", err)
	}
}

// TestGPURunWithoutDriver: without libcuda the command says so and
// exits 2 (ORILAB_LIBCUDA points at a file that does not exist, so the
// test means the same on a machine with a GPU).
func TestGPURunWithoutDriver(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	t.Setenv("ORILAB_LIBCUDA", lib)
	s := filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "iadd.json")
	code, out, errs := runCLI(t, "gpu", "run", s)
	want := "orilab gpu run: no CUDA driver: cannot open " + lib + ": " + lib + ": cannot open shared object file: No such file or directory\n" +
		"(gpu run needs an NVIDIA GPU and its driver; orilab run executes the spec in the simulator)\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
	if code, _, errs := runCLI(t, "gpu", "launch", s); code != 2 || !strings.HasPrefix(errs, "usage: orilab gpu run") {
		t.Errorf("gpu launch: exit %d, stderr %q", code, errs)
	}
}
