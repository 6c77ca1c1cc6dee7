package knobs

import (
	"errors"
	"fmt"
	"strings"
)

// The knobs this package reads itself or parses for the phase manager.
// Every other knob is registered by the package that reads it.
const (
	// KnobDisablePhases is ptxas's pass-disable string (OCG knob 185,
	// 001:40010-40037): phase names separated by '+'.
	KnobDisablePhases = "DisablePhases"
	// KnobNamedPhases replaces the default pipeline with a list of phases
	// (OCG knob 298); see ParseNamedPhases for the syntax.
	KnobNamedPhases = "NamedPhases"
	// KnobDUMPIR names the one phase after which the IR is dumped
	// (001:41172-41186, 41536).
	KnobDUMPIR = "DUMPIR"
	// KnobDumpKnobs asks for the resolved knob values on stderr
	// (001:41206).
	KnobDumpKnobs = "DumpKnobs"
	// KnobDisablePragmaKnobs makes the loader ignore .pragma knob strings
	// (000:389, 001:39488).
	KnobDisablePragmaKnobs = "DisablePragmaKnobs"
)

func init() { RegisterBuiltins(Default) }

// RegisterBuiltins registers this package's own knobs in r. The Default
// registry has them; a test registry that wants them calls this.
func RegisterBuiltins(r *Registry) {
	r.Register(Knob{
		Name: KnobDisablePhases, Type: TypeString,
		Doc:      "Skip the named phases: names separated by '+', case-insensitive (LoopMakeSingleEntry+SinkCodeIntoBlock).",
		Readers:  []string{"phase manager"},
		Validate: func(v Value) error { _, err := parsePhaseList(v.Str()); return err },
	})
	r.Register(Knob{
		Name: KnobNamedPhases, Type: TypeString,
		Doc:      "Run only these phases, in this order: NAME[=PARAM] entries separated by ',' (at most 256).",
		Readers:  []string{"phase manager"},
		Validate: func(v Value) error { _, err := ParseNamedPhases(v.Str()); return err },
	})
	r.Register(Knob{
		Name: KnobDUMPIR, Type: TypeString,
		Doc:      "Dump the Ori IR after the named phase (one phase name, case-insensitive).",
		Readers:  []string{"phase manager"},
		Validate: func(v Value) error { return checkDumpIR(v.Str()) },
	})
	r.Register(Knob{
		Name: KnobDumpKnobs, Type: TypeBool,
		Doc:     "Print every knob's resolved value (the DumpKnobs format) to stderr.",
		Readers: []string{"driver (cmd/orilab)"},
	})
	r.Register(Knob{
		Name: KnobDisablePragmaKnobs, Type: TypeBool,
		Doc:     "Ignore knob settings in the PTX's .pragma strings.",
		Readers: []string{"knob loader"},
	})
}

// ParsePhaseList splits a DisablePhases value into phase names: '+'
// separates them, blanks around a name are dropped, and so are empty
// names. Case is kept; the phase manager compares names ignoring case.
//
// Decision: ptxas tests whether a phase is disabled with a case-insensitive
// substring search of the whole string (strcasestr, 001:40023 and 4486),
// so "Remat" disables every phase whose name contains it. orilab treats the
// string as the list of whole names the '+' delimiter implies (001:40037),
// and the phase manager rejects names that are not phases instead of
// letting them match nothing, or something unintended.
func ParsePhaseList(s string) []string {
	var out []string
	for _, n := range strings.Split(s, "+") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// parsePhaseList is ParsePhaseList for validation: an empty name between
// two '+' ("A++B", "A+") is an error, since it is a typo.
func parsePhaseList(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil // "DisablePhases=" turns off a list set by an earlier source
	}
	for _, n := range strings.Split(s, "+") {
		if strings.TrimSpace(n) == "" {
			return nil, errors.New("empty phase name in '+'-separated list")
		}
	}
	return ParsePhaseList(s), nil
}

