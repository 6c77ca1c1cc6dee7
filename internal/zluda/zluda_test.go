package zluda

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"orilab/internal/testenv"
	"orilab/pipeline/ptx"
	"orilab/pipeline/spec"
)

func load(t *testing.T) (string, []Case) {
	t.Helper()
	shared := testenv.Shared(t)
	cases, err := Load(shared)
	if err != nil {
		t.Fatal(err)
	}
	return shared, cases
}

func TestLoadCounts(t *testing.T) {
	shared, cases := load(t)
	files, _ := filepath.Glob(filepath.Join(shared, Dir, "expect", "*.json"))
	if len(files) != 137 {
		t.Fatalf("%d expectation files, want 137", len(files))
	}
	var run, run32, compile int
	fromFile := map[string]bool{}
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		names[c.Name] = true
		if c.Skip != "" {
			t.Errorf("%s: skipped: %s", c.Name, c.Skip)
			continue
		}
		switch {
		case c.Spec.CompileOnly:
			compile++
		case c.AddressSize == 32:
			run32++
		default:
			run++
		}
		if c.ExpectFile != "" {
			fromFile[c.ExpectFile] = true
		}
	}
	if len(fromFile) != 137 {
		t.Errorf("%d expectation files became cases, want 137", len(fromFile))
	}
	// 137 recorded tests, 5 of them (test_ptx_with_32!) with a 32-bit copy,
	// and 7 index entries without data, kept as compile-only cases.
	if run != 137 || run32 != 5 || compile != 7 || len(cases) != 149 {
		t.Errorf("cases: %d run, %d run 32-bit, %d compile-only, %d in all; want 137, 5, 7, 149", run, run32, compile, len(cases))
	}
}

func find(t *testing.T, cases []Case, name string) Case {
	t.Helper()
	for _, c := range cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s", name)
	return Case{}
}

func TestAbs(t *testing.T) {
	shared, cases := load(t)
	c := find(t, cases, "abs")
	s := c.Spec
	if c.Macro != "test_ptx!" || c.AddressSize != 64 || c.ExpectFile != "expect/abs.json" || c.PTX != "ptx/src/test/spirv_run/abs.ptx" {
		t.Errorf("case %+v", c)
	}
	if s.Kernel != "abs" || s.Name != "abs" || s.PTXPath != filepath.Join(shared, Dir, "ptx/src/test/spirv_run/abs.ptx") {
		t.Errorf("spec %+v", s)
	}
	if s.Launch != (spec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}, DynamicSharedBytes: 1024}) {
		t.Errorf("launch %+v", s.Launch)
	}
	want := []spec.Param{
		{Name: "input", Kind: "buffer", Elem: "s32", Count: 1, InitHexLE: []byte{0, 0, 0, 0x80}},
		{Name: "output", Kind: "buffer", Elem: "s32", Count: 1, Init: "zero"},
	}
	if !reflect.DeepEqual(s.Params, want) {
		t.Errorf("params\n got  %+v\n want %+v", s.Params, want)
	}
	if len(s.Expect) != 1 {
		t.Fatalf("expect %+v", s.Expect)
	}
	e := s.Expect[0]
	if e.Param != "output" || e.ParamIndex != 1 || e.Elem != "s32" || e.Count != 1 || !reflect.DeepEqual(e.Values, []uint64{0x80000000}) || e.Tolerance != nil {
		t.Errorf("expect %+v", e)
	}
	// abs(INT_MIN) is INT_MIN on the GPU.
	r := s.Check([][]byte{nil, {0, 0, 0, 0x80}})
	if got := spec.FormatResults(r); got != "output: PASS (1 elements)\n" {
		t.Errorf("%s", got)
	}
	r = s.Check([][]byte{nil, {0, 0, 0, 0}})
	if got := spec.FormatResults(r); got != "output: FAIL 1 of 1 elements differ; first: [0] got 0x00000000 (0) want 0x80000000 (-2147483648)\n" {
		t.Errorf("%s", got)
	}
}

