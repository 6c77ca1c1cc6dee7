package pipeline

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline/sim/fp"
	"orilab/pipeline/spec"
)

// idivPTX divides a[i] by b[i] four ways (div/rem, unsigned/signed).
const idivPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry idiv(.param .u64 a, .param .u64 b, .param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 4;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	ld.global.u32 %r5, [%rd5];
	ld.global.u32 %r6, [%rd6];
	div.u32 %r7, %r5, %r6;
	rem.u32 %r8, %r5, %r6;
	div.s32 %r9, %r5, %r6;
	rem.s32 %r10, %r5, %r6;
	mul.wide.u32 %rd7, %r4, 16;
	add.s64 %rd8, %rd3, %rd7;
	st.global.v4.u32 [%rd8], {%r7, %r8, %r9, %r10};
	ret;
}
`

// idivWant is IDIV's definition (SEMANTICS.md) in Go.
func idivWant(a, b uint32) [4]uint32 {
	if b == 0 {
		return [4]uint32{math.MaxUint32, math.MaxUint32, math.MaxUint32, math.MaxUint32}
	}
	return [4]uint32{a / b, a % b, uint32(int32(a) / int32(b)), uint32(int32(a) % int32(b))}
}

// TestIDIVAgreesWithItsExpansion: the simulator's IDIV (executed right
// after lowering), the expansion ConvertUnsupportedOps makes at -O0 and
// the one LateExpansionUnsupportedOps makes at -O3 all give the values of
// the definition, over every pair of edge values (0, 1, -1, INT_MIN,
// INT_MAX, powers of two...) and random pairs.
func TestIDIVAgreesWithItsExpansion(t *testing.T) {
	edges := []uint32{0, 1, 2, 3, 7, 0x10, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0xfffffff9, 12345678}
	var as, bs []uint64
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, uint64(a)), append(bs, uint64(b))
		}
	}
	rng := rand.New(rand.NewSource(7))
	for len(as)%256 != 0 || len(as) < 1024 {
		a, b := rng.Uint32(), rng.Uint32()>>uint(rng.Intn(32))
		as, bs = append(as, uint64(a)), append(bs, uint64(b))
	}
	var want []uint64
	for i := range as {
		for _, v := range idivWant(uint32(as[i]), uint32(bs[i])) {
			want = append(want, uint64(v))
		}
	}
	checkKeptWhole(t, idivPTX, 32, as, bs, want, 4, "IDIV")
}

// idiv64PTX is idivPTX for 64-bit operands.
const idiv64PTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry idiv(.param .u64 a, .param .u64 b, .param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<20>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 8;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	ld.global.u64 %rd9, [%rd5];
	ld.global.u64 %rd10, [%rd6];
	div.u64 %rd11, %rd9, %rd10;
	rem.u64 %rd12, %rd9, %rd10;
	div.s64 %rd13, %rd9, %rd10;
	rem.s64 %rd14, %rd9, %rd10;
	mul.wide.u32 %rd7, %r4, 32;
	add.s64 %rd8, %rd3, %rd7;
	st.global.v2.u64 [%rd8], {%rd11, %rd12};
	st.global.v2.u64 [%rd8+16], {%rd13, %rd14};
	ret;
}
`

