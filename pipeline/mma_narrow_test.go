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

// The narrow mma.sync forms (s4/u4, b1, e4m3/e5m2) on random fragments,
// checked against references written from the PTX manual's fragment
// tables ("a_i: row = groupID for i < 8, groupID + 8 otherwise; col =
// threadID_in_group * 8 + (i & 7)" ...) and, on sm_90 where ptxas 13.0
// emulates the fp8 forms, from the rounding of that emulation.

// narrowCase is one narrow mma form under test.
type narrowCase struct {
	ptx        string // after "mma.sync.aligned."
	arch       string
	a, b, cd   string // s4 u4 b1 e4m3 e5m2; s32 f32 f16
	m, k       int
	na, nb, nc int
	sat, xor   bool
}

var narrowCases = []narrowCase{
	{ptx: "m8n8k32.row.col.s32.s4.s4.s32", arch: "sm_80", a: "s4", b: "s4", cd: "s32", m: 8, k: 32, na: 1, nb: 1, nc: 2},
	{ptx: "m8n8k32.row.col.s32.s4.s4.s32", arch: "sm_90", a: "s4", b: "s4", cd: "s32", m: 8, k: 32, na: 1, nb: 1, nc: 2},
	{ptx: "m8n8k32.row.col.satfinite.s32.u4.s4.s32", arch: "sm_80", a: "u4", b: "s4", cd: "s32", m: 8, k: 32, na: 1, nb: 1, nc: 2, sat: true},
	{ptx: "m8n8k32.row.col.satfinite.s32.u4.s4.s32", arch: "sm_90", a: "u4", b: "s4", cd: "s32", m: 8, k: 32, na: 1, nb: 1, nc: 2, sat: true},
	{ptx: "m16n8k32.row.col.s32.s4.u4.s32", arch: "sm_80", a: "s4", b: "u4", cd: "s32", m: 16, k: 32, na: 2, nb: 1, nc: 4},
	{ptx: "m16n8k32.row.col.satfinite.s32.s4.u4.s32", arch: "sm_90", a: "s4", b: "u4", cd: "s32", m: 16, k: 32, na: 2, nb: 1, nc: 4, sat: true},
	{ptx: "m16n8k64.row.col.s32.u4.u4.s32", arch: "sm_80", a: "u4", b: "u4", cd: "s32", m: 16, k: 64, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k64.row.col.s32.u4.u4.s32", arch: "sm_90", a: "u4", b: "u4", cd: "s32", m: 16, k: 64, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k64.row.col.satfinite.s32.s4.s4.s32", arch: "sm_89", a: "s4", b: "s4", cd: "s32", m: 16, k: 64, na: 4, nb: 2, nc: 4, sat: true},
	{ptx: "m16n8k64.row.col.satfinite.s32.s4.s4.s32", arch: "sm_90", a: "s4", b: "s4", cd: "s32", m: 16, k: 64, na: 4, nb: 2, nc: 4, sat: true},
	{ptx: "m8n8k128.row.col.s32.b1.b1.s32.xor.popc", arch: "sm_80", a: "b1", b: "b1", cd: "s32", m: 8, k: 128, na: 1, nb: 1, nc: 2, xor: true},
	{ptx: "m8n8k128.row.col.s32.b1.b1.s32.xor.popc", arch: "sm_90", a: "b1", b: "b1", cd: "s32", m: 8, k: 128, na: 1, nb: 1, nc: 2, xor: true},
	{ptx: "m8n8k128.row.col.s32.b1.b1.s32.and.popc", arch: "sm_90", a: "b1", b: "b1", cd: "s32", m: 8, k: 128, na: 1, nb: 1, nc: 2},
	{ptx: "m16n8k128.row.col.s32.b1.b1.s32.and.popc", arch: "sm_80", a: "b1", b: "b1", cd: "s32", m: 16, k: 128, na: 2, nb: 1, nc: 4},
	{ptx: "m16n8k128.row.col.s32.b1.b1.s32.xor.popc", arch: "sm_90", a: "b1", b: "b1", cd: "s32", m: 16, k: 128, na: 2, nb: 1, nc: 4, xor: true},
	{ptx: "m16n8k256.row.col.s32.b1.b1.s32.xor.popc", arch: "sm_80", a: "b1", b: "b1", cd: "s32", m: 16, k: 256, na: 4, nb: 2, nc: 4, xor: true},
	{ptx: "m16n8k256.row.col.s32.b1.b1.s32.xor.popc", arch: "sm_90", a: "b1", b: "b1", cd: "s32", m: 16, k: 256, na: 4, nb: 2, nc: 4, xor: true},
	{ptx: "m16n8k256.row.col.s32.b1.b1.s32.and.popc", arch: "sm_90", a: "b1", b: "b1", cd: "s32", m: 16, k: 256, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k32.row.col.f32.e4m3.e4m3.f32", arch: "sm_89", a: "e4m3", b: "e4m3", cd: "f32", m: 16, k: 32, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k32.row.col.f32.e4m3.e4m3.f32", arch: "sm_90", a: "e4m3", b: "e4m3", cd: "f32", m: 16, k: 32, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k32.row.col.f32.e5m2.e4m3.f32", arch: "sm_89", a: "e5m2", b: "e4m3", cd: "f32", m: 16, k: 32, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k32.row.col.f32.e5m2.e4m3.f32", arch: "sm_90", a: "e5m2", b: "e4m3", cd: "f32", m: 16, k: 32, na: 4, nb: 2, nc: 4},
	{ptx: "m16n8k32.row.col.f16.e4m3.e5m2.f16", arch: "sm_89", a: "e4m3", b: "e5m2", cd: "f16", m: 16, k: 32, na: 4, nb: 2, nc: 2},
	{ptx: "m16n8k32.row.col.f16.e4m3.e5m2.f16", arch: "sm_90", a: "e4m3", b: "e5m2", cd: "f16", m: 16, k: 32, na: 4, nb: 2, nc: 2},
	{ptx: "m16n8k16.row.col.f32.e4m3.e4m3.f32", arch: "sm_89", a: "e4m3", b: "e4m3", cd: "f32", m: 16, k: 16, na: 2, nb: 1, nc: 4},
	{ptx: "m16n8k16.row.col.f16.e5m2.e5m2.f16", arch: "sm_90", a: "e5m2", b: "e5m2", cd: "f16", m: 16, k: 16, na: 2, nb: 1, nc: 2},
}

