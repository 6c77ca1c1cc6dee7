package sched_test

import (
	"testing"

	"orilab/pipeline/ori"
	"orilab/pipeline/sched"
)

func instr(op ori.Opcode, mods ...string) *ori.Inst { return ori.NewInst(op, mods...) }

// TestLatencyFixedFitsStall: a stall count alone must be able to cover
// every fixed-latency result on every modelled SM. The control pipe's
// fixed instructions (branches, BAR without a result, CALL) write no
// register, so their latency, the table's branch class, orders nothing.
func TestLatencyFixedFitsStall(t *testing.T) {
	for _, arch := range []int{75, 80, 86, 89} {
		for _, op := range ori.AllOpcodes() {
			for _, mods := range [][]string{nil, {"WIDE"}, {"HI"}} {
				i := sched.Latency(arch, instr(op, mods...))
				if !i.Variable && i.Pipe != sched.PipeCBU && i.Cycles > sched.MaxFixedLatency {
					t.Errorf("sm_%d %s: fixed latency %d exceeds %d", arch, instr(op, mods...).Name(), i.Cycles, sched.MaxFixedLatency)
				}
				if i.Variable && !i.LongLatency() {
					t.Errorf("sm_%d %s: variable latency estimate %d is not a long latency", arch, op, i.Cycles)
				}
				if i.Pipe >= sched.NumPipes {
					t.Errorf("sm_%d %s: pipe %d", arch, op, i.Pipe)
				}
			}
		}
	}
	if sched.MaxFixedLatency > 15 {
		t.Errorf("MaxFixedLatency %d exceeds the stall field", sched.MaxFixedLatency)
	}
}

func TestLatencyTable(t *testing.T) {
	bar := instr(ori.OpBAR, "RED", "POPC")
	bar.Dsts = []ori.Operand{ori.R(ori.PReg(ori.ClassR, 4, 1))}
	cases := []struct {
		arch int
		in   *ori.Inst
		want sched.Info
	}{
		{75, instr(ori.OpIADD3), sched.Info{Class: sched.ClassALU, Pipe: sched.PipeALU, Cycles: 4}},
		{75, instr(ori.OpIMAD), sched.Info{Class: sched.ClassIMAD, Pipe: sched.PipeALU, Cycles: 5}},
		{86, instr(ori.OpIMAD, "WIDE", "U32"), sched.Info{Class: sched.ClassIMAD, Pipe: sched.PipeFMA, Cycles: 6}},
		{80, instr(ori.OpFFMA), sched.Info{Class: sched.ClassFP32, Pipe: sched.PipeFMA, Cycles: 4}},
		{89, instr(ori.OpHFMA2), sched.Info{Class: sched.ClassFP32, Pipe: sched.PipeFMA, Cycles: 4}},
		{75, instr(ori.OpDFMA), sched.Info{Class: sched.ClassFP64, Pipe: sched.PipeFP64, Cycles: 42, Variable: true, Issue: 15}},
		{80, instr(ori.OpDADD), sched.Info{Class: sched.ClassFP64, Pipe: sched.PipeFP64, Cycles: 42, Variable: true, Issue: 15}},
		{75, instr(ori.OpMUFU, "RCP"), sched.Info{Class: sched.ClassSFU, Pipe: sched.PipeSFU, Cycles: 48, Variable: true, Issue: 19}},
		{75, instr(ori.OpLDG, "E"), sched.Info{Class: sched.ClassGlobal, Pipe: sched.PipeLSU, Cycles: 28, Variable: true, Issue: 5}},
		{86, instr(ori.OpLDS), sched.Info{Class: sched.ClassShared, Pipe: sched.PipeLSU, Cycles: 28, Variable: true, Issue: 5}},
		{75, instr(ori.OpSHFL, "IDX"), sched.Info{Class: sched.ClassShared, Pipe: sched.PipeSMEM, Cycles: 28, Variable: true, Issue: 5}},
		// The conversion class's inverse throughput differs per SM.
		{75, instr(ori.OpI2F), sched.Info{Class: sched.ClassConvert, Pipe: sched.PipeSFU, Cycles: 31, Variable: true, Issue: 1}},
		{80, instr(ori.OpI2F), sched.Info{Class: sched.ClassConvert, Pipe: sched.PipeSFU, Cycles: 31, Variable: true, Issue: 9}},
		{86, instr(ori.OpF2I), sched.Info{Class: sched.ClassConvert, Pipe: sched.PipeSFU, Cycles: 31, Variable: true, Issue: 12}},
		// So does the uniform datapath's.
		{75, instr(ori.OpUIADD3), sched.Info{Class: sched.ClassUniform, Pipe: sched.PipeUDP, Cycles: 22, Variable: true, Issue: 35}},
		{89, instr(ori.OpUIADD3), sched.Info{Class: sched.ClassUniform, Pipe: sched.PipeUDP, Cycles: 22, Variable: true, Issue: 2}},
		{75, instr(ori.OpS2R), sched.Info{Class: sched.ClassNone, Pipe: sched.PipeCBU, Cycles: 22, Variable: true, Issue: 2}},
		{75, instr(ori.OpBRA), sched.Info{Class: sched.ClassBranch, Pipe: sched.PipeCBU, Cycles: 22, Issue: 2}},
		{75, instr(ori.OpBAR, "SYNC"), sched.Info{Class: sched.ClassBranch, Pipe: sched.PipeCBU, Cycles: 22, Issue: 2}},
		{75, bar, sched.Info{Class: sched.ClassBranch, Pipe: sched.PipeCBU, Cycles: 22, Variable: true, Issue: 2}},
	}
	for _, c := range cases {
		if got := sched.Latency(c.arch, c.in); got != c.want {
			t.Errorf("sm_%d %s: got %+v, want %+v", c.arch, c.in.Name(), got, c.want)
		}
	}
}

func TestTableArch(t *testing.T) {
	for arch, want := range map[int]int{50: 75, 70: 75, 75: 75, 80: 80, 84: 80, 86: 86, 87: 86, 89: 89, 90: 89, 120: 89} {
		if got := sched.TableArch(arch); got != want {
			t.Errorf("TableArch(%d) = %d, want %d", arch, got, want)
		}
	}
}
