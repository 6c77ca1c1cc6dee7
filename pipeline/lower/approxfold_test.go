package lower

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/ptx"
)

// approxFoldTable is what ptxas 13.0.88 -O3 -arch=sm_90 folds
// op.approx{.ftz}.f32 of a constant to, read from the SASS (the
// immediate of the HFMA2.MMA/MOV that writes the stored register); -1
// where it leaves the instruction to run. The operand reaches the
// instruction as "mov.b32 %r2, bits; mov.b32 %f2, %r2".
// TestApproxFoldAgainstPtxas measures it again.
var approxFoldTable = []struct {
	op   string
	ftz  bool
	in   uint32
	want int64
}{
	{"rcp", false, 0x3f800000, 0x3f800000},
	{"rcp", false, 0x40400000, 0x3eaaaaab},
	{"rcp", false, 0x7f7fffff, 0x00200000},
	{"rcp", false, 0x00800000, 0x7e800000},
	{"rcp", false, 0x007fffff, 0x7e800001},
	{"rcp", false, 0x80000001, 0xff800000},
	{"rcp", false, 0x80000000, 0xff800000},
	{"rcp", false, 0x00000000, 0x7f800000},
	{"rcp", false, 0x7f800000, 0x00000000},
	{"rcp", false, 0xff800000, 0x80000000},
	{"rcp", false, 0x7fc00000, -1},
	{"rcp", false, 0xbf800000, 0xbf800000},
	{"rcp", false, 0x7ed4d57b, 0x004cfaf0},
	{"rcp", false, 0x3a040000, 0x44f83e10},
	{"rcp", false, 0x7149f2ca, 0x0da24260},
	{"rcp", false, 0xc2fe0000, 0xbc010204},
	{"rcp", false, 0xc3100000, 0xbbe38e39},
	{"rcp", false, 0x3eaaaaab, 0x40400000},
	{"rcp", false, 0x4b000001, 0x33fffffe},
	{"rcp", true, 0x3f800000, 0x3f800000},
	{"rcp", true, 0x40400000, 0x3eaaaaab},
	{"rcp", true, 0x7f7fffff, 0x00000000},
	{"rcp", true, 0x00800000, 0x7e800000},
	{"rcp", true, 0x007fffff, 0x7f800000},
	{"rcp", true, 0x80000001, 0xff800000},
	{"rcp", true, 0x80000000, 0xff800000},
	{"rcp", true, 0x00000000, 0x7f800000},
	{"rcp", true, 0x7f800000, 0x00000000},
	{"rcp", true, 0xff800000, 0x80000000},
	{"rcp", true, 0x7fc00000, -1},
	{"rcp", true, 0xbf800000, 0xbf800000},
	{"rcp", true, 0x7ed4d57b, 0x00000000},
	{"rcp", true, 0x3a040000, 0x44f83e10},
	{"rcp", true, 0x7149f2ca, 0x0da24260},
	{"rcp", true, 0xc2fe0000, 0xbc010204},
	{"rcp", true, 0xc3100000, 0xbbe38e39},
	{"rcp", true, 0x3eaaaaab, 0x40400000},
	{"rcp", true, 0x4b000001, 0x33fffffe},
	{"sqrt", false, 0x3f800000, 0x3f800000},
	{"sqrt", false, 0x40400000, 0x3fddb3d7},
	{"sqrt", false, 0x7f7fffff, 0x5f7fffff},
	{"sqrt", false, 0x00800000, 0x20000000},
	{"sqrt", false, 0x007fffff, 0x1fffffff},
	{"sqrt", false, 0x80000001, -1},
	{"sqrt", false, 0x80000000, 0x80000000},
	{"sqrt", false, 0x00000000, 0x00000000},
	{"sqrt", false, 0x7f800000, 0x7f800000},
	{"sqrt", false, 0xff800000, -1},
	{"sqrt", false, 0x7fc00000, -1},
	{"sqrt", false, 0xbf800000, -1},
	{"sqrt", false, 0x7ed4d57b, 0x5f250dc3},
	{"sqrt", false, 0x3a040000, 0x3cb7d375},
	{"sqrt", false, 0x7149f2ca, 0x58635fa9},
	{"sqrt", false, 0xc2fe0000, -1},
	{"sqrt", false, 0xc3100000, -1},
	{"sqrt", false, 0x3eaaaaab, 0x3f13cd3a},
	{"sqrt", false, 0x4b000001, 0x453504f4},
	{"sqrt", true, 0x3f800000, 0x3f800000},
	{"sqrt", true, 0x40400000, 0x3fddb3d7},
	{"sqrt", true, 0x7f7fffff, 0x5f7fffff},
	{"sqrt", true, 0x00800000, 0x20000000},
	{"sqrt", true, 0x007fffff, 0x00000000},
	{"sqrt", true, 0x80000001, 0x80000000},
	{"sqrt", true, 0x80000000, 0x80000000},
	{"sqrt", true, 0x00000000, 0x00000000},
	{"sqrt", true, 0x7f800000, 0x7f800000},
	{"sqrt", true, 0xff800000, -1},
	{"sqrt", true, 0x7fc00000, -1},
	{"sqrt", true, 0xbf800000, -1},
	{"sqrt", true, 0x7ed4d57b, 0x5f250dc3},
	{"sqrt", true, 0x3a040000, 0x3cb7d375},
	{"sqrt", true, 0x7149f2ca, 0x58635fa9},
	{"sqrt", true, 0xc2fe0000, -1},
	{"sqrt", true, 0xc3100000, -1},
	{"sqrt", true, 0x3eaaaaab, 0x3f13cd3a},
	{"sqrt", true, 0x4b000001, 0x453504f4},
	{"rsqrt", false, 0x3f800000, 0x3f800000},
	{"rsqrt", false, 0x40400000, 0x3f13cd3a},
	{"rsqrt", false, 0x7f7fffff, 0x1f800000},
	{"rsqrt", false, 0x00800000, 0x5f000000},
	{"rsqrt", false, 0x007fffff, 0x5f000001},
	{"rsqrt", false, 0x80000001, -1},
	{"rsqrt", false, 0x80000000, 0xff800000},
	{"rsqrt", false, 0x00000000, 0x7f800000},
	{"rsqrt", false, 0x7f800000, 0x00000000},
	{"rsqrt", false, 0xff800000, -1},
	{"rsqrt", false, 0x7fc00000, -1},
	{"rsqrt", false, 0xbf800000, -1},
	{"rsqrt", false, 0x7ed4d57b, 0x1fc6877e},
	{"rsqrt", false, 0x3a040000, 0x4232416a},
	{"rsqrt", false, 0x7149f2ca, 0x26901d7d},
	{"rsqrt", false, 0xc2fe0000, -1},
	{"rsqrt", false, 0xc3100000, -1},
	{"rsqrt", false, 0x3eaaaaab, 0x3fddb3d7},
	{"rsqrt", false, 0x4b000001, 0x39b504f2},
	{"rsqrt", true, 0x3f800000, 0x3f800000},
	{"rsqrt", true, 0x40400000, 0x3f13cd3a},
	{"rsqrt", true, 0x7f7fffff, 0x1f800000},
	{"rsqrt", true, 0x00800000, 0x5f000000},
	{"rsqrt", true, 0x007fffff, 0x7f800000},
	{"rsqrt", true, 0x80000001, 0xff800000},
	{"rsqrt", true, 0x80000000, 0xff800000},
	{"rsqrt", true, 0x00000000, 0x7f800000},
	{"rsqrt", true, 0x7f800000, 0x00000000},
	{"rsqrt", true, 0xff800000, -1},
	{"rsqrt", true, 0x7fc00000, -1},
	{"rsqrt", true, 0xbf800000, -1},
	{"rsqrt", true, 0x7ed4d57b, 0x1fc6877e},
	{"rsqrt", true, 0x3a040000, 0x4232416a},
	{"rsqrt", true, 0x7149f2ca, 0x26901d7d},
	{"rsqrt", true, 0xc2fe0000, -1},
	{"rsqrt", true, 0xc3100000, -1},
	{"rsqrt", true, 0x3eaaaaab, 0x3fddb3d7},
	{"rsqrt", true, 0x4b000001, 0x39b504f2},
	{"lg2", false, 0x3f800000, 0x00000000},
	{"lg2", false, 0x40400000, 0x3fcae00d},
	{"lg2", false, 0x7f7fffff, 0x43000000},
	{"lg2", false, 0x00800000, 0xc2fc0000},
	{"lg2", false, 0x007fffff, 0xc2fc0000},
	{"lg2", false, 0x80000001, -1},
	{"lg2", false, 0x80000000, -1},
	{"lg2", false, 0x00000000, -1},
	{"lg2", false, 0x7f800000, 0x7f800000},
	{"lg2", false, 0xff800000, -1},
	{"lg2", false, 0x7fc00000, -1},
	{"lg2", false, 0xbf800000, -1},
	{"lg2", false, 0x7ed4d57b, 0x42fd7798},
	{"lg2", false, 0x3a040000, 0xc12f4a29},
	{"lg2", false, 0x7149f2ca, 0x42c750d1},
	{"lg2", false, 0xc2fe0000, -1},
	{"lg2", false, 0xc3100000, -1},
	{"lg2", false, 0x3eaaaaab, 0xbfcae00d},
	{"lg2", false, 0x4b000001, 0x41b80000},
	{"lg2", true, 0x3f800000, 0x00000000},
	{"lg2", true, 0x40400000, 0x3fcae00d},
	{"lg2", true, 0x7f7fffff, 0x43000000},
	{"lg2", true, 0x00800000, 0xc2fc0000},
	{"lg2", true, 0x007fffff, -1},
	{"lg2", true, 0x80000001, -1},
	{"lg2", true, 0x80000000, -1},
	{"lg2", true, 0x00000000, -1},
	{"lg2", true, 0x7f800000, 0x7f800000},
	{"lg2", true, 0xff800000, -1},
	{"lg2", true, 0x7fc00000, -1},
	{"lg2", true, 0xbf800000, -1},
	{"lg2", true, 0x7ed4d57b, 0x42fd7798},
	{"lg2", true, 0x3a040000, 0xc12f4a29},
	{"lg2", true, 0x7149f2ca, 0x42c750d1},
	{"lg2", true, 0xc2fe0000, -1},
	{"lg2", true, 0xc3100000, -1},
	{"lg2", true, 0x3eaaaaab, 0xbfcae00d},
	{"lg2", true, 0x4b000001, 0x41b80000},
	{"ex2", false, 0x3f800000, 0x40000000},
	{"ex2", false, 0x40400000, 0x41000000},
	{"ex2", false, 0x7f7fffff, 0x7f800000},
	{"ex2", false, 0x00800000, 0x3f800000},
	{"ex2", false, 0x007fffff, 0x3f800000},
	{"ex2", false, 0x80000001, 0x3f800000},
	{"ex2", false, 0x80000000, 0x3f800000},
	{"ex2", false, 0x00000000, 0x3f800000},
	{"ex2", false, 0x7f800000, 0x7f800000},
	{"ex2", false, 0xff800000, 0x00000000},
	{"ex2", false, 0x7fc00000, -1},
	{"ex2", false, 0xbf800000, 0x3f000000},
	{"ex2", false, 0x7ed4d57b, 0x7f800000},
	{"ex2", false, 0x3a040000, 0x3f800b70},
	{"ex2", false, 0x7149f2ca, 0x7f800000},
	{"ex2", false, 0xc2fe0000, 0x00400000},
	{"ex2", false, 0xc3100000, 0x00000020},
	{"ex2", false, 0x3eaaaaab, 0x3fa14518},
	{"ex2", false, 0x4b000001, 0x7f800000},
	{"ex2", true, 0x3f800000, 0x40000000},
	{"ex2", true, 0x40400000, 0x41000000},
	{"ex2", true, 0x7f7fffff, 0x7f800000},
	{"ex2", true, 0x00800000, 0x3f800000},
	{"ex2", true, 0x007fffff, 0x3f800000},
	{"ex2", true, 0x80000001, 0x3f800000},
	{"ex2", true, 0x80000000, 0x3f800000},
	{"ex2", true, 0x00000000, 0x3f800000},
	{"ex2", true, 0x7f800000, 0x7f800000},
	{"ex2", true, 0xff800000, 0x00000000},
	{"ex2", true, 0x7fc00000, -1},
	{"ex2", true, 0xbf800000, 0x3f000000},
	{"ex2", true, 0x7ed4d57b, 0x7f800000},
	{"ex2", true, 0x3a040000, 0x3f800b70},
	{"ex2", true, 0x7149f2ca, 0x7f800000},
	{"ex2", true, 0xc2fe0000, 0x00000000},
	{"ex2", true, 0xc3100000, 0x00000000},
	{"ex2", true, 0x3eaaaaab, 0x3fa14518},
	{"ex2", true, 0x4b000001, 0x7f800000},
	{"sin", false, 0x3f800000, 0x3f576aa4},
	{"sin", false, 0x40400000, 0x3e1081c3},
	{"sin", false, 0x7f7fffff, 0xbf0599b3},
	{"sin", false, 0x00800000, 0x00800000},
	{"sin", false, 0x007fffff, 0x00000000},
	{"sin", false, 0x80000001, 0x80000000},
	{"sin", false, 0x80000000, 0x80000000},
	{"sin", false, 0x00000000, 0x00000000},
	{"sin", false, 0x7f800000, -1},
	{"sin", false, 0xff800000, -1},
	{"sin", false, 0x7fc00000, -1},
	{"sin", false, 0xbf800000, 0xbf576aa4},
	{"sin", false, 0x7ed4d57b, 0x3eee2508},
	{"sin", false, 0x3a040000, 0x3a040000},
	{"sin", false, 0x7149f2ca, 0xbf4a89b0},
	{"sin", false, 0xc2fe0000, 0xbf78fe49},
	{"sin", false, 0xc3100000, 0x3efb672f},
	{"sin", false, 0x3eaaaaab, 0x3ea78611},
	{"sin", false, 0x4b000001, 0xbf067728},
	{"sin", true, 0x3f800000, 0x3f576aa4},
	{"sin", true, 0x40400000, 0x3e1081c3},
	{"sin", true, 0x7f7fffff, 0xbf0599b3},
	{"sin", true, 0x00800000, 0x00800000},
	{"sin", true, 0x007fffff, 0x00000000},
	{"sin", true, 0x80000001, 0x80000000},
	{"sin", true, 0x80000000, 0x80000000},
	{"sin", true, 0x00000000, 0x00000000},
	{"sin", true, 0x7f800000, -1},
	{"sin", true, 0xff800000, -1},
	{"sin", true, 0x7fc00000, -1},
	{"sin", true, 0xbf800000, 0xbf576aa4},
	{"sin", true, 0x7ed4d57b, 0x3eee2508},
	{"sin", true, 0x3a040000, 0x3a040000},
	{"sin", true, 0x7149f2ca, 0xbf4a89b0},
	{"sin", true, 0xc2fe0000, 0xbf78fe49},
	{"sin", true, 0xc3100000, 0x3efb672f},
	{"sin", true, 0x3eaaaaab, 0x3ea78611},
	{"sin", true, 0x4b000001, 0xbf067728},
	{"cos", false, 0x3f800000, 0x3f0a5140},
	{"cos", false, 0x40400000, 0xbf7d7026},
	{"cos", false, 0x7f7fffff, 0x3f5a5f96},
	{"cos", false, 0x00800000, 0x3f800000},
	{"cos", false, 0x007fffff, 0x3f800000},
	{"cos", false, 0x80000001, 0x3f800000},
	{"cos", false, 0x80000000, 0x3f800000},
	{"cos", false, 0x00000000, 0x3f800000},
	{"cos", false, 0x7f800000, -1},
	{"cos", false, 0xff800000, -1},
	{"cos", false, 0x7fc00000, -1},
	{"cos", false, 0xbf800000, 0x3f0a5140},
	{"cos", false, 0x7ed4d57b, 0x3f629f60},
	{"cos", false, 0x3a040000, 0x3f7ffffe},
	{"cos", false, 0x7149f2ca, 0xbf1c9222},
	{"cos", false, 0xc2fe0000, 0x3e6def8b},
	{"cos", false, 0xc3100000, 0x3f5f0384},
	{"cos", false, 0x3eaaaaab, 0x3f71e8b3},
	{"cos", false, 0x4b000001, 0xbf59d77f},
	{"cos", true, 0x3f800000, 0x3f0a5140},
	{"cos", true, 0x40400000, 0xbf7d7026},
	{"cos", true, 0x7f7fffff, 0x3f5a5f96},
	{"cos", true, 0x00800000, 0x3f800000},
	{"cos", true, 0x007fffff, 0x3f800000},
	{"cos", true, 0x80000001, 0x3f800000},
	{"cos", true, 0x80000000, 0x3f800000},
	{"cos", true, 0x00000000, 0x3f800000},
	{"cos", true, 0x7f800000, -1},
	{"cos", true, 0xff800000, -1},
	{"cos", true, 0x7fc00000, -1},
	{"cos", true, 0xbf800000, 0x3f0a5140},
	{"cos", true, 0x7ed4d57b, 0x3f629f60},
	{"cos", true, 0x3a040000, 0x3f7ffffe},
	{"cos", true, 0x7149f2ca, 0xbf1c9222},
	{"cos", true, 0xc2fe0000, 0x3e6def8b},
	{"cos", true, 0xc3100000, 0x3f5f0384},
	{"cos", true, 0x3eaaaaab, 0x3f71e8b3},
	{"cos", true, 0x4b000001, 0xbf59d77f},
}

