package pipeline

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/sim/fp"
	"orilab/pipeline/spec"
)

// The tensor-core tests run one mma.sync (or ldmatrix) per shape and type
// on random fragments and compare every lane's result with a reference
// written here from the PTX manual's fragment tables, element by element
// ("a_i: row = groupID for i < 2, groupID + 8 otherwise ..."), not from
// the simulator's register-indexed formulas.

// mmaCase is one mma.sync form under test.
type mmaCase struct {
	ptx        string // the mma's shape and types, after "mma.sync.aligned."
	arch       string
	ab, cd     string // element kinds: f16 bf16 tf32 s8 u8 f64 f32 s32
	b          string // B's kind when it differs from A's
	m, k       int
	na, nb, nc int // 32-bit words per lane
	sat        bool
}

var mmaCases = []mmaCase{
	{ptx: "m16n8k16.row.col.f32.f16.f16.f32", arch: "sm_80", ab: "f16", cd: "f32", m: 16, k: 16, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k16.row.col.f16.f16.f16.f16", arch: "sm_80", ab: "f16", cd: "f16", m: 16, k: 16, na: 4, nb: 2, nc: 2},
	{ptx: "m16n8k8.row.col.f32.f16.f16.f32", arch: "sm_80", ab: "f16", cd: "f32", m: 16, k: 8, na: 2, nb: 1, nc: 4},
	{ptx: "m16n8k8.row.col.f16.f16.f16.f16", arch: "sm_80", ab: "f16", cd: "f16", m: 16, k: 8, na: 2, nb: 1, nc: 2},
	{ptx: "m16n8k16.row.col.f32.bf16.bf16.f32", arch: "sm_80", ab: "bf16", cd: "f32", m: 16, k: 16, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k8.row.col.f32.bf16.bf16.f32", arch: "sm_80", ab: "bf16", cd: "f32", m: 16, k: 8, na: 2, nb: 1, nc: 4},
	{ptx: "m16n8k8.row.col.f32.tf32.tf32.f32", arch: "sm_80", ab: "tf32", cd: "f32", m: 16, k: 8, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k4.row.col.f32.tf32.tf32.f32", arch: "sm_80", ab: "tf32", cd: "f32", m: 16, k: 4, na: 2, nb: 1, nc: 4},
	{ptx: "m16n8k32.row.col.s32.s8.s8.s32", arch: "sm_80", ab: "s8", cd: "s32", m: 16, k: 32, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k32.row.col.satfinite.s32.u8.s8.s32", arch: "sm_80", ab: "u8", b: "s8", cd: "s32", m: 16, k: 32, na: 4, nb: 2, nc: 4, sat: true},
	{ptx: "m16n8k16.row.col.s32.s8.u8.s32", arch: "sm_80", ab: "s8", b: "u8", cd: "s32", m: 16, k: 16, na: 2, nb: 1, nc: 4},
	{ptx: "m8n8k16.row.col.s32.s8.s8.s32", arch: "sm_75", ab: "s8", cd: "s32", m: 8, k: 16, na: 1, nb: 1, nc: 2},
	{ptx: "m8n8k4.row.col.f64.f64.f64.f64", arch: "sm_80", ab: "f64", cd: "f64", m: 8, k: 4, na: 2, nb: 2, nc: 4},
}

// kernel returns the PTX: lane l loads its A, B and C words from
// a[l*na..], b[l*nb..], c[l*nc..], runs the mma and stores D to d[l*nc..].
func (mc mmaCase) kernel() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, ".version 7.8\n.target %s\n.address_size 64\n", mc.arch)
	sb.WriteString(".visible .entry mma_test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n")
	sb.WriteString("\t.reg .b32 %a<4>, %b<2>, %c<4>, %d<4>, %t;\n\t.reg .b64 %fa, %fb, %fc<2>, %fd<2>;\n\t.reg .b64 %p<4>, %q<4>, %off;\n")
	sb.WriteString("\tmov.u32 %t, %tid.x;\n")
	ptrs := []string{"pa", "pb", "pc", "pd"}
	words := []int{mc.na, mc.nb, mc.nc, mc.nc}
	for i, p := range ptrs {
		fmt.Fprintf(&sb, "\tld.param.u64 %%p%d, [%s];\n\tmul.wide.u32 %%off, %%t, %d;\n\tadd.u64 %%q%d, %%p%d, %%off;\n", i, p, 4*words[i], i, i)
	}
	list := func(prefix string, n int) string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, fmt.Sprintf("%%%s%d", prefix, i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	if mc.ab == "f64" {
		sb.WriteString("\tld.global.b64 %fa, [%q0];\n\tld.global.b64 %fb, [%q1];\n")
		sb.WriteString("\tld.global.b64 %fc0, [%q2];\n\tld.global.b64 %fc1, [%q2+8];\n")
		fmt.Fprintf(&sb, "\tmma.sync.aligned.%s {%%fd0, %%fd1}, {%%fa}, {%%fb}, {%%fc0, %%fc1};\n", mc.ptx)
		sb.WriteString("\tst.global.b64 [%q3], %fd0;\n\tst.global.b64 [%q3+8], %fd1;\n\tret;\n}\n")
		return sb.String()
	}
	for i, n := range []int{mc.na, mc.nb, mc.nc} {
		for j := 0; j < n; j++ {
			fmt.Fprintf(&sb, "\tld.global.b32 %%%c%d, [%%q%d+%d];\n", "abc"[i], j, i, 4*j)
		}
	}
	fmt.Fprintf(&sb, "\tmma.sync.aligned.%s %s, %s, %s, %s;\n", mc.ptx, list("d", mc.nc), list("a", mc.na), list("b", mc.nb), list("c", mc.nc))
	for j := 0; j < mc.nc; j++ {
		fmt.Fprintf(&sb, "\tst.global.b32 [%%q3+%d], %%d%d;\n", 4*j, j)
	}
	sb.WriteString("\tret;\n}\n")
	return sb.String()
}

// elemBits is the width of one element of kind k.
func elemBits(k string) int {
	switch k {
	case "f16", "bf16":
		return 16
	case "s8", "u8":
		return 8
	case "f64":
		return 64
	}
	return 32
}

// The manual's fragment tables: for lane (groupID g, threadID_in_group t)
// and element index i of the fragment, the row and column it holds.
func (mc mmaCase) aPos(g, t, i int) (row, col int) {
	switch {
	case mc.ab == "f64": // m8n8k4: a0 at (g, t)
		return g, t
	case mc.m == 8: // m8n8k16 s8: a0..a3 at (g, 4t+i)
		return g, 4*t + i
	case elemBits(mc.ab) == 16 && mc.k == 16: // a0..a7
		row = g
		if i == 2 || i == 3 || i == 6 || i == 7 {
			row = g + 8
		}
		col = 2*t + i%2
		if i >= 4 {
			col += 8
		}
		return
	case elemBits(mc.ab) == 16: // k8: a0..a3
		row = g
		if i >= 2 {
			row = g + 8
		}
		return row, 2*t + i%2
	case mc.ab == "tf32" && mc.k == 8: // a0..a3
		row = g
		if i == 1 || i == 3 {
			row = g + 8
		}
		col = t
		if i >= 2 {
			col = t + 4
		}
		return
	case mc.ab == "tf32": // k4: a0, a1
		return g + 8*i, t
	case mc.k == 32: // s8/u8 a0..a15
		row = g
		if i >= 4 && i < 8 || i >= 12 {
			row = g + 8
		}
		col = 4*t + i%4
		if i >= 8 {
			col += 16
		}
		return
	default: // s8/u8 m16n8k16: a0..a7
		row = g
		if i >= 4 {
			row = g + 8
		}
		return row, 4*t + i%4
	}
}

func (mc mmaCase) bPos(g, t, i int) (row, col int) {
	switch {
	case mc.ab == "f64":
		return t, g
	case elemBits(mc.ab) == 16 && mc.k == 16: // b0..b3
		row = 2*t + i%2
		if i >= 2 {
			row += 8
		}
		return row, g
	case elemBits(mc.ab) == 16: // b0, b1
		return 2*t + i, g
	case mc.ab == "tf32": // k8: b0 at row t, b1 at t+4; k4: b0
		return t + 4*i, g
	case mc.k == 32: // b0..b7
		row = 4*t + i%4
		if i >= 4 {
			row += 16
		}
		return row, g
	default: // k16 (m16n8k16 and m8n8k16): b0..b3
		return 4*t + i, g
	}
}

func (mc mmaCase) cPos(g, t, i int) (row, col int) {
	if mc.m == 8 { // c0, c1 at (g, 2t+i)
		return g, 2*t + i
	}
	row = g
	if i >= 2 {
		row = g + 8
	}
	return row, 2*t + i%2
}

// randElem returns random bits of an element of kind k, kept to modest
// magnitudes so that sums need rounding but do not overflow.
func randElem(r *rand.Rand, k string) uint64 {
	switch k {
	case "f16":
		return uint64(r.Intn(2)<<15 | (15+r.Intn(13)-6)<<10 | r.Intn(1024))
	case "bf16":
		return uint64(r.Intn(2)<<15 | (127+r.Intn(13)-6)<<7 | r.Intn(128))
	case "tf32", "f32":
		return uint64(uint32(r.Intn(2))<<31 | uint32(127+r.Intn(21)-10)<<23 | uint32(r.Intn(1<<23)))
	case "f64":
		return math.Float64bits((r.Float64()*8 - 4) * math.Pow(2, float64(r.Intn(41)-20)))
	}
	return uint64(r.Uint32()) & (1<<uint(elemBits(k)) - 1)
}

// toRat is the exact value of an element.
func toRat(v uint64, k string) *big.Rat {
	var f float64
	switch k {
	case "f16":
		f = float64(math.Float32frombits(fp.F16toF32(uint16(v))))
	case "bf16":
		f = float64(math.Float32frombits(uint32(v) << 16))
	case "tf32":
		f = float64(math.Float32frombits(uint32(v) &^ 0x1fff)) // the unit reads 19 bits
	case "f32":
		f = float64(math.Float32frombits(uint32(v)))
	case "s8":
		return new(big.Rat).SetInt64(int64(int8(v)))
	case "u8":
		return new(big.Rat).SetInt64(int64(uint8(v)))
	case "s32":
		return new(big.Rat).SetInt64(int64(int32(v)))
	}
	return new(big.Rat).SetFloat64(f)
}

// ratToF32RZ rounds x toward zero to f32 (infinity from 2^128 up).
func ratToF32RZ(x *big.Rat) uint32 {
	f, exact := x.Float32()
	if math.IsInf(float64(f), 0) || !exact && new(big.Rat).Abs(new(big.Rat).SetFloat64(float64(f))).Cmp(new(big.Rat).Abs(x)) > 0 {
		if math.IsInf(float64(f), 0) {
			lim := new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
			if new(big.Rat).Abs(x).Cmp(lim) >= 0 {
				return math.Float32bits(f)
			}
		}
		f = math.Nextafter32(f, 0)
	}
	return math.Float32bits(f)
}

// reference computes D for every lane: d[lane][word].
func (mc mmaCase) reference(a, b, c [][]uint32) [][]uint32 {
	bk := mc.b
	if bk == "" {
		bk = mc.ab
	}
	A := make([][]uint64, mc.m)
	for i := range A {
		A[i] = make([]uint64, mc.k)
	}
	B := make([][]uint64, mc.k)
	for i := range B {
		B[i] = make([]uint64, 8)
	}
	C := make([][]uint64, mc.m)
	for i := range C {
		C[i] = make([]uint64, 8)
	}
	// element i of a fragment of kind k sits in word i*bits/32 at bit
	// (i*bits)%32 (an f64 spans two words).
	get := func(ws []uint32, i int, k string) uint64 {
		n := elemBits(k)
		if n == 64 {
			return uint64(ws[2*i]) | uint64(ws[2*i+1])<<32
		}
		return uint64(ws[i*n/32]>>(uint(i*n)%32)) & (1<<uint(n) - 1)
	}
	count := func(words int, k string) int { return words * 32 / elemBits(k) }
	for lane := 0; lane < 32; lane++ {
		g, t := lane/4, lane%4
		for i := 0; i < count(mc.na, mc.ab); i++ {
			r, col := mc.aPos(g, t, i)
			A[r][col] = get(a[lane], i, mc.ab)
		}
		for i := 0; i < count(mc.nb, bk); i++ {
			r, col := mc.bPos(g, t, i)
			B[r][col] = get(b[lane], i, bk)
		}
		for i := 0; i < count(mc.nc, mc.cd); i++ {
			r, col := mc.cPos(g, t, i)
			C[r][col] = get(c[lane], i, mc.cd)
		}
	}
	out := make([][]uint32, 32)
	for lane := 0; lane < 32; lane++ {
		g, t := lane/4, lane%4
		out[lane] = make([]uint32, mc.nc)
		for i := 0; i < count(mc.nc, mc.cd); i++ {
			r, col := mc.cPos(g, t, i)
			var v uint64
			switch mc.cd {
			case "f64":
				acc := math.Float64frombits(C[r][col])
				for kk := 0; kk < mc.k; kk++ {
					acc = math.FMA(math.Float64frombits(A[r][kk]), math.Float64frombits(B[kk][col]), acc)
				}
				v = math.Float64bits(acc)
				out[lane][2*i], out[lane][2*i+1] = uint32(v), uint32(v>>32)
				continue
			case "s32":
				sum := toRat(C[r][col], "s32")
				for kk := 0; kk < mc.k; kk++ {
					sum.Add(sum, new(big.Rat).Mul(toRat(A[r][kk], mc.ab), toRat(B[kk][col], bk)))
				}
				n := sum.Num().Int64()
				if mc.sat {
					n = max(min(n, math.MaxInt32), math.MinInt32)
				}
				v = uint64(uint32(n))
			default:
				sum := toRat(C[r][col], map[string]string{"f16": "f16", "f32": "f32"}[mc.cd])
				for kk := 0; kk < mc.k; kk++ {
					sum.Add(sum, new(big.Rat).Mul(toRat(A[r][kk], mc.ab), toRat(B[kk][col], bk)))
				}
				v = uint64(ratToF32RZ(sum))
				if mc.cd == "f16" {
					v = uint64(fp.F32toF16(uint32(v), fp.RN, false))
				}
			}
			n := elemBits(mc.cd)
			out[lane][i*n/32] |= uint32(v) << (uint(i*n) % 32)
		}
	}
	return out
}

// words32 flattens per-lane words into a spec's hex values.
func hexLE(ws [][]uint32) []byte {
	var b []byte
	for _, l := range ws {
		for _, w := range l {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
	}
	return b
}

// fragments returns random words per lane for a fragment of n words
// holding elements of kind k.
func fragments(r *rand.Rand, n int, k string) [][]uint32 {
	out := make([][]uint32, 32)
	for lane := range out {
		out[lane] = make([]uint32, n)
		eb := elemBits(k)
		for i := 0; i < n*32/eb; i++ {
			v := randElem(r, k)
			if eb == 64 {
				out[lane][2*i], out[lane][2*i+1] = uint32(v), uint32(v>>32)
				continue
			}
			out[lane][i*eb/32] |= uint32(v) << (uint(i*eb) % 32)
		}
	}
	return out
}

// warpSpec writes src to dir and returns a one-warp spec whose buffers
// hold ins (u32 words) and whose last buffer must equal want.
func warpSpec(t *testing.T, dir, name, src string, ins [][]byte, outWords int, want [][]uint32) *spec.Spec {
	t.Helper()
	p := filepath.Join(dir, name+".ptx")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Name: name, File: name + ".json", Dir: dir, PTX: name + ".ptx", PTXPath: p, Kernel: "mma_test",
		Launch: spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}}
	for i, b := range ins {
		s.Params = append(s.Params, spec.Param{Name: fmt.Sprintf("in%d", i), Kind: spec.KindBuffer, Elem: "u32", Count: len(b) / 4, InitHexLE: b})
	}
	s.Params = append(s.Params, spec.Param{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: outWords, Init: "zero"})
	var vals []uint64
	for _, l := range want {
		for _, w := range l {
			vals = append(vals, uint64(w))
		}
	}
	s.Expect = []spec.Expect{{Param: "out", ParamIndex: len(ins), Elem: "u32", Count: outWords, Values: vals}}
	return s
}

// TestMMAShapes runs each mma.sync form on random fragments at -O0 and
// -O3 and compares all 32 lanes' D with the reference.
func TestMMAShapes(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(23))
	for _, mc := range mmaCases {
		t.Run(strings.ReplaceAll(mc.ptx, ".", "_"), func(t *testing.T) {
			bk := mc.b
			if bk == "" {
				bk = mc.ab
			}
			a, b, c := fragments(r, mc.na, mc.ab), fragments(r, mc.nb, bk), fragments(r, mc.nc, mc.cd)
			want := mc.reference(a, b, c)
			s := warpSpec(t, dir, "mma", mc.kernel(), [][]byte{hexLE(a), hexLE(b), hexLE(c)}, 32*mc.nc, want)
			for _, level := range []int{0, 3} {
				rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: level}})
				if err != nil {
					t.Fatalf("-O%d: %v", level, err)
				}
				if !rep.Pass {
					t.Fatalf("-O%d:\n%s", level, spec.FormatResults(rep.Results))
				}
			}
		})
	}
}

