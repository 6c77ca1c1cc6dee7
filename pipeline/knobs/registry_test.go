package knobs

import (
	"fmt"
	"strings"
	"testing"
)

// testRegistry has a knob of every type, the package's own knobs, and a few
// with defaults and aliases.
func testRegistry() *Registry {
	r := NewRegistry()
	RegisterBuiltins(r)
	rd := []string{"test"}
	r.Register(Knob{Name: "DisableCSE", Type: TypeBool, Readers: rd})
	r.Register(Knob{Name: "SchedNumBB_Limit", Type: TypeInt, Default: "100", Readers: rd})
	r.Register(Knob{Name: "RegAllocBudget", Type: TypeBudget, Readers: rd})
	r.Register(Knob{Name: "RegAllocRematDisableRange", Type: TypeIntRange, Readers: rd})
	r.Register(Knob{Name: "RegTargetList", Type: TypeIntList, Readers: rd})
	r.Register(Knob{Name: "CostWeight", Type: TypeFloat, Default: "0.5", Readers: rd})
	r.Register(Knob{Name: "PriorityScale", Type: TypeDouble, Readers: rd})
	r.Register(Knob{Name: "SchedResBusyOp", Type: TypeString, Aliases: []string{"BusyOp"}, Readers: rd})
	r.Register(Knob{Name: "ShaderHint", Type: TypeWhen, Readers: rd})
	r.Register(Knob{Name: "OpcodeLatency", Type: TypeOpcodeIntList, Readers: rd})
	r.Register(Knob{Name: "TargetOpcodes", Type: TypeOpcodeList, Readers: rd})
	return r
}

func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", what)
		} else if !strings.Contains(fmt.Sprint(r), want) {
			t.Errorf("%s: panic %q, want it to mention %q", what, r, want)
		}
	}()
	f()
}

func TestRegisterPanics(t *testing.T) {
	r := testRegistry()
	rd := []string{"test"}
	mustPanic(t, "duplicate", "already registered", func() { r.Register(Knob{Name: "DisableCSE", Type: TypeBool, Readers: rd}) })
	mustPanic(t, "duplicate ignoring case", "already registered", func() { r.Register(Knob{Name: "disablecse", Type: TypeBool, Readers: rd}) })
	mustPanic(t, "alias taken", "already registered", func() { r.Register(Knob{Name: "X1", Aliases: []string{"busyop"}, Type: TypeBool, Readers: rd}) })
	mustPanic(t, "name is an alias", "already registered", func() { r.Register(Knob{Name: "BUSYOP", Type: TypeBool, Readers: rd}) })
	mustPanic(t, "no readers", "no readers", func() { r.Register(Knob{Name: "X2", Type: TypeBool}) })
	mustPanic(t, "bad type", "invalid type", func() { r.Register(Knob{Name: "X3", Type: 11, Readers: rd}) })
	mustPanic(t, "bad name", "bad name", func() { r.Register(Knob{Name: "A-B", Type: TypeBool, Readers: rd}) })
	mustPanic(t, "empty name", "bad name", func() { r.Register(Knob{Type: TypeBool, Readers: rd}) })
	mustPanic(t, "bad alias", "bad alias", func() { r.Register(Knob{Name: "X4", Aliases: []string{""}, Type: TypeBool, Readers: rd}) })
	mustPanic(t, "bad default", "Invalid integer value", func() { r.Register(Knob{Name: "X5", Type: TypeInt, Default: "ten", Readers: rd}) })
	mustPanic(t, "default fails Validate", "single phase", func() {
		r.Register(Knob{Name: "X6", Type: TypeString, Default: "A,B", Readers: rd, Validate: func(v Value) error { return checkDumpIR(v.Str()) }})
	})
	// Nothing above was half-registered.
	for _, n := range []string{"X1", "X2", "X3", "X5", "X6"} {
		if _, ok := r.Lookup(n); ok {
			t.Errorf("%s registered after a panic", n)
		}
	}
}

func TestLookupIgnoresCase(t *testing.T) {
	r := testRegistry()
	for _, n := range []string{"SchedNumBB_Limit", "schednumbb_limit", "SCHEDNUMBB_LIMIT", "sChEdNuMbB_lImIt"} {
		k, ok := r.Lookup(n)
		if !ok || k.Name != "SchedNumBB_Limit" {
			t.Errorf("Lookup(%q) = %q, %v", n, k.Name, ok)
		}
	}
	if k, ok := r.Lookup("BUSYOP"); !ok || k.Name != "SchedResBusyOp" {
		t.Errorf("alias lookup: %q %v", k.Name, ok)
	}
	if _, ok := r.Lookup("NoSuchKnob"); ok {
		t.Error("found NoSuchKnob")
	}
	// A read by the registered spelling makes no lower-case copy: the
	// compiler reads knobs that way in every phase.
	if n := testing.AllocsPerRun(100, func() { r.Lookup("SchedNumBB_Limit") }); n != 0 {
		t.Errorf("Lookup by the registered name: %v allocations, want 0", n)
	}
	if v, ok := r.DefaultValue("costweight"); !ok || v.Float() != 0.5 {
		t.Errorf("default %v %v", v, ok)
	}
}

