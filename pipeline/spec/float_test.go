package spec

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strconv"
	"testing"
)

// randFloat64 returns float64s spread over every exponent, including
// subnormals, with random mantissas (and some short mantissas, which land
// on ties more often).
func randFloat64(r *rand.Rand) float64 {
	b := r.Uint64()
	if r.Intn(4) == 0 {
		b &^= 1<<40 - 1 // short mantissa: ties and exact values for narrow types
	}
	f := math.Float64frombits(b)
	if math.IsNaN(f) {
		return 1.5
	}
	return f
}

func TestFromFloat64MatchesGoFloat32(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300000; i++ {
		f := randFloat64(r)
		if i%3 == 0 {
			// Near the f32 range and its subnormals.
			f = math.Ldexp(r.Float64()+float64(r.Intn(2)), r.Intn(300)-160)
		}
		if got, want := fromFloat64(f, 8, 23), uint64(math.Float32bits(float32(f))); got != want {
			t.Fatalf("fromFloat64(%v) = %#x, Go float32 gives %#x", f, got, want)
		}
	}
}

// ratBits rounds f exactly through big.Rat, the independent path used for
// decimal literals.
func ratBits(f float64, ebits, mbits int) uint64 {
	r := new(big.Rat).SetFloat64(math.Abs(f))
	b, overflow := roundRat(math.Signbit(f), r, ebits, mbits)
	if overflow {
		var sign uint64
		if math.Signbit(f) {
			sign = 1 << uint(ebits+mbits)
		}
		return sign | (1<<uint(ebits)-1)<<uint(mbits)
	}
	return b
}

func TestFromFloat64MatchesExactRounding(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 30000; i++ {
		f := math.Ldexp(r.Float64()+float64(r.Intn(2)), r.Intn(80)-40)
		if i%2 == 0 {
			f = math.Ldexp(float64(r.Intn(1<<14)), r.Intn(60)-45) // exact ties
		}
		if r.Intn(2) == 0 {
			f = -f
		}
		for _, fm := range [][2]int{{5, 10}, {8, 7}, {8, 23}} {
			if got, want := fromFloat64(f, fm[0], fm[1]), ratBits(f, fm[0], fm[1]); got != want {
				t.Fatalf("format %v: fromFloat64(%v) = %#x, exact rounding gives %#x", fm, f, got, want)
			}
		}
	}
}

func TestFloat16Table(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		f16  uint64
		bf16 uint64
	}{
		{0, 0, 0},
		{math.Copysign(0, -1), 0x8000, 0x8000},
		{1, 0x3c00, 0x3f80},
		{-2, 0xc000, 0xc000},
		{0.1, 0x2e66, 0x3dcd},
		{65504, 0x7bff, 0x4780}, // 0x477fe000 in f32: rounds up
		{65519.99, 0x7bff, 0x4780},
		{65520, 0x7c00, 0x4780},
		{math.Inf(1), 0x7c00, 0x7f80},
		{math.Inf(-1), 0xfc00, 0xff80},
		{math.Ldexp(1, -14), 0x0400, 0x3880},     // smallest f16 normal
		{math.Ldexp(1, -24), 0x0001, 0x3380},     // smallest f16 subnormal
		{math.Ldexp(1, -25), 0x0000, 0x3300},     // tie between 0 and 2^-24: even
		{math.Ldexp(3, -26), 0x0001, 0x3340},     // 0.75 of the smallest subnormal
		{math.Ldexp(3, -25), 0x0002, 0x33c0},     // tie between 1 and 2 quanta: even
		{1 + math.Ldexp(1, -11), 0x3c00, 0x3f80}, // tie: even
		{1 + math.Ldexp(3, -11), 0x3c02, 0x3f80}, // tie: even (up)
		{1 + math.Ldexp(1, -8), 0x3c04, 0x3f80},  // bf16 tie: even
		{1 + math.Ldexp(3, -8), 0x3c0c, 0x3f82},  // bf16 tie: even (up)
		{math.MaxFloat32, 0x7c00, 0x7f80},        // bf16 rounds up to Inf
		{math.Ldexp(1, -133), 0x0000, 0x0001},    // smallest bf16 subnormal
		{math.Ldexp(1, -134), 0x0000, 0x0000},    // tie: even
		{math.Ldexp(1, -200), 0x0000, 0x0000},    // far below
		{-math.Ldexp(1, -200), 0x8000, 0x8000},   // keeps the sign
		{math.SmallestNonzeroFloat64, 0x0000, 0x0000},
	} {
		if got := fromFloat64(tt.f, 5, 10); got != tt.f16 {
			t.Errorf("f16(%v) = %#04x, want %#04x", tt.f, got, tt.f16)
		}
		if got := fromFloat64(tt.f, 8, 7); got != tt.bf16 {
			t.Errorf("bf16(%v) = %#04x, want %#04x", tt.f, got, tt.bf16)
		}
	}
	// NaN stays a quiet NaN with its sign.
	if got := fromFloat64(math.NaN(), 5, 10); !isNaNBits(got, elemTypes["f16"]) {
		t.Errorf("f16(NaN) = %#x", got)
	}
	if got := fromFloat64(math.Float64frombits(0xfff0000000000001), 8, 7); got&0x8000 == 0 || !isNaNBits(got, elemTypes["bf16"]) {
		t.Errorf("bf16(-sNaN) = %#x", got)
	}
}