func TestApproxFold32Table(t *testing.T) {
	for _, r := range approxFoldTable {
		got, ok := ApproxFold32(r.op, r.ftz, r.in)
		if !ok && r.want != -1 || ok && int64(got) != r.want {
			t.Errorf("%s: folds to %s, ptxas 13.0: %s", approxFoldName(r.op, r.ftz, r.in), foldText(int64(got), ok), foldText(r.want, r.want != -1))
		}
	}
}

func approxFoldName(op string, ftz bool, in uint32) string {
	f := ""
	if ftz {
		f = ".ftz"
	}
	return fmt.Sprintf("%s.approx%s.f32(%#08x)", op, f, in)
}

func foldText(v int64, ok bool) string {
	if !ok {
		return "not folded"
	}
	return fmt.Sprintf("%#08x", v)
}

// approxSweepInputs returns n inputs per form, weighted towards where
// the rule has cases: subnormals, the top and bottom binades, and
// [1, 512) where ex2, sin and cos vary most.
func approxSweepInputs(rng *rand.Rand, n int) []uint32 {
	var in []uint32
	sign := func() uint32 { return uint32(rng.Intn(2)) << 31 }
	for range n {
		m := rng.Uint32() & 0x7fffff
		switch k := rng.Intn(10); {
		case k < 3:
			in = append(in, rng.Uint32())
		case k < 5:
			in = append(in, m|sign())
		case k < 7:
			e := []uint32{0xfe, 0xfd, 0x01, 0x02}[rng.Intn(4)]
			in = append(in, m|e<<23|sign())
		default:
			in = append(in, m|uint32(0x7f+rng.Intn(9))<<23|sign())
		}
	}
	return in
}

