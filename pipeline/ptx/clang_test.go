package ptx

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// clangCUDADir holds the real-compiler test kernels, relative to this
// package's directory (go test runs in the package directory).
const clangCUDADir = "../../testdata/cuda"

var (
	clangArches = []string{"sm_75", "sm_80", "sm_90"}
	clangOpts   = []string{"O0", "O3"}
)

// clangKernelSpec lists the structural facts asserted about every PTX module
// compiled from one testdata/cuda/NAME.cu, whatever the arch and -O level.
type clangKernelSpec struct {
	// entries is the exact set of .entry names the module must define.
	entries []string
	// funcs lists non-entry functions that must be defined (with a body).
	// When it is empty the module must contain no non-entry functions at all:
	// every helper is expected to be inlined (at -O0 too, as they are
	// __forceinline__).
	funcs []string
}

// clangKernelSpecs covers every .cu in testdata/cuda. A file not listed here
// is still compiled and round-tripped, and must define an entry named after
// the file.
var clangKernelSpecs = map[string]clangKernelSpec{
	"atomics_cas": {
		entries: []string{"atomics_cas", "atomics_cas_lastblock"},
		// Plain (extern) __device__ functions: inlined into the kernel but
		// still emitted as .visible .func.
		funcs: []string{"_Z14atomicMaxFloatPff", "_Z15atomicAddDoublePdd"},
	},
	"bitops": {entries: []string{"bitops"}},
	"device_call": {
		entries: []string{"device_call", "device_call_indirect"},
		funcs: []string{
			"_Z4polyfPKfi",        // returns .b32, pointer param
			"_Z4dot34Vec3S_",      // aggregate params (.param .align 4 .b8 p[12])
			"_Z10store_pairPfiff", // void
			"_Z6splitsj",          // recursive
			"_Z10clamp_unitf",     // forward-declared before its caller
			"_Z9op_squaref",       // targets of the indirect call
			"_Z7op_halff",
			"_Z6op_negf",
		},
	},
	"globals_local":   {entries: []string{"globals_local", "globals_local_reset"}},
	"half_precision":  {entries: []string{"half_precision", "half_precision_dot"}},
	"histogram":       {entries: []string{"histogram", "histogram_global"}},
	"index64":         {entries: []string{"index64", "index64_2d", "index64_divmod"}},
	"inline_asm":      {entries: []string{"inline_asm"}},
	"matmul_tiled":    {entries: []string{"matmul_tiled"}},
	"predicated_loop": {entries: []string{"predicated_loop", "predicated_loop_int", "predicated_loop_switch"}},
	"reduce_shared":   {entries: []string{"reduce_shared", "reduce_shared_dyn"}},
	"saxpy_fp":        {entries: []string{"saxpy_fp", "saxpy_fp_math", "saxpy_fp_double"}},
	"scan":            {entries: []string{"scan", "scan_inclusive"}},
	"transpose":       {entries: []string{"transpose"}},
	"vecadd":          {entries: []string{"vecadd", "vecadd4"}},
	"warp_reduce":     {entries: []string{"warp_reduce", "warp_reduce_vote"}},
}

// TestClangKernels compiles every testdata/cuda/*.cu with clang-19 for several
// targets and optimization levels, and checks that the parser accepts the
// real compiler output, that printing is a fixed point of parse+print, and
// that the expected kernels and device functions are there.
func TestClangKernels(t *testing.T) {
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		if os.Getenv("ORILAB_REQUIRE_CLANG") != "" {
			// .ci/run sets this: in CI a missing clang is a failure, not a skip.
			t.Fatal("clang-19 not found but ORILAB_REQUIRE_CLANG is set")
		}
		t.Skip("clang-19 not found: install clang-19 (apt-get install clang-19 llvm-19) to run the real-compiler tests; .ci/run installs it")
	}
	cudaDir, err := filepath.Abs(clangCUDADir)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := filepath.Glob(filepath.Join(cudaDir, "*.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		t.Fatalf("no .cu files in %s", cudaDir)
	}

	// clang is slow; at most one compile per CPU at a time.
	sem := make(chan struct{}, runtime.NumCPU())

	for _, src := range sources {
		kernel := strings.TrimSuffix(filepath.Base(src), ".cu")
		for _, arch := range clangArches {
			for _, opt := range clangOpts {
				t.Run(kernel+"/"+arch+"/"+opt, func(t *testing.T) {
					t.Parallel()
					path := filepath.Join(t.TempDir(), kernel+"."+arch+"."+opt+".ptx")
					args := []string{
						"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
						"--cuda-gpu-arch=" + arch, "-" + opt,
						"-I", cudaDir,
						"-S", src, "-o", path,
					}
					sem <- struct{}{}
					out, err := exec.Command(clang, args...).CombinedOutput()
					<-sem
					if err != nil {
						t.Fatalf("clang-19 %s: %v\n%s", strings.Join(args, " "), err, out)
					}
					ptxSrc, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					checkClangPTX(t, kernel, path, ptxSrc)
				})
			}
		}
	}
}