// ldmatrixKernel: lane l copies 16 bytes of g into shared row l, then
// gives the address of shared row perm(l) to ldmatrix, so every lane's
// address matters; the result words go to out[l*n..].
func ldmatrixKernel(n int, trans bool) string {
	tr := ""
	if trans {
		tr = ".trans"
	}
	var dl, st []string
	for i := 0; i < n; i++ {
		dl = append(dl, fmt.Sprintf("%%x%d", i))
		st = append(st, fmt.Sprintf("\tst.global.b32 [%%q+%d], %%x%d;\n", 4*i, i))
	}
	return fmt.Sprintf(`.version 7.8
.target sm_80
.address_size 64
.visible .entry mma_test(.param .u64 pg, .param .u64 po)
{
	.shared .align 16 .b8 sm[512];
	.reg .b32 %%x<4>, %%t, %%s, %%u;
	.reg .b64 %%g, %%o, %%q, %%off, %%v<2>;
	mov.u32 %%t, %%tid.x;
	ld.param.u64 %%g, [pg];
	ld.param.u64 %%o, [po];
	mul.wide.u32 %%off, %%t, 16;
	add.u64 %%g, %%g, %%off;
	ld.global.v2.b64 {%%v0, %%v1}, [%%g];
	mov.u32 %%s, sm;
	mad.lo.u32 %%u, %%t, 16, %%s;
	st.shared.v2.b64 [%%u], {%%v0, %%v1};
	bar.sync 0;
	mul.lo.u32 %%u, %%t, 7;
	and.b32 %%u, %%u, 31;
	mad.lo.u32 %%u, %%u, 16, %%s;
	ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {%s}, [%%u];
	mul.wide.u32 %%off, %%t, %d;
	add.u64 %%q, %%o, %%off;
%s	ret;
}
`, n, tr, strings.Join(dl, ", "), 4*n, strings.Join(st, ""))
}

