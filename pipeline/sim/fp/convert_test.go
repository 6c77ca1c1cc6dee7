package fp

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// refCvt is the reference float-to-float conversion: the exact source
// value rounded once to the destination.
func refCvt(src, dst tf, x uint64, rm Round, ftzIn, ftzOut bool) uint64 {
	if ftzIn {
		x = src.ftzIn(x)
	}
	switch {
	case src.isNaN(x):
		if dst.p == 53 {
			// Quiet, with sign and payload (top bits first).
			pay := src.frac(x) << uint(dst.p-src.p)
			v := uint64(0x7ff8000000000000) | pay
			if src.sign(x) {
				v |= 1 << 63
			}
			return v
		}
		if src.p == 53 && dst.p == 24 {
			// f64 to f32 keeps the sign and the payload's top bits.
			v := uint64(0x7fc00000) | src.frac(x)>>29
			if src.sign(x) {
				v |= 1 << 31
			}
			return v
		}
		return dst.expectNaN()
	case src.isInf(x):
		return dst.inf(src.sign(x))
	}
	return dst.roundBig(src.toBig(x), rm, ftzOut)
}

// wideGen draws source values whose exponents cover the destination's
// range and a little beyond, with fractions that make midpoints and ties.
func wideGen(g gen, dst tf) uint64 {
	src := g.t
	if g.r.Intn(8) == 0 {
		return g.value()
	}
	e := dst.emin() - dst.p - 3 + g.r.Intn(dst.emax()-dst.emin()+dst.p+8)
	if g.r.Intn(3) == 0 { // the edges of the destination's range
		switch g.r.Intn(3) {
		case 0:
			e = dst.emin() - g.r.Intn(dst.p+3)
		case 1:
			e = dst.emax() - 1 + g.r.Intn(3)
		default:
			e = g.r.Intn(dst.p + 2)
		}
	}
	return g.pack(g.r.Intn(2) == 0, e+src.bias(), g.frac())
}

func TestConvertFloat(t *testing.T) {
	type conv struct {
		name     string
		src, dst tf
		ftzIn    bool // the function's ftz flushes the input
		ftzOut   bool // ... or the output
		fn       func(x uint64, rm Round, ftz bool) uint64
	}
	convs := []conv{
		{"F64toF32", tf64, tf32, false, true, func(x uint64, rm Round, ftz bool) uint64 { return uint64(F64toF32(x, rm, ftz)) }},
		{"F32toF16", tf32, tf16, true, false, func(x uint64, rm Round, ftz bool) uint64 { return uint64(F32toF16(uint32(x), rm, ftz)) }},
		{"F32toBF16", tf32, tfBF16, false, false, func(x uint64, rm Round, _ bool) uint64 { return uint64(F32toBF16(uint32(x), rm)) }},
		{"F64toF16", tf64, tf16, false, false, func(x uint64, rm Round, _ bool) uint64 { return uint64(F64toF16(x, rm)) }},
		{"F64toBF16", tf64, tfBF16, false, false, func(x uint64, rm Round, _ bool) uint64 { return uint64(F64toBF16(x, rm)) }},
	}
	total := 0
	for ci, c := range convs {
		g := gen{c.src, rand.New(rand.NewSource(int64(100 + ci)))}
		fails := 0
		for _, rm := range modes {
			for _, ftz := range []bool{false, true} {
				if !c.ftzIn && !c.ftzOut && ftz {
					continue
				}
				for i := 0; i < n(t, 25000); i++ {
					x := wideGen(g, c.dst)
					want := refCvt(c.src, c.dst, x, rm, ftz && c.ftzIn, ftz && c.ftzOut)
					if got := c.fn(x, rm, ftz); got != want {
						fails++
						if fails <= 5 {
							t.Errorf("%s(%#x, %s, ftz=%v) = %#x, want %#x", c.name, x, rm, ftz, got, want)
						}
					}
					total++
				}
			}
		}
	}
	// Widening conversions: exhaustive for the 16-bit sources, random
	// and edge values for f32.
	for x := uint64(0); x < 1<<16; x++ {
		for _, c := range []struct {
			name     string
			src, dst tf
			got      uint64
		}{
			{"F16toF32", tf16, tf32, uint64(F16toF32(uint16(x)))},
			{"BF16toF32", tfBF16, tf32, uint64(BF16toF32(uint16(x)))},
			{"F16toF64", tf16, tf64, F16toF64(uint16(x))},
		} {
			if want := refCvt(c.src, c.dst, x, RN, false, false); c.got != want {
				t.Errorf("%s(%#x) = %#x, want %#x", c.name, x, c.got, want)
			}
			total++
		}
	}
	g := gen{tf32, rand.New(rand.NewSource(7))}
	for i := 0; i < n(t, 50000); i++ {
		x := g.value()
		for _, ftz := range []bool{false, true} {
			if got, want := F32toF64(uint32(x), ftz), refCvt(tf32, tf64, x, RN, ftz, false); got != want {
				t.Errorf("F32toF64(%#x, %v) = %#x, want %#x", x, ftz, got, want)
			}
			total++
		}
	}
	t.Logf("%d conversion cases", total)
}

