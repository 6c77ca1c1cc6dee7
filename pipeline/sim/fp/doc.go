// Package fp is the simulator's floating-point unit. It computes on raw
// bit patterns (uint16 for f16 and bf16, uint32 for f32, uint64 for f64)
// and reproduces the arithmetic of NVIDIA GPUs bit for bit, wherever
// public sources pin that arithmetic down. It has no dependencies outside
// the standard library, and the rest of orilab does not depend on how it
// works inside.
//
// # What it owns
//
//   - IEEE 754 arithmetic in the four rounding modes (RN, RZ, RM, RP):
//     add, multiply and fused multiply-add for f16, bf16, f32 and f64
//     (FADD/FMUL/FFMA, DADD/DMUL/DFMA, HADD2/HMUL2/HFMA2 one lane at a
//     time), plus division and square root for f32 and f64 as the
//     IEEE reference that compiled div/sqrt sequences must match.
//   - Flush-to-zero (.FTZ), saturation (.SAT), min/max (FMNMX and
//     relatives) and comparisons (FSETP and relatives).
//   - Conversions between the float formats, between floats and integers,
//     and rounding to an integral value (F2F, F2I, I2F, FRND), with PTX
//     cvt semantics.
//   - Models of the special function unit (MUFU.RCP, RSQ, SQRT, EX2, LG2,
//     SIN, COS, TANH, RCP64H, RSQ64H).
//
// # How it computes
//
// An operation unpacks its operands into sign, exponent and a 64-bit
// significand, computes the exact result with integer arithmetic (a
// 128-bit product and sum for fma), keeps any bits it cannot hold as a
// sticky bit, and rounds once (round). The same code serves every
// format. RN on f32 and f64 (the hot path: add, mul, fma, div, sqrt)
// uses the host's IEEE arithmetic instead: Go defines it as
// round-to-nearest-even with gradual underflow, and each fast path is
// either a single host operation or one whose double rounding is proven
// harmless (fma32RN). NaN results and the directed modes always go
// through the integer code. None of this allocates. The tests compare
// both routes against math/big.
//
// # NaN results
//
// f32: every NaN an arithmetic operation produces is the canonical
// 0x7fffffff (the sign and payload of input NaNs are dropped). This comes
// from the CUDA C++ Programming Guide ("Floating-Point Standard") and
// NVIDIA's SASS reference, and the H100 agrees: the sweeps of
// add.f32 x, 0f7FA00000 and min.f32 x, 0f7FC00000 in
// ../shared/hwtruth/ops-h100.tgz match bit for bit. The package exports
// it as CanonicalNaN32.
//
// f64 is different, and measured on the H100 (ops-h100.tgz and the
// fuzz programs of fuzz-h100.tgz; core.go nan2 and nan3 give the
// evidence): an operation returns a NaN operand, quieted, with its sign
// and payload, taking b first, then a, then c (for fma); with no NaN
// operand (inf-inf, 0*inf, sqrt(-1), 0/0) it returns DefaultNaN64 =
// 0xfff8000000000000. Min64 and Max64 of two NaNs return b, quieted.
//
// f16 and bf16 results use 0x7fff; Min16 and Max16 of two NaNs too.
// Conversions follow the destination format's rule, except that a NaN
// converted to f64 keeps its sign and payload, quieted
// (0x7fffffff -> 0x7fffffffe0000000), and one converted from f64 to f32
// keeps its sign and the payload's top bits (0x7ff0400000000000 ->
// 0x7fc20000). A float-to-integer conversion turns NaN into 0 for f32 to
// 32 bits and into 1<<(n-1) for f64 sources and 64-bit results.
//
// What the ZLUDA real-GPU expectations (../shared/corpus/ZLUDA/expect)
// show: none of the 137 expected outputs is a NaN or an infinity, so
// they neither confirm nor contradict the NaN encodings above. They do
// confirm how NaN operands behave: min.f16(NaN, 123) = 123,
// max.f16(NaN, +0) = +0, setp.nan and set.gtu are true on NaN operands,
// tanh.approx(+inf) = 1. TestZLUDAExpect replays the suite's scalar
// floating-point cases that this package covers.
//
// # Flush to zero
//
// With ftz, a subnormal operand is replaced by a zero of its sign before
// the operation. A result that is subnormal after rounding becomes a zero
// of its sign. A result that rounds up to the smallest normal number is
// kept, which is a choice: flushing before rounding would instead give
// zero. ZLUDA's expectations confirm the basic behaviour:
// mul.ftz(-2^-127, 0.5) = -0, div.rn.ftz gives +0 where div.rn gives the
// subnormal 0x26, and sqrt.rn.ftz of the smallest subnormal is +0. f64
// never flushes. Min32 and Max32 do not flush (use Flush32 on the
// operands for FMNMX.FTZ).
//
// A conversion's ftz applies to its f32 side only, as PTX .ftz does:
// F32toF16 and F32toInt flush a subnormal f32 input, F64toF32 flushes a
// subnormal f32 result, and f16 subnormals are kept.
//
// # Other choices
//
// Exact zero sums follow IEEE 754: x + (-x) is +0, or -0 when rounding
// toward -inf, and the sum of two equal-signed zeros keeps their sign.
// Sat32 maps NaN, -0 and every negative value to +0. Min and max
// implement IEEE minNum/maxNum with -0 < +0; with nanProp (min.NaN)
// any NaN operand gives the canonical NaN.
//
// Float-to-integer conversion rounds with the given mode, then
// saturates to the destination range. -0 gives 0; NaN as above. The
// result is the two's-complement pattern masked to the destination
// width.
//
// # MUFU models
//
// The approximations model MUFU itself: subnormal operands and results
// are flushed, like the PTX .approx.ftz forms. For the non-ftz PTX forms,
// the compiler emits scaling code around MUFU. The exception is TANH,
// which has no ftz form and keeps subnormals.
//
// The simulator executes the *SFU functions (mufu_sfu.go), which model
// what an H100 returns, measured by the sweeps in
// ../shared/hwtruth/ops-h100.tgz. TestMUFUHardware compares them with
// every input of those sweeps and prints, per instruction, the inputs
// that still differ and by how many ulps; its limits fail a regression.
//
//   - RCP, RSQ, SQRT and EX2 compute what the H100's interpolator
//     computes, bit for bit (sfuDatapath): the fraction's top bits pick a
//     segment (128 for RCP, 64 for the others), and the low bits x give
//     (C0 + C1*x + C2*sq(x)) >> h in integers, where sq is a truncated
//     squarer that drops the partial products below a fixed weight. The
//     coefficients (mufu_tables.go) are solved exactly from the
//     exhaustive binade sweeps by TestGenerateMUFUTables (-tags mufugen):
//     every one of the 2^23 inputs of each sweep constrains C0 to an
//     interval, and a solution exists for every segment. All structured
//     sweeps of rcp, rsqrt, sqrt and ex2 (f32, ftz or not, and the f64
//     RCP64H/RSQ64H forms) match on every input. rsqrt of an even power
//     of two is exact (1.0 at 1), not interpolated. The same datapath
//     gives LG2 (below).
//   - EX2 reads its operand as a fixed-point number with 23 fraction bits
//     and complements the fraction of a negative one bit by bit (exact on
//     the [-2,-1) binade against the [1,2) one).
//   - RCP64H and RSQ64H are the f32 units applied to the 20-bit fraction,
//     truncated to 20 bits: exact on the f64 sweep. RSQ64H of a negative
//     operand gives the high word 0x7fffffff (rsqrt.approx.ftz.f64, the
//     MUFU alone, in the fuzz recordings); the sweep's rsqrt.approx.f64
//     gets its default NaN from ptxas's fix-up path, which the lowering
//     reproduces.
//   - SIN and COS take the FMUL.RZ by 1/(2π) that SASS issues first, and
//     truncate the turn to 25 fraction bits: two quadrant bits and a
//     23-bit index u into one quarter-turn table on the same datapath,
//     sin(π/2 u) as a fixed-point number with 38 fraction bits, truncated
//     to f32 (sfuSin). Quadrants that need the other function read the
//     table at the bitwise complement of u (sinCosSFU). The table is
//     solved from the sin and cos binades together (6.1 million of its
//     2^23 inputs seen; the structured sweeps fill its middle) and matches
//     every input of both structured sweeps and both binades.
//   - TANH returns the operand itself below 2^-8 and ±1 from 8, as the
//     hardware does. In between it is the same datapath, one table per
//     binade of |a| (tanhTables), with segments of 2^17 steps: from 0.5
//     to 4 the operand as a fixed-point number with 20 fraction bits in
//     segments of 1/8 (18 bits and segments of 1/2 from 4 to 8), below
//     0.5 one, two or four segments per binade on the top 17 to 19
//     fraction bits; the value is truncated to f32. [0.5, 2) is solved
//     from the two exhaustive tanh binades, the other nine binades from
//     the structured sweep (512 inputs each), and the result matches
//     every input of every tanh sweep and the H100's results for 582
//     other operands (574 with low fraction bits that the sweep's inputs
//     lack) recovered from the recorded programs (TanhSFU32 gives the
//     evidence and what the sweeps leave open).
//   - LG2 (Lg2SFU32) uses the same datapath for log2(1 + f) as a
//     fixed-point number with 36 fraction bits (64 segments), adds the
//     exponent and truncates to f32; lg2(1) is 0. Exact on both lg2
//     sweeps.
//   - EX2.F16 and TANH.F16 (Ex2SFU16, TanhSFU16) truncate the f32 unit's
//     result to f16 (ex2 overflows to +inf from 2^16): both match all
//     65,536 f16 inputs of their sweeps. The lowering emits them for
//     ex2.approx.f16 and tanh.approx.f16 (and the .f16x2 forms); the
//     .bf16 forms (MUFU.*.BF16 in ptxas's code) are not lowered: no
//     hardware recording of them exists.
//
// The functions named *Approx32, Rcp64H and Rsq64H are the correctly
// rounded references the models fall back on for special operands.
// Each returns the correctly rounded f32 value of the exact function
// (f64 subnormals are flushed for RCP64H/RSQ64H). That is deterministic
// and within every PTX error bound: rcp 1 ulp, sqrt 2^-23 relative,
// rsqrt 2^-22.9, ex2 2 ulp, lg2 2^-22.6 absolute, sin and cos 2^-20.9
// absolute, tanh 2^-11 relative.
//
// The values come from float64 math followed by rounding to f32. For rcp
// and sqrt this is exact (a correctly rounded float64 result, then a
// harmless second rounding). For the others, when the float64 value lies
// within 16 float64 ulps of an f32 rounding midpoint (about one input in
// 2^23), the function is evaluated again to 300 bits with math/big
// (round32Ziv; Rsq64H does the same at its 21-bit precision). Sin and cos
// of |a| >= 1 use an exact argument reduction with a 256-bit 1/(2π)
// (radToQuarters) instead of math.Sin's own reduction, which was measured
// 32 float64 ulps off at 1e30.
//
// The opt-in exhaustive test checks every model on all 2^32 inputs
// against 300-bit math/big references; it takes about 18 minutes on two
// cores:
//
//	FP_EXHAUSTIVE=1 go test -run TestMUFUExhaustive -timeout 1h ./pipeline/sim/fp
//
// Its results with go1.26:
//   - The float64 values are within 2.5 float64 ulps of the exact ones on
//     the sample it measures, and every input within 256 float64 ulps of
//     an f32 midpoint is checked individually. No input of any model
//     returns anything but the correctly rounded f32 value.
//   - Rounding the float64 values alone would miss 8 inputs (2 for ex2,
//     2 for sin, 4 for cos; TestZiv pins them), each by one ulp.
//
// SinApprox32 and CosApprox32 take radians, like sin.approx.f32. On sm_70
// and later, SASS computes sin.approx as FMUL.RZ by 1/(2π) followed by
// MUFU.SIN, whose operand is in revolutions; SinRevApprox32 and
// CosRevApprox32 model that MUFU operand. RCP64H and RSQ64H read only the
// high word of the f64 operand, and their result is the high word
// (sign, exponent, 20 fraction bits) of 1/a or 1/sqrt(a), rounded to
// nearest at that precision, with a zero low word.
package fp
