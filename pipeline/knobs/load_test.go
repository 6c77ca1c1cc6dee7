package knobs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func load(t *testing.T, src Sources) (*Set, []Warning) {
	t.Helper()
	s, w, err := Load(testRegistry(), src)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s, w
}

func loadErr(t *testing.T, src Sources) string {
	t.Helper()
	_, _, err := Load(testRegistry(), src)
	if err == nil {
		t.Fatalf("Load succeeded, want an error")
	}
	return err.Error()
}

func kfile(text string) *File { return &File{Path: "knobs.txt", Content: []byte(text)} }

func TestCLIForms(t *testing.T) {
	s, _ := load(t, Sources{CLI: []string{
		"SchedNumBB_Limit=200", // NAME=VALUE
		"DisableCSE",           // bool by presence
		"RegAllocBudget=5000~CostWeight=0.75~RegTargetList=32,64", // tilde list
		"DUMPIR=AllocateRegisters",
		"K=PriorityScale=1.5", // direct-knob prefix
	}})
	if s.Int("SchedNumBB_Limit") != 200 || !s.Bool("DisableCSE") || s.Int("RegAllocBudget") != 5000 ||
		s.Float("CostWeight") != 0.75 || s.DumpIR() != "AllocateRegisters" || s.Double("PriorityScale") != 1.5 {
		t.Errorf("values:\n%s", s)
	}
	if l := s.IntList("RegTargetList"); len(l) != 2 || l[1] != 64 {
		t.Errorf("RegTargetList %v", l)
	}
	if o := s.Origin("costweight"); o != "-knob CostWeight=0.75" {
		t.Errorf("origin %q", o)
	}
}

func TestCaseInsensitiveNames(t *testing.T) {
	s, _ := load(t, Sources{CLI: []string{"schednumbb_limit=7", "DISABLECSE", "dumpir=X", "busyop=IADD3"}})
	if s.Int("SCHEDNUMBB_LIMIT") != 7 || !s.Bool("disablecse") || s.DumpIR() != "X" || s.Str("SchedResBusyOp") != "IADD3" {
		t.Errorf("values:\n%s", s)
	}
	// The last write wins whatever the spelling.
	s, _ = load(t, Sources{CLI: []string{"SchedNumBB_Limit=1", "SCHEDNUMBB_LIMIT=2"}})
	if s.Int("schedNumBB_limit") != 2 {
		t.Error("spellings are different knobs")
	}
}

func TestBlanksAndEmptyRecords(t *testing.T) {
	s, _ := load(t, Sources{CLI: []string{" SchedNumBB_Limit = 9 ~~ ~DisableCSE=0~", ""}})
	if s.Int("SchedNumBB_Limit") != 9 || s.Bool("DisableCSE") || !s.IsSet("DisableCSE") {
		t.Errorf("values:\n%s", s)
	}
}

