package fp

import "math"

// The instruction sequences below are those the lowering emits for each
// PTX .approx instruction (pipeline/lower/float.go), written with this
// package's operations so that the sweep compares what the simulator
// executes.

func f32c(v float32) uint32 { return math.Float32bits(v) }

const minNormal32 = 0x00800000

func sel(p bool, a, b uint32) uint32 {
	if p {
		return a
	}
	return b
}

func absLT(x, y uint32) bool { return Cmp32(x&0x7fffffff, y, LT, false) }

// scaledMufu mirrors flScaledMufu: operands below 2^-126 are multiplied
// by 2^24 and the result by 2^outSmall; with big, operands of at least
// 2^126 are multiplied by 2^-24 and so is the result.
func scaledMufu(fn func(uint32) uint32, x uint32, outSmall int, big bool) uint32 {
	tiny := absLT(x, minNormal32)
	in := sel(tiny, f32c(0x1p24), f32c(1))
	out := in
	if outSmall != 24 {
		out = sel(tiny, f32c(float32(math.Ldexp(1, outSmall))), f32c(1))
	}
	if big && Cmp32(x&0x7fffffff, f32c(0x1p126), GE, false) {
		in, out = f32c(0x1p-24), f32c(0x1p-24)
	}
	return Mul32(fn(Mul32(x, in, RN, false)), out, RN, false)
}

func ex2Seq(x uint32) uint32 {
	lo := Cmp32(x, f32c(-126), LT, false)
	r := Ex2SFU32(sel(lo, Mul32(x, f32c(0.5), RN, false), x))
	return sel(lo, Mul32(r, r, RN, false), r)
}

func lg2Seq(x uint32) uint32 {
	tiny := absLT(x, minNormal32)
	r := Lg2SFU32(sel(tiny, Mul32(x, f32c(0x1p24), RN, false), x))
	return sel(tiny, Add32(r, f32c(-24), RN, false), r)
}

func rsqrt64Seq(x uint64) uint64 {
	// flRsqrtF64 without .ftz.
	tiny := Cmp64(x&(1<<63-1), 0x0010000000000000, LT)
	as := x
	if tiny {
		as = Mul64(x, math.Float64bits(0x1p128), RN)
	}
	seed := Rsq64HSFU(as)
	e := Fma64(as, Mul64(seed, seed, RN)^1<<63, math.Float64bits(1), RN)
	h := Fma64(e, math.Float64bits(0.375), math.Float64bits(0.5), RN)
	y := Fma64(h, Mul64(seed, e, RN), seed, RN)
	ok := Cmp64(as, 0, GT) && Cmp64(as, math.Float64bits(math.Inf(1)), LT)
	if hwNaN64(x) {
		seed = Add64(x, x, RN)
	}
	r := seed
	if ok {
		r = y
	}
	if tiny {
		r = Mul64(r, math.Float64bits(0x1p64), RN)
	}
	if Cmp64(x, 0, LT) {
		r = 0xfff8000000000000
	}
	return r
}

func hwOps() []hwOp {
	return []hwOp{
		{name: "ex2.approx.f32", in: 4, out: 4, f32: ex2Seq, limit: hwLimit{0, 0}},
		{name: "ex2.approx.ftz.f32", in: 4, out: 4, f32: Ex2SFU32, limit: hwLimit{0, 0}},
		{name: "lg2.approx.f32", in: 4, out: 4, f32: lg2Seq, limit: hwLimit{0, 0}},
		{name: "lg2.approx.ftz.f32", in: 4, out: 4, f32: Lg2SFU32, limit: hwLimit{0, 0}},
		{name: "rsqrt.approx.f32", in: 4, out: 4, f32: func(x uint32) uint32 { return scaledMufu(RsqSFU32, x, 12, false) }, limit: hwLimit{0, 0}},
		{name: "rcp.approx.f32", in: 4, out: 4, f32: func(x uint32) uint32 { return scaledMufu(RcpSFU32, x, 24, true) }, limit: hwLimit{0, 0}},
		{name: "rcp.approx.ftz.f32", in: 4, out: 4, f32: RcpSFU32, limit: hwLimit{0, 0}},
		{name: "sqrt.approx.f32", in: 4, out: 4, f32: func(x uint32) uint32 { return scaledMufu(SqrtSFU32, x, -12, false) }, limit: hwLimit{0, 0}},
		{name: "sin.approx.f32", in: 4, out: 4, f32: SinRadSFU32, limit: hwLimit{3826, 2}},
		{name: "cos.approx.f32", in: 4, out: 4, f32: CosRadSFU32, limit: hwLimit{3750, 2}},
		{name: "tanh.approx.f32", in: 4, out: 4, f32: TanhSFU32, limit: hwLimit{0, 0}},
		{name: "ex2.approx.f16", in: 2, out: 2, f16: Ex2SFU16, limit: hwLimit{0, 0}},
		{name: "tanh.approx.f16", in: 2, out: 2, f16: TanhSFU16, limit: hwLimit{0, 0}},
		{name: "rcp.approx.ftz.f64", in: 8, out: 8, f64: Rcp64HSFU, limit: hwLimit{0, 0}},
		{name: "rsqrt.approx.f64", in: 8, out: 8, f64: rsqrt64Seq, limit: hwLimit{0, 0}},
	}
}

func hwBinades() []binadeSweep {
	return []binadeSweep{
		{name: "ex2.approx.ftz.f32_1to2", base: 0x3f800000, fn: Ex2SFU32, limit: hwLimit{0, 0}},
		{name: "ex2.approx.ftz.f32_m2tom1", base: 0xbf800000, fn: Ex2SFU32, limit: hwLimit{0, 0}},
		{name: "lg2.approx.ftz.f32_1to2", base: 0x3f800000, fn: Lg2SFU32, limit: hwLimit{0, 0}},
		{name: "rcp.approx.ftz.f32_1to2", base: 0x3f800000, fn: RcpSFU32, limit: hwLimit{0, 0}},
		{name: "sqrt.approx.ftz.f32_1to2", base: 0x3f800000, fn: SqrtSFU32, limit: hwLimit{0, 0}},
		{name: "sqrt.approx.ftz.f32_2to4", base: 0x40000000, fn: SqrtSFU32, limit: hwLimit{0, 0}},
		{name: "rsqrt.approx.ftz.f32_1to2", base: 0x3f800000, fn: RsqSFU32, limit: hwLimit{0, 0}},
		{name: "rsqrt.approx.ftz.f32_2to4", base: 0x40000000, fn: RsqSFU32, limit: hwLimit{0, 0}},
		{name: "sin.approx.ftz.f32_1to2", base: 0x3f800000, fn: SinRadSFU32, limit: hwLimit{0, 0}},
		{name: "cos.approx.ftz.f32_1to2", base: 0x3f800000, fn: CosRadSFU32, limit: hwLimit{0, 0}},
		{name: "tanh.approx.f32_0.5to1", base: 0x3f000000, fn: TanhSFU32, limit: hwLimit{0, 0}},
		{name: "tanh.approx.f32_1to2", base: 0x3f800000, fn: TanhSFU32, limit: hwLimit{0, 0}},
	}
}