// kernel is mmaCase's kernel at the PTX version the fp8 forms need.
func (nc narrowCase) kernel() string {
	src := mmaCase{ptx: nc.ptx, arch: nc.arch, na: nc.na, nb: nc.nb, nc: nc.nc}.kernel()
	return strings.Replace(src, ".version 7.8", ".version 8.7", 1)
}

func narrowBits(k string) int {
	switch k {
	case "s4", "u4":
		return 4
	case "b1":
		return 1
	case "e4m3", "e5m2":
		return 8
	case "f16":
		return 16
	}
	return 32
}

// The manual's tables: lane (g, t), element i of A or B.
func (nc narrowCase) aPos(g, t, i int) (row, col int) {
	switch {
	case nc.a == "b1" && nc.m == 8: // a0..a31
		return g, 32*t + i
	case nc.a == "b1" && nc.k == 128: // a0..a63
		row = g
		if i >= 32 {
			row = g + 8
		}
		return row, 32*t + i%32
	case nc.a == "b1": // m16n8k256: a0..a127
		row = g
		if i >= 32 && i < 64 || i >= 96 {
			row = g + 8
		}
		col = 32*t + i%32
		if i >= 64 {
			col += 128
		}
		return
	case narrowBits(nc.a) == 4 && nc.m == 8: // a0..a7
		return g, 8*t + i
	case narrowBits(nc.a) == 4 && nc.k == 32: // a0..a15
		row = g
		if i >= 8 {
			row = g + 8
		}
		return row, 8*t + i%8
	case narrowBits(nc.a) == 4: // m16n8k64: a0..a31
		row = g
		if i >= 8 && i < 16 || i >= 24 {
			row = g + 8
		}
		col = 8*t + i%8
		if i >= 16 {
			col += 32
		}
		return
	case nc.k == 32: // fp8 m16n8k32: a0..a15
		row = g
		if i >= 4 && i < 8 || i >= 12 {
			row = g + 8
		}
		col = 4*t + i%4
		if i >= 8 {
			col += 16
		}
		return
	default: // fp8 m16n8k16: a0..a7
		row = g
		if i >= 4 {
			row = g + 8
		}
		return row, 4*t + i%4
	}
}

