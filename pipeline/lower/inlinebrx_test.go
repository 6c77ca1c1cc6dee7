package lower

import (
	"slices"
	"strings"
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// TestInlineBRXFuncs: a .func holding brx.idx is inlined at each direct
// call whose arguments are .param variables and dropped (as is one that
// nothing calls); one whose address is taken, a recursive one and one
// reached by a guarded call keep their CALL and their own function. The
// parsed module is not changed.
func TestInlineBRXFuncs(t *testing.T) {
	body := func(name, extra string) string {
		return `.func (.param .b32 res) ` + name + `(.param .b32 i)
{
	.reg .b32 %r<4>;
	ld.param.b32 %r1, [i];
	ts: .branchtargets L0, L1;
	brx.idx %r1, ts;
L0:
	mov.u32 %r2, 5;
	bra.uni D;
L1:
	mov.u32 %r2, 9;
D:
` + extra + `	st.param.b32 [res], %r2;
	ret;
}
`
	}
	call := func(guard, name string) string {
		return `	{
	.param .b32 a;
	.param .b32 r;
	st.param.b32 [a], %r1;
	` + guard + `call (r), ` + name + `, (a);
	ld.param.b32 %r2, [r];
	}
`
	}
	src := `.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 res) rec(.param .b32 i);
` + body("inl", "") + body("unused", "") + body("taken", "") +
		body("rec", "\t{\n\t.param .b32 a;\n\t.param .b32 r;\n\tst.param.b32 [a], %r2;\n\tcall (r), rec, (a);\n\t}\n") +
		body("guarded", "") + `
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p;
	mov.u32 %r1, %tid.x;
	and.b32 %r1, %r1, 1;
	setp.eq.u32 %p, %r1, 0;
	mov.u64 %rd1, taken;
` + call("", "inl") + call("", "inl") + call("", "taken") + call("", "rec") + call("@%p ", "guarded") + `	ret;
}
`
	pm, err := ptx.Parse("k.ptx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	before := len(pm.Items)
	m, err := Lower(pm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pm.Items) != before || pm.Func("inl") == nil || pm.Func("unused") == nil {
		t.Fatal("Lower changed the parsed module")
	}
	var names []string
	for _, f := range m.Funcs {
		names = append(names, f.Name)
	}
	if want := []string{"taken", "rec", "guarded", "k"}; !slices.Equal(names, want) {
		t.Fatalf("functions %v, want %v", names, want)
	}
	k := m.Func("k")
	var brx, calls []string
	for _, b := range k.Blocks {
		for _, in := range b.Insts {
			switch in.Op {
			case ori.OpBRX:
				brx = append(brx, in.String())
			case ori.OpCALL:
				calls = append(calls, in.String())
			}
		}
	}
	if len(brx) != 2 {
		t.Errorf("k has %d BRX, want 2 (one per inlined call):\n%s", len(brx), strings.Join(brx, "\n"))
	}
	if len(calls) != 3 || !strings.Contains(calls[0], "taken") || !strings.Contains(calls[1], "rec") || !strings.Contains(calls[2], "guarded") {
		t.Errorf("k's calls:\n%s\nwant taken, rec and guarded", strings.Join(calls, "\n"))
	}
}
