package lower

import (
	"strings"
	"testing"

	"orilab/pipeline/ptx"
)

// TestModuleScopeLocalIsUnsupported: a use of a module-scope .local
// variable (gpuocelot's synthetic sequence2.ptx takes its address) is an
// "unsupported:" error naming the variable, whether the address is taken
// or the variable is accessed directly.
func TestModuleScopeLocalIsUnsupported(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"mov.u32 %r1, %L1;\n\tst.local.u32 [%r1], %r1;", "m.ptx:8:15: error: unsupported: module-scope .local variable %L1"},
		{"mov.u32 %r1, 7;\n\tst.local.u32 [%L1], %r1;", "m.ptx:9:16: error: unsupported: module-scope .local variable %L1"},
	} {
		src := ".version 2.1\n.target sm_20\n.local .u32 %L1;\n.entry k\n{\n\t.reg .u32 %r<3>;\n\n\t" + tc.body + "\n\texit;\n}\n"
		pm, err := ptx.Parse("m.ptx", []byte(src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		_, err = Lower(pm, Options{})
		// The message's first line; the source line and a caret follow.
		if err == nil || strings.SplitN(err.Error(), "\n", 2)[0] != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}