// TestPriority checks env < file < -knob < pragma < WHEN, each pair both
// ways round where the order could be confused.
func TestPriority(t *testing.T) {
	const k = "SchedNumBB_Limit"
	all := Sources{
		Env:     map[string]string{EnvKnobs: k + "=1"},
		File:    kfile("[knobs]\n" + k + "=2\n"),
		CLI:     []string{k + "=3"},
		Pragmas: []string{k + "=4"},
	}
	steps := []struct {
		src    Sources
		want   int32
		origin string
	}{
		{Sources{}, 100, "default"},
		{Sources{Env: all.Env}, 1, "env ORILAB_KNOBS"},
		{Sources{Env: all.Env, File: all.File}, 2, "knobs.txt:2"},
		{Sources{Env: all.Env, File: all.File, CLI: all.CLI}, 3, "-knob SchedNumBB_Limit=3"},
		{all, 4, `.pragma "SchedNumBB_Limit=4"`},
		{Sources{File: all.File, Env: all.Env}, 2, "knobs.txt:2"}, // field order is irrelevant
		{Sources{Pragmas: all.Pragmas, Env: all.Env}, 4, `.pragma "SchedNumBB_Limit=4"`},
	}
	for i, st := range steps {
		s, _ := load(t, st.src)
		if s.Int(k) != st.want || s.Origin(k) != st.origin {
			t.Errorf("step %d: %d from %q, want %d from %q", i, s.Int(k), s.Origin(k), st.want, st.origin)
		}
	}
	// A WHEN= record beats every unconditional source, whichever source
	// it comes from, here the lowest (the environment).
	sh := ShaderHash("kern")
	w := all
	w.Env = map[string]string{EnvKnobs: fmt.Sprintf("WHEN=SH=0x%X;%s=5", sh, k)}
	s, _ := load(t, w)
	if s.Int(k) != 4 {
		t.Errorf("module scope: %d, want 4 (WHEN= needs a function)", s.Int(k))
	}
	if f := s.ForFunction("kern"); f.Int(k) != 5 || f.Origin(k) != "env ORILAB_KNOBS (WHEN=)" {
		t.Errorf("in kern: %d from %q, want 5 from the WHEN= record", f.Int(k), f.Origin(k))
	}
	// Among WHEN= records the later source wins.
	w.CLI = []string{fmt.Sprintf("WHEN=SH=%d;%s=6", sh, k)}
	s, _ = load(t, w)
	if s.ForFunction("kern").Int(k) != 6 {
		t.Errorf("later WHEN= lost: %d", s.ForFunction("kern").Int(k))
	}
	// A function's own pragma sits between module pragmas and WHEN=.
	w = all
	w.FuncPragmas = map[string][]string{"kern": {k + "=7"}}
	s, _ = load(t, w)
	if s.Int(k) != 4 || s.ForFunction("kern").Int(k) != 7 || s.ForFunction("other").Int(k) != 4 {
		t.Errorf("function pragma: %d %d %d", s.Int(k), s.ForFunction("kern").Int(k), s.ForFunction("other").Int(k))
	}
	w.CLI = append(w.CLI, fmt.Sprintf("WHEN=SH=%d;%s=8", sh, k))
	s, _ = load(t, w)
	if s.ForFunction("kern").Int(k) != 8 {
		t.Errorf("WHEN= below function pragma: %d", s.ForFunction("kern").Int(k))
	}
}

func TestLaterSourceTurnsBoolOff(t *testing.T) {
	s, _ := load(t, Sources{File: kfile("[knobs]\nDisableCSE\n"), CLI: []string{"DisableCSE=0"}})
	if s.Bool("DisableCSE") {
		t.Error("-knob DisableCSE=0 did not override the file")
	}
}

func TestDisablePragmaKnobs(t *testing.T) {
	const k = "SchedNumBB_Limit"
	src := Sources{CLI: []string{k + "=3"}, Pragmas: []string{k + "=4", "nounroll"},
		FuncPragmas: map[string][]string{"f": {k + "=5"}}}
	s, w := load(t, src)
	if s.Int(k) != 4 || s.ForFunction("f").Int(k) != 5 || len(w) != 0 {
		t.Fatalf("pragmas not applied: %d %d %v", s.Int(k), s.ForFunction("f").Int(k), w)
	}
	for _, on := range [][]string{{"DisablePragmaKnobs"}, {"DisablePragmaKnobs=1"}} {
		src.CLI = append([]string{k + "=3"}, on...)
		s, w = load(t, src)
		if s.Int(k) != 3 || s.ForFunction("f").Int(k) != 3 {
			t.Errorf("%v: pragmas applied: %d %d", on, s.Int(k), s.ForFunction("f").Int(k))
		}
		if len(w) != 1 || w[0].String() != "2 .pragma knob string(s) ignored: DisablePragmaKnobs is set" {
			t.Errorf("warnings %v", w)
		}
	}
	// Set in the environment, it still counts; a bad pragma is then not
	// even parsed.
	src.CLI = nil
	src.Env = map[string]string{EnvKnobs: "DisablePragmaKnobs"}
	src.Pragmas = []string{"NoSuchKnob=1"}
	if _, _, err := Load(testRegistry(), src); err != nil {
		t.Errorf("disabled pragma was parsed: %v", err)
	}
	// A pragma cannot re-enable pragmas, and turning it off later works.
	src.CLI = []string{"DisablePragmaKnobs=0"}
	src.Pragmas = []string{k + "=4"}
	if s, _ := load(t, src); s.Int(k) != 4 {
		t.Errorf("DisablePragmaKnobs=0 on the CLI did not re-enable pragmas")
	}
}