func (nc narrowCase) bPos(g, t, i int) (row, col int) {
	switch {
	case nc.a == "b1": // b0..b31, then b32..b63 at +128
		row = 32*t + i%32
		if i >= 32 {
			row += 128
		}
		return row, g
	case narrowBits(nc.a) == 4: // b0..b7, then b8..b15 at +32
		row = 8*t + i%8
		if i >= 8 {
			row += 32
		}
		return row, g
	default: // fp8: b0..b3, then b4..b7 at +16
		row = 4*t + i%4
		if i >= 4 {
			row += 16
		}
		return row, g
	}
}

func (nc narrowCase) cPos(g, t, i int) (row, col int) {
	return mmaCase{m: nc.m}.cPos(g, t, i)
}

// fp8Value decodes an OCP fp8 byte (finite codes only: the generator
// makes no NaN or infinity).
func fp8Value(v uint64, k string) float64 {
	eb, mb, bias := 4, 3, 7
	if k == "e5m2" {
		eb, mb, bias = 5, 2, 15
	}
	e := int(v>>mb) & (1<<eb - 1)
	m := int(v) & (1<<mb - 1)
	x := math.Ldexp(float64(m), 1-bias-mb)
	if e > 0 {
		x = math.Ldexp(float64(1<<mb+m), e-bias-mb)
	}
	if v&0x80 != 0 {
		x = -x
	}
	return x
}

// narrowElem returns random bits of one element: any value for the
// integers and bits, and for fp8 a value below 4 in magnitude (so that
// f16 sums stay finite) with subnormals among them.
func narrowElem(r *rand.Rand, k string) uint64 {
	switch k {
	case "e4m3":
		return uint64(r.Intn(2)<<7 | r.Intn(9)<<3 | r.Intn(8))
	case "e5m2":
		return uint64(r.Intn(2)<<7 | (r.Intn(10)+7)<<2 | r.Intn(4))
	}
	return uint64(r.Uint32()) & (1<<uint(narrowBits(k)) - 1)
}

// narrowC returns C's words: f32 values of modest magnitude, f16 pairs,
// or s32 values half of which sit within 2^10 of the s32 limits (so that
// .satfinite clamps some sums).
func narrowC(r *rand.Rand, n int, k string) [][]uint32 {
	out := make([][]uint32, 32)
	for l := range out {
		out[l] = make([]uint32, n)
		for i := range out[l] {
			switch k {
			case "f32":
				out[l][i] = uint32(r.Intn(2))<<31 | uint32(127+r.Intn(9)-4)<<23 | uint32(r.Intn(1<<23))
			case "f16":
				h := func() uint32 { return uint32(r.Intn(2)<<15 | (15+r.Intn(7)-3)<<10 | r.Intn(1024)) }
				out[l][i] = h() | h()<<16
			default:
				switch r.Intn(4) {
				case 0:
					out[l][i] = uint32(math.MaxInt32 - r.Intn(1024))
				case 1:
					out[l][i] = uint32(0x80000000 + r.Intn(1024))
				default:
					out[l][i] = r.Uint32()
				}
			}
		}
	}
	return out
}

func narrowFrag(r *rand.Rand, n int, k string) [][]uint32 {
	out := make([][]uint32, 32)
	eb := narrowBits(k)
	for l := range out {
		out[l] = make([]uint32, n)
		for i := 0; i < n*32/eb; i++ {
			out[l][i*eb/32] |= uint32(narrowElem(r, k)) << (uint(i*eb) % 32)
		}
	}
	return out
}

// f64ToF16RN rounds x to the nearest f16 (ties to even), subnormals
// included and overflow to infinity, as HADD2 and an f16 HMMA D round.
func f64ToF16RN(x float64) uint16 {
	bf := new(big.Float).SetMode(big.ToNearestEven).SetPrec(11).SetFloat64(x)
	if x != 0 && math.Abs(x) < math.Ldexp(1, -14) {
		// Subnormal range: round to a multiple of 2^-24.
		q := math.RoundToEven(math.Ldexp(x, 24))
		bf = new(big.Float).SetFloat64(math.Ldexp(q, -24))
	}
	f, _ := bf.Float64()
	if math.Abs(f) >= 65520 {
		if x < 0 {
			return 0xfc00
		}
		return 0x7c00
	}
	return fp.F32toF16(math.Float32bits(float32(f)), fp.RN, false)
}

func f16Value(h uint16) float64 { return float64(math.Float32frombits(fp.F16toF32(h))) }

