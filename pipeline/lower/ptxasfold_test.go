package lower

import (
	"strings"
	"testing"
)

// The 8-bit store of a register holding an f16 result converts it
// (F2I.U8.F16.TRUNC in ptxas, F2F and F2I here) only where ptxas 13.0 does: every reaching
// definition an f16 operation, max of a register with itself counting as
// a copy, and not after a .ftz neg (whose conversion ptxas rounds
// differently). Executed results are pinned by testdata/kernels/ptxas_folds.
func TestByteStoreOfHalf(t *testing.T) {
	for _, c := range []struct {
		name, body string
		f2i        bool
	}{
		{"add", "add.f16 %rs2, %rs1, %rs1;", true},
		{"max-copy-of-int", "max.f16 %rs2, %rs1, %rs1;", false},
		{"max-copy-of-half", "add.f16 %rs1, %rs1, %rs1;\n\tmax.f16 %rs2, %rs1, %rs1;", true},
		{"neg-ftz", "neg.ftz.f16 %rs2, %rs1;", false},
		{"int-on-one-path", "add.f16 %rs2, %rs1, %rs1;\n\t@%p1 add.u16 %rs2, %rs2, 1;", false},
		{"half-on-both-paths", "add.f16 %rs2, %rs1, %rs1;\n\t@%p1 mul.f16 %rs2, %rs2, %rs1;", true},
	} {
		src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 v)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	.reg .b16 %rs<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [v];
	setp.ne.u32 %p1, %r1, 3;
	cvt.u16.u32 %rs1, %r1;
	` + c.body + `
	st.global.u8 [%rd1], %rs2;
	ret;
}
`
		m := lowerFile(t, c.name+".ptx", []byte(src))
		got := strings.Contains(m.String(), "F2I.")
		if got != c.f2i {
			t.Errorf("%s: a conversion (F2I) before the store: %v, want %v\n%s", c.name, got, c.f2i, m)
		}
	}
}