func TestPTXPragmasSkipped(t *testing.T) {
	for _, p := range []string{"nounroll", " nounroll ", "used_bytes_mask 0xf", "enable_smem_spilling"} {
		if !IsPTXPragma(p) {
			t.Errorf("IsPTXPragma(%q) = false", p)
		}
	}
	if IsPTXPragma("DisableCSE") || IsPTXPragma("nounrollx") {
		t.Error("knob taken for a PTX pragma")
	}
	load(t, Sources{Pragmas: []string{"nounroll", "used_bytes_mask 0xff"}})
}

func TestWhenSH(t *testing.T) {
	sh := ShaderHash("_Z3addPi")
	other := ShaderHash("_Z3subPi")
	for _, tc := range []struct {
		rec  string
		fn   string
		want bool
	}{
		{fmt.Sprintf("WHEN=SH=0x%08X;DisableCSE", sh), "_Z3addPi", true},
		{fmt.Sprintf("WHEN=SH=0x%08x;DisableCSE", sh), "_Z3addPi", true},
		{fmt.Sprintf("when=sh=%d;DisableCSE", sh), "_Z3addPi", true}, // prefixes ignore case; decimal
		{fmt.Sprintf("WHEN=SH=0x%08X;DisableCSE", sh), "_Z3subPi", false},
		{fmt.Sprintf("WHEN=SH=0x%08X;DisableCSE", other), "_Z3addPi", false},
		{fmt.Sprintf("WHEN=SH=0x%08X;DisableCSE", sh), "", false}, // module scope
		{fmt.Sprintf("WHEN=SH=%d..%d;DisableCSE", sh, sh), "_Z3addPi", true},
		{fmt.Sprintf("WHEN=SH=..%d;DisableCSE", sh), "_Z3addPi", true},
		{fmt.Sprintf("WHEN=SH=%d..;DisableCSE", sh), "_Z3addPi", true},
		{"WHEN=SH=..;DisableCSE", "_Z3addPi", true},
		{"WHEN=SH=..;DisableCSE", "", false},
		{fmt.Sprintf("WHEN=SH=%d..;DisableCSE", uint64(sh)+1), "_Z3addPi", false},
		{fmt.Sprintf("WHEN=SH=..%d;DisableCSE", uint64(sh)-1), "_Z3addPi", false},
		// Conditions are a conjunction; an IH= needs an instruction.
		{fmt.Sprintf("WHEN=SH=%d;IH=0..;DisableCSE", sh), "_Z3addPi", false},
	} {
		s, _ := load(t, Sources{CLI: []string{tc.rec}, Context: Context{Function: tc.fn}})
		if s.Bool("DisableCSE") != tc.want {
			t.Errorf("%s in %q: %v, want %v", tc.rec, tc.fn, s.Bool("DisableCSE"), tc.want)
		}
		// ForFunction gives the same answer as loading with the Context.
		if tc.fn != "" && s.ForFunction(tc.fn).Bool("DisableCSE") != tc.want {
			t.Errorf("%s ForFunction(%q) differs", tc.rec, tc.fn)
		}
	}
}

