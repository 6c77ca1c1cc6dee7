package faultinject

import (
	"os"
	"strings"
	"testing"

	"orilab/pipeline/lower"
	"orilab/pipeline/ptx"
)

// TestRejectsLoweredPTX injects into a real kernel straight out of the
// lowering: its virtual registers make Inject refuse, naming the first
// instruction that has one, instead of corrupting pre-allocation code.
func TestRejectsLoweredPTX(t *testing.T) {
	src, err := os.ReadFile("../testdata/kernels/iadd.ptx")
	if err != nil {
		t.Fatal(err)
	}
	pm, err := ptx.Parse("iadd.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Lower(pm, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := ParseSpec("1,0,0,0 0 0")
	_, err = Inject(m, sp, 1, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "faultinject: "+m.Funcs[0].Name+" BB0 #") ||
		!strings.HasSuffix(err.Error(), ": faults are injected into post-register-allocation code only") {
		t.Fatalf("got %v", err)
	}
}