// TestLdmatrix runs ldmatrix x1/x2/x4, plain and .trans, and checks every
// lane's words against the manual: lanes 8j..8j+7 address the rows of
// matrix j, and lane l gets (row l/4, columns 2(l%4) and 2(l%4)+1), or
// with .trans (rows 2(l%4) and 2(l%4)+1, column l/4).
func TestLdmatrix(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{1, 2, 4} {
		for _, trans := range []bool{false, true} {
			t.Run(fmt.Sprintf("x%d_trans%v", n, trans), func(t *testing.T) {
				rows := make([][8]uint16, 32) // shared row l, as lane l stored it
				var in []byte
				for l := range rows {
					for c := range rows[l] {
						rows[l][c] = uint16(r.Uint32())
						in = append(in, byte(rows[l][c]), byte(rows[l][c]>>8))
					}
				}
				elem := func(j, row, col int) uint16 {
					lane := 8*j + row // the lane giving row `row` of matrix j
					return rows[lane*7%32][col]
				}
				want := make([][]uint32, 32)
				for l := range want {
					for j := 0; j < n; j++ {
						var lo, hi uint16
						if trans {
							lo, hi = elem(j, 2*(l%4), l/4), elem(j, 2*(l%4)+1, l/4)
						} else {
							lo, hi = elem(j, l/4, 2*(l%4)), elem(j, l/4, 2*(l%4)+1)
						}
						want[l] = append(want[l], uint32(hi)<<16|uint32(lo))
					}
				}
				s := warpSpec(t, dir, "ldm", ldmatrixKernel(n, trans), [][]byte{in}, 32*n, want)
				for _, level := range []int{0, 3} {
					rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: level}})
					if err != nil {
						t.Fatalf("-O%d: %v", level, err)
					}
					if !rep.Pass {
						t.Fatalf("-O%d:\n%s", level, spec.FormatResults(rep.Results))
					}
				}
			})
		}
	}
}

