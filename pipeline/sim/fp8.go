package sim

import (
	"math"
	"sort"

	"orilab/pipeline/sim/fp"
)

// fp8 formats (OCP): E4M3 has bias 7, no infinities, largest finite 448
// and NaN S.1111.111; E5M2 has bias 15, IEEE-style infinities and NaNs,
// largest finite 57344. The conversions follow the Semantics block of
// pipeline/lower/cvt.go: round to nearest even, subnormals kept, overflow
// and infinities saturate to the largest finite value (SATFINITE), NaN
// gives 0x7f.
type fp8format struct {
	ebits, mbits, bias int
	values             []float64 // positive finite values in code order (code = index)
}

func newFP8(ebits, mbits, bias int, finite func(code int) bool) *fp8format {
	f := &fp8format{ebits: ebits, mbits: mbits, bias: bias}
	for code := 0; code < 128; code++ {
		if !finite(code) {
			break
		}
		e := code >> mbits
		m := code & (1<<mbits - 1)
		var v float64
		if e == 0 {
			v = float64(m) * math.Ldexp(1, 1-bias-mbits)
		} else {
			v = float64(1<<mbits+m) * math.Ldexp(1, e-bias-mbits)
		}
		f.values = append(f.values, v)
	}
	return f
}

var (
	fmtE4M3 = newFP8(4, 3, 7, func(c int) bool { return c < 0x7f })
	fmtE5M2 = newFP8(5, 2, 15, func(c int) bool { return c < 0x7c })
)

// fromF32 converts an f32 to the format with round to nearest even and
// saturation.
func (f *fp8format) fromF32(a uint32) uint8 {
	x := float64(math.Float32frombits(a))
	if math.IsNaN(x) {
		return 0x7f
	}
	sign := uint8(0)
	if math.Signbit(x) {
		sign, x = 0x80, -x
	}
	vals := f.values
	if x >= vals[len(vals)-1] {
		return sign | uint8(len(vals)-1)
	}
	i := sort.SearchFloat64s(vals, x) // vals[i] >= x
	if vals[i] == x {
		return sign | uint8(i)
	}
	lo, hi := vals[i-1], vals[i]
	code := i
	switch d1, d2 := x-lo, hi-x; {
	case d1 < d2:
		code = i - 1
	case d1 == d2 && (i-1)%2 == 0:
		code = i - 1
	}
	return sign | uint8(code)
}

// e4m3ToF16 widens exactly (every E4M3 value is an f16 value); NaN gives
// the canonical f16 NaN.
func e4m3ToF16(b uint8) uint16 {
	if b&0x7f == 0x7f {
		return 0x7fff
	}
	v := fmtE4M3.values[b&0x7f]
	if b&0x80 != 0 {
		v = -v
	}
	return fp.F32toF16(math.Float32bits(float32(v)), fp.RN, false)
}
