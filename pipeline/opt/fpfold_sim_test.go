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

// TestFPFoldAgreesWithSimulator folds random f32 instructions with
// constant operands (special values, subnormals, values near the
// rounding boundaries) through the GeneralOptimize bundle, checks that
// each was folded away, and executes both versions in the simulator.
func TestFPFoldAgreesWithSimulator(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	specials := []uint32{0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffa00001,
		0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x33800000, 0x4b800001, 0x3eaaaaab}
	val := func() uint32 {
		if rng.Intn(2) == 0 {
			return specials[rng.Intn(len(specials))]
		}
		return rng.Uint32()
	}
	mod := func(s string) string {
		return []string{s, "-" + s, "|" + s + "|", "-|" + s + "|"}[rng.Intn(4)]
	}
	// An operand is an immediate or, with a modifier, a register that a
	// MOV of an immediate defines (movs collects those MOVs).
	var movs []string
	imm := func() string {
		v := ori.Imm(int64(int32(val()))).String()
		if rng.Intn(2) == 0 {
			return v
		}
		r := fmt.Sprintf("%%r%d", 20+len(movs))
		movs = append(movs, fmt.Sprintf("#%d MOV %s = %s ;\n\t", 30+len(movs), r, v))
		return mod(r)
	}
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	arith := func() string { return pick("", ".RZ", ".RM", ".RP") + pick("", ".FTZ") + pick("", ".SAT") }
	gens := []func() string{
		func() string { return fmt.Sprintf("FADD%s %%r0 = %s, %s", arith(), imm(), imm()) },
		func() string { return fmt.Sprintf("FMUL%s %%r0 = %s, %s", arith(), imm(), imm()) },
		func() string { return fmt.Sprintf("FFMA%s %%r0 = %s, %s, %s", arith(), imm(), imm(), imm()) },
		func() string {
			return fmt.Sprintf("FSETP.%s.%s%s %%p0, %%p1 = %s, %s, %s ;\n\t#6 SEL %%r0 = 0x1, 0x0, %%p0 ;\n\t#7 SEL %%r5 = 0x1, 0x0, %%p1",
				pick("LT", "EQ", "LE", "GT", "NE", "GE", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "NUM", "NAN"),
				pick("AND", "OR", "XOR"), pick("", ".FTZ"), imm(), imm(), pick("PT", "!PT"))
		},
		// MUFU and FCHK take registers: the operands come from MOVs.
		func() string {
			return fmt.Sprintf("MOV %%r10 = %s ;\n\t#18 MUFU.RCP %%r0 = %s",
				ori.Imm(int64(int32(specials[rng.Intn(len(specials))]))).String(), mod("%r10"))
		},
		func() string {
			return fmt.Sprintf("MOV %%r10 = %s ;\n\t#18 MOV %%r11 = %s ;\n\t#19 FCHK.DIVIDE %%p0 = %s, %s ;\n\t#6 SEL %%r0 = 0x1, 0x0, %%p0",
				ori.Imm(int64(int32(val()))).String(), ori.Imm(int64(int32(val()))).String(), mod("%r10"), mod("%r11"))
		},
	}
	const head = ".module sm_80 address_size=64\n\n.entry k\n.param out offset=0x160 size=0x8 align=0x8\n.shared 0x0\n.local 0x0\n{\nBB0:\n" +
		"\t#1 MOV %r3 = c[0x0][0x160] ;\n\t#2 MOV %r3[1] = c[0x0][0x164] ;\n\t#8 MOV %r5 = 0x0 ;\n"
	run := func(m *ori.Module) ([2]uint32, error) {
		g := sim.NewGlobal()
		out := g.Alloc("out", 8)
		p := make([]byte, 8)
		binary.LittleEndian.PutUint64(p, out.Base)
		_, err := sim.Run(m, "k", sim.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}, Params: [][]byte{p}}, g, sim.Options{MaxWarpSteps: 1000})
		return [2]uint32{binary.LittleEndian.Uint32(out.Data), binary.LittleEndian.Uint32(out.Data[4:])}, err
	}
	pass, _ := opt.PassByPhase("GeneralOptimize")
	for i := 0; i < 4000; i++ {
		movs = movs[:0]
		inst := gens[rng.Intn(len(gens))]()
		text := head + "\t" + strings.Join(movs, "") + "#3 " + inst + " ;\n\t#4 STG.E [%r3.64], %r0 ;\n\t#9 STG.E [%r3.64+0x4], %r5 ;\n\t#5 EXIT ;\n}\n"
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
		if _, err := pass.Run(f, &opt.Context{OptLevel: 3, Arch: 80, Module: m}); err != nil {
			t.Fatal(err)
		}
		if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
			t.Fatalf("%s: %v", inst, err)
		}
		after := f.String()
		for _, op := range []string{"FADD", "FMUL", "FFMA", "FSETP", "FCHK", "MUFU"} {
			if strings.Contains(after, " "+op) && !(op == "MUFU" && strings.Contains(inst, "MUFU")) {
				t.Errorf("%s: not folded:\n%s", strings.Split(inst, " ;")[0], after)
			}
		}
		got, err := run(m)
		if err != nil {
			t.Fatalf("%s: folded kernel does not run: %v\n%s", inst, err, f)
		}
		if got != want {
			t.Errorf("%s: folded kernel stores %#x, original %#x\nbefore:\n%s\nafter:\n%s", inst, got, want, before, after)
		}
	}
}

// TestFPFoldRcpOnlySpecial: MUFU.RCP of a finite normal constant keeps its
// instruction (its result is the hardware's approximation); of 0 it
// becomes +inf.
func TestFPFoldRcpOnlySpecial(t *testing.T) {
	pass, _ := opt.PassByPhase("GeneralOptimize")
	for _, tc := range []struct {
		v    string
		want string
	}{
		{"0x40400000", "MUFU.RCP %r0 = %r10"},
		{"0x0", "MOV %r0 = 0x7f800000"},
		{"-0x800000", "MOV %r0 = -0x800000"}, // rcp(-inf) = -0
	} {
		text := ".entry k\n.shared 0x0\n.local 0x0\n{\nBB0:\n\t#1 MOV %r10 = " + tc.v + " ;\n\t#2 MUFU.RCP %r0 = %r10 ;\n\t#3 STS [RZ], %r0 ;\n\t#4 EXIT ;\n}\n"
		f, err := ori.ParseFunc("k.ori", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ComputeCFG(); err != nil {
			t.Fatal(err)
		}
		if _, err := pass.Run(f, &opt.Context{OptLevel: 3, Arch: 80}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(f.String(), tc.want) {
			t.Errorf("rcp of %s:\n%s\nwant %s", tc.v, f, tc.want)
		}
	}
}