// TestTensorKernelsAreValidPTX checks that ptxas 13.0 accepts every kernel
// the two tests above run.
func TestTensorKernelsAreValidPTX(t *testing.T) {
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	dir := t.TempDir()
	var srcs []string
	for _, mc := range mmaCases {
		srcs = append(srcs, mc.kernel())
	}
	for _, n := range []int{1, 2, 4} {
		srcs = append(srcs, ldmatrixKernel(n, false), ldmatrixKernel(n, true), stmatrixKernel(n, false), stmatrixKernel(n, true))
	}
	for i, src := range srcs {
		p := filepath.Join(dir, fmt.Sprintf("k%d.ptx", i))
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		arch := "sm_80"
		for _, a := range []string{"sm_75", "sm_90"} {
			if strings.Contains(src, ".target "+a) {
				arch = a
			}
		}
		if out, err := exec.Command(ptxas, "-arch", arch, "-o", p+".cubin", p).CombinedOutput(); err != nil {
			t.Errorf("ptxas rejects:\n%s\n%v\n%s", src, err, out)
		}
	}
}

// stmatrixKernel: lane l stores its n words from in[l*n..] with stmatrix,
// giving the address of shared row perm(l) = 7l mod 32, then copies
// shared row l to out[l*16..].
func stmatrixKernel(n int, trans bool) string {
	tr := ""
	if trans {
		tr = ".trans"
	}
	var rl, ld []string
	for i := 0; i < n; i++ {
		rl = append(rl, fmt.Sprintf("%%x%d", i))
		ld = append(ld, fmt.Sprintf("\tld.global.b32 %%x%d, [%%g+%d];\n", i, 4*i))
	}
	return fmt.Sprintf(`.version 7.8
.target sm_90
.address_size 64
.visible .entry mma_test(.param .u64 pg, .param .u64 po)
{
	.shared .align 16 .b8 sm[512];
	.reg .b32 %%x<4>, %%t, %%s, %%u;
	.reg .b64 %%g, %%o, %%off, %%v<2>;
	mov.u32 %%t, %%tid.x;
	ld.param.u64 %%g, [pg];
	ld.param.u64 %%o, [po];
	mul.wide.u32 %%off, %%t, %d;
	add.u64 %%g, %%g, %%off;
%s	mov.u32 %%s, sm;
	mul.lo.u32 %%u, %%t, 7;
	and.b32 %%u, %%u, 31;
	mad.lo.u32 %%u, %%u, 16, %%s;
	stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 [%%u], {%s};
	bar.sync 0;
	mad.lo.u32 %%u, %%t, 16, %%s;
	ld.shared.v2.b64 {%%v0, %%v1}, [%%u];
	mul.wide.u32 %%off, %%t, 16;
	add.u64 %%o, %%o, %%off;
	st.global.v2.b64 [%%o], {%%v0, %%v1};
	ret;
}
`, 4*n, strings.Join(ld, ""), n, tr, strings.Join(rl, ", "))
}

