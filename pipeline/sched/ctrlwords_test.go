package sched_test

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/sched"
)

// loopKernel is allocated Ori with a load in a loop, a load consumed
// across blocks, a store whose source is then overwritten and a chain of
// fixed-latency arithmetic.
const loopKernel = `.entry k
.param p offset=0x160 size=0x8 align=0x8
.shared 0x0
.local 0x0
{
BB0:
	#1 MOV R1 = c[0x0][0x28] ;
	#2 MOV R4 = c[0x0][0x160] ;
	#3 MOV R5 = c[0x0][0x164] ;
	#4 S2R R8 = SR_TID.X ;
	#5 LDG.E R6 = [R4.64] ;
	#6 MOV R7 = RZ ;
BB1:
	#7 IMAD R9 = R6, R8, R7 ;
	#8 IADD3 R7 = R9, R8, RZ ;
	#9 LDG.E R6 = [R4.64+0x4] ;
	#10 ISETP.LT.AND P0, PT = R7, 0x100, PT ;
	#11 @P0 BRA BB1 ;
BB2:
	#12 STG.E [R4.64+0x8], R7 ;
	#13 IADD3 R7 = R7, 0x1, RZ ;
	#14 FADD R10 = R7, R7 ;
	#15 FMUL R11 = R7, R10 ;
	#16 FMUL R12 = R7, R11 ;
	#17 EXIT ;
}
`

