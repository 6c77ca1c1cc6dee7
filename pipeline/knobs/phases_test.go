package knobs

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParsePhaseList(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                      nil,
		"LoopMakeSingleEntry":                   {"LoopMakeSingleEntry"},
		"LoopMakeSingleEntry+SinkCodeIntoBlock": {"LoopMakeSingleEntry", "SinkCodeIntoBlock"},
		" a + B ":                               {"a", "B"},
		"a++b+":                                 {"a", "b"},
	} {
		if got := ParsePhaseList(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParsePhaseList(%q) = %q, want %q", in, got, want)
		}
	}
	for in, ok := range map[string]bool{"": true, "  ": true, "a+b": true, "a++b": false, "+a": false, "a+": false} {
		if _, err := parsePhaseList(in); (err == nil) != ok {
			t.Errorf("parsePhaseList(%q): %v", in, err)
		}
	}
}

func TestParseNamedPhases(t *testing.T) {
	got, err := ParseNamedPhases("OriCopyProp, AllocateRegisters=3,shuffle,swap1,x=")
	want := []NamedPhase{{"OriCopyProp", "", false}, {"AllocateRegisters", "3", true},
		{"shuffle", "", false}, {"swap1", "", false}, {"x", "", true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v %v", got, err)
	}
	var parts []string
	for _, p := range got {
		parts = append(parts, p.String())
	}
	if strings.Join(parts, ",") != "OriCopyProp,AllocateRegisters=3,shuffle,swap1,x=" {
		t.Errorf("String: %s", strings.Join(parts, ","))
	}
	if got, err := ParseNamedPhases(" "); got != nil || err != nil {
		t.Error("empty")
	}
	// The '+' form of 001:41272 is not split: it fails later as a phase name.
	if got, _ := ParseNamedPhases("PhaseA,param1+PhaseB"); len(got) != 2 || got[1].Name != "param1+PhaseB" {
		t.Errorf("plus form %v", got)
	}
	max := strings.TrimSuffix(strings.Repeat("P,", MaxNamedPhases), ",")
	if got, err := ParseNamedPhases(max); err != nil || len(got) != MaxNamedPhases {
		t.Errorf("256 entries: %d %v", len(got), err)
	}
	for in, want := range map[string]string{
		max + ",P": "NamedPhases has 257 entries, more than 256",
		"A,,B":     "NamedPhases entry 2 has no phase name",
		"=3":       "NamedPhases entry 1 has no phase name",
		"A,":       "NamedPhases entry 2 has no phase name",
	} {
		if _, err := ParseNamedPhases(in); err == nil || err.Error() != want {
			t.Errorf("%.20q: %v, want %q", in, err, want)
		}
	}
}

func TestPhaseKnobHelpers(t *testing.T) {
	s, _ := load(t, Sources{CLI: []string{
		"DisablePhases=LoopMakeSingleEntry+SinkCodeIntoBlock",
		"NamedPhases=A,B=1",
		"dumpir=allocateregisters",
		"DumpKnobs",
	}})
	if got := s.DisabledPhases(); !reflect.DeepEqual(got, []string{"LoopMakeSingleEntry", "SinkCodeIntoBlock"}) {
		t.Errorf("DisabledPhases %v", got)
	}
	if got := s.NamedPhases(); len(got) != 2 || got[1] != (NamedPhase{"B", "1", true}) {
		t.Errorf("NamedPhases %v", got)
	}
	if s.DumpIR() != "allocateregisters" || !s.DumpKnobs() {
		t.Error("DUMPIR/DumpKnobs")
	}
	// A later empty value clears an earlier list.
	s, _ = load(t, Sources{File: kfile("[knobs]\nDisablePhases=A\n"), CLI: []string{"DisablePhases="}})
	if s.DisabledPhases() != nil {
		t.Error("DisablePhases= did not clear")
	}
	// A registry without the builtins: the helpers report nothing.
	r := NewRegistry()
	r.Register(Knob{Name: "X", Type: TypeBool, Readers: []string{"t"}})
	e := Empty(r)
	if e.DisabledPhases() != nil || e.NamedPhases() != nil || e.DumpIR() != "" || e.DumpKnobs() {
		t.Error("helpers without builtins")
	}
	// Nor does a missing DisablePragmaKnobs disable pragmas.
	if s, _, err := Load(r, Sources{Pragmas: []string{"X"}}); err != nil || !s.Bool("X") {
		t.Error("pragma without DisablePragmaKnobs registered")
	}
	for _, v := range []string{"A,B", "A+B", "A B"} {
		if err := checkDumpIR(v); err == nil {
			t.Errorf("DUMPIR=%s accepted", v)
		}
	}
	if err := checkDumpIR(" AllocateRegisters "); err != nil {
		t.Error(err)
	}
}

func ExampleParseNamedPhases() {
	ps, _ := ParseNamedPhases("OriCopyProp,AllocateRegisters=2,shuffle")
	for _, p := range ps {
		fmt.Printf("%s %q %v\n", p.Name, p.Param, p.HasParam)
	}
	// Output:
	// OriCopyProp "" false
	// AllocateRegisters "2" true
	// shuffle "" false
}
