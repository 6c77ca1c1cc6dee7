package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/internal/testenv"
)

// TestTextureSASSMatchesPtxas compiles the texture kernels (ZLUDA's 24
// tex_read kernels and testdata/kernels/tex_forms) for sm_80
// with orilab and with ptxas 13.0 and compares their texture
// instructions: mnemonic with modifiers, operand count, RZ positions, and
// every non-register operand (bank, header word, dimension, query, mask).
// Register numbers differ between the allocators and are left out;
// the order is ignored (the schedulers differ). ptxas narrows the result
// mask to the components a program reads; the kernels here read all four
// (txq reads one, which both spell with its mask). tex_func is left out:
// ptxas clones its .func into each kernel, with each kernel's header
// words, where orilab uses one module-wide word (lower/tex.go).
func TestTextureSASSMatchesPtxas(t *testing.T) {
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	zdir := filepath.Join(testenv.Shared(t), "corpus", "ZLUDA", "zluda", "src", "impl", "test_ptx")
	files, _ := filepath.Glob(filepath.Join(zdir, "tex_read_*.ptx"))
	files = append(files, filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "tex_forms.ptx"))
	if len(files) != 25 {
		t.Fatalf("found %d texture kernels, want 25", len(files))
	}
	dir := t.TempDir()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cubin := filepath.Join(dir, filepath.Base(f)+".cubin")
		if out, err := exec.Command(ptxas, "-arch", "sm_80", "-o", cubin, f).CombinedOutput(); err != nil {
			t.Fatalf("ptxas %s: %v\n%s", f, err, out)
		}
		out, err := exec.Command(cuobjdump, "-sass", cubin).CombinedOutput()
		if err != nil {
			t.Fatalf("cuobjdump %s: %v\n%s", f, err, out)
		}
		want := texShapes(string(out))
		sess, err := NewSession(f, src, Options{Arch: 80}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err == nil {
			err = sess.RunAll()
		}
		if err != nil {
			t.Fatalf("orilab %s: %v", f, err)
		}
		got := texShapes(sess.Backend().SASS)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: texture instructions differ\norilab:\n\t%s\nptxas:\n\t%s", filepath.Base(f), strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
}

var (
	texLine = regexp.MustCompile(`\b((?:TEX|TLD|TLD4|TXQ)(?:\.[A-Z0-9_]+)*) ([^;]*);`)
	texReg  = regexp.MustCompile(`\bR[0-9]+\b`)
)

// texShapes returns the texture instructions of a SASS listing with
// register numbers replaced by R, sorted.
func texShapes(sass string) []string {
	var out []string
	for _, m := range texLine.FindAllStringSubmatch(sass, -1) {
		out = append(out, m[1]+" "+texReg.ReplaceAllString(strings.TrimSpace(m[2]), "R"))
	}
	sort.Strings(out)
	return out
}
