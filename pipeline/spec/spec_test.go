package spec

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"orilab/pipeline/ptx"
)

var update = flag.Bool("update", false, "rewrite testdata/vecadd.c.hex")

// vecaddC computes the expected c of testdata/vecadd.json: lcg:1 plus
// index, in f32.
func vecaddC(t *testing.T, s *Spec) []byte {
	a, err := s.Params[0].InitBytes()
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Params[1].InitBytes()
	if err != nil {
		t.Fatal(err)
	}
	c := make([]byte, len(a))
	for i := 0; i < len(a); i += 4 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
		y := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
		binary.LittleEndian.PutUint32(c[i:], math.Float32bits(x+y))
	}
	return c
}

func TestLoadVecadd(t *testing.T) {
	s, err := Load("testdata/vecadd.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "vecadd" || s.Kernel != "vecadd" || s.PTXPath != filepath.Join("testdata", "vecadd.ptx") || s.Dir != "testdata" || s.File != "testdata/vecadd.json" {
		t.Errorf("header: %+v", s)
	}
	if want := (Launch{Grid: [3]int{4, 1, 1}, Block: [3]int{128, 1, 1}}); s.Launch != want {
		t.Errorf("launch %+v, want %+v", s.Launch, want)
	}
	wantParams := []Param{
		{Name: "a", Kind: "buffer", Elem: "f32", Count: 512, Init: "lcg:1"},
		{Name: "b", Kind: "buffer", Elem: "f32", Count: 512, Init: "index"},
		{Name: "c", Kind: "buffer", Elem: "f32", Count: 512, Init: "zero"},
		{Name: "n", Kind: "scalar", Type: "u32", Value: "512"},
	}
	if !reflect.DeepEqual(s.Params, wantParams) {
		t.Errorf("params\n got  %+v\n want %+v", s.Params, wantParams)
	}
	if len(s.Expect) != 1 {
		t.Fatalf("expect: %+v", s.Expect)
	}
	e := s.Expect[0]
	if e.Param != "c" || e.ParamIndex != 2 || e.Elem != "f32" || e.Count != 512 || len(e.Values) != 512 ||
		e.ValuesFile != filepath.Join("testdata", "vecadd.c.hex") ||
		!reflect.DeepEqual(e.Tolerance, &Tolerance{Kind: TolRelAbs, Rel: 1e-6}) {
		t.Errorf("expect %+v", e)
	}
	// The expected file is what the kernel computes from the fills.
	c := vecaddC(t, s)
	if *update {
		var b strings.Builder
		b.WriteString("# testdata/vecadd.json: c = a (lcg:1) + b (index), f32\n")
		for i := 0; i < len(c); i += 4 {
			fmt.Fprintf(&b, "0x%08x\n", binary.LittleEndian.Uint32(c[i:]))
		}
		if err := os.WriteFile("testdata/vecadd.c.hex", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote testdata/vecadd.c.hex; run again without -update")
		return
	}
	r := s.Check([][]byte{nil, nil, c, nil})
	if got := FormatResults(r); got != "c: PASS (512 elements)\n" {
		t.Errorf("check: %s", got)
	}
	// The first values, by hand: lcg:1 gives 0x3c88596c, so a[0] =
	// 0x3c8859/2^24 = 0.2364555 (f32 0x3e722164), and c[0] = a[0] + 0.
	if e.Values[0] != 0x3e722164 {
		t.Errorf("c[0] = %#x, want 0x3e722164", e.Values[0])
	}
	// The scalar.
	if b, err := s.Params[3].ScalarBytes(); err != nil || !bytes.Equal(b, []byte{0, 2, 0, 0}) {
		t.Errorf("n: %x %v", b, err)
	}
	// The PTX is valid for the front end.
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ptx.Parse(s.PTXPath, src); err != nil {
		t.Errorf("vecadd.ptx: %v", err)
	}
}

func TestLoadAliased(t *testing.T) {
	s, err := Load("testdata/aliased.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Launch != (Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{4, 1, 1}, DynamicSharedBytes: 1024}) {
		t.Errorf("launch %+v", s.Launch)
	}
	if got := []int{s.Owner(0), s.Owner(1), s.Owner(2), s.Owner(3), s.Owner(4), s.Owner(-1)}; !reflect.DeepEqual(got, []int{0, 1, 0, -1, -1, -1}) {
		t.Errorf("owners %v", got)
	}
	if s.Lookup("c") != 2 || s.Lookup("zz") != -1 {
		t.Errorf("Lookup")
	}
	a, err := s.Params[0].InitBytes()
	if err != nil || !bytes.Equal(a, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("a: %x %v", a, err)
	}
	if c, err := s.Params[2].InitBytes(); c != nil || err != nil {
		t.Errorf("same_as InitBytes = %x, %v; want nil, nil", c, err)
	}
	if s.Params[2].Size() != 0 || s.Params[0].Size() != 16 || s.Params[3].Size() != 4 {
		t.Errorf("sizes")
	}
	e := s.Expect[0]
	if e.Param != "c" || e.ParamIndex != 2 || e.Elem != "f32" || e.Count != 4 {
		t.Errorf("expect %+v", e)
	}
	// The kernel computes c = a + b in place into a.
	out := make([]byte, 16)
	for i, v := range []float32{1.5, 2.5, 0.5, 0.5} {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	if r := s.Check([][]byte{out, make([]byte, 16), nil, nil}); !AllPass(r) {
		t.Errorf("check: %s", FormatResults(r))
	}
}

func TestCompileOnly(t *testing.T) {
	s, err := Load("testdata/compile_only.json")
	if err != nil {
		t.Fatal(err)
	}
	if !s.CompileOnly || len(s.Expect) != 0 || len(s.Params) != 0 || s.Name != "compile_only" {
		t.Errorf("%+v", s)
	}
	if s.Launch != (Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}}) {
		t.Errorf("launch %+v", s.Launch)
	}
}

