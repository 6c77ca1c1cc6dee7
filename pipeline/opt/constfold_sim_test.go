package opt_test

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
	"orilab/pipeline/sim"
)

// TestFoldAgreesWithSimulator folds random constant instructions with the
// GeneralOptimize bundle and checks, by executing both versions in the
// simulator, that the folded kernel stores the same values.
func TestFoldAgreesWithSimulator(t *testing.T) {
	checkFoldAgainstSimulator(t, false, 3000)
}

// TestSimplifyAgreesWithSimulator mixes per-thread register operands
// (with modifiers) and variable predicates into the random instructions,
// so the algebraic simplifications and copy propagation run too.
func TestSimplifyAgreesWithSimulator(t *testing.T) {
	checkFoldAgainstSimulator(t, true, 3000)
}

func checkFoldAgainstSimulator(t *testing.T, mixed bool, n int) {
	rng := rand.New(rand.NewSource(1))
	var imm func() string
	constImm := func() string {
		var v uint32
		switch rng.Intn(4) {
		case 0:
			v = uint32(rng.Intn(70))
		case 1:
			v = uint32(-rng.Intn(70))
		default:
			v = rng.Uint32()
		}
		return ori.Imm(int64(int32(v))).String()
	}
	imm = constImm
	pred := func() string { return []string{"PT", "!PT"}[rng.Intn(2)] }
	if mixed {
		imm = func() string {
			if rng.Intn(2) == 0 {
				return constImm()
			}
			return []string{"%r7", "%r8", "-%r7", "!%r8", "%r9", "RZ"}[rng.Intn(6)]
		}
		pred = func() string { return []string{"PT", "!PT", "%p5", "!%p5", "%p6"}[rng.Intn(5)] }
	}
	small := func(n int) string { return ori.Imm(int64(rng.Intn(n))).String() }
	zero := func() string { return []string{"RZ", "!RZ", "-RZ", imm()}[rng.Intn(4)] }
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	gens := []func() string{
		func() string { return fmt.Sprintf("IADD3 %%r0 = %s, %s, %s", imm(), zero(), imm()) },
		func() string {
			return fmt.Sprintf("IADD3.X %%r0 = %s, %s, %s, %s, %s", imm(), imm(), zero(), pred(), pred())
		},
		func() string {
			return fmt.Sprintf("IMAD%s %%r0 = %s, %s, %s", pick("", ".U32", ".HI", ".HI.U32"), imm(), imm(), imm())
		},
		func() string { return fmt.Sprintf("IMAD.SHL %%r0 = %s, %s, %s", imm(), small(40), imm()) },
		func() string {
			lut := rng.Intn(256)
			return fmt.Sprintf("LOP3.LUT %%r0 = %s, %s, %s, %s, !PT", imm(), zero(), imm(), ori.Imm(int64(lut)).String())
		},
		func() string {
			return fmt.Sprintf("SHF.%s.%s%s %%r0 = %s, %s, %s", pick("L", "R"), pick("U32", "S32", "U64", "S64", "W.U32", "W.U64"), pick("", ".HI"), imm(), small(80), imm())
		},
		func() string { return fmt.Sprintf("LEA %%r0 = %s, %s, %s, 0x0", imm(), imm(), small(40)) },
		func() string { return fmt.Sprintf("IMNMX%s %%r0 = %s, %s, %s", pick("", ".U32"), imm(), imm(), pred()) },
		func() string { return fmt.Sprintf("FLO.%s%s %%r0 = %s", pick("U32", "S32"), pick("", ".SH"), imm()) },
		func() string { return fmt.Sprintf("%s %%r0 = %s", pick("POPC", "BREV", "IABS"), imm()) },
		func() string { return fmt.Sprintf("BMSK%s %%r0 = %s, %s", pick("", ".W"), small(40), small(40)) },
		func() string { return fmt.Sprintf("SGXT%s %%r0 = %s, %s", pick("", ".U32"), imm(), small(40)) },
		func() string { return fmt.Sprintf("PRMT %%r0 = %s, %s, %s", imm(), imm(), imm()) },
		func() string { return fmt.Sprintf("SEL %%r0 = %s, %s, %s", imm(), imm(), pred()) },

		func() string {
			return fmt.Sprintf("ISETP.%s.%s%s %%p0, %%p1 = %s, %s, %s ;\n\t#6 SEL %%r0 = 0x1, 0x0, %%p0 ;\n\t#7 SEL %%r5 = 0x1, 0x0, %%p1",
				pick("LT", "EQ", "LE", "GT", "NE", "GE"), pick("AND", "OR", "XOR"), pick("", ".U32"), imm(), pick(imm(), "RZ"), pred())
		},
	}
	if mixed {
		// A carry-out that is used: only the carry propagation can fire.
		gens = append(gens, func() string {
			return fmt.Sprintf("IADD3 %%r0, %%p0 = %s, %s, %s ;\n\t#6 IADD3.X %%r5 = %s, %s, RZ, %%p0, !PT", imm(), zero(), zero(), imm(), zero())
		})
	}
	const head = ".module sm_75 address_size=64\n\n.entry k\n.param out offset=0x160 size=0x8 align=0x8\n.shared 0x0\n.local 0x0\n{\nBB0:\n" +
		"\t#1 MOV %r3 = c[0x0][0x160] ;\n\t#2 MOV %r3[1] = c[0x0][0x164] ;\n\t#8 MOV %r5 = 0x0 ;\n" +
		"\t#10 S2R %r6 = SR_LANEID ;\n\t#11 IMAD.WIDE.U32 %r3.64 = %r6, 0x8, %r3.64 ;\n" +
		"\t#12 IMAD %r7 = %r6, -0x61c88647, 0x12345 ;\n\t#13 SHF.R.S32.HI %r8 = RZ, %r6, %r7 ;\n\t#14 MOV %r9 = %r7 ;\n" +
		"\t#15 ISETP.LT.AND %p5, %p6 = %r6, 0xd, PT ;\n\t#16 MOV %r0 = 0x5 ;\n\t#17 PLOP3.LUT %p0, %p1 = PT, PT, PT, 0x0, 0x0 ;\n"
	run := func(m *ori.Module) ([64]uint32, error) {
		g := sim.NewGlobal()
		out := g.Alloc("out", 8*32)
		p := make([]byte, 8)
		binary.LittleEndian.PutUint64(p, out.Base)
		_, err := sim.Run(m, "k", sim.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Params: [][]byte{p}}, g, sim.Options{MaxWarpSteps: 1000})
		var r [64]uint32
		for i := range r {
			r[i] = binary.LittleEndian.Uint32(out.Data[4*i:])
		}
		return r, err
	}
	pass, _ := opt.PassByPhase("GeneralOptimize")
	folded := 0
	for i := 0; i < n; i++ {
		inst := gens[rng.Intn(len(gens))]()
		if mixed && rng.Intn(3) == 0 {
			inst = []string{"@%p5 ", "@!%p6 ", "@!PT "}[rng.Intn(3)] + inst
		}
		text := head + "\t#3 " + inst + " ;\n\t#4 STG.E [%r3.64], %r0 ;\n\t#9 STG.E [%r3.64+0x4], %r5 ;\n\t#5 EXIT ;\n}\n"
		m, err := ori.ParseModule("t.ori", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", inst, err)
		}
		f := m.Funcs[0]
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		want, err := run(m)
		if err != nil {
			t.Fatalf("%s: original does not run: %v", inst, err)
		}
		before := f.String()
		changed, err := pass.Run(f, &opt.Context{OptLevel: 3, Arch: 75, Module: m})
		if err != nil {
			t.Fatal(err)
		}
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			t.Fatalf("%s: %v", inst, err)
		}
		if !changed {
			if !mixed {
				t.Errorf("%s: not folded", strings.Split(inst, " ;")[0])
			}
			continue
		}
		folded++
		got, err := run(m)
		if err != nil {
			t.Fatalf("%s: folded kernel does not run: %v\n%s", inst, err, f)
		}
		if got != want {
			t.Errorf("%s: folded kernel stores %#x, original %#x\nbefore:\n%s\nafter:\n%s", inst, got[:4], want[:4], before, f)
		}
	}
	t.Logf("%d of %d random instructions changed and checked", folded, n)
}
