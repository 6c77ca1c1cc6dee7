package pipeline

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/spec"
)

// mufu16PTX computes ex2.approx and tanh.approx of all 65,536 binary16
// values, as .f16x2 pairs (thread i: values 2i and 2i+1) and as scalars.
const mufu16PTX = `.version 7.8
.target sm_80
.address_size 64
.visible .entry mufu16(.param .u64 in, .param .u64 ex2x2, .param .u64 tanhx2, .param .u64 ex2s, .param .u64 tanhs)
{
	.reg .b16 %h<6>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	mov.u32 %r0, %ctaid.x;
	mov.u32 %r1, %ntid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.u32 %r3, %r0, %r1, %r2;
	mul.wide.u32 %rd0, %r3, 4;
	ld.param.u64 %rd1, [in];
	add.u64 %rd2, %rd1, %rd0;
	ld.global.u32 %r4, [%rd2];
	ex2.approx.f16x2 %r5, %r4;
	tanh.approx.f16x2 %r6, %r4;
	ld.param.u64 %rd3, [ex2x2];
	add.u64 %rd4, %rd3, %rd0;
	st.global.u32 [%rd4], %r5;
	ld.param.u64 %rd5, [tanhx2];
	add.u64 %rd6, %rd5, %rd0;
	st.global.u32 [%rd6], %r6;
	mov.b32 {%h0, %h1}, %r4;
	ex2.approx.f16 %h2, %h0;
	ex2.approx.f16 %h3, %h1;
	tanh.approx.f16 %h4, %h0;
	tanh.approx.f16 %h5, %h1;
	ld.param.u64 %rd7, [ex2s];
	add.u64 %rd8, %rd7, %rd0;
	st.global.v2.u16 [%rd8], {%h2, %h3};
	ld.param.u64 %rd9, [tanhs];
	add.u64 %rd10, %rd9, %rd0;
	st.global.v2.u16 [%rd10], {%h4, %h5};
	ret;
}
`

// TestMufuF16AgainstH100 runs ex2.approx.f16 and tanh.approx.f16, scalar
// and .f16x2, over every binary16 value through the lowering (MUFU.F16,
// with PRMTs for the pairs) and the simulator at -O0 and -O3, and compares
// the results with the H100's (ops-h100.tgz): both must match on every
// input.
func TestMufuF16AgainstH100(t *testing.T) {
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
		if len(b) != 2*65536 {
			t.Fatalf("%s has %d bytes, want 131072", name, len(b))
		}
		return b
	}
	in, ex2, tanh := read("mufu-inputs-f16.bin"), read("mufu-ex2.approx.f16.bin"), read("mufu-tanh.approx.f16.bin")
	const n = 32768
	words := func(b []byte) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	sp := &spec.Spec{Name: "mufu16", PTX: "k.ptx", Kernel: "mufu16",
		Launch: spec.Launch{Grid: [3]int{n / 256, 1, 1}, Block: [3]int{256, 1, 1}},
		Params: []spec.Param{
			{Name: "in", Kind: spec.KindBuffer, Elem: "u32", Count: n, InitHexLE: in},
			{Name: "ex2x2", Kind: spec.KindBuffer, Elem: "u32", Count: n, Init: spec.InitZero},
			{Name: "tanhx2", Kind: spec.KindBuffer, Elem: "u32", Count: n, Init: spec.InitZero},
			{Name: "ex2s", Kind: spec.KindBuffer, Elem: "u32", Count: n, Init: spec.InitZero},
			{Name: "tanhs", Kind: spec.KindBuffer, Elem: "u32", Count: n, Init: spec.InitZero},
		},
		Expect: []spec.Expect{
			{Param: "ex2x2", Elem: "u32", Count: n, Values: words(ex2)},
			{Param: "ex2s", Elem: "u32", Count: n, Values: words(ex2)},
			{Param: "tanhx2", Elem: "u32", Count: n, Values: words(tanh)},
			{Param: "tanhs", Elem: "u32", Count: n, Values: words(tanh)},
		},
	}
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mufu16.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(mufu16PTX), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "mufu16.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(mufu16PTX)
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
			t.Errorf("-O%d: ex2.approx.f16 or tanh.approx.f16 differs from the H100: %s", o, spec.FormatResults(res))
		}
	}
}
