package fp

import (
	"math"
	"math/rand"
	"testing"
)

func TestMinMax(t *testing.T) {
	const (
		pz, nz   = 0x00000000, 0x80000000
		one, two = 0x3f800000, 0x40000000
		qnan     = 0x7fc00000
		snan     = 0xff800001
		ninf     = 0xff800000
		sub      = 0x00000001
	)
	for _, c := range []struct {
		a, b     uint32
		nanProp  bool
		min, max uint32
	}{
		{one, two, false, one, two},
		{two, one, false, one, two},
		{pz, nz, false, nz, pz},
		{nz, pz, false, nz, pz},
		{qnan, one, false, one, one},
		{one, snan, false, one, one},
		{qnan, snan, false, CanonicalNaN32, CanonicalNaN32},
		{qnan, one, true, CanonicalNaN32, CanonicalNaN32},
		{one, snan, true, CanonicalNaN32, CanonicalNaN32},
		{ninf, sub, false, ninf, sub},
		{sub, pz, false, pz, sub},
	} {
		if got := Min32(c.a, c.b, c.nanProp); got != c.min {
			t.Errorf("Min32(%#x, %#x, %v) = %#x, want %#x", c.a, c.b, c.nanProp, got, c.min)
		}
		if got := Max32(c.a, c.b, c.nanProp); got != c.max {
			t.Errorf("Max32(%#x, %#x, %v) = %#x, want %#x", c.a, c.b, c.nanProp, got, c.max)
		}
	}
	if Min64(0x7ff8000000000000, 0xfff0000000000001, false) != 0xfff8000000000001 ||
		Max64(0xfff8000000000000, 0x7ff0000000000001, false) != 0x7ff8000000000001 ||
		Max64(0x8000000000000000, 0, false) != 0 || Min64(0x8000000000000000, 0, false) != 1<<63 ||
		Min64(0x7ff8000000000000, 0x3ff0000000000000, false) != 0x3ff0000000000000 {
		t.Error("Min64/Max64")
	}
	if Min16(0xfd01, 0x7e00, false) != CanonicalNaN16 || Min16(0x7c01, 0x3c00, true) != CanonicalNaN16 || Max16(0x8000, 0, false) != 0 || Min16(0x3c00, 0xfc00, true) != 0xfc00 {
		t.Error("Min16/Max16")
	}
	// Random non-NaN pairs against the host ordering.
	r := rand.New(rand.NewSource(1))
	g := gen{tf64, r}
	for i := 0; i < n(t, 100000); i++ {
		a, b := g.pair("add")
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		if x != x || y != y {
			continue
		}
		// -0 < +0; equal values of equal sign have equal bits.
		less := x < y || x == y && math.Signbit(x) && !math.Signbit(y)
		wmin, wmax := b, a
		if less {
			wmin, wmax = a, b
		}
		if got := Min64(a, b, false); got != wmin {
			t.Fatalf("Min64(%v, %v) = %#x", x, y, got)
		}
		if got := Max64(a, b, false); got != wmax {
			t.Fatalf("Max64(%v, %v) = %#x", x, y, got)
		}
	}
}

func TestCompare(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	g := gen{tf32, r}
	for i := 0; i < n(t, 100000); i++ {
		a, b := g.pair("add")
		if r.Intn(8) == 0 {
			b = a
		}
		ftz := r.Intn(2) == 0
		fa, fb := a, b
		if ftz {
			fa, fb = tf32.ftzIn(a), tf32.ftzIn(b)
		}
		x := float64(math.Float32frombits(uint32(fa)))
		y := float64(math.Float32frombits(uint32(fb)))
		un := x != x || y != y
		want := map[Cmp]bool{
			LT: x < y, EQ: x == y, LE: x <= y, GT: x > y, NE: x != y && !un, GE: x >= y,
			LTU: un || x < y, EQU: un || x == y, LEU: un || x <= y, GTU: un || x > y, NEU: x != y, GEU: un || x >= y,
			NUM: !un, NAN: un,
		}
		for c, w := range want {
			if got := Cmp32(uint32(a), uint32(b), c, ftz); got != w {
				t.Fatalf("Cmp32(%#x, %#x, %s, ftz=%v) = %v, want %v", a, b, c, ftz, got, w)
			}
			// The same values widened to f64 and f16-representable ones
			// compare alike.
			if !ftz {
				if got := Cmp64(F32toF64(uint32(a), false), F32toF64(uint32(b), false), c); got != w {
					t.Fatalf("Cmp64(%v, %v, %s) = %v, want %v", x, y, c, got, w)
				}
			}
		}
	}
	// f16: subnormals flush under ftz; -0 == +0.
	if !Cmp16(0x0001, 0x8000, EQ, true) || Cmp16(0x0001, 0x8000, EQ, false) || !Cmp16(0x8000, 0, EQ, false) {
		t.Error("Cmp16 ftz/zero")
	}
	if Cmp16(0x7e00, 0x3c00, NE, false) || !Cmp16(0x7e00, 0x3c00, NEU, false) {
		t.Error("Cmp16 NaN")
	}
}

func TestSat(t *testing.T) {
	for _, c := range []struct{ in, want uint32 }{
		{0x3f000000, 0x3f000000}, {0x3f800000, 0x3f800000}, {0x3f800001, 0x3f800000},
		{0x7f800000, 0x3f800000}, {0xff800000, 0}, {0x80000000, 0}, {0xbf000000, 0},
		{0x7fc00000, 0}, {0xffc00000, 0}, {0x7f800001, 0}, {0x00000001, 0x00000001},
	} {
		if got := Sat32(c.in); got != c.want {
			t.Errorf("Sat32(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want uint16 }{
		{0x3800, 0x3800}, {0x3c01, 0x3c00}, {0x7c00, 0x3c00}, {0x8000, 0}, {0x7e00, 0}, {0xfe00, 0},
	} {
		if got := Sat16(c.in); got != c.want {
			t.Errorf("Sat16(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
	if Flush32(0x80000001) != 0x80000000 || Flush32(0x00800000) != 0x00800000 || Flush16(0x03ff) != 0 {
		t.Error("Flush")
	}
}
