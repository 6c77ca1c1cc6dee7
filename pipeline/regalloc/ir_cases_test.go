package regalloc_test

import (
	"reflect"
	"strings"
	"testing"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
)

// r4Knobs is knobSet with RegAllocLowRegisters=0 and
// RegAllocWordRanges=0 first: the cases that pin spilling, frames and
// calls were written for whole-tuple ranges, under which their small
// kernels still need the spills they exercise (TestWordRanges covers
// per-word ranges).
func r4Knobs(t *testing.T, assigns ...string) *knobs.Set {
	t.Helper()
	return knobSet(t, append([]string{"RegAllocLowRegisters=0", "RegAllocWordRanges=0"}, assigns...)...)
}

// TestLowRegisters: a kernel without calls gets R0, R2 and R3 (never R1,
// and no pair R0:R1), as ptxas allocates them; the same kernel with a
// CALL, a .func, and the knob at 0 start at R4. The allocation executes
// like the virtual-register code.
func TestLowRegisters(t *testing.T) {
	m := parseModule(t, kernelHead+coalesceKernel)
	a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R0 = SR_TID.X ;
	#3 IMAD.WIDE.U32 R2.64 = R0, 0x4, RZ ;
	#4 IADD3 R2, P0 = c[0x0][0x160], R2, RZ ;
	#5 IADD3.X R3 = c[0x0][0x164], R3, RZ, P0, !PT ;
	#7 IADD3 R0 = R0, 0x1, RZ ;
	#8 STG.E [R2.64], R0 ;
	#9 EXIT ;
`)
	if st.Regs != 6 {
		t.Errorf("regs %d, want 6 (R0-R3 and the two ptxas adds)", st.Regs)
	}
	sameOutput(t, m, a, outSpec(4, 4))
	// Pressure: six values live at once (#7) take R0 and R2-R6, not R1.
	m = parseModule(t, kernelHead+spillKernel)
	a, st = check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R6 = SR_TID.X ;
	#3 IADD3 R3 = R6, 0x1, RZ ;
	#4 IADD3 R5 = R6, 0x2, RZ ;
	#5 IADD3 R2 = R6, 0x3, RZ ;
	#6 IADD3 R0 = R6, 0x4, RZ ;
	#7 IMAD R4 = R3, R5, R2 ;
	#8 IMAD R4 = R4, R0, R3 ;
	#9 IMAD R4 = R4, R5, R2 ;
	#10 IMAD.WIDE.U32 R2.64 = R6, 0x4, RZ ;
	#11 IADD3 R2, P0 = c[0x0][0x160], R2, RZ ;
	#12 IADD3.X R3 = c[0x0][0x164], R3, RZ, P0, !PT ;
	#13 STG.E [R2.64], R4 ;
	#14 EXIT ;
`)
	if st.Regs != 9 {
		t.Errorf("regs %d, want 9 (R0-R6 and the two ptxas adds)", st.Regs)
	}
	sameOutput(t, m, a, outSpec(4, 4))
	// Where R0-R3 stay reserved, no allocated register is below R4.
	for _, c := range []struct {
		src, fn string
		opts    regalloc.Options
	}{
		{kernelHead + spillKernel, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: knobSet(t, "RegAllocLowRegisters=0")}},
		{callsModule, "k", regalloc.Options{Arch: 75, OptLevel: 3}},
		{callsModule, "f", regalloc.Options{Arch: 75, OptLevel: 3}},
	} {
		m := parseModule(t, c.src)
		f := m.Func(c.fn)
		if _, err := regalloc.Allocate(f, c.opts); err != nil {
			t.Fatal(err)
		}
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				for _, o := range append(append([]ori.Operand(nil), in.Dsts...), in.Srcs...) {
					if o.Kind == ori.OpdReg && o.Reg.Class == ori.ClassR && !o.Reg.IsZero() && o.Reg.N != 1 && o.Reg.N < 4 {
						t.Errorf("%s %s: %s names %s below R4", c.fn, c.opts.Knobs, in, o.Reg)
					}
				}
			}
		}
	}
}

// The cases below were checked by hand once (register by register, and
// by execution: every kernel gives the same output before and after
// allocation) and are pinned as exact text.

// coalesceKernel copies the thread index once it is dead.
const coalesceKernel = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 IMAD.WIDE.U32 %r1.64 = %r0, 0x4, RZ ;
	#4 IADD3 %r2, %p0 = c[0x0][0x160], %r1, RZ ;
	#5 IADD3.X %r2[1] = c[0x0][0x164], %r1[1], RZ, %p0, !PT ;
	#6 MOV %r3 = %r0 ;
	#7 IADD3 %r3 = %r3, 0x1, RZ ;
	#8 STG.E [%r2.64], %r3 ;
	#9 EXIT ;
}
`

// TestCoalesceAndPairs: a copy whose source dies becomes "MOV R8 = R8"
// and is deleted; 64-bit values take even pairs; a source that dies at an
// instruction shares its register with the result (#7).
func TestCoalesceAndPairs(t *testing.T) {
	m := parseModule(t, kernelHead+coalesceKernel)
	a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R8 = SR_TID.X ;
	#3 IMAD.WIDE.U32 R4.64 = R8, 0x4, RZ ;
	#4 IADD3 R6, P0 = c[0x0][0x160], R4, RZ ;
	#5 IADD3.X R7 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#7 IADD3 R8 = R8, 0x1, RZ ;
	#8 STG.E [R6.64], R8 ;
	#9 EXIT ;
`)
	if st.CoalescedMoves != 1 || st.Regs != 11 || st.Preds != 1 {
		t.Errorf("stats %+v", *st)
	}
	if out := sameOutput(t, m, a, outSpec(4, 4)); out[3] != 4 {
		t.Errorf("out = %x", out)
	}
}

