package fp

import "math"

// convert rounds x of format src to format dst. ftzIn flushes subnormal
// inputs, ftzOut subnormal results.
func convert(src, dst format, x uint64, rm Round, ftzIn, ftzOut bool) uint64 {
	c, s, e, m := unpack(src, x, ftzIn)
	switch c {
	case clsNaN:
		if dst.propagate {
			// Quiet, keep the sign and the payload's top bits.
			var pay uint64
			if dst.p >= src.p {
				pay = (x & src.fracMask()) << (dst.p - src.p)
			} else {
				pay = (x & src.fracMask()) >> (src.p - dst.p)
			}
			return s<<dst.signShift() | dst.infBits() | dst.quietBit() | pay
		}
		return dst.nan
	case clsInf:
		return s<<dst.signShift() | dst.infBits()
	case clsZero:
		return s << dst.signShift()
	}
	return round(dst, s, e, m, rm, ftzOut)
}

// F32toF64 converts f32 to f64 exactly (cvt.f64.f32, F2F.F64.F32). With
// ftz a subnormal input becomes a zero of its sign. A NaN becomes the
// quiet f64 NaN with the same sign and payload (canonical 0x7fffffff ->
// 0x7fffffffe0000000).
func F32toF64(a uint32, ftz bool) uint64 {
	if ftz {
		a = Flush32(a)
	}
	if isNaN32(a) {
		return convert(fmt32, fmt64, uint64(a), RN, false, false)
	}
	return math.Float64bits(float64(f32(a)))
}

// F64toF32 rounds f64 to f32 (cvt.rnd.f32.f64). With ftz a subnormal f32
// result is flushed. A NaN keeps its sign and the top 22 bits of its
// payload and is quieted.
//
// Decision: payload kept, unlike every f32 arithmetic NaN. Evidence: the
// H100 sweep of cvt.rn.f32.f64 (ops-h100.tgz) maps 0x7ff0400000000000 to
// 0x7fc20000, 0xfff0400000000000 to 0xffc20000 and 0x7ff8000000000000 to
// 0x7fc00000 (F2F.F32.F64 truncates the payload); cvt.rn.ftz.f32.f64 in
// the fuzz programs does the same.
func F64toF32(a uint64, rm Round, ftz bool) uint32 {
	if isNaN64(a) {
		return uint32(a>>63)<<31 | 0x7fc00000 | uint32(a&(1<<52-1)>>29)
	}
	if rm == RN {
		return fin32(math.Float32bits(float32(f64(a))), ftz)
	}
	return uint32(convert(fmt64, fmt32, a, rm, false, ftz))
}

// F32toF16 rounds f32 to f16 (cvt.rnd.f16.f32). ftz flushes subnormal
// f32 inputs (PTX .ftz applies to .f32 operands only); f16 subnormal
// results are kept. Overflow follows rm: RN and the direction away from
// zero give inf, the others the largest finite f16. NaN gives
// CanonicalNaN16.
func F32toF16(a uint32, rm Round, ftz bool) uint16 {
	return uint16(convert(fmt32, fmt16, uint64(a), rm, ftz, false))
}

// F16toF32 converts f16 to f32 exactly; NaN gives CanonicalNaN32.
func F16toF32(a uint16) uint32 {
	return uint32(convert(fmt16, fmt32, uint64(a), RN, false, false))
}

// F16toF64 converts f16 to f64 exactly; a NaN keeps its sign and payload
// and is quieted.
func F16toF64(a uint16) uint64 {
	return convert(fmt16, fmt64, uint64(a), RN, false, false)
}

// F32toBF16 rounds f32 to bf16 (cvt.rnd.bf16.f32). Subnormals are kept;
// NaN gives CanonicalNaNBF16.
func F32toBF16(a uint32, rm Round) uint16 {
	return uint16(convert(fmt32, fmtBF16, uint64(a), rm, false, false))
}

