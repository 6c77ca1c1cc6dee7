package fp

import "testing"

// TestRsq64HNegativeIsDefaultNaN pins the H100's MUFU.RSQ64H on the
// operands rsqrt.approx.f64 has no root of (ops-h100.tgz): negative
// normals, subnormals and -inf give the default NaN's high word, while
// -0 gives -inf and a NaN stays a NaN.
func TestRsq64HNegativeIsDefaultNaN(t *testing.T) {
	for _, c := range []struct{ in, want uint64 }{
		{0xbff0000000000000, 0xfff8000000000000}, // -1
		{0x8000400000000000, 0xfff8000000000000}, // a negative subnormal
		{0xfff0000000000000, 0xfff8000000000000}, // -inf
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
