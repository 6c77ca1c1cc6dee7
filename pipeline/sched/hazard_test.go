package sched_test

import (
	"errors"
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/sched"
)

// inst returns the instruction with the given ID.
func inst(t *testing.T, f *ori.Func, id int32) *ori.Inst {
	t.Helper()
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.ID == id {
				return in
			}
		}
	}
	t.Fatalf("no instruction #%d", id)
	return nil
}

// TestCheckHazardsCatchesWeakenedWords weakens loopKernel's control words
// one way at a time; the checker must name the exact hazard.
func TestCheckHazardsCatchesWeakenedWords(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(f *ori.Func)
		want   string
	}{
		{"stall lowered", func(f *ori.Func) { inst(t, f, 7).Ctrl.Stall = 4 },
			"hazard k BB1 #8: reads R9 4 cycles after #7 (IMAD) wrote it, latency 5; needs stall or barrier"},
		{"stall lowered across a block edge", func(f *ori.Func) { inst(t, f, 6).Ctrl.Stall = 1 },
			"hazard k BB1 #7: reads R7 1 cycles after #6 (MOV) wrote it, latency 4; needs stall or barrier"},
		{"stall lowered before a load", func(f *ori.Func) { inst(t, f, 4).Ctrl.Stall = 1 },
			"hazard k BB0 #5: reads R4 3 cycles after #2 (MOV) wrote it, latency 4; needs stall or barrier"},
		{"wait bit removed", func(f *ori.Func) { inst(t, f, 7).Ctrl.Wait &^= 1 << 1 },
			"hazard k BB1 #7: reads R6 before #5 (LDG) has written it; needs a wait on barrier 1"},
		{"wait bit removed on the loop's back edge", func(f *ori.Func) { inst(t, f, 7).Ctrl.Wait &^= 1 << 0 },
			"hazard k BB1 #7: reads R6 before #9 (LDG) has written it; needs a wait on barrier 0"},
		{"write barrier dropped", func(f *ori.Func) { inst(t, f, 9).Ctrl.WrBar = -1 },
			"hazard k BB1 #7: reads R6 before #9 (LDG) has written it; #9 sets no write barrier"},
		{"read barrier dropped", func(f *ori.Func) { inst(t, f, 12).Ctrl.RdBar = -1 },
			"hazard k BB2 #13: overwrites R7 before #12 (STG) has read it; #12 sets no read or write barrier"},
		{"WAR wait removed", func(f *ori.Func) { inst(t, f, 13).Ctrl.Wait = 0 },
			"hazard k BB2 #13: overwrites R7 before #12 (STG) has read it; needs a wait on barrier 1"},
		{"wait on an unset barrier", func(f *ori.Func) { inst(t, f, 14).Ctrl.Wait |= 1 << 3 },
			"hazard k BB2 #14: waits for barrier 3, which no instruction has set"},
		{"bad reuse flag", func(f *ori.Func) { inst(t, f, 15).Srcs[1].Reuse = true },
			"hazard k BB2 #15: reuse flag on source 1 (R10): #16 does not read R10 as source 1"},
		{"reuse on the last instruction", func(f *ori.Func) { inst(t, f, 11).Srcs[0].Reuse = false; inst(t, f, 10).Srcs[0].Reuse = true },
			"hazard k BB1 #10: reuse flag on source 0 (R7): #10 and #11 are not both fixed-latency ALU, FMA or FP64 instructions"},
		{"no control word", func(f *ori.Func) { inst(t, f, 1).Ctrl.Set = false },
			"hazard k BB0 #1: has no control word"},
		{"stall out of range", func(f *ori.Func) { inst(t, f, 2).Ctrl.Stall = 16 },
			"hazard k BB0 #2: stall 16 is out of range 0-15"},
		{"barrier out of range", func(f *ori.Func) { inst(t, f, 5).Ctrl.WrBar = 6 },
			"hazard k BB0 #5: write barrier 6 is out of range 0-5"},
	}
	for _, c := range cases {
		f := parse(t, loopKernel)
		if err := sched.AssignControlWords(f, 75); err != nil {
			t.Fatal(err)
		}
		c.mutate(f)
		err := sched.CheckHazards(f, 75)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

// TestCheckHazardsError: the error carries the instructions and register.
func TestCheckHazardsError(t *testing.T) {
	f := parse(t, loopKernel)
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	inst(t, f, 7).Ctrl.Stall = 2
	var h *sched.HazardError
	if err := sched.CheckHazards(f, 75); !errors.As(err, &h) {
		t.Fatalf("got %v, want a *HazardError", err)
	}
	if *h != (sched.HazardError{Func: "k", Block: 1, Inst: 8, Producer: 7, Reg: "R9", Msg: "reads R9 2 cycles after #7 (IMAD) wrote it, latency 5; needs stall or barrier"}) {
		t.Errorf("got %+v", *h)
	}
}

// drainKernel has a load pending at a CALL and a fixed-latency result
// pending at a BAR.
const drainKernel = `.entry d
.shared 0x0
.local 0x0
{
BB0:
	#1 LDG.E R6 = [R4.64] ;
	#2 CALL.REL.NOINC ` + "`f`" + ` ;
	#3 IADD3 R6 = R8, 0x1, RZ ;
	#4 BAR.SYNC 0x0 ;
	#5 IMAD.WIDE R10.64 = R8, 0x4, RZ ;
	#6 IADD3 R10 = R9, 0x1, RZ ;
	#7 EXIT ;
}
`

func TestDrainPoints(t *testing.T) {
	f := parse(t, drainKernel)
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	// The CALL waits for the load; the BAR's predecessor stalls until the
	// IADD3 lands; IADD3 R10 waits until the wide IMAD's write to R10 (6
	// cycles) cannot land after its own (4 cycles): 6-4+1 = 3.
	want := "#1 [B------:R-:W0:-:S01] LDG.E R6 = [R4.64] ;\n" +
		"#2 [B0-----:R-:W-:Y:S01] CALL.REL.NOINC `f` ;\n" +
		"#3 [B------:R-:W-:Y:S04] IADD3 R6 = R8, 0x1, RZ ;\n" +
		"#4 [B------:R-:W-:-:S01] BAR.SYNC 0x0 ;\n" +
		"#5 [B------:R-:W-:-:S03] IMAD.WIDE R10.64 = R8, 0x4, RZ ;\n" +
		"#6 [B------:R-:W-:-:S01] IADD3 R10 = R9, 0x1, RZ ;\n" +
		"#7 [B------:R-:W-:Y:S03] EXIT ;\n"
	if got := body(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := sched.CheckHazards(f, 75); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(f *ori.Func)
		want   string
	}{
		{"CALL without its wait", func(f *ori.Func) { inst(t, f, 2).Ctrl.Wait = 0 },
			"hazard d BB0 #2: CALL issues before #1 (LDG) has written R6; needs a wait on barrier 0"},
		{"BAR too early", func(f *ori.Func) { inst(t, f, 3).Ctrl.Stall = 2 },
			"hazard d BB0 #4: BAR issues 2 cycles after #3 (IADD3) wrote R6, latency 4; needs stall"},
		{"out-of-order writes", func(f *ori.Func) { inst(t, f, 5).Ctrl.Stall = 2 },
			"hazard d BB0 #6: overwrites R10 2 cycles after #5 (IMAD) wrote it, latency 6; the writes can land out of order; needs stall"},
	}
	for _, c := range cases {
		f := parse(t, drainKernel)
		if err := sched.AssignControlWords(f, 75); err != nil {
			t.Fatal(err)
		}
		c.mutate(f)
		if err := sched.CheckHazards(f, 75); err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

// TestReuseOfOwnResult: a reuse flag keeps the value an instruction read,
// so it must not be set on a register the instruction itself overwrites.
func TestReuseOfOwnResult(t *testing.T) {
	f := parse(t, `.entry r
.shared 0x0
.local 0x0
{
BB0:
	#1 FADD R7 = R7, R8 ;
	#2 FADD R9 = R7, R8 ;
	#3 EXIT ;
}
`)
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	// #1 yields (stall 4), so it gets no reuse flag at all.
	want := `#1 [B------:R-:W-:Y:S04] FADD R7 = R7, R8 ;
#2 [B------:R-:W-:-:S01] FADD R9 = R7, R8 ;
#3 [B------:R-:W-:Y:S03] EXIT ;
`
	if got := body(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	inst(t, f, 1).Srcs[0].Reuse = true
	if err := sched.CheckHazards(f, 75); err == nil || err.Error() != "hazard r BB0 #1: reuse flag on source 0 (R7): #1 writes R7 itself" {
		t.Errorf("got %v", err)
	}
}