// MaxNamedPhases is the capacity of ptxas's NamedPhases arrays (001:4458,
// 41261).
const MaxNamedPhases = 256

// NamedPhase is one entry of a NamedPhases list.
type NamedPhase struct {
	// Name is a phase name as written, or one of the Mercury pseudo-phases
	// shuffle and swap1..swap6 (001:41274-41289); the phase manager
	// resolves it ignoring case.
	Name string
	// Param is the text after '=', kept as written ("" if none).
	Param string
	// HasParam says whether the entry had an '='.
	HasParam bool
}

// String prints the entry as ParseNamedPhases reads it.
func (p NamedPhase) String() string {
	if p.HasParam {
		return p.Name + "=" + p.Param
	}
	return p.Name
}

// ParseNamedPhases parses a NamedPhases value: entries separated by ',',
// each NAME or NAME=PARAM, at most MaxNamedPhases of them.
//
// Decision: the seed describes this syntax three ways. 001:41231-41273
// gives "PhaseA,param1+PhaseB,param2" ('+' between entries, ',' before a
// parameter, names upper-cased); 001:4452-4477 gives
// "phase_name1,phase_name2=param,shuffle,swap1,..." (',' between entries,
// '=' before a parameter); 001:40039-40045 gives "knob1=value1,..." for
// the same parser. orilab follows the second: the third has the same
// shape, and the first's own step list says the parser tokenizes with
// strtok_r on ',' and fills names[], values[] and full "name=value"
// strings, which only the ','/'=' reading explains. Names keep their case
// because phase lookup ignores case anyway (001:41326). A first-style
// value fails loudly, as an unknown phase name "param1+PhaseB", instead of
// being read some other way.
func ParseNamedPhases(s string) ([]NamedPhase, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxNamedPhases {
		return nil, fmt.Errorf("NamedPhases has %d entries, more than %d", len(parts), MaxNamedPhases)
	}
	out := make([]NamedPhase, 0, len(parts))
	for k, p := range parts {
		name, param, has := strings.Cut(p, "=")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("NamedPhases entry %d has no phase name", k+1)
		}
		out = append(out, NamedPhase{Name: name, Param: strings.TrimSpace(param), HasParam: has})
	}
	return out, nil
}

// checkDumpIR enforces DUMPIR's single phase name. Decision: 001:41174
// says "one or more phase names" but 001:41536 says there is no
// multi-phase syntax; orilab takes one name, as the reimplementation note
// and the GUIDE do, and rejects lists so "A,B" is not taken for a phase.
func checkDumpIR(s string) error {
	if strings.ContainsAny(strings.TrimSpace(s), ",+ \t") {
		return errors.New("DUMPIR takes a single phase name")
	}
	return nil
}

// DisabledPhases returns the DisablePhases list in effect, for the phase
// manager, which validates the names against its phase table. Nil if the
// knob is not registered in the Set's registry.
func (s *Set) DisabledPhases() []string {
	if s.l.reg.lookup(KnobDisablePhases) == nil {
		return nil
	}
	return ParsePhaseList(s.Str(KnobDisablePhases))
}

// NamedPhases returns the NamedPhases list in effect, or nil for the
// default pipeline. The value was validated when it was loaded.
func (s *Set) NamedPhases() []NamedPhase {
	if s.l.reg.lookup(KnobNamedPhases) == nil {
		return nil
	}
	ps, _ := ParseNamedPhases(s.Str(KnobNamedPhases))
	return ps
}

// DumpIR returns the phase named by DUMPIR, or "".
func (s *Set) DumpIR() string {
	if s.l.reg.lookup(KnobDUMPIR) == nil {
		return ""
	}
	return strings.TrimSpace(s.Str(KnobDUMPIR))
}

// DumpKnobs reports whether DumpKnobs is on.
func (s *Set) DumpKnobs() bool {
	return s.l.reg.lookup(KnobDumpKnobs) != nil && s.Bool(KnobDumpKnobs)
}
