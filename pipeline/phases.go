package pipeline

import (
	"fmt"
	"strings"
	"sync"

	"orilab/pipeline/knobs"

	"orilab/internal/suggest"
)

// The partial-SSA window: GenerateMovPhi enters it, ConvertAllMovPhiToMov
// leaves it (the wiki's phases 23 and 73, true indices 24 and 81).
var (
	genMovPhiIndex   = mustPhase("GenerateMovPhi")
	leaveMovPhiIndex = mustPhase("ConvertAllMovPhiToMov")
)

func mustPhase(name string) int {
	i, err := LookupPhase(name)
	if err != nil {
		panic(err)
	}
	return i
}

// InSSAWindow reports whether the IR after phase i may hold MOV.PHI, so
// the verifier checks it in SSA mode. Outside the window a MOV.PHI is an
// error.
func InSSAWindow(i int) bool { return i >= genMovPhiIndex && i < leaveMovPhiIndex }

// oLevelReason returns why the phase's O-level gate excludes level o, or
// "" when the phase runs at o. The gates are the wiki's strings.
func oLevelReason(p *PhaseInfo, o int) string {
	gate := strings.TrimSpace(p.OLevel)
	if i := strings.Index(gate, "/"); i >= 0 {
		gate = strings.TrimSpace(gate[:i]) // "> 1 / > 4": the basic form runs from O2
	}
	min, max := 0, 5
	switch gate {
	case "":
		return ""
	case "> 0":
		min = 1
	case "> 1":
		min = 2
	case "> 2":
		min = 3
	case "4-5":
		min = 4
	case "== 0":
		max = 0
	default:
		return ""
	}
	if o >= min && o <= max {
		return ""
	}
	if o >= 0 && o < len(gateReasons().below) {
		if o < min {
			return gateReasons().below[min][o]
		}
		return gateReasons().onlyO0[o]
	}
	return gateReason(min, o)
}

// gateSentences holds oLevelReason's sentences for the levels 0 to 5.
type gateSentences struct {
	below  [6][6]string // [min][o]: the phase runs from -O(min)
	onlyO0 [6]string    // [o]: the phase runs only at -O0
}

// gateReasons makes the sentences once: every step of a compilation asks,
// and formatting them anew was most of the phase manager's own time for
// a phase that does not run.
var gateReasons = sync.OnceValue(func() *gateSentences {
	t := new(gateSentences)
	for o := range 6 {
		for min := range 6 {
			t.below[min][o] = gateReason(min, o)
		}
		t.onlyO0[o] = gateReason(-1, o)
	}
	return t
})

// gateReason says why level o does not run a phase that runs from
// -O(min), or (min < 0) only at -O0.
func gateReason(min, o int) string {
	if min < 0 || o >= min {
		return fmt.Sprintf("O-level gate: runs only at -O0 (this is -O%d)", o)
	}
	return fmt.Sprintf("O-level gate: runs at -O%d and above (this is -O%d)", min, o)
}

// noOpReason returns why phase p does nothing in c, or "" when it runs:
// its O-level gate first, then the row's NoOp, then its code's own gate.
func noOpReason(p *PhaseInfo, c *PhaseContext) string {
	if r := oLevelReason(p, c.OptLevel); r != "" {
		return r
	}
	if p.NoOp != "" {
		return p.NoOp
	}
	if p.Fn.Skip != nil {
		return p.Fn.Skip(c)
	}
	return ""
}

// LookupPhase finds a phase by name, case-insensitively (as ptxas does).
// Unlike ptxas, which silently maps an unknown name to NOP (phase 158), it
// reports the unknown name with the closest match: a misspelled
// DisablePhases entry that silently does nothing wastes an engineer's
// afternoon.
func LookupPhase(name string) (int, error) {
	for i, p := range PhaseTable {
		if strings.EqualFold(p.Name, name) {
			return i, nil
		}
	}
	best, bestD := "", 1<<30
	for _, p := range PhaseTable {
		if d := suggest.Distance(strings.ToLower(name), strings.ToLower(p.Name), 0); d < bestD {
			best, bestD = p.Name, d
		}
	}
	// A suggestion must be closer than a rewrite of the name: "Foo" is 2
	// edits from NOP, which is no typo of it. A third of the name's
	// letters, at least one, allows the usual slips (OriBrnchOpt).
	if bestD <= max(1, len(name)/3) {
		return -1, fmt.Errorf("unknown phase %q (did you mean %q?)", name, best)
	}
	return -1, fmt.Errorf("unknown phase %q (orilab phases lists them)", name)
}

// PlanRow says whether a phase runs in a configuration, for `orilab
// phases` and the workbench.
type PlanRow struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Category string `json:"category"`
	OLevel   string `json:"o_level,omitempty"`
	Runs     bool   `json:"runs"`
	Reason   string `json:"reason,omitempty"`
	Required bool   `json:"required,omitempty"`
	Doc      string `json:"doc"`
}

// PhasePlan returns every phase with whether it runs at this -O level and
// target with every knob at its default, and why not.
func PhasePlan(optLevel, arch int) []PlanRow { return PhasePlanWith(optLevel, arch, nil) }

// PhasePlanWith is PhasePlan under the knob settings set (nil: the
// defaults): knobs that switch a phase off, and DisablePhases, count.
func PhasePlanWith(optLevel, arch int, set *knobs.Set) []PlanRow {
	if optLevel == 5 {
		optLevel = 4
	}
	pc := &PhaseContext{OptLevel: optLevel, Arch: arch, Knobs: set, planning: true}
	disabled := map[string]bool{}
	if set != nil {
		for _, n := range set.DisabledPhases() {
			disabled[strings.ToLower(n)] = true
		}
	}
	rows := make([]PlanRow, len(PhaseTable))
	for i := range PhaseTable {
		p := &PhaseTable[i]
		r := noOpReason(p, pc)
		if r == "" && disabled[strings.ToLower(p.Name)] && !p.Required {
			r = "disabled by the DisablePhases knob"
		}
		rows[i] = PlanRow{Index: i, Name: p.Name, Category: p.Category, OLevel: p.OLevel, Runs: r == "", Reason: r, Required: p.Required, Doc: p.Doc}
	}
	return rows
}
