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
	var as, bs []uint32
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, a), append(bs, b)
		}
	}
	rng := rand.New(rand.NewSource(7))
	for len(as)%256 != 0 || len(as) < 1024 {
		a, b := rng.Uint32(), rng.Uint32()>>uint(rng.Intn(32))
		as, bs = append(as, a), append(bs, b)
	}
	hexLE := func(vs []uint32) string {
		var sb strings.Builder
		for _, v := range vs {
			var w [4]byte
			binary.LittleEndian.PutUint32(w[:], v)
			fmt.Fprintf(&sb, "%x", w)
		}
		return sb.String()
	}
	var want []string
	for i := range as {
		for _, v := range idivWant(as[i], bs[i]) {
			want = append(want, fmt.Sprintf("0x%08x", v))
		}
	}
	n := len(as)
	sp := map[string]any{
		"name": "idiv", "ptx": "idiv.ptx", "kernel": "idiv",
		"launch": map[string]any{"grid": []int{n / 256, 1, 1}, "block": []int{256, 1, 1}},
		"params": []map[string]any{
			{"name": "a", "kind": "buffer", "elem": "u32", "count": n, "init_hex_le": hexLE(as)},
			{"name": "b", "kind": "buffer", "elem": "u32", "count": n, "init_hex_le": hexLE(bs)},
			{"name": "out", "kind": "buffer", "elem": "u32", "count": 4 * n, "init": "zero"},
		},
		"expect": []map[string]any{{"param": "out", "elem": "u32", "count": 4 * n, "values_hex": want}},
	}
	dir := t.TempDir()
	js, _ := json.Marshal(sp)
	if err := os.WriteFile(filepath.Join(dir, "idiv.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "idiv.ptx"), []byte(idivPTX), 0o644); err != nil {
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
		rep, err := RunSpec(s, RunOptions{Phases: PhaseOptions{OptLevel: c.o, Verify: true}, After: c.after})
		if err != nil {
			t.Fatalf("-O%d after %q: %v", c.o, c.after, err)
		}
		if !rep.Pass {
			t.Errorf("-O%d after %q: %s", c.o, c.after, spec.FormatResults(rep.Results))
		}
	}
	// The lowered code has the four IDIVs; the final code none.
	src := []byte(idivPTX)
	sess, err := NewSession("idiv.ptx", src, Options{}, PhaseOptions{OptLevel: 3})
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
