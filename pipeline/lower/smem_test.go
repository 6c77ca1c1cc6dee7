package lower

import (
	"regexp"
	"strings"
	"testing"

	"orilab/pipeline/ptx"
)

// TestSharedUsage checks ptxas's smem accounting: a kernel is charged for
// the shared variables it or its callees name, with their alignment, and
// not for the rest of the module's, nor for dynamic shared memory.
func TestSharedUsage(t *testing.T) {
	src := `.version 7.0
.target sm_80
.address_size 64
.shared .align 4 .b8 big[4096];
.shared .align 8 .b8 tile[100];
.extern .shared .align 16 .b8 dyn[];
.func helper()
{
	.reg .u32 %r<2>;
	mov.u32 %r1, tile;
	ret;
}
.visible .entry uses_big()
{
	.reg .u32 %r<2>;
	mov.u32 %r1, big;
	ret;
}
.visible .entry uses_both()
{
	.reg .u32 %r<2>;
	.shared .align 4 .b8 own[12];
	mov.u32 %r1, big;
	st.shared.u32 [own+4], %r1;
	call helper;
	ret;
}
.visible .entry uses_none()
{
	.reg .u32 %r<2>;
	.shared .align 4 .b8 unused[60];
	mov.u32 %r1, dyn;
	ret;
}
`
	m, err := ptx.Parse("smem.ptx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := SharedUsage(m)
	// uses_both: its own 12 bytes, big aligned to 4 (12 + 4096), tile
	// aligned to 8 (4112 + 100), rounded up to 16 as the module declares
	// a dynamic array. uses_none: its own unused 60 bytes, rounded up.
	want := map[string]int64{"uses_big": 4096, "uses_both": 4224, "uses_none": 64}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d bytes, want %d", k, got[k], n)
		}
	}
}

// TestSharedLayoutSM90 checks ptxas's sm_90 shared layout and address
// sequence: variables from 0x400 (the system's KB first), dynamic shared
// memory 16-aligned after them, the address of a variable as MOV, S2R
// SR_CgaCtaId and LEA by 24 (the CTA's rank in its cluster in bits
// 24-31), direct accesses at their absolute offsets; sm_80 keeps the
// layout from 0 and the plain MOV.
func TestSharedLayoutSM90(t *testing.T) {
	src := `.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 p)
{
	.shared .align 4 .b32 s[32];
	.shared .align 8 .b64 t[4];
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, t;
	mov.u32 %r3, dyn;
	st.shared.u32 [s+4], %r1;
	st.shared.u32 [%r2+8], %r1;
	st.shared.u32 [%r3], %r1;
	ret;
}
`
	// seq is the address sequence of a variable at off on sm_90 (Go's
	// regexps have no back references: the registers are compared
	// below).
	seq := func(off string) string {
		return `MOV (%r\d+) = ` + off + ` ;.*\n.*S2R (%r\d+) = SR_CgaCtaId ;.*\n.*LEA %r\d+ = (%r\d+), (%r\d+), 0x18 ;`
	}
	cases := []struct {
		arch int
		want []string // regular expressions
	}{
		{80, []string{
			`\.shared_var k\.s offset=0x0 size=0x80`, `\.shared_var k\.t offset=0x80 size=0x20`, `\.shared 0xa0\n`,
			`MOV %r\d+ = 0x80 ;`, `MOV %r\d+ = 0xa0 ;`, `STS \[0x4\], %r\d+ ;`}},
		{90, []string{
			`\.shared_var k\.s offset=0x400 size=0x80`, `\.shared_var k\.t offset=0x480 size=0x20`, `\.shared 0x4a0\n`,
			seq("0x480"), seq("0x4a0"), `STS \[0x404\], %r\d+ ;`}},
	}
	for _, c := range cases {
		pm, err := ptx.Parse("smem90.ptx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Lower(pm, Options{Arch: c.arch})
		if err != nil {
			t.Fatalf("sm_%d: %v", c.arch, err)
		}
		text := m.Funcs[0].String()
		for _, w := range c.want {
			sub := regexp.MustCompile(w).FindStringSubmatch(text)
			if sub == nil || len(sub) == 5 && (sub[3] != sub[2] || sub[4] != sub[1]) {
				t.Errorf("sm_%d: no %s in\n%s", c.arch, w, text)
			}
		}
		if c.arch == 80 && strings.Contains(text, "SR_CgaCtaId") {
			t.Errorf("sm_80 reads SR_CgaCtaId:\n%s", text)
		}
	}
}

// TestSharedLayoutSM90WithoutShared: a module without shared memory gets
// no window on sm_90 either (nothing to reserve the KB for).
func TestSharedLayoutSM90WithoutShared(t *testing.T) {
	pm, err := ptx.Parse("none.ptx", []byte(`.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
	ret;
}
`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lower(pm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Funcs[0].SharedBytes; n != 0 {
		t.Errorf("SharedBytes = %#x, want 0", n)
	}
}
