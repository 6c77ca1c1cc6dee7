package spec

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// le packs bit patterns little-endian.
func le(size int, vals ...uint64) []byte {
	b := make([]byte, size*len(vals))
	for i, v := range vals {
		putLE(b[i*size:], v, size)
	}
	return b
}

func f64b(f float64) uint64 { return math.Float64bits(f) }

func TestCheckTolerance(t *testing.T) {
	relabs := func(rel, abs float64) *Tolerance { return &Tolerance{Kind: TolRelAbs, Rel: rel, Abs: abs} }
	ulp := func(n int64) *Tolerance { return &Tolerance{Kind: TolULP, ULP: n} }
	inf := math.Inf(1)
	tests := []struct {
		name      string
		elem      string
		tol       *Tolerance
		got, want uint64
		pass      bool
	}{
		{"exact equal", "u32", nil, 5, 5, true},
		{"exact differ", "u32", nil, 5, 6, false},
		{"exact +0 -0", "f32", nil, 0x00000000, 0x80000000, false},
		{"exact NaN payloads", "f32", nil, 0x7fc00000, 0x7fc00001, false},
		{"exact same NaN", "f32", nil, 0x7fc00000, 0x7fc00000, true},

		{"abs inside", "f64", relabs(0, 1), f64b(1025), f64b(1024), true},
		{"abs outside", "f64", relabs(0, 1), f64b(1025.5), f64b(1024), false},
		{"abs below", "f64", relabs(0, 1), f64b(1023), f64b(1024), true},
		{"rel inside", "f64", relabs(1.0/1024, 0), f64b(1025), f64b(1024), true},
		{"rel outside", "f64", relabs(1.0/1024, 0), f64b(1025.25), f64b(1024), false},
		{"rel uses |want|", "f64", relabs(1.0/1024, 0), f64b(-1025), f64b(-1024), true},
		{"rel of got not want", "f64", relabs(0.5, 0), f64b(3), f64b(2), true},
		{"rel of got not want 2", "f64", relabs(0.5, 0), f64b(2), f64b(3), true},
		{"rel bound at the edge", "f64", relabs(0.25, 0), f64b(2.5), f64b(2), true},
		{"rel is of want: pass", "f64", relabs(0.2, 0), f64b(2), f64b(2.5), true},
		{"rel is of want: fail", "f64", relabs(0.2, 0), f64b(2.5), f64b(2), false},
		{"abs plus rel", "f64", relabs(1.0/2048, 0.5), f64b(1025), f64b(1024), true},
		{"abs plus rel outside", "f64", relabs(1.0/2048, 0.5), f64b(1025.125), f64b(1024), false},
		{"zero tolerance +0 -0", "f32", relabs(0, 0), 0x00000000, 0x80000000, true},
		{"f32 rel", "f32", relabs(1e-6, 0), 0x3f800001, 0x3f800000, true},
		{"f32 rel outside", "f32", relabs(1e-7, 0), 0x3f800002, 0x3f800000, false},
		{"f16 abs", "f16", relabs(0, 0.001), 0x3c01, 0x3c00, true}, // 1.0009765625 vs 1
		{"f16 abs outside", "f16", relabs(0, 0.0009), 0x3c01, 0x3c00, false},
		{"bf16 rel", "bf16", relabs(0.01, 0), 0x3f81, 0x3f80, true}, // 1.0078125 vs 1
		{"inf same", "f64", relabs(1, 1), f64b(inf), f64b(inf), true},
		{"inf vs max", "f64", relabs(1, 1e308), f64b(math.MaxFloat64), f64b(inf), false},
		{"got inf", "f64", relabs(1, 1e308), f64b(inf), f64b(1), false},
		{"inf signs", "f64", relabs(1, 1), f64b(-inf), f64b(inf), false},
		{"huge diff overflows", "f64", relabs(1, 0), f64b(-math.MaxFloat64), f64b(math.MaxFloat64), false},
		{"NaN any NaN", "f32", relabs(0, 0), 0x7fc00000, 0xffc00123, true},
		{"NaN vs number", "f32", relabs(1, 1e30), 0x7fc00000, 0x3f800000, false},
		{"number vs NaN", "f32", relabs(1, 1e30), 0x3f800000, 0x7fc00000, false},
		{"f16 NaN", "f16", relabs(0, 0), 0x7e00, 0xfc01, true},

		{"ulp 0 equal", "f32", ulp(0), 0x3f800000, 0x3f800000, true},
		{"ulp 0 zeros", "f32", ulp(0), 0x00000000, 0x80000000, true},
		{"ulp 2 inside", "f32", ulp(2), 0x3f800002, 0x3f800000, true},
		{"ulp 1 outside", "f32", ulp(1), 0x3f800002, 0x3f800000, false},
		{"ulp below", "f32", ulp(1), 0x3f7fffff, 0x3f800000, true},
		{"ulp across zero", "f32", ulp(2), 0x80000001, 0x00000001, true},
		{"ulp across zero outside", "f32", ulp(1), 0x80000001, 0x00000001, false},
		{"ulp negatives", "f32", ulp(3), 0xbf800003, 0xbf800000, true},
		{"ulp max to inf", "f16", ulp(1), 0x7c00, 0x7bff, true},
		{"ulp f16", "f16", ulp(1), 0x3c02, 0x3c00, false},
		{"ulp bf16", "bf16", ulp(2), 0x3f82, 0x3f80, true},
		{"ulp f64", "f64", ulp(1), 0x3ff0000000000001, 0x3ff0000000000000, true},
		{"ulp f64 extremes", "f64", ulp(math.MaxInt32), 0xffefffffffffffff, 0x7fefffffffffffff, false},
		{"ulp NaN", "f32", ulp(10), 0x7fc00000, 0x7f800001, true},
		{"ulp NaN vs inf", "f32", ulp(10), 0x7f800001, 0x7f800000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size, _ := ElemSize(tt.elem)
			e := Expect{Param: "c", Elem: tt.elem, Count: 1, Values: []uint64{tt.want}, Tolerance: tt.tol}
			r := e.Check(le(size, tt.got))
			if r.Error != "" || r.Pass != tt.pass {
				t.Errorf("got %s want %s: %+v", FormatValue(tt.got, tt.elem), FormatValue(tt.want, tt.elem), r)
			}
		})
	}
}

func TestULPDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b  uint64
		width int
		want  uint64
	}{
		{0x3f800000, 0x3f800000, 32, 0},
		{0x3f800001, 0x3f800000, 32, 1},
		{0x00000000, 0x80000000, 32, 0},
		{0x00000001, 0x80000001, 32, 2},
		{0x7f7fffff, 0xff7fffff, 32, 2 * 0x7f7fffff},
		{0x7fefffffffffffff, 0xffefffffffffffff, 64, 2 * 0x7fefffffffffffff},
		{0x7bff, 0x7c00, 16, 1},
	} {
		if got := ULPDistance(tt.a, tt.b, tt.width); got != tt.want {
			t.Errorf("ULPDistance(%#x, %#x) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := ULPDistance(tt.b, tt.a, tt.width); got != tt.want {
			t.Errorf("ULPDistance(%#x, %#x) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCheckResults(t *testing.T) {
	one, two, three := uint64(0x3f800000), uint64(0x40000000), uint64(0x40400000)
	want := make([]uint64, 512)
	got := make([]uint64, 512)
	for i := range want {
		want[i] = two
		got[i] = two
	}
	got[7], got[9], got[12] = one, 0, three
	e := Expect{Param: "c", Elem: "f32", Count: 512, Values: want}
	r := e.Check(le(4, got...))
	if r.Pass || r.Mismatched != 3 || len(r.First) != 3 || r.First[0].Index != 7 || r.First[0].Got != one || r.First[0].Want != two {
		t.Errorf("%+v", r)
	}
	const wantText = "c: FAIL 3 of 512 elements differ; first: [7] got 0x3f800000 (1) want 0x40000000 (2)\n" +
		"    [9] got 0x00000000 (0) want 0x40000000 (2)\n" +
		"    [12] got 0x40400000 (3) want 0x40000000 (2)\n"
	if text := FormatResults([]Result{r}); text != wantText {
		t.Errorf("FormatResults:\n%s\nwant:\n%s", text, wantText)
	}

	// Ignored indices are skipped and counted.
	e.IgnoreIndices = map[int]bool{7: true, 9: true, 12: true}
	r = e.Check(le(4, got...))
	if !r.Pass || r.Ignored != 3 {
		t.Errorf("%+v", r)
	}
	if text := FormatResults([]Result{r}); text != "c: PASS (512 elements, 3 ignored)\n" {
		t.Errorf("%q", text)
	}
	e.IgnoreIndices = map[int]bool{7: true}
	r = e.Check(le(4, got...))
	if text := FormatResults([]Result{r}); !strings.HasPrefix(text, "c: FAIL 2 of 512 elements differ (1 ignored); first: [9] got") {
		t.Errorf("%q", text)
	}

	// Extra bytes beyond Count are not looked at; a short buffer is an error.
	e = Expect{Param: "c", Elem: "u32", Count: 2, AllEqual: &three}
	if r := e.Check(le(4, three, three, 1)); !r.Pass {
		t.Errorf("%+v", r)
	}
	r = e.Check(le(4, three))
	if r.Pass || FormatResults([]Result{r}) != "c: ERROR buffer has 4 bytes, want at least 8 (2 u32 elements)\n" {
		t.Errorf("%+v %q", r, FormatResults([]Result{r}))
	}

	// Many mismatches: the first MaxMismatches are listed, all counted.
	v1 := uint64(1)
	e = Expect{Param: "big", Elem: "s8", Count: 100, AllEqual: &v1}
	r = e.Check(make([]byte, 100))
	if r.Mismatched != 100 || len(r.First) != MaxMismatches || r.First[9].Index != 9 {
		t.Errorf("%+v", r)
	}
	text := FormatResults([]Result{r})
	if !strings.HasPrefix(text, "big: FAIL 100 of 100 elements differ; first: [0] got 0x00 (0) want 0x01 (1)\n    [1] got") ||
		!strings.HasSuffix(text, "    ... and 90 more\n") {
		t.Errorf("%s", text)
	}
	if strings.Count(text, "\n") != 11 {
		t.Errorf("%d lines:\n%s", strings.Count(text, "\n"), text)
	}

	// Malformed expectations report errors instead of panicking.
	for _, bad := range []Expect{
		{Param: "x", Elem: "zz", Count: 1, Values: []uint64{0}},
		{Param: "x", Elem: "u8", Count: 0},
		{Param: "x", Elem: "u8", Count: 2, Values: []uint64{0}},
		{Param: "x", Elem: "u8", Count: 1, Values: []uint64{0}, Tolerance: &Tolerance{Kind: TolULP}},
	} {
		if r := bad.Check(make([]byte, 8)); r.Pass || r.Error == "" {
			t.Errorf("%+v: %+v", bad, r)
		}
	}
	if !AllPass(nil) || AllPass([]Result{{Pass: true}, {}}) {
		t.Error("AllPass")
	}
}

func TestResultJSON(t *testing.T) {
	e := Expect{Param: "c", Elem: "f32", Count: 2, Values: []uint64{0x40000000, 0x3f800000}}
	r := e.Check(le(4, 0x3f800000, 0x3f800000))
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"param":"c","elem":"f32","count":2,"pass":false,"mismatched":1,"first":[{"index":0,"got":"0x3f800000","want":"0x40000000","got_value":"1","want_value":"2"}]}`
	if string(b) != want {
		t.Errorf("%s\nwant %s", b, want)
	}
}

func TestSpecCheckMissingBuffer(t *testing.T) {
	s, err := Load("testdata/vecadd.json")
	if err != nil {
		t.Fatal(err)
	}
	r := s.Check(nil)
	if len(r) != 1 || r[0].Error != `no buffer for parameter "c"` {
		t.Errorf("%+v", r)
	}
}
