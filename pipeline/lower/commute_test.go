package lower

import (
	"regexp"
	"strings"
	"testing"
)

// The operands of a commutative f64 instruction are ordered as ptxas -O3
// orders them (commute.go): the earlier-defined value first, a kernel
// parameter or constant second, and the PTX order where a value has more
// than one reaching definition. Each case loads A from in+0 and B from
// in+8 (B first when bFirst) and names the load expected in the first
// SASS operand slot.
func TestF64CommuteOrder(t *testing.T) {
	for _, c := range []struct {
		name, pre, body, first string
		bFirst                 bool
	}{
		{"mul-ptx-order-later-first", "", "mul.rz.f64 %fd3, %fd2, %fd1;", "A", false},
		{"mul-already-ordered", "", "mul.rz.f64 %fd3, %fd1, %fd2;", "A", false},
		{"mul-loaded-the-other-way", "", "mul.rz.f64 %fd3, %fd1, %fd2;", "B", true},
		{"add", "", "add.f64 %fd3, %fd2, %fd1;", "A", false},
		{"fma", "", "fma.rn.f64 %fd3, %fd2, %fd1, %fd1;", "A", false},
		{"two-defs-keep-ptx-order", "", "@%p1 ld.global.f64 %fd1, [%rd2+16];\n\tmul.rz.f64 %fd3, %fd2, %fd1;", "B", false},
		// Read before the loads, the parameter still goes second.
		{"param-second", "ld.param.f64 %fd4, [q];", "mul.rz.f64 %fd3, %fd4, %fd1;", "A", false},
	} {
		loads := "ld.global.f64 %fd1, [%rd2];\n\tld.global.f64 %fd2, [%rd2+8];"
		if c.bFirst {
			loads = "ld.global.f64 %fd2, [%rd2+8];\n\tld.global.f64 %fd1, [%rd2];"
		}
		src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .f64 q, .param .u32 v)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<2>;
	.reg .f64 %fd<5>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [v];
	setp.ne.u32 %p1, %r1, 3;
	` + c.pre + `
	` + loads + `
	` + c.body + `
	st.global.f64 [%rd1], %fd3;
	ret;
}
`
		m := lowerFile(t, c.name+".ptx", []byte(src))
		text := m.String()
		reg := map[string]string{}
		for _, mm := range regexp.MustCompile(`LDG\.E\.64 (%r\d+)\.64 = \[%r\d+\.64(\+0x8)?\]`).FindAllStringSubmatch(text, -1) {
			if mm[2] == "" {
				reg["A"] = mm[1]
			} else {
				reg["B"] = mm[1]
			}
		}
		op := regexp.MustCompile(`D(MUL|ADD|FMA)[.A-Z]* %r\d+\.64 = (%r\d+)\.64`).FindStringSubmatch(text)
		if op == nil || reg[c.first] == "" {
			t.Errorf("%s: no f64 instruction or load found\n%s", c.name, text)
			continue
		}
		if op[2] != reg[c.first] {
			t.Errorf("%s: first operand %s, want %s (%s)\n%s", c.name, op[2], reg[c.first], c.first, strings.TrimSpace(text))
		}
	}
}
