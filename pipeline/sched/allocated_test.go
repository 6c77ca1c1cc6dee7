package sched_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/sched"
)

// backEnd compiles k's pre-RA IR the way the back-end phases do:
// ScheduleInstructions, AllocateRegisters, PostSchedule and the control
// words (conservative at -O0). pre and post pick the scheduling modes;
// schedule false skips both scheduling passes.
func backEnd(k kernel, opt int, schedule bool, pre, post sched.Mode) (*ori.Module, error) {
	m := k.preRA.Clone()
	for _, f := range m.Funcs {
		if schedule {
			if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: opt, Mode: pre}); err != nil {
				return nil, err
			}
		}
		if _, err := regalloc.Allocate(f, regalloc.Options{Arch: 75, OptLevel: opt}); err != nil {
			return nil, fmt.Errorf("allocate: %w", err)
		}
		if schedule {
			if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: opt, PostRA: true, Mode: post}); err != nil {
				return nil, err
			}
		}
		var err error
		if opt == 0 {
			err = sched.AssignConservativeControlWords(f, 75)
		} else {
			err = sched.AssignControlWords(f, 75)
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

var allocatedOnce struct {
	sync.Mutex
	ks []kernel
}

// allocatedKernels returns the corpus kernels the allocator handles and
// whose allocated, unscheduled code passes: the baseline for the
// back-end tests.
func allocatedKernels(t *testing.T) []kernel {
	allocatedOnce.Lock()
	defer allocatedOnce.Unlock()
	if allocatedOnce.ks != nil {
		return allocatedOnce.ks
	}
	var out []kernel
	for _, k := range corpus(t, 120) {
		m, err := backEnd(k, 3, false, 0, 0)
		if err != nil {
			t.Logf("%s: %v (skipped)", k.name, err)
			continue
		}
		if ok, why := passes(k, m); !ok {
			t.Logf("%s: fails after allocation alone: %s (skipped)", k.name, why)
			continue
		}
		out = append(out, k)
	}
	if len(out) < 100 {
		t.Fatalf("only %d kernels allocate and pass, want at least 100", len(out))
	}
	allocatedOnce.ks = out
	return out
}

// TestControlWordsOnAllocatedKernels runs every allocatable corpus kernel
// through the back end in each post-RA scheduling mode and at -O0: the
// hazard checker must accept the control words and the kernel must still
// produce its expected results.
func TestControlWordsOnAllocatedKernels(t *testing.T) {
	ks := allocatedKernels(t)
	type variant struct {
		name      string
		opt       int
		schedule  bool
		pre, post sched.Mode
	}
	variants := []variant{
		{"-O3", 3, true, sched.ModeAuto, sched.ModeAuto},
		{"-O3 post-RA ReduceReg", 3, true, sched.ModeAuto, sched.ModeReduceReg},
		{"-O3 post-RA DynBatch", 3, true, sched.ModeDynBatch, sched.ModeDynBatch},
		{"-O1", 1, true, sched.ModeAuto, sched.ModeAuto},
		{"-O0", 0, true, sched.ModeAuto, sched.ModeAuto},
	}
	for _, k := range ks {
		for _, v := range variants {
			m, err := backEnd(k, v.opt, v.schedule, v.pre, v.post)
			if err != nil {
				t.Errorf("%s %s: %v", k.name, v.name, err)
				continue
			}
			for _, f := range m.Funcs {
				if err := sched.CheckHazards(f, 75); err != nil {
					t.Errorf("%s %s: %v", k.name, v.name, err)
				}
			}
			if ok, why := passes(k, m); !ok {
				t.Errorf("%s %s: %s", k.name, v.name, why)
			}
		}
	}
	t.Logf("%d kernels × %d variants", len(ks), len(variants))
}

// TestMutationsOnAllocatedKernels weakens the control words of every
// allocated corpus kernel in three ways, one mutation at a time, and
// checks that the checker reports the hazard the mutation opens, with the
// exact message. The expected message is derived here from the operands,
// not from the checker: a lowered stall before the reader of a
// fixed-latency result, a wait bit removed from the reader of a load's
// result, and a write or read barrier dropped from its producer.
func TestMutationsOnAllocatedKernels(t *testing.T) {
	counts := map[string]int{}
	for _, k := range allocatedKernels(t) {
		m, err := backEnd(k, 3, true, sched.ModeAuto, sched.ModeAuto)
		if err != nil {
			t.Fatal(err)
		}
		for fi, f := range m.Funcs {
			for _, mu := range mutations(f) {
				c := m.Clone().Funcs[fi]
				mu.apply(c)
				counts[mu.kind]++
				err := sched.CheckHazards(c, 75)
				if err == nil || err.Error() != mu.want {
					t.Errorf("%s %s:\n got %v\nwant %s", k.name, mu.kind, err, mu.want)
				}
			}
		}
	}
	t.Logf("mutations: %v", counts)
	// Stores whose sources are overwritten in the same block are the
	// rarest case.
	for kind, min := range map[string]int{"stall": 100, "wait": 100, "write barrier": 100, "read barrier": 10} {
		if counts[kind] < min {
			t.Errorf("only %d %q mutations in the corpus; the test needs at least %d", counts[kind], kind, min)
		}
	}
}

type mutation struct {
	kind  string
	apply func(f *ori.Func)
	want  string
}

// regWords names the words of a physical register operand.
func regWords(r ori.Reg) []string {
	if r.IsZero() {
		return nil
	}
	var out []string
	for i := 0; i < max(int(r.Words), 1); i++ {
		out = append(out, r.Class.String()+strconv.Itoa(int(r.N)+i))
	}
	return out
}

// readWords returns the guard's and the sources' words, in checking order.
func readWords(in *ori.Inst) []string {
	var out []string
	if in.Guarded() {
		out = append(out, regWords(in.Guard)...)
	}
	return append(out, srcWords(in)...)
}

func srcWords(in *ori.Inst) []string {
	var out []string
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdReg || ((o.Kind == ori.OpdMem || o.Kind == ori.OpdCBank) && o.HasBase) {
			out = append(out, regWords(o.Reg)...)
		}
	}
	return out
}

