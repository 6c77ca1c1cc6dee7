package pipeline

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"orilab/pipeline/sim/fp"
	"orilab/pipeline/spec"
)

const mufuHookPTX = `.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<6>;
	mov.u32 %r0, %tid.x;
	cvt.rn.f32.u32 %f0, %r0;
	tanh.approx.f32 %f1, %f0;
	ex2.approx.ftz.f32 %f2, %f0;
	ld.param.u64 %rd0, [out];
	mul.wide.u32 %rd1, %r0, 8;
	add.u64 %rd2, %rd0, %rd1;
	st.global.v2.f32 [%rd2], {%f1, %f2};
	ret;
}
`

// TestRunOptionsMUFU: RunOptions.MUFU sees every MUFU result with its
// function and operand, and what it returns is what the program gets.
func TestRunOptionsMUFU(t *testing.T) {
	const n = 64
	dir := t.TempDir()
	sp := &spec.Spec{Name: "hook", PTX: "k.ptx", Kernel: "k",
		Launch: spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{n, 1, 1}},
		Params: []spec.Param{{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: 2 * n, Init: spec.InitZero}},
	}
	js, err := sp.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"k.json": js, "k.ptx": []byte(mufuHookPTX)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := spec.Load(filepath.Join(dir, "k.json"))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := NewSession("k.ptx", []byte(mufuHookPTX), Options{Arch: 90}, PhaseOptions{OptLevel: 0, NoSnapshots: true})
	if err == nil {
		err = sess.RunAll()
	}
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	hook := func(fn string, x, y uint32) uint32 {
		calls[fn]++
		if fn == "TANH" {
			if y != fp.TanhSFU32(x) {
				t.Errorf("the hook got TANH(%#x) = %#x, the model says %#x", x, y, fp.TanhSFU32(x))
			}
			return x ^ 1
		}
		return y
	}
	bufs, _, err := ExecuteBuffers(sess.Module(), s, RunOptions{MUFU: hook})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		x := math.Float32bits(float32(i))
		tanh, ex2 := binary.LittleEndian.Uint32(bufs[0][8*i:]), binary.LittleEndian.Uint32(bufs[0][8*i+4:])
		if tanh != x^1 {
			t.Errorf("thread %d: tanh result %#x, want the hook's %#x", i, tanh, x^1)
		}
		if want := fp.Ex2SFU32(x); ex2 != want {
			t.Errorf("thread %d: ex2 result %#x, want the model's %#x", i, ex2, want)
		}
	}
	if calls["TANH"] != n || calls["EX2"] != n {
		t.Errorf("the hook saw %v, want %d TANH and %d EX2", calls, n, n)
	}
}
