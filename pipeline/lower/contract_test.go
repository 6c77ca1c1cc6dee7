package lower

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"orilab/pipeline/ptx"
)

// contractKernel wraps body in a kernel with f32 (or f64 with "fd")
// registers %a %b %c %d %x1 %x2 %x3 loaded from parameters, a pointer %p
// and predicates %q, %q2.
func contractKernel(ty, body string) string {
	return fmt.Sprintf(`.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pp, .param %[2]s pa, .param %[2]s pb, .param %[2]s pc, .param %[2]s pd)
{
	.reg %[2]s %%a, %%b, %%c, %%d, %%x1, %%x2, %%x3;
	.reg .u64 %%p;
	.reg .pred %%q, %%q2;
	ld.param.u64 %%p, [pp];
	ld.param%[2]s %%a, [pa];
	ld.param%[2]s %%b, [pb];
	ld.param%[2]s %%c, [pc];
	ld.param%[2]s %%d, [pd];
	setp.gt%[3]s %%q, %%d, %%c;
	%[4]s
	ret;
}
`, ty, map[string]string{".f32": ".f32", ".f64": ".f64", ".f16": ".b16", ".f16x2": ".b32", ".bf16": ".b16"}[ty],
		map[string]string{".f32": ".f32", ".f64": ".f64", ".f16": ".f16", ".f16x2": ".u32", ".bf16": ".bf16"}[ty], body)
}

var arithOps = regexp.MustCompile(`\b(FFMA|FMUL|FADD|DFMA|DMUL|DADD|HFMA2|HMUL2|HADD2)(\.[A-Z0-9_]+)*`)

