package sched_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
	"orilab/pipeline/sched"
)

// TestScheduleKeepsResults schedules every corpus kernel in every mode and
// executes it: the results must not change, the IR must still verify, and
// every instruction must keep its ID.
func TestScheduleKeepsResults(t *testing.T) {
	ks := corpus(t, 120)
	moved := map[sched.Mode]int{}
	for _, k := range ks {
		for _, mode := range []sched.Mode{sched.ModeAuto, sched.ModeReduceReg, sched.ModeILP, sched.ModeDynBatch} {
			m := k.preRA.Clone()
			for _, f := range m.Funcs {
				ids := idSet(f)
				st, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, Mode: mode})
				if err != nil {
					t.Fatalf("%s %s: %v", k.name, mode, err)
				}
				moved[mode] += st.Moved
				if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
					t.Errorf("%s %s: %v", k.name, mode, err)
				}
				if got := idSet(f); len(got) != len(ids) {
					t.Errorf("%s %s: %d instructions before, %d after", k.name, mode, len(ids), len(got))
				} else {
					for id := range ids {
						if !got[id] {
							t.Errorf("%s %s: instruction #%d lost", k.name, mode, id)
						}
					}
				}
			}
			run(t, k, m, mode.String())
		}
	}
	for mode, n := range moved {
		if n == 0 {
			t.Errorf("mode %s moved no instruction in the whole corpus", mode)
		}
	}
	t.Logf("%d kernels; instructions moved per mode: %v", len(ks), moved)
}

func idSet(f *ori.Func) map[int32]bool {
	s := map[int32]bool{}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			s[in.ID] = true
		}
	}
	return s
}

// TestDAGRandomOrders executes every corpus kernel in several random
// topological orders of its blocks' dependency DAGs. A missing edge shows
// up as a wrong result in some order.
func TestDAGRandomOrders(t *testing.T) {
	for _, k := range corpus(t, 120) {
		for seed := int64(1); seed <= 6; seed++ {
			m := k.preRA.Clone()
			for _, f := range m.Funcs {
				sched.ShuffleFunc(f, 75, seed)
				if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
					t.Fatalf("%s seed %d: %v", k.name, seed, err)
				}
			}
			run(t, k, m, "shuffled")
		}
	}
}

// fourLoads loads, increments and stores four neighbouring words.
const fourLoads = `.entry m
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r1.64 = %r0, 0x4, RZ ;
	#3 LDG.E %r2 = [%r1.64] ;
	#4 IADD3 %r3 = %r2, 0x1, RZ ;
	#5 STG.E [%r1.64], %r3 ;
	#6 LDG.E %r4 = [%r1.64+0x4] ;
	#7 IADD3 %r5 = %r4, 0x1, RZ ;
	#8 STG.E [%r1.64+0x4], %r5 ;
	#9 LDG.E %r6 = [%r1.64+0x8] ;
	#10 IADD3 %r7 = %r6, 0x1, RZ ;
	#11 STG.E [%r1.64+0x8], %r7 ;
	#12 LDG.E %r8 = [%r1.64+0xc] ;
	#13 IADD3 %r9 = %r8, 0x1, RZ ;
	#14 STG.E [%r1.64+0xc], %r9 ;
	#15 EXIT ;
}
`

// order returns the instruction IDs of f in layout order.
func order(f *ori.Func) string {
	var ids []string
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			ids = append(ids, strconv.Itoa(int(in.ID)))
		}
	}
	return strings.Join(ids, " ")
}