func TestParseDefaults(t *testing.T) {
	src := `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[2,3],"block":[32]},
	  "params":[{"name":"p","kind":"buffer","elem":"u8","count":10,"init":"zero"}],
	  "expect":[{"param":0,"elem":"u16","count":5,"all_equal":"0xBEEF","ignore_indices":[4,0]},
	            {"param":"p","values_hex":["0","1","2","3","4","5","6","7","8","0xff"]}]}`
	s, err := Parse("dir/x.spec.json", []byte(src), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "x.spec" || s.Launch.Grid != [3]int{2, 3, 1} || s.Launch.Block != [3]int{32, 1, 1} {
		t.Errorf("%+v", s)
	}
	e0, e1 := s.Expect[0], s.Expect[1]
	if e0.Param != "p" || e0.Elem != "u16" || e0.Count != 5 || *e0.AllEqual != 0xbeef || e0.Values != nil ||
		!reflect.DeepEqual(e0.IgnoreIndices, map[int]bool{0: true, 4: true}) {
		t.Errorf("expect[0] %+v", e0)
	}
	if e1.Elem != "u8" || e1.Count != 10 || e1.Values[9] != 0xff || e1.IgnoreIndices != nil || e1.AllEqual != nil {
		t.Errorf("expect[1] %+v", e1)
	}
	// Absolute paths are taken as they are.
	abs, _ := filepath.Abs("testdata/vecadd.ptx")
	s, err = Parse("y.json", []byte(`{"ptx":`+quote(abs)+`,"kernel":"k","expect":{"compile_only":true}}`), "/nonexistent")
	if err != nil || s.PTXPath != abs {
		t.Errorf("absolute ptx: %v %+v", err, s)
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func TestLCG(t *testing.T) {
	// By hand: x1 = 1664525*1 + 1013904223 = 1015568748 = 0x3c88596c;
	// x2 = (1664525*1015568748 + 1013904223) mod 2^32.
	x2 := uint32((uint64(1664525)*1015568748 + 1013904223) % (1 << 32))
	if got := LCG(1, 2); got[0] != 0x3c88596c || got[1] != x2 || x2 != 0x5e8885db {
		t.Errorf("LCG(1) = %#x, want [0x3c88596c %#x]", got, x2)
	}
	want := map[uint32][]uint32{
		0:     {0x3c6ef35f, 0x47502932, 0xd1ccf6e9, 0xaaf95334},
		1:     {0x3c88596c, 0x5e8885db, 0x8116017e, 0xb4733ac5},
		12345: {0x05391c44, 0x043c7ad3, 0x8b0c4216, 0xa289127d},
	}
	for seed, w := range want {
		if got := LCG(seed, 4); !reflect.DeepEqual(got, w) {
			t.Errorf("LCG(%d) = %#x, want %#x", seed, got, w)
		}
	}
}

// elems reads a buffer as bit patterns.
func elems(b []byte, size int) []uint64 {
	var out []uint64
	for i := 0; i+size <= len(b); i += size {
		out = append(out, getLE(b[i:], size))
	}
	return out
}

func TestInitBytes(t *testing.T) {
	tests := []struct {
		elem, init string
		count      int
		want       []uint64
	}{
		{"u8", "zero", 3, []uint64{0, 0, 0}},
		{"f64", "zero", 2, []uint64{0, 0}},

		{"u8", "index", 3, []uint64{0, 1, 2}},
		{"s8", "index", 3, []uint64{0, 1, 2}},
		{"u16", "index", 2, []uint64{0, 1}},
		{"s16", "index", 2, []uint64{0, 1}},
		{"u32", "index", 3, []uint64{0, 1, 2}},
		{"s32", "index", 3, []uint64{0, 1, 2}},
		{"u64", "index", 2, []uint64{0, 1}},
		{"s64", "index", 2, []uint64{0, 1}},
		{"f16", "index", 4, []uint64{0, 0x3c00, 0x4000, 0x4200}},
		{"bf16", "index", 4, []uint64{0, 0x3f80, 0x4000, 0x4040}},
		{"f32", "index", 3, []uint64{0, 0x3f800000, 0x40000000}},
		{"f64", "index", 3, []uint64{0, 0x3ff0000000000000, 0x4000000000000000}},

		{"u8", "const:255", 2, []uint64{0xff, 0xff}},
		{"u8", "const:0xAB", 2, []uint64{0xab, 0xab}},
		{"s8", "const:-1", 2, []uint64{0xff, 0xff}},
		{"s8", "const:-128", 1, []uint64{0x80}},
		{"s8", "const:0x80", 1, []uint64{0x80}},
		{"u16", "const:65535", 1, []uint64{0xffff}},
		{"s16", "const:-2", 1, []uint64{0xfffe}},
		{"u32", "const:4294967295", 1, []uint64{0xffffffff}},
		{"s32", "const:-2147483648", 1, []uint64{0x80000000}},
		{"u64", "const:18446744073709551615", 1, []uint64{math.MaxUint64}},
		{"s64", "const:-1", 1, []uint64{math.MaxUint64}},
		{"s64", "const:+7", 1, []uint64{7}},
		{"f16", "const:1.5", 1, []uint64{0x3e00}},
		{"f16", "const:65504", 1, []uint64{0x7bff}},
		{"f16", "const:-0", 1, []uint64{0x8000}},
		{"f16", "const:0x7e00", 1, []uint64{0x7e00}},
		{"bf16", "const:1.5", 1, []uint64{0x3fc0}},
		{"bf16", "const:-2", 1, []uint64{0xc000}},
		{"f32", "const:0.1", 1, []uint64{0x3dcccccd}},
		{"f32", "const:-1e-45", 1, []uint64{0x80000001}},
		{"f32", "const:0x7fc00000", 1, []uint64{0x7fc00000}},
		{"f32", "const:.5", 1, []uint64{0x3f000000}},
		{"f32", "const:5.", 1, []uint64{0x40a00000}},
		{"f64", "const:0.1", 1, []uint64{0x3fb999999999999a}},
		{"f64", "const:1e-400", 1, []uint64{0}},
		{"f64", "const:0xfff0000000000000", 1, []uint64{0xfff0000000000000}},

		// lcg:1 gives 0x3c88596c 0x5e8885db 0x8116017e.
		{"u8", "lcg:1", 3, []uint64{0x6c, 0xdb, 0x7e}},
		{"s8", "lcg:1", 3, []uint64{0x6c, 0xdb, 0x7e}},
		{"u16", "lcg:1", 3, []uint64{0x596c, 0x85db, 0x017e}},
		{"s16", "lcg:0x1", 3, []uint64{0x596c, 0x85db, 0x017e}},
		{"u32", "lcg:1", 3, []uint64{0x3c88596c, 0x5e8885db, 0x8116017e}},
		{"s32", "lcg:1", 3, []uint64{0x3c88596c, 0x5e8885db, 0x8116017e}},
		{"u64", "lcg:1", 2, []uint64{0x3c88596c, 0x5e8885db}},
		{"s64", "lcg:1", 2, []uint64{0x3c88596c, 0x5e8885db}},
		// Floats: (x>>8)/2^24 = 0x3c8859/2^24 = 0.236455500125885, ...
		{"f32", "lcg:1", 4, []uint64{0x3e722164, 0x3ebd110a, 0x3f011601, 0x3f34733a}},
		{"f64", "lcg:1", 2, []uint64{0x3fce442c80000000, 0x3fd7a22140000000}},
		{"f16", "lcg:1", 4, []uint64{0x3391, 0x35e9, 0x3809, 0x39a4}},
		{"bf16", "lcg:1", 4, []uint64{0x3e72, 0x3ebd, 0x3f01, 0x3f34}},
		{"f16", "lcg:0", 4, []uint64{0x338e, 0x3475, 0x3a8e, 0x3958}},
		{"bf16", "lcg:0", 4, []uint64{0x3e72, 0x3e8f, 0x3f52, 0x3f2b}},
		{"f16", "lcg:12345", 4, []uint64{0x2539, 0x243c, 0x3858, 0x3914}},
		{"bf16", "lcg:12345", 4, []uint64{0x3ca7, 0x3c88, 0x3f0b, 0x3f23}},
		{"u32", "lcg:4294967295", 1, []uint64{(0xffffffff*1664525 + 1013904223) & 0xffffffff}},
	}
	for _, tt := range tests {
		p := Param{Name: "p", Kind: "buffer", Elem: tt.elem, Count: tt.count, Init: tt.init}
		b, err := p.InitBytes()
		if err != nil {
			t.Errorf("%s %s: %v", tt.elem, tt.init, err)
			continue
		}
		size, _ := ElemSize(tt.elem)
		if len(b) != size*tt.count {
			t.Errorf("%s %s: %d bytes, want %d", tt.elem, tt.init, len(b), size*tt.count)
		}
		if got := elems(b, size); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s = %#x, want %#x", tt.elem, tt.init, got, tt.want)
		}
		// The reader accepts the same form.
		src := fmt.Sprintf(`{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1]},"params":[{"name":"p","kind":"buffer","elem":%q,"count":%d,"init":%q}]}`, tt.elem, tt.count, tt.init)
		if _, err := Parse("t.json", []byte(src), "testdata"); err != nil {
			t.Errorf("%s %s: %v", tt.elem, tt.init, err)
		}
	}
}

func TestInitBytesLarge(t *testing.T) {
	// Integers wrap; f16 index rounds to even and reaches +Inf.
	b, _ := Param{Kind: "buffer", Elem: "u8", Count: 300, Init: "index"}.InitBytes()
	if b[255] != 255 || b[256] != 0 || b[299] != 43 {
		t.Errorf("u8 index wraps: %d %d %d", b[255], b[256], b[299])
	}
	b, _ = Param{Kind: "buffer", Elem: "f16", Count: 70000, Init: "index"}.InitBytes()
	v := elems(b, 2)
	for i, want := range map[int]uint64{2048: 0x6800, 2049: 0x6800, 2050: 0x6801, 2051: 0x6802, 65504: 0x7bff, 65519: 0x7bff, 65520: 0x7c00, 69999: 0x7c00} {
		if v[i] != want {
			t.Errorf("f16 index[%d] = %#x, want %#x", i, v[i], want)
		}
	}
	b, _ = Param{Kind: "buffer", Elem: "bf16", Count: 300, Init: "index"}.InitBytes()
	v = elems(b, 2)
	if v[257] != 0x4380 || v[259] != 0x4382 || v[256] != 0x4380 {
		t.Errorf("bf16 index 256/257/259 = %#x %#x %#x", v[256], v[257], v[259])
	}
	// lcg f32 values are exactly (x>>8)/2^24.
	p := Param{Kind: "buffer", Elem: "f32", Count: 1000, Init: "lcg:77"}
	b, _ = p.InitBytes()
	for i, x := range LCG(77, 1000) {
		got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if float64(got) != float64(x>>8)/(1<<24) || got >= 1 {
			t.Fatalf("lcg f32[%d] = %v", i, got)
		}
	}
}

func TestInitHexLE(t *testing.T) {
	p := Param{Kind: "buffer", Elem: "u16", Count: 3, InitHexLE: []byte{1, 2, 3}}
	b, err := p.InitBytes()
	if err != nil || !bytes.Equal(b, []byte{1, 2, 3, 0, 0, 0}) {
		t.Errorf("%x %v", b, err)
	}
	p.InitHexLE = []byte{}
	if b, err := p.InitBytes(); err != nil || !bytes.Equal(b, make([]byte, 6)) {
		t.Errorf("empty: %x %v", b, err)
	}
	s, err := Parse("t.json", []byte(`{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1]},"params":[{"name":"p","kind":"buffer","elem":"u16","count":3,"init_hex_le":"0102Ff"}]}`), "testdata")
	if err != nil || !bytes.Equal(s.Params[0].InitHexLE, []byte{1, 2, 0xff}) {
		t.Fatalf("%v %+v", err, s)
	}
}

func TestInitBytesErrors(t *testing.T) {
	for _, tt := range []struct {
		p    Param
		want string
	}{
		{Param{Name: "n", Kind: "scalar", Type: "u32", Value: "1"}, `parameter "n" is not a buffer`},
		{Param{Name: "p", Kind: "buffer", Elem: "x", Count: 1, Init: "zero"}, `parameter "p": unknown element type "x"`},
		{Param{Name: "p", Kind: "buffer", Elem: "u8", Count: 0, Init: "zero"}, `parameter "p": bad count 0`},
		{Param{Name: "p", Kind: "buffer", Elem: "u8", Count: 1}, `parameter "p": no init, init_hex_le or same_as`},
		{Param{Name: "p", Kind: "buffer", Elem: "u8", Count: 1, InitHexLE: []byte{1, 2}}, `parameter "p": init_hex_le has 2 bytes, more than the buffer's 1`},
		{Param{Name: "p", Kind: "buffer", Elem: "u8", Count: 1, Init: "zero", InitHexLE: []byte{}}, `parameter "p": both init and init_hex_le`},
		{Param{Name: "p", Kind: "buffer", Elem: "u8", Count: 1, Init: "lcg"}, `parameter "p": unknown init "lcg" (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)`},
	} {
		if _, err := tt.p.InitBytes(); err == nil || err.Error() != tt.want {
			t.Errorf("%+v: %v, want %s", tt.p, err, tt.want)
		}
	}
	for _, tt := range []struct {
		p    Param
		want string
	}{
		{Param{Name: "a", Kind: "buffer"}, `parameter "a" is not a scalar`},
		{Param{Name: "n", Kind: "scalar", Type: "i32", Value: "1"}, `parameter "n": unknown type "i32"`},
		{Param{Name: "n", Kind: "scalar", Type: "u8", Value: "256"}, `parameter "n": 256 is out of range for u8 (0 to 255)`},
	} {
		if _, err := tt.p.ScalarBytes(); err == nil || err.Error() != tt.want {
			t.Errorf("%+v: %v, want %s", tt.p, err, tt.want)
		}
	}
}

func TestScalarBytes(t *testing.T) {
	for _, tt := range []struct {
		typ, value string
		want       []byte
	}{
		{"u8", "200", []byte{200}},
		{"u8", "0xff", []byte{0xff}},
		{"s8", "-1", []byte{0xff}},
		{"s8", "127", []byte{0x7f}},
		{"u16", "0x1234", []byte{0x34, 0x12}},
		{"s16", "-32768", []byte{0x00, 0x80}},
		{"u32", "512", []byte{0, 2, 0, 0}},
		{"s32", "-2", []byte{0xfe, 0xff, 0xff, 0xff}},
		{"s32", "0XFFFFFFFF", []byte{0xff, 0xff, 0xff, 0xff}},
		{"u64", "0x0102030405060708", []byte{8, 7, 6, 5, 4, 3, 2, 1}},
		{"s64", "-9223372036854775808", []byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
		{"f16", "1", []byte{0x00, 0x3c}},
		{"f16", "-2.5", []byte{0x00, 0xc1}},
		{"f16", "5.9604644775390625e-8", []byte{0x01, 0x00}}, // 2^-24, the smallest subnormal
		{"f16", "0x7c00", []byte{0x00, 0x7c}},
		{"bf16", "1", []byte{0x80, 0x3f}},
		{"bf16", "3.140625", []byte{0x49, 0x40}},
		{"f32", "1", []byte{0, 0, 0x80, 0x3f}},
		{"f32", "1.5E+2", []byte{0, 0, 0x16, 0x43}},
		{"f32", "0x3f800000", []byte{0, 0, 0x80, 0x3f}},
		{"f64", "-0.5", []byte{0, 0, 0, 0, 0, 0, 0xe0, 0xbf}},
		{"f64", "0x7ff8000000000001", []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}},
	} {
		p := Param{Name: "n", Kind: "scalar", Type: tt.typ, Value: tt.value}
		got, err := p.ScalarBytes()
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("%s %s = %x, %v; want %x", tt.typ, tt.value, got, err, tt.want)
		}
	}
}

// TestSpecTestdataValid keeps the testdata specs (also the fuzz seeds) valid.
func TestSpecTestdataValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) < 3 {
		t.Fatalf("testdata specs: %v", files)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Error(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(doc("", "", `{"param":"a","elem":"f32","values_hex":["0","1","2","3"],"tolerance":{"ulp":2},"ignore_indices":[1]}`)))
	f.Add([]byte(doc("", buf(`"elem":"f16","count":4,"init":"const:1e-7"`), `{"param":0,"all_equal":"0x3c00","tolerance":{"rel":0.5,"abs":1}}`)))
	f.Add([]byte(doc("", `[{"name":"a","kind":"buffer","elem":"u8","count":3,"init_hex_le":"0102"},{"name":"b","kind":"buffer","same_as":"a"},{"name":"c","kind":"buffer","same_as":"b"}]`, `{"param":"c","values_hex_file":"two.hex","count":2}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.json", data, "testdata")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is %T", err, err)
			}
			return
		}
		// Whatever parses can be initialized and checked.
		bufs := make([][]byte, len(s.Params))
		for i, p := range s.Params {
			if p.Kind == KindScalar {
				if _, err := p.ScalarBytes(); err != nil {
					t.Fatalf("params[%d]: %v", i, err)
				}
				continue
			}
			if p.Size() > 1<<20 {
				return // valid, but too big to fill on every fuzz input
			}
			b, err := p.InitBytes()
			if err != nil {
				t.Fatalf("params[%d]: %v", i, err)
			}
			bufs[i] = b
		}
		for _, r := range s.Check(bufs) {
			if r.Error != "" {
				t.Fatalf("check: %s", r.Error)
			}
		}
	})
}
