package lower

import (
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
