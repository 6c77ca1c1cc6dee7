package pipeline

// TestClangKernelsRun compiles every kernel of testdata/cuda with clang-19
// (sm_75 and sm_80, -O0 and -O3), runs it in the simulator through a kernel
// spec built here, and compares the output buffers with an independent Go
// reference of what the CUDA source computes.
//
// Floating point in the references: every float32 operation is rounded to
// float32 explicitly (f32add, f32mul, ...; an explicit conversion also
// keeps the Go compiler from fusing a*b+c). clang compiles CUDA with
// -ffp-contract=fast, so a*b+c becomes fma.rn.f32 at -O0 as well as at -O3;
// the references contract exactly where the PTX of both levels does (the
// places are named in each reference), and fma32/fma16 round the exact
// a*b+c once. Tolerances are used only where the result is not defined bit
// for bit: float atomics whose order the hardware chooses, and the .approx
// special functions (MUFU).

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/spec"
)

// clangKnownFailures lists kernel/arch/opt cases where orilab (not the
// reference) is wrong, with the diagnosis. Such a case must still fail; when
// it passes the test asks for the entry to be removed.
//
// Note: at -O3 LLVM lays out the barrier loops of matmul_tiled,
// reduce_shared, reduce_shared_dyn and scan_inclusive with the latch (which
// holds bar.sync) before the divergent loop body, and the lowering emits no
// BSSY/BSYNC, so the threads that skip the body reach bar.sync first. These
// cases pass because the simulator lets the threads of a warp arrive at one
// bar.sync instruction at different times (it only faults when they wait at
// different barrier instructions).
var clangKnownFailures = map[string]string{}

var clangArchs = []string{"sm_75", "sm_80"}
var clangOpts = []string{"O0", "O3"}

// ckEnv is one compilation: the target and the optimization level.
type ckEnv struct {
	arch string // "sm_75"
	opt  string // "O0"
}

// variant numbers the four compilations 0..3, for the kernels that rotate
// a scalar argument through its cases across the matrix.
func (e ckEnv) variant() int {
	v := 0
	if e.arch == "sm_80" {
		v = 2
	}
	if e.opt == "O3" {
		v++
	}
	return v
}

// The spec as JSON (see ../shared/KERNEL-SPEC.md).
type ckSpec struct {
	Name   string     `json:"name"`
	PTX    string     `json:"ptx"`
	Kernel string     `json:"kernel"`
	Launch ckLaunch   `json:"launch"`
	Params []ckParam  `json:"params"`
	Expect []ckExpect `json:"expect,omitempty"`
}

type ckLaunch struct {
	Grid  []int `json:"grid"`
	Block []int `json:"block"`
	Dyn   int   `json:"dynamic_shared_bytes,omitempty"`
}

type ckParam struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Elem    string `json:"elem,omitempty"`
	Count   int    `json:"count,omitempty"`
	Init    string `json:"init,omitempty"`
	InitHex string `json:"init_hex_le,omitempty"`
	Type    string `json:"type,omitempty"`
	Value   string `json:"value,omitempty"`
}

type ckExpect struct {
	Param     string             `json:"param"`
	Elem      string             `json:"elem,omitempty"`
	Values    []string           `json:"values_hex"`
	Tolerance map[string]float64 `json:"tolerance,omitempty"`
	Ignore    []int              `json:"ignore_indices,omitempty"`
}

// ckCase is what a kernel's builder returns: launch, parameters, checks.
type ckCase struct {
	grid, block []int
	dyn         int
	params      []ckParam
	expect      []ckExpect
}

type ckBuilder func(e ckEnv) ckCase

// clangKernels maps every .entry of testdata/cuda to its builder.
var clangKernels = map[string]ckBuilder{
	"atomics_cas":            ckAtomicsCAS,
	"atomics_cas_lastblock":  ckAtomicsLastBlock,
	"bitops":                 ckBitops,
	"device_call":            ckDeviceCall,
	"device_call_indirect":   ckDeviceCallIndirect,
	"globals_local":          ckGlobalsLocal,
	"globals_local_reset":    ckGlobalsLocalReset,
	"half_precision":         ckHalfPrecision,
	"half_precision_dot":     ckHalfDot,
	"histogram":              ckHistogram,
	"histogram_global":       ckHistogramGlobal,
	"index64":                ckIndex64,
	"index64_2d":             ckIndex642D,
	"index64_divmod":         ckIndex64DivMod,
	"inline_asm":             ckInlineAsm,
	"matmul_tiled":           ckMatmul,
	"predicated_loop":        ckPredLoop,
	"predicated_loop_int":    ckPredLoopInt,
	"predicated_loop_switch": ckPredLoopSwitch,
	"reduce_shared":          ckReduceShared,
	"reduce_shared_dyn":      ckReduceSharedDyn,
	"saxpy_fp":               ckSaxpy,
	"saxpy_fp_math":          ckSaxpyMath,
	"saxpy_fp_double":        ckSaxpyDouble,
	"scan":                   ckScan,
	"scan_inclusive":         ckScanInclusive,
	"transpose":              ckTranspose,
	"vecadd":                 ckVecadd,
	"vecadd4":                ckVecadd4,
	"warp_reduce":            ckWarpReduce,
	"warp_reduce_vote":       ckWarpReduceVote,
}

var ckEntryRE = regexp.MustCompile(`\.entry\s+([A-Za-z_$][\w$]*)\s*\(`)

