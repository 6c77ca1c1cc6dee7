package pipeline

import (
	"strconv"
	"strings"
	"testing"

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