func dstWords(in *ori.Inst) []string {
	var out []string
	for _, o := range in.Dsts {
		if o.Kind == ori.OpdReg {
			out = append(out, regWords(o.Reg)...)
		}
	}
	return out
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func implicit(in *ori.Inst) bool {
	return in.Op == ori.OpP2R || in.Op == ori.OpR2P || in.Op == ori.OpCALL
}

func isDrain(in *ori.Inst) bool {
	return in.Op == ori.OpCALL || in.Op == ori.OpRET || in.Op == ori.OpBAR
}

// lastWriter returns the index of the last instruction before i in insts
// that writes w, or -1.
func lastWriter(insts []*ori.Inst, i int, w string) int {
	for j := i - 1; j >= 0; j-- {
		if contains(dstWords(insts[j]), w) || implicit(insts[j]) {
			return j
		}
	}
	return -1
}

// issueTimes returns the issue cycle of every instruction of a block from
// the control words' stalls (the hazard model: max(1, stall) apart).
func issueTimes(insts []*ori.Inst) []int {
	t := make([]int, len(insts))
	for i := 1; i < len(insts); i++ {
		t[i] = t[i-1] + max(1, int(insts[i-1].Ctrl.Stall))
	}
	return t
}

// cleanBefore reports whether every word y reads before position upto of
// its read list has a fixed-latency writer earlier in the block whose
// result has landed even if y issues early cycles sooner: then nothing
// but the mutation's hazard can be reported at y.
func cleanBefore(insts []*ori.Inst, yi, upto, early int) bool {
	t := issueTimes(insts)
	for _, w := range readWords(insts[yi])[:upto] {
		j := lastWriter(insts, yi, w)
		if j < 0 {
			return false
		}
		lat := sched.Latency(75, insts[j])
		if lat.Variable || t[j]+lat.Cycles > t[yi]-early {
			return false
		}
	}
	return true
}

// forwardOnly reports whether no block reachable from block bi (bi itself
// included, through a loop) comes at or before it in the layout: then a
// hazard the mutation leaves pending cannot be reported ahead of the one
// expected in block bi.
func forwardOnly(f *ori.Func, bi int) bool {
	index := map[*ori.Block]int{}
	for i, b := range f.Blocks {
		index[b] = i
	}
	seen := map[*ori.Block]bool{}
	stack := append([]*ori.Block(nil), f.Blocks[bi].Succs...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		if index[b] <= bi {
			return false
		}
		stack = append(stack, b.Succs...)
	}
	return true
}

// between reports whether an instruction strictly between positions p
// and y waits on barrier bar, is a drain point, or (with ws) writes one
// of the words ws.
func between(insts []*ori.Inst, p, y int, bar int8, ws []string) bool {
	for _, z := range insts[p+1 : y] {
		if z.Ctrl.Wait&(1<<bar) != 0 || isDrain(z) || implicit(z) {
			return true
		}
		for _, w := range dstWords(z) {
			if contains(ws, w) {
				return true
			}
		}
	}
	return false
}

func mutations(f *ori.Func) []mutation {
	var out []mutation
	for bi, b := range f.Blocks {
		insts := b.Insts
		flows := forwardOnly(f, bi)
		for yi, y := range insts {
			if implicit(y) || isDrain(y) {
				continue
			}
			reads := readWords(y)
			// A lowered stall: y reads the result of its fixed-latency
			// predecessor x, whose stall is exactly x's latency.
			if yi > 0 {
				x := insts[yi-1]
				lat := sched.Latency(75, x)
				for k, w := range reads {
					if lat.Variable || implicit(x) || int(x.Ctrl.Stall) != lat.Cycles || !contains(dstWords(x), w) {
						continue
					}
					if !cleanBefore(insts, yi, k, 1) {
						break
					}
					xid := x.ID
					out = append(out, mutation{kind: "stall",
						apply: func(f *ori.Func) { findInst(f, xid).Ctrl.Stall = uint8(lat.Cycles - 1) },
						want: fmt.Sprintf("hazard %s BB%d #%d: reads %s %d cycles after #%d (%s) wrote it, latency %d; needs stall or barrier",
							f.Name, b.ID, y.ID, w, lat.Cycles-1, x.ID, x.Op, lat.Cycles)})
					break
				}
			}
			// A removed wait and a dropped write barrier: y is the first
			// reader of load p's result in the block.
			for k, w := range reads {
				pi := lastWriter(insts, yi, w)
				if pi < 0 {
					break
				}
				p := insts[pi]
				if !sched.Latency(75, p).Variable {
					continue
				}
				bar := p.Ctrl.WrBar
				if bar < 0 || !flows || implicit(p) || !cleanBefore(insts, yi, k, 0) || y.Ctrl.Wait&(1<<bar) == 0 ||
					between(insts, pi, yi, bar, append(dstWords(p), srcWords(p)...)) {
					break
				}
				yid, pid := y.ID, p.ID
				out = append(out, mutation{kind: "wait",
					apply: func(f *ori.Func) { findInst(f, yid).Ctrl.Wait &^= 1 << bar },
					want: fmt.Sprintf("hazard %s BB%d #%d: reads %s before #%d (%s) has written it; needs a wait on barrier %d",
						f.Name, b.ID, y.ID, w, p.ID, p.Op, bar)})
				out = append(out, mutation{kind: "write barrier",
					apply: func(f *ori.Func) { findInst(f, pid).Ctrl.WrBar = -1 },
					want: fmt.Sprintf("hazard %s BB%d #%d: reads %s before #%d (%s) has written it; #%d sets no write barrier",
						f.Name, b.ID, y.ID, w, p.ID, p.Op, p.ID)})
				break
			}
			// A dropped read barrier: y is the first instruction that
			// overwrites a source of store p.
			if flows && cleanBefore(insts, yi, len(readWords(y)), 0) {
				for _, w := range dstWords(y) {
					pi := -1
					for j := yi - 1; j >= 0; j-- {
						if contains(srcWords(insts[j]), w) || contains(dstWords(insts[j]), w) || implicit(insts[j]) {
							pi = j
							break
						}
					}
					if pi < 0 {
						break
					}
					p := insts[pi]
					bar := p.Ctrl.RdBar
					if bar < 0 || len(dstWords(p)) > 0 || !contains(srcWords(p), w) || implicit(p) ||
						between(insts, pi, yi, bar, srcWords(p)) {
						break
					}
					pid := p.ID
					out = append(out, mutation{kind: "read barrier",
						apply: func(f *ori.Func) { findInst(f, pid).Ctrl.RdBar = -1 },
						want: fmt.Sprintf("hazard %s BB%d #%d: overwrites %s before #%d (%s) has read it; #%d sets no read or write barrier",
							f.Name, b.ID, y.ID, w, p.ID, p.Op, p.ID)})
					break
				}
			}
		}
	}
	return out
}

func findInst(f *ori.Func, id int32) *ori.Inst {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.ID == id {
				return in
			}
		}
	}
	panic(fmt.Sprintf("no instruction #%d", id))
}

func passes(k kernel, m *ori.Module) (bool, string) {
	rep, err := execute(k, m)
	if err != nil {
		return false, err.Error()
	}
	if !rep {
		return false, "wrong results"
	}
	return true, ""
}

// TestDAGRandomOrdersAfterAllocation executes allocated corpus kernels in
// random topological orders of their physical-register DAGs, with control
// words assigned for each order (and checked): any order the DAG allows
// must compute the same results.
func TestDAGRandomOrdersAfterAllocation(t *testing.T) {
	for _, k := range allocatedKernels(t) {
		base, err := backEnd(k, 3, true, sched.ModeAuto, sched.ModeAuto)
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= 3; seed++ {
			m := base.Clone()
			for _, f := range m.Funcs {
				sched.ShuffleFunc(f, 75, seed)
				if err := sched.AssignControlWords(f, 75); err != nil {
					t.Fatal(err)
				}
				if err := sched.CheckHazards(f, 75); err != nil {
					t.Errorf("%s seed %d: %v", k.name, seed, err)
				}
			}
			if ok, why := passes(k, m); !ok {
				t.Errorf("%s seed %d: %s", k.name, seed, why)
			}
		}
	}
}