func TestToFloat64RoundTrip(t *testing.T) {
	for _, elem := range []string{"f16", "bf16"} {
		e := elemTypes[elem]
		nans := 0
		for b := uint64(0); b < 1<<16; b++ {
			f := toFloat64(b, elem)
			if math.IsNaN(f) != isNaNBits(b, e) {
				t.Fatalf("%s %#x: NaN mismatch", elem, b)
			}
			if math.IsNaN(f) {
				nans++
				continue
			}
			if got := fromFloat64(f, e.ebits, e.mbits); got != b {
				t.Fatalf("%s %#x -> %v -> %#x", elem, b, f, got)
			}
		}
		if want := 2 * (1<<uint(e.mbits) - 1); nans != want {
			t.Errorf("%s: %d NaN patterns, want %d", elem, nans, want)
		}
	}
}

func TestParseFloatDecimalMatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 20000; i++ {
		var s string
		switch i % 3 {
		case 0:
			s = strconv.FormatFloat(randFloat64(r), 'g', r.Intn(20)+1, 64)
		case 1:
			s = fmt.Sprintf("%d.%de%d", r.Intn(1000), r.Intn(1e9), r.Intn(90)-60)
		default:
			s = strconv.FormatFloat(float64(math.Float32frombits(r.Uint32())), 'e', r.Intn(12), 32)
		}
		if s == "NaN" || s == "+Inf" || s == "-Inf" {
			continue
		}
		want64, err64 := strconv.ParseFloat(s, 64)
		got64, err := parseFloatDecimal(s, "f64")
		if (err != nil) != (err64 != nil && math.IsInf(want64, 0)) {
			t.Fatalf("%s f64: err %v, strconv %v", s, err, err64)
		}
		if err == nil && got64 != math.Float64bits(want64) {
			t.Fatalf("%s f64: %#x, strconv %#x", s, got64, math.Float64bits(want64))
		}
		want32, err32 := strconv.ParseFloat(s, 32)
		got32, err := parseFloatDecimal(s, "f32")
		if (err != nil) != (err32 != nil && math.IsInf(want32, 0)) {
			t.Fatalf("%s f32: err %v, strconv %v", s, err, err32)
		}
		if err == nil && got32 != uint64(math.Float32bits(float32(want32))) {
			t.Fatalf("%s f32: %#x, strconv %#x", s, got32, math.Float32bits(float32(want32)))
		}
	}
}

