package lower

import (
	"strings"
	"testing"
)

// TestCvtaParamRefusals checks the two cvta.param forms orilab does not
// lower, with their reasons: 32-bit generic addresses (no room for the
// window) and a device function (its parameters live in registers).
func TestCvtaParamRefusals(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`.version 7.8
.target sm_80
.address_size 32
.entry k(.param .u32 a)
{
.reg .b32 %r<3>;
mov.b32 %r1, a;
cvta.param.u32 %r2, %r1;
ret;
}
`, "k.ptx:8:1: error: unsupported: cvta for the .param space with 32-bit addresses"},
		{`.version 7.8
.target sm_80
.address_size 64
.func f(.param .u64 a)
{
.reg .b64 %rd<3>;
mov.b64 %rd1, a;
cvta.param.u64 %rd2, %rd1;
ret;
}
.entry k()
{
.param .u64 x;
st.param.u64 [x], 0;
call f, (x);
ret;
}
`, "k.ptx:8:1: error: unsupported: cvta for the .param space in a device function (its parameters live in registers)"},
	} {
		if got, _, _ := strings.Cut(lowerErr(t, tc.src), "\n"); got != tc.want {
			t.Errorf("got %q\nwant %q", got, tc.want)
		}
	}
}