func TestClangKernelsRun(t *testing.T) {
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		if os.Getenv("ORILAB_REQUIRE_CLANG") != "" {
			t.Fatal("clang-19 not found but ORILAB_REQUIRE_CLANG is set")
		}
		t.Skip("clang-19 not found: install clang-19 (apt-get install clang-19 llvm-19); .ci/run installs it")
	}
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "cuda")
	cus, _ := filepath.Glob(filepath.Join(dir, "*.cu"))
	if len(cus) == 0 {
		t.Fatal("no .cu files under testdata/cuda")
	}
	out := t.TempDir()

	// Compile each .cu once per arch and opt level.
	type unit struct {
		base string
		env  ckEnv
		ptx  string
		err  string
	}
	var units []*unit
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for _, cu := range cus {
		base := strings.TrimSuffix(filepath.Base(cu), ".cu")
		for _, arch := range clangArchs {
			for _, opt := range clangOpts {
				u := &unit{base: base, env: ckEnv{arch, opt}, ptx: filepath.Join(out, base+"."+arch+"."+opt+".ptx")}
				units = append(units, u)
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
						"--cuda-gpu-arch="+u.env.arch, "-"+u.env.opt, "-I", dir, "-S", cu, "-o", u.ptx)
					if msg, err := cmd.CombinedOutput(); err != nil {
						u.err = fmt.Sprintf("%v: %s", err, msg)
					}
				}()
			}
		}
	}
	wg.Wait()

	type job struct {
		kernel string
		env    ckEnv
		ptx    string
	}
	var jobs []job
	seen := map[string]bool{}
	for _, u := range units {
		if u.err != "" {
			t.Errorf("clang-19 %s.cu --cuda-gpu-arch=%s -%s: %s", u.base, u.env.arch, u.env.opt, u.err)
			continue
		}
		src, err := os.ReadFile(u.ptx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ckEntryRE.FindAllStringSubmatch(string(src), -1) {
			k := m[1]
			if clangKernels[k] == nil {
				if !seen[k] {
					t.Errorf("%s.cu: kernel %s has no reference in clangKernels", u.base, k)
				}
				seen[k] = true
				continue
			}
			seen[k] = true
			jobs = append(jobs, job{k, u.env, u.ptx})
		}
	}
	for k := range clangKernels {
		if !seen[k] {
			t.Errorf("clangKernels lists %s, which no .cu in testdata/cuda defines", k)
		}
	}
	sort.Slice(jobs, func(i, j int) bool {
		a, b := jobs[i], jobs[j]
		if a.kernel != b.kernel {
			return a.kernel < b.kernel
		}
		if a.env.arch != b.env.arch {
			return a.env.arch < b.env.arch
		}
		return a.env.opt < b.env.opt
	})

	for _, j := range jobs {
		name := j.kernel + "/" + j.env.arch + "/" + j.env.opt
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := clangKernels[j.kernel](j.env)
			js := ckSpec{
				Name:   strings.ReplaceAll(name, "/", "."),
				PTX:    filepath.Base(j.ptx),
				Kernel: j.kernel,
				Launch: ckLaunch{Grid: c.grid, Block: c.block, Dyn: c.dyn},
				Params: c.params,
				Expect: c.expect,
			}
			text, err := json.MarshalIndent(js, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			s, err := spec.Parse(js.Name+".json", text, filepath.Dir(j.ptx))
			if err != nil {
				t.Fatalf("%s: the generated spec does not parse: %v", name, err)
			}
			// orilab -O0 and -O3 (verifier after every phase): the optimizer
			// must preserve what clang's PTX computes.
			rep, err := RunSpec(s, RunOptions{})
			if err == nil && rep.Pass {
				rep, err = RunSpec(s, RunOptions{Request: Request{OptLevel: 3, Verify: true}})
				if err != nil {
					err = fmt.Errorf("orilab -O3: %w", err)
				}
			}
			known, isKnown := clangKnownFailures[name]
			switch {
			case err != nil && isKnown:
				t.Logf("%s: known failure (%s): %v", name, known, err)
			case err != nil:
				t.Fatalf("%s: %v", name, err)
			case !rep.Pass && isKnown:
				t.Logf("%s: known failure (%s):\n%s", name, known, spec.FormatResults(rep.Results))
			case !rep.Pass:
				t.Fatalf("%s: mismatch:\n%s", name, spec.FormatResults(rep.Results))
			case isKnown:
				t.Errorf("%s passes now: remove it from clangKnownFailures (%s)", name, known)
			}
		})
	}
}

// ---------------------------------------------------------------------
// Spec building helpers.

func ckBuf(name, elem string, count int, init string) ckParam {
	return ckParam{Name: name, Kind: "buffer", Elem: elem, Count: count, Init: init}
}

// ckBufHex is a buffer with explicit little-endian contents.
func ckBufHex(name, elem string, data []byte) ckParam {
	n, ok := spec.ElemSize(elem)
	if !ok {
		panic("unknown element type " + elem)
	}
	return ckParam{Name: name, Kind: "buffer", Elem: elem, Count: len(data) / n, InitHex: fmt.Sprintf("%x", data)}
}

func ckScalar(name, typ, value string) ckParam {
	return ckParam{Name: name, Kind: "scalar", Type: typ, Value: value}
}

func ckExp(param string, values []string) ckExpect {
	return ckExpect{Param: param, Values: values}
}

func hexU32(v []uint32) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%08x", x)
	}
	return s
}

func hexS32(v []int32) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%08x", uint32(x))
	}
	return s
}

func hexU64(v []uint64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%016x", x)
	}
	return s
}

func hexS64(v []int64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%016x", uint64(x))
	}
	return s
}

func hexU16(v []uint16) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%04x", x)
	}
	return s
}

func hexF32(v []float32) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%08x", math.Float32bits(x))
	}
	return s
}

func hexF64(v []float64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%016x", math.Float64bits(x))
	}
	return s
}