// TestStmatrix runs stmatrix x1/x2/x4, plain and .trans (sm_90): lane l's
// word j holds (row l/4, columns 2(l%4), 2(l%4)+1) of matrix j, or with
// .trans (rows 2(l%4), 2(l%4)+1 of column l/4), and lanes 8j..8j+7 give
// the row addresses of matrix j. Shared rows no lane addresses stay 0.
func TestStmatrix(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 2, 4} {
		for _, trans := range []bool{false, true} {
			t.Run(fmt.Sprintf("x%d_trans%v", n, trans), func(t *testing.T) {
				words := make([][]uint32, 32)
				var in []byte
				for l := range words {
					for j := 0; j < n; j++ {
						w := r.Uint32()
						words[l] = append(words[l], w)
						in = append(in, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
					}
				}
				var shared [32][8]uint16 // shared row s
				for l := 0; l < 32; l++ {
					g, q := l/4, l%4
					for j := 0; j < n; j++ {
						lo, hi := uint16(words[l][j]), uint16(words[l][j]>>16)
						put := func(row, col int, v uint16) {
							lane := 8*j + row // the lane giving row `row` of matrix j
							shared[lane*7%32][col] = v
						}
						if trans {
							put(2*q, g, lo)
							put(2*q+1, g, hi)
						} else {
							put(g, 2*q, lo)
							put(g, 2*q+1, hi)
						}
					}
				}
				want := make([][]uint32, 32)
				for s := range shared {
					for c := 0; c < 8; c += 2 {
						want[s] = append(want[s], uint32(shared[s][c+1])<<16|uint32(shared[s][c]))
					}
				}
				s := warpSpec(t, dir, "stm", stmatrixKernel(n, trans), [][]byte{in}, 32*4, want)
				for _, level := range []int{0, 3} {
					rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: level}})
					if err != nil {
						t.Fatalf("-O%d: %v", level, err)
					}
					if !rep.Pass {
						t.Fatalf("-O%d:\n%s", level, spec.FormatResults(rep.Results))
					}
				}
			})
		}
	}
}
