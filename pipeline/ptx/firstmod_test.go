package ptx

import "testing"

// firstMod answers with the list's order, not the instruction's, and
// matches whole words only (.param is not .param::entry).
func TestFirstMod(t *testing.T) {
	cases := []struct {
		mods []string
		list string
		want string
	}{
		{[]string{".ftz", ".rn"}, ".rn .rz .rm .rp .ftz .approx", ".rn"},
		{[]string{".approx"}, ".rn .rz .rm .rp .ftz .approx .full", ".approx"},
		{[]string{".param::entry"}, ".param .shared", ""},
		{[]string{".param"}, ".param::entry .param", ".param"},
		{[]string{".r"}, ".rn .rz", ""},
		{nil, ".rn", ""},
		{[]string{"", ".lo"}, ".hi .lo .wide", ".lo"},
	}
	for _, c := range cases {
		if got := firstMod(&Instr{Mods: c.mods}, c.list); got != c.want {
			t.Errorf("firstMod(%q, %q) = %q, want %q", c.mods, c.list, got, c.want)
		}
	}
}
