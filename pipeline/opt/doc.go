// Package opt holds the mid-end optimizer: the Ori phases of ptxas's
// pipeline that transform code. Each transformation lives in its own file
// whose doc comment describes the algorithm, and registers itself under
// the phase names it implements (a repeated pass registers each of its
// positions, like GeneralOptimizeEarly and GeneralOptimizeMid). The phase
// manager in package pipeline looks phases up here.
//
// Every pass must preserve the meaning of the IR as pipeline/ori/SEMANTICS.md
// defines it; the semantic tests in package pipeline execute every kernel
// spec after every phase and compare with -O0.
package opt

import (
	"fmt"
	"sort"
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

// Pass is one registered transformation.
type Pass struct {
	// Name is the phase name (from the phase table) this entry implements.
	Name string
	// MinOpt is the lowest -O level the pass runs at (the phase table's
	// O-level gate is checked separately by the phase manager; this is the
	// pass's own floor, e.g. 1 for passes ptxas skips at -O0).
	MinOpt int
	// Doc says in one line what the pass does (shown by orilab phases).
	Doc string
	// Run transforms one function. It reports whether it changed it.
	Run func(f *ori.Func, c *Context) (bool, error)
	// NoOp, when set, says why the pass does nothing in this context (a
	// knob switched it off), or returns "" when it runs. The phase
	// manager then reports the phase as a no-op with that reason instead
	// of pretending it ran.
	NoOp func(c *Context) string
	// Required passes cannot be switched off with DisablePhases: the code
	// would not mean the same thing without them.
	Required bool
}

var passes = map[string]Pass{}

// Register adds a pass; registering a name twice is a programming error.
func Register(p Pass) {
	if _, dup := passes[p.Name]; dup {
		panic(fmt.Sprintf("opt: pass %s registered twice", p.Name))
	}
	passes[p.Name] = p
}

// Lookup returns the pass registered for a phase name.
func Lookup(name string) (Pass, bool) {
	p, ok := passes[name]
	return p, ok
}

// Names returns every registered phase name, sorted.
func Names() []string {
	var out []string
	for n := range passes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
