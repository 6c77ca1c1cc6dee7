package pipeline

import (
	"fmt"
	"strings"

	"orilab/pipeline/knobs"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
)

// PhaseContext is what a phase sees when it runs or decides it has
// nothing to do.
type PhaseContext struct {
	Module   *ori.Module
	OptLevel int // 0-4 (5 is accepted and treated as 4)
	Arch     int
	// Knobs are the compilation's knob settings; nil reads the defaults.
	Knobs *knobs.Set
	// MaxRegCount is --maxrregcount (0: no limit below the hardware's).
	MaxRegCount int
	// Backend carries state between the back-end phases of one
	// compilation (nil before any of them ran).
	Backend *Backend
	// Sites counts this phase run's rewrites (see BisectSites); nil
	// allows every rewrite and records nothing.
	Sites *opt.Sites
	// planning is set when PhasePlan asks what would run in the default
	// pipeline, before anything ran.
	planning bool
}

// phaseImpl is the code behind one phase name.
type phaseImpl struct {
	// noop returns a reason when the phase does nothing in this context.
	noop func(c *PhaseContext) string
	// run transforms (or checks) the module. Nil: the capability has not
	// been built, and the phase is a no-op saying so.
	run func(c *PhaseContext) error
	// required phases cannot be disabled with DisablePhases: the IR would
	// not mean the same thing without them.
	required bool
}

// impls maps phase names to their implementations. Phases not listed are
// no-ops whose reason says the capability is not built yet.
var impls = map[string]phaseImpl{
	"OriCheckInitialProgram": {run: verifyAll(ori.VerifyOptions{}), required: true},
	"AnalyzeControlFlow":     {run: analyzeControlFlow, required: true},
	"OriSanitize":            {run: verifyAll(ori.VerifyOptions{}), required: true},
	"FinalInspectionPass":    {run: verifyAll(ori.VerifyOptions{}), required: true},
	"AnalyzeUniformsForSpeculation": {noop: func(*PhaseContext) string {
		return "orilab computes CTA uniformity on demand in the passes that use it (OriRemoveRedundantBarriers) instead of keeping a result from this position"
	}},
	"NOP": {noop: func(*PhaseContext) string {
		return "the terminal NOP phase (ptxas maps unknown phase names here); it never does anything"
	}},
}

// lookupImpl finds the implementation of a phase: the manager's own
// (validation, CFG analysis) or a registered optimizer pass.
func lookupImpl(name string) (phaseImpl, bool) {
	if impl, ok := impls[name]; ok {
		return impl, true
	}
	p, ok := opt.Lookup(name)
	if !ok {
		return phaseImpl{}, false
	}
	return phaseImpl{
		required: p.Required,
		noop: func(c *PhaseContext) string {
			if c.OptLevel < p.MinOpt {
				return fmt.Sprintf("runs at -O%d and above (this is -O%d)", p.MinOpt, c.OptLevel)
			}
			if p.NoOp != nil {
				return p.NoOp(&opt.Context{OptLevel: c.OptLevel, Arch: c.Arch, Module: c.Module, Knobs: c.Knobs})
			}
			return ""
		},
		run: func(c *PhaseContext) error {
			oc := &opt.Context{OptLevel: c.OptLevel, Arch: c.Arch, Module: c.Module, Sites: c.Sites, Knobs: c.Knobs}
			for _, f := range c.Module.Funcs {
				if _, err := p.Run(f, oc); err != nil {
					return fmt.Errorf("%s: %w", f.Name, err)
				}
				if err := f.ComputeCFG(); err != nil {
					return fmt.Errorf("%s: %w", f.Name, err)
				}
			}
			return nil
		},
	}, true
}

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

// verifyAll runs the IR verifier over every function: ptxas's validation
// phases.
func verifyAll(opts ori.VerifyOptions) func(c *PhaseContext) error {
	return func(c *PhaseContext) error {
		for _, f := range c.Module.Funcs {
			if err := ori.Verify(f, opts); err != nil {
				return err
			}
		}
		return nil
	}
}

// analyzeControlFlow rebuilds every function's CFG edges from its
// terminators. Dominators and post-dominators are cached on the function
// (ori.Dominators) until the next ComputeCFG; loops are found on demand
// from the cached dominator tree. Every pass ends with ComputeCFG (the
// phase manager calls it after each), so the cache never outlives the
// edges it was computed from; TestAnalysisCacheIsInvalidated runs the
// pipeline with every cache hit checked against a fresh tree.
func analyzeControlFlow(c *PhaseContext) error {
	for _, f := range c.Module.Funcs {
		if err := f.ComputeCFG(); err != nil {
			return err
		}
	}
	return nil
}

// oLevelReason returns why the phase's O-level gate excludes level o, or
// "" when the phase runs at o. The gates are the wiki's strings.
func oLevelReason(p PhaseInfo, o int) string {
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
	if o < min {
		return fmt.Sprintf("O-level gate: runs at -O%d and above (this is -O%d)", min, o)
	}
	if o > max {
		return fmt.Sprintf("O-level gate: runs only at -O0 (this is -O%d)", o)
	}
	return ""
}

// noOpReason returns why phase p does nothing in c, or "" when it runs.
func noOpReason(p PhaseInfo, c *PhaseContext) string {
	if r := oLevelReason(p, c.OptLevel); r != "" {
		return r
	}
	impl, ok := lookupImpl(p.Name)
	if p.Gate && !(ok && impl.run != nil) {
		if len(p.Workers) > 0 {
			return fmt.Sprintf("gate hook: no-op by default; its worker %s runs at its own position", strings.Join(p.Workers, ", "))
		}
		return "gate hook: no-op by default (no target-specific override)"
	}
	if ok && impl.noop != nil {
		if r := impl.noop(c); r != "" {
			return r
		}
	}
	if p.Name == "ReportFinalMemoryUsage" {
		return "reporting phase: orilab prints the memory summary with --stat=phase-wise (All Phases Summary)"
	}
	if p.Category == "Reporting" && !ok && strings.HasPrefix(p.Name, "Report") {
		// ptxas's report phases print the IR when DUMPIR names them; in
		// orilab DUMPIR works after any phase, so these have nothing of
		// their own to do.
		return "reporting phase: prints only when -knob DUMPIR names it, which the phase manager handles for every phase"
	}
	if !ok || impl.run == nil {
		return fmt.Sprintf("not built yet: orilab has no implementation of this %s phase", strings.ToLower(p.Category))
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
		if d := levenshtein(strings.ToLower(name), strings.ToLower(p.Name)); d < bestD {
			best, bestD = p.Name, d
		}
	}
	if bestD <= max(3, len(name)/3) {
		return -1, fmt.Errorf("unknown phase %q (did you mean %q?)", name, best)
	}
	return -1, fmt.Errorf("unknown phase %q (orilab phases lists them)", name)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
}

// PhasePlan returns every phase with whether it runs at this -O level and
// target, and why not.
func PhasePlan(optLevel, arch int) []PlanRow {
	if optLevel == 5 {
		optLevel = 4
	}
	pc := &PhaseContext{OptLevel: optLevel, Arch: arch, planning: true}
	rows := make([]PlanRow, len(PhaseTable))
	for i, p := range PhaseTable {
		r := noOpReason(p, pc)
		impl, _ := lookupImpl(p.Name)
		rows[i] = PlanRow{Index: i, Name: p.Name, Category: p.Category, OLevel: p.OLevel, Runs: r == "", Reason: r, Required: impl.required}
	}
	return rows
}