// TestIDIV64AgreesWithItsExpansion is TestIDIVAgreesWithItsExpansion for
// the 64-bit forms, whose expansion has a 32-bit fast path and a
// shift-subtract loop: the edge values cover both paths and both signs.
func TestIDIV64AgreesWithItsExpansion(t *testing.T) {
	edges := []uint64{0, 1, 2, 3, 7, 0xffffffff, 0x100000000, 0x100000001, 0x7fffffffffffffff, 0x8000000000000000,
		0x8000000000000001, 0xfffffffffffffffe, 0xffffffffffffffff, 0xfffffffffffffff9, 0xffffffff00000000, 1234567890123}
	var as, bs []uint64
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, a), append(bs, b)
		}
	}
	rng := rand.New(rand.NewSource(8))
	for len(as)%256 != 0 || len(as) < 512 {
		a, b := rng.Uint64()>>uint(rng.Intn(64)), rng.Uint64()>>uint(rng.Intn(64))
		as, bs = append(as, a), append(bs, b)
	}
	var want []uint64
	for i := range as {
		a, b := as[i], bs[i]
		if b == 0 {
			want = append(want, math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64)
			continue
		}
		want = append(want, a/b, a%b, uint64(int64(a)/int64(b)), uint64(int64(a)%int64(b)))
	}
	checkKeptWhole(t, idiv64PTX, 64, as, bs, want, 4, "IDIV")
}

// checkKeptWhole runs the kernel ptx (a[i] and b[i] of the given width,
// len(want)/len(as) results per i in out) at -O3 right after lowering (the operation
// kept whole, executed by the simulator), at -O0 after
// ConvertUnsupportedOps and at the end, and at -O3 after
// LateExpansionUnsupportedOps and at the end, with the verifier on; every
// run must give want. The lowered code must hold nOps instructions named
// op, and the final code none.
func checkKeptWhole(t *testing.T, ptx string, width int, as, bs, want []uint64, nOps int, op string) {
	t.Helper()
	elem, size := "u32", 4
	if width == 64 {
		elem, size = "u64", 8
	}
	kernel := strings.Fields(ptx[strings.Index(ptx, ".entry ")+len(".entry "):])[0]
	kernel = kernel[:strings.IndexByte(kernel+"(", '(')]
	le := func(vs []uint64) []byte {
		var out []byte
		for _, v := range vs {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], v)
			out = append(out, w[:size]...)
		}
		return out
	}
	n := len(as)
	per := len(want) / n
	sp := &spec.Spec{Name: kernel, PTX: "k.ptx", Kernel: kernel,
		Launch: spec.Launch{Grid: [3]int{n / 256, 1, 1}, Block: [3]int{256, 1, 1}},
		Params: []spec.Param{
			{Name: "a", Kind: spec.KindBuffer, Elem: elem, Count: n, InitHexLE: le(as)},
			{Name: "b", Kind: spec.KindBuffer, Elem: elem, Count: n, InitHexLE: le(bs)},
			{Name: "out", Kind: spec.KindBuffer, Elem: elem, Count: per * n, Init: spec.InitZero},
		},
		Expect: []spec.Expect{{Param: "out", Elem: elem, Count: per * n, Values: want}},
	}
	dir := t.TempDir()
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "idiv.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(ptx), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "idiv.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o     int
		after string
	}{{3, "lowering"}, {0, "ConvertUnsupportedOps"}, {0, ""}, {3, "LateExpansionUnsupportedOps"}, {3, ""}} {
		rep, err := RunSpec(s, RunOptions{Request: Request{OptLevel: c.o, Verify: true}, After: c.after, MaxWarpSteps: 10_000_000})
		if err != nil {
			t.Fatalf("-O%d after %q: %v", c.o, c.after, err)
		}
		if !rep.Pass {
			t.Errorf("-O%d after %q: %s", c.o, c.after, spec.FormatResults(rep.Results))
		}
	}
	sess, err := NewSession("k.ptx", []byte(ptx), Options{}, PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(sess.Lowered.String(), " "+op); got != nOps {
		t.Errorf("lowered code has %d %s, want %d", got, op, nOps)
	}
	if err := sess.RunAll(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sess.Module().String(), " "+op) {
		t.Errorf("a %s survived to the final code", op)
	}
}

