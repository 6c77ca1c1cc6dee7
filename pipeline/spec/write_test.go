package spec

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestJSONRoundTrip writes every kernel spec of the repository with JSON
// and reads it back: the spec must come back field for field.
func TestJSONRoundTrip(t *testing.T) {
	var files []string
	for _, g := range []string{
		filepath.Join("..", "..", "testdata", "kernels", "*.json"),
		filepath.Join("..", "..", "testdata", "opt", "*.json"),
		filepath.Join("..", "..", "bisect", "testdata", "reduce", "*.json"),
		filepath.Join("..", "..", "tui", "sample", "*.json"),
		filepath.Join("testdata", "*.json"),
	} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			continue // the reader's own tests keep invalid specs here
		}
		data, err := s.JSON()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := Parse(s.File, data, s.Dir)
		if err != nil {
			t.Fatalf("%s: the written spec does not read back: %v\n%s", f, err, data)
		}
		if !reflect.DeepEqual(back, s) {
			t.Errorf("%s: round trip differs:\n got %+v\nwant %+v\n%s", f, back, s, data)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d specs round-tripped", n)
	}
}

// TestJSONForms checks the forms the writer chooses: zero init for a
// buffer without init bytes, init_hex_le for bytes, all_equal, tolerance
// and ignore_indices, and compile_only.
func TestJSONForms(t *testing.T) {
	one := uint64(0x3f800000)
	s := &Spec{Name: "k", PTX: "k.ptx", Kernel: "k", Launch: Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}},
		Params: []Param{
			{Name: "a", Kind: KindBuffer, Elem: "f32", Count: 2},
			{Name: "b", Kind: KindBuffer, Elem: "u8", Count: 2, InitHexLE: []byte{1, 2}},
			{Name: "c", Kind: KindBuffer, SameAs: "a"},
			{Name: "n", Kind: KindScalar, Type: "u32", Value: "7"},
		},
		Expect: []Expect{{Param: "a", Elem: "f32", Count: 2, AllEqual: &one,
			Tolerance: &Tolerance{Kind: TolULP, ULP: 2}, IgnoreIndices: map[int]bool{1: true}}},
	}
	data, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"init": "zero"`, `"init_hex_le": "0102"`, `"same_as": "a"`, `"all_equal": "0x3f800000"`, `"ulp": 2`, `"ignore_indices": [`, `"grid": [`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lacks %s:\n%s", want, data)
		}
	}
	s.Expect, s.CompileOnly = nil, true
	data, _ = s.JSON()
	if !strings.Contains(string(data), `"compile_only": true`) {
		t.Errorf("compile_only:\n%s", data)
	}
}
