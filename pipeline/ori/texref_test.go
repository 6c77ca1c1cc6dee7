package ori

import (
	"strings"
	"testing"
)

// TestTexRefRoundTrip: a kernel's .texref header words print as
// ".texref NAME offset=..." and parse back; a texture instruction keeps
// its dimension word as its last modifier.
func TestTexRefRoundTrip(t *testing.T) {
	src := `.module sm_80 address_size=64

.entry k
.param out offset=0x160 size=0x8 align=0x8
.texref tB offset=0x168
.texref tA offset=0x16c
.shared 0x0
.local 0x0
{
BB0:
	#1 TEX.SCR.LL.2D %r0.64, %r2.64 = %r4.64, %r6, 0x0, 0x5a ;
	#2 EXIT ;
}
`
	m, err := ParseModule("t.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if len(f.TexRefs) != 2 || f.TexRefs[0] != (TexRef{Name: "tB", Offset: 0x168}) || f.TexRefs[1] != (TexRef{Name: "tA", Offset: 0x16c}) {
		t.Fatalf("TexRefs = %+v", f.TexRefs)
	}
	out := m.String()
	for _, want := range []string{".texref tB offset=0x168\n.texref tA offset=0x16c\n", "TEX.SCR.LL.2D %r0.64, %r2.64 = %r4.64, %r6, 0x0, 0x5a ;"} {
		if !strings.Contains(out, want) {
			t.Errorf("printed module lacks %q:\n%s", want, out)
		}
	}
	if c := f.Clone(); &c.TexRefs[0] == &f.TexRefs[0] {
		t.Error("Clone shares the TexRefs array")
	}
	if _, err := ParseModule("t.ori", []byte(strings.Replace(src, "offset=0x168", "ofset=0x168", 1))); err == nil {
		t.Error("a .texref without offset parsed")
	}
}

// TestTexVarRoundTrip: the module's .texref and .surfref variables print
// as ".texref NAME" and ".surfref NAME" before the functions and parse
// back in order, with their kind; a malformed one is an error naming its
// line.
func TestTexVarRoundTrip(t *testing.T) {
	src := `.module sm_80 address_size=64
.global g size=0x4 align=0x4 slot=0x0
.texref tA
.surfref sB
.texref tC

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 EXIT ;
}
`
	m, err := ParseModule("t.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []TexVar{{Name: "tA"}, {Name: "sB", Surface: true}, {Name: "tC"}}
	if len(m.TexVars) != len(want) {
		t.Fatalf("TexVars = %+v, want %+v", m.TexVars, want)
	}
	for i := range want {
		if m.TexVars[i] != want[i] {
			t.Errorf("TexVars[%d] = %+v, want %+v", i, m.TexVars[i], want[i])
		}
	}
	if out := m.String(); !strings.Contains(out, "slot=0x0\n.texref tA\n.surfref sB\n.texref tC\n") {
		t.Errorf("printed module:\n%s", out)
	}
	if c := m.Clone(); &c.TexVars[0] == &m.TexVars[0] {
		t.Error("Clone shares the TexVars array")
	}
	_, err = ParseModule("t.ori", []byte(strings.Replace(src, ".surfref sB", ".surfref sB x=1", 1)))
	if err == nil || !strings.Contains(err.Error(), "t.ori:4:") || !strings.Contains(err.Error(), `expected ".surfref NAME"`) {
		t.Errorf("malformed .surfref: %v", err)
	}
}
