package pipeline

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	checkIDIVSpec(t, idivPTX, 32, as, bs, want)
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
	checkIDIVSpec(t, idiv64PTX, 64, as, bs, want)
}

// checkIDIVSpec runs the kernel ptx (a[i] and b[i] of the given width,
// four results per i in out) at -O3 right after lowering (IDIV executed
// by the simulator), at -O0 after ConvertUnsupportedOps and at the end,
// and at -O3 after LateExpansionUnsupportedOps and at the end, with the
// verifier on; every run must give want. The lowered code must hold four
// IDIVs and the final code none.
func checkIDIVSpec(t *testing.T, ptx string, width int, as, bs, want []uint64) {
	t.Helper()
	elem, size := "u32", 4
	if width == 64 {
		elem, size = "u64", 8
	}
	hexLE := func(vs []uint64) string {
		var sb strings.Builder
		for _, v := range vs {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], v)
			fmt.Fprintf(&sb, "%x", w[:size])
		}
		return sb.String()
	}
	var wantHex []string
	for _, v := range want {
		wantHex = append(wantHex, fmt.Sprintf("0x%0*x", 2*size, v))
	}
	n := len(as)
	sp := map[string]any{
		"name": "idiv", "ptx": "idiv.ptx", "kernel": "idiv",
		"launch": map[string]any{"grid": []int{n / 256, 1, 1}, "block": []int{256, 1, 1}},
		"params": []map[string]any{
			{"name": "a", "kind": "buffer", "elem": elem, "count": n, "init_hex_le": hexLE(as)},
			{"name": "b", "kind": "buffer", "elem": elem, "count": n, "init_hex_le": hexLE(bs)},
			{"name": "out", "kind": "buffer", "elem": elem, "count": 4 * n, "init": "zero"},
		},
		"expect": []map[string]any{{"param": "out", "elem": elem, "count": 4 * n, "values_hex": wantHex}},
	}
	dir := t.TempDir()
	js, _ := json.Marshal(sp)
	if err := os.WriteFile(filepath.Join(dir, "idiv.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "idiv.ptx"), []byte(ptx), 0o644); err != nil {
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
		rep, err := RunSpec(s, RunOptions{Phases: PhaseOptions{OptLevel: c.o, Verify: true}, After: c.after, MaxWarpSteps: 10_000_000})
		if err != nil {
			t.Fatalf("-O%d after %q: %v", c.o, c.after, err)
		}
		if !rep.Pass {
			t.Errorf("-O%d after %q: %s", c.o, c.after, spec.FormatResults(rep.Results))
		}
	}
	sess, err := NewSession("idiv.ptx", []byte(ptx), Options{}, PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(sess.Lowered.String(), "IDIV"); got != 4 {
		t.Errorf("lowered code has %d IDIVs, want 4", got)
	}
	if err := sess.RunAll(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sess.Module().String(), "IDIV") {
		t.Error("an IDIV survived to the final code")
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
