package lower

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/lower")

// lowerFile parses, checks and lowers one PTX file, then verifies every
// function and checks the Ori text round trip.
func lowerFile(t *testing.T, name string, src []byte) *ori.Module {
	t.Helper()
	pm, err := ptx.Parse(name, src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	m, err := Lower(pm, Options{})
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	for _, f := range m.Funcs {
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			t.Fatalf("verify %s:\n%v\n%s", f.Name, err, f)
		}
	}
	text := m.String()
	m2, err := ori.ParseModule(name+".ori", []byte(text))
	if err != nil {
		t.Fatalf("Ori text does not parse back: %v\n%s", err, text)
	}
	if text2 := m2.String(); text2 != text {
		t.Fatalf("Ori text round trip is not a fixed point:\n%s\n----\n%s", text, text2)
	}
	return m
}

// TestGolden lowers every testdata/lower/*.ptx and compares with the .ori
// file beside it. Run with -update to rewrite the goldens.
func TestGolden(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "lower")
	files, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata/lower")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ptx")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m := lowerFile(t, filepath.Base(f), src)
			got := m.String()
			golden := strings.TrimSuffix(f, ".ptx") + ".ori"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./pipeline/lower -run TestGolden -update)", err)
			}
			if got != string(want) {
				t.Fatalf("lowering of %s changed (run with -update if intended):\n%s", filepath.Base(f), firstDiff(string(want), got))
			}
		})
	}
}

func firstDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\nwant: " + x + "\n got: " + y
		}
	}
	return "(equal)"
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// zludaExceptions lists the ZLUDA kernels the lowering does not handle,
// with the reason. Everything else in the ZLUDA corpus must lower and
// verify.
var zludaExceptions = map[string]string{}

func TestZLUDACorpusLowers(t *testing.T) {
	root := filepath.Join(testenv.Shared(t), "corpus", "ZLUDA")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ptx") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	lowered := 0
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := ptx.Parse(rel, src)
		if err != nil {
			continue // invalid corpus files are pinned by the ptx package's tests
		}
		t.Run(rel, func(t *testing.T) {
			reason, excepted := zludaExceptions[rel]
			m, err := Lower(pm, Options{})
			if excepted {
				if err == nil {
					t.Fatalf("listed as an exception (%s) but lowers now; remove it from zludaExceptions", reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v", err)
			}
			for _, f := range m.Funcs {
				if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
					t.Fatalf("verify %s:\n%v\n%s", f.Name, err, f)
				}
			}
			text := m.String()
			m2, err := ori.ParseModule(rel+".ori", []byte(text))
			if err != nil {
				t.Fatalf("Ori text does not parse back: %v", err)
			}
			if m2.String() != text {
				t.Fatalf("Ori text round trip is not a fixed point")
			}
			lowered++
		})
	}
	t.Logf("%d ZLUDA files lowered", lowered)
}

// TestClangKernelsLower compiles testdata/cuda with clang-19 and lowers
// and verifies every result.
func TestClangKernelsLower(t *testing.T) {
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		if os.Getenv("ORILAB_REQUIRE_CLANG") != "" {
			t.Fatal("clang-19 not found but ORILAB_REQUIRE_CLANG is set")
		}
		t.Skip("clang-19 not found: install clang-19 (apt-get install clang-19 llvm-19); .ci/run installs it")
	}
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "cuda")
	cus, _ := filepath.Glob(filepath.Join(dir, "*.cu"))
	out := t.TempDir()
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	type job struct{ name, ptx string }
	var mu sync.Mutex
	var jobs []job
	var errs []string
	for _, cu := range cus {
		for _, arch := range []string{"sm_75", "sm_80", "sm_90"} {
			for _, opt := range []string{"-O0", "-O3"} {
				base := strings.TrimSuffix(filepath.Base(cu), ".cu")
				name := base + "." + arch + opt
				dst := filepath.Join(out, name+".ptx")
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
						"--cuda-gpu-arch="+arch, opt, "-I", dir, "-S", cu, "-o", dst)
					msg, err := cmd.CombinedOutput()
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, name+": "+string(msg))
						return
					}
					jobs = append(jobs, job{name, dst})
				}()
			}
		}
	}
	wg.Wait()
	for _, e := range errs {
		t.Error(e)
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].name < jobs[j].name })
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			src, err := os.ReadFile(j.ptx)
			if err != nil {
				t.Fatal(err)
			}
			lowerFile(t, j.name+".ptx", src)
		})
	}
}

// TestNoUnrollPragmaMarksTheHeader: .pragma "nounroll" at the top of a
// loop sets NoUnroll on the block it stands in, the header, and on no
// other; the text form shows it.
func TestNoUnrollPragmaMarksTheHeader(t *testing.T) {
	m := lowerFile(t, "nounroll.ptx", []byte(`.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .pred %p<2>;
	mov.u32 %r1, 0;
$L_loop:
	.pragma "nounroll";
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 4;
	@%p1 bra $L_loop;
	ret;
}
`))
	f := m.Funcs[0]
	var marked []string
	for _, b := range f.Blocks {
		if b.NoUnroll {
			marked = append(marked, b.Label)
		}
	}
	if len(marked) != 1 || marked[0] != "$L_loop" {
		t.Fatalf("NoUnroll on %v, want [$L_loop]", marked)
	}
	if !strings.Contains(f.String(), "<$L_loop> [nounroll]:") {
		t.Errorf("the text form does not show the flag:\n%s", f)
	}
}

// TestMemoryOrderModifiers: volatile and ordered global and generic
// accesses carry STRONG and their scope, which keeps the optimizer from
// hoisting or merging them; weak ones carry nothing.
func TestMemoryOrderModifiers(t *testing.T) {
	m := lowerFile(t, "order.ptx", []byte(`.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 flag, .param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [flag];
	ld.param.u64 %rd2, [out];
	ld.volatile.global.u32 %r1, [%rd1];
	ld.relaxed.gpu.global.u32 %r2, [%rd1+4];
	ld.acquire.sys.u32 %r3, [%rd1+8];
	ld.global.u32 %r5, [%rd1+12];
	st.volatile.global.u32 [%rd2], %r1;
	st.release.cta.global.u32 [%rd2+4], %r2;
	st.global.u32 [%rd2+8], %r3;
	st.u32 [%rd2+12], %r5;
	ret;
}
`))
	text := m.Funcs[0].String()
	for _, want := range []string{"LDG.E.STRONG.SYS %r", "LDG.E.STRONG.GPU %r", "LD.E.STRONG.SYS %r", "LDG.E %r", "STG.E.STRONG.SYS [", "STG.E.STRONG.SM [", "STG.E [", "ST.E ["} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}

// TestTargetNewerThanArch: like ptxas, a module whose .target is newer than
// the compilation target is refused at its .target; an older .target is
// compiled for the newer architecture.
func TestTargetNewerThanArch(t *testing.T) {
	src := []byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n")
	pm, err := ptx.Parse("k.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lower(pm, Options{Arch: 80})
	want := "k.ptx:2:1: error: the module's .target sm_90 is newer than the compilation target sm_80 (ptxas: SM version specified by .target is higher than default SM version assumed)\n.target sm_90\n^"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	m, err := Lower(pm, Options{Arch: 90})
	if err != nil || m.Arch != 90 {
		t.Errorf("sm_90 module at sm_90: %v", err)
	}
	m, err = Lower(pm, Options{Arch: 100})
	if err != nil || m.Arch != 100 {
		t.Errorf("sm_90 module at sm_100: %v", err)
	}
}
