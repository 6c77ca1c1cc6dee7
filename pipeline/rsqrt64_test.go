package pipeline

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/spec"
)

// rsqrt64PTX computes rsqrt.approx.f64 of one f64 per thread.
const rsqrt64PTX = `.version 7.8
.target sm_80
.address_size 64
.visible .entry rsqrt64(.param .u64 in, .param .u64 out)
{
	.reg .f64 %fd<3>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<6>;
	mov.u32 %r0, %ctaid.x;
	mov.u32 %r1, %ntid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.u32 %r3, %r0, %r1, %r2;
	mul.wide.u32 %rd0, %r3, 8;
	ld.param.u64 %rd1, [in];
	add.u64 %rd2, %rd1, %rd0;
	ld.global.f64 %fd0, [%rd2];
	rsqrt.approx.f64 %fd1, %fd0;
	ld.param.u64 %rd3, [out];
	add.u64 %rd4, %rd3, %rd0;
	st.global.f64 [%rd4], %fd1;
	ret;
}
`

// TestRsqrtF64AgainstH100 runs rsqrt.approx.f64 over the f64 sweep of
// ops-h100.tgz through the lowering (MUFU.RSQ64H, one refinement and
// ptxas's fix-ups for the special operands) and the simulator at -O0
// and -O3: every result must equal the H100's. The negative operands
// pin the lowering's default NaN: MUFU.RSQ64H alone gives 0x7fffffff in
// the high word there.
func TestRsqrtF64AgainstH100(t *testing.T) {
	shared := testenv.Shared(t)
	dir := t.TempDir()
	if err := untgz(filepath.Join(shared, "hwtruth", "ops-h100.tgz"), dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	in, want := read("mufu-inputs-f64.bin"), read("mufu-rsqrt.approx.f64.bin")
	if len(in) != len(want) || len(in)%8 != 0 {
		t.Fatalf("mufu-inputs-f64.bin has %d bytes, mufu-rsqrt.approx.f64.bin %d", len(in), len(want))
	}
	// Whole blocks of 256 threads: the last block holds the end of the
	// sweep (its specials: ±0, ±inf, a NaN, 1.0), and the inputs just
	// before it are dropped.
	n := len(in) / 8 / 256 * 256
	in = append(append([]byte{}, in[:(n-256)*8]...), in[len(in)-256*8:]...)
	want = append(append([]byte{}, want[:(n-256)*8]...), want[len(want)-256*8:]...)
	vals := make([]uint64, n)
	negatives := 0
	for i := range vals {
		vals[i] = binary.LittleEndian.Uint64(want[8*i:])
		if x := binary.LittleEndian.Uint64(in[8*i:]); x>>63 != 0 && x&(1<<63-1) != 0 && x&(1<<63-1) <= 0x7ff0000000000000 {
			negatives++
		}
	}
	if negatives < 1000 {
		t.Fatalf("the sweep has %d negative operands, want the README's 2^17", negatives)
	}
	sp := &spec.Spec{Name: "rsqrt64", PTX: "k.ptx", Kernel: "rsqrt64",
		Launch: spec.Launch{Grid: [3]int{n / 256, 1, 1}, Block: [3]int{256, 1, 1}},
		Params: []spec.Param{
			{Name: "in", Kind: spec.KindBuffer, Elem: "u64", Count: n, InitHexLE: in},
			{Name: "out", Kind: spec.KindBuffer, Elem: "u64", Count: n, Init: spec.InitZero},
		},
		Expect: []spec.Expect{{Param: "out", Elem: "u64", Count: n, Values: vals}},
	}
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rsqrt64.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(rsqrt64PTX), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "rsqrt64.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(rsqrt64PTX)
	for _, o := range []int{0, 3} {
		sess, err := NewSession("k.ptx", src, Options{Arch: 90}, PhaseOptions{OptLevel: o, NoSnapshots: true, Verify: true})
		if err == nil {
			err = sess.RunAll()
		}
		if err != nil {
			t.Fatalf("-O%d: %v", o, err)
		}
		buffers, _, err := ExecuteBuffers(sess.Module(), s, RunOptions{})
		if err != nil {
			t.Fatalf("-O%d: %v", o, err)
		}
		if res := s.Check(buffers); !spec.AllPass(res) {
			t.Errorf("-O%d: rsqrt.approx.f64 differs from the H100: %s", o, spec.FormatResults(res))
		}
	}
}