func TestWarpAndVariants(t *testing.T) {
	_, cases := load(t)

	// A warp kernel with one parameter: only the output.
	c := find(t, cases, "vote_all")
	if c.Macro != "test_ptx_warp!" || len(c.Spec.Params) != 1 || c.Spec.Params[0].Name != "output" ||
		c.Spec.Launch.Block != [3]int{64, 1, 1} || c.Spec.Expect[0].Count != 64 {
		t.Errorf("vote_all %+v", c.Spec)
	}
	// A warp kernel with two: (output, output).
	c = find(t, cases, "bar_red_and_pred")
	ps := c.Spec.Params
	if len(ps) != 2 || ps[1].SameAs != "output" || c.Spec.Owner(1) != 0 || c.Spec.Launch.Block != [3]int{64, 1, 1} {
		t.Errorf("bar_red_and_pred %+v", ps)
	}
	// The 32-bit copy.
	c = find(t, cases, "add/32")
	if c.Test != "add" || c.AddressSize != 32 || c.Spec.Kernel != "add" || c.PTX != "ptx/src/test/spirv_run/32/add.ptx" ||
		!strings.HasSuffix(c.Spec.PTXPath, filepath.Join("spirv_run", "32", "add.ptx")) || len(c.Spec.Params) != 2 {
		t.Errorf("add/32 %+v", c)
	}
	c64 := find(t, cases, "add")
	if !reflect.DeepEqual(c.Spec.Params, c64.Spec.Params) || !reflect.DeepEqual(c.Spec.Expect, c64.Spec.Expect) {
		t.Errorf("add/32 differs from add")
	}
	// Types: i8..i64 map to s8..s64; u8 outputs stay u8.
	if e := find(t, cases, "tid").Spec.Expect[0]; e.Elem != "u8" || e.Count != 64 || e.Values[5] != 5 {
		t.Errorf("tid %+v", e)
	}
	// Compile-only entries of the index.
	c = find(t, cases, "trap")
	if !c.Spec.CompileOnly || c.ExpectFile != "" || c.Spec.Kernel != "trap" {
		t.Errorf("trap %+v", c)
	}
}

// TestBytesRoundTrip checks every case against its expectation file: the
// input buffer holds input.bytes_hex_le, and the recorded output passes.
func TestBytesRoundTrip(t *testing.T) {
	shared, cases := load(t)
	for _, c := range cases {
		if c.Skip != "" || c.Spec.CompileOnly {
			continue
		}
		var x expectFile
		if err := decodeStrict(filepath.Join(shared, Dir, c.ExpectFile), &x); err != nil {
			t.Fatal(err)
		}
		s := c.Spec
		bufs := make([][]byte, len(s.Params))
		for i, p := range s.Params {
			b, err := p.InitBytes()
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			bufs[i] = b
		}
		if x.Input != nil {
			want, _ := hex.DecodeString(x.Input.BytesHexLE)
			if !bytes.Equal(bufs[0], want) {
				t.Errorf("%s: input %x, want %x", c.Name, bufs[0], want)
			}
		}
		out := s.Owner(s.Expect[0].ParamIndex)
		if !bytes.Equal(bufs[out], make([]byte, len(bufs[out]))) {
			t.Errorf("%s: output not zeroed", c.Name)
		}
		recorded, _ := hex.DecodeString(x.Output.BytesHexLE)
		if k := max(overrun[c.Name], 1); len(recorded)*k != len(bufs[out]) {
			t.Errorf("%s: output buffer %d bytes, recorded %d (times %d)", c.Name, len(bufs[out]), len(recorded), k)
		}
		// An enlarged buffer (overrun) keeps the recording as its prefix.
		if n := len(bufs[out]) - len(recorded); n > 0 {
			recorded = append(recorded, make([]byte, n)...)
		}
		bufs[out] = recorded
		if r := s.Check(bufs); !spec.AllPass(r) {
			t.Errorf("%s: recorded output fails: %s", c.Name, spec.FormatResults(r))
		}
	}
}

// TestParamScan checks the simple .param scan against the PTX front end
// for every case's module.
func TestParamScan(t *testing.T) {
	_, cases := load(t)
	for _, c := range cases {
		if c.Skip != "" {
			continue
		}
		src, err := os.ReadFile(c.Spec.PTXPath)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ptx.ParseSyntax(c.Spec.PTXPath, src)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		n, ok := CountEntryParams(src, c.Spec.Kernel)
		found := false
		for _, it := range m.Items {
			if f, isFunc := it.(*ptx.Func); isFunc && f.Entry && f.Name == c.Spec.Kernel {
				found = true
				if !ok || n != len(f.Params) {
					t.Errorf("%s: scan counts %d (ok=%v), the parser %d", c.Name, n, ok, len(f.Params))
				}
				if !c.Spec.CompileOnly && len(c.Spec.Params) != n {
					t.Errorf("%s: %d spec params for %d kernel params", c.Name, len(c.Spec.Params), n)
				}
			}
		}
		if !found {
			t.Errorf("%s: the parser finds no .entry %s", c.Name, c.Spec.Kernel)
		}
	}
}

func TestCountEntryParams(t *testing.T) {
	for _, tt := range []struct {
		src    string
		kernel string
		n      int
		ok     bool
	}{
		{".visible .entry k(\n\t.param .u64 a,\n\t.param .u64 b\n)\n{ ret; }", "k", 2, true},
		{".entry k ( .param .u32 a ) { }", "k", 1, true},
		{".entry k() { }", "k", 0, true},
		{".entry k { }", "k", 0, true},
		{".entry kk(.param .u64 a) {} .entry k(.param .u64 a, .param .u64 b) {}", "k", 2, true},
		{"// .entry k(.param .u64 a)\n.entry k(/* .param .u64 x, */ .param .u64 b) {}", "k", 1, true},
		{".entry k(.param .u64 a, // .param x\n .param .align 8 .b8 s[16]) {}", "k", 2, true},
		{".func k(.param .u64 a) {}", "k", 0, false},
		{".entry other(.param .u64 a) {}", "k", 0, false},
		{".entry k(.param .u64 a", "k", 0, false},
	} {
		n, ok := CountEntryParams([]byte(tt.src), tt.kernel)
		if n != tt.n || ok != tt.ok {
			t.Errorf("%q: %d %v, want %d %v", tt.src, n, ok, tt.n, tt.ok)
		}
	}
}