func knobSet(t *testing.T, cli ...string) *knobs.Set {
	t.Helper()
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{CLI: cli})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestModes pins each mode's order on one block. The stores and loads use
// one base register with disjoint offsets, so loads may rise above stores.
func TestModes(t *testing.T) {
	cases := []struct {
		name  string
		mode  sched.Mode
		knobs []string
		want  string
		stats sched.Stats
	}{
		// ReduceReg keeps one loaded value live at a time: the input
		// order is already the best.
		{"ReduceReg", sched.ModeReduceReg, nil, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
			sched.Stats{Passes: []sched.Mode{sched.ModeReduceReg}, Blocks: 1, Insts: 15, CyclesBefore: 173, CyclesAfter: 173, PressureBefore: 3, PressureAfter: 3}},
		// ILP issues every load first; the loads' latencies overlap.
		{"ILP", sched.ModeILP, nil, "1 2 3 6 9 12 4 5 7 8 10 11 13 14 15",
			sched.Stats{Passes: []sched.Mode{sched.ModeILP}, Blocks: 1, Insts: 15, Moved: 9, CyclesBefore: 173, CyclesAfter: 77, PressureBefore: 3, PressureAfter: 6}},
		// A budget of 8-3 = 5 registers holds the fourth load back until
		// a value has died.
		{"ILP under a register budget", sched.ModeILP, []string{"SchedMaxRTarget=8"}, "1 2 3 6 9 4 5 7 12 10 8 11 13 14 15",
			sched.Stats{Passes: []sched.Mode{sched.ModeILP}, Blocks: 1, Insts: 15, Moved: 8, CyclesBefore: 173, CyclesAfter: 99, PressureBefore: 3, PressureAfter: 5}},
		// DynBatch with batches of two: two loads, a consumer, two loads.
		{"DynBatch", sched.ModeDynBatch, []string{"SchedTexBatchTargetSelectRegisterTarget=2"}, "1 2 3 6 4 9 12 7 10 5 13 8 11 14 15",
			sched.Stats{Passes: []sched.Mode{sched.ModeDynBatch}, Blocks: 1, Insts: 15, Moved: 10, CyclesBefore: 173, CyclesAfter: 103, PressureBefore: 3, PressureAfter: 6}},
		// The gate knob off: nothing runs.
		{"ScheduleInstructions=0", sched.ModeILP, []string{"ScheduleInstructions=0"}, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
			sched.Stats{}},
	}
	for _, c := range cases {
		f := parse(t, fourLoads)
		st, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, Mode: c.mode, Knobs: knobSet(t, c.knobs...)})
		if err != nil {
			t.Fatal(err)
		}
		if got := order(f); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
		if !reflect.DeepEqual(*st, c.stats) {
			t.Errorf("%s: stats %+v, want %+v", c.name, *st, c.stats)
		}
	}
}

// TestKeepPressure: at -O3 the ILP pass after ReduceReg may not raise the
// pressure above the peak ReduceReg left (3 words: the address pair and
// one loaded value), so the loads stay where they are; with
// SchedKeepPressure=0 it issues every load first and holds 6.
func TestKeepPressure(t *testing.T) {
	for _, c := range []struct {
		knobs []string
		want  string
		peak  int
	}{
		{nil, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", 3},
		{[]string{"SchedKeepPressure=0"}, "1 2 3 6 9 12 4 5 7 8 10 11 13 14 15", 6},
	} {
		f := parse(t, fourLoads)
		st, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, Knobs: knobSet(t, c.knobs...)})
		if err != nil {
			t.Fatal(err)
		}
		if got := order(f); got != c.want || st.PressureAfter != c.peak {
			t.Errorf("%v: order %s, pressure %d; want %s, %d", c.knobs, got, st.PressureAfter, c.want, c.peak)
		}
	}
}

// TestPlan: the passes ModeAuto chooses, as ptxas's orchestrator does.
func TestPlan(t *testing.T) {
	cases := []struct {
		opt    int
		postRA bool
		knobs  []string
		want   string
	}{
		{0, false, nil, "[]"},
		{1, false, nil, "[ILP]"},
		{2, false, nil, "[ILP]"},
		{3, false, nil, "[ReduceReg ILP]"},
		{3, false, []string{"ScheduleInstructionsReduceReg=0"}, "[ILP]"},
		{3, false, []string{"ScheduleInstructionsDynBatch=1"}, "[ReduceReg ILP DynBatch]"},
		{3, true, nil, "[ILP]"},
		{0, true, nil, "[]"},
		{3, false, []string{"ScheduleInstructions=0"}, "[]"},
	}
	for _, c := range cases {
		f := parse(t, fourLoads)
		if c.postRA {
			f = parse(t, loopKernel)
		}
		st, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: c.opt, PostRA: c.postRA, Knobs: knobSet(t, c.knobs...)})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(st.Passes); got != c.want {
			t.Errorf("-O%d postRA=%v %v: passes %s, want %s", c.opt, c.postRA, c.knobs, got, c.want)
		}
	}
}

