package ptx

import (
	"errors"
	"strings"
	"testing"
)

// kernel wraps body lines in a small sm_80 module whose kernel declares
// %r0..%r3 (.b32), %rd0..%rd3 (.b64) and %p0..%p1 (.pred). Body lines
// start at line 10.
func kernel(target string, body ...string) string {
	return ".version 7.8\n" +
		".target " + target + "\n" +
		".address_size 64\n" +
		".visible .entry k(.param .u64 k_param_0)\n" +
		"{\n" +
		"\t.reg .b32 %r<4>;\n" +
		"\t.reg .b64 %rd<4>;\n" +
		"\t.reg .pred %p<2>;\n" +
		"\t.shared .align 4 .b8 smem[64];\n" +
		strings.Join(body, "\n") + "\n" +
		"\tret;\n}\n"
}

// fp8Regs and fp8Regs2 declare the f32 and b16 registers of the cvt cases
// (lines 10 and 11).
const fp8Regs, fp8Regs2 = "\t.reg .f32 %f<2>;", "\t.reg .b16 %h<1>;"

// TestDiagnostics pins the full text (header, source line, caret) of the
// first diagnostic for each kind of error the front end reports.
func TestDiagnostics(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"unknown instruction", kernel("sm_80", "\tfrob.s32 %r1, %r2;"),
			"k.ptx:10:2: error: unknown instruction 'frob'\n\tfrob.s32 %r1, %r2;\n\t^"},
		{"undeclared register", kernel("sm_80", "\tadd.s32 %r1, %r2, %r9;"),
			"k.ptx:10:20: error: use of undeclared register '%r9'\n\tadd.s32 %r1, %r2, %r9;\n\t                  ^"},
		{"undeclared label", kernel("sm_80", "\tbra.uni $L__missing;"),
			"k.ptx:10:10: error: use of undeclared label '$L__missing'\n\tbra.uni $L__missing;\n\t        ^"},
		{"undeclared parameter", kernel("sm_80", "\tld.param.u64 %rd1, [k_param_9];"),
			"k.ptx:10:22: error: use of undeclared parameter 'k_param_9'\n\tld.param.u64 %rd1, [k_param_9];\n\t                    ^"},
		{"undeclared symbol", kernel("sm_80", "\tld.global.u32 %r1, [gtable+4];"),
			"k.ptx:10:22: error: use of undeclared symbol 'gtable'\n\tld.global.u32 %r1, [gtable+4];\n\t                    ^"},
		{"operand count", kernel("sm_80", "\tadd.s32 %r1, %r2;"),
			"k.ptx:10:2: error: wrong number of operands for add.s32: got 2, want 3\n\tadd.s32 %r1, %r2;\n\t^"},
		{"operand kind: address expected", kernel("sm_80", "\tld.global.u32 %r1, %rd1;"),
			"k.ptx:10:21: error: operand 2 of ld.global.u32 must be a memory address [...], found register %rd1\n\tld.global.u32 %r1, %rd1;\n\t                   ^"},
		{"operand kind: predicate expected", kernel("sm_80", "\tselp.b32 %r1, %r2, %r3, %r0;"),
			"k.ptx:10:26: error: operand 4 of selp.b32 must be a predicate register, found register %r0\n\tselp.b32 %r1, %r2, %r3, %r0;\n\t                        ^"},
		{"duplicate declaration", kernel("sm_80", "\t.reg .b32 %x;", "\t.reg .b32 %x;"),
			"k.ptx:11:12: error: duplicate declaration of %x (first declared at 10:12)\n\t.reg .b32 %x;\n\t          ^"},
		{"duplicate label", kernel("sm_80", "L1:", "L1:"),
			"k.ptx:11:1: error: duplicate label L1 (first defined at 10:1)\nL1:\n^"},
		{"target too old", kernel("sm_70", "\tredux.sync.add.u32 %r1, %r2, 0xffffffff;"),
			"k.ptx:10:2: error: redux requires sm_80 or higher, but the module targets sm_70\n\tredux.sync.add.u32 %r1, %r2, 0xffffffff;\n\t^"},
		// ptxas 13.0 refuses these below sm_90 (and the fp8 pairs on
		// sm_89 before .version 8.1), stricter than the PTX manual.
		{"fp8 pair below sm_89", kernel("sm_86", fp8Regs, fp8Regs2, "\tcvt.rn.satfinite.e4m3x2.f32 %h0, %f0, %f1;"),
			"k.ptx:12:2: error: cvt.rn.satfinite.e4m3x2.f32 (.e4m3x2/.e5m2x2) requires sm_90 or higher, but the module targets sm_86\n\tcvt.rn.satfinite.e4m3x2.f32 %h0, %f0, %f1;\n\t^"},
		{"fp8 pair on sm_89 before PTX 8.1", kernel("sm_89", fp8Regs, fp8Regs2, "\tcvt.rn.f16x2.e5m2x2 %r0, %h0;"),
			"k.ptx:12:2: error: cvt.rn.f16x2.e5m2x2 (.e4m3x2/.e5m2x2 on sm_89) requires PTX ISA 8.1 or later, but the module declares .version 7.8\n\tcvt.rn.f16x2.e5m2x2 %r0, %h0;\n\t^"},
		{"rounded tf32 below sm_90", kernel("sm_80", fp8Regs, fp8Regs2, "\tcvt.rz.tf32.f32 %r0, %f0;"),
			"k.ptx:12:2: error: cvt.rz.tf32.f32 (.tf32.f32.rz) requires sm_90 or higher, but the module targets sm_80\n\tcvt.rz.tf32.f32 %r0, %f0;\n\t^"},
		{"guard not a predicate", kernel("sm_80", "\t@%r1 bra.uni L1;", "L1:"),
			"k.ptx:10:2: error: guard %r1 is not a predicate register\n\t@%r1 bra.uni L1;\n\t^"},
		{"branch to a non-label", kernel("sm_80", "\tbra.uni k;"),
			"k.ptx:10:10: error: branch target of bra.uni must be a label, found function k\n\tbra.uni k;\n\t        ^"},
		{"missing semicolon", kernel("sm_80", "\tadd.s32 %r1, %r2, %r3", "\tmov.u32 %r1, 0;"),
			"k.ptx:11:2: error: expected ',' or ';' after operand 3 of add, found identifier 'mov'\n\tmov.u32 %r1, 0;\n\t^"},
		{"invalid character", kernel("sm_80", "\tadd.s32 %r1, %r2, #3;"),
			"k.ptx:10:20: error: invalid character '#'\n\tadd.s32 %r1, %r2, #3;\n\t                  ^"},
		{"malformed hex float", kernel("sm_80", "\tmov.f32 %r1, 0f3F80;"),
			"k.ptx:10:15: error: malformed hex float literal '0f3F80': want 8 hex digits after '0f'\n\tmov.f32 %r1, 0f3F80;\n\t             ^"},
		{"unterminated comment", kernel("sm_80", "\t/* never closed"),
			"k.ptx:10:2: error: unterminated /* comment\n\t/* never closed\n\t^"},
		{"unsized array", ".version 7.0\n.target sm_80\n.global .b32 table[];\n",
			"k.ptx:3:14: error: array table has no size: only .extern arrays and arrays with an initializer may omit it\n.global .b32 table[];\n             ^"},
		{"missing .version", ".target sm_80\n.address_size 64\n",
			"k.ptx:1:1: error: the module must begin with a .version directive\n.target sm_80\n^"},
		{"call argument count", ".version 7.0\n.target sm_80\n.func f(.param .b32 a)\n{\n\tret;\n}\n.entry k()\n{\n\t.param .b32 x;\n\tcall.uni f, (x, x);\n\tret;\n}\n",
			"k.ptx:10:11: error: call to f passes 2 arguments, but f takes 1\n\tcall.uni f, (x, x);\n\t         ^"},
		{"unclosed body", ".version 7.0\n.target sm_80\n.entry k()\n{\n\tret;\n",
			"k.ptx:4:1: error: unclosed '{': the file ends before its '}'\n{\n^"},
		{"special register component", kernel("sm_80", "\tmov.u32 %r1, %laneid.x;"),
			"k.ptx:10:15: error: special register %laneid has no component .x\n\tmov.u32 %r1, %laneid.x;\n\t             ^"},
		{"PTX version too old", strings.Replace(kernel("sm_70", "\tactivemask.b32 %r1;"), ".version 7.8", ".version 6.0", 1),
			"k.ptx:10:2: error: activemask requires PTX ISA 6.2 or later, but the module declares .version 6.0\n\tactivemask.b32 %r1;\n\t^"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("k.ptx", []byte(c.src))
			if err == nil {
				t.Fatalf("no error; want:\n%s", c.want)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T, want a non-empty ErrorList", err)
			}
			if got := list[0].Error(); got != c.want {
				t.Fatalf("diagnostic mismatch\n got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestValidSnippets guards the checker against false positives on forms
// real compilers emit.
func TestValidSnippets(t *testing.T) {
	src := kernel("sm_80",
		"\tld.param.u64 %rd1, [k_param_0];",
		"\tcvta.to.global.u64 %rd2, %rd1;",
		"\tmov.u32 %r1, %tid.x;",
		"\tsetp.ge.u32 %p0|%p1, %r1, 32;",
		"\tsetp.lt.and.s32 %p0, %r1, %r2, !%p1;",
		"\t@!%p0 bra.uni $L__BB0_2;",
		"\tld.shared.u32 %r2, [smem+4];",
		"\tst.global.v2.u32 [%rd2+8], {%r1, %r2};",
		"\tmov.b64 %rd3, {%r1, %r2};",
		"\tmov.u64 %rd3, smem;",
		"\tshfl.sync.bfly.b32 %r3|%p1, %r1, 16, 31, -1;",
		"\tatom.global.cas.b32 %r3, [%rd2], %r1, %r2;",
		"\tbar.sync 0;",
		"$L__BB0_2:",
		"\tmov.f32 %r1, 0f3F800000;",
		"\tadd.s32 %r1, %r1, WARP_SZ;",
		"\tmov.u64 %rd1, smem[5];",
		"\tld.global.u32 %r1, [%rd2].unified;",
		"\tvadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h1, %r0;",
	)
	m, err := Parse("ok.ptx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, "ok.ptx", m)
}

// TestErrorLimit checks that a file full of errors reports at most
// maxErrors diagnostics, sorted by position.
func TestErrorLimit(t *testing.T) {
	var body []string
	for i := 0; i < 50; i++ {
		body = append(body, "\tfrob %r1;")
	}
	_, err := Parse("k.ptx", []byte(kernel("sm_80", body...)))
	list, ok := err.(ErrorList)
	if !ok || len(list) != maxErrors {
		t.Fatalf("got %d diagnostics (%T), want %d", len(list), err, maxErrors)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Pos.Line <= list[i-1].Pos.Line {
			t.Fatalf("diagnostics out of order at %d", i)
		}
	}
}