func TestWhenIH(t *testing.T) {
	ih := InstrHash("k", 42)
	src := Sources{CLI: []string{fmt.Sprintf("SchedNumBB_Limit=1~WHEN=IH=0x%X;SchedNumBB_Limit=2;DisableCSE", ih)}}
	s, _ := load(t, src)
	if !s.InstrSensitive() {
		t.Error("InstrSensitive = false")
	}
	f := s.ForFunction("k")
	if f.Int("SchedNumBB_Limit") != 1 || f.Bool("DisableCSE") {
		t.Error("IH= applied without an instruction")
	}
	in := f.ForInstr(ih)
	if in.Int("SchedNumBB_Limit") != 2 || !in.Bool("DisableCSE") || in.Context().Function != "k" {
		t.Errorf("IH= not applied:\n%s", in)
	}
	if f.ForInstr(InstrHash("k", 43)).Int("SchedNumBB_Limit") != 1 {
		t.Error("IH= applied to another instruction")
	}
	// SH and IH together: the instruction must be in the function.
	src.CLI = []string{fmt.Sprintf("WHEN=SH=0x%X;IH=0x%X;SchedNumBB_Limit=3", ShaderHash("k"), ih)}
	s, _ = load(t, src)
	if s.ForFunction("k").ForInstr(ih).Int("SchedNumBB_Limit") != 3 ||
		s.ForFunction("j").ForInstr(ih).Int("SchedNumBB_Limit") != 100 {
		t.Error("SH+IH conjunction")
	}
	// Loading with the Context gives the same.
	src.Context = Context{Function: "k", IH: ih, HasInstr: true}
	s, _ = load(t, src)
	if s.Int("SchedNumBB_Limit") != 3 {
		t.Error("Context with HasInstr")
	}
	if s2, _ := load(t, Sources{CLI: []string{"DisableCSE"}}); s2.InstrSensitive() {
		t.Error("InstrSensitive with no IH= record")
	}
}

func TestWhenTildeListAndMultipleAssignments(t *testing.T) {
	shA, shB := ShaderHash("a"), ShaderHash("b")
	arg := fmt.Sprintf("WHEN=SH=0x%X;SchedNumBB_Limit=200;DUMPIR=X~WHEN=SH=0x%X;K=DisableCSE~RegAllocBudget=9", shA, shB)
	s, _ := load(t, Sources{CLI: []string{arg}})
	a, b := s.ForFunction("a"), s.ForFunction("b")
	if a.Int("SchedNumBB_Limit") != 200 || a.DumpIR() != "X" || a.Bool("DisableCSE") || a.Int("RegAllocBudget") != 9 {
		t.Errorf("a:\n%s", a)
	}
	if b.Int("SchedNumBB_Limit") != 100 || b.DumpIR() != "" || !b.Bool("DisableCSE") || b.Int("RegAllocBudget") != 9 {
		t.Errorf("b:\n%s", b)
	}
	// The module-scope Set is untouched by ForFunction.
	if s.IsSet("DisableCSE") || s.IsSet("SchedNumBB_Limit") {
		t.Error("ForFunction changed its receiver")
	}
}

func TestPerFunctionDisablePhases(t *testing.T) {
	// IsPassDisabledFull's per-function table (001:40029) as WHEN=SH=.
	arg := fmt.Sprintf("DisablePhases=A~WHEN=SH=0x%X;DisablePhases=B+C", ShaderHash("hot"))
	s, _ := load(t, Sources{CLI: []string{arg}})
	if got := strings.Join(s.ForFunction("hot").DisabledPhases(), " "); got != "B C" {
		t.Errorf("hot: %q", got)
	}
	if got := strings.Join(s.ForFunction("cold").DisabledPhases(), " "); got != "A" {
		t.Errorf("cold: %q", got)
	}
}

func TestInjectString(t *testing.T) {
	s, w := load(t, Sources{CLI: []string{"DisableCSE~INJECTSTRING=a~b;c\nd;;~SchedNumBB_Limit=5"}})
	if !s.Bool("DisableCSE") || s.Int("SchedNumBB_Limit") != 5 {
		t.Errorf("records around INJECTSTRING:\n%s", s)
	}
	if len(w) != 1 || !strings.Contains(w[0].String(), "INJECTSTRING ignored") ||
		w[0].Source != "-knob INJECTSTRING=a~b;c\nd;;" {
		t.Errorf("warnings %q", w)
	}
	got := loadErr(t, Sources{CLI: []string{"INJECTSTRING=abc;"}})
	if got != `-knob INJECTSTRING=abc;: INJECTSTRING is not terminated by ";;"` {
		t.Errorf("unterminated: %s", got)
	}
}

