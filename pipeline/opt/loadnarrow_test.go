package opt

import (
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// narrowRun runs NarrowLoads on a kernel body and returns its text.
func narrowRun(t *testing.T, body string, settings ...string) (string, bool) {
	t.Helper()
	f, err := ori.ParseFunc("k.ori", []byte(loopKernel(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ComputeCFG(); err != nil {
		t.Fatal(err)
	}
	changed, err := NarrowLoads.Run(f, &Context{OptLevel: 3, Arch: 80, Knobs: loopKnobs(t, settings...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		t.Fatalf("output does not verify: %v\n%s", err, f)
	}
	return f.String(), changed
}

const narrowIn = `BB0:
	#1 MOV %r2 = c[0x0][0x160] ;
	#2 MOV %r2[1] = c[0x0][0x164] ;
	#3 LDG.E.128 %r8.128 = [%r2.64+0x10] ;
	#4 STG.E [%r2.64], %r8[3] ;
	#5 EXIT ;
`

func TestNarrowLoads(t *testing.T) {
	got, changed := narrowRun(t, narrowIn)
	want := loopCanon(t, loopKernel(`BB0:
	#1 MOV %r2 = c[0x0][0x160] ;
	#2 MOV %r2[1] = c[0x0][0x164] ;
	#3 LDG.E %r9 = [%r2.64+0x1c] ;
	#4 STG.E [%r2.64], %r9 ;
	#5 EXIT ;
`))
	if !changed || got != want {
		t.Fatalf("changed=%v\n%s\nwant\n%s", changed, got, want)
	}
	// An aligned pair of a quad: a 64-bit load, reads keep their word.
	pair := strings.Replace(narrowIn, "#4 STG.E [%r2.64], %r8[3] ;", "#4 STG.E [%r2.64], %r8[3] ;\n\t#6 STS [RZ], %r8[2] ;", 1)
	got, _ = narrowRun(t, pair)
	for _, w := range []string{"#3 LDG.E.64 %r9.64 = [%r2.64+0x18] ;", "#4 STG.E [%r2.64], %r9[1] ;", "#6 STS [RZ], %r9 ;"} {
		if !strings.Contains(got, w) {
			t.Errorf("pair: no %q in\n%s", w, got)
		}
	}
	// The size modifier stays where it was.
	got, _ = narrowRun(t, strings.Replace(pair, "LDG.E.128", "LDG.E.CONSTANT.128", 1))
	if w := "#3 LDG.E.CONSTANT.64 %r9.64 = [%r2.64+0x18] ;"; !strings.Contains(got, w) {
		t.Errorf("no %q in\n%s", w, got)
	}
	if _, changed := narrowRun(t, narrowIn, "DisableLoadNarrowing=1"); changed {
		t.Error("narrowed with DisableLoadNarrowing")
	}
}

func TestNarrowLoadsRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"two words not an aligned pair", "#4 STG.E [%r2.64], %r8[3] ;", "#4 STG.E [%r2.64], %r8[1] ;\n\t#6 STS [RZ], %r8[2] ;"},
		{"words 0 and 3", "#5 EXIT ;", "#6 STS [RZ], %r8 ;\n\t#5 EXIT ;"},
		{"strong load", "LDG.E.128", "LDG.E.STRONG.GPU.128"},
		{"result written elsewhere", "#5 EXIT ;", "#6 MOV %r8[1] = RZ ;\n\t#5 EXIT ;"},
		{"nothing read", "#4 STG.E [%r2.64], %r8[3] ;", "#4 STG.E [%r2.64], %r2 ;"},
		{"the whole quad read", "#4 STG.E [%r2.64], %r8[3] ;", "#4 STG.E.128 [%r2.64], %r8.128 ;"},
	} {
		in := strings.Replace(narrowIn, tc.from, tc.to, 1)
		if in == narrowIn {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if got, changed := narrowRun(t, in); changed {
			t.Errorf("%s: narrowed\n%s", tc.name, got)
		}
	}
}