func leU32(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func leS32(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func leU64(v []uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

func leF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// ---------------------------------------------------------------------
// Input data. The lcg:SEED fill (KERNEL-SPEC.md): element i takes x_{i+1}
// of x = 1664525*x + 1013904223 mod 2^32; integers take x truncated to
// their width, floats (x >> 8) / 2^24 rounded to the element type.

func lcgU32(seed uint32, n int) []uint32 { return spec.LCG(seed, n) }

func lcgS32(seed uint32, n int) []int32 {
	out := make([]int32, n)
	for i, x := range spec.LCG(seed, n) {
		out[i] = int32(x)
	}
	return out
}

func lcgU8(seed uint32, n int) []uint8 {
	out := make([]uint8, n)
	for i, x := range spec.LCG(seed, n) {
		out[i] = uint8(x)
	}
	return out
}

func lcgF32(seed uint32, n int) []float32 {
	out := make([]float32, n)
	for i, x := range spec.LCG(seed, n) {
		out[i] = float32(float64(x>>8) / (1 << 24))
	}
	return out
}

func lcgF64(seed uint32, n int) []float64 {
	out := make([]float64, n)
	for i, x := range spec.LCG(seed, n) {
		out[i] = float64(x>>8) / (1 << 24)
	}
	return out
}

func lcgF16(seed uint32, n int) []uint16 {
	out := make([]uint16, n)
	for i, x := range spec.LCG(seed, n) {
		out[i] = f16FromF64(float64(x>>8) / (1 << 24))
	}
	return out
}

// symF32 gives n floats in [-2, 2), exact multiples of 2^-22 (passed as
// init_hex_le).
func symF32(seed uint32, n int) []float32 {
	out := make([]float32, n)
	for i, x := range spec.LCG(seed, n) {
		out[i] = float32(float64(x>>8)/(1<<22) - 2)
	}
	return out
}

// rand64 gives n full-width 64-bit values from two LCG streams.
func rand64(seed uint32, n int) []uint64 {
	hi, lo := spec.LCG(seed, n), spec.LCG(seed^0x5bd1e995, n)
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(hi[i])<<32 | uint64(lo[i])
	}
	return out
}

// ---------------------------------------------------------------------
// Float arithmetic, rounded like the GPU (round to nearest even).

func f32add(a, b float32) float32 { return float32(a + b) }
func f32mul(a, b float32) float32 { return float32(a * b) }

// twoSum returns s = fl(a+b) and the exact error e = a+b-s.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// roundF32 rounds the exact value s+e (e tiny against s, as from twoSum)
// to float32 once: float32(s) is that rounding unless s is exactly halfway
// between two floats, where the sign of e decides.
func roundF32(s, e float64) float32 {
	r := float32(s)
	if e == 0 || float64(r) == s || math.IsInf(float64(r), 0) {
		return r
	}
	var nb float32
	if float64(r) < s {
		nb = math.Nextafter32(r, float32(math.Inf(1)))
	} else {
		nb = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if math.Abs(s-float64(r)) != math.Abs(float64(nb)-s) {
		return r
	}
	if (e > 0) == (nb > r) {
		return nb
	}
	return r
}

// fma32 is fma.rn.f32: a*b+c rounded once.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact: 48 significant bits
	s, e := twoSum(p, float64(c))
	return roundF32(s, e)
}

// f16FromF64 rounds x to binary16, to nearest even.
func f16FromF64(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	switch {
	case math.IsNaN(x):
		return 0x7e00
	case x >= 65520: // halfway between 65504 and 65536 rounds to even: Inf
		return sign | 0x7c00
	case x < 1.0/(1<<14): // subnormal: units of 2^-24
		return sign | uint16(math.RoundToEven(x*(1<<24)))
	}
	_, exp := math.Frexp(x) // x = f * 2^exp, f in [0.5, 1)
	e := exp - 1
	m := math.RoundToEven(math.Ldexp(x, -e) * 1024) // in [1024, 2048]
	if m == 2048 {
		m = 1024
		e++
	}
	if e > 15 {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | uint16(m-1024)
}

func f16ToF64(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return s * m / (1 << 24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return s * math.Inf(1)
	}
	return s * math.Ldexp(1+m/1024, e-15)
}

// roundF16 rounds the exact value s+e to binary16 once (see roundF32).
func roundF16(s, e float64) uint16 {
	var sign uint16
	if s < 0 {
		sign, s, e = 0x8000, -s, -e
	}
	r := f16FromF64(s)
	rv := f16ToF64(r)
	if e == 0 || rv == s || r == 0x7c00 {
		return sign | r
	}
	nb := r + 1
	if rv > s {
		nb = r - 1
	}
	if math.Abs(s-rv) != math.Abs(f16ToF64(nb)-s) {
		return sign | r
	}
	if (e > 0) == (f16ToF64(nb) > rv) {
		return sign | nb
	}
	return sign | r
}

// fma16 is fma.rn.f16.
func fma16(a, b, c uint16) uint16 {
	p := f16ToF64(a) * f16ToF64(b) // exact: 22 significant bits
	s, e := twoSum(p, f16ToF64(c))
	return roundF16(s, e)
}

// addRZ32 is add.rz.f32 (the operands here are normal, so .ftz does
// nothing).
func addRZ32(a, b float32) float32 {
	s, e := twoSum(float64(a), float64(b))
	r := float32(s)
	// Round the exact s+e toward zero.
	exact := func(x float32) int { // sign of float64(x) - (s+e)
		d := float64(x) - s
		switch {
		case d > 0 || (d == 0 && e < 0):
			return 1
		case d < 0 || (d == 0 && e > 0):
			return -1
		}
		return 0
	}
	if s > 0 && exact(r) > 0 {
		r = math.Nextafter32(r, 0)
	} else if s < 0 && exact(r) < 0 {
		r = math.Nextafter32(r, 0)
	}
	return r
}

// ---------------------------------------------------------------------
// The kernels, file by file.

// vecadd.cu: vecadd. c[i] = a[i] + b[i] for i < n; the rest of c stays 0.
func ckVecadd(ckEnv) ckCase {
	const n, count = 500, 512
	a, b := lcgF32(11, count), lcgF32(12, count)
	c := make([]float32, count)
	for i := 0; i < n; i++ {
		c[i] = f32add(a[i], b[i])
	}
	return ckCase{
		grid: []int{4}, block: []int{128},
		params: []ckParam{
			ckBuf("a", "f32", count, "lcg:11"), ckBuf("b", "f32", count, "lcg:12"),
			ckBuf("c", "f32", count, "zero"), ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("c", hexF32(c))},
	}
}

// vecadd.cu: vecadd4, the float4 version over n4 quads.
func ckVecadd4(ckEnv) ckCase {
	const n4, count = 180, 4 * 192
	a, b := lcgF32(13, count), lcgF32(14, count)
	c := make([]float32, count)
	for i := 0; i < 4*n4; i++ {
		c[i] = f32add(a[i], b[i])
	}
	return ckCase{
		grid: []int{3}, block: []int{64},
		params: []ckParam{
			ckBuf("a", "f32", count, "lcg:13"), ckBuf("b", "f32", count, "lcg:14"),
			ckBuf("c", "f32", count, "zero"), ckScalar("n4", "s32", fmt.Sprint(n4)),
		},
		expect: []ckExpect{ckExp("c", hexF32(c))},
	}
}

// atomics_cas.cu: atomics_cas. Every result is independent of the order of
// the atomics except flags[4] (atomicExch: the last writer wins), which is
// ignored. The double sum is exact in any order: the inputs are multiples
// of 2^-24 below 1 and there are fewer than 2^9 of them.
func ckAtomicsCAS(ckEnv) ckCase {
	const n, count = 500, 512
	x := lcgF32(21, count)
	flags := []int32{0, -1, 0x12345678, 0x7fffffff, -5, 100}
	want := append([]int32(nil), flags...)
	var mx float32
	var sum float64
	for i := 0; i < n; i++ {
		if x[i] > mx {
			mx = x[i]
		}
		sum += float64(x[i])
		bit := int32(1) << (i & 31)
		want[0] |= bit
		want[1] &^= bit
		want[2] ^= bit
		want[3] = min(want[3], int32(i))
		want[5]++
	}
	return ckCase{
		grid: []int{4}, block: []int{128},
		params: []ckParam{
			ckBuf("x", "f32", count, "lcg:21"), ckBuf("maxOut", "f32", 1, "zero"),
			ckBuf("sumOut", "f64", 1, "zero"), ckBufHex("flags", "s32", leS32(flags)),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{
			ckExp("maxOut", hexF32([]float32{mx})),
			ckExp("sumOut", hexF64([]float64{sum})),
			{Param: "flags", Values: hexS32(want), Ignore: []int{4}},
		},
	}
}

// atomics_cas.cu: atomics_cas_lastblock. Whichever block takes the last
// ticket sums partial[0..grid) in order.
func ckAtomicsLastBlock(ckEnv) ckCase {
	const grid = 8
	p := lcgF32(22, grid)
	var s float32
	for _, v := range p {
		s = f32add(s, v)
	}
	return ckCase{
		grid: []int{grid}, block: []int{64},
		params: []ckParam{ckBuf("partial", "f32", grid, "lcg:22"), ckBuf("result", "f32", 1, "zero")},
		expect: []ckExpect{ckExp("result", hexF32([]float32{s}))},
	}
}

// prmt is prmt.b32 in the default mode: byte k of the result is byte
// s[k]&7 of b:a, or its sign replicated when s[k]&8.
func prmt(a, b, s uint32) uint32 {
	src := uint64(b)<<32 | uint64(a)
	var r uint32
	for k := 0; k < 4; k++ {
		nib := s >> (4 * k) & 0xf
		by := uint32(src>>(8*(nib&7))) & 0xff
		if nib&8 != 0 {
			if by&0x80 != 0 {
				by = 0xff
			} else {
				by = 0
			}
		}
		r |= by << (8 * k)
	}
	return r
}

// bitops.cu: bitops. a holds x (first n) and y (next n), b holds u and v
// likewise; a few edge values (0, all ones, the sign bit) lead each half.
func ckBitops(ckEnv) ckCase {
	const n = 256
	a := lcgU32(31, 2*n)
	copy(a[0:], []uint32{0, 0xffffffff, 0x80000000, 1})
	copy(a[n:], []uint32{0, 0x80000000, 32, 0xffffffff})
	b := rand64(32, 2*n)
	copy(b[0:], []uint64{0, ^uint64(0), 1 << 63, 5})
	copy(b[n:], []uint64{0, 1 << 63, 1 << 63, ^uint64(0)})
	o32 := make([]uint32, n)
	o64 := make([]uint64, n)
	for i := 0; i < n; i++ {
		x, y := a[i], a[i+n]
		u, v := b[i], b[i+n]
		var r uint32
		r += uint32(bits.OnesCount32(x))
		r += uint32(bits.LeadingZeros32(x) << 8)
		ffs := 0
		if y != 0 {
			ffs = bits.TrailingZeros32(y) + 1
		}
		r += uint32(ffs << 16)
		r ^= bits.Reverse32(x)
		r ^= prmt(x, y, 0x5140)
		hi, _ := bits.Mul32(x, y)
		r += hi
		r += uint32(uint64(int64(int32(x))*int64(int32(y))) >> 32)
		// shf.l.wrap.b32 d, x(lo), y(hi), i&31: high word of (y:x) << n
		r ^= uint32((uint64(y)<<32 | uint64(x)) << (uint(i) & 31) >> 32)
		// shf.r.clamp.b32 d, y(lo), x(hi), i: low word of (x:y) >> min(i,32)
		r ^= uint32((uint64(x)<<32 | uint64(y)) >> min(uint(i), 32))
		r += x<<(y&31) | x>>((32-y)&31)
		r += (x >> 7) & 0x3ff
		o32[i] = r

		w, _ := bits.Mul64(u, v)
		sh, _ := bits.Mul64(u, v) // signed high product from the unsigned one
		if int64(u) < 0 {
			sh -= v
		}
		if int64(v) < 0 {
			sh -= u
		}
		w ^= sh
		w += uint64(bits.OnesCount64(u) + bits.LeadingZeros64(v))
		w ^= bits.Reverse64(u)
		w += (u << 13) ^ (v >> 7) ^ uint64(int64(v)>>3)
		o64[i] = w
	}
	return ckCase{
		grid: []int{2}, block: []int{128},
		params: []ckParam{
			ckBufHex("a", "u32", leU32(a)), ckBufHex("b", "u64", leU64(b)),
			ckBuf("o32", "u32", n, "zero"), ckBuf("o64", "u64", n, "zero"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("o32", hexU32(o32)), ckExp("o64", hexU64(o64))},
	}
}

func ckSplits(n uint32) uint32 {
	if n < 2 {
		return 1
	}
	return ckSplits(n/2) + ckSplits(n/3) + 1
}

// device_call.cu: device_call. In the PTX of both levels poly is
// r = fma(r, x, c[i]) and dot3 is fma(a.z, b.z, fma(a.x, b.x, a.y*b.y)).
func ckDeviceCall(ckEnv) ckCase {
	const n, count = 200, 200
	x := symF32(41, count)
	coef := []float32{0.25, 1.5, 0.5, -1}
	g := lcgU32(42, count)
	out := make([]float32, 2*count)
	gw := append([]uint32(nil), g...)
	for i := 0; i < n; i++ {
		var r float32
		for k := 3; k >= 0; k-- {
			r = fma32(r, x[i], coef[k])
		}
		v := r
		d := fma32(1, coef[2], fma32(x[i], coef[0], f32mul(v, coef[1])))
		switch {
		case d < 0:
			d = 0
		case d > 1:
			d = 1
		}
		out[2*i], out[2*i+1] = v, d
		gw[i] = ckSplits(g[i] & 255)
	}
	return ckCase{
		grid: []int{2}, block: []int{128},
		params: []ckParam{
			ckBufHex("x", "f32", leF32(x)), ckBufHex("coef", "f32", leF32(coef)),
			ckBuf("out", "f32", 2*count, "zero"), ckBuf("g", "u32", count, "lcg:42"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("out", hexF32(out)), ckExp("g", hexU32(gw))},
	}
}

// device_call.cu: device_call_indirect. which rotates over the matrix
// (sm_75 -O0: square, -O3: half, sm_80 -O0: neg, -O3: neg via another
// value) so that every callee runs.
func ckDeviceCallIndirect(e ckEnv) ckCase {
	const n, count = 300, 320
	which := []int{0, 1, 2, -7}[e.variant()]
	d := symF32(43, count)
	want := append([]float32(nil), d...)
	for i := 0; i < n; i++ {
		switch which {
		case 0:
			want[i] = f32mul(d[i], d[i])
		case 1:
			want[i] = f32mul(0.5, d[i])
		default:
			want[i] = -d[i]
		}
	}
	return ckCase{
		grid: []int{3}, block: []int{128},
		params: []ckParam{
			ckBufHex("data", "f32", leF32(d)),
			ckScalar("which", "s32", fmt.Sprint(which)), ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("data", hexF32(want))},
	}
}

// globals_local.cu: globals_local. out[i] depends on the ticket each
// thread draws from the global counter (atomicAdd order, chosen by the
// hardware), so only n = 1 is deterministic: thread 0 of the grid draws
// ticket 0 (gCounter starts at 0 in each launch of a freshly loaded
// module); every other thread exits at the bounds check. The dynamic index
// j = idx[0] & 15 rotates over the matrix (0 also hits scratch[0], which
// feeds the gScale term).
func ckGlobalsLocal(e ckEnv) ckCase {
	const count = 64
	idx := []int32{0, 5, 9, 15}[e.variant()] + 16*7
	gTable := []int32{1, 1, 2, 3, 5, 8, 13, 21}
	gHidden := []int32{7, 0, 0, 9}
	cPerm := []int32{3, 1, 4, 1, 5, 2, 6, 0}
	const gScale = float32(2.5)
	out := make([]int32, count)
	for k := range out {
		out[k] = -1
	}
	{
		i := int32(0)
		var scratch [16]int32
		for k := int32(0); k < 16; k++ {
			scratch[k] = gTable[k&7]*(k+i) + gHidden[k&3]
		}
		j := idx & 15
		scratch[j] += cPerm[j&7]
		slot := int32(0)
		out[0] = scratch[(j+slot)&15] + int32(f32mul(gScale, float32(scratch[0]))) // cvt.rzi
	}
	return ckCase{
		grid: []int{2}, block: []int{32},
		params: []ckParam{
			ckBuf("idx", "s32", count, fmt.Sprintf("const:%d", idx)), ckBuf("out", "s32", count, "const:-1"),
			ckScalar("n", "s32", "1"),
		},
		expect: []ckExpect{ckExp("out", hexS32(out))},
	}
}

// globals_local.cu: globals_local_reset writes only module globals, which
// no buffer shows: the case checks that it compiles and runs.
func ckGlobalsLocalReset(ckEnv) ckCase {
	return ckCase{
		grid: []int{2}, block: []int{64},
		params: []ckParam{ckScalar("v", "s32", "42")},
	}
}

// half_precision.cu: half_precision. a[i]*alpha + b[i] is fma.rn.f16 in
// the PTX of both levels; the ReLU is exact.
func ckHalfPrecision(ckEnv) ckCase {
	const n, count = 200, 256
	a, b := lcgF16(51, count), lcgF16(52, count)
	alpha := f16FromF64(-1.5)
	c := make([]uint16, count)
	for i := 0; i < n; i++ {
		v := fma16(a[i], alpha, b[i])
		if f16ToF64(v) > 0 {
			c[i] = v
		}
	}
	return ckCase{
		grid: []int{2}, block: []int{128},
		params: []ckParam{
			ckBuf("a", "f16", count, "lcg:51"), ckBuf("b", "f16", count, "lcg:52"),
			ckBuf("c", "f16", count, "zero"), ckScalar("alpha", "f16", "-1.5"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("c", hexU16(c))},
	}
}

// half_precision.cu: half_precision_dot. Each thread's acc is
// fma.rn.f32(a, b, acc) (both levels); the per-thread sums then meet in a
// float atomicAdd whose order the hardware picks, hence the tolerance.
func ckHalfDot(ckEnv) ckCase {
	const n, grid, block = 1000, 2, 64
	a, b := lcgF16(53, n), lcgF16(54, n)
	var total float32
	for i := 0; i < grid*block; i++ {
		var acc float32
		for k := i; k < n; k += grid * block {
			acc = fma32(float32(f16ToF64(a[k])), float32(f16ToF64(b[k])), acc)
		}
		total = f32add(total, acc)
	}
	return ckCase{
		grid: []int{grid}, block: []int{block},
		params: []ckParam{
			ckBuf("a", "f16", n, "lcg:53"), ckBuf("b", "f16", n, "lcg:54"),
			ckBuf("out", "f32", 1, "zero"), ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{{Param: "out", Values: hexF32([]float32{total}),
			Tolerance: map[string]float64{"rel": 1e-5}}},
	}
}

// histogram.cu: histogram (block-private shared bins, then global).
func ckHistogram(ckEnv) ckCase {
	const n = 5000
	data := lcgU8(61, n)
	hist := make([]uint32, 256)
	for _, d := range data {
		hist[d]++
	}
	return ckCase{
		grid: []int{4}, block: []int{128},
		params: []ckParam{
			ckBuf("data", "u8", n, "lcg:61"), ckScalar("n", "u64", fmt.Sprint(n)),
			ckBuf("hist", "u32", 256, "zero"),
		},
		expect: []ckExpect{ckExp("hist", hexU32(hist))},
	}
}

// histogram.cu: histogram_global. hist[256..271] get the keys of whichever
// threads drew those ring slots (atomicInc order): ignored. The ring
// counter wraps at 1023, so 1500 increments leave 1500-1024.
func ckHistogramGlobal(ckEnv) ckCase {
	const n = 1500
	keys := lcgS32(62, n)
	hist := make([]int32, 256+16)
	var total uint64
	maxKey := int32(math.MinInt32)
	var ring uint32
	for _, k := range keys {
		hist[k&255]++
		total += uint64(uint32(k))
		maxKey = max(maxKey, k)
		if ring >= 1023 {
			ring = 0
		} else {
			ring++
		}
	}
	var ignore []int
	for i := 256; i < 272; i++ {
		ignore = append(ignore, i)
	}
	return ckCase{
		grid: []int{6}, block: []int{256},
		params: []ckParam{
			ckBuf("keys", "s32", n, "lcg:62"), ckScalar("n", "s32", fmt.Sprint(n)),
			ckBuf("hist", "s32", 272, "zero"), ckBuf("total", "u64", 1, "zero"),
			ckBuf("ring", "u32", 1, "zero"), ckBuf("maxKey", "s32", 1, "const:-2147483648"),
		},
		expect: []ckExpect{
			{Param: "hist", Values: hexS32(hist), Ignore: ignore},
			ckExp("total", hexU64([]uint64{total})),
			ckExp("ring", hexU32([]uint32{ring})),
			ckExp("maxKey", hexS32([]int32{maxKey})),
		},
	}
}

// index64.cu: index64, a grid-stride loop over 64-bit values.
func ckIndex64(ckEnv) ckCase {
	const n = 300
	const scale = int64(-3037000493)
	in := rand64(71, n)
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(in[i])*scale + int64(i)
	}
	return ckCase{
		grid: []int{2}, block: []int{64},
		params: []ckParam{
			ckBufHex("in", "s64", leU64(in)), ckBuf("out", "s64", n, "zero"),
			ckScalar("n", "u64", fmt.Sprint(n)), ckScalar("scale", "s64", fmt.Sprint(scale)),
		},
		expect: []ckExpect{ckExp("out", hexS64(out))},
	}
}

// index64.cu: index64_2d over a 13x40 region of a 48-element pitch.
func ckIndex642D(ckEnv) ckCase {
	const pitch, rows, cols = 48, 13, 40
	in := lcgF32(72, rows*pitch)
	out := make([]float32, rows*pitch)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[r*pitch+c] = f32mul(in[r*pitch+c], 2)
		}
	}
	return ckCase{
		grid: []int{3, 2}, block: []int{16, 8},
		params: []ckParam{
			ckBuf("in", "f32", rows*pitch, "lcg:72"), ckBuf("out", "f32", rows*pitch, "zero"),
			ckScalar("pitchElems", "u64", fmt.Sprint(pitch)), ckScalar("rows", "s64", fmt.Sprint(rows)),
			ckScalar("cols", "s32", fmt.Sprint(cols)),
		},
		expect: []ckExpect{ckExp("out", hexF32(out))},
	}
}

// index64.cu: index64_divmod. cols is 7 on sm_75 (LLVM's div.u32 fast
// path) and 2^32+3 on sm_80 (the full div.u64 / rem.u64).
func ckIndex64DivMod(e ckEnv) ckCase {
	const total, count = 250, 512
	cols := uint64(7)
	if e.arch == "sm_80" {
		cols = 1<<32 + 3
	}
	rc := make([]uint64, count)
	for i := uint64(0); i < total; i++ {
		rc[2*i], rc[2*i+1] = i/cols, i%cols
	}
	return ckCase{
		grid: []int{4}, block: []int{64},
		params: []ckParam{
			ckBuf("rc", "u64", count, "zero"),
			ckScalar("total", "u64", fmt.Sprint(total)), ckScalar("cols", "u64", fmt.Sprint(cols)),
		},
		expect: []ckExpect{ckExp("rc", hexU64(rc))},
	}
}

// inline_asm.cu: inline_asm. out[i] mixes in %clock and %globaltimer,
// which no two runs (or GPUs) agree on, so out is not checked; stamps
// (the {v, laneid} pack) and f (add.rz.ftz) are.
func ckInlineAsm(ckEnv) ckCase {
	const grid, block = 2, 64
	const n = grid * block
	in := lcgS32(81, n)
	f := symF32(82, n)
	stamps := make([]uint64, n)
	fw := make([]float32, n)
	for i := 0; i < n; i++ {
		lane := uint64(i % block % 32)
		stamps[i] = uint64(uint32(in[i])) | lane<<32
		fw[i] = addRZ32(f[i], 1)
	}
	return ckCase{
		grid: []int{grid}, block: []int{block},
		params: []ckParam{
			ckBuf("in", "s32", n, "lcg:81"), ckBuf("out", "s32", n, "zero"),
			ckBuf("stamps", "u64", n, "zero"), ckBufHex("f", "f32", leF32(f)),
		},
		expect: []ckExpect{ckExp("stamps", hexU64(stamps)), ckExp("f", hexF32(fw))},
	}
}

// matmul_tiled.cu: matmul_tiled, 20x40 times 40x24 (partial edge tiles).
// acc += As*Bs is fma.rn.f32 at both levels, in k order; the zero padding
// of the last tile is part of the sum.
func ckMatmul(ckEnv) ckCase {
	const M, N, K, tile = 20, 24, 40, 16
	A, B := symF32(91, M*K), symF32(92, K*N)
	C := make([]float32, M*N)
	kt := (K + tile - 1) / tile * tile
	for r := 0; r < M; r++ {
		for c := 0; c < N; c++ {
			var acc float32
			for k := 0; k < kt; k++ {
				var a, b float32
				if k < K {
					a, b = A[r*K+k], B[k*N+c]
				}
				acc = fma32(a, b, acc)
			}
			C[r*N+c] = acc
		}
	}
	return ckCase{
		grid: []int{(N + tile - 1) / tile, (M + tile - 1) / tile}, block: []int{tile, tile},
		params: []ckParam{
			ckBufHex("A", "f32", leF32(A)), ckBufHex("B", "f32", leF32(B)),
			ckBuf("C", "f32", M*N, "zero"),
			ckScalar("M", "s32", fmt.Sprint(M)), ckScalar("N", "s32", fmt.Sprint(N)), ckScalar("K", "s32", fmt.Sprint(K)),
		},
		expect: []ckExpect{ckExp("C", hexF32(C))},
	}
}

// predicated_loop.cu: predicated_loop (clamped leaky ReLU, grid-stride).
func ckPredLoop(ckEnv) ckCase {
	const n = 500
	const thr, alpha = float32(1.5), float32(0.125)
	x := symF32(101, n)
	y := make([]float32, n)
	var count int32
	for i, v := range x {
		r := v
		if !(v > 0) {
			r = f32mul(alpha, v)
		}
		if r > thr {
			r = thr
		}
		if v > thr || v < -thr {
			count++
		}
		y[i] = r
	}
	return ckCase{
		grid: []int{2}, block: []int{64},
		params: []ckParam{
			ckBufHex("x", "f32", leF32(x)), ckBuf("y", "f32", n, "zero"), ckBuf("count", "s32", 1, "zero"),
			ckScalar("n", "s32", fmt.Sprint(n)), ckScalar("thr", "f32", "1.5"), ckScalar("alpha", "f32", "0.125"),
		},
		expect: []ckExpect{ckExp("y", hexF32(y)), ckExp("count", hexS32([]int32{count}))},
	}
}

// predicated_loop.cu: predicated_loop_int. Inputs are mostly small signed
// values around the clamp bounds, with a few large ones and INT_MIN/MAX.
func ckPredLoopInt(ckEnv) ckCase {
	const n, count = 100, 128
	const lo, hi = int32(-10), int32(12)
	a := lcgS32(102, 8*n)
	for k := range a {
		if k%37 != 0 {
			a[k] >>= 26
		}
	}
	// Not INT_MIN: -INT_MIN is undefined in C, and clang -O3 then
	// assumes |v| >= 0.
	a[5], a[6] = math.MinInt32+1, math.MaxInt32
	out := make([]int32, count)
	for i := range out {
		out[i] = -7
	}
	for t := 0; t < n; t++ {
		var acc int32
		for k := 0; k < 8; k++ {
			v := a[t*8+k]
			c := v
			if v < lo {
				c = lo
			} else if v > hi {
				c = hi
			}
			var s int32
			if v > 0 {
				s++
			}
			if v < 0 {
				s--
			}
			m := v
			if v < 0 {
				m = -v
			}
			if k&1 != 0 && m > 3 {
				acc += c * s
			} else {
				acc ^= m
			}
		}
		out[t] = acc
	}
	return ckCase{
		grid: []int{2}, block: []int{64},
		params: []ckParam{
			ckBufHex("a", "s32", leS32(a)), ckBuf("out", "s32", count, "const:-7"),
			ckScalar("n", "s32", fmt.Sprint(n)), ckScalar("lo", "s32", fmt.Sprint(lo)), ckScalar("hi", "s32", fmt.Sprint(hi)),
		},
		expect: []ckExpect{ckExp("out", hexS32(out))},
	}
}

// predicated_loop.cu: predicated_loop_switch. The kernel indexes by
// threadIdx.x only, so several CTAs would race on regs: one CTA. Opcodes
// are 0-6; the stream has a default case (7 and 200) at 40 and 53, which
// the sm_80 runs reach (len 64) and the sm_75 runs do not (len 40), so
// that the initial regs still matter in half the matrix.
func ckPredLoopSwitch(e ckEnv) ckCase {
	const threads = 128
	ops := make([]byte, 64)
	for k, x := range lcgU32(103, len(ops)) {
		ops[k] = byte((x >> 24) % 7)
	}
	ops[40], ops[53] = 7, 200
	length := 40
	if e.arch == "sm_80" {
		length = 64
	}
	regs := lcgS32(104, threads)
	want := make([]int32, threads)
	for t := range want {
		acc := regs[t]
		for pc := 0; pc < length; pc++ {
			switch ops[pc] {
			case 0:
				acc++
			case 1:
				acc -= 3
			case 2:
				acc *= 5
			case 3:
				acc ^= 0x55
			case 4:
				acc >>= 1
			case 5:
				if acc < 0 {
					acc = -acc
				}
			case 6:
				acc |= int32(t)
			default:
				acc = 0
			}
		}
		want[t] = acc
	}
	return ckCase{
		grid: []int{1}, block: []int{threads},
		params: []ckParam{
			ckBufHex("ops", "u8", ops), ckBuf("regs", "s32", threads, "lcg:104"),
			ckScalar("len", "s32", fmt.Sprint(length)),
		},
		expect: []ckExpect{ckExp("regs", hexS32(want))},
	}
}

// reduce_shared.cu: reduce_shared (block 256 as the kernel requires), the
// additions in exactly the kernel's order.
func ckReduceShared(ckEnv) ckCase {
	const grid, block, n = 4, 256, 1948
	in := lcgF32(111, grid*2*block)
	out := make([]float32, grid)
	for b := 0; b < grid; b++ {
		sdata := make([]float32, block)
		for tid := 0; tid < block; tid++ {
			var sum float32
			for i := b*2*block + tid; i < n; i += 2 * block * grid {
				sum = f32add(sum, in[i])
				if i+block < n {
					sum = f32add(sum, in[i+block])
				}
			}
			sdata[tid] = sum
		}
		for s := block / 2; s > 0; s >>= 1 {
			for tid := 0; tid < s; tid++ {
				sdata[tid] = f32add(sdata[tid], sdata[tid+s])
			}
		}
		out[b] = sdata[0]
	}
	return ckCase{
		grid: []int{grid}, block: []int{block},
		params: []ckParam{
			ckBuf("in", "f32", grid*2*block, "lcg:111"), ckBuf("out", "f32", grid, "zero"),
			ckScalar("n", "u32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("out", hexF32(out))},
	}
}

// reduce_shared.cu: reduce_shared_dyn, blockDim ints of dynamic shared
// memory.
func ckReduceSharedDyn(ckEnv) ckCase {
	const grid, block, n = 3, 128, 300
	in := lcgS32(112, n)
	out := make([]int32, grid)
	for b := range out {
		m := int32(math.MinInt32)
		for i := b * block; i < (b+1)*block && i < n; i++ {
			m = max(m, in[i])
		}
		out[b] = m
	}
	return ckCase{
		grid: []int{grid}, block: []int{block}, dyn: 4 * block,
		params: []ckParam{
			ckBuf("in", "s32", n, "lcg:112"), ckBuf("out", "s32", grid, "zero"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("out", hexS32(out))},
	}
}

// saxpy_fp.cu: saxpy_fp, y = fmaf(a, x, y).
func ckSaxpy(ckEnv) ckCase {
	const n, count = 180, 192
	const a = float32(-0.3)
	x, y := lcgF32(121, count), lcgF32(122, count)
	for i := 0; i < n; i++ {
		y[i] = fma32(a, x[i], y[i])
	}
	return ckCase{
		grid: []int{3}, block: []int{64},
		params: []ckParam{
			ckScalar("a", "f32", "-0.3"), ckBuf("x", "f32", count, "lcg:121"),
			ckBuf("y", "f32", count, "lcg:122"), ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("y", hexF32(y))},
	}
}

// saxpy_fp.cu: saxpy_fp_math. q (cvt.rni of an exact product) is exact. y
// sums rsqrt.approx, ex2.approx, lg2.approx and div.approx results, which
// PTX defines only within error bounds (the reference uses the exact
// functions rounded to f32). Their errors add up to about 2^-20 in
// absolute terms (ex2 and rsqrt about 2^-22 relative on results up to 1,
// lg2 2^-22 absolute, div.approx 2 ulp on results up to 1.6), and each
// later f32 add may round the other way (1 ulp, up to 2^-20 for sums up
// to 8): y is compared within 2^-19 + 2^-21*|want|. Observed: at most
// 1 ulp (3e-8). Contractions as in the PTX of both levels: 1+v*v,
// lg2*ln2 + ex2, and both steps of p.
func ckSaxpyMath(ckEnv) ckCase {
	const n, count = 120, 128
	const lo, hi = float32(-0.5), float32(1.25)
	x := symF32(131, count)
	y := make([]float32, count)
	q := make([]int32, count)
	for i := 0; i < n; i++ {
		v := x[i]
		av := float32(math.Abs(float64(v)))
		m := float32(float64(float32(math.Sqrt(float64(av)))) / float64(fma32(v, v, 1)))
		r := float32(1 / math.Sqrt(float64(f32add(1, av))))
		c := min(max(v, lo), hi)
		ex := float32(math.Exp2(float64(f32mul(-av, 1.4426950408889634))))
		lg := float32(math.Log2(float64(f32add(1, av))))
		e := fma32(lg, 0.6931471805599453, ex)
		p := fma32(fma32(0.5, v, -1.25), 3, 0.0625)
		fd := float32(float64(v) / float64(hi))
		sat := min(max(v, 0), 1)
		s := f32add(m, r)
		s = f32add(s, c)
		s = f32add(s, e)
		s = f32add(s, p)
		s = f32add(s, fd)
		s = f32add(s, sat)
		y[i] = s
		q[i] = int32(math.RoundToEven(float64(f32mul(v, 8))))
	}
	return ckCase{
		grid: []int{2}, block: []int{64},
		params: []ckParam{
			ckBufHex("x", "f32", leF32(x)), ckBuf("y", "f32", count, "zero"), ckBuf("q", "s32", count, "zero"),
			ckScalar("n", "s32", fmt.Sprint(n)), ckScalar("lo", "f32", "-0.5"), ckScalar("hi", "f32", "1.25"),
		},
		expect: []ckExpect{
			{Param: "y", Values: hexF32(y), Tolerance: map[string]float64{"abs": 1.0 / (1 << 19), "rel": 1.0 / (1 << 21)}},
			ckExp("q", hexS32(q)),
		},
	}
}

// saxpy_fp.cu: saxpy_fp_double. fma(a,x,y) and v*v+1 are fma.rn.f64 at
// both levels; sqrt.rn, div.rn and the adds are correctly rounded in Go.
func ckSaxpyDouble(ckEnv) ckCase {
	const n, count = 100, 128
	const a = 2.75
	x, y, f := lcgF64(141, count), lcgF64(142, count), lcgF32(143, count)
	want := append([]float64(nil), y...)
	for i := 0; i < n; i++ {
		v := math.FMA(a, x[i], y[i])
		q := float64(math.Sqrt(math.FMA(v, v, 1)) / float64(v-3.5))
		want[i] = float64(q + float64(f[i]))
	}
	return ckCase{
		grid: []int{2}, block: []int{64},
		params: []ckParam{
			ckScalar("a", "f64", "2.75"), ckBuf("x", "f64", count, "lcg:141"),
			ckBuf("y", "f64", count, "lcg:142"), ckBuf("f", "f32", count, "lcg:143"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("y", hexF64(want))},
	}
}

// scan.cu: scan, an exclusive prefix sum per 512-element block (wrapping
// int arithmetic is associative, so the Blelloch order gives the plain
// prefix sums).
func ckScan(ckEnv) ckCase {
	const grid, N = 3, 512
	in := lcgS32(151, grid*N)
	out := make([]int32, grid*N)
	sums := make([]int32, grid)
	for b := 0; b < grid; b++ {
		var s int32
		for k := 0; k < N; k++ {
			out[b*N+k] = s
			s += in[b*N+k]
		}
		sums[b] = s
	}
	return ckCase{
		grid: []int{grid}, block: []int{N / 2},
		params: []ckParam{
			ckBuf("in", "s32", grid*N, "lcg:151"), ckBuf("out", "s32", grid*N, "zero"),
			ckBuf("blockSums", "s32", grid, "zero"),
		},
		expect: []ckExpect{ckExp("out", hexS32(out)), ckExp("blockSums", hexS32(sums))},
	}
}

// scan.cu: scan_inclusive, Hillis-Steele over one block of 256. The
// kernel ignores blockIdx, so each CTA computes and stores the same
// values: two CTAs are harmless.
func ckScanInclusive(ckEnv) ckCase {
	const block, n = 256, 200
	in := lcgF32(152, n)
	buf := make([]float32, block)
	copy(buf, in)
	for off := 1; off < block; off *= 2 {
		next := make([]float32, block)
		for t := range next {
			if t >= off {
				next[t] = f32add(buf[t], buf[t-off])
			} else {
				next[t] = buf[t]
			}
		}
		buf = next
	}
	out := make([]float32, block)
	copy(out, buf[:n])
	return ckCase{
		grid: []int{2}, block: []int{block},
		params: []ckParam{
			ckBuf("in", "f32", n, "lcg:152"), ckBuf("out", "f32", block, "zero"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{ckExp("out", hexF32(out))},
	}
}

// transpose.cu: transpose of a 40x70 matrix (partial tiles both ways).
func ckTranspose(ckEnv) ckCase {
	const width, height = 70, 40
	in := lcgF32(161, width*height)
	out := make([]float32, width*height)
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			out[x*height+y] = in[y*width+x]
		}
	}
	return ckCase{
		grid: []int{(width + 31) / 32, (height + 31) / 32}, block: []int{32, 8},
		params: []ckParam{
			ckBuf("odata", "f32", width*height, "zero"), ckBuf("idata", "f32", width*height, "lcg:161"),
			ckScalar("width", "s32", fmt.Sprint(width)), ckScalar("height", "s32", fmt.Sprint(height)),
		},
		expect: []ckExpect{ckExp("odata", hexF32(out))},
	}
}

// warpSumRef is warpSum over the 32 lanes: v += shfl.down(v, off) with
// lanes past 31 reading their own value.
func warpSumRef(v []float32) float32 {
	v = append([]float32(nil), v...)
	for off := 16; off > 0; off >>= 1 {
		next := make([]float32, 32)
		for l := range next {
			src := l
			if l+off < 32 {
				src = l + off
			}
			next[l] = f32add(v[l], v[src])
		}
		v = next
	}
	return v[0]
}

// warp_reduce.cu: warp_reduce. Each block's sum is exact in the kernel's
// order; the blocks meet in a float atomicAdd whose order the hardware
// picks, hence the tolerance.
func ckWarpReduce(ckEnv) ckCase {
	const grid, block, n = 3, 128, 350
	in := lcgF32(171, n)
	var total float32
	for b := 0; b < grid; b++ {
		var sums [32]float32
		for w := 0; w < block/32; w++ {
			lanes := make([]float32, 32)
			for l := range lanes {
				if i := b*block + w*32 + l; i < n {
					lanes[l] = in[i]
				}
			}
			sums[w] = warpSumRef(lanes)
		}
		total = f32add(total, warpSumRef(sums[:]))
	}
	return ckCase{
		grid: []int{grid}, block: []int{block},
		params: []ckParam{
			ckBuf("in", "f32", n, "lcg:171"), ckBuf("out", "f32", 1, "zero"),
			ckScalar("n", "s32", fmt.Sprint(n)),
		},
		expect: []ckExpect{{Param: "out", Values: hexF32([]float32{total}), Tolerance: map[string]float64{"ulp": 4}}},
	}
}

// warp_reduce.cu: warp_reduce_vote on small signed values.
func ckWarpReduceVote(ckEnv) ckCase {
	const grid, block = 2, 128
	const n = grid * block
	in := lcgS32(172, n)
	for i := range in {
		in[i] >>= 24
	}
	counts := make([]int32, n/32)
	maxes := make([]int32, n/32)
	prefix := make([]int32, n)
	for w := 0; w < n/32; w++ {
		m := int32(math.MinInt32)
		var s int32
		for l := 0; l < 32; l++ {
			v := in[w*32+l]
			if v > 0 {
				counts[w]++
			}
			m = max(m, v)
			s += v
			prefix[w*32+l] = s
		}
		maxes[w] = m
	}
	return ckCase{
		grid: []int{grid}, block: []int{block},
		params: []ckParam{
			ckBufHex("in", "s32", leS32(in)), ckBuf("counts", "s32", n/32, "zero"),
			ckBuf("maxes", "s32", n/32, "zero"), ckBuf("prefix", "s32", n, "zero"),
		},
		expect: []ckExpect{ckExp("counts", hexS32(counts)), ckExp("maxes", hexS32(maxes)), ckExp("prefix", hexS32(prefix))},
	}
}