// predicates computes nine predicates from the thread index and keeps
// them all live: seven fit in P0-P6 (one of which serves the refills),
// the others are kept in R registers as 0/1 (SEL to spill, ISETP to
// refill).
const predicates = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 ISETP.GT.U32.AND %p0, PT = %r0, 0x0, PT ;
	#4 ISETP.GT.U32.AND %p1, PT = %r0, 0x1, PT ;
	#5 ISETP.GT.U32.AND %p2, PT = %r0, 0x2, PT ;
	#6 ISETP.GT.U32.AND %p3, PT = %r0, 0x3, PT ;
	#7 ISETP.GT.U32.AND %p4, PT = %r0, 0x4, PT ;
	#8 ISETP.GT.U32.AND %p5, PT = %r0, 0x5, PT ;
	#9 ISETP.GT.U32.AND %p6, PT = %r0, 0x6, PT ;
	#10 ISETP.GT.U32.AND %p7, PT = %r0, 0x7, PT ;
	#11 ISETP.GT.U32.AND %p8, PT = %r0, 0x8, PT ;
	#12 MOV %r1 = 0x0 ;
	#13 @%p0 IADD3 %r1 = %r1, 0x1, RZ ;
	#14 @%p1 IADD3 %r1 = %r1, 0x2, RZ ;
	#15 @%p2 IADD3 %r1 = %r1, 0x4, RZ ;
	#16 @%p3 IADD3 %r1 = %r1, 0x8, RZ ;
	#17 @%p4 IADD3 %r1 = %r1, 0x10, RZ ;
	#18 @%p5 IADD3 %r1 = %r1, 0x20, RZ ;
	#19 @%p6 IADD3 %r1 = %r1, 0x40, RZ ;
	#20 @%p7 IADD3 %r1 = %r1, 0x80, RZ ;
	#21 @!%p8 IADD3 %r1 = %r1, 0x100, RZ ;
	#22 IMAD.WIDE.U32 %r2.64 = %r0, 0x4, RZ ;
	#23 IADD3 %r3, %p9 = c[0x0][0x160], %r2, RZ ;
	#24 IADD3.X %r3[1] = c[0x0][0x164], %r2[1], RZ, %p9, !PT ;
	#25 STG.E [%r3.64], %r1 ;
	#26 EXIT ;
}
`

func TestPredicateSpill(t *testing.T) {
	m := parseModule(t, kernelHead+predicates)
	a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R7 = SR_TID.X ;
	#3 ISETP.GT.U32.AND P1, PT = R7, 0x0, PT ;
	#4 ISETP.GT.U32.AND P2, PT = R7, 0x1, PT ;
	#5 ISETP.GT.U32.AND P3, PT = R7, 0x2, PT ;
	#6 ISETP.GT.U32.AND P4, PT = R7, 0x3, PT ;
	#7 ISETP.GT.U32.AND P5, PT = R7, 0x4, PT ;
	#8 ISETP.GT.U32.AND P6, PT = R7, 0x5, PT ;
	#9 ISETP.GT.U32.AND P0, PT = R7, 0x6, PT ;
	#27 SEL R4 = 0x1, RZ, P0 ; spill
	#10 ISETP.GT.U32.AND P0, PT = R7, 0x7, PT ;
	#28 SEL R5 = 0x1, RZ, P0 ; spill
	#11 ISETP.GT.U32.AND P0, PT = R7, 0x8, PT ;
	#29 SEL R6 = 0x1, RZ, P0 ; spill
	#12 MOV R8 = 0x0 ;
	#13 @P1 IADD3 R8 = R8, 0x1, RZ ;
	#14 @P2 IADD3 R8 = R8, 0x2, RZ ;
	#15 @P3 IADD3 R8 = R8, 0x4, RZ ;
	#16 @P4 IADD3 R8 = R8, 0x8, RZ ;
	#17 @P5 IADD3 R8 = R8, 0x10, RZ ;
	#18 @P6 IADD3 R8 = R8, 0x20, RZ ;
	#30 ISETP.NE.U32.AND P0, PT = R4, RZ, PT ; refill
	#19 @P0 IADD3 R8 = R8, 0x40, RZ ;
	#31 ISETP.NE.U32.AND P0, PT = R5, RZ, PT ; refill
	#20 @P0 IADD3 R8 = R8, 0x80, RZ ;
	#32 ISETP.NE.U32.AND P0, PT = R6, RZ, PT ; refill
	#21 @!P0 IADD3 R8 = R8, 0x100, RZ ;
	#22 IMAD.WIDE.U32 R4.64 = R7, 0x4, RZ ;
	#23 IADD3 R6, P0 = c[0x0][0x160], R4, RZ ;
	#24 IADD3.X R7 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#25 STG.E [R6.64], R8 ;
	#26 EXIT ;
`)
	if st.PredSpills != 3 || st.PredRefills != 3 || st.Preds != 7 || st.SpillStores != 0 {
		t.Errorf("stats %+v", *st)
	}
	out := sameOutput(t, m, a, outSpec(12, 12))
	for tid, v := range out {
		want := uint32(0)
		for k := 0; k < 8; k++ {
			if tid > k {
				want |= 1 << k
			}
		}
		if tid <= 8 {
			want |= 0x100
		}
		if v != want {
			t.Errorf("thread %d: %#x, want %#x", tid, v, want)
		}
	}
}

// callsModule has a .func with two parameters and one result, and a
// kernel that calls it with values live across the call.
const callsModule = `.func f
.param a offset=0x4 size=0x4 align=0x4
.param b offset=0x5 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 MOV %r1 = R5 ;
	#3 IMAD %r2 = %r0, 0x3, %r1 ;
	#4 MOV R4 = %r2 ;
	#5 RET ;
}

` + kernelHead + `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 MOV %r1 = 0x7 ;
	#4 IADD3 %r2 = %r0, 0x10, RZ ;
	#5 MOV R4 = %r0 ;
	#6 MOV R5 = %r1 ;
	#7 CALL.REL.NOINC ` + "`f`" + ` ;
	#8 MOV %r3 = R4 ;
	#9 IADD3 %r3 = %r3, %r2, %r1 ;
	#10 IMAD.WIDE.U32 %r4.64 = %r0, 0x4, RZ ;
	#11 IADD3 %r5, %p0 = c[0x0][0x160], %r4, RZ ;
	#12 IADD3.X %r5[1] = c[0x0][0x164], %r4[1], RZ, %p0, !PT ;
	#13 STG.E [%r5.64], %r3 ;
	#14 EXIT ;
}
`