func TestScheduleErrors(t *testing.T) {
	f := parse(t, fourLoads)
	_, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, PostRA: true})
	if err == nil || err.Error() != "sched: m BB0 #1: virtual register in S2R after register allocation" {
		t.Errorf("got %v", err)
	}
	if _, err := sched.ParseMode("ilp"); err != nil {
		t.Error(err)
	}
	if _, err := sched.ParseMode("fast"); err == nil || err.Error() != `unknown scheduling mode "fast" (want auto, ReduceReg, ILP or DynBatch)` {
		t.Errorf("got %v", err)
	}
}

// TestPostRASchedule reorders allocated code: only physical-register
// dependencies bind it. The loop kernel's block BB2 has a store, its
// source's overwrite and a chain; nothing may cross the chain.
func TestPostRASchedule(t *testing.T) {
	f := parse(t, loopKernel)
	st, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, PostRA: true})
	if err != nil {
		t.Fatal(err)
	}
	// BB0: the MOV of R1 stays first (a write of the stack pointer is a
	// full barrier); MOV R7 fills the cycles the load waits for its
	// address. BB1: the loop's load rises above the IADD3 as soon as the
	// IMAD has read R6, which the load overwrites.
	if got, want := order(f), "1 2 3 4 6 5 7 9 8 10 11 12 13 14 15 16 17"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	if st.CyclesAfter >= st.CyclesBefore {
		t.Errorf("cycles %d -> %d", st.CyclesBefore, st.CyclesAfter)
	}
	if err := sched.AssignControlWords(f, 75); err != nil {
		t.Fatal(err)
	}
	if err := sched.CheckHazards(f, 75); err != nil {
		t.Error(err)
	}
}

// TestRegionLimit: blocks longer than 4095 instructions are scheduled in
// pieces of 4095 that keep their order, as ptxas splits them.
func TestRegionLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(".entry big\n.shared 0x0\n.local 0x0\n{\nBB0:\n")
	n := 4100
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\t#%d IADD3 %%r%d = %%r0, %#x, RZ ;\n", i, i, i)
	}
	// The load would go first in one region of 4100.
	fmt.Fprintf(&b, "\t#%d LDG.E %%r%d = [%%r0.64] ;\n}\n", n, n)
	f := parse(t, b.String())
	if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, Mode: sched.ModeILP}); err != nil {
		t.Fatal(err)
	}
	for i, in := range f.Blocks[0].Insts {
		if (i < 4095) != (in.ID < 4096) {
			t.Fatalf("instruction #%d at position %d crossed the region boundary", in.ID, i)
		}
	}
	if f.Blocks[0].Insts[4095].ID != int32(n) {
		t.Errorf("the load is not first in its region: #%d", f.Blocks[0].Insts[4095].ID)
	}
}

