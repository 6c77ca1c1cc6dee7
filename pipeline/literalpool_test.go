package pipeline

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
)

// TestLiteralPoolIR: on sm_80 the f64 constants no instruction word can
// hold go into the kernel's literal pool, c[0x2][], once each, in order
// of first use; 1.0 (low word zero) stays an immediate; of a DFMA's two
// constants the multiplier goes into registers and the addend into the
// pool, as ptxas 13.0 compiles them. On sm_90 there is no pool (ptxas
// loads the constants into registers there too). The IR parses back
// with its pool, and encodes.
func TestLiteralPoolIR(t *testing.T) {
	src := `.module sm_%d address_size=64

.entry k
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 DMUL R4.64 = R2.64, 0d3FB999999999999A ;
	#3 DADD R4.64 = R4.64, 0d3FF0000000000000 ;
	#4 DFMA R4.64 = R4.64, R2.64, 0d400921FB54442D18 ;
	#5 DADD R4.64 = R4.64, 0d3FB999999999999A ;
	#6 DFMA R4.64 = R4.64, 0d3FE0000000000001, 0d400921FB54442D18 ;
	#7 EXIT ;
}
`
	for _, c := range []struct {
		arch     int
		want     string
		literals []uint64
	}{
		{80, `	#1 MOV R1 = c[0x0][0x28]
	#2 DMUL R4.64 = R2.64, c[0x2][0x0]
	#3 DADD R4.64 = R4.64, 0d3FF0000000000000
	#4 DFMA R4.64 = R4.64, R2.64, c[0x2][0x8]
	#5 DADD R4.64 = R4.64, c[0x2][0x0]
	#8 MOV R2 = 0x1
	#9 MOV R3 = 0x3fe00000
	#6 DFMA R4.64 = R4.64, R2.64, c[0x2][0x8]
	#7 EXIT
`, []uint64{0x3FB999999999999A, 0x400921FB54442D18}},
		{90, `	#1 MOV R1 = c[0x0][0x28]
	#8 MOV R6 = -0x66666666
	#9 MOV R7 = 0x3fb99999
	#2 DMUL R4.64 = R2.64, R6.64
	#3 DADD R4.64 = R4.64, 0d3FF0000000000000
	#10 MOV R6 = 0x54442d18
	#11 MOV R7 = 0x400921fb
	#4 DFMA R4.64 = R4.64, R2.64, R6.64
	#12 MOV R2 = -0x66666666
	#13 MOV R3 = 0x3fb99999
	#5 DADD R4.64 = R4.64, R2.64
	#14 MOV R2 = 0x1
	#15 MOV R3 = 0x3fe00000
	#16 MOV R6 = 0x54442d18
	#17 MOV R7 = 0x400921fb
	#6 DFMA R4.64 = R4.64, R2.64, R6.64
	#7 EXIT
`, nil},
	} {
		m, err := ori.ParseModule("k.ori", []byte(strings.Replace(src, "%d", strconv.Itoa(c.arch), 1)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Funcs {
			if err := f.ComputeCFG(); err != nil {
				t.Fatal(err)
			}
		}
		ctx := &PhaseContext{Module: m, Arch: c.arch, Backend: &Backend{}}
		if err := postFixForMercTargets(ctx); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, in := range m.Funcs[0].Blocks[0].Insts {
			got.WriteString("\t" + strings.SplitN(in.String(), " ;", 2)[0] + "\n")
		}
		if got.String() != c.want {
			t.Errorf("sm_%d: got\n%s\nwant\n%s", c.arch, got.String(), c.want)
		}
		if lits := m.Funcs[0].Literals; len(lits) != len(c.literals) || len(lits) > 0 && (lits[0] != c.literals[0] || lits[1] != c.literals[1]) {
			t.Errorf("sm_%d: literal pool %#x, want %#x", c.arch, lits, c.literals)
		}
		if _, err := encodeModule(m, c.arch); err != nil {
			t.Errorf("sm_%d: the legalized code does not encode: %v", c.arch, err)
		}
		// The listing shows the pool as nvdisasm shows ptxas's.
		text, err := sass.Text(m, c.arch)
		if err != nil {
			t.Fatal(err)
		}
		pool := ".nv.constant2.k:\n        /*0000*/ \t.byte\t0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f, 0x18, 0x2d, 0x44, 0x54, 0xfb, 0x21, 0x09, 0x40\n"
		if strings.Contains(text, pool) != (c.arch == 80) {
			t.Errorf("sm_%d: the listing shows the pool: %v, want %v\n%s", c.arch, !(c.arch == 80), c.arch == 80, text)
		}
		back, err := ori.ParseModule("k.ori", []byte(m.String()))
		if err != nil {
			t.Fatalf("sm_%d: the legalized IR does not parse back: %v", c.arch, err)
		}
		if back.String() != m.String() {
			t.Errorf("sm_%d: the legalized IR prints differently after parsing:\n%s", c.arch, back)
		}
	}
}

// movF64PTX names its f64 constants through registers (mov.f64), as
// older nvcc writes a polynomial (MonteCarlo_SM13's inverseCNDKernel).
const movF64PTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .f64 %fd<8>;
	.reg .u64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.global.f64 %fd1, [%rd1];
	mov.f64 %fd5, 0d40040d931b28620d;
	mov.f64 %fd2, 0dc0329d70ae54a3de;
	mov.f64 %fd3, 0d4044b212c473c6fc;
	mad.rn.f64 %fd4, %fd1, %fd2, %fd3;
	mad.rn.f64 %fd6, %fd4, %fd1, %fd5;
	mov.f64 %fd7, 0d3fdae147ae147ae1;
	add.f64 %fd7, %fd6, %fd7;
	st.global.f64 [%rd1], %fd7;
	ret;
}
`

// TestLiteralPoolThroughMov: constants that reach DFMA and DADD through
// a mov.f64 are read from the literal pool, in order of use, with the
// one multiplier beside a pooled addend in registers, as ptxas 13.0.88
// compiles movF64PTX for sm_80 (DFMA R6, R4, -R6, c[0x2][0x0]; DFMA R6,
// R4, R6, c[0x2][0x8]; DADD R6, R6, c[0x2][0x10]); with
// DisableF64ConstOperands=1 every constant stays in registers.
func TestLiteralPoolThroughMov(t *testing.T) {
	compile := func(knob string) (string, []uint64) {
		po := PhaseOptions{OptLevel: 3}
		if knob != "" {
			ks, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: []string{knob}})
			if err != nil {
				t.Fatal(err)
			}
			po.Knobs = ks
		}
		res, err := CompileWith("k.ptx", []byte(movF64PTX), Options{}, po)
		if err != nil {
			t.Fatal(err)
		}
		return res.Final.String(), res.Final.Funcs[0].Literals
	}
	text, lits := compile("")
	if want := []uint64{0x4044b212c473c6fc, 0x40040d931b28620d, 0x3fdae147ae147ae1}; !slices.Equal(lits, want) {
		t.Errorf("literal pool %#x, want %#x\n%s", lits, want, text)
	}
	for _, want := range []string{", c[0x2][0x0] ;", ", c[0x2][0x8] ;", ", c[0x2][0x10] ;"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if text, lits := compile("DisableF64ConstOperands=1"); len(lits) != 0 {
		t.Errorf("DisableF64ConstOperands=1: literal pool %#x\n%s", lits, text)
	}
}