// TestCallsABI: the .func's ABI copies coalesce with R4/R5 and disappear;
// in the kernel, the thread index, the constant 7 and %r2 live across the
// call in the callee-saved R16-R18 (ptxas's ABI), so nothing is spilled
// or recomputed, and the argument moves read them there.
func TestCallsABI(t *testing.T) {
	m := parseModule(t, callsModule)
	a, st := check(t, m, "f", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, `BB0:
	#3 IMAD R4 = R4, 0x3, R5 ;
	#5 RET ;
`)
	if st.CoalescedMoves != 3 || st.StackFrame != 0 {
		t.Errorf("f stats %+v", *st)
	}
	a, st = check(t, a, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R16 = SR_TID.X ;
	#3 MOV R17 = 0x7 ;
	#4 IADD3 R18 = R16, 0x10, RZ ;
	#5 MOV R4 = R16 ;
	#6 MOV R5 = R17 ;
	#7 CALL.REL.NOINC `+"`f`"+` ;
	#9 IADD3 R4 = R4, R18, R17 ;
	#10 IMAD.WIDE.U32 R6.64 = R16, 0x4, RZ ;
	#11 IADD3 R8, P0 = c[0x0][0x160], R6, RZ ;
	#12 IADD3.X R9 = c[0x0][0x164], R7, RZ, P0, !PT ;
	#13 STG.E [R8.64], R4 ;
	#14 EXIT ;
`)
	if st.RematValues != 0 || st.SpilledValues != 0 || st.StackFrame != 0 {
		t.Errorf("k stats %+v", *st)
	}
	if out := sameOutput(t, m, a, outSpec(4, 4)); out[0] != 0x1e || out[3] != 0x2a {
		t.Errorf("out = %x", out)
	}
}

const spillKernel = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 IADD3 %r1 = %r0, 0x1, RZ ;
	#4 IADD3 %r2 = %r0, 0x2, RZ ;
	#5 IADD3 %r3 = %r0, 0x3, RZ ;
	#6 IADD3 %r4 = %r0, 0x4, RZ ;
	#7 IMAD %r5 = %r1, %r2, %r3 ;
	#8 IMAD %r5 = %r5, %r4, %r1 ;
	#9 IMAD %r5 = %r5, %r2, %r3 ;
	#10 IMAD.WIDE.U32 %r6.64 = %r0, 0x4, RZ ;
	#11 IADD3 %r7, %p0 = c[0x0][0x160], %r6, RZ ;
	#12 IADD3.X %r7[1] = c[0x0][0x164], %r6[1], RZ, %p0, !PT ;
	#13 STG.E [%r7.64], %r5 ;
	#14 EXIT ;
}
`

// TestSpillToMemory honours --maxrregcount 10 (R4-R7, and the two registers ptxas adds) in a kernel without
// calls: values go to local memory, the frame appears, and redundant
// refills and the dead store of #7's result are dropped.
func TestSpillToMemory(t *testing.T) {
	m := parseModule(t, kernelHead+spillKernel)
	a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: 10, Knobs: r4Knobs(t)}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#29 IADD3 R1 = R1, -0x10, RZ ;
	#15 S2R R4 = SR_TID.X ; remat #2
	#3 IADD3 R7 = R4, 0x1, RZ ;
	#4 IADD3 R4 = R4, 0x2, RZ ;
	#17 STL [R1], R4 ; spill
	#18 S2R R4 = SR_TID.X ; remat #2
	#5 IADD3 R6 = R4, 0x3, RZ ;
	#6 IADD3 R5 = R4, 0x4, RZ ;
	#20 LDL R4 = [R1] ; refill
	#7 IMAD R4 = R7, R4, R6 ;
	#8 IMAD R4 = R4, R5, R7 ;
	#23 STL [R1+0x4], R4 ; spill
	#24 LDL R4 = [R1] ; refill
	#25 LDL R5 = [R1+0x4] ; refill
	#9 IMAD R5 = R5, R4, R6 ;
	#26 STL [R1+0x4], R5 ; spill
	#27 S2R R4 = SR_TID.X ; remat #2
	#10 IMAD.WIDE.U32 R4.64 = R4, 0x4, RZ ;
	#11 IADD3 R6, P0 = c[0x0][0x160], R4, RZ ;
	#12 IADD3.X R7 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#28 LDL R4 = [R1+0x4] ; refill
	#13 STG.E [R6.64], R4 ;
	#14 EXIT ;
`)
	want := regalloc.Stats{Regs: 10, Preds: 1, Target: 10, SpillStores: 3, SpillLoads: 4, SpillStoreBytes: 12, SpillLoadBytes: 16,
		Remats: 3, SpilledValues: 2, RematValues: 1, DroppedRefills: 3, DroppedStores: 1, StackFrame: 16}
	st.Attempts = nil
	if !reflect.DeepEqual(*st, want) {
		t.Errorf("stats %+v\nwant  %+v", *st, want)
	}
	if out := sameOutput(t, m, a, outSpec(4, 4)); out[0] != 0x2d || out[3] != 0x3a8 {
		t.Errorf("out = %x", out)
	}
}

// TestRematKnobs: under --maxrregcount 10, RegAllocRematEnable=0 sends
// the thread index to memory too; RegAllocRematDisableRange=2..2 excludes
// its definition #2, the only rematerializable one.
func TestRematKnobs(t *testing.T) {
	m := parseModule(t, kernelHead+spillKernel)
	for _, knob := range []string{"RegAllocRematEnable=0", "RegAllocRematDisableRange=2..2"} {
		a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: 10, Knobs: r4Knobs(t, knob)}, "")
		if st.Remats != 0 || st.RematValues != 0 || st.SpilledValues == 0 {
			t.Errorf("%s: stats %+v", knob, *st)
		}
		sameOutput(t, m, a, outSpec(4, 4))
	}
}

// uniform keeps nine uniform predicates live (the values come from the
// launch geometry, so they are the same for every thread): three go
// through UR holders (USEL/UISETP); UR values take UR0 and up.
const uniform = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 ULDC %ur0 = c[0x0][0x0] ;
	#3 UIADD3 %ur1 = %ur0, 0x3, URZ ;
	#4 UISETP.GT.U32.AND %up0, UPT = %ur0, 0x0, UPT ;
	#5 UISETP.GT.U32.AND %up1, UPT = %ur0, 0x1, UPT ;
	#6 UISETP.GT.U32.AND %up2, UPT = %ur0, 0x2, UPT ;
	#7 UISETP.GT.U32.AND %up3, UPT = %ur0, 0x3, UPT ;
	#8 UISETP.GT.U32.AND %up4, UPT = %ur0, 0x4, UPT ;
	#9 UISETP.GT.U32.AND %up5, UPT = %ur0, 0x5, UPT ;
	#10 UISETP.GT.U32.AND %up6, UPT = %ur0, 0x6, UPT ;
	#11 UISETP.GT.U32.AND %up7, UPT = %ur1, 0x8, UPT ;
	#12 UISETP.GT.U32.AND %up8, UPT = %ur1, 0x9, UPT ;
	#13 USEL %ur2 = 0x1, URZ, %up0 ;
	#14 USEL %ur3 = 0x2, URZ, %up1 ;
	#15 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#16 USEL %ur3 = 0x4, URZ, %up2 ;
	#17 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#18 USEL %ur3 = 0x8, URZ, %up3 ;
	#19 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#20 USEL %ur3 = 0x10, URZ, %up4 ;
	#21 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#22 USEL %ur3 = 0x20, URZ, %up5 ;
	#23 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#24 USEL %ur3 = 0x40, URZ, %up6 ;
	#25 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#26 USEL %ur3 = 0x80, URZ, %up7 ;
	#27 UIADD3 %ur2 = %ur2, %ur3, URZ ;
	#28 USEL %ur3 = 0x100, URZ, %up8 ;
	#29 UIADD3 %ur2 = %ur2, %ur3, %ur1 ;
	#30 S2R %r0 = SR_TID.X ;
	#31 IMAD.WIDE.U32 %r1.64 = %r0, 0x4, RZ ;
	#32 IADD3 %r2, %p0 = c[0x0][0x160], %r1, RZ ;
	#33 IADD3.X %r2[1] = c[0x0][0x164], %r1[1], RZ, %p0, !PT ;
	#34 MOV %r3 = %ur2 ;
	#35 STG.E [%r2.64], %r3 ;
	#36 EXIT ;
}
`

func TestUniformClasses(t *testing.T) {
	m := parseModule(t, kernelHead+uniform)
	a, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 ULDC UR0 = c[0x0][0x0] ;
	#3 UIADD3 UR2 = UR0, 0x3, URZ ;
	#4 UISETP.GT.U32.AND UP1, UPT = UR0, 0x0, UPT ;
	#5 UISETP.GT.U32.AND UP2, UPT = UR0, 0x1, UPT ;
	#6 UISETP.GT.U32.AND UP3, UPT = UR0, 0x2, UPT ;
	#7 UISETP.GT.U32.AND UP4, UPT = UR0, 0x3, UPT ;
	#8 UISETP.GT.U32.AND UP5, UPT = UR0, 0x4, UPT ;
	#9 UISETP.GT.U32.AND UP6, UPT = UR0, 0x5, UPT ;
	#10 UISETP.GT.U32.AND UP0, UPT = UR0, 0x6, UPT ;
	#37 USEL UR3 = 0x1, URZ, UP0 ; spill
	#11 UISETP.GT.U32.AND UP0, UPT = UR2, 0x8, UPT ;
	#38 USEL UR4 = 0x1, URZ, UP0 ; spill
	#12 UISETP.GT.U32.AND UP0, UPT = UR2, 0x9, UPT ;
	#39 USEL UR5 = 0x1, URZ, UP0 ; spill
	#13 USEL UR1 = 0x1, URZ, UP1 ;
	#14 USEL UR0 = 0x2, URZ, UP2 ;
	#15 UIADD3 UR1 = UR1, UR0, URZ ;
	#16 USEL UR0 = 0x4, URZ, UP3 ;
	#17 UIADD3 UR1 = UR1, UR0, URZ ;
	#18 USEL UR0 = 0x8, URZ, UP4 ;
	#19 UIADD3 UR1 = UR1, UR0, URZ ;
	#20 USEL UR0 = 0x10, URZ, UP5 ;
	#21 UIADD3 UR1 = UR1, UR0, URZ ;
	#22 USEL UR0 = 0x20, URZ, UP6 ;
	#23 UIADD3 UR1 = UR1, UR0, URZ ;
	#40 UISETP.NE.U32.AND UP0, UPT = UR3, URZ, UPT ; refill
	#24 USEL UR0 = 0x40, URZ, UP0 ;
	#25 UIADD3 UR1 = UR1, UR0, URZ ;
	#41 UISETP.NE.U32.AND UP0, UPT = UR4, URZ, UPT ; refill
	#26 USEL UR0 = 0x80, URZ, UP0 ;
	#27 UIADD3 UR1 = UR1, UR0, URZ ;
	#42 UISETP.NE.U32.AND UP0, UPT = UR5, URZ, UPT ; refill
	#28 USEL UR0 = 0x100, URZ, UP0 ;
	#29 UIADD3 UR1 = UR1, UR0, UR2 ;
	#30 S2R R4 = SR_TID.X ;
	#31 IMAD.WIDE.U32 R4.64 = R4, 0x4, RZ ;
	#32 IADD3 R6, P0 = c[0x0][0x160], R4, RZ ;
	#33 IADD3.X R7 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#34 MOV R4 = UR1 ;
	#35 STG.E [R6.64], R4 ;
	#36 EXIT ;
`)
	if st.URegs != 6 || st.UPreds != 7 || st.PredSpills != 3 {
		t.Errorf("stats %+v", *st)
	}
	// ntid.x = 9: bits 0-6 (9 > 0..6), 0x80 (9+3 > 8), 0x100 (9+3 > 9),
	// plus 9+3.
	for _, v := range sameOutput(t, m, a, outSpec(9, 9)) {
		if v != 0x1ff+12 {
			t.Fatalf("out = %#x", v)
		}
	}
}

// TestLog pins the attempt lines (and RegAllocPrintDetails' guidance).
func TestLog(t *testing.T) {
	var log strings.Builder
	m := parseModule(t, kernelHead+spillKernel)
	check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: 10, Log: &log, Knobs: r4Knobs(t, "RegAllocPrintDetails")}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#29 IADD3 R1 = R1, -0x10, RZ ;
	#15 S2R R4 = SR_TID.X ; remat #2
	#3 IADD3 R7 = R4, 0x1, RZ ;
	#4 IADD3 R4 = R4, 0x2, RZ ;
	#17 STL [R1], R4 ; spill
	#18 S2R R4 = SR_TID.X ; remat #2
	#5 IADD3 R6 = R4, 0x3, RZ ;
	#6 IADD3 R5 = R4, 0x4, RZ ;
	#20 LDL R4 = [R1] ; refill
	#7 IMAD R4 = R7, R4, R6 ;
	#8 IMAD R4 = R4, R5, R7 ;
	#23 STL [R1+0x4], R4 ; spill
	#24 LDL R4 = [R1] ; refill
	#25 LDL R5 = [R1+0x4] ; refill
	#9 IMAD R5 = R5, R4, R6 ;
	#26 STL [R1+0x4], R5 ; spill
	#27 S2R R4 = SR_TID.X ; remat #2
	#10 IMAD.WIDE.U32 R4.64 = R4, 0x4, RZ ;
	#11 IADD3 R6, P0 = c[0x0][0x160], R4, RZ ;
	#12 IADD3.X R7 = c[0x0][0x164], R5, RZ, P0, !PT ;
	#28 LDL R4 = [R1+0x4] ; refill
	#13 STG.E [R6.64], R4 ;
	#14 EXIT ;
`)
	want := `P-CLASS NOSPILL REGALLOC: attemp 0, used 1, target 7
P-CLASS NOSPILL REGALLOC: attemp 1, used 1, target 7
R-CLASS NOSPILL REGALLOC: attemp 0, used 12, target 10
R-CLASS NOSPILL REGALLOC: attemp 1, used 12, target 10
  spill %r5 (density 7.5): no free register
  rematerialize %r0 (density 0.227): no free register
R-CLASS SPILL REGALLOC: attemp 1, used 10, target 10, spilled 0
  spill %r2 (density 3.21): no free register
R-CLASS SPILL REGALLOC: attemp 2, used 10, target 10, spilled 2
R-CLASS SPILL REGALLOC: attemp 3, used 10, target 10, spilled 3
`
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
	// -O0 makes one NOSPILL trial; without the knob no guidance lines.
	log.Reset()
	c := m.Clone()
	if _, err := regalloc.Allocate(c.Funcs[0], regalloc.Options{Arch: 75, OptLevel: 0, Log: &log, Knobs: r4Knobs(t)}); err != nil {
		t.Fatal(err)
	}
	if want := "P-CLASS NOSPILL REGALLOC: attemp 0, used 1, target 7\nR-CLASS NOSPILL REGALLOC: attemp 0, used 12, target 255\n"; log.String() != want {
		t.Errorf("log at -O0:\n%s\nwant:\n%s", log.String(), want)
	}
}

// TestTargets: the ABI minimum applies where the calling convention does
// (a kernel with calls, a .func) and not after sm_90; RegTargetList picks
// the smallest target the code fits in, else the largest.
func TestTargets(t *testing.T) {
	alloc := func(m string, fn string, opts regalloc.Options) *regalloc.Stats {
		t.Helper()
		c := parseModule(t, m)
		st, err := regalloc.Allocate(c.Func(fn), opts)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := alloc(callsModule, "k", regalloc.Options{Arch: 75, MaxRegs: 16, Knobs: r4Knobs(t)})
	if st.Target != 24 || len(st.Warnings) != 1 || st.Warnings[0] != "warning 7016: k: regcount 16 specified below abi_minimum of 24" {
		t.Errorf("kernel with a call: target %d, warnings %q", st.Target, st.Warnings)
	}
	st = alloc(callsModule, "f", regalloc.Options{Arch: 75, MaxRegs: 16, Knobs: r4Knobs(t)})
	if st.Target != 24 || len(st.Warnings) != 1 {
		t.Errorf(".func: target %d, warnings %q", st.Target, st.Warnings)
	}
	st = alloc(callsModule, "f", regalloc.Options{Arch: 100, MaxRegs: 18, Knobs: r4Knobs(t)})
	if st.Target != 18 || len(st.Warnings) != 0 {
		t.Errorf(".func on sm_100: target %d, warnings %q", st.Target, st.Warnings)
	}
	st = alloc(kernelHead+spillKernel, "k", regalloc.Options{Arch: 75, MaxRegs: 18, Knobs: r4Knobs(t)})
	if st.Target != 18 || len(st.Warnings) != 0 || st.Regs != 12 {
		t.Errorf("kernel without calls: target %d, regs %d, warnings %q", st.Target, st.Regs, st.Warnings)
	}
	st = alloc(kernelHead+spillKernel, "k", regalloc.Options{Arch: 75, Knobs: r4Knobs(t, "RegTargetList=18,10,14")})
	if st.Target != 14 || st.SpilledValues != 0 || st.Regs != 12 {
		t.Errorf("RegTargetList=18,10,14: target %d, regs %d, %d spilled", st.Target, st.Regs, st.SpilledValues)
	}
	st = alloc(kernelHead+spillKernel, "k", regalloc.Options{Arch: 75, Knobs: r4Knobs(t, "RegTargetList=10,11")})
	if st.Target != 11 || st.SpilledValues+st.RematValues == 0 || st.Regs != 11 {
		t.Errorf("RegTargetList=10,11: target %d, regs %d, %d spilled, %d rematerialized", st.Target, st.Regs, st.SpilledValues, st.RematValues)
	}
	st = alloc(kernelHead+spillKernel, "k", regalloc.Options{Arch: 75, MaxRegs: 11, Knobs: r4Knobs(t, "RegTargetList=34")})
	if st.Target != 11 {
		t.Errorf("RegTargetList=34 with --maxrregcount 11: target %d", st.Target)
	}
}

// TestErrors pins the messages of what cannot be allocated.
func TestErrors(t *testing.T) {
	alloc := func(text string, opts regalloc.Options, want string) {
		t.Helper()
		m := parseModule(t, text)
		_, err := regalloc.Allocate(m.Funcs[0], opts)
		if err == nil || err.Error() != want {
			t.Errorf("error %v\nwant %s", err, want)
		}
	}
	// Two values live at once and one usable register (R4).
	alloc(kernelHead+`.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 S2R %r1 = SR_CTAID.X ;
	#4 IADD3 %r2 = %r0, %r1, RZ ;
	#5 STG.E [R6.64], %r2 ;
	#6 EXIT ;
}
`, regalloc.Options{Arch: 75, MaxRegs: 7, Knobs: r4Knobs(t)},
		"regalloc: k BB0 #4: Register allocation failed with register count of '5'. Compile the program with a higher register target (the temporary of spilled %r1 at #4 needs a register while 1 of the usable registers R4-R4 are in use there)")
	alloc(kernelHead+`.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 @PT BRA BB1 ;
BB1:
	#4 MOV.PHI %r1 = %r0, BB0 ;
	#5 EXIT ;
}
`, regalloc.Options{Arch: 75, Knobs: r4Knobs(t)},
		"regalloc: k BB1 #4: MOV.PHI reaches register allocation; the partial-SSA form must be converted to moves first")
	// A uniform value live across a call must leave the UR file.
	alloc(kernelHead+`.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 ULDC %ur1 = c[0x0][0x0] ;
	#3 UIADD3 %ur0 = %ur1, 0x1, URZ ;
	#7 CALL.REL.NOINC `+"`f`"+` ;
	#4 MOV %r0 = %ur0 ;
	#5 STG.E [R6.64], %r0 ;
	#6 EXIT ;
}
`, regalloc.Options{Arch: 75, Knobs: r4Knobs(t)},
		"regalloc: k BB0 #3: uniform register %ur0 must be spilled (it is live across a call), but orilab cannot move a value from an R register back to a UR register (no R2UR)")
	alloc(kernelHead+".local 0x0\n{\nBB0:\n\t#1 EXIT ;\n}\n", regalloc.Options{Arch: 75, Knobs: r4Knobs(t, "RegAllocEstimatedLoopIterations=many")},
		`regalloc: k: RegAllocEstimatedLoopIterations="many": want a number of iterations of at least 1`)
}

// frameModule has a .func with a 4-byte local variable (its frame is
// rounded to 16) and a .func whose spills create its frame, each called
// from the kernel.
const frameModule = `.func h
.param a offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x4
{
BB0:
	#1 IADD3 R1 = R1, -0x4, RZ ;
	#2 MOV %r0 = R4 ;
	#3 STL [R1], %r0 ;
	#4 LDL %r1 = [R1] ;
	#5 IADD3 %r1 = %r1, 0x5, RZ ;
	#6 MOV R4 = %r1 ;
	#7 IADD3 R1 = R1, 0x4, RZ ;
	#8 RET ;
}

.func g
.param a offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#3 IADD3 %r1 = %r0, 0x1, RZ ;
	#4 IADD3 %r2 = %r0, 0x2, RZ ;
	#5 IADD3 %r3 = %r0, 0x3, RZ ;
	#6 IADD3 %r4 = %r0, 0x4, RZ ;
	#7 IMAD %r5 = %r1, %r2, %r3 ;
	#8 IMAD %r5 = %r5, %r4, %r1 ;
	#9 IMAD %r5 = %r5, %r2, %r3 ;
	#10 IMAD %r5 = %r5, %r0, %r4 ;
	#11 MOV R4 = %r5 ;
	#12 RET ;
}

` + kernelHead + `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 MOV R4 = %r0 ;
	#4 CALL.REL.NOINC ` + "`g`" + ` ;
	#5 CALL.REL.NOINC ` + "`h`" + ` ;
	#6 MOV %r1 = R4 ;
	#10 IMAD.WIDE.U32 %r4.64 = %r0, 0x4, RZ ;
	#11 IADD3 %r5, %p0 = c[0x0][0x160], %r4, RZ ;
	#12 IADD3.X %r5[1] = c[0x0][0x164], %r4[1], RZ, %p0, !PT ;
	#13 STG.E [%r5.64], %r1 ;
	#14 EXIT ;
}
`

// TestFrames: a .func's 4-byte frame is rounded to 16 and its prologue
// and epilogue are patched; a .func that had no frame gets one, with a
// prologue at its top and an epilogue before RET, when it spills (sm_100
// has no ABI register minimum, so --maxrregcount 9 leaves R4-R6).
func TestFrames(t *testing.T) {
	m := parseModule(t, frameModule)
	opts := regalloc.Options{Arch: 100, OptLevel: 3, MaxRegs: 9, Knobs: r4Knobs(t)}
	a, st := check(t, m, "h", opts, `BB0:
	#1 IADD3 R1 = R1, -0x10, RZ ;
	#3 STL [R1], R4 ;
	#4 LDL R4 = [R1] ;
	#5 IADD3 R4 = R4, 0x5, RZ ;
	#7 IADD3 R1 = R1, 0x10, RZ ;
	#8 RET ;
`)
	if st.StackFrame != 16 || st.SpillStores != 0 {
		t.Errorf("h stats %+v", *st)
	}
	a, st = check(t, a, "g", opts, `BB0:
	#31 IADD3 R1 = R1, -0x20, RZ ;
	#13 STL [R1], R4 ; spill
	#3 IADD3 R4 = R4, 0x1, RZ ;
	#15 STL [R1+0x4], R4 ; spill
	#16 LDL R4 = [R1] ; refill
	#4 IADD3 R4 = R4, 0x2, RZ ;
	#17 STL [R1+0x8], R4 ; spill
	#18 LDL R4 = [R1] ; refill
	#5 IADD3 R4 = R4, 0x3, RZ ;
	#19 STL [R1+0xc], R4 ; spill
	#20 LDL R4 = [R1] ; refill
	#6 IADD3 R4 = R4, 0x4, RZ ;
	#21 STL [R1+0x10], R4 ; spill
	#22 LDL R4 = [R1+0x4] ; refill
	#23 LDL R5 = [R1+0x8] ; refill
	#24 LDL R6 = [R1+0xc] ; refill
	#7 IMAD R4 = R4, R5, R6 ;
	#25 LDL R5 = [R1+0x4] ; refill
	#26 LDL R6 = [R1+0x10] ; refill
	#8 IMAD R4 = R4, R6, R5 ;
	#27 LDL R5 = [R1+0x8] ; refill
	#28 LDL R6 = [R1+0xc] ; refill
	#9 IMAD R4 = R4, R5, R6 ;
	#29 LDL R5 = [R1] ; refill
	#30 LDL R6 = [R1+0x10] ; refill
	#10 IMAD R4 = R4, R5, R6 ;
	#32 IADD3 R1 = R1, 0x20, RZ ;
	#12 RET ;
`)
	if st.StackFrame != 32 || st.Regs != 9 {
		t.Errorf("g stats %+v", *st)
	}
	a, st = check(t, a, "k", opts, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#23 IADD3 R1 = R1, -0x10, RZ ;
	#15 S2R R4 = SR_TID.X ; remat #2
	#4 CALL.REL.NOINC `+"`g`"+` ;
	#5 CALL.REL.NOINC `+"`h`"+` ;
	#6 MOV R6 = R4 ;
	#16 S2R R4 = SR_TID.X ; remat #2
	#10 IMAD.WIDE.U32 R4.64 = R4, 0x4, RZ ;
	#17 STL.64 [R1], R4.64 ; spill
	#11 IADD3 R4, P0 = c[0x0][0x160], R4, RZ ;
	#19 STL [R1+0x8], R4 ; spill
	#20 LDL R4 = [R1+0x4] ; refill
	#12 IADD3.X R4 = c[0x0][0x164], R4, RZ, P0, !PT ;
	#21 STL [R1+0xc], R4 ; spill
	#22 LDL.64 R4.64 = [R1+0x8] ; refill
	#13 STG.E [R4.64], R6 ;
	#14 EXIT ;
`)
	if st.StackFrame != 16 || st.Regs != 9 {
		t.Errorf("k stats %+v", *st)
	}
	if out := sameOutput(t, m, a, outSpec(4, 4)); out[1] != 0xaa || out[3] != 0xb04 {
		t.Errorf("out = %x", out)
	}
}

// TestKnobs covers the knobs the other tests do not: with coalescing off
// the copy of coalesceKernel stays, RegAllocNumNonSpillTrials sets the NOSPILL trials, and a zero
// RegAllocThresholdForDiscardConflicts leaves the spill guidance no slot
// to evict from, so it spills the value that finds no register.
func TestKnobs(t *testing.T) {
	m := parseModule(t, kernelHead+spillKernel)
	alloc := func(opts regalloc.Options) *regalloc.Stats {
		t.Helper()
		c := m.Clone()
		st, err := regalloc.Allocate(c.Funcs[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		sameOutput(t, m, c, outSpec(4, 4))
		return st
	}
	copyKernel := parseModule(t, kernelHead+coalesceKernel)
	for _, on := range []string{"RegAllocCoalescing=1", "RegAllocCoalescing=0"} {
		c := copyKernel.Clone()
		st, err := regalloc.Allocate(c.Funcs[0], regalloc.Options{Arch: 75, Knobs: r4Knobs(t, on)})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"RegAllocCoalescing=1": 1, "RegAllocCoalescing=0": 0}[on]; st.CoalescedMoves != want {
			t.Errorf("%s: %d copies coalesced:\n%s", on, st.CoalescedMoves, c.Funcs[0])
		}
	}
	st := alloc(regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t, "RegAllocNumNonSpillTrials=3")})
	if n := len(st.Attempts); n != 6 || st.Attempts[5].Class != "R" || st.Attempts[5].Mode != "NOSPILL" || st.Attempts[5].N != 2 {
		t.Errorf("3 trials: attempts %+v", st.Attempts)
	}
	st = alloc(regalloc.Options{Arch: 75, OptLevel: 3, MaxRegs: 10, Knobs: r4Knobs(t, "RegAllocThresholdForDiscardConflicts=0")})
	if st.Regs != 10 || st.SpilledValues+st.RematValues == 0 {
		t.Errorf("threshold 0: %+v", *st)
	}
}

// calleeSavedModule: f keeps %r1 and its return address across a call
// to g, so both live in callee-saved registers, which f must save for
// the kernel, which keeps the thread index in one of them across its
// call to f.
const calleeSavedModule = `.func g
.param x offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#4 IADD3 %r1 = %r0, 0x1, RZ ;
	#5 MOV R4 = %r1 ;
	#6 RET.REL.NODEC R20.64 ;
}

.func f
.param x offset=0x4 size=0x4 align=0x4
.ret r offset=0x4 size=0x4 align=0x4
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV %r0 = R4 ;
	#2 MOV %r9 = R20 ;
	#3 MOV %r9[1] = R21 ;
	#4 IMAD %r1 = %r0, 0x3, RZ ;
	#5 MOV R4 = %r0 ;
	#6 MOV R20 = ` + "`.ret`" + ` ;
	#7 MOV R21 = RZ ;
	#8 CALL.REL.NOINC ` + "`g`" + ` ;
	#9 MOV %r2 = R4 ;
	#10 IADD3 %r3 = %r2, %r1, RZ ;
	#11 MOV R4 = %r3 ;
	#12 RET.REL.NODEC %r9.64 ;
}

` + kernelHead + `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 MOV R4 = %r0 ;
	#4 MOV R20 = ` + "`.ret`" + ` ;
	#5 MOV R21 = RZ ;
	#6 CALL.REL.NOINC ` + "`f`" + ` ;
	#7 MOV %r3 = R4 ;
	#8 IADD3 %r3 = %r3, %r0, RZ ;
	#9 IMAD.WIDE.U32 %r4.64 = %r0, 0x4, RZ ;
	#10 IADD3 %r5, %p0 = c[0x0][0x160], %r4, RZ ;
	#11 IADD3.X %r5[1] = c[0x0][0x164], %r4[1], RZ, %p0, !PT ;
	#12 STG.E [%r5.64], %r3 ;
	#13 EXIT ;
}
`

// TestCalleeSaved: g, a leaf, returns through R20 itself (as the
// lowering writes a leaf); f keeps %r1 (R16) and its return address (R18:R19)
// across its call, saves both before writing them and reloads them
// before returning, after moving the return address back to R20:R21;
// the kernel keeps the thread index in R16 across the call. Every
// thread stores f(tid) + tid = (tid + 1 + 3*tid) + tid.
func TestCalleeSaved(t *testing.T) {
	m := parseModule(t, calleeSavedModule)
	a, _ := check(t, m, "g", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, `BB0:
	#4 IADD3 R4 = R4, 0x1, RZ ;
	#6 RET.REL.NODEC R20.64 ;
`)
	a, st := check(t, a, "f", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, "")
	text := body(a.Func("f"))
	for _, want := range []string{"STL [R1], R16 ;", "MOV R20 = R18 ; copy", "LDL R16 = [R1] ;", "RET.REL.NODEC R20.64"} {
		if !strings.Contains(text, want) {
			t.Errorf("f does not have %q:\n%s", want, text)
		}
	}
	if st.SpilledValues != 0 || st.StackFrame != 16 {
		t.Errorf("f stats %+v", *st)
	}
	a, st = check(t, a, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: r4Knobs(t)}, "")
	if !strings.Contains(body(a.Func("k")), "S2R R16 = SR_TID.X") || st.SpilledValues != 0 || st.RematValues != 0 {
		t.Errorf("k keeps the thread index elsewhere (stats %+v):\n%s", *st, body(a.Func("k")))
	}
	out := sameOutput(t, m, a, outSpec(4, 4))
	for i, v := range out {
		if v != uint32(5*i+1) {
			t.Errorf("out[%d] = %d, want %d", i, v, 5*i+1)
		}
	}
}

// guardedKernel stores four constants under a guard, as predication
// leaves an if-then block: the MOVs' only definitions are guarded.
const guardedKernel = `.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R %r0 = SR_TID.X ;
	#3 S2R %r1 = SR_TID.Y ;
	#4 IADD3 %r2 = %r0, %r1, RZ ;
	#5 ISETP.EQ.U32.AND %p0, PT = %r2, 0x0, PT ;
	#6 @%p0 MOV %r3 = 0x7 ;
	#7 @%p0 MOV %r4 = 0x9 ;
	#8 @%p0 MOV %r5 = 0xb ;
	#9 @%p0 MOV %r6 = 0xd ;
	#10 @%p0 STS [0x0], %r3 ;
	#11 @%p0 STS [0x4], %r4 ;
	#12 @%p0 STS [0x8], %r5 ;
	#13 @%p0 STS [0xc], %r6 ;
	#14 STS [0x10], %r2 ;
	#15 EXIT ;
}
`

// TestTrimUndefined: the guarded MOVs' values are live back to the entry
// by liveness (a guarded write does not end a range), but no definition
// reaches the positions before #6, so they start at their MOVs and reuse
// the registers of %r0 and %r1 (R2, R0); RegAllocTrimUndefined=0 keeps
// the whole ranges, which overlap %r0 and %r1, and needs R6.
func TestTrimUndefined(t *testing.T) {
	m := parseModule(t, kernelHead+guardedKernel)
	_, st := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R2 = SR_TID.X ;
	#3 S2R R0 = SR_TID.Y ;
	#4 IADD3 R5 = R2, R0, RZ ;
	#5 ISETP.EQ.U32.AND P0, PT = R5, 0x0, PT ;
	#6 @P0 MOV R0 = 0x7 ;
	#7 @P0 MOV R2 = 0x9 ;
	#8 @P0 MOV R3 = 0xb ;
	#9 @P0 MOV R4 = 0xd ;
	#10 @P0 STS [0x0], R0 ;
	#11 @P0 STS [0x4], R2 ;
	#12 @P0 STS [0x8], R3 ;
	#13 @P0 STS [0xc], R4 ;
	#14 STS [0x10], R5 ;
	#15 EXIT ;
`)
	_, off := check(t, m, "k", regalloc.Options{Arch: 75, OptLevel: 3, Knobs: knobSet(t, "RegAllocTrimUndefined=0")}, `BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 S2R R6 = SR_TID.X ;
	#3 S2R R2 = SR_TID.Y ;
	#4 IADD3 R2 = R6, R2, RZ ;
	#5 ISETP.EQ.U32.AND P0, PT = R2, 0x0, PT ;
	#6 @P0 MOV R0 = 0x7 ;
	#7 @P0 MOV R3 = 0x9 ;
	#8 @P0 MOV R4 = 0xb ;
	#9 @P0 MOV R5 = 0xd ;
	#10 @P0 STS [0x0], R0 ;
	#11 @P0 STS [0x4], R3 ;
	#12 @P0 STS [0x8], R4 ;
	#13 @P0 STS [0xc], R5 ;
	#14 STS [0x10], R2 ;
	#15 EXIT ;
`)
	if st.Regs != 8 || off.Regs != 9 {
		t.Errorf("registers %d trimmed, %d untrimmed; want 8 and 9", st.Regs, off.Regs)
	}
}
