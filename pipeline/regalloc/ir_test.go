package regalloc_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/spec"
	"orilab/pipeline/verifyra"
)

// Unit tests in the style of "IR text in, expected IR text out": small
// functions written in Ori text, allocated, compared with the exact
// expected text, and (where they are kernels) executed before and after
// allocation on the same launch, which must give the same output.

const moduleHead = ".module sm_75 address_size=64\n\n"

// kernelHead declares a kernel k with one 64-bit output pointer.
const kernelHead = ".entry k\n.param out offset=0x160 size=0x8 align=0x8\n.shared 0x0\n"

func parseModule(t *testing.T, text string) *ori.Module {
	t.Helper()
	m, err := ori.ParseModule("t.ori", []byte(moduleHead+text))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	for _, f := range m.Funcs {
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// body returns the text of f between its braces, as the tests write it.
func body(f *ori.Func) string {
	s := f.String()
	return s[strings.Index(s, "{\n")+2 : strings.LastIndex(s, "}")]
}

// knobSet loads knob assignments ("Name=Value").
func knobSet(t *testing.T, assigns ...string) *knobs.Set {
	t.Helper()
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: assigns})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outSpec launches kernel k with one thread block of n threads and an
// output buffer of words 32-bit words.
func outSpec(n, words int) *spec.Spec {
	return &spec.Spec{Name: "k", File: "ir_test", Kernel: "k",
		Launch: spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{n, 1, 1}},
		Params: []spec.Param{{Name: "out", Kind: spec.KindBuffer, Elem: "u32", Count: words, Init: "zero"}}}
}

// sameOutput runs s on both modules and fails unless the buffers match;
// it returns the output as words.
func sameOutput(t *testing.T, before, after *ori.Module, s *spec.Spec) []uint32 {
	t.Helper()
	want, _, err := pipeline.ExecuteBuffers(before, s, pipeline.RunOptions{})
	if err != nil {
		t.Fatalf("before allocation: %v", err)
	}
	got, _, err := pipeline.ExecuteBuffers(after, s, pipeline.RunOptions{})
	if err != nil {
		t.Fatalf("after allocation: %v", err)
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("buffer %d differs after allocation:\nwant %x\n got %x", i, want[i], got[i])
		}
	}
	out := make([]uint32, len(want[0])/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(want[0][4*i:])
	}
	return out
}

// check allocates a copy of the module's function name with opts and
// compares its body with want (unless want is empty: the caller checks
// properties of the result instead).
func check(t *testing.T, m *ori.Module, name string, opts regalloc.Options, want string) (*ori.Module, *regalloc.Stats) {
	t.Helper()
	c := m.Clone()
	f := c.Func(name)
	st, err := regalloc.Allocate(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	if got := body(f); want != "" && got != want {
		t.Fatalf("after allocation:\n%s\nwant:\n%s", got, want)
	}
	if err := verifyra.VerifyReachingDefs(m.Func(name), f); err != nil {
		t.Fatalf("verifier: %v", err)
	}
	return c, st
}