func TestParseFloatDecimalExact(t *testing.T) {
	for _, tt := range []struct {
		s, elem string
		want    uint64
	}{
		// 1 + 2^-11 is a tie for f16 (even: down); a literal just above it
		// must round up even though it reads as exactly the tie in f64, the
		// double-rounding trap.
		{"1.00048828125", "f16", 0x3c00},
		{"1.00048828125000001", "f16", 0x3c01},
		{"1.00048828124999999", "f16", 0x3c00},
		{"1.00146484375", "f16", 0x3c02},
		{"1.00390625", "bf16", 0x3f80},
		{"1.00390625000000000001", "bf16", 0x3f81},
		{"65504", "f16", 0x7bff},
		{"65519.999999999", "f16", 0x7bff},
		{"-0", "f32", 0x80000000},
		{"-0.0e5", "f64", 0x8000000000000000},
		{"0e999999999999", "f32", 0},
		{"1e-99999999", "f16", 0},
		{"-1e-99999999", "f16", 0x8000},
		{"00000000000000000000000001.5", "f16", 0x3e00},
		{"2.98023223876953125e-8", "f16", 0x0000}, // 2^-25: tie, even
		{"2.98023223876953126e-8", "f16", 0x0001},
		{"1" + string(make([]byte, 0)) + "e0", "bf16", 0x3f80},
	} {
		got, err := parseFloatDecimal(tt.s, tt.elem)
		if err != nil || got != tt.want {
			t.Errorf("%s as %s = %#x, %v; want %#x", tt.s, tt.elem, got, err, tt.want)
		}
	}
	// Thousands of digits stay exact (the sticky digit keeps a value just
	// above a tie above it).
	long := "1.00048828125" + string(make([]byte, 0))
	for i := 0; i < 3000; i++ {
		long += "0"
	}
	if got, _ := parseFloatDecimal(long+"1", "f16"); got != 0x3c01 {
		t.Errorf("long literal above the tie = %#x, want 0x3c01", got)
	}
	if got, _ := parseFloatDecimal(long, "f16"); got != 0x3c00 {
		t.Errorf("long tie literal = %#x, want 0x3c00", got)
	}
	for _, s := range []string{"", "-", ".", "e5", "1e", "1e+", "1.2.3", "1/2", "0x", "inf", "NaN", "1_000", " 1", "1 "} {
		if _, err := parseFloatDecimal(s, "f32"); err == nil {
			t.Errorf("%q parses", s)
		}
	}
	for _, s := range []string{"1e400", "-1e309", "1.8e308"} {
		if _, err := parseFloatDecimal(s, "f64"); err == nil {
			t.Errorf("%q does not overflow f64", s)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for _, tt := range []struct {
		b    uint64
		elem string
		want string
	}{
		{0xff, "u8", "255"},
		{0xff, "s8", "-1"},
		{0x8000, "s16", "-32768"},
		{0xffffffffffffffff, "u64", "18446744073709551615"},
		{0x8000000000000000, "s64", "-9223372036854775808"},
		{0x3f800000, "f32", "1"},
		{0x3dcccccd, "f32", "0.1"},
		{0x40000000, "f32", "2"},
		{0x7fc00000, "f32", "NaN"},
		{0xff800000, "f32", "-Inf"},
		{0x80000000, "f32", "-0"},
		{0x3fb999999999999a, "f64", "0.1"},
		{0x3c00, "f16", "1"},
		{0x2e66, "f16", "0.1"},
		{0x3c01, "f16", "1.001"},
		{0x7bff, "f16", "65500"},
		{0x0001, "f16", "6e-08"},
		{0x7c00, "f16", "+Inf"},
		{0x7e00, "f16", "NaN"},
		{0x3dcd, "bf16", "0.1"},
		{0x4049, "bf16", "3.14"},
		{0x1, "x", "?"},
	} {
		if got := FormatValue(tt.b, tt.elem); got != tt.want {
			t.Errorf("FormatValue(%#x, %s) = %s, want %s", tt.b, tt.elem, got, tt.want)
		}
	}
	// The shortest form reads back to the same bits, for every f16 and bf16.
	for _, elem := range []string{"f16", "bf16"} {
		for b := uint64(0); b < 1<<16; b += 7 {
			s := FormatValue(b, elem)
			if s == "NaN" || s == "+Inf" || s == "-Inf" {
				continue
			}
			if got, err := parseFloatDecimal(s, elem); err != nil || got != b {
				t.Fatalf("%s %#x formats as %s, which reads back as %#x (%v)", elem, b, s, got, err)
			}
		}
	}
	if got := FormatBits(0x3f, "u32"); got != "0x0000003f" {
		t.Errorf("FormatBits = %s", got)
	}
}
