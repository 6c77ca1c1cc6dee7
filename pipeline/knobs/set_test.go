package knobs

import (
	"strings"
	"testing"
)

func TestTypedGettersAndDefaults(t *testing.T) {
	s, _ := load(t, Sources{CLI: []string{
		"RegAllocBudget=10~RegAllocRematDisableRange=5..~PriorityScale=2.5~SchedResBusyOp=IMAD",
		"ShaderHint=SH=1~OpcodeLatency=FADD,3~TargetOpcodes=FMUL,IADD3",
	}})
	if p, sec := s.Budget("RegAllocBudget"); p != 10 || sec != 0 || s.Int("RegAllocBudget") != 10 {
		t.Error("budget")
	}
	if r := s.Range("RegAllocRematDisableRange"); r.Lo != 5 || r.Hi != maxI {
		t.Errorf("range %+v", r)
	}
	if s.Double("PriorityScale") != 2.5 || s.Str("SchedResBusyOp") != "IMAD" {
		t.Error("double/string")
	}
	if w := s.When("ShaderHint"); len(w) != 1 || w[0] != "SH=1" {
		t.Errorf("when %q", w)
	}
	if p := s.OpcodeInts("OpcodeLatency"); len(p) != 1 || p[0] != (OpcodeInt{"FADD", 3}) {
		t.Errorf("pairs %v", p)
	}
	if o := s.Opcodes("TargetOpcodes"); strings.Join(o, " ") != "FMUL IADD3" {
		t.Errorf("opcodes %v", o)
	}
	// Unset: the registered default, else the zero value; Get says unset.
	if s.Int("SchedNumBB_Limit") != 100 || s.Float("CostWeight") != 0.5 || s.Bool("DisableCSE") ||
		s.IntList("RegTargetList") != nil || s.Origin("DisableCSE") != "" || s.Origin("SchedNumBB_Limit") != "default" {
		t.Error("defaults")
	}
	if _, ok := s.Get("SchedNumBB_Limit"); ok {
		t.Error("Get reports a default as set")
	}
	if v, ok := s.Get("regallocbudget"); !ok || v.Int() != 10 {
		t.Error("Get")
	}
	if _, ok := s.Get("NoSuchKnob"); ok || s.IsSet("NoSuchKnob") || s.Origin("NoSuchKnob") != "" {
		t.Error("unregistered knob")
	}
	mustPanic(t, "unregistered", "unregistered knob", func() { s.Int("NoSuchKnob") })
	mustPanic(t, "wrong type", "read as", func() { s.Bool("SchedNumBB_Limit") })
	mustPanic(t, "budget as int is fine, int as budget is not", "read as", func() { s.Budget("SchedNumBB_Limit") })
}

func TestDump(t *testing.T) {
	s, _ := load(t, Sources{
		Env:     map[string]string{EnvKnobs: "DumpKnobs"},
		CLI:     []string{"DisablePhases=A+B~CostWeight=0.25~RegTargetList=1,2", "WHEN=SH=..;DUMPIR=X"},
		Context: Context{Function: "k"},
	})
	want := `; orilab DumpKnobs for function "k" (16 knobs)
[knobs]
; CostWeight: float, from -knob CostWeight=0.25
CostWeight=0.25
; DisableCSE: bool, unset
; DisablePhases: string, from -knob DisablePhases=A+B
DisablePhases=A+B
; DisablePragmaKnobs: bool, unset
; DUMPIR: string, from -knob WHEN=SH=..;DUMPIR=X (WHEN=)
DUMPIR=X
; DumpKnobs: bool, from env ORILAB_KNOBS
DumpKnobs=1
; NamedPhases: string, unset
; OpcodeLatency: opcode-int-list, unset
; PriorityScale: double, unset
; RegAllocBudget: budget, unset
; RegAllocRematDisableRange: range, unset
; RegTargetList: intlist, from -knob RegTargetList=1,2
RegTargetList=1,2
; SchedNumBB_Limit: int, default 100
; SchedResBusyOp: string, unset
; ShaderHint: when, unset
; TargetOpcodes: opcode-list, unset
`
	var b strings.Builder
	if err := s.Dump(&b); err != nil || b.String() != want {
		t.Errorf("dump:\n%s\nwant:\n%s", b.String(), want)
	}
	// The dump is a knobs file that reproduces the values.
	back, _ := load(t, Sources{File: kfile(b.String())})
	for _, k := range []string{"CostWeight", "DisablePhases", "DUMPIR", "DumpKnobs", "RegTargetList"} {
		v1, _ := s.Get(k)
		v2, ok := back.Get(k)
		if !ok || !v1.Equal(v2) {
			t.Errorf("%s: %v, reread %v", k, v1, v2)
		}
	}
	if back.IsSet("SchedNumBB_Limit") {
		t.Error("a default was written as a setting")
	}
	if h := s.ForInstr(0xAB).String(); !strings.HasPrefix(h, `; orilab DumpKnobs for function "k", instruction IH=0x000000AB (16 knobs)`) {
		t.Errorf("header %q", h[:80])
	}
	if h := Empty(testRegistry()).String(); !strings.HasPrefix(h, "; orilab DumpKnobs for module scope (16 knobs)\n[knobs]\n") {
		t.Errorf("header %q", h[:60])
	}
}