// TestApproxFoldAgainstPtxas compiles every row of approxFoldTable and a
// seeded random sweep (60 inputs per op and .ftz) with ptxas -O3 and
// compares the constant in its SASS with ApproxFold32. ORILAB_APPROXFOLD_N
// sets the sweep's size (the rule in approxfold.go was checked with
// 2,000 per form).
func TestApproxFoldAgainstPtxas(t *testing.T) {
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	n := 60
	if s := os.Getenv("ORILAB_APPROXFOLD_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ORILAB_APPROXFOLD_N=%q: %v", s, err)
		}
		n = v
	}
	type row struct {
		op  string
		ftz bool
		in  uint32
	}
	var rows []row
	for _, r := range approxFoldTable {
		rows = append(rows, row{r.op, r.ftz, r.in})
	}
	rng := rand.New(rand.NewSource(18))
	for _, op := range []string{"rcp", "sqrt", "rsqrt", "lg2", "ex2", "sin", "cos"} {
		for _, ftz := range []bool{false, true} {
			for _, in := range approxSweepInputs(rng, n) {
				rows = append(rows, row{op, ftz, in})
			}
		}
	}
	// ptxas slows down more than linearly with the number of entries in
	// a module: compile the kernels in modules of 400.
	got := map[string]int64{}
	var all strings.Builder
	dir := t.TempDir()
	for lo := 0; lo < len(rows); lo += 400 {
		var b strings.Builder
		b.WriteString(".version 8.8\n.target sm_90\n.address_size 64\n")
		for i := lo; i < min(lo+400, len(rows)); i++ {
			r := rows[i]
			f := ""
			if r.ftz {
				f = ".ftz"
			}
			fmt.Fprintf(&b, `.visible .entry k_%d(.param .u64 p)
{
	.reg .b32 %%r<3>;
	.reg .f32 %%f<10>;
	.reg .b64 %%rd<2>;
	ld.param.u64 %%rd1, [p];
	mov.b32 %%r2, %#08x;
	mov.b32 %%f2, %%r2;
	%s.approx%s.f32 %%f9, %%f2;
	st.global.f32 [%%rd1], %%f9;
	ret;
}
`, i, r.in, r.op, f)
		}
		all.WriteString(b.String()[len(".version 8.8\n.target sm_90\n.address_size 64\n"):])
		file := filepath.Join(dir, fmt.Sprintf("fold%d.ptx", lo))
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cubin := file + ".cubin"
		if out, err := exec.Command(ptxas, "-O3", "-arch", "sm_90", "-o", cubin, file).CombinedOutput(); err != nil {
			t.Fatalf("ptxas: %v\n%s", err, out)
		}
		out, err := exec.Command(cuobjdump, "-sass", cubin).Output()
		if err != nil {
			t.Fatalf("cuobjdump: %v", err)
		}
		part, err := sassStoredConstants(out)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range part {
			got[k] = v
		}
	}
	// Each kernel must fold at lowering exactly when ptxas folds.
	pm, err := ptx.Parse("fold.ptx", []byte(".version 8.8\n.target sm_90\n.address_size 64\n"+all.String()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lower(pm, Options{})
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	lowered := map[string]string{}
	for _, f := range m.Funcs {
		lowered[f.Name] = f.String()
	}
	bad := 0
	for i, r := range rows {
		name := fmt.Sprintf("k_%d", i)
		pv, pok := got[name]
		if !pok {
			t.Fatalf("no SASS for %s", name)
		}
		v, ok := ApproxFold32(r.op, r.ftz, r.in)
		if ok != (pv >= 0) || ok && int64(v) != pv {
			bad++
			if bad <= 20 {
				t.Errorf("%s: ptxas %s, ApproxFold32 %s", approxFoldName(r.op, r.ftz, r.in), foldText(pv, pv >= 0), foldText(int64(v), ok))
			}
		}
		if hasMufu := strings.Contains(lowered[name], "MUFU"); hasMufu == ok {
			t.Errorf("%s: lowering folds: %v, ApproxFold32: %v\n%s", approxFoldName(r.op, r.ftz, r.in), !hasMufu, ok, lowered[name])
		}
	}
	t.Logf("%d inputs (%d pinned, %d random), %d differ from ptxas", len(rows), len(approxFoldTable), len(rows)-len(approxFoldTable), bad)
}

var (
	sassFunction = regexp.MustCompile(`Function : (\S+)`)
	sassInstr    = regexp.MustCompile(`/\*[0-9a-f]{4}\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/`)
)

// sassStoredConstants reads cuobjdump -sass output and returns, for each
// function, the 32-bit value its STG stores when the function computes
// it at compile time (the immediate in the upper half of the instruction
// word that last writes the register, 0 for RZ), or -1 when it runs a
// floating-point instruction.
func sassStoredConstants(sass []byte) (map[string]int64, error) {
	type ins struct {
		text string
		enc  uint64
	}
	res := map[string]int64{}
	var name string
	var body []ins
	flush := func() error {
		if name == "" {
			return nil
		}
		var stored string
		for _, in := range body {
			op := strings.Fields(in.text)[0]
			for _, p := range []string{"MUFU", "FMUL", "FFMA", "FADD", "FSEL", "FSETP", "F2F"} {
				if strings.HasPrefix(op, p) {
					res[name] = -1
					return nil
				}
			}
			if strings.HasPrefix(op, "STG") {
				f := strings.Split(in.text, ",")
				stored = strings.TrimSpace(f[len(f)-1])
			}
		}
		if stored == "" {
			return fmt.Errorf("%s: no STG", name)
		}
		if stored == "RZ" {
			res[name] = 0
			return nil
		}
		for i := len(body) - 1; i >= 0; i-- {
			f := strings.Fields(strings.ReplaceAll(body[i].text, ",", " "))
			if len(f) > 1 && f[1] == stored && !strings.HasPrefix(f[0], "STG") {
				res[name] = int64(body[i].enc >> 32)
				return nil
			}
		}
		return fmt.Errorf("%s: nothing writes %s", name, stored)
	}
	for _, line := range bytes.Split(sass, []byte("\n")) {
		if m := sassFunction.FindSubmatch(line); m != nil {
			if err := flush(); err != nil {
				return nil, err
			}
			name, body = string(m[1]), nil
			continue
		}
		if m := sassInstr.FindSubmatch(line); m != nil {
			enc, err := strconv.ParseUint(string(m[2])[2:], 16, 64)
			if err != nil {
				return nil, err
			}
			body = append(body, ins{string(m[1]), enc})
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return res, nil
}

// The operand counts as a constant when every definition that reaches
// it gives the same constant through mov, cvt, neg/abs and folded
// functions; a register of the same name declared in a nested block is
// another register. The folded value is the one ptxas 13.0 writes
// (ptxas -O3 -arch=sm_90 SASS of each body, where noted; 0x4432416a is
// fuzz5551215's rsqrt of cvt.f32.f16 of 0x21).
func TestApproxFoldSources(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       string // the immediate moved, "" for MUFU
	}{
		{"mov", "mov.f32 %f2, 0f40400000;\n\tsin.approx.ftz.f32 %f9, %f2;", "0x3e1081c3"},
		{"cvt-chain", "mov.u32 %r2, 0x21;\n\tcvt.u16.u32 %rs2, %r2;\n\tcvt.f32.f16 %f2, %rs2;\n\trsqrt.approx.f32 %f9, %f2;", "0x4432416a"},
		{"cvt-int", "mov.u32 %r2, 7;\n\tcvt.rn.f32.u32 %f2, %r2;\n\tsin.approx.f32 %f9, %f2;", "0x3f283046"},
		{"cvt-f64", "mov.f64 %fd2, 0d4008000000000000;\n\tcvt.rn.f32.f64 %f2, %fd2;\n\tcos.approx.f32 %f9, %f2;", "0xbf7d7026"},
		{"neg", "mov.f32 %f2, 0f40400000;\n\tneg.f32 %f3, %f2;\n\tex2.approx.f32 %f9, %f3;", "0x3e000000"},
		{"chain", "mov.f32 %f2, 0f40400000;\n\tsin.approx.f32 %f3, %f2;\n\tcos.approx.f32 %f9, %f3;", "0x3f7d7483"},
		{"same-on-both-paths", "mov.f32 %f2, 0f40400000;\n\t@%p1 mov.f32 %f2, 0f40400000;\n\tlg2.approx.f32 %f9, %f2;", "0x3fcae00d"},
		{"differs-on-a-path", "mov.f32 %f2, 0f40400000;\n\t@%p1 mov.f32 %f2, 0f40000000;\n\tlg2.approx.f32 %f9, %f2;", ""},
		{"guarded-use", "mov.f32 %f2, 0f40400000;\n\t@%p1 lg2.approx.f32 %f9, %f2;", "0x3fcae00d"},
		{"loaded", "ld.global.f32 %f2, [%rd1];\n\tlg2.approx.f32 %f9, %f2;", ""},
		{"shadowed", "mov.f32 %f2, 0f40400000;\n\t{\n\t.reg .f32 %f<3>;\n\tld.global.f32 %f2, [%rd1];\n\t}\n\tlg2.approx.f32 %f9, %f2;", "0x3fcae00d"},
		{"inner-register", "mov.f32 %f2, 0f40400000;\n\t{\n\t.reg .f32 %f<3>;\n\tld.global.f32 %f2, [%rd1];\n\tlg2.approx.f32 %f9, %f2;\n\t}", ""},
		// ptxas folds these too; orilab does not follow arithmetic
		// (approxfold.go, known limits).
		{"add", "mov.f32 %f2, 0f40400000;\n\tadd.f32 %f3, %f2, 0f3F800000;\n\trsqrt.approx.f32 %f9, %f3;", ""},
		// Not folded by ptxas.
		{"tanh", "mov.f32 %f2, 0f3F000000;\n\ttanh.approx.f32 %f9, %f2;", ""},
		{"nan", "mov.f32 %f2, 0f7FC00000;\n\tsin.approx.f32 %f9, %f2;", ""},
	} {
		src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 v)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<3>;
	.reg .b16 %rs<3>;
	.reg .f32 %f<10>;
	.reg .f64 %fd<3>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [v];
	setp.ne.u32 %p1, %r1, 3;
	` + c.body + `
	st.global.f32 [%rd1], %f9;
	ret;
}
`
		text := lowerFile(t, c.name+".ptx", []byte(src)).String()
		mufu := strings.Contains(text, "MUFU")
		switch {
		case c.want == "" && !mufu:
			t.Errorf("%s: folded, want MUFU\n%s", c.name, text)
		case c.want != "" && (mufu || !strings.Contains(text, "= "+oriImm(c.want)+" ;")):
			t.Errorf("%s: want a move of %s and no MUFU\n%s", c.name, c.want, text)
		}
	}
}

// oriImm returns how the Ori printer writes the 32-bit immediate given in
// hex: as a signed number.
func oriImm(hex string) string {
	v, err := strconv.ParseUint(hex, 0, 32)
	if err != nil {
		panic(err)
	}
	if int32(v) < 0 {
		return fmt.Sprintf("-%#x", -int64(int32(v)))
	}
	return fmt.Sprintf("%#x", v)
}

// The knob's option keeps every instruction on the unit.
func TestApproxFoldOff(t *testing.T) {
	src := []byte(`.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<2>;
	.reg .f32 %f<10>;
	ld.param.u64 %rd1, [out];
	mov.f32 %f2, 0f40400000;
	rsqrt.approx.ftz.f32 %f9, %f2;
	st.global.f32 [%rd1], %f9;
	ret;
}
`)
	pm, err := ptx.Parse("off.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lower(pm, Options{NoApproxFold: true})
	if err != nil {
		t.Fatal(err)
	}
	if text := m.String(); !strings.Contains(text, "MUFU.RSQ") {
		t.Errorf("NoApproxFold: want MUFU.RSQ\n%s", text)
	}
}
