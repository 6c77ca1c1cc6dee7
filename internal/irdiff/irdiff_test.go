package irdiff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	a := "x\n#1 A ;\n#2 B ;\n#3 C ;\n#4 D ;\n#5 E ;\n#6 F ;\n#7 G ;\n#8 H ;\n#9 I ;\n"
	b := strings.Replace(a, "#2 B ;", "#2 B2 ;", 1)
	b = strings.Replace(b, "#9 I ;", "#9 I ;\n#10 J ;", 1)
	got := Unified(a, b, "before P", "after P", 1)
	want := "--- before P\n+++ after P\n@@ -2,3 +2,3 @@\n #1 A ;\n-#2 B ;\n+#2 B2 ;\n #3 C ;\n@@ -10,1 +10,2 @@\n #9 I ;\n+#10 J ;\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if d := Unified(a, a, "x", "y", 3); d != "--- x\n+++ y\n" {
		t.Fatalf("no change: %q", d)
	}
}

// TestAlignByID: an instruction a phase moved and rewrote pairs with its
// old self by its #ID, not with whatever line has the same text.
func TestAlignByID(t *testing.T) {
	before := []string{"BB0:", "\t#1 MOV %r1 = 0 ;", "\t#2 IADD3 %r2 = %r1, 1, RZ ;"}
	after := []string{"BB0:", "\t#2 IADD3 %r2 = %r1, 2, RZ ;", "\t#3 MOV %r1 = 0 ;"}
	ops := Align(before, after)
	var got []string
	for _, o := range ops {
		got = append(got, [...]string{"same", "changed", "removed", "added"}[o.Kind]+" "+o.Old+"|"+o.New)
	}
	want := []string{
		"same BB0:|BB0:",
		"removed \t#1 MOV %r1 = 0 ;|",
		"changed \t#2 IADD3 %r2 = %r1, 1, RZ ;|\t#2 IADD3 %r2 = %r1, 2, RZ ;",
		"added |\t#3 MOV %r1 = 0 ;",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAlignEmptySide: a listing compared with nothing is all added (or
// all removed), not an index out of range.
func TestAlignEmptySide(t *testing.T) {
	lines := []string{"\t#1 MOV %r0 = 0x1 ;", "\t#2 EXIT ;"}
	for _, c := range []struct {
		before, after []string
		kind          Kind
	}{{nil, lines, Added}, {lines, nil, Removed}} {
		ops := Align(c.before, c.after)
		if len(ops) != 2 || ops[0].Kind != c.kind || ops[1].Kind != c.kind {
			t.Errorf("Align(%d lines, %d lines) = %+v", len(c.before), len(c.after), ops)
		}
	}
	if ops := Align(nil, nil); len(ops) != 0 {
		t.Errorf("Align(nil, nil) = %+v", ops)
	}
}