// reference computes D for every lane.
func (nc narrowCase) reference(a, b, c [][]uint32) [][]uint32 {
	A := make([][]uint64, nc.m)
	for i := range A {
		A[i] = make([]uint64, nc.k)
	}
	B := make([][]uint64, nc.k)
	for i := range B {
		B[i] = make([]uint64, 8)
	}
	C := make([][]uint64, nc.m)
	for i := range C {
		C[i] = make([]uint64, 8)
	}
	get := func(ws []uint32, i, n int) uint64 {
		return uint64(ws[i*n/32]>>(uint(i*n)%32)) & (1<<uint(n) - 1)
	}
	for lane := 0; lane < 32; lane++ {
		g, t := lane/4, lane%4
		for i := 0; i < nc.na*32/narrowBits(nc.a); i++ {
			r, col := nc.aPos(g, t, i)
			A[r][col] = get(a[lane], i, narrowBits(nc.a))
		}
		for i := 0; i < nc.nb*32/narrowBits(nc.b); i++ {
			r, col := nc.bPos(g, t, i)
			B[r][col] = get(b[lane], i, narrowBits(nc.b))
		}
		for i := 0; i < nc.nc*32/narrowBits(nc.cd); i++ {
			r, col := nc.cPos(g, t, i)
			C[r][col] = get(c[lane], i, narrowBits(nc.cd))
		}
	}
	intVal := func(v uint64, k string) int64 {
		if k == "s4" {
			return int64(v^8) - 8
		}
		return int64(v)
	}
	out := make([][]uint32, 32)
	for lane := 0; lane < 32; lane++ {
		g, t := lane/4, lane%4
		out[lane] = make([]uint32, nc.nc)
		for i := 0; i < nc.nc*32/narrowBits(nc.cd); i++ {
			r, col := nc.cPos(g, t, i)
			var v uint64
			switch {
			case nc.a == "b1":
				n := 0
				for kk := 0; kk < nc.k; kk++ {
					if nc.xor {
						n += int(A[r][kk] ^ B[kk][col])
					} else {
						n += int(A[r][kk] & B[kk][col])
					}
				}
				v = uint64(uint32(int32(C[r][col]) + int32(n)))
			case nc.cd == "s32":
				sum := int64(int32(C[r][col]))
				for kk := 0; kk < nc.k; kk++ {
					sum += intVal(A[r][kk], nc.a) * intVal(B[kk][col], nc.b)
				}
				if nc.sat {
					sum = max(min(sum, math.MaxInt32), math.MinInt32)
				}
				v = uint64(uint32(sum))
			default:
				v = nc.fp8Sum(A[r], B, col, C[r][col])
			}
			n := narrowBits(nc.cd)
			out[lane][i*n/32] |= uint32(v) << (uint(i*n) % 32)
		}
	}
	return out
}

// fp8Sum is one element of an fp8 D. On sm_89 (QMMA) the products and
// C are summed exactly and rounded once toward zero to f32 (then to
// nearest f16 for an f16 D), the HMMA model. On sm_90 ptxas 13.0 runs two
// HMMAs, over the k whose byte sits in the low half of its register (k
// mod 4 < 2) from zero and over the rest onto that, then adds C with an
// FADD or HADD2 rounding to nearest.
func (nc narrowCase) fp8Sum(a []uint64, B [][]uint64, col int, c uint64) uint64 {
	prod := func(kk int) *big.Rat {
		return new(big.Rat).SetFloat64(fp8Value(a[kk], nc.a) * fp8Value(B[kk][col], nc.b))
	}
	cval := func() float64 {
		if nc.cd == "f16" {
			return f16Value(uint16(c))
		}
		return float64(math.Float32frombits(uint32(c)))
	}
	// round gives an HMMA D from its exact sum.
	round := func(x *big.Rat) (uint64, float64) {
		f := ratToF32RZ(x)
		if nc.cd == "f16" {
			h := fp.F32toF16(f, fp.RN, false)
			return uint64(h), f16Value(h)
		}
		return uint64(f), float64(math.Float32frombits(f))
	}
	if nc.arch != "sm_90" {
		sum := new(big.Rat).SetFloat64(cval())
		for kk := range a {
			sum.Add(sum, prod(kk))
		}
		v, _ := round(sum)
		return v
	}
	half := func(hi bool, acc float64) (uint64, float64) {
		sum := new(big.Rat).SetFloat64(acc)
		for kk := range a {
			if (kk%4 >= 2) == hi {
				sum.Add(sum, prod(kk))
			}
		}
		return round(sum)
	}
	_, p1 := half(false, 0)
	_, p2 := half(true, p1)
	if nc.cd == "f16" {
		return uint64(f64ToF16RN(p2 + cval())) // exact in f64, one rounding
	}
	return uint64(math.Float32bits(float32(cval() + p2))) // f32 + f32 is exact in f64
}

