package fp

import "math/bits"

// Round is an IEEE 754 rounding direction.
type Round uint8

// The four rounding directions of PTX (.rn, .rz, .rm, .rp) and SASS
// (.RN, .RZ, .RM, .RP).
const (
	RN Round = iota // to nearest, ties to even
	RZ              // toward zero
	RM              // toward -infinity
	RP              // toward +infinity
)

// String returns the PTX spelling of the rounding direction.
func (r Round) String() string {
	switch r {
	case RN:
		return "rn"
	case RZ:
		return "rz"
	case RM:
		return "rm"
	case RP:
		return "rp"
	}
	return "Round(?)"
}

// NaN encodings produced by this package (see the package documentation
// for the evidence behind each).
const (
	// CanonicalNaN32 is the only NaN an f32 operation produces.
	CanonicalNaN32 uint32 = 0x7fffffff
	// CanonicalNaN16 is the NaN an f16 operation produces.
	CanonicalNaN16 uint16 = 0x7fff
	// CanonicalNaNBF16 is the NaN a bf16 operation produces.
	CanonicalNaNBF16 uint16 = 0x7fff
	// DefaultNaN64 is the NaN an f64 operation produces when none of its
	// operands is a NaN (an invalid operation such as inf-inf or 0*inf).
	//
	// Decision: 0xfff8000000000000. The fuzz programs of ../shared/hwtruth
	// confirm it: the H100 wrote 0xfff80000_00000000 for sqrt.rn.f64 of
	// negative numbers, for div.rn.f64 x, x of zeros and for inf-inf
	// (fuzz5550073, fuzz5550367, fuzz5550400).
	DefaultNaN64 uint64 = 0xfff8000000000000
)

// format describes an IEEE-style binary format: p significand bits
// (including the hidden bit), ebits exponent bits, bias = 2^(ebits-1)-1.
type format struct {
	p     uint // precision, hidden bit included
	ebits uint
	// propagate selects the f64 NaN rule: a NaN operand comes back
	// quieted (payload and sign kept); otherwise the result is nan.
	propagate bool
	nan       uint64 // the NaN an invalid operation produces
}

var (
	fmt16   = format{p: 11, ebits: 5, nan: uint64(CanonicalNaN16)}
	fmtBF16 = format{p: 8, ebits: 8, nan: uint64(CanonicalNaNBF16)}
	fmt32   = format{p: 24, ebits: 8, nan: uint64(CanonicalNaN32)}
	fmt64   = format{p: 53, ebits: 11, propagate: true, nan: DefaultNaN64}
	// fmt64hi is the high word of an f64 (sign, 11-bit exponent, 20
	// fraction bits): the operand and result format of MUFU.RCP64H and
	// MUFU.RSQ64H.
	fmt64hi = format{p: 21, ebits: 11, nan: uint64(CanonicalNaN32)}
)

func (f format) bias() int         { return 1<<(f.ebits-1) - 1 }
func (f format) emin() int         { return 2 - 1<<(f.ebits-1) } // 1 - bias
func (f format) emax() int         { return 1<<(f.ebits-1) - 1 } // bias
func (f format) fracMask() uint64  { return 1<<(f.p-1) - 1 }
func (f format) expMask() uint64   { return 1<<f.ebits - 1 }
func (f format) signShift() uint   { return f.p - 1 + f.ebits }
func (f format) signBit() uint64   { return 1 << f.signShift() }
func (f format) infBits() uint64   { return f.expMask() << (f.p - 1) }
func (f format) quietBit() uint64  { return 1 << (f.p - 2) }
func (f format) maxFinite() uint64 { return f.infBits() - 1 }

// Operand classes returned by unpack.
const (
	clsZero   = 0
	clsFinite = 1 // normal or (without ftz) subnormal
	clsInf    = 2
	clsNaN    = 3
)

// unpack splits x. For a finite nonzero x, the value is sig * 2^exp with
// bit 63 of sig set (subnormals are normalised). With ftz, subnormals are
// classified as zero (keeping their sign).
func unpack(f format, x uint64, ftz bool) (cls int, sign uint64, exp int, sig uint64) {
	sign = x >> f.signShift() & 1
	e := x >> (f.p - 1) & f.expMask()
	m := x & f.fracMask()
	switch {
	case e == f.expMask():
		if m == 0 {
			return clsInf, sign, 0, 0
		}
		return clsNaN, sign, 0, 0
	case e == 0:
		if m == 0 || ftz {
			return clsZero, sign, 0, 0
		}
		lz := bits.LeadingZeros64(m)
		return clsFinite, sign, f.emin() - int(f.p-1) - lz, m << uint(lz)
	}
	return clsFinite, sign, int(e) - f.bias() - 63, (m | 1<<(f.p-1)) << (64 - f.p)
}

// isNaN reports whether x is a NaN of format f.
func (f format) isNaN(x uint64) bool {
	return x&^f.signBit() > f.infBits()
}

// flush returns x, or a zero of x's sign when x is subnormal.
func (f format) flush(x uint64) uint64 {
	if x>>(f.p-1)&f.expMask() == 0 {
		return x & f.signBit()
	}
	return x
}

// nan1 returns the NaN result of an operation with operand a.
func nan1(f format, a uint64) uint64 {
	if f.propagate && f.isNaN(a) {
		return a | f.quietBit()
	}
	return f.nan
}

