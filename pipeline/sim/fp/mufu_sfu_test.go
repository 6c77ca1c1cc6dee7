package fp

import "testing"

// TestRsq64HNegative pins the H100's MUFU.RSQ64H on the operands that
// have no root: negative normals and -inf give the high word 0x7fffffff
// (rsqrt.approx.ftz.f64 in fuzz-h100.tgz, which ptxas compiles to the
// MUFU alone), a negative subnormal is flushed to -0 and gives -inf as
// -0 does, and a NaN stays a NaN. rsqrt.approx.f64's 0xfff8000000000000
// for all of them is the lowering's (pipeline/lower).
func TestRsq64HNegative(t *testing.T) {
	for _, c := range []struct{ in, want uint64 }{
		{0xbff0000000000000, 0x7fffffff00000000}, // -1
		{0xc0dead0012345678, 0x7fffffff00000000}, // -31412.5...
		{0x8000400000000000, 0xfff0000000000000}, // a negative subnormal
		{0xfff0000000000000, 0x7fffffff00000000}, // -inf
	} {
		if got := Rsq64HSFU(c.in); got != c.want {
			t.Errorf("Rsq64HSFU(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
	if got := Rsq64HSFU(0x8000000000000000); got>>32 != 0xfff00000 {
		t.Errorf("Rsq64HSFU(-0) = %#x, want -inf", got)
	}
	if got := Rsq64HSFU(0xfff4000000000000); got>>52&0x7ff != 0x7ff || got&0x000fffff00000000 == 0 {
		t.Errorf("Rsq64HSFU(NaN) = %#x, want a NaN", got)
	}
	if got := Rsq64HSFU(0x3ff0000000000000); got>>63 != 0 || got>>52&0x7ff == 0x7ff {
		t.Errorf("Rsq64HSFU(1) = %#x, want a positive number", got)
	}
}

// TestSfuSquare checks the truncated squarer against the full square: it
// drops only partial products below 2^17, so it is never above x*x/2^16
// and less than 17 below, and a single bit's square survives only from bit
// 9 up.
func TestSfuSquare(t *testing.T) {
	for x := uint32(0); x < 1<<16; x++ {
		full := int64(x) * int64(x)
		s := sfuSquare(x, 16, 17)
		if s<<16 > full || full-s<<16 >= 17<<16 {
			t.Fatalf("sfuSquare(%#x) = %d, want less than 17 below %d", x, s, full>>16)
		}
	}
	for _, c := range []struct {
		x    uint32
		want int64
	}{{1 << 8, 0}, {1 << 9, 4}, {0x8000, 0x4000}, {0x1234, 330}, {0xffff, 0xffee}} {
		if got := sfuSquare(c.x, 16, 17); got != c.want {
			t.Errorf("sfuSquare(%#x) = %d, want %d", c.x, got, c.want)
		}
	}
}

// TestRcpSFUMatchesH100 pins MUFU.RCP results the H100 gave
// (ops-h100.tgz) where the earlier fitted quadratic was one ulp off.
func TestRcpSFUMatchesH100(t *testing.T) {
	for _, c := range []struct{ in, want uint32 }{
		{0x3f800760, 0x3f7ff140}, // binade/rcp.approx.ftz.f32_1to2
		{0x00c3c000, 0x7e2765ae}, // mufu-rcp.approx.ftz.f32.bin
		{0x3f800000, 0x3f800000},
		{0x3fffffff, 0x3f000001},
	} {
		if got := RcpSFU32(c.in); got != c.want {
			t.Errorf("RcpSFU32(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

// TestLg2SFUMatchesH100 pins MUFU.LG2 results the H100 gave
// (ops-h100.tgz): lg2(1) is 0, lg2(1 + 2^-23) is the table's fixed-point
// value, and a negative power of two is not exact.
func TestLg2SFUMatchesH100(t *testing.T) {
	for _, c := range []struct{ in, want uint32 }{
		{0x3f800000, 0x00000000},
		{0x3f800001, 0x3495f600}, // binade/lg2.approx.ftz.f32_1to2
		{0x00800000, 0xc2fbffff}, // mufu-lg2.approx.ftz.f32.bin
		{0x40000000, 0x3f800000},
	} {
		if got := Lg2SFU32(c.in); got != c.want {
			t.Errorf("Lg2SFU32(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
}