// BF16toF32 converts bf16 to f32 exactly; NaN gives CanonicalNaN32.
func BF16toF32(a uint16) uint32 {
	return uint32(convert(fmtBF16, fmt32, uint64(a), RN, false, false))
}

// F64toF16 rounds f64 to f16 with a single rounding (cvt.rnd.f16.f64).
func F64toF16(a uint64, rm Round) uint16 {
	return uint16(convert(fmt64, fmt16, a, rm, false, false))
}

// F64toBF16 rounds f64 to bf16 with a single rounding.
func F64toBF16(a uint64, rm Round) uint16 {
	return uint16(convert(fmt64, fmtBF16, a, rm, false, false))
}

// toInt rounds x to an integer with rm and saturates it to a signed or
// unsigned integer of width n. NaN gives 0 when an f32 (or narrower)
// value becomes a 32-bit (or narrower) integer, and 1<<(n-1) otherwise.
//
// Decision: the NaN result depends on the unit, as the H100 shows. The
// sweeps of cvt.rzi.s32.f32 and cvt.rzi.u32.f32 (ops-h100.tgz; SASS
// F2I.TRUNC.NTZ) give 0 for every NaN; cvt.rzi.s64.f64 and
// cvt.rzi.u64.f64 (F2I.F64.S64/U64) give 0x8000000000000000 for every
// NaN, including the unsigned form. The fuzz programs show the same for
// f64 to 32 bits (cvt.rpi/rmi/rni.s32.f64 and .u32.f64: 0x80000000) and
// for f32 to 64 bits (cvt.rpi.s64.f32, cvt.rmi.u64.f32, SASS
// F2I.S64: 0x8000000000000000). Out-of-range values saturate in every
// case (the sweeps agree), -inf to 0 for unsigned.
func toInt(f format, x uint64, rm Round, signed bool, n int, ftz bool) uint64 {
	if n < 1 || n > 64 {
		panic("fp: integer width out of range")
	}
	c, s, e, m := unpack(f, x, ftz)
	mask := ^uint64(0) >> uint(64-n)
	var hi uint64 // largest magnitude for the sign
	switch {
	case !signed && s != 0:
		hi = 0
	case !signed:
		hi = mask
	case s != 0:
		hi = 1 << uint(n-1)
	default:
		hi = 1<<uint(n-1) - 1
	}
	var mag uint64
	switch c {
	case clsNaN:
		if f == fmt64 || n > 32 {
			return 1 << uint(n-1)
		}
		return 0
	case clsZero:
		return 0
	case clsInf:
		mag = hi
	default:
		var big bool
		mag, big = roundInt(s, e, m, rm)
		if big || mag > hi {
			mag = hi
		}
	}
	if s != 0 {
		mag = -mag
	}
	return mag & mask
}

// roundInt rounds sign * m * 2^e (m != 0, bit 63 set) to an integer
// magnitude; big reports a magnitude of 2^64 or more.
func roundInt(s uint64, e int, m uint64, rm Round) (mag uint64, big bool) {
	if e > 0 {
		return 0, true
	}
	if e == 0 {
		return m, false
	}
	sh := uint(-e)
	var half, sticky bool
	switch {
	case sh < 64:
		mag = m >> sh
		half = m>>(sh-1)&1 != 0
		sticky = m&(1<<(sh-1)-1) != 0
	case sh == 64:
		half = true
		sticky = m<<1 != 0
	default:
		sticky = true
	}
	switch rm {
	case RN:
		if half && (sticky || mag&1 != 0) {
			mag++
		}
	case RM:
		if s != 0 && (half || sticky) {
			mag++
		}
	case RP:
		if s == 0 && (half || sticky) {
			mag++
		}
	}
	return mag, false
}

