package lower

import (
	"regexp"
	"strings"
	"testing"

	"orilab/pipeline/ptx"
)

// cpAsyncKernel wraps statements in an sm_80 kernel with a shared buffer,
// a global address %g, a size %n and a predicate %p.
func cpAsyncKernel(stmts string) string {
	return `.version 7.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u32 n)
{
	.shared .align 16 .b8 buf[64];
	.reg .b32 %n, %d;
	.reg .b64 %g, %pol;
	.reg .pred %p;
	ld.param.u64 %g, [in];
	ld.param.u32 %n, [n];
	mov.u32 %d, buf;
	setp.eq.u32 %p, %n, 3;
` + stmts + `
	ret;
}
`
}

// lowerCpAsync lowers src with CpAsyncLDGSTS and returns the text of its
// instructions after the prologue's setp, without IDs, line comments
// and the final EXIT, or the error.
func lowerCpAsync(t *testing.T, src string) (string, error) {
	t.Helper()
	pm, err := ptx.Parse("k.ptx", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	m, err := Lower(pm, Options{CpAsyncLDGSTS: true})
	if err != nil {
		return "", err
	}
	text := m.Funcs[0].String()
	_, after, ok := strings.Cut(text, "ISETP.EQ.U32.AND")
	if !ok {
		t.Fatalf("no setp in\n%s", text)
	}
	_, after, _ = strings.Cut(after, "\n")
	var out []string
	for _, l := range strings.Split(after, "\n") {
		l = strings.TrimSpace(cpLineNo.ReplaceAllString(cpID.ReplaceAllString(l, ""), ""))
		if l == "" || l == "}" || l == "EXIT" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), nil
}

var (
	cpID     = regexp.MustCompile(`#\d+ `)
	cpLineNo = regexp.MustCompile(` ; line \d+`)
)

// TestCpAsyncLowering: each form of cp.async as lower/cpasync.go writes
// it (ptxas's forms, listed there), and the errors of the malformed ones.
func TestCpAsyncLowering(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{"cp.async.cg.shared.global [%d], [%g], 16;", "LDGSTS.E.BYPASS.128 [%r1], [%r2.64] ;"},
		{"cp.async.ca.shared.global [%d+4], [%g+8], 4;", "LDGSTS.E [%r1+0x4], [%r2.64+0x8] ;"},
		// A constant src-size: the zero-fill count in the offset.
		{"cp.async.ca.shared.global [%d], [%g], 16, 12;", "LDGSTS.E.128.ZFILL [%r1], [%r2.64+0x4] ;"},
		{"cp.async.ca.shared.global [%d], [%g], 8, 0;", "LDGSTS.E.64 [%r1], [%r2.64], !PT ;"},
		{"cp.async.ca.shared.global [%d], [%g], 8, 8;", "LDGSTS.E.64 [%r1], [%r2.64] ;"},
		// A register src-size: (cp - n) & (cp - 1) added to the address.
		{"cp.async.ca.shared.global [%d], [%g], 8, %n;", `IADD3 %r5 = -%r0, 0x8, RZ ;
LOP3.LUT %r5 = %r5, 0x7, RZ, 0xc0, PT ;
IADD3 %r6, %p1 = %r2, %r5, RZ ;
IADD3.X %r6[1] = %r2[1], RZ, RZ, %p1, !PT ;
ISETP.NE.U32.AND %p2, PT = %r0, RZ, PT ;
LDGSTS.E.64.ZFILL [%r1], [%r6.64], %p2 ;`},
		// ignore-src: read the source when the predicate is false; the
		// instruction's guard stays on it.
		{"@%p cp.async.ca.shared.global [%d+16], [%g], 8, %p;", "@%p0 LDGSTS.E.64 [%r1+0x10], [%r2.64], !%p0 ;"},
		{"cp.async.ca.shared.global [%d], [%g], 8, !%p;", "LDGSTS.E.64 [%r1], [%r2.64], %p0 ;"},
		// The cache policy is a hint, not a src-size.
		{"cp.async.cg.shared.global.L2::cache_hint [%d], [%g], 16, %pol;", "LDGSTS.E.BYPASS.128 [%r1], [%r2.64] ;"},
		// An offset beyond LDGSTS's 12 bits goes into the address.
		{"cp.async.ca.shared.global [%d], [%g+4096], 4;", `IADD3 %r5, %p1 = %r2, 0x1000, RZ ;
IADD3.X %r5[1] = %r2[1], RZ, RZ, %p1, !PT ;
LDGSTS.E [%r1], [%r5.64] ;`},
		{"cp.async.commit_group;", "LDGDEPBAR ;"},
		{"cp.async.wait_group 1;", "DEPBAR.LE 0x0, 0x1 ;"},
		{"cp.async.wait_group 70;", "DEPBAR.LE 0x0, 0x3f ;"},
		{"cp.async.wait_all;", "LDGDEPBAR ;\nDEPBAR.LE 0x0, 0x0 ;"},
	} {
		got, err := lowerCpAsync(t, cpAsyncKernel("\t"+tc.stmt))
		if err != nil {
			t.Errorf("%s: %v", tc.stmt, err)
			continue
		}
		if want := strings.ReplaceAll(tc.want, " ;", ""); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.stmt, got, tc.want)
		}
	}
	for _, tc := range []struct{ stmt, want string }{
		{"cp.async.ca.shared.global [%d], [%g], 12;", "cp.async copies 4, 8 or 16 bytes"},
	} {
		_, err := lowerCpAsync(t, cpAsyncKernel("\t"+tc.stmt))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.stmt, err, tc.want)
		}
	}
}
