// Package opt holds the mid-end optimizer: the Ori phases of ptxas's
// pipeline that transform code. Each transformation lives in its own file
// whose doc comment describes the algorithm, and is exported as a Pass
// value. The phase table in package pipeline names those values row by row
// (a repeated pass is one value at each of its positions, like
// GeneralOptimize at GeneralOptimizeEarly and GeneralOptimizeMid), so a
// misspelt pass is a compile error; the row, not the pass, says at which
// -O levels the phase runs and whether it can be disabled.
//
// Every pass must preserve the meaning of the IR as pipeline/ori/SEMANTICS.md
// defines it; the semantic tests in package pipeline execute every kernel
// spec after every phase and compare with -O0.
//
// A pass that weighs rewrites says what it decided, and why it declined,
// through Context.Remark (remark.go); the phase manager keeps the remarks
// in the phase's snapshot, for orilab compile --remarks and the
// workbench.
//
// Shared helpers have their own files too: wordids.go numbers register
// words densely for the passes that keep per-word lists and bitsets, and
// wordtable.go maps register words to values through dense slices with a
// constant-time reset, which the passes keep in pools between runs
// instead of building a map per run (functions compile concurrently);
// the scratch the GeneralOptimize sub-passes, commoning and the
// same-constant remat reuse sits in internal/keep's pools, which, unlike
// sync.Pool, keep their objects across garbage collections.
package opt

import (
	"fmt"
	"sync"

	"orilab/pipeline/knobs"
	"orilab/pipeline/ori"
)

// Context is what a pass sees.
type Context struct {
	OptLevel int
	Arch     int
	Module   *ori.Module
	// Sites counts this phase run's rewrites and may enable only some of
	// them (site bisection); nil allows every rewrite.
	Sites *Sites
	// Knobs are the compilation's knob settings. Never nil when the phase
	// manager runs a pass; tests may leave it nil, and passes read knobs
	// through Context.Int/Bool, which fall back to the defaults.
	Knobs *knobs.Set
	// Remarks, when set, collects the passes' remarks (remark.go): what
	// a pass decided about each place it weighed and why it declined.
	Remarks *[]Remark
}

// defaultKnobs is the knob set with every knob at its default, for
// contexts built without one (unit tests).
var defaultKnobs = sync.OnceValue(func() *knobs.Set {
	s, _, err := knobs.Load(knobs.Default, knobs.Sources{})
	if err != nil {
		panic(fmt.Sprintf("opt: knob defaults do not load: %v", err))
	}
	return s
})

func (c *Context) knobSet() *knobs.Set {
	if c == nil || c.Knobs == nil {
		return defaultKnobs()
	}
	return c.Knobs
}

// Int returns an int knob's value (its default without a knob set).
func (c *Context) Int(name string) int { return int(c.knobSet().Int(name)) }

// Bool returns a bool knob's value (its default without a knob set).
func (c *Context) Bool(name string) bool { return c.knobSet().Bool(name) }

// Pass is one transformation, exported as a value (DeadCode,
// GeneralOptimize, Remat...) that rows of the phase table in package
// pipeline name. A repeated pass is one value named by several rows. Which
// -O levels a phase runs at, whether it can be disabled and its doc line
// belong to the row, not to the pass: one table says them all.
//
// A repeated pass that is idempotent may skip a function it left at its
// fixed point when the code has not changed since (ori.Func.AtFixedPoint):
// LiveDead and GeneralOptimize do, except under a site limit or record.
// Inside one GeneralOptimize run, a sub-pass whose last run changed
// nothing (or, for copy propagation, left nothing for a second run) is
// skipped until another sub-pass changes the function.
type Pass struct {
	// Run transforms one function. It reports whether it changed it.
	Run func(f *ori.Func, c *Context) (bool, error)
	// NoOp, when set, says why the pass does nothing in this context (a
	// knob switched it off), or returns "" when it runs. The phase
	// manager then reports the phase as a no-op with that reason instead
	// of pretending it ran.
	NoOp func(c *Context) string
}

// offBy is the NoOp of a pass that one boolean knob switches off: it
// names the knob when it is set.
func offBy(knob string) func(c *Context) string {
	return func(c *Context) string {
		if c.Bool(knob) {
			return "switched off by " + knob
		}
		return ""
	}
}