// TestMMANarrowShapes runs each narrow mma form at -O0 and -O3 and
// compares all 32 lanes' D with the reference.
func TestMMANarrowShapes(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(2323))
	for _, nc := range narrowCases {
		t.Run(strings.ReplaceAll(nc.ptx, ".", "_")+"_"+nc.arch, func(t *testing.T) {
			a, b := narrowFrag(r, nc.na, nc.a), narrowFrag(r, nc.nb, nc.b)
			c := narrowC(r, nc.nc, nc.cd)
			want := nc.reference(a, b, c)
			s := warpSpec(t, dir, "mma", nc.kernel(), [][]byte{hexLE(a), hexLE(b), hexLE(c)}, 32*nc.nc, want)
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

// TestMMANarrowSASS checks the instructions each target gets, as ptxas
// 13.0 emits them: the native IMMA/BMMA/QMMA before sm_90 and the two
// half-depth instructions there.
func TestMMANarrowSASS(t *testing.T) {
	for _, tc := range []struct {
		ptx, arch string
		want      []string
	}{
		{"m16n8k64.row.col.s32.u4.u4.s32", "sm_80", []string{"IMMA.16864.U4.U4 "}},
		{"m8n8k32.row.col.satfinite.s32.u4.s4.s32", "sm_89", []string{"IMMA.8832.U4.S4.SAT "}},
		{"m16n8k64.row.col.s32.u4.u4.s32", "sm_90", []string{"IMMA.16832.U8.U8 ", "IMMA.16832.U8.U8 "}},
		{"m8n8k32.row.col.s32.s4.s4.s32", "sm_90", []string{"IMMA.8816.S8.S8 ", "IMMA.8816.S8.S8 "}},
		{"m16n8k256.row.col.s32.b1.b1.s32.xor.popc", "sm_80", []string{"BMMA.168256.XOR.POPC "}},
		{"m16n8k256.row.col.s32.b1.b1.s32.xor.popc", "sm_90", []string{"BMMA.168256.AND.POPC ", "BMMA.168256.AND.POPC "}},
		{"m8n8k128.row.col.s32.b1.b1.s32.and.popc", "sm_90", []string{"BMMA.88128.AND.POPC "}},
		{"m16n8k32.row.col.f32.e5m2.e4m3.f32", "sm_89", []string{"QMMA.16832.F32.E5M2.E4M3 "}},
		{"m16n8k32.row.col.f16.e4m3.e5m2.f16", "sm_90", []string{"HMMA.16816.F16 ", "HMMA.16816.F16 "}},
		{"m16n8k16.row.col.f32.e4m3.e4m3.f32", "sm_90", []string{"HMMA.1688.F32 ", "HMMA.1688.F32 "}},
	} {
		var nc narrowCase
		for _, c := range narrowCases {
			if c.ptx == tc.ptx {
				nc = c
			}
		}
		nc.arch = tc.arch
		res, err := Compile("mma.ptx", []byte(nc.kernel()), Options{})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.ptx, tc.arch, err)
		}
		var got []string
		for _, f := range strings.Fields(res.Final.String()) {
			if strings.Contains(f, "MMA.") {
				got = append(got, f+" ")
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s on %s: MMA instructions %q, want %q", tc.ptx, tc.arch, got, tc.want)
		}
	}
}

// TestMMANarrowKernelsAreValidPTX checks that ptxas 13.0 accepts every
// kernel TestMMANarrowShapes runs, for its target.
func TestMMANarrowKernelsAreValidPTX(t *testing.T) {
	ptxas := nvtools.Require(t, nvtools.Ptxas)
	dir := t.TempDir()
	for i, nc := range narrowCases {
		p := filepath.Join(dir, fmt.Sprintf("k%d.ptx", i))
		if err := os.WriteFile(p, []byte(nc.kernel()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(ptxas, "-arch", nc.arch, "-o", p+".cubin", p).CombinedOutput(); err != nil {
			t.Errorf("ptxas -arch %s rejects %s: %v\n%s", nc.arch, nc.ptx, err, out)
		}
	}
}
