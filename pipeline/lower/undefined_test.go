package lower

import (
	"reflect"
	"testing"

	"orilab/pipeline/ptx"
)

// TestUndefinedReadsReported: Options.UndefinedReads names, by their PTX
// names, the registers read before being written on some path (%r2 only
// on the path that skips its definition; %p2 and the range member %x1
// on every path), and not the ones every path defines first.
func TestUndefinedReadsReported(t *testing.T) {
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .pred %p<3>;
	.reg .b64 %rd<2>;
	.reg .b32 %x<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra SKIP;
	mov.u32 %r2, 7;
SKIP:
	add.u32 %r3, %r2, %x1;
	selp.u32 %r3, %r3, 1, %p2;
	st.global.u32 [%rd1], %r3;
	ret;
}
`
	pm, err := ptx.Parse("k.ptx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	_, err = Lower(pm, Options{UndefinedReads: func(fn string, regs []string) { got[fn] = regs }})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"k": {"%r2", "%x1", "%p2"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("undefined reads = %v, want %v", got, want)
	}
}