// checkClangPTX parses one clang-generated module, round-trips it through
// Print, and checks its functions against clangKernelSpecs.
func checkClangPTX(t *testing.T, kernel, path string, src []byte) {
	m, err := Parse(path, src)
	if err != nil {
		t.Fatalf("Parse: %v%s", err, clangErrContext(err, path, src))
	}

	out1 := Print(m)
	m2, err := Parse(path+".printed", []byte(out1))
	if err != nil {
		t.Fatalf("Parse(Print(m)): %v%s", err, clangErrContext(err, path+".printed", []byte(out1)))
	}
	out2 := Print(m2)
	if out1 != out2 {
		t.Errorf("Print is not a fixed point of Parse+Print: %s", clangFirstDiff(out1, out2))
	}

	entries := map[string]bool{}
	defined := map[string]bool{} // non-entry functions with a body
	for _, f := range m.Funcs() {
		switch {
		case f.Entry:
			if f.Body == nil {
				t.Errorf(".entry %s has no body", f.Name)
			}
			entries[f.Name] = true
		case f.Body != nil:
			defined[f.Name] = true
		}
	}

	if !entries[kernel] {
		t.Errorf("no .entry %s; entries: %v", kernel, clangSortedKeys(entries))
	}
	spec, ok := clangKernelSpecs[kernel]
	if !ok {
		return
	}
	for _, e := range spec.entries {
		if !entries[e] {
			t.Errorf("missing .entry %s; entries: %v", e, clangSortedKeys(entries))
		}
	}
	if len(entries) != len(spec.entries) {
		t.Errorf("entries = %v, want %v", clangSortedKeys(entries), spec.entries)
	}
	for _, f := range spec.funcs {
		if !defined[f] {
			t.Errorf("missing .func %s with a body; defined .funcs: %v", f, clangSortedKeys(defined))
		}
	}
	if len(spec.funcs) == 0 && len(defined) != 0 {
		t.Errorf("unexpected non-entry functions %v (helpers should be inlined)", clangSortedKeys(defined))
	}
}

// clangErrLine finds "file:LINE:" (or "file:LINE" at the end) in an error.
var clangErrLine = regexp.MustCompile(`:(\d+)(?::|\b)`)

// clangErrContext returns the source lines around the position an error
// names ("path:LINE..."), to make failures on compiler output readable
// without rerunning clang. It returns "" when the error names no line.
func clangErrContext(err error, path string, src []byte) string {
	msg := err.Error()
	i := strings.Index(msg, path)
	if i < 0 {
		return ""
	}
	sm := clangErrLine.FindStringSubmatch(msg[i+len(path):])
	if sm == nil {
		return ""
	}
	n, convErr := strconv.Atoi(sm[1])
	lines := strings.Split(string(src), "\n")
	if convErr != nil || n < 1 || n > len(lines) {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n")
	for i := max(1, n-3); i <= min(len(lines), n+2); i++ {
		mark := "  "
		if i == n {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%5d | %s\n", mark, i, lines[i-1])
	}
	return b.String()
}

// clangFirstDiff describes the first line where a and b differ.
func clangFirstDiff(a, b string) string {
	al := strings.Split(a, "\n")
	bl := strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		} else {
			x = "<end of output>"
		}
		if i < len(bl) {
			y = bl[i]
		} else {
			y = "<end of output>"
		}
		if x != y {
			return fmt.Sprintf("first difference at line %d:\n  first print:  %q\n  second print: %q", i+1, x, y)
		}
	}
	return "outputs differ but no differing line found"
}

func clangSortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
