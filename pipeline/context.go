package pipeline

import (
	"fmt"

	"orilab/pipeline/knobs"
	"orilab/pipeline/opt"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/sass"
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
	// Remarks collects the remarks of this phase run's passes (the
	// manager keeps them in the phase's snapshot).
	Remarks *[]opt.Remark
	// Release skips the verifiers (PhaseOptions.Release).
	Release bool
	// keepPreRA keeps Backend.PreRA in a release compilation (a planted
	// fault is judged against it).
	keepPreRA bool
	// noSASSText and noCubin leave out the products nobody reads
	// (PhaseOptions.NoSASSText and NoCubin).
	noSASSText, noCubin bool
	// jobs is how many functions a phase that works on each function
	// alone may handle at once (eachFunc); 0 or 1 is one after another.
	jobs int
	// planning is set when PhasePlan asks what would run in the default
	// pipeline, before anything ran.
	planning bool
}

// PhaseFunc is the code behind a row.
type PhaseFunc struct {
	// Run transforms (or checks) the module.
	Run func(c *PhaseContext) error
	// Skip, when set, says why the phase does nothing in this context
	// (a knob switched it off, the target needs nothing, the plan has no
	// physical registers yet), or returns "" when it runs.
	Skip func(c *PhaseContext) string
}

// fn is a phase that runs whenever its O-level gate lets it.
func fn(run func(c *PhaseContext) error) PhaseFunc { return PhaseFunc{Run: run} }

// Backend is what the back-end phases of one compilation leave behind for
// reports: the IR right before allocation (the post-RA verifier's
// reference, and the fault injector's; PostFixForMercTargets applies its
// rewrites to it as well, so that it stays comparable), the allocator's statistics per
// function, the SASS text once DumpNVuCodeText has run, and the words and
// cubin of the encoding phases.
type Backend struct {
	// PreRA is nil in a release compilation without a planted fault
	// (PhaseOptions.Release): nothing there reads it.
	PreRA   *ori.Module
	RAStats map[string]*regalloc.Stats
	SASS    string
	// Code is each function's encoding (MercGenerateSassUCode), in
	// module order, and Cubin the ELF file around it (FormatCodeList);
	// both nil when EncodeErr says why the code has no encoding.
	Code  []*sass.Code
	Cubin []byte
	// EncodeErr is the encoder's refusal (naming the instruction) or the
	// cubin writer's; the SASS text is still printed then.
	EncodeErr error
	// checked holds the words MercEncodeAndDecode proved, and checkedOf
	// the module it encoded: MercGenerateSassUCode takes them instead of
	// encoding again when it sees that same module (see encodephases.go).
	checked   []*sass.Code
	checkedOf *ori.Module
}

// knobSet returns the compilation's knobs, loading the defaults once when
// the context has none.
func (c *PhaseContext) knobSet() *knobs.Set {
	if c.Knobs != nil {
		return c.Knobs
	}
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{})
	if err != nil {
		// The defaults are checked when knobs are registered.
		panic(fmt.Sprintf("knob defaults do not load: %v", err))
	}
	c.Knobs = s
	return s
}