// TestErrors checks each source's label and the message texts.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		src  Sources
		want string
	}{
		{Sources{CLI: []string{"DisablePhase=X"}},
			`-knob DisablePhase=X: unknown knob "DisablePhase" (did you mean "DisablePhases"?)`},
		{Sources{CLI: []string{"Qwertyuiopasdfgh"}},
			`-knob Qwertyuiopasdfgh: unknown knob "Qwertyuiopasdfgh"`},
		{Sources{CLI: []string{"SchedNumBB_Limit=abc"}},
			`-knob SchedNumBB_Limit=abc: Invalid integer value`},
		{Sources{CLI: []string{"SchedNumBB_Limit"}},
			`-knob SchedNumBB_Limit: Empty integer value`},
		{Sources{CLI: []string{"DisableCSE~RegAllocRematDisableRange="}},
			`-knob RegAllocRematDisableRange=: Empty integer range value`},
		{Sources{CLI: []string{"=5"}},
			`-knob =5: Invalid knob identifier`},
		{Sources{CLI: []string{"A B=5"}},
			`-knob A B=5: Invalid knob identifier`},
		{Sources{CLI: []string{"DUMPIR=A,B"}},
			`-knob DUMPIR=A,B: DUMPIR takes a single phase name`},
		{Sources{CLI: []string{"DisablePhases=A++B"}},
			`-knob DisablePhases=A++B: empty phase name in '+'-separated list`},
		{Sources{CLI: []string{"NamedPhases=A,,B"}},
			`-knob NamedPhases=A,,B: NamedPhases entry 2 has no phase name`},
		{Sources{CLI: []string{"WHEN=SH=0x1;CostWeight=x"}},
			`-knob WHEN=SH=0x1;CostWeight=x: CostWeight=x: Invalid floating point value`},
		{Sources{CLI: []string{"WHEN=SH=zz;DisableCSE"}},
			`-knob WHEN=SH=zz;DisableCSE: SH=zz: invalid hash "zz": want a 32-bit number (decimal or 0x hex) or a lo..hi range`},
		{Sources{CLI: []string{"WHEN=SH=0x100000000;DisableCSE"}},
			`-knob WHEN=SH=0x100000000;DisableCSE: SH=0x100000000: invalid hash "0x100000000": want a 32-bit number (decimal or 0x hex) or a lo..hi range`},
		{Sources{CLI: []string{"WHEN=SH=-1;DisableCSE"}},
			`-knob WHEN=SH=-1;DisableCSE: SH=-1: invalid hash "-1": want a 32-bit number (decimal or 0x hex) or a lo..hi range`},
		{Sources{CLI: []string{"WHEN=SH=9..3;DisableCSE"}},
			`-knob WHEN=SH=9..3;DisableCSE: SH=9..3: invalid hash "9..3": want a 32-bit number (decimal or 0x hex) or a lo..hi range`},
		{Sources{CLI: []string{"WHEN=DisableCSE"}},
			`-knob WHEN=DisableCSE: WHEN= needs an SH= or IH= condition first`},
		{Sources{CLI: []string{"WHEN=SH=1"}},
			`-knob WHEN=SH=1: WHEN= record sets no knob after its conditions`},
		{Sources{CLI: []string{"WHEN=SH=1;Bogus=1"}},
			`-knob WHEN=SH=1;Bogus=1: unknown knob "Bogus"`},
		{Sources{Env: map[string]string{EnvKnobs: "DisableCSE~DUMPIRR=x"}},
			`env ORILAB_KNOBS: unknown knob "DUMPIRR" (did you mean "DUMPIR"?)`},
		{Sources{Env: map[string]string{EnvKnobs: "CostWeight=1e99"}},
			`env ORILAB_KNOBS: CostWeight=1e99: Invalid floating point value`},
		{Sources{Pragmas: []string{"DisableCSE~RegTargetList=1;2"}},
			`.pragma "DisableCSE~RegTargetList=1;2": RegTargetList=1;2: End of integer range value is not ',' or null character`},
		{Sources{FuncPragmas: map[string][]string{"k": {"OpcodeLatency=FADD"}}},
			`.pragma "OpcodeLatency=FADD" in k: OpcodeLatency=FADD: Empty integer value`},
		{Sources{File: kfile("junk\n[knobs]\nDisableCSE\n\nShaderHint\n")},
			`knobs.txt:5: ShaderHint: Empty when-string`},
	} {
		if got := loadErr(t, tc.src); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestErrorValues(t *testing.T) {
	_, _, err := Load(testRegistry(), Sources{CLI: []string{"DisablePhase=X", "SchedNumBB_Limit=", "TargetOpcodes"}})
	var e *Error
	if !errors.As(err, &e) || e.Knob != "DisablePhase" || e.Hint != "DisablePhases" ||
		e.Ptxas != "Invalid knob specified (DisablePhase)" || !errors.Is(err, ErrUnknownKnob) {
		t.Errorf("first error %+v", e)
	}
	// Every error is reported, not just the first.
	if !errors.Is(err, ErrEmptyIntegerValue) || !errors.Is(err, ErrEmptyOpcodeList) {
		t.Errorf("errors not all collected: %v", err)
	}
	if n := len(strings.Split(err.Error(), "\n")); n != 3 {
		t.Errorf("%d errors:\n%v", n, err)
	}
}

func TestCompatMode(t *testing.T) {
	l := Loader{Registry: testRegistry(), Compat: true}
	s, w, err := l.Load(Sources{CLI: []string{"DisablePhase=X~DisableCSE", "WHEN=SH=1;Bogus=1;SchedNumBB_Limit=3", "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Bool("DisableCSE") || s.IsSet("DisablePhases") {
		t.Errorf("values:\n%s", s)
	}
	var got []string
	for _, x := range w {
		got = append(got, fmt.Sprintf("%d %s", x.Code, x))
	}
	want := []string{
		"7203 -knob DisablePhase=X: Invalid knob specified (DisablePhase)",
		"7203 -knob WHEN=SH=1;Bogus=1;SchedNumBB_Limit=3: Invalid knob specified (Bogus)",
		"7203 -knob =1: Invalid knob specified ()",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A value error is still an error in compat mode.
	if _, _, err := l.Load(Sources{CLI: []string{"SchedNumBB_Limit="}}); err == nil {
		t.Error("compat mode accepted a bad value")
	}
}

func TestEnv(t *testing.T) {
	s, _ := load(t, Sources{Env: map[string]string{
		EnvKnobs:           "DumpKnobs~RegTargetList=1,2,3",
		EnvDumpKnobsToFile: "/tmp/k.txt",
		"PATH":             "SchedNumBB_Limit=1", // other variables are not read
	}})
	if !s.DumpKnobs() || len(s.IntList("RegTargetList")) != 3 || s.DumpFile() != "/tmp/k.txt" || s.Int("SchedNumBB_Limit") != 100 {
		t.Errorf("env:\n%s", s)
	}
	t.Setenv(EnvKnobs, "DisableCSE")
	t.Setenv(EnvDumpKnobsToFile, "")
	env := EnvFromOS()
	if len(env) != 2 || env[EnvKnobs] != "DisableCSE" {
		t.Errorf("EnvFromOS %v", env)
	}
}

func TestLoadDefaultRegistry(t *testing.T) {
	s, _, err := Load(nil, Sources{CLI: []string{"DUMPIR=AllocateRegisters"}})
	if err != nil || s.DumpIR() != "AllocateRegisters" || s.Registry() != Default {
		t.Fatalf("%v %v", s, err)
	}
	if e := Empty(nil); e.IsSet(KnobDUMPIR) || e.DumpIR() != "" {
		t.Error("Empty")
	}
}