// TestIDIVNeedsLateExpansion: with NamedPhases leaving out the expansion,
// register allocation refuses the IDIV instead of allocating it.
func TestIDIVNeedsLateExpansion(t *testing.T) {
	sess, err := NewSession("idiv.ptx", []byte(idivPTX), Options{}, PhaseOptions{OptLevel: 3, NamedPhases: []string{"AllocateRegisters"}})
	if err != nil {
		t.Fatal(err)
	}
	err = sess.RunAll()
	if err == nil || !strings.Contains(err.Error(), "IDIV reached register allocation; LateExpansionUnsupportedOps must run before it") {
		t.Fatalf("got %v", err)
	}
}

// ddivPTX divides a[i] by b[i] (f64) in the four rounding modes and takes
// the square roots of a[i] (RN, RZ) and b[i] (RM, RP).
const ddivPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry ddiv(.param .u64 a, .param .u64 b, .param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<12>;
	.reg .f64 %fd<20>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 8;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	ld.global.f64 %fd1, [%rd5];
	ld.global.f64 %fd2, [%rd6];
	div.rn.f64 %fd3, %fd1, %fd2;
	div.rz.f64 %fd4, %fd1, %fd2;
	div.rm.f64 %fd5, %fd1, %fd2;
	div.rp.f64 %fd6, %fd1, %fd2;
	sqrt.rn.f64 %fd7, %fd1;
	sqrt.rz.f64 %fd8, %fd1;
	sqrt.rm.f64 %fd9, %fd2;
	sqrt.rp.f64 %fd10, %fd2;
	mul.wide.u32 %rd7, %r4, 64;
	add.s64 %rd8, %rd3, %rd7;
	st.global.v2.f64 [%rd8], {%fd3, %fd4};
	st.global.v2.f64 [%rd8+16], {%fd5, %fd6};
	st.global.v2.f64 [%rd8+32], {%fd7, %fd8};
	st.global.v2.f64 [%rd8+48], {%fd9, %fd10};
	ret;
}
`

// TestDDIVAgreesWithItsExpansion: DDIV and DSQRT, executed by the
// simulator right after lowering, and their expansions (the lowering's
// f64 division with its fast and exact slow path, and the f64 square
// root) give the IEEE results of pipeline/sim/fp in every rounding mode,
// over pairs of edge values (zeros, subnormals, the normal range's ends,
// infinities, NaNs) and random bit patterns and magnitudes.
func TestDDIVAgreesWithItsExpansion(t *testing.T) {
	edges := []float64{0, math.Copysign(0, -1), 1, -1, 2, 3, 0.1, 1.0 / 3, math.Pi, 1e300, -1e300, 1e-300,
		math.SmallestNonzeroFloat64, 3 * math.SmallestNonzeroFloat64, 0x1p-1022, 0x1p-1030, math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), 0x1p1000, 0x1p-1000, 7}
	var as, bs []uint64
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, math.Float64bits(a)), append(bs, math.Float64bits(b))
		}
	}
	rng := rand.New(rand.NewSource(9))
	for len(as)%256 != 0 || len(as) < 1024 {
		var a, b uint64
		if rng.Intn(2) == 0 {
			a, b = rng.Uint64(), rng.Uint64()
		} else {
			a = math.Float64bits(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(2000)-1000)))
			b = math.Float64bits(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(2000)-1000)))
		}
		as, bs = append(as, a), append(bs, b)
	}
	var want []uint64
	for i := range as {
		a, b := as[i], bs[i]
		want = append(want, fp.Div64(a, b, fp.RN), fp.Div64(a, b, fp.RZ), fp.Div64(a, b, fp.RM), fp.Div64(a, b, fp.RP),
			fp.Sqrt64(a, fp.RN), fp.Sqrt64(a, fp.RZ), fp.Sqrt64(b, fp.RM), fp.Sqrt64(b, fp.RP))
	}
	checkKeptWhole(t, ddivPTX, 64, as, bs, want, 4, "DDIV")
	sess, err := NewSession("k.ptx", []byte(ddivPTX), Options{}, PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(sess.Lowered.String(), " DSQRT"); got != 4 {
		t.Errorf("lowered code has %d DSQRT, want 4", got)
	}
}