// refRoundInt rounds the exact value v to an integer with rm.
func refRoundInt(v *big.Float, rm Round) *big.Int {
	i, _ := v.Int(nil) // toward zero
	fr := new(big.Float).SetPrec(exactPrec).Sub(v, new(big.Float).SetInt(i))
	switch rm {
	case RM:
		if fr.Sign() < 0 {
			i.Sub(i, big.NewInt(1))
		}
	case RP:
		if fr.Sign() > 0 {
			i.Add(i, big.NewInt(1))
		}
	case RN:
		c := new(big.Float).Abs(fr).Cmp(big.NewFloat(0.5))
		if c > 0 || c == 0 && i.Bit(0) == 1 {
			i.Add(i, big.NewInt(int64(fr.Sign())))
		}
	}
	return i
}

func refToInt(t tf, x uint64, rm Round, signed bool, bits int, ftz bool) uint64 {
	if ftz {
		x = t.ftzIn(x)
	}
	if t.isNaN(x) {
		if t.p == 53 || bits > 32 {
			return 1 << uint(bits-1)
		}
		return 0
	}
	lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), uint(bits))
	if signed {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	hi.Sub(hi, big.NewInt(1))
	var i *big.Int
	if t.isInf(x) {
		i = hi
		if t.sign(x) {
			i = lo
		}
	} else {
		i = refRoundInt(t.toBig(x), rm)
		if i.Cmp(lo) < 0 {
			i = lo
		}
		if i.Cmp(hi) > 0 {
			i = hi
		}
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
	return new(big.Int).And(i, mask).Uint64()
}

func TestToInt(t *testing.T) {
	const (
		f25   = 0x40200000 // 2.5
		f35   = 0x40600000 // 3.5
		fm25  = 0xc0200000 // -2.5
		f05   = 0x3f000000
		fm05  = 0xbf000000
		nan   = 0x7fc00000
		nnan  = 0xffffffff
		negz  = 0x80000000
		big3e = 0x4f32d05e // 3e9
		sub   = 0x00000001 // smallest subnormal
	)
	for _, c := range []struct {
		a      uint32
		rm     Round
		signed bool
		bits   int
		ftz    bool
		want   uint64
	}{
		{nan, RN, true, 32, false, 0}, {nnan, RZ, false, 64, false, 1 << 63}, {nnan, RZ, false, 32, false, 0}, {nan, RP, true, 8, false, 0},
		{negz, RN, true, 32, false, 0}, {negz, RM, false, 16, false, 0},
		{f25, RN, true, 32, false, 2}, {f35, RN, true, 32, false, 4}, {fm25, RN, true, 8, false, 0xfe},
		{f05, RN, true, 32, false, 0}, {fm05, RN, true, 32, false, 0}, {0x3fc00000, RN, true, 32, false, 2},
		{fm05, RM, true, 32, false, 0xffffffff}, {f05, RP, false, 32, false, 1}, {fm05, RP, true, 32, false, 0},
		{0xc0533333, RZ, true, 16, false, 0xfffd}, // -3.3 -> -3
		{big3e, RZ, true, 32, false, 0x7fffffff}, {big3e | 1<<31, RZ, true, 32, false, 0x80000000},
		{0xbf800000, RN, false, 32, false, 0}, // -1 -> u32 0
		{0x4f8a5ad4, RN, false, 32, false, 0xffffffff},
		{0x43480000, RN, true, 8, false, 0x7f}, {0xc3480000, RN, true, 8, false, 0x80}, // ±200
		{0x437f6666, RN, false, 8, false, 0xff}, {0x437f8000, RN, false, 8, false, 0xff}, // 255.4, 255.5
		{0x7f800000, RN, true, 64, false, 0x7fffffffffffffff}, {0xff800000, RN, true, 64, false, 1 << 63},
		{0x7f800000, RN, false, 16, false, 0xffff}, {0xff800000, RN, false, 16, false, 0},
		{0x5f000000, RN, true, 64, false, 0x7fffffffffffffff}, {0x5f000000, RN, false, 64, false, 1 << 63}, // 2^63
		{0xdf000000, RN, true, 64, false, 1 << 63}, {0x5f800000, RN, false, 64, false, ^uint64(0)}, // -2^63, 2^64
		{sub, RP, true, 32, false, 1}, {sub, RP, true, 32, true, 0}, {sub | 1<<31, RM, true, 32, false, 0xffffffff},
	} {
		if got := F32toInt(c.a, c.rm, c.signed, c.bits, c.ftz); got != c.want {
			t.Errorf("F32toInt(%#x, %s, signed=%v, %d, ftz=%v) = %#x, want %#x", c.a, c.rm, c.signed, c.bits, c.ftz, got, c.want)
		}
	}
	// Randomized against the big.Int reference for every format, mode,
	// width and signedness.
	cases := 0
	for fi, tt := range []tf{tf32, tf64, tf16, tfBF16} {
		r := rand.New(rand.NewSource(int64(200 + fi)))
		g := gen{tt, r}
		for i := 0; i < n(t, 40000); i++ {
			var x uint64
			if r.Intn(4) == 0 {
				x = g.value()
			} else {
				// Exponents 2^-2 .. 2^66 and ties.
				e := min(r.Intn(70)-2, tt.emax())
				x = g.pack(r.Intn(2) == 0, e+tt.bias(), g.frac())
			}
			rm := modes[r.Intn(4)]
			signed := r.Intn(2) == 0
			bits := []int{8, 16, 32, 64}[r.Intn(4)]
			ftz := tt.p == 24 && r.Intn(2) == 0
			want := refToInt(tt, x, rm, signed, bits, ftz)
			var got uint64
			switch tt.p {
			case 24:
				got = F32toInt(uint32(x), rm, signed, bits, ftz)
			case 53:
				got = F64toInt(x, rm, signed, bits)
			case 11:
				got = F16toInt(uint16(x), rm, signed, bits)
			default:
				got = BF16toInt(uint16(x), rm, signed, bits)
			}
			if got != want {
				t.Errorf("%s toInt(%#x, %s, signed=%v, %d, ftz=%v) = %#x, want %#x", tt.name, x, rm, signed, bits, ftz, got, want)
			}
			cases++
		}
	}
	t.Logf("%d random float-to-int cases", cases)
}

func TestFromInt(t *testing.T) {
	for _, c := range []struct {
		v      uint64
		signed bool
		bits   int
		rm     Round
		want   uint32
	}{
		{1<<24 + 1, false, 32, RN, 0x4b800000}, {1<<24 + 1, false, 32, RP, 0x4b800001},
		{1<<24 + 3, false, 32, RN, 0x4b800002}, // tie to even upward
		{0xffffffff, false, 32, RN, 0x4f800000}, {0xffffffff, false, 32, RZ, 0x4f7fffff},
		{0xffffffff, true, 32, RN, 0xbf800000}, {0x80, true, 8, RN, 0xc3000000},
		{0xffffffff80, true, 8, RN, 0xc3000000}, // only the low 8 bits count
		{1 << 63, true, 64, RN, 0xdf000000}, {0, true, 32, RM, 0},
	} {
		if got := IntToF32(c.v, c.signed, c.bits, c.rm); got != c.want {
			t.Errorf("IntToF32(%#x, %v, %d, %s) = %#x, want %#x", c.v, c.signed, c.bits, c.rm, got, c.want)
		}
	}
	r := rand.New(rand.NewSource(300))
	cases := 0
	for i := 0; i < n(t, 40000); i++ {
		bits := []int{8, 16, 32, 64}[r.Intn(4)]
		v := r.Uint64() >> uint(r.Intn(64))
		if r.Intn(4) == 0 {
			v = ^v
		}
		signed := r.Intn(2) == 0
		rm := modes[r.Intn(4)]
		iv := new(big.Int).SetUint64(v & (^uint64(0) >> uint(64-bits)))
		if signed && iv.Bit(bits-1) == 1 {
			iv.Sub(iv, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
		}
		x := new(big.Float).SetPrec(exactPrec).SetInt(iv)
		for _, c := range []struct {
			tt  tf
			got uint64
		}{
			{tf32, uint64(IntToF32(v, signed, bits, rm))},
			{tf64, IntToF64(v, signed, bits, rm)},
			{tf16, uint64(IntToF16(v, signed, bits, rm))},
			{tfBF16, uint64(IntToBF16(v, signed, bits, rm))},
		} {
			if want := c.tt.roundBig(x, rm, false); c.got != want {
				t.Errorf("IntTo%s(%#x, %v, %d, %s) = %#x, want %#x", c.tt.name, v, signed, bits, rm, c.got, want)
			}
			cases++
		}
	}
	t.Logf("%d random int-to-float cases", cases)
}

func refRint(t tf, x uint64, rm Round, ftz bool) uint64 {
	if ftz {
		x = t.ftzIn(x)
	}
	switch {
	case t.isNaN(x):
		return t.expectNaN(x)
	case t.isInf(x), t.isZero(x):
		return x
	}
	i := refRoundInt(t.toBig(x), rm)
	if i.Sign() == 0 {
		return t.zero(t.sign(x))
	}
	return t.roundBig(new(big.Float).SetPrec(exactPrec).SetInt(i), RN, false)
}

func TestRint(t *testing.T) {
	for _, c := range []struct {
		a    uint32
		rm   Round
		want uint32
	}{
		{0x3fc00000, RN, 0x40000000}, {0x40200000, RN, 0x40000000}, // 1.5, 2.5
		{0xbecccccd, RN, 0x80000000}, {0xbecccccd, RP, 0x80000000}, {0xbecccccd, RM, 0xbf800000}, // -0.4
		{0x3ecccccd, RM, 0}, {0x3ecccccd, RP, 0x3f800000},
		{0x4b000001, RN, 0x4b000001}, {0x7f800000, RN, 0x7f800000}, {0xff800001, RN, CanonicalNaN32},
	} {
		if got := Rint32(c.a, c.rm, false); got != c.want {
			t.Errorf("Rint32(%#x, %s) = %#x, want %#x", c.a, c.rm, got, c.want)
		}
	}
	cases := 0
	for fi, tt := range []tf{tf32, tf64} {
		r := rand.New(rand.NewSource(int64(400 + fi)))
		g := gen{tt, r}
		for i := 0; i < n(t, 40000); i++ {
			x := g.value()
			if r.Intn(2) == 0 {
				x = g.pack(r.Intn(2) == 0, tt.bias()-2+r.Intn(tt.p+4), g.frac())
			}
			rm := modes[r.Intn(4)]
			ftz := tt.p == 24 && r.Intn(2) == 0
			var got uint64
			if tt.p == 24 {
				got = uint64(Rint32(uint32(x), rm, ftz))
			} else {
				got = Rint64(x, rm)
			}
			if want := refRint(tt, x, rm, ftz); got != want {
				t.Errorf("%s rint(%#x, %s, ftz=%v) = %#x, want %#x", tt.name, x, rm, ftz, got, want)
			}
			cases++
		}
	}
	t.Logf("%d random rint cases", cases)
	// Against the host for RN/RZ/RM/RP on f64.
	r := rand.New(rand.NewSource(5))
	for i := 0; i < n(t, 100000); i++ {
		x := math.Float64frombits(gen{tf64, r}.value())
		if x != x {
			continue
		}
		for rm, want := range []float64{math.RoundToEven(x), math.Trunc(x), math.Floor(x), math.Ceil(x)} {
			if got := Rint64(math.Float64bits(x), Round(rm)); got != math.Float64bits(want) {
				t.Errorf("Rint64(%v, %s) = %#x, want %v", x, Round(rm), got, want)
			}
		}
	}
}