func parse(t *testing.T, src string) *ori.Func {
	t.Helper()
	f, err := ori.ParseFunc("t.ori", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// body returns the instruction lines of f's text form.
func body(f *ori.Func) string {
	var b strings.Builder
	for _, bl := range f.Blocks {
		for _, in := range bl.Insts {
			b.WriteString(in.String())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestAssignControlWords(t *testing.T) {
	f := parse(t, loopKernel)
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	// S2R and the first load take barriers 0 and 1; the loop's load
	// reuses 0 once #7 has waited on it; the store takes 1 for its
	// sources because 0 is still pending from the loop. Stalls cover
	// MOV (4), IMAD (5) and IADD3/ISETP/FADD/FMUL (4); the last
	// instruction of a block waits out what is still in flight. #7,
	// #14 and #15 read a register their successor reads in the same
	// slot, but they yield, so they get no reuse flag
	// (TestReuseNotOnYield).
	want := `#1 [B------:R-:W-:-:S01] MOV R1 = c[0x0][0x28] ;
#2 [B------:R-:W-:-:S01] MOV R4 = c[0x0][0x160] ;
#3 [B------:R-:W-:-:S01] MOV R5 = c[0x0][0x164] ;
#4 [B------:R-:W0:-:S03] S2R R8 = SR_TID.X ;
#5 [B------:R-:W1:-:S01] LDG.E R6 = [R4.64] ;
#6 [B------:R-:W-:Y:S04] MOV R7 = RZ ;
#7 [B01----:R-:W-:Y:S05] IMAD R9 = R6, R8, R7 ;
#8 [B------:R-:W-:-:S01] IADD3 R7 = R9, R8, RZ ;
#9 [B------:R-:W0:-:S03] LDG.E R6 = [R4.64+0x4] ;
#10 [B------:R-:W-:Y:S04] ISETP.LT.AND P0, PT = R7, 0x100, PT ;
#11 [B------:R-:W-:Y:S01] @P0 BRA BB1 ;
#12 [B------:R1:W-:-:S01] STG.E [R4.64+0x8], R7 ;
#13 [B-1----:R-:W-:Y:S04] IADD3 R7 = R7, 0x1, RZ ;
#14 [B------:R-:W-:Y:S04] FADD R10 = R7, R7 ;
#15 [B------:R-:W-:Y:S04] FMUL R11 = R7, R10 ;
#16 [B------:R-:W-:-:S01] FMUL R12 = R7, R11 ;
#17 [B------:R-:W-:Y:S03] EXIT ;
`
	if got := body(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := sched.CheckHazards(f, 75); err != nil {
		t.Error(err)
	}
	// The text form round-trips the control words and reuse flags.
	g := parse(t, f.String())
	if body(g) != body(f) {
		t.Errorf("round trip changed the control words:\n%s", body(g))
	}
}

// TestReuseNotOnYield: consecutive FMA-pipe instructions reading R7 as
// source A share it through the reuse cache, except after an
// instruction that yields: a yield empties the cache, and nvdisasm does
// not print such a flag.
func TestReuseNotOnYield(t *testing.T) {
	f := parse(t, `.entry r
.shared 0x0
.local 0x0
{
BB0:
	#1 FADD R10 = R7, R8 ;
	#2 FADD R11 = R7, R9 ;
	#3 FADD R12 = R7, R11 ;
	#4 FADD R13 = R7, R12 ;
	#5 EXIT ;
}
`)
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	want := `#1 [B------:R-:W-:-:S01] FADD R10 = R7.reuse, R8 ;
#2 [B------:R-:W-:Y:S04] FADD R11 = R7, R9 ;
#3 [B------:R-:W-:Y:S04] FADD R12 = R7, R11 ;
#4 [B------:R-:W-:-:S01] FADD R13 = R7, R12 ;
#5 [B------:R-:W-:Y:S03] EXIT ;
`
	if got := body(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	inst(t, f, 2).Srcs[0].Reuse = true
	if err := sched.CheckHazards(f, 75); err == nil || err.Error() != "hazard r BB0 #2: reuse flag on source 0 (R7): #2 yields, which empties the reuse cache" {
		t.Errorf("got %v", err)
	}
}

func TestAssignConservativeControlWords(t *testing.T) {
	f := parse(t, loopKernel)
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	// The -O0 form replaces everything, reuse flags included.
	if err := sched.AssignConservativeControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	want := `#1 [B------:R-:W-:Y:S15] MOV R1 = c[0x0][0x28] ;
#2 [B------:R-:W-:Y:S15] MOV R4 = c[0x0][0x160] ;
#3 [B------:R-:W-:Y:S15] MOV R5 = c[0x0][0x164] ;
#4 [B------:R-:W0:Y:S15] S2R R8 = SR_TID.X ;
#5 [B0-----:R-:W0:Y:S15] LDG.E R6 = [R4.64] ;
#6 [B0-----:R-:W-:Y:S15] MOV R7 = RZ ;
#7 [B------:R-:W-:Y:S15] IMAD R9 = R6, R8, R7 ;
#8 [B------:R-:W-:Y:S15] IADD3 R7 = R9, R8, RZ ;
#9 [B------:R-:W0:Y:S15] LDG.E R6 = [R4.64+0x4] ;
#10 [B0-----:R-:W-:Y:S15] ISETP.LT.AND P0, PT = R7, 0x100, PT ;
#11 [B------:R-:W-:Y:S15] @P0 BRA BB1 ;
#12 [B------:R1:W-:Y:S15] STG.E [R4.64+0x8], R7 ;
#13 [B-1----:R-:W-:Y:S15] IADD3 R7 = R7, 0x1, RZ ;
#14 [B------:R-:W-:Y:S15] FADD R10 = R7, R7 ;
#15 [B------:R-:W-:Y:S15] FMUL R11 = R7, R10 ;
#16 [B------:R-:W-:Y:S15] FMUL R12 = R7, R11 ;
#17 [B------:R-:W-:Y:S15] EXIT ;
`
	if got := body(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := sched.CheckHazards(f, 75); err != nil {
		t.Error(err)
	}
}

// TestControlWordsRejectVirtual: control words need allocated code.
func TestControlWordsRejectVirtual(t *testing.T) {
	src := `.entry v
.shared 0x0
.local 0x0
{
BB0:
	#1 IADD3 %r0 = RZ, 0x1, RZ ;
	#2 EXIT ;
}
`
	want := "sched: v BB0 #1: virtual register in IADD3; control words need physical registers"
	for name, fn := range map[string]func(*ori.Func, int) error{
		"AssignControlWords": sched.AssignControlWords, "AssignConservativeControlWords": sched.AssignConservativeControlWords,
	} {
		if err := fn(parse(t, src), 75); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	f := parse(t, src)
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			in.Ctrl.Set = true
		}
	}
	if err := sched.CheckHazards(f, 75); err == nil || err.Error() != "hazard v BB0 #1: virtual register in IADD3 after register allocation" {
		t.Errorf("CheckHazards: got %v", err)
	}
}

// TestControlWordsRejectOutsideFile: a register numbered past its class's
// file (which no allocation gives, the parser refuses, and the barrier
// tables have no room for) is an error naming it, not an index out of
// range or another register's barriers. Each form runs twice, so that the
// second call starts from the kept tables the first left.
func TestControlWordsRejectOutsideFile(t *testing.T) {
	src := `.entry v
.shared 0x0
.local 0x0
{
BB0:
	#1 @P0 IADD3 R2 = R3, UR4, RZ ;
	#2 EXIT ;
}
`
	for _, c := range []struct {
		name string
		edit func(in *ori.Inst)
	}{
		{"R300", func(in *ori.Inst) { in.Srcs[0].Reg.N = 300 }},
		{"UR64", func(in *ori.Inst) { in.Srcs[1].Reg.N = 64 }},
		{"P9", func(in *ori.Inst) { in.Guard.N = 9 }},
	} {
		want := "sched: v BB0 #1: " + c.name + " in IADD3 is outside the register file"
		for range 2 {
			for name, fn := range map[string]func(*ori.Func, int) error{
				"AssignControlWords": sched.AssignControlWords, "AssignConservativeControlWords": sched.AssignConservativeControlWords,
			} {
				f := parse(t, src)
				c.edit(f.Blocks[0].Insts[0])
				if err := fn(f, 75); err == nil || err.Error() != want {
					t.Errorf("%s: got %v, want %q", name, err, want)
				}
			}
		}
	}
}

// TestBarrierRecycling: with more than six loads in flight the allocator
// recycles the oldest barrier, and the instruction that takes it over
// waits on it first.
func TestBarrierRecycling(t *testing.T) {
	var b strings.Builder
	b.WriteString(".entry r\n.shared 0x0\n.local 0x0\n{\nBB0:\n")
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "\t#%d LDG.E R%d = [R4.64+%#x] ;\n", i+1, 10+i, 4*i)
	}
	b.WriteString("\t#8 IADD3 R20 = R10, R16, RZ ;\n\t#9 EXIT ;\n}\n")
	f := parse(t, b.String())
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	want := `#1 [B------:R-:W0:-:S01] LDG.E R10 = [R4.64] ;
#2 [B------:R-:W1:-:S01] LDG.E R11 = [R4.64+0x4] ;
#3 [B------:R-:W2:-:S01] LDG.E R12 = [R4.64+0x8] ;
#4 [B------:R-:W3:-:S01] LDG.E R13 = [R4.64+0xc] ;
#5 [B------:R-:W4:-:S01] LDG.E R14 = [R4.64+0x10] ;
#6 [B------:R-:W5:-:S01] LDG.E R15 = [R4.64+0x14] ;
#7 [B0-----:R-:W0:-:S01] LDG.E R16 = [R4.64+0x18] ;
#8 [B0-----:R-:W-:-:S01] IADD3 R20 = R10, R16, RZ ;
#9 [B------:R-:W-:Y:S03] EXIT ;
`
	if got := body(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := sched.CheckHazards(f, 75); err != nil {
		t.Error(err)
	}
}

// TestReuseNotOnFCHK: FCHK's operands carry no reuse flag (nvdisasm
// prints none for its word with the bit set).
func TestReuseNotOnFCHK(t *testing.T) {
	f := parse(t, `.entry r
.shared 0x0
.local 0x0
{
BB0:
	#1 FCHK.DIVIDE P0 = R7, R8 ;
	#2 FCHK.DIVIDE P1 = R7, R9 ;
	#3 EXIT ;
}
`)
	if err := sched.AssignControlWords(f, 80); err != nil {
		t.Fatal(err)
	}
	if got := body(f); strings.Contains(got, "reuse") {
		t.Errorf("FCHK got a reuse flag:\n%s", got)
	}
	inst(t, f, 1).Srcs[0].Reuse = true
	if err := sched.CheckHazards(f, 80); err == nil || !strings.Contains(err.Error(), "#1 is FCHK, which prints no reuse flag") {
		t.Errorf("got %v", err)
	}
}
