package ptx

import (
	"errors"
	"strings"
	"testing"
)

// TestModifierDiagnostics pins the first diagnostic for each kind of
// mistake issue 19 lists (each accepted before, each refused by ptxas
// 13.0), and checks that the valid neighbours of each still parse.
func TestModifierDiagnostics(t *testing.T) {
	cases := []struct{ body, want string }{
		{"\tld.globl.u32 %r1, [%rd1];", "k.ptx:10:2: error: unknown modifier .globl on ld"},
		{"\tld.parm.u64 %rd1, [k_param_0];", "k.ptx:10:2: error: unknown modifier .parm on ld"},
		{"\tst.glbal.u32 [%rd1], %r1;", "k.ptx:10:2: error: unknown modifier .glbal on st"},
		{"\tld.global.foo %r1, [%rd1];", "k.ptx:10:2: error: unknown modifier .foo on ld"},
		{"\tld.global.u33 %r1, [%rd1];", "k.ptx:10:2: error: unknown modifier .u33 on ld"},
		{"\tld.global.u16x2 %r1, [%rd1];", "k.ptx:10:2: error: type .u16x2 is not allowed for ld"},
		{"\tadd.s63 %r1, %r2, %r3;", "k.ptx:10:2: error: unknown modifier .s63 on add"},
		{"\tmad.lo.banana.s32 %r1, %r2, %r3, %r1;", "k.ptx:10:2: error: unknown modifier .banana on mad"},
		{"\tmad.hi.lo.s32 %r1, %r2, %r3, %r1;", "k.ptx:10:2: error: modifiers .hi and .lo cannot be combined on mad"},
		{"\tadd.f32 %rd1, %rd2, %rd3;", "k.ptx:10:10: error: operand 1 of add.f32: register %rd1 (.b64) does not match the type .f32"},
		{"\tsetp.gee.s32 %p1, %r1, %r2;", "k.ptx:10:2: error: unknown modifier .gee on setp"},
		{"\tbfe.u32 %r1, %r2, 3735928559, 4;", "k.ptx:10:20: error: immediate 3735928559 is outside bfe's position range 0..255"},
		{"\tbfi.b32 %r1, %r2, %r3, 0, 256;", "k.ptx:10:28: error: immediate 256 is outside bfi's length range 0..255"},
		{"\tvote.all.pred %p1, %p0;", "k.ptx:10:2: error: vote.all.pred without .sync is not supported on sm_70 and later from PTX ISA 6.4 on"},
		{"\tld.global.v8.u32 {%r0, %r1, %r2, %r3, %r0, %r1, %r2, %r3}, [%rd1];", "k.ptx:10:2: error: ld.v8 requires PTX ISA 8.8 or later, but the module declares .version 7.8"},
		{"\t.extern .shared .align 4 .b8 dyn[];", "k.ptx:10:2: error: .extern is not allowed inside a function: declare .shared dyn at module scope"},
		{"\tmul.wide.u32 %r1, %r2, %r3;", "k.ptx:10:15: error: operand 1 of mul.wide.u32: register %r1 (.b32) does not match the type .u64"},
		{"\tcvt.f32.u32 %r1, %r2;", "k.ptx:10:2: error: cvt.f32.u32 needs a rounding modifier (.rn, .rz, .rm or .rp)"},
		{"\tshl.b32 %r1, %r2, %rd1;", "k.ptx:10:20: error: operand 3 of shl.b32: register %rd1 (.b64) does not match the type .u32"},
		{"\tadd.u32 %r1, %r2, %tid.x;", "k.ptx:10:20: error: operand 3 of add.u32: special register %tid can only be read by mov or cvt"},
		{"\tld.shared.u32 %r1, [k_param_0];", "k.ptx:10:21: error: ld.shared.u32 accesses .shared, but k_param_0 is a .param variable"},
	}
	for _, c := range cases {
		_, err := Parse("k.ptx", []byte(kernel("sm_90", c.body)))
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("%s: accepted, want %q", strings.TrimSpace(c.body), c.want)
			continue
		}
		if got := list[0].Header(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", strings.TrimSpace(c.body), got, c.want)
		}
	}
	for _, body := range []string{
		"\tld.global.u32 %rd1, [%rd2];", // a wider destination
		"\tld.global.f32 %r1, [%rd1];",  // a bit-size register for .f32
		"\tst.global.u16 [%rd1], %r1;",  // a wider source
		"\tmul.wide.u32 %rd1, %r2, %r3;",
		"\tbfe.u32 %r1, %r2, 255, 0;",
		"\tvote.sync.all.pred %p1, %p0, 0xffffffff;",
		"\tcvt.rzi.u32.f32 %r1, %r2;",
		"\tmov.b64 %rd1, {%r1, %r2};",
		"\tmov.u32 %r1, %tid.x;",
	} {
		if _, err := Parse("k.ptx", []byte(kernel("sm_90", body))); err != nil {
			t.Errorf("%s: rejected: %v", strings.TrimSpace(body), err)
		}
	}
}

// TestHeaderDiagnostics: unknown targets and versions, and the pairing
// ptxas enforces.
func TestHeaderDiagnostics(t *testing.T) {
	for _, c := range []struct{ version, target, want string }{
		{"7.8", "sm_999", "k.ptx:2:1: error: unknown target sm_999"},
		{"99.9", "sm_90", "k.ptx:1:1: error: unsupported .version 99.9: ptxas 13.0 knows PTX ISA 1.0 to 9.0"},
		{"7.0", "sm_90", "k.ptx:2:1: error: .target sm_90 needs .version 7.8 or later, but the module declares .version 7.0"},
	} {
		src := strings.Replace(strings.Replace(kernel(c.target), ".version 7.8", ".version "+c.version, 1), "\tret;", "\tret;", 1)
		_, err := Parse("k.ptx", []byte(src))
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("%s/%s: accepted", c.version, c.target)
			continue
		}
		if got := list[0].Header(); got != c.want {
			t.Errorf("%s/%s:\n got %s\nwant %s", c.version, c.target, got, c.want)
		}
	}
}