func TestRustTypesCovered(t *testing.T) {
	shared := testenv.Shared(t)
	files, _ := filepath.Glob(filepath.Join(shared, Dir, "expect", "*.json"))
	seen := map[string]bool{}
	for _, f := range files {
		var x expectFile
		if err := decodeStrict(f, &x); err != nil {
			t.Fatal(err)
		}
		for _, b := range []*buffer{x.Input, x.Output} {
			if b != nil {
				seen[b.Type] = true
				if _, ok := elemOf[b.Type]; !ok {
					t.Errorf("%s: type %s has no mapping", f, b.Type)
				}
			}
		}
	}
	if len(seen) < 10 {
		t.Errorf("types seen: %v", seen)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "expect_index.json") {
		t.Errorf("missing corpus: %v", err)
	}
	// A broken corpus: unknown fields are an error; unrepresentable tests
	// are cases with a reason.
	dir := t.TempDir()
	root := filepath.Join(dir, Dir)
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("k.ptx", ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 a, .param .u64 b) { ret; }\n.visible .entry one(.param .u64 a) { ret; }\n.visible .entry three(.param .u64 a, .param .u64 b, .param .u64 c) { ret; }\n")
	write("expect_index.json", `{"source":"x","tests":[
		{"name":"k","macro":"test_ptx!","ptx":"k.ptx","ptx_exists":true,"has_data":true,"expect":"expect/k.json"},
		{"name":"gone","macro":"test_ptx!","ptx":"gone.ptx","ptx_exists":false,"has_data":false}]}`)
	buf := `{"type":"%s","count":1,"values":["1"],"elem_bits_hex":["0x00000001"],"bytes_hex_le":"01000000"}`
	mk := func(name, kernel, typ, input string) string {
		return `{"name":"` + name + `","source":"(macro test_ptx!)","ptx":"k.ptx","kernel":"` + kernel + `","launch":{"grid":[1,1,1],"block":[1,1,1],"dynamic_shared_bytes":1024},` +
			`"params":[],"input":` + input + `,"output":` + strings.Replace(buf, "%s", typ, 1) + `,"output_init":"","compare":""}`
	}
	write("expect/k.json", mk("k", "k", "u32", strings.Replace(buf, "%s", "u32", 1)))
	write("expect/z_bad_type.json", mk("z_bad_type", "k", "u128", strings.Replace(buf, "%s", "u32", 1)))
	write("expect/z_one.json", mk("z_one", "one", "u32", strings.Replace(buf, "%s", "u32", 1)))
	write("expect/z_three.json", mk("z_three", "three", "u32", strings.Replace(buf, "%s", "u32", 1)))
	write("expect/z_missing.json", mk("z_missing", "nokernel", "u32", strings.Replace(buf, "%s", "u32", 1)))
	write("expect/z_bits.json", mk("z_bits", "k", "u32", `{"type":"u32","count":1,"values":["1"],"elem_bits_hex":["0x00000002"],"bytes_hex_le":"01000000"}`))
	write("expect/z_short.json", mk("z_short", "k", "u32", `{"type":"u32","count":2,"values":["1"],"elem_bits_hex":["0x00000001"],"bytes_hex_le":"01000000"}`))
	cases, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cases {
		got[c.Name] = c.Skip
	}
	want := map[string]string{
		"k":          "",
		"gone":       "no recorded data and no PTX in the corpus",
		"z_bad_type": `output type "u128" has no spec element type`,
		"z_one":      "kernel declares 1 parameters, so it does not receive the output buffer",
		"z_three":    "kernel declares 3 parameters; the harness passes 2",
		"z_missing":  "no .entry nokernel in k.ptx",
		"z_bits":     "input element 0: elem_bits_hex 0x00000002 disagrees with bytes_hex_le (0x00000001)",
		"z_short":    "input.bytes_hex_le is not 2 u32 elements",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skips\n got  %v\n want %v", got, want)
	}
	if cases[0].Name != "k" || cases[1].Name != "gone" || cases[2].Name != "z_bad_type" || cases[2].Macro != "test_ptx!" {
		t.Errorf("order: %v", got)
	}
	write("expect/z_unknown.json", `{"name":"x","surprise":1}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `unknown field "surprise"`) {
		t.Errorf("unknown field: %v", err)
	}
}
