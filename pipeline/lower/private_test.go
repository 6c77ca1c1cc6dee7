package lower

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// TestPrivateReturnPair: a function every call reaches directly returns
// through R2:R3; a recursive one, one whose address is taken (mov, a
// .calltargets list) and a .weak one keep the ABI's
// R20:R21, at the callee's entry and at each call site.
func TestPrivateReturnPair(t *testing.T) {
	src := `.version 8.0
.target sm_80
.address_size 64
.func (.reg .b32 r) leaf(.reg .b32 a)
{
	add.s32 r, a, 1;
	ret;
}
.func (.reg .b32 r) mid(.reg .b32 a)
{
	call (r), leaf, (a);
	ret;
}
.func (.reg .b32 r) rec(.reg .b32 a)
{
	.reg .pred p;
	setp.eq.s32 p, a, 0;
	mov.b32 r, 0;
	@p ret;
	sub.s32 a, a, 1;
	call (r), rec2, (a);
	ret;
}
.func (.reg .b32 r) rec2(.reg .b32 a)
{
	call (r), rec, (a);
	ret;
}
.func (.reg .b32 r) byaddr(.reg .b32 a)
{
	mov.b32 r, a;
	ret;
}
.func (.reg .b32 r) intargets(.reg .b32 a)
{
	mov.b32 r, a;
	ret;
}
.weak .func (.reg .b32 r) weak(.reg .b32 a)
{
	mov.b32 r, a;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<9>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %tid.x;
	call (%r2), mid, (%r1);
	call (%r3), rec, (%r1);
	call (%r4), byaddr, (%r1);
	call (%r6), weak, (%r1);
	mov.u64 %rd1, byaddr;
$L_targets: .calltargets intargets;
	call (%r7), %rd1, (%r1), $L_targets;
	call (%r8), intargets, (%r1);
	ret;
}
`
	m := lowerFile(t, "private.ptx", []byte(src))
	want := map[string]int32{"leaf": 2, "mid": 2, "rec": 0, "rec2": 0, "byaddr": 0, "intargets": 0, "weak": 0}
	for _, f := range m.Funcs {
		if w, ok := want[f.Name]; ok && f.RetAddr != w {
			t.Errorf("%s: RetAddr R%d, want R%d (0: the ABI's R20)", f.Name, f.RetAddr, w)
		}
	}
	// Each call site loads the return point into its callee's pair.
	var got []string
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for i, in := range b.Insts {
				if in.Op != ori.OpCALL || i < 2 {
					continue
				}
				mv := b.Insts[i-2]
				if mv.Op != ori.OpMOV || !mv.Srcs[0].IsRetAddr() {
					t.Fatalf("%s: the instruction two before %s is %s, want the return point's MOV", f.Name, in, mv)
				}
				got = append(got, fmt.Sprintf("%s->%s:R%d", f.Name, in.Srcs[0], mv.Dsts[0].Reg.N))
			}
		}
	}
	const wantCalls = "mid->`leaf`:R2 rec->`rec2`:R20 rec2->`rec`:R20 k->`mid`:R2 k->`rec`:R20 k->`byaddr`:R20 k->`weak`:R20 k->%r6.64:R20 k->`intargets`:R20"
	if g := strings.Join(got, " "); g != wantCalls {
		t.Errorf("call sites:\n got %s\nwant %s", g, wantCalls)
	}
	if !strings.Contains(m.Func("leaf").String(), ".retaddr R2\n") {
		t.Errorf("leaf's header does not name its pair:\n%s", m.Func("leaf"))
	}
}