// nan2 returns the NaN result of an operation with operands a, b: for
// f64, b quieted when b is a NaN, else a quieted (sign and payload kept);
// for the other formats the canonical NaN.
//
// Decision: the later operand wins. Evidence: the H100 sweep of
// add.f64 x, 0d7FF4000000000000 (ops-h100.tgz, add.f64.nan; SASS
// DADD R, x, +SNAN) gives 0x7ffc000000000000, the quieted b, for every x,
// also when x is itself a quiet or signalling NaN; mul.f64 x*x gives x
// quieted with its sign. Neither the SSE rule (first operand) nor the
// IEEE signalling-first rule fits. (The SASS operand modifiers .neg and
// .abs leave a NaN as it is; the simulator's operand read sees to that.)
func nan2(f format, a, b uint64) uint64 {
	if f.propagate {
		if f.isNaN(b) {
			return b | f.quietBit()
		}
		if f.isNaN(a) {
			return a | f.quietBit()
		}
	}
	return f.nan
}

// nan3 is nan2 for fma (a*b + c): b first, then a, then c.
//
// Decision: the product's operands before the addend, b before a. The
// H100 returned b for fma.rn.f64 of three NaNs (fuzz5550070: a =
// 0x7ff8.., b = 0xfff8.., c = 0x7ff8.. gave 0xfff8..) and a over c for
// fma.rn.f64 0d7FF8000000000000, 0, NaN c (fuzz5551768). DADD and DMUL
// (nan2) fit the same unit: b before a.
func nan3(f format, a, b, c uint64) uint64 {
	if f.propagate && !f.isNaN(a) && !f.isNaN(b) && f.isNaN(c) {
		return c | f.quietBit()
	}
	return nan2(f, a, b)
}

// zeroSum is the sign of an exact zero sum of two operands with signs sa
// and sb: their common sign, else -0 only when rounding toward -inf.
func zeroSum(sa, sb uint64, rm Round) uint64 {
	if sa == sb {
		return sa
	}
	if rm == RM {
		return 1
	}
	return 0
}

// overflow is the result of a finite value too large for f.
func overflow(f format, sign uint64, rm Round) uint64 {
	s := sign << f.signShift()
	switch rm {
	case RZ:
		return s | f.maxFinite()
	case RM:
		if sign == 0 {
			return f.maxFinite()
		}
	case RP:
		if sign != 0 {
			return s | f.maxFinite()
		}
	}
	return s | f.infBits()
}

// round rounds sign * sig * 2^exp (sig != 0) to format f. Any inexact
// part below sig must already be jammed into sig's low bits: callers
// keep at least 2 bits between sig's lowest bit and the rounding
// position. With ftz, a result that is subnormal after rounding becomes
// a zero of the same sign.
func round(f format, sign uint64, exp int, sig uint64, rm Round, ftz bool) uint64 {
	lz := bits.LeadingZeros64(sig)
	sig <<= uint(lz)
	e := exp - lz + 63 // value in [2^e, 2^(e+1))
	if e > f.emax() {
		return overflow(f, sign, rm)
	}
	emin := f.emin()
	shift := 64 - f.p
	if e < emin {
		shift += uint(emin - e) // below the normal range: fewer bits kept
	}
	var kept uint64
	var half, sticky bool
	switch {
	case shift < 64:
		kept = sig >> shift
		half = sig>>(shift-1)&1 != 0
		sticky = sig&(1<<(shift-1)-1) != 0
	case shift == 64:
		half = true // sig has bit 63 set
		sticky = sig<<1 != 0
	default:
		sticky = true
	}
	switch rm {
	case RN:
		if half && (sticky || kept&1 != 0) {
			kept++
		}
	case RM:
		if sign != 0 && (half || sticky) {
			kept++
		}
	case RP:
		if sign == 0 && (half || sticky) {
			kept++
		}
	}
	r := kept
	if e >= emin {
		// kept includes the hidden bit; a carry out of the significand
		// moves into the exponent field.
		r += uint64(e+f.bias()-1) << (f.p - 1)
		if r >= f.infBits() {
			return overflow(f, sign, rm)
		}
	} else if ftz && r < 1<<(f.p-1) {
		r = 0
	}
	return r | sign<<f.signShift()
}

// shrJam shifts x right by n, ORing any bit shifted out into bit 0.
func shrJam(x uint64, n uint) uint64 {
	if n == 0 {
		return x
	}
	if n >= 64 {
		if x != 0 {
			return 1
		}
		return 0
	}
	r := x >> n
	if x<<(64-n) != 0 {
		r |= 1
	}
	return r
}

// shr128Jam shifts hi:lo right by n, ORing any bit shifted out into bit 0.
func shr128Jam(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n == 0:
		return hi, lo
	case n < 64:
		sticky := lo<<(64-n) != 0
		lo = lo>>n | hi<<(64-n)
		hi >>= n
		if sticky {
			lo |= 1
		}
		return hi, lo
	case n < 128:
		sticky := lo != 0 || hi<<(128-n) != 0
		lo = hi >> (n - 64)
		if sticky {
			lo |= 1
		}
		return 0, lo
	}
	if hi|lo != 0 {
		return 0, 1
	}
	return 0, 0
}

// compress128 turns hi:lo * 2^exp (nonzero) into a 64-bit significand
// with the discarded low bits jammed into bit 0.
func compress128(hi, lo uint64, exp int) (uint64, int) {
	if hi == 0 {
		return lo, exp
	}
	lz := uint(bits.LeadingZeros64(hi))
	sig := hi<<lz | lo>>(64-lz)
	if lo<<lz != 0 {
		sig |= 1
	}
	return sig, exp + 64 - int(lz)
}