func TestAllSorted(t *testing.T) {
	all := testRegistry().All()
	if len(all) != 16 {
		t.Errorf("%d knobs", len(all))
	}
	for i := 1; i < len(all); i++ {
		if strings.ToLower(all[i-1].Name) >= strings.ToLower(all[i].Name) {
			t.Errorf("not sorted: %s before %s", all[i-1].Name, all[i].Name)
		}
	}
	// DisablePhases < DisablePragmaKnobs < DUMPIR < DumpKnobs, ignoring case.
	var names []string
	for _, k := range all {
		names = append(names, k.Name)
	}
	got := strings.Join(names, " ")
	if !strings.Contains(got, "DisablePhases DisablePragmaKnobs DUMPIR DumpKnobs") {
		t.Errorf("order: %s", got)
	}
}

func TestDefaultRegistryHasOnlyBuiltins(t *testing.T) {
	// Other packages register theirs; this package registers exactly five,
	// each with readers.
	want := map[string]Type{
		KnobDisablePhases: TypeString, KnobNamedPhases: TypeString, KnobDUMPIR: TypeString,
		KnobDumpKnobs: TypeBool, KnobDisablePragmaKnobs: TypeBool,
	}
	for n, ty := range want {
		k, ok := Default.Lookup(n)
		if !ok || k.Type != ty || len(k.Readers) == 0 || k.Doc == "" {
			t.Errorf("%s: %+v %v", n, k, ok)
		}
	}
	if n := len(Default.All()); n != len(want) {
		t.Errorf("Default has %d knobs, want %d", n, len(want))
	}
}

func TestSuggest(t *testing.T) {
	r := testRegistry()
	for q, want := range map[string]string{
		"DisablePhase":     "DisablePhases",
		"disablephasess":   "DisablePhases",
		"DisabledPhases":   "DisablePhases",
		"DumpIRR":          "DUMPIR",
		"SchedNumBBLimit":  "SchedNumBB_Limit",
		"RegAlocBudget":    "RegAllocBudget",
		"DisableCS":        "DisableCSE",
		"BusyOpp":          "BusyOp",
		"CompletelyBogus":  "",
		"x":                "",
		"NamedPhasesExtra": "NamedPhases",
		"Qwertyuiopasdfgh": "",
	} {
		if got := r.Suggest(q); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestBounds: a value outside a knob's Bounds is an error naming the knob,
// the value and the range, from every source; values inside it load.
func TestBounds(t *testing.T) {
	r := NewRegistry()
	rd := []string{"test"}
	r.Register(Knob{Name: "UnrollFactor", Type: TypeInt, Bounds: AtLeast(0), Readers: rd})
	r.Register(Knob{Name: "BatchDepth", Type: TypeInt, Default: "8", Bounds: Between(1, 16), Readers: rd})
	r.Register(Knob{Name: "Budget", Type: TypeInt, Default: "-1", Bounds: AtLeast(-1), Readers: rd})
	for _, c := range []struct {
		src  Sources
		want string
	}{
		// Where the label shows the assignment, the knob is named once.
		{Sources{CLI: []string{"UnrollFactor=-5"}}, "-knob UnrollFactor=-5: out of range: must be at least 0"},
		{Sources{CLI: []string{"batchdepth=17"}}, "-knob batchdepth=17: out of range: must be in 1..16"},
		{Sources{CLI: []string{"BatchDepth=0"}}, "-knob BatchDepth=0: out of range: must be in 1..16"},
		{Sources{CLI: []string{"Budget=-2"}}, "-knob Budget=-2: out of range: must be at least -1"},
		{Sources{Env: map[string]string{EnvKnobs: "UnrollFactor=-1"}}, "UnrollFactor=-1 is out of range: must be at least 0"},
		{Sources{Pragmas: []string{"UnrollFactor=-1"}}, `.pragma "UnrollFactor=-1": out of range: must be at least 0`},
		{Sources{Pragmas: []string{"BatchDepth=2~UnrollFactor=-1"}}, `.pragma "BatchDepth=2~UnrollFactor=-1": UnrollFactor=-1 is out of range: must be at least 0`},
	} {
		_, _, err := Load(r, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.src, err, c.want)
		}
	}
	s, _, err := Load(r, Sources{CLI: []string{"UnrollFactor=0~BatchDepth=16~Budget=-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Int("UnrollFactor") != 0 || s.Int("BatchDepth") != 16 || s.Int("Budget") != -1 {
		t.Errorf("in-range values not kept: %d %d %d", s.Int("UnrollFactor"), s.Int("BatchDepth"), s.Int("Budget"))
	}
	mustPanic(t, "default out of bounds", "out of range", func() {
		r.Register(Knob{Name: "X7", Type: TypeInt, Default: "0", Bounds: AtLeast(1), Readers: rd})
	})
	mustPanic(t, "zero default out of bounds", "zero default", func() {
		r.Register(Knob{Name: "X8", Type: TypeInt, Bounds: AtLeast(1), Readers: rd})
	})
	mustPanic(t, "bounds on a float", "Bounds", func() {
		r.Register(Knob{Name: "X9", Type: TypeFloat, Bounds: AtLeast(0), Readers: rd})
	})
}