// TestKnobsRegistered: the knobs the scheduler reads are registered with
// ptxas's names and the wiki's defaults.
func TestKnobsRegistered(t *testing.T) {
	want := map[string]string{
		"ScheduleInstructions": "1", "ScheduleInstructionsReduceReg": "1", "ScheduleInstructionsDynBatch": "0",
		"SchedReadAvailTarget": "4", "SchedMaxRTarget": "0", "SchedMaxRLiveOKslack": "3",
		"SchedTexBatchTargetSelectRegisterTarget": "8",
	}
	for name, def := range want {
		k, ok := knobs.Default.Lookup(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if k.Default != def || len(k.Readers) == 0 || k.Doc == "" {
			t.Errorf("%s: %+v", name, k)
		}
	}
}

// TestNoMeasure checks that skipping the statistics' measurement (what the
// compile pipeline does) schedules every corpus kernel exactly as a
// measured run does, and leaves only the measured figures zero.
func TestNoMeasure(t *testing.T) {
	ks := corpus(t, 20)
	measured := 0
	for _, k := range ks {
		a, b := k.preRA.Clone(), k.preRA.Clone()
		for i := range a.Funcs {
			sa, err := sched.Schedule(a.Funcs[i], sched.Options{Arch: 75, OptLevel: 3})
			if err != nil {
				t.Fatalf("%s: %v", k.name, err)
			}
			sb, err := sched.Schedule(b.Funcs[i], sched.Options{Arch: 75, OptLevel: 3, NoMeasure: true})
			if err != nil {
				t.Fatalf("%s: %v", k.name, err)
			}
			if x, y := a.Funcs[i].String(), b.Funcs[i].String(); x != y {
				t.Errorf("%s: NoMeasure scheduled differently:\n%s\nmeasured:\n%s", k.name, y, x)
			}
			if sb.CyclesBefore != 0 || sb.CyclesAfter != 0 || sb.PressureBefore != 0 || sb.PressureAfter != 0 {
				t.Errorf("%s: NoMeasure reported figures: %+v", k.name, sb)
			}
			if sa.Moved != sb.Moved || sa.Blocks != sb.Blocks || sa.Insts != sb.Insts || !reflect.DeepEqual(sa.Passes, sb.Passes) {
				t.Errorf("%s: stats differ: measured %+v, not measured %+v", k.name, sa, sb)
			}
			if sa.CyclesBefore > 0 {
				measured++
			}
		}
	}
	if measured == 0 {
		t.Error("no kernel had measured cycles: the comparison checks nothing")
	}
}

// tupleByWords builds the data tuple of a 128-bit store word by word, its
// first word well before the others.
const tupleByWords = `.entry m
.shared 0x0
.local 0x0
{
BB0:
	#1 S2R %r0 = SR_TID.X ;
	#2 IMAD.WIDE.U32 %r1.64 = %r0, 0x10, RZ ;
	#3 IADD3 %r2 = %r0, 0x1, RZ ;
	#4 LDG.E %r3 = [%r1.64] ;
	#5 IADD3 %r2[1] = %r3, 0x1, RZ ;
	#6 IADD3 %r2[2] = %r3, 0x2, RZ ;
	#7 IADD3 %r2[3] = %r3, 0x3, RZ ;
	#8 STG.E.128 [%r1.64], %r2.128 ;
	#9 EXIT ;
}
`

// TestPressureCountsRegistersWhole: the tracker counts the tuple %r2 as
// four live words from its first partial definition (#3), as the
// allocator gives it one live range: after #4 the address pair, the
// whole tuple and the loaded word, 7. Counting word by word it saw 6 (the
// tuple's first word only until #5), and the ILP pass could spread a
// tuple's definitions within that count while the allocator needed more.
func TestPressureCountsRegistersWhole(t *testing.T) {
	f := parse(t, tupleByWords)
	st, err := sched.Schedule(f, sched.Options{Arch: 80, OptLevel: 3, Mode: sched.ModeReduceReg, Knobs: knobSet(t)})
	if err != nil {
		t.Fatal(err)
	}
	if st.PressureBefore != 7 {
		t.Errorf("input order: pressure %d, want 7", st.PressureBefore)
	}
	// ReduceReg opens the tuple after the load, where %r0 dies at #3
	// instead of living beside the open tuple; the peak stays 7 (the
	// address, the tuple and the loaded word after #3).
	if got, want := order(f), "1 2 4 3 5 6 7 8 9"; got != want || st.PressureAfter != 7 {
		t.Errorf("ReduceReg: order %s, pressure %d; want %s, 7", got, st.PressureAfter, want)
	}
}
