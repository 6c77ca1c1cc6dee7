package pipeline

import (
	"fmt"
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
// tex_read kernels, testdata/kernels/tex_forms, tex_mask and surf_forms) for sm_80
// (and all but tex_forms for sm_90)
// with orilab and with ptxas 13.0 and compares their texture
// instructions: mnemonic with modifiers, operand count, RZ positions, and
// every non-register operand (bank, header word, dimension, query, mask).
// Register numbers differ between the allocators and are left out;
// the order is ignored (the schedulers differ). Both narrow the result
// mask to the components a program reads (opt/texmask.go): tex_mask reads
// one, two, three and four of them; txq reads one, which both spell with
// its mask. tex_func is left out:
// ptxas clones its .func into each kernel, with each kernel's header
// words, where orilab uses one module-wide word (lower/tex.go).
func TestTextureSASSMatchesPtxas(t *testing.T) {
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	zdir := filepath.Join(testenv.Shared(t), "corpus", "ZLUDA", "zluda", "src", "impl", "test_ptx")
	files, _ := filepath.Glob(filepath.Join(zdir, "tex_read_*.ptx"))
	files = append(files, filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "tex_forms.ptx"),
		filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "tex_mask.ptx"),
		filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "surf_forms.ptx"))
	if len(files) != 27 {
		t.Fatalf("found %d texture kernels, want 27", len(files))
	}
	dir := t.TempDir()
	// Every kernel for sm_80, every third for sm_90 (a 1D, 2D and 3D
	// of each kind among them), to stay within the test budget; -short
	// keeps every third for sm_80 too.
	for _, arch := range []int{80, 90} {
		for i, f := range files {
			forms := strings.Contains(f, "_forms") || strings.Contains(f, "tex_mask") // testdata, always compared
			if (arch == 90 || testing.Short()) && i%3 != 0 && !forms {
				continue
			}
			if arch == 90 && strings.Contains(f, "tex_forms") {
				continue // its bindless fetches are unsupported on sm_90
			}
			texCompareSASS(t, ptxas, cuobjdump, dir, f, arch)
		}
	}
}

// texCompareSASS compares the texture instructions of one file for
// sm_<arch>.
func texCompareSASS(t *testing.T, ptxas, cuobjdump, dir, f string, arch int) {
	t.Helper()
	{
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cubin := filepath.Join(dir, fmt.Sprintf("%s.%d.cubin", filepath.Base(f), arch))
		if out, err := exec.Command(ptxas, "-arch", fmt.Sprintf("sm_%d", arch), "-o", cubin, f).CombinedOutput(); err != nil {
			t.Fatalf("ptxas %s: %v\n%s", f, err, out)
		}
		out, err := exec.Command(cuobjdump, "-sass", cubin).CombinedOutput()
		if err != nil {
			t.Fatalf("cuobjdump %s: %v\n%s", f, err, out)
		}
		want := texShapes(string(out))
		sess, err := NewSession(f, src, Options{Arch: arch}, PhaseOptions{OptLevel: 3, NoSnapshots: true})
		if err == nil {
			err = sess.RunAll()
		}
		if err != nil {
			t.Fatalf("orilab %s: %v", f, err)
		}
		got := texShapes(sess.Backend().SASS)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s sm_%d: texture instructions differ\norilab:\n\t%s\nptxas:\n\t%s", filepath.Base(f), arch, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
}

var (
	texLine = regexp.MustCompile(`\b((?:TEX|TLD|TLD4|TXQ|SULD|SUST)(?:\.[A-Z0-9_]+)*) ([^;]*);`)
	texReg  = regexp.MustCompile(`\b(U?R)[0-9]+\b`)
)

// texShapes returns the texture instructions of a SASS listing with
// register numbers replaced by R (UR), sorted.
func texShapes(sass string) []string {
	var out []string
	for _, m := range texLine.FindAllStringSubmatch(sass, -1) {
		out = append(out, m[1]+" "+texReg.ReplaceAllString(strings.TrimSpace(m[2]), "$1"))
	}
	sort.Strings(out)
	return out
}