// F32toInt converts f32 to an integer of width bits (8, 16, 32 or 64):
// round with rm (cvt.rni/rzi/rmi/rpi), then saturate to the destination
// range (cvt is saturating for float-to-integer). NaN gives 0, -0 gives
// 0, and a negative value gives 0 for an unsigned destination. The result
// is the two's-complement pattern in the low bits; the bits above width
// are zero. With ftz a subnormal input counts as zero.
func F32toInt(a uint32, rm Round, signed bool, bits int, ftz bool) uint64 {
	return toInt(fmt32, uint64(a), rm, signed, bits, ftz)
}

// F64toInt converts f64 to an integer; see F32toInt.
func F64toInt(a uint64, rm Round, signed bool, bits int) uint64 {
	return toInt(fmt64, a, rm, signed, bits, false)
}

// F16toInt converts f16 to an integer; see F32toInt.
func F16toInt(a uint16, rm Round, signed bool, bits int) uint64 {
	return toInt(fmt16, uint64(a), rm, signed, bits, false)
}

// BF16toInt converts bf16 to an integer; see F32toInt.
func BF16toInt(a uint16, rm Round, signed bool, bits int) uint64 {
	return toInt(fmtBF16, uint64(a), rm, signed, bits, false)
}

// fromInt rounds the width-n integer in v to format f.
func fromInt(f format, v uint64, signed bool, n int, rm Round) uint64 {
	if n < 1 || n > 64 {
		panic("fp: integer width out of range")
	}
	v &= ^uint64(0) >> uint(64-n)
	var s uint64
	if signed && v>>uint(n-1) != 0 {
		s = 1
		v = -(v | ^uint64(0)<<uint(n-1)) // sign-extend, negate
	}
	if v == 0 {
		return 0
	}
	return round(f, s, 0, v, rm, false)
}

// IntToF32 converts the bits-wide integer in the low bits of v (signed:
// two's complement) to f32 rounded with rm (cvt.rnd.f32.s32 etc., I2F).
// Zero gives +0.
func IntToF32(v uint64, signed bool, bits int, rm Round) uint32 {
	return uint32(fromInt(fmt32, v, signed, bits, rm))
}

// IntToF64 converts an integer to f64; see IntToF32.
func IntToF64(v uint64, signed bool, bits int, rm Round) uint64 {
	return fromInt(fmt64, v, signed, bits, rm)
}

// IntToF16 converts an integer to f16; see IntToF32. Magnitudes beyond
// the f16 range overflow according to rm.
func IntToF16(v uint64, signed bool, bits int, rm Round) uint16 {
	return uint16(fromInt(fmt16, v, signed, bits, rm))
}

// IntToBF16 converts an integer to bf16; see IntToF32.
func IntToBF16(v uint64, signed bool, bits int, rm Round) uint16 {
	return uint16(fromInt(fmtBF16, v, signed, bits, rm))
}

// rint rounds x to an integral value of the same format.
func rint(f format, x uint64, rm Round, ftz bool) uint64 {
	c, s, e, m := unpack(f, x, ftz)
	switch c {
	case clsNaN:
		return nan1(f, x)
	case clsInf:
		return x
	case clsZero:
		return s << f.signShift()
	}
	if e >= 0 {
		return x // |x| >= 2^63: already integral
	}
	mag, _ := roundInt(s, e, m, rm)
	if mag == 0 {
		return s << f.signShift()
	}
	return round(f, s, 0, mag, rm, false)
}

// Rint32 rounds f32 to an integral f32 with rm (cvt.rni/rzi/rmi/rpi.f32.f32,
// FRND). The sign of a zero result is the sign of the input (-0.4 -> -0).
// NaN gives CanonicalNaN32; with ftz a subnormal input gives a signed zero.
func Rint32(a uint32, rm Round, ftz bool) uint32 {
	return uint32(rint(fmt32, uint64(a), rm, ftz))
}

// Rint64 rounds f64 to an integral f64 (FRND.F64). A NaN is returned
// quieted.
func Rint64(a uint64, rm Round) uint64 { return rint(fmt64, a, rm, false) }