// TestContraction checks which mul+add pairs the lowering fuses: the
// cases measured on ptxas 13.0 -O3 (contract.go lists them), and the
// cases where the PTX text, not being SSA, makes the fold unsafe.
func TestContraction(t *testing.T) {
	for _, c := range []struct {
		name, ty, body string
		want           string // the arithmetic opcodes, in order
	}{
		{"plain", ".f32", "mul.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FFMA"},
		{"product second", ".f32", "mul.f32 %x1, %a, %b; add.f32 %x2, %c, %x1; st.global.f32 [%p], %x2;", "FFMA"},
		{"ftz both", ".f32", "mul.ftz.f32 %x1, %a, %b; add.ftz.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FFMA.FTZ"},
		{"ftz mul only", ".f32", "mul.ftz.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL.FTZ FADD"},
		{"ftz add only", ".f32", "mul.f32 %x1, %a, %b; add.ftz.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD.FTZ"},
		{"sat add", ".f32", "mul.f32 %x1, %a, %b; add.sat.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FFMA.SAT"},
		{"sat mul", ".f32", "mul.sat.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL.SAT FADD"},
		{"rn mul", ".f32", "mul.rn.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"rn add", ".f32", "mul.f32 %x1, %a, %b; add.rn.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"rz add", ".f32", "mul.f32 %x1, %a, %b; add.rz.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD.RZ"},
		{"two adds", ".f32", "mul.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; add.f32 %x3, %x1, %d; st.global.f32 [%p], %x2; st.global.f32 [%p+4], %x3;", "FFMA FFMA"},
		{"product stored", ".f32", "mul.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2; st.global.f32 [%p+4], %x1;", "FMUL FADD"},
		{"p+p", ".f32", "mul.f32 %x1, %a, %b; add.f32 %x2, %x1, %x1; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"two products", ".f32", "mul.f32 %x1, %a, %b; mul.f32 %x3, %c, %d; add.f32 %x2, %x1, %x3; st.global.f32 [%p], %x2;", "FMUL FFMA"},
		{"first product kept", ".f32", "mul.f32 %x1, %a, %b; mul.f32 %x3, %c, %d; add.f32 %x2, %x1, %x3; st.global.f32 [%p], %x2; st.global.f32 [%p+4], %x1;", "FMUL FFMA"},
		{"other block", ".f32", "mul.f32 %x1, %a, %b; @%q bra L1; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2; L1:", "FFMA"},
		{"guarded add", ".f32", "mul.f32 %x1, %a, %b; @%q add.f32 %x1, %x1, %c; st.global.f32 [%p], %x1;", "FMUL FADD"},
		{"guarded add, own result", ".f32", "mul.f32 %x1, %a, %b; @%q add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FFMA"},
		{"guarded mul", ".f32", "@%q mul.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"sub p-c", ".f32", "mul.f32 %x1, %a, %b; sub.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FFMA"},
		{"sub c-p", ".f32", "mul.f32 %x1, %a, %b; sub.f32 %x2, %c, %x1; st.global.f32 [%p], %x2;", "FFMA"},
		{"source redefined", ".f32", "mul.f32 %x1, %a, %b; mov.f32 %a, %d; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"source redefined on a path", ".f32", "mul.f32 %x1, %a, %b; @%q bra L1; mov.f32 %b, %d; L1: add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"source redefined in the loop", ".f32", "L0: mul.f32 %x1, %a, %b; mov.f32 %a, %d; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2; @%q bra L0;", "FMUL FADD"},
		{"add before mul in the text", ".f32", "bra L1; L0: add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2; ret; L1: mul.f32 %x1, %a, %b; bra L0;", "FADD FMUL"},
		{"product undefined on a path", ".f32", "@%q bra L1; mul.f32 %x1, %a, %b; L1: add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"nested block redeclares", ".f32", "mul.f32 %x1, %a, %b; { .reg .f32 %a; mov.f32 %a, %d; add.f32 %x2, %x1, %c; } st.global.f32 [%p], %x2;", "FMUL FADD"},
		{"f64", ".f64", "mul.f64 %x1, %a, %b; add.f64 %x2, %x1, %c; st.global.f64 [%p], %x2;", "DFMA"},
		{"f64 rn", ".f64", "mul.rn.f64 %x1, %a, %b; add.f64 %x2, %x1, %c; st.global.f64 [%p], %x2;", "DMUL DADD"},
		{"f16", ".f16", "mul.f16 %x1, %a, %b; add.f16 %x2, %x1, %c; st.global.b16 [%p], %x2;", "HFMA2"},
		{"f16 ftz sat", ".f16", "mul.ftz.f16 %x1, %a, %b; add.ftz.sat.f16 %x2, %x1, %c; st.global.b16 [%p], %x2;", "HFMA2.FTZ.SAT"},
		{"f16x2", ".f16x2", "mul.f16x2 %x1, %a, %b; sub.f16x2 %x2, %c, %x1; st.global.b32 [%p], %x2;", "HFMA2"},
		{"bf16", ".bf16", "mul.bf16 %x1, %a, %b; add.bf16 %x2, %x1, %c; st.global.b16 [%p], %x2;", "HFMA2.BF16_V2"},
	} {
		src := contractKernel(c.ty, c.body)
		m := lowerFile(t, c.name+".ptx", []byte(src))
		got := strings.Join(arithOps.FindAllString(m.String(), -1), " ")
		if got != c.want {
			t.Errorf("%s: %s, want %s\n%s", c.name, got, c.want, m)
		}
	}
}

// TestContractionOperands checks the fused instruction's operands: the
// negation a sub needs, and the guard of the add.
func TestContractionOperands(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"p-c", "mul.f32 %x1, %a, %b; sub.f32 %x2, %x1, %c;", `FFMA %r\d+ = %r0, %r1, -%r2 `},
		{"c-p", "mul.f32 %x1, %a, %b; sub.f32 %x2, %c, %x1;", `FFMA %r\d+ = -%r0, %r1, %r2 `},
		{"guarded", "mul.f32 %x1, %a, %b; @!%q add.f32 %x2, %x1, %c;", `@!%p0 FFMA %r\d+ = %r0, %r1, %r2 `},
	} {
		src := contractKernel(".f32", c.body+" st.global.f32 [%p], %x2;")
		m := lowerFile(t, c.name+".ptx", []byte(src))
		if !regexp.MustCompile(c.want).MatchString(m.String()) {
			t.Errorf("%s: no match for %s in\n%s", c.name, c.want, m)
		}
	}
}

// TestNoContract: Options.NoContract (--fmad=false) keeps them apart.
func TestNoContract(t *testing.T) {
	src := contractKernel(".f32", "mul.f32 %x1, %a, %b; add.f32 %x2, %x1, %c; st.global.f32 [%p], %x2;")
	pm, err := ptx.Parse("k.ptx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lower(pm, Options{NoContract: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(arithOps.FindAllString(m.String(), -1), " "); got != "FMUL FADD" {
		t.Errorf("NoContract: %s, want FMUL FADD\n%s", got, m)
	}
}
